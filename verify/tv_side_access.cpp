// One side of the translation validation (verify/tv_impl.h, SideEncoder): the values of
// operands and symbols, the opcode models run on them, memory accesses, constant loads, and
// calls (uninterpreted effects, or inlined with a frame of their own).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "verify/tv_impl.h"

namespace ori::verify::tv_detail {

z3::expr SideEncoder::sourceValue(const Instr &in, size_t i, const State &s) {
  const Operand &o = in.srcs[i];
  switch (o.kind) {
  case Operand::Kind::Reg:
    return regOf(s, o.reg);
  case Operand::Kind::Imm:
    return smt_.bv(uint64_t(o.imm), 64);
  case Operand::Kind::FImm:
    if (in.op == Opcode::HADD2 || in.op == Opcode::HMUL2 || in.op == Opcode::HFMA2)
      unmodelledAt(in, "a float immediate of a half-precision pair");
    return readsF64(in) ? smt_.bv(std::bit_cast<uint64_t>(o.fimm), 64)
                        : smt_.bv(std::bit_cast<uint32_t>(float(o.fimm)), 64);
  case Operand::Kind::CBank:
    return readWord(smt_, bankArray(in, o, s), bankOffset(o, s));
  case Operand::Kind::Symbol:
    return symbolValue(in, o);
  default:
    return smt_.bv(0, 64); // special registers, labels, tables: the model reads them otherwise
  }
}

z3::expr SideEncoder::bankOffset(const Operand &o, const State &s) {
  z3::expr off = smt_.bv(uint64_t(o.imm), 64);
  if (o.hasReg)
    off = off + Smt::zext(Smt::low(regOf(s, o.reg), 32), 64);
  return off;
}

z3::expr SideEncoder::bankArray(const Instr &in, const Operand &o, const State &s) {
  (void)in;
  return o.bank == 3 ? s.mem : x_.bank(o.bank);
}

z3::expr SideEncoder::symbolValue(const Instr &in, const Operand &o) {
  const Param *param = nullptr;
  const Variable *v = findVariable(m_, f_, o.sym, &param);
  if (v || param)
    return variableBase(in, o.sym, v, param).first;
  for (size_t i = 0; i < m_.functions.size(); ++i)
    if (m_.functions[i].name == o.sym)
      return smt_.bv(kFunctionBase + 16 * i, 64);
  unmodelledAt(in, fmt::format("undefined symbol '{}'", o.sym));
}

std::pair<z3::expr, uint64_t> SideEncoder::variableBase(const Instr &in, const std::string &name,
                                                        const Variable *v, const Param *param) {
  bool fnScope = v && std::any_of(f_.variables.begin(), f_.variables.end(),
                                  [&](const Variable &w) { return &w == v; });
  uint64_t align = v ? v->align : param->align, size = v ? v->size() : param->size;
  if (param || (v && v->space == Space::Param))
    return {x_.base(fmt::format("{}.param {}", frame_, name), kParamSize, align, size),
            kParamWindow};
  switch (v->space) {
  case Space::Global:
    return {x_.base(fmt::format("global {}", name), std::nullopt, align, size), 0};
  case Space::Const:
    return {x_.base(fmt::format("const {}", name), uint64_t(64) << 20, align, size), kConstWindow};
  case Space::Shared:
    return {x_.base(fnScope ? fmt::format("{}.shared {}", f_.name, name)
                            : fmt::format("shared {}", name),
                    kSharedSize, align, size),
            kSharedWindow};
  case Space::Local:
    return {x_.base(fmt::format("{}.local {}", frame_, name), kLocalSize, align, size),
            kLocalWindow};
  default:
    unmodelledAt(in, "a variable of an unknown space");
  }
}

std::optional<z3::expr> SideEncoder::compute(const Instr &in, State &s, const z3::expr &word) {
  ModelInputs mi{{}, smt_.boolVal(true), {}, word, x_.tid, x_.ctaid, x_.ntid, x_.nctaid};
  for (size_t i = 0; i < in.srcs.size(); ++i)
    mi.srcs.push_back(sourceValue(in, i, s));
  if (in.guard)
    mi.guard = regOf(s, in.guard->reg);
  for (const Operand &d : in.dsts) {
    if (d.kind != Operand::Kind::Reg)
      unmodelledAt(in, "a destination that is not a register");
    mi.oldDsts.push_back(regOf(s, d.reg));
  }
  std::optional<ModelOutputs> out;
  if (!isUninterpreted(in))
    out = modelInstr(smt_, in, mi);
  if (!out)
    throw NoModel{}; // runBlock encodes it as uninterpreted (tv_uninterpreted.cpp)
  // A warp-level matrix instruction's model is uninterpreted functions of its inputs
  // (verify/model_matrix.cpp): a difference they allow is no counterexample.
  if (const ModelEntry *e = findModelEntry(in.op); e && e->uninterpreted)
    x_.approximations.insert(fmt::format("{} at line {} (a warp-level matrix instruction)",
                                         in.info().name, in.loc.line));
  for (size_t i = 0; i < in.dsts.size(); ++i)
    if (!in.dsts[i].reg.isConst())
      s.regs.insert_or_assign(in.dsts[i].reg, out->dsts[i]);
  return out->memory;
}

void SideEncoder::memoryAccess(const Instr &in, const z3::expr &g, State &s) {
  const Operand &o = in.srcs.empty() ? Operand{} : in.srcs[0];
  if (o.kind != Operand::Kind::Mem)
    unmodelledAt(in, "an address that is not [R+imm]");
  bool atomic = isAtomic(in.op);
  bool isStore = atomic || in.op == Opcode::ST || in.op == Opcode::STG || in.op == Opcode::STS ||
                 in.op == Opcode::STL;
  unsigned bytes = atomic ? atomicBytes(in.mods) : accessBytes(in);
  if (bytes > 8)
    throw NoModel{}; // 128-bit atomics: uninterpreted
  z3::expr a = smt_.bv(uint64_t(o.imm), 64);
  if (o.hasReg)
    a = a + regOf(s, o.reg);
  enum class Sp {
    Global,
    Shared,
    Local,
    Generic
  } sp = in.op == Opcode::LDG || in.op == Opcode::STG || in.op == Opcode::ATOMG ||
                 in.op == Opcode::REDG
             ? Sp::Global
         : in.op == Opcode::LDS || in.op == Opcode::STS || in.op == Opcode::ATOMS ? Sp::Shared
         : in.op == Opcode::LDL || in.op == Opcode::STL                           ? Sp::Local
                                                                                  : Sp::Generic;
  z3::expr addr = a;                  // the generic address
  z3::expr bad = smt_.boolVal(false); // this access faults
  auto windowFault = [&](const z3::expr &off, uint64_t size) {
    return !z3::ule(off, smt_.bv(size - bytes, 64));
  };
  if (!o.sym.empty()) {
    const Param *param = nullptr;
    const Variable *v = findVariable(m_, f_, o.sym, &param);
    if (!v && !param)
      unmodelledAt(in, fmt::format("undefined symbol '{}'", o.sym));
    auto [base, window] = variableBase(in, o.sym, v, param);
    Space space = param ? Space::Param : v->space;
    bool fits = sp == Sp::Generic || (sp == Sp::Global && space == Space::Global) ||
                (sp == Sp::Shared && space == Space::Shared) ||
                (sp == Sp::Local && space == Space::Local);
    if (!fits)
      unmodelledAt(in, "a variable of another state space");
    z3::expr off = base + a;
    addr = smt_.bv(window, 64) + off;
    // Within the variable's own bytes no access faults (but for alignment, below); the
    // interpreter allocates every variable.
    uint32_t size = v ? v->size() : param->size;
    z3::expr inside = size >= bytes ? z3::ule(a, smt_.bv(size - bytes, 64)) : smt_.boolVal(false);
    if (space == Space::Shared)
      bad = windowFault(off, kSharedSize);
    else if (space == Space::Local)
      bad = windowFault(off, kLocalSize);
    else
      bad = !inside && !x_.mapped(addr, bytes);
    if (isStore && space == Space::Const)
      bad = smt_.boolVal(true);
  } else if (sp == Sp::Shared) {
    addr = smt_.bv(kSharedWindow, 64) + a;
    bad = windowFault(a, kSharedSize);
  } else if (sp == Sp::Local) {
    addr = smt_.bv(kLocalWindow, 64) + a;
    bad = windowFault(a, kLocalSize);
  } else {
    auto inWindow = [&](uint64_t base, uint64_t size) {
      return z3::ult(a - smt_.bv(base, 64), smt_.bv(size, 64));
    };
    z3::expr shared = inWindow(kSharedWindow, kSharedSize),
             local = inWindow(kLocalWindow, kLocalSize);
    bad = z3::ite(shared, windowFault(a - smt_.bv(kSharedWindow, 64), kSharedSize),
                  z3::ite(local, windowFault(a - smt_.bv(kLocalWindow, 64), kLocalSize),
                          !x_.mapped(a, bytes)));
    if (isStore && sp == Sp::Generic)
      bad = bad || inWindow(kConstWindow, uint64_t(64) << 20);
    // A global access faults in every window: the interpreter's global accesses reach
    // buffers and .global variables only.
    if (sp == Sp::Global)
      bad = bad || shared || local || inWindow(kConstWindow, uint64_t(64) << 20);
  }
  bad = bad || (addr & smt_.bv(bytes - 1, 64)) != smt_.bv(0, 64);
  // The function's own local variables that do not escape: only addresses computed from
  // them reach them (LocalProvenance).
  for (const Variable *v : provenance_.owned) {
    if (provenance_.derivedFrom(o, v->name))
      continue;
    const z3::expr start = smt_.bv(kLocalWindow, 64) + variableBase(in, v->name, v, nullptr).first;
    bad = bad || z3::ult(addr - start, smt_.bv(v->size(), 64)) ||
          z3::ult(start - addr, smt_.bv(bytes, 64));
  }
  addFault(in, s.pc && g && bad);
  z3::expr priv = isPrivate(smt_, addr);
  std::optional<z3::expr> word = compute(in, s, readWord(smt_, z3::ite(priv, s.priv, s.mem), addr));
  if (isStore) {
    if (!word)
      unmodelledAt(in, "a store without a memory result");
    s.mem = z3::ite(priv, s.mem, writeWord(smt_, s.mem, addr, *word, bytes));
    s.priv = z3::ite(priv, writeWord(smt_, s.priv, addr, *word, bytes), s.priv);
  }
}

void SideEncoder::constantLoad(const Instr &in, const z3::expr &g, State &s) {
  if (in.srcs.empty() || in.srcs[0].kind != Operand::Kind::CBank)
    unmodelledAt(in, "LDC without a constant-bank operand");
  const Operand &o = in.srcs[0];
  unsigned bytes = accessBytes(in);
  z3::expr off = bankOffset(o, s);
  z3::expr bad = (off & smt_.bv(bytes - 1, 64)) != smt_.bv(0, 64);
  z3::expr word = smt_.bv(0, 64);
  if (o.bank == 3) {
    z3::expr addr = smt_.bv(kConstWindow, 64) + off;
    bad = bad || !x_.mapped(addr, bytes);
    word = readWord(smt_, s.mem, addr);
  } else {
    word = readWord(smt_, x_.bank(o.bank), off);
  }
  addFault(in, s.pc && g && bad);
  compute(in, s, word);
}

void SideEncoder::call(const Instr &in, const z3::expr &g, State &s) {
  if (in.srcs.empty())
    unmodelledAt(in, "CALL without a target");
  const Operand &t = in.srcs[0];
  std::string callee = t.kind == Operand::Kind::Symbol ? t.sym
                       : t.kind == Operand::Kind::Reg  ? "(indirect)"
                                                       : "";
  if (callee.empty())
    unmodelledAt(in, "CALL without a target");
  const Function *fn = t.kind == Operand::Kind::Symbol ? m_.findFunction(t.sym) : nullptr;
  bool hasBody = fn && !fn->isEntry && !fn->isDeclaration();
  bool paramLists = std::all_of(in.srcs.begin() + 1, in.srcs.end(),
                                [](const Operand &o) { return o.kind == Operand::Kind::Symbol; }) &&
                    std::all_of(in.dsts.begin(), in.dsts.end(),
                                [](const Operand &o) { return o.kind == Operand::Kind::Symbol; });
  bool small = hasBody && frameBytes(*fn) <= kMaxFrameBytes;
  if (hasBody && paramLists && small && depth_ < x_.inlineDepth) {
    inlineCall(in, g, s, *fn);
    return;
  }
  if (hasBody)
    x_.approximations.insert(
        fmt::format("the call to {} at line {} ({})", fn->name, in.loc.line,
                    !paramLists ? "registers as arguments or results"
                    : !small    ? fmt::format("a frame larger than {} bytes", kMaxFrameBytes)
                                : std::string("beyond the inline depth")));
  else if (t.kind == Operand::Kind::Reg)
    x_.approximations.insert(fmt::format("the indirect call at line {}", in.loc.line));
  z3::context &c = smt_.ctx();
  z3::sort_vector domain(c);
  z3::expr_vector args(c);
  domain.push_back(x_.bytes);
  args.push_back(s.mem);
  domain.push_back(x_.bytes);
  args.push_back(s.priv);
  domain.push_back(c.bv_sort(64));
  args.push_back(t.kind == Operand::Kind::Reg ? regOf(s, t.reg) : smt_.bv(0, 64));
  for (size_t i = 1; i < in.srcs.size(); ++i) {
    if (in.srcs[i].kind != Operand::Kind::Reg)
      continue; // .param arguments are in memory
    z3::expr v = regOf(s, in.srcs[i].reg);
    domain.push_back(v.get_sort());
    args.push_back(v);
  }
  std::string sig = fmt::format("{}/{}", callee, args.size());
  z3::expr memAfter = x_.function("call " + sig + " memory", domain, x_.bytes)(args);
  z3::expr privAfter = x_.function("call " + sig + " private memory", domain, x_.bytes)(args);
  z3::expr ends = x_.function("call " + sig + " exits", domain, c.bool_sort())(args);
  z3::expr faults = x_.function("call " + sig + " faults", domain, c.bool_sort())(args);
  addFault(in, s.pc && g && faults);
  for (size_t i = 0; i < in.dsts.size(); ++i) {
    const Operand &d = in.dsts[i];
    if (d.kind != Operand::Kind::Reg || d.reg.isConst())
      continue;
    z3::sort r = d.reg.isPredicate() ? c.bool_sort() : c.bv_sort(64);
    z3::expr v = x_.function(fmt::format("call {} result {}", sig, i), domain, r)(args);
    s.regs.insert_or_assign(d.reg, z3::ite(g, v, regOf(s, d.reg)));
  }
  State done = s;
  done.pc = s.pc && g && ends;
  done.mem = memAfter;
  done.priv = privAfter;
  exit(done);
  s.mem = z3::ite(g, memAfter, s.mem);
  s.priv = z3::ite(g, privAfter, s.priv);
  s.pc = s.pc && !(g && ends);
}

std::pair<z3::expr, uint32_t> SideEncoder::frameVariable(const Instr &in, const std::string &name) {
  const Param *param = nullptr;
  const Variable *v = findVariable(m_, f_, name, &param);
  if (!v && !param)
    unmodelledAt(in, fmt::format("undefined symbol '{}'", name));
  if (v && v->space != Space::Param && v->space != Space::Local)
    unmodelledAt(in, fmt::format("'{}' is not a .param variable", name));
  return {variableBase(in, name, v, param).first, v ? v->size() : param->size};
}

uint64_t SideEncoder::frameBytes(const Function &fn) {
  uint64_t n = 0;
  for (const auto *list : {&fn.params, &fn.returns})
    for (const Param &p : *list)
      n += p.size;
  for (const Variable &v : fn.variables)
    if (v.space == Space::Param || v.space == Space::Local)
      n += v.size();
  return n;
}

void SideEncoder::inlineCall(const Instr &in, const z3::expr &g, State &s, const Function &fn) {
  size_t nargs = in.srcs.size() - 1;
  if ((nargs != 0 && nargs != fn.params.size()) ||
      (!in.dsts.empty() && in.dsts.size() != fn.returns.size()))
    unmodelledAt(in, fmt::format("a call whose lists do not match {}'s signature", fn.name));
  SideEncoder callee(x_, m_, fn, unroll_, source_);
  callee.frame_ = frame_ + ">" + fn.name;
  callee.depth_ = depth_ + 1;
  callee.encoded_ = encoded_;
  auto pb = [&](const z3::expr &base, uint64_t k) {
    return smt_.bv(kParamWindow, 64) + base + smt_.bv(k, 64);
  };
  // Arguments, read before the callee's frame is written.
  std::vector<std::vector<z3::expr>> argBytes;
  for (size_t k = 0; k < nargs; ++k) {
    auto [base, size] = frameVariable(in, in.srcs[k + 1].sym);
    std::vector<z3::expr> bytes;
    for (uint32_t i = 0; i < std::min(size, fn.params[k].size); ++i)
      bytes.push_back(z3::select(s.priv, pb(base, i)));
    argBytes.push_back(std::move(bytes));
  }
  // The fresh frame (at most kMaxFrameBytes: call() checked).
  z3::expr priv = s.priv;
  auto clear = [&](const z3::expr &addr0, uint32_t size, const std::vector<uint8_t> &init) {
    for (uint32_t i = 0; i < size; ++i)
      priv = z3::store(priv, addr0 + smt_.bv(i, 64), smt_.bv(i < init.size() ? init[i] : 0, 8));
  };
  for (const Param &p : fn.params)
    clear(pb(callee.frameVariable(in, p.name).first, 0), p.size, {});
  for (const Param &p : fn.returns)
    clear(pb(callee.frameVariable(in, p.name).first, 0), p.size, {});
  for (const Variable &v : fn.variables)
    if (v.space == Space::Param)
      clear(pb(callee.frameVariable(in, v.name).first, 0), v.size(), v.init);
    else if (v.space == Space::Local)
      clear(smt_.bv(kLocalWindow, 64) + callee.frameVariable(in, v.name).first, v.size(), v.init);
  for (size_t k = 0; k < nargs; ++k) {
    z3::expr base = callee.frameVariable(in, fn.params[k].name).first;
    for (size_t i = 0; i < argBytes[k].size(); ++i)
      priv = z3::store(priv, pb(base, i), argBytes[k][i]);
  }
  callee.runFrom(0, State{taken(s.pc, g), {}, s.mem, priv, s.barriers, s.collectives});
  if (callee.unmodelled)
    throw Unmodelled{
        fmt::format("{} (in {}, called at line {})", *callee.unmodelled, fn.name, in.loc.line)};
  fault = fault || callee.fault;
  faultSites.insert(faultSites.end(), callee.faultSites.begin(), callee.faultSites.end());
  bound = bound || callee.bound;
  trapped = trapped || callee.trapped;
  snapshots.insert(snapshots.end(), callee.snapshots.begin(), callee.snapshots.end());
  if (!callee.exited.is_false()) {
    exited = exited || callee.exited;
    exitMem = z3::ite(callee.exited, callee.exitMem, exitMem);
    exitPriv = z3::ite(callee.exited, callee.exitPriv, exitPriv);
    exitBarriers = z3::ite(callee.exited, callee.exitBarriers, exitBarriers);
  }
  // Back in the caller: its registers, the callee's memory, the results copied.
  std::vector<State> after;
  if (!callee.returns_.empty()) {
    State r = callee.merge(callee.returns_);
    // (each result variable with the bytes it gets, all read before any is written)
    std::vector<std::pair<z3::expr, std::vector<z3::expr>>> results;
    for (size_t k = 0; k < in.dsts.size(); ++k) {
      auto [from, size] = callee.frameVariable(in, fn.returns[k].name);
      auto [to, room] = frameVariable(in, in.dsts[k].sym);
      std::vector<z3::expr> bytes;
      for (uint32_t i = 0; i < std::min(size, room); ++i)
        bytes.push_back(z3::select(r.priv, pb(from, i)));
      results.emplace_back(to, std::move(bytes));
    }
    for (const auto &[to, bytes] : results)
      for (size_t i = 0; i < bytes.size(); ++i)
        r.priv = z3::store(r.priv, pb(to, i), bytes[i]);
    after.push_back(State{r.pc, s.regs, r.mem, r.priv, r.barriers, r.collectives});
  }
  State skipped = s;
  skipped.pc = notTaken(s.pc, g);
  if (!skipped.pc.is_false() || after.empty())
    after.push_back(skipped);
  s = merge(after);
}

} // namespace ori::verify::tv_detail
