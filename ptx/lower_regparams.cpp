// PTX -> Ori: `.func`s of the module with `.reg` parameters or return values
// (`.func (.reg .b32 r) f(.reg .b32 a, .reg .pred p)`, PTX ISA 7.1 "Function declarations and
// definitions"). Ori passes arguments in .param variables (docs/interpreter.md, "Calls"), so the
// module is rewritten, as PTX, into the form with .param ones before it is lowered:
//  - f's `.reg .T a` becomes `.param .T __ori_arg<k>`; its body starts by declaring the
//    register `a` and loading it (`ld.param.T a, [__ori_arg<k>];`);
//  - f's `.reg .T r` return value becomes `.param .T __ori_ret0`; before each `ret` (with its
//    guard) and at the end of a body that falls off its end, `st.param.T [__ori_ret0], r;`.
//    Several return values (which PTX allows only in .reg: ptxas 13.0 rejects several .param
//    ones) are packed into one `.param .align A .b8 __ori_ret[N]`, each at its natural alignment;
//  - a call `call (x), f, (y);` becomes, in a scope of its own, `.param .T` variables for the
//    arguments and results, `st.param` of each argument, the call, `ld.param` of each result.
// A `.pred` travels as a .u32 0 or 1 (selp before a store, setp.ne after a load): a .param
// cannot be a predicate. Functions only declared here (defined in another module) keep their
// `.reg` parameters: a call to them passes registers, as before.
#include <fmt/format.h>

#include <map>

#include "ptx/lower_impl.h"

namespace ori::ptx {
namespace {

struct RegSignature {
  std::vector<Variable> params, returns; // as declared (space .reg or .param)
};

bool hasRegisters(const Function &f) {
  for (const auto *list : {&f.params, &f.returns})
    for (const Variable &v : *list)
      if (v.space == ".reg")
        return true;
  return false;
}

// The type a `.reg` parameter has in .param space: a predicate travels as .u32.
std::string paramType(const Variable &v) { return v.type == ".pred" ? ".u32" : v.type; }

// Bytes of a .reg value in .param space (a predicate: 4).
uint32_t sizeOf(const Variable &v) {
  PtxType t = parseType(paramType(v));
  return t.bits >= 8 ? t.bits / 8 : 4;
}

// Where return value k goes: one .param variable per value, or, with several, one packed byte
// array (`offsets`, `size`, `align`).
struct ReturnLayout {
  bool packed = false;
  std::vector<uint32_t> offsets;
  uint32_t size = 0, align = 1;
  explicit ReturnLayout(const std::vector<Variable> &returns) {
    packed = returns.size() > 1;
    for (const Variable &r : returns) {
      const uint32_t n = sizeOf(r);
      size = (size + n - 1) / n * n;
      offsets.push_back(size);
      size += n;
      align = std::max(align, n);
    }
    size = std::max<uint32_t>(1, (size + align - 1) / align * align);
  }
  // The variable and offset of value k, for the callee (prefix "__ori_ret") or a call site.
  std::pair<std::string, int64_t> slot(std::string_view prefix, size_t k) const {
    if (packed)
      return {std::string(prefix), offsets[k]};
    return {fmt::format("{}{}", prefix, k), 0};
  }
  Variable packedVariable(const std::string &name, SrcLoc loc, const char *space = ".param") const {
    Variable v;
    v.space = space;
    v.type = ".b8";
    v.align = align;
    v.name = name;
    v.dims.emplace_back(size);
    v.text = fmt::format("{} .align {} .b8 {}[{}]", space, align, name, size);
    v.loc = loc;
    return v;
  }
};

class Rewriter {
public:
  Rewriter(const Module &m, std::map<std::string, RegSignature> sigs)
      : m_(m), sigs_(std::move(sigs)) {}

