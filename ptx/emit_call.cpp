// Ori -> PTX: CALL and function-scope .param variables (emit_impl.h).
//
// The interpreter gives a called function fresh registers and copies
// min(size) bytes from the caller's argument .param variables into the
// callee's parameters at CALL and from its return values back at RET: PTX
// call semantics. PTX (and ptxas 13.0, which crashes otherwise) wants call
// slots used one way only: written and passed as arguments, or returned into
// and read after the call, with the callee's declaration. Variables used that
// way are passed directly; any other .param variable lives in .local memory
// and is copied into and out of a slot of the callee's type at each CALL.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "ir/ori.h"
#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {

void FnEmitter::classifySlots() {
  struct Use {
    bool read = false, written = false, arg = false, ret = false, other = false, opaque = false;
  };
  std::map<std::string, Use> uses;
  for (const Variable &v : f.variables)
    if (v.space == Space::Param)
      uses[v.name];
  // Declarations ptxas accepts on both sides of a call: the same, or scalars of
  // one size where either is untyped (.b32 vs .u32; .u32 vs .f32 is refused).
  auto sigOf = [](Param p) {
    p.name.assign(1, '_');
    std::string d = paramDecl(p, true);
    if (d.find('[') == std::string::npos)
      d = fmt::format("scalar {} {}", p.size, p.type[0] == 'b' ? "b" : p.type);
    return d;
  };
  auto same = [](const std::string &a, const std::string &b) {
    if (a == b)
      return true;
    if (!a.starts_with("scalar ") || !b.starts_with("scalar "))
      return false;
    size_t sa = a.rfind(' '), sb = b.rfind(' ');
    return a.substr(0, sa) == b.substr(0, sb) &&
           (a.substr(sa + 1) == "b" || b.substr(sb + 1) == "b");
  };
  auto varSig = [&](const std::string &name) {
    for (const Variable &v : f.variables)
      if (v.name == name) {
        Param p;
        p.type = v.type;
        p.size = v.size();
        p.align = v.align ? v.align : v.elemSize;
        p.count = v.count;
        return sigOf(p);
      }
    return std::string();
  };
  auto isIdentChar = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
  };
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs) {
      if (in.op ==
          Opcode::OPAQUE) { // an indirect call kept as text names its slots: keep them slots
        const std::string &t = in.opaqueText;
        for (auto &[name, u] : uses)
          for (size_t at = t.find(name); at != std::string::npos; at = t.find(name, at + 1))
            if ((at == 0 || !isIdentChar(t[at - 1])) &&
                (at + name.size() == t.size() || !isIdentChar(t[at + name.size()])))
              u.opaque = true;
        continue;
      }
      if (in.op == Opcode::CALL) {
        const Function *g = !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Symbol
                                ? m.findFunction(in.srcs[0].sym)
                                : nullptr;
        for (size_t k = 1; k < in.srcs.size(); ++k)
          if (auto it = uses.find(in.srcs[k].sym); it != uses.end()) {
            it->second.arg = true;
            if (!g || k - 1 >= g->params.size() ||
                !same(sigOf(g->params[k - 1]), varSig(it->first)))
              it->second.other = true;
          }
        for (size_t k = 0; k < in.dsts.size(); ++k)
          if (auto it = uses.find(in.dsts[k].sym); it != uses.end()) {
            it->second.ret = true;
            if (!g || k >= g->returns.size() || !same(sigOf(g->returns[k]), varSig(it->first)))
              it->second.other = true;
          }
        continue;
      }
      for (const Operand &o : in.srcs) {
        if ((o.kind != Operand::Kind::Mem && o.kind != Operand::Kind::Symbol) || o.sym.empty())
          continue;
        auto it = uses.find(o.sym);
        if (it == uses.end())
          continue;
        bool load = in.op == Opcode::LD, store = in.op == Opcode::ST;
        if (o.kind != Operand::Kind::Mem || (!load && !store) || (o.hasReg && !o.reg.isConst()))
          it->second.other = true;
        else if (load)
          it->second.read = true;
        else if (in.isGuarded())
          it->second.other = true; // PTX forbids a predicated st.param to a slot
        else
          it->second.written = true;
      }
    }
  // A return slot must be read only where a call has certainly filled it
  // (ptxas crashes on a read that can come first): a forward "must be
  // written" analysis over the blocks.
  std::vector<std::string> rets;
  for (const auto &[name, u] : uses)
    if (u.ret && !u.written && !u.arg && !u.other)
      rets.push_back(name);
  std::set<std::string> early; // read where a call may not have written it
  if (!rets.empty()) {
    size_t n = f.blocks.size(), k = rets.size();
    auto slotIndex = [&](const std::string &name) -> size_t {
      return size_t(std::find(rets.begin(), rets.end(), name) - rets.begin());
    };
    std::vector<std::vector<uint32_t>> succs = successors(f), preds(n);
    for (size_t b = 0; b < n; ++b)
      for (uint32_t t : succs[b])
        preds[t].push_back(uint32_t(b));
    std::vector<std::vector<char>> out(n, std::vector<char>(k, 1)); // optimistic start
    auto walk = [&](size_t b, std::vector<char> cur, bool record) {
      for (const Instr &in : f.blocks[b].instrs) {
        if (record && (in.op == Opcode::LD) && !in.srcs.empty() &&
            in.srcs[0].kind == Operand::Kind::Mem) {
          size_t i = slotIndex(in.srcs[0].sym);
          if (i < k && !cur[i])
            early.insert(rets[i]);
        }
        if (in.op == Opcode::CALL && !in.isGuarded())
          for (const Operand &d : in.dsts)
            if (size_t i = slotIndex(d.sym); i < k)
              cur[i] = 1;
      }
      return cur;
    };
    auto inOf = [&](size_t b) {
      std::vector<char> cur(k, b == 0 ? 0 : 1);
      if (b == 0 || preds[b].empty())
        std::fill(cur.begin(), cur.end(), 0);
      else
        for (uint32_t p : preds[b])
          for (size_t i = 0; i < k; ++i)
            cur[i] &= out[p][i];
      return cur;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t b = 0; b < n; ++b) {
        std::vector<char> o = walk(b, inOf(b), false);
        if (o != out[b]) {
          out[b] = std::move(o);
          changed = true;
        }
      }
    }
    for (size_t b = 0; b < n; ++b)
      walk(b, inOf(b), true);
  }
  for (const auto &[name, u] : uses) {
    bool unused = !u.read && !u.written && !u.arg && !u.ret && !u.other;
    bool argSlot = u.arg && !u.read && !u.ret && !u.other;
    bool retSlot = u.ret && !u.written && !u.arg && !u.other && !early.count(name);
    if (unused || argSlot || retSlot || u.opaque)
      slots_.insert(name);
  }
}