  Module run() {
    Module out;
    out.fileName = m_.fileName;
    out.version = m_.version;
    out.target = m_.target;
    out.addressSize = m_.addressSize;
    out.items.reserve(m_.items.size());
    for (const TopLevel &item : m_.items) {
      if (item.kind != TopLevel::Kind::Function) {
        out.items.push_back(item);
        continue;
      }
      TopLevel &t = out.items.emplace_back();
      t.kind = item.kind;
      t.loc = item.loc;
      t.function = function(item.function);
    }
    return out;
  }

private:
  Function function(const Function &f) {
    Function out;
    out.isEntry = f.isEntry;
    out.linkage = f.linkage;
    out.name = f.name;
    out.performanceDirectives = f.performanceDirectives;
    out.hasBody = f.hasBody;
    out.loc = f.loc;
    const bool own = sigs_.count(f.name) != 0;
    out.params = own ? asParams(f.params, "__ori_arg") : f.params;
    out.returns = own ? asParams(f.returns, "__ori_ret") : f.returns;
    if (own && ReturnLayout(f.returns).packed) {
      for (const Variable &r : f.returns)
        if (r.space != ".reg")
          throw DiagnosticError(
              {m_.fileName, r.loc.line, r.loc.col,
               fmt::format("'{}': several return values must all be .reg", f.name)});
      out.returns = {ReturnLayout(f.returns).packedVariable("__ori_ret", f.loc)};
    }
    if (!f.hasBody)
      return out;
    if (own) { // the registers, and the arguments loaded into them
      for (const auto *list : {&f.params, &f.returns})
        for (const Variable &v : *list)
          if (v.space == ".reg")
            out.body.push_back(decl(v.name, v.type, v.loc));
      for (size_t k = 0; k < f.params.size(); ++k)
        if (f.params[k].space == ".reg")
          load(out.body, f.params[k], fmt::format("__ori_arg{}", k), nullptr, f.params[k].loc);
    }
    const Instruction *last = nullptr;
    for (const Statement &s : f.body) {
      if (s.kind == Statement::Kind::Instr)
        last = &s.instr;
      if (s.kind == Statement::Kind::Label)
        last = nullptr;
      if (s.kind == Statement::Kind::Instr && s.instr.opcode == "call" && callee(s.instr)) {
        call(out.body, s.instr);
        continue;
      }
      if (own && s.kind == Statement::Kind::Instr && s.instr.opcode == "ret")
        storeReturns(out.body, f, &s.instr);
      out.body.push_back(s);
    }
    // PTX lets control fall off the end of a function: that returns too.
    bool ends = last && !last->guard &&
                (last->opcode == "ret" || last->opcode == "exit" || last->opcode == "bra");
    if (own && !ends && !f.returns.empty()) {
      Instruction ret;
      ret.opcode = "ret";
      ret.text = "ret";
      ret.loc = f.body.empty() ? f.loc : locOf(f.body.back());
      storeReturns(out.body, f, &ret);
      Statement &s = out.body.emplace_back();
      s.kind = Statement::Kind::Instr;
      s.instr = std::move(ret);
    }
    return out;
  }

  static SrcLoc locOf(const Statement &s) {
    switch (s.kind) {
    case Statement::Kind::Instr:
      return s.instr.loc;
    case Statement::Kind::Var:
      return s.var.loc;
    case Statement::Kind::Label:
      return s.label.loc;
    case Statement::Kind::BranchTargets:
      return s.targets.loc;
    case Statement::Kind::CallPrototype:
      return s.proto.loc;
    case Statement::Kind::Directive:
      return s.directive.loc;
    case Statement::Kind::Scope:
      return s.scope.loc;
    }
    return {};
  }

  static std::vector<Variable> asParams(const std::vector<Variable> &list,
                                        std::string_view prefix) {
    std::vector<Variable> out = list;
    for (size_t k = 0; k < out.size(); ++k) {
      if (out[k].space != ".reg")
        continue;
      out[k].space = ".param";
      out[k].type = paramType(list[k]);
      out[k].name = fmt::format("{}{}", prefix, k);
      out[k].text = fmt::format(".param {} {}", out[k].type, out[k].name);
    }
    return out;
  }

  const RegSignature *callee(const Instruction &in) const {
    for (const Operand &o : in.operands)
      if (o.kind == Operand::Kind::Name) {
        auto it = sigs_.find(o.name);
        return it == sigs_.end() ? nullptr : &it->second;
      }
    return nullptr;
  }

  static Statement decl(const std::string &name, const std::string &type, SrcLoc loc,
                        const char *space = ".reg") {
    Statement s;
    s.kind = Statement::Kind::Var;
    s.var.space = space;
    s.var.type = type;
    s.var.name = name;
    s.var.text = fmt::format("{} {} {}", space, type, name);
    s.var.loc = loc;
    return s;
  }

  static Operand name(const std::string &n, SrcLoc loc) {
    Operand o;
    o.kind = Operand::Kind::Name;
    o.name = n;
    o.loc = loc;
    return o;
  }

  static Operand address(const std::string &n, SrcLoc loc, int64_t off = 0) {
    Operand o = name(n, loc);
    o.kind = Operand::Kind::Address;
    o.ival = off;
    return o;
  }
  static std::string offsetText(int64_t off) { return off ? fmt::format("+{}", off) : ""; }

  // One instruction statement; `text` is how PTX writes it (kept if it stays OPAQUE).
  static void add(std::vector<Statement> &body, const Instruction *guard, SrcLoc loc,
                  std::string opcode, std::vector<std::string> mods, std::vector<Operand> ops,
                  std::string text) {
    Statement &s = body.emplace_back();
    s.kind = Statement::Kind::Instr;
    if (guard && guard->guard)
      s.instr.guard = guard->guard;
    s.instr.opcode = std::move(opcode);
    s.instr.mods = std::move(mods);
    s.instr.operands = std::move(ops);
    s.instr.text = std::move(text);
    s.instr.loc = loc;
  }

  // reg = the .param variable `var` (v: the register's declaration), a predicate from a .u32.
  void load(std::vector<Statement> &body, const Variable &v, const std::string &var,
            const Instruction *guard, SrcLoc loc, const Operand *dest = nullptr, int64_t off = 0) {
    Operand d = dest ? *dest : name(v.name, loc);
    if (v.type != ".pred") {
      add(body, guard, loc, "ld", {".param", v.type}, {d, address(var, loc, off)},
          fmt::format("ld.param{} {}, [{}{}]", v.type, d.name, var, offsetText(off)));
      return;
    }
    std::string t = temp();
    body.push_back(decl(t, ".u32", loc));
    add(body, guard, loc, "ld", {".param", ".u32"}, {name(t, loc), address(var, loc, off)},
        fmt::format("ld.param.u32 {}, [{}{}]", t, var, offsetText(off)));
    Operand zero;
    zero.kind = Operand::Kind::Int;
    zero.loc = loc;
    add(body, guard, loc, "setp", {".ne", ".u32"}, {d, name(t, loc), zero},
        fmt::format("setp.ne.u32 {}, {}, 0", d.name, t));
  }

  // The .param variable `var` = value (a register or an immediate of the declared type).
  void store(std::vector<Statement> &body, const Variable &v, const std::string &var,
             const Operand &value, const Instruction *guard, SrcLoc loc, int64_t off = 0) {
    Operand src = value;
    if (v.type == ".pred") { // selp.u32 t, 1, 0, value
      std::string t = temp();
      body.push_back(decl(t, ".u32", loc));
      Operand one, zero;
      one.kind = zero.kind = Operand::Kind::Int;
      one.ival = 1;
      one.loc = zero.loc = loc;
      add(body, guard, loc, "selp", {".u32"}, {name(t, loc), one, zero, value},
          fmt::format("selp.u32 {}, 1, 0, {}", t, describe(value)));
      src = name(t, loc);
    }
    std::string type = paramType(v);
    add(body, guard, loc, "st", {".param", type}, {address(var, loc, off), src},
        fmt::format("st.param{} [{}{}], {}", type, var, offsetText(off), describe(src)));
  }

  void storeReturns(std::vector<Statement> &body, const Function &f, const Instruction *ret) {
    const ReturnLayout layout(f.returns);
    for (size_t k = 0; k < f.returns.size(); ++k)
      if (f.returns[k].space == ".reg") {
        auto [var, off] = layout.slot("__ori_ret", k);
        store(body, f.returns[k], var, name(f.returns[k].name, ret->loc), ret, ret->loc, off);
      }
  }