void FnEmitter::emitCall(const Instr &in) {
  if (in.srcs.empty())
    fail(in.loc, "CALL has no target");
  bool registers = false;
  for (const Operand &o : in.dsts)
    registers |= o.kind == Operand::Kind::Reg;
  for (size_t k = 1; k < in.srcs.size(); ++k)
    registers |= in.srcs[k].kind == Operand::Kind::Reg;
  if (registers) {
    emitRegisterCall(in);
    return;
  }
  // An indirect call: a prototype made from the argument and result variables (the callee they
  // are copied to), printed before the call.
  Function proto;
  std::string sym, protoName;
  const Function *callee = nullptr;
  if (in.srcs[0].kind == Operand::Kind::Reg) {
    auto asParam = [&](const Operand &o) {
      const Param *param = nullptr;
      const Variable *v =
          o.kind == Operand::Kind::Symbol ? findVariable(m, f, o.sym, &param) : nullptr;
      if (!v || v->space != Space::Param)
        fail(in.loc, "an indirect CALL's arguments and results must be .param variables");
      Param p;
      p.type = v->type;
      p.name = "_";
      p.count = v->count;
      p.size = v->size();
      p.align = v->align ? v->align : v->elemSize;
      return p;
    };
    for (size_t k = 1; k < in.srcs.size(); ++k)
      proto.params.push_back(asParam(in.srcs[k]));
    for (const Operand &d : in.dsts)
      proto.returns.push_back(asParam(d));
    if (proto.returns.size() > 1) // as for a function's signature (functionSignature)
      fail(in.loc,
           fmt::format(
               "an indirect CALL with {} .param results: PTX allows one (several only in .reg)",
               proto.returns.size()));
    if (!proto.returns.empty() &&
        proto.returns[0].size > 48) // docs/spec-notes.md, "ptxas findings"
      fail(in.loc, fmt::format("an indirect CALL returning {} bytes: ptxas 13.0 crashes (SIGSEGV) "
                               "on an indirect call "
                               "whose .param result is larger than 48 bytes",
                               proto.returns[0].size));
    sym = regAs(in.srcs[0].reg, 64);
    protoName = uniqueName("__ori_proto");
    callee = &proto;
  } else if (in.srcs[0].kind == Operand::Kind::Symbol) {
    sym = in.srcs[0].sym;
    callee = m.findFunction(sym);
  } else {
    fail(in.loc, "CALL has no target");
  }
  if (!callee)
    fail(in.loc, fmt::format("CALL to unknown function '{}'", sym));
  if (callee->isEntry)
    fail(in.loc, fmt::format("CALL to .entry '{}': PTX cannot call kernels", sym));
  // Slots for the callee's parameters and return values go into the caller's frame, which the
  // interpreter bounds (1 MiB of parameter areas per thread); real PTX never comes near this.
  uint64_t slotBytes = 0;
  for (const auto *list : {&callee->params, &callee->returns})
    for (const Param &p : *list)
      slotBytes += p.size;
  if (slotBytes > kMaxCallSlotBytes)
    fail(in.loc,
         fmt::format("CALL to '{}': {} bytes of parameters and return values have no PTX form here "
                     "(at most {})",
                     sym, slotBytes, kMaxCallSlotBytes));
  size_t nargs = in.srcs.size() - 1;
  if (nargs > callee->params.size())
    fail(in.loc, fmt::format("CALL passes {} arguments to '{}', which takes {}", nargs, sym,
                             callee->params.size()));
  if (in.dsts.size() > callee->returns.size())
    fail(in.loc, fmt::format("CALL takes {} return values from '{}', which returns {}",
                             in.dsts.size(), sym, callee->returns.size()));
  std::vector<std::string> args, rets, pads;
  for (size_t k = 1; k < in.srcs.size(); ++k) {
    if (in.srcs[k].kind != Operand::Kind::Symbol)
      fail(in.loc, "CALL arguments must be .param variables");
    args.push_back(in.srcs[k].sym);
  }
  for (const Operand &d : in.dsts) {
    if (d.kind != Operand::Kind::Symbol)
      fail(in.loc, "CALL return values must be .param variables");
    rets.push_back(d.sym);
  }
  // The interpreter copies min(size) bytes between the caller's .param
  // variables and the callee's parameters. A variable used as a plain PTX
  // call slot (see classifySlots) is passed itself; any other goes through
  // a slot of the callee's type and a copy.
  std::vector<Line> before, after;
  auto copy = [&](std::vector<Line> &to, const std::string &fromSpace, const std::string &from,
                  uint32_t fromAlign, const std::string &intoSpace, const std::string &into,
                  uint32_t intoAlign, uint32_t n, bool guarded) {
    uint32_t chunk = 8;
    while (chunk > 1 && (n % chunk || fromAlign % chunk || intoAlign % chunk))
      chunk /= 2;
    for (uint32_t off = 0; off < n; off += chunk) {
      std::string t = temp(chunk == 8 ? 64 : 32), at = off ? fmt::format("+{}", off) : "";
      to.push_back(
          {fmt::format("ld.{}.b{} {}, [{}{}];", fromSpace, chunk * 8, t, from, at), false});
      to.push_back(
          {fmt::format("st.{}.b{} [{}{}], {};", intoSpace, chunk * 8, into, at, t), guarded});
    }
  };
  // The state space, size and alignment of what a CALL operand names.
  auto operandOf = [&](const std::string &name) {
    struct Where {
      std::string space;
      uint32_t size = 0, align = 1;
    } w;
    const Param *param = nullptr;
    const Variable *v = findVariable(m, f, name, &param);
    if (v) {
      w.space = slots_.count(name)         ? "param"
                : v->space == Space::Param ? "local"
                                           : std::string(spaceName(v->space));
      w.size = v->size();
      w.align = std::max<uint32_t>(v->align ? v->align : v->elemSize, 1);
    } else if (param) {
      w.space = "param";
      w.size = param->size;
      w.align = std::max<uint32_t>(param->align, 1);
    } else {
      fail(in.loc, fmt::format("CALL operand '{}' names no .param variable", name));
    }
    return w;
  };
  for (size_t k = 0; k < nargs; ++k) {
    if (slots_.count(args[k]))
      continue;
    auto w = operandOf(args[k]);
    Param pad = callee->params[k];
    pad.name = uniqueName("__ori_arg");
    pads.push_back(paramDecl(pad, true) + ";");
    copy(before, w.space, args[k], w.align, "param", pad.name, std::max<uint32_t>(pad.align, 1),
         std::min(w.size, pad.size), false);
    args[k] = pad.name;
  }
  for (size_t k = 0; k < in.dsts.size(); ++k) {
    if (slots_.count(rets[k]))
      continue;
    auto w = operandOf(rets[k]);
    Param pad = callee->returns[k];
    pad.name = uniqueName("__ori_ret");
    pads.push_back(paramDecl(pad, true) + ";");
    copy(after, "param", pad.name, std::max<uint32_t>(pad.align, 1), w.space, rets[k], w.align,
         std::min(w.size, pad.size), true);
    rets[k] = pad.name;
  }
  // A CALL without an argument (result) list copies nothing; PTX passes unset slots.
  for (size_t k = nargs; k < callee->params.size(); ++k) {
    Param p = callee->params[k];
    p.name = uniqueName("__ori_arg");
    pads.push_back(paramDecl(p, true) + ";");
    args.push_back(p.name);
  }
  for (size_t k = in.dsts.size(); k < callee->returns.size(); ++k) {
    Param p = callee->returns[k];
    p.name = uniqueName("__ori_ret");
    pads.push_back(paramDecl(p, true) + ";");
    rets.push_back(p.name);
  }
  auto list = [](const std::vector<std::string> &v) {
    std::string s = "(";
    for (size_t k = 0; k < v.size(); ++k)
      s += (k ? ", " : "") + v[k];
    return s + ")";
  };
  if (!protoName.empty()) {
    std::vector<std::string> ps, rs;
    for (const Param &p : proto.params)
      ps.push_back(paramDecl(p, true));
    for (const Param &p : proto.returns)
      rs.push_back(paramDecl(p, true));
    pads.push_back(fmt::format("{}: .callprototype {}_ {};", protoName, list(rs) + " ", list(ps)));
  }
  if (!pads.empty())
    emitRaw("{");
  for (std::string &d : pads)
    emitRaw(std::move(d));
  lines_.insert(lines_.end(), before.begin(), before.end());
  emit(fmt::format("call {}{}{}{};", rets.empty() ? "" : list(rets) + ", ", sym,
                   args.empty() ? "" : ", " + list(args),
                   protoName.empty() ? "" : ", " + protoName));
  lines_.insert(lines_.end(), after.begin(), after.end());
  if (!pads.empty())
    emitRaw("}");
}