  // `call (r...), f, (a...)` to a function of the module with .reg parameters.
  void call(std::vector<Statement> &body, const Instruction &in) {
    const RegSignature &sig = *callee(in);
    // call [(results),] f [, (arguments)] [, prototype]
    const bool hasResults = !in.operands.empty() && in.operands[0].kind == Operand::Kind::Call;
    const size_t target = hasResults ? 1 : 0;
    const Operand *results = hasResults ? &in.operands[0] : nullptr;
    const Operand *args =
        target + 1 < in.operands.size() && in.operands[target + 1].kind == Operand::Kind::Call
            ? &in.operands[target + 1]
            : nullptr;
    auto fail = [&](std::string msg) {
      throw DiagnosticError({m_.fileName, in.loc.line, in.loc.col, std::move(msg)});
    };
    const size_t nargs = args ? args->elems.size() : 0, nres = results ? results->elems.size() : 0;
    if (nargs != sig.params.size())
      fail(fmt::format("call passes {} arguments to '{}', which takes {}", nargs,
                       in.operands[target].name, sig.params.size()));
    if (results && nres != sig.returns.size())
      fail(fmt::format("call takes {} results from '{}', which returns {}", nres,
                       in.operands[target].name, sig.returns.size()));
    const SrcLoc loc = in.loc;
    Statement &open = body.emplace_back();
    open.kind = Statement::Kind::Scope;
    open.scope = {true, loc};
    Instruction c = in;
    std::vector<std::string> argVars, resVars;
    for (size_t k = 0; k < nargs; ++k) {
      const Variable &p = sig.params[k];
      if (p.space != ".reg") { // a .param parameter: the caller passes a .param variable already
        argVars.push_back(args->elems[k].name);
        continue;
      }
      argVars.push_back(fmt::format("__ori_carg{}", k));
      body.push_back(decl(argVars.back(), paramType(p), loc, ".param"));
      store(body, p, argVars.back(), args->elems[k], &in, loc);
    }
    const ReturnLayout layout(sig.returns);
    if (layout.packed && nres) { // one byte array receives every value
      Statement &d = body.emplace_back();
      d.kind = Statement::Kind::Var;
      d.var = layout.packedVariable("__ori_cret", loc);
    }
    for (size_t k = 0; k < nres; ++k) {
      const Variable &r = sig.returns[k];
      if (layout.packed) {
        resVars.push_back("__ori_cret");
        continue;
      }
      if (r.space != ".reg" || results->elems[k].kind == Operand::Kind::Sink) {
        resVars.push_back(r.space != ".reg" ? results->elems[k].name : "");
        continue;
      }
      resVars.push_back(fmt::format("__ori_cret{}", k));
      body.push_back(decl(resVars.back(), paramType(r), loc, ".param"));
    }
    // The call itself, on the .param variables.
    std::string text = "call" + [&] {
      std::string m;
      for (const std::string &s : in.mods)
        m += s;
      return m;
    }() + " ";
    for (Operand &o : c.operands) {
      if (&o == &c.operands[0] && hasResults) {
        if (layout.packed) {
          o.elems.assign(1, name("__ori_cret", loc));
          continue;
        }
        for (size_t k = 0; k < o.elems.size(); ++k)
          if (!resVars[k].empty())
            o.elems[k] = name(resVars[k], loc);
      } else if (o.kind == Operand::Kind::Call) {
        for (size_t k = 0; k < o.elems.size(); ++k)
          o.elems[k] = name(argVars[k], loc);
      }
    }
    for (size_t k = 0; k < c.operands.size(); ++k) {
      const Operand &o = c.operands[k];
      text += k ? ", " : "";
      if (o.kind == Operand::Kind::Call) {
        text += "(";
        for (size_t e = 0; e < o.elems.size(); ++e)
          text += (e ? ", " : "") + describe(o.elems[e]);
        text += ")";
      } else {
        text += describe(o);
      }
    }
    c.text = std::move(text);
    Statement &cs = body.emplace_back();
    cs.kind = Statement::Kind::Instr;
    cs.instr = std::move(c);
    for (size_t k = 0; k < nres; ++k)
      if (sig.returns[k].space == ".reg" && !resVars[k].empty() &&
          results->elems[k].kind != Operand::Kind::Sink)
        load(body, sig.returns[k], resVars[k], &in, loc, &results->elems[k],
             layout.slot("", k).second);
    Statement &close = body.emplace_back();
    close.kind = Statement::Kind::Scope;
    close.scope = {false, loc};
  }

  static std::string describe(const Operand &o) {
    switch (o.kind) {
    case Operand::Kind::Int:
      return fmt::format("{}", o.ival);
    case Operand::Kind::Float:
      return o.floatIsF32 ? fmt::format("0f{:08X}", uint32_t(o.ival))
                          : fmt::format("0d{:016X}", uint64_t(o.ival));
    case Operand::Kind::Sink:
      return "_";
    default:
      return (o.negated ? "!" : "") + o.name + (o.ival ? fmt::format("{:+}", o.ival) : "");
    }
  }

  std::string temp() { return fmt::format("__ori_pv{}", temps_++); }

  const Module &m_;
  std::map<std::string, RegSignature> sigs_;
  uint32_t temps_ = 0;
};

} // namespace

std::optional<Module> withRegisterParams(const Module &m) {
  std::map<std::string, RegSignature> sigs;
  for (const TopLevel &item : m.items)
    if (item.kind == TopLevel::Kind::Function && item.function.hasBody && !item.function.isEntry &&
        hasRegisters(item.function))
      sigs[item.function.name] = {item.function.params, item.function.returns};
  if (sigs.empty())
    return std::nullopt;
  return Rewriter(m, std::move(sigs)).run();
}

} // namespace ori::ptx