// A CALL that passes registers (OptiX-style runtime calls to a function outside the module):
// printed as PTX writes it, `call (%r1), _rt_f, (%r2, %rd3);`.
void FnEmitter::emitRegisterCall(const Instr &in) {
  const Operand &t = in.srcs[0];
  if (t.kind != Operand::Kind::Symbol || !m.findFunction(t.sym) ||
      !m.findFunction(t.sym)->isDeclaration())
    fail(in.loc, fmt::format("{}: only a call to a function outside the module passes registers",
                             printInstr(f, in)));
  auto name = [&](const Operand &o) {
    if (o.kind != Operand::Kind::Reg || o.reg.isConst())
      fail(in.loc, fmt::format("{}: a CALL passes registers or .param variables, not both",
                               printInstr(f, in)));
    return regName(o.reg);
  };
  std::vector<std::string> rets, args;
  for (const Operand &d : in.dsts)
    rets.push_back(name(d));
  for (size_t k = 1; k < in.srcs.size(); ++k)
    args.push_back(name(in.srcs[k]));
  emit(fmt::format("call {}{}{};", rets.empty() ? "" : fmt::format("({}), ", fmt::join(rets, ", ")),
                   t.sym, args.empty() ? "" : fmt::format(", ({})", fmt::join(args, ", "))));
}

} // namespace ori::ptx::emit_detail
