// PTX -> Ori: the forms of operands, before and after an instruction's lowering
// (docs/ptx.md, "Reading"). Nothing the reader does not understand is dropped:
//  - a form no PTX instruction has is an error at the operand (checkOperandForms);
//  - `v`, a vector register, is the vector operand {v.x, v.y, ...} (expandVectorRegisters);
//  - an offset (`%r1+4`, `sym+8`) or a negation (`!%p`) that the instruction's lowering did
//    not apply keeps the instruction OPAQUE (allHonored), with its text as written;
//  - an OPAQUE instruction gets a warning (OpaqueWarnings), at most ten per mnemonic.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "ptx/lower_impl.h"

namespace ori::ptx {
namespace {

// PTX instructions whose first operand is not a destination.
bool hasNoDestination(std::string_view opcode, const std::vector<std::string> &mods) {
  if ((opcode == "bar" || opcode == "barrier") &&
      std::find(mods.begin(), mods.end(), ".red") != mods.end())
    return false; // bar.red.popc.u32 d, ...
  static constexpr std::string_view kNoDest[] = {
      "st",         "red",      "bar",      "barrier",       "prefetch", "prefetchu",
      "membar",     "fence",    "trap",     "brkpt",         "pmevent",  "nanosleep",
      "sust",       "sured",    "cp",       "applypriority", "discard",  "griddepcontrol",
      "setmaxnreg", "stmatrix", "multimem", "exit",          "ret",      "bra",
      "brx",        "call",     "elect",    "wgmma",         "tcgen05",  "cp.async",
  };
  for (std::string_view o : kNoDest)
    if (opcode == o)
      return true;
  return false;
}

// Instructions whose first operand is surely no destination (kNoDest above also lists some
// whose first operand may be one, such as `elect.sync _|p`): a sink there is an error.
bool firstIsSource(std::string_view opcode) {
  static constexpr std::string_view k[] = {"st",        "red",     "prefetch", "prefetchu",
                                           "sust",      "sured",   "bra",      "brx",
                                           "nanosleep", "pmevent", "membar",   "fence"};
  return std::find(std::begin(k), std::end(k), opcode) != std::end(k);
}

bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}
bool isIdentChar(char c) { return isIdentStart(c) || std::isdigit(static_cast<unsigned char>(c)); }

// A register type that is a floating-point one: an offset added to it has no integer meaning
// (ptxas 13.0 crashes on `add.f32 %f1, %f2+1, %f3;` and on `mov.b32 %r1, %f2+1;`).
bool isFloatRegType(const std::string &t) {
  return !t.empty() && (t[0] == 'f' || t.starts_with("bf"));
}

} // namespace

std::string mnemonic(const Instruction &pi) {
  std::string m = pi.opcode;
  for (const std::string &s : pi.mods)
    m += s;
  return m;
}

void OpaqueWarnings::add(const Instruction &pi) {
  std::string m = mnemonic(pi);
  Count &c = counts_[m];
  if (++c.n <= kPerMnemonic) {
    list_.push_back(
        {{file_, pi.loc.line, pi.loc.col,
          fmt::format("'{}' is kept as an opaque instruction (not run, not proved, not optimized)",
                      m)},
         false});
    return;
  }
  if (c.n == kPerMnemonic + 1) {
    c.firstLeftOut = pi.loc;
    order_.push_back(m);
  }
}

void OpaqueWarnings::add(SrcLoc loc, std::string message) {
  list_.push_back({{file_, loc.line, loc.col, std::move(message)}, false});
}

std::vector<ori::Warning> OpaqueWarnings::finish() {
  std::vector<ori::Warning> out = std::move(list_);
  for (const std::string &m : order_) {
    const Count &c = counts_.at(m);
    out.push_back(
        {{file_, c.firstLeftOut.line, c.firstLeftOut.col,
          fmt::format(
              "'{}' is kept as an opaque instruction {} more time{} in this file (warnings after "
              "the first {} of a mnemonic are left out)",
              m, c.n - kPerMnemonic, c.n - kPerMnemonic == 1 ? "" : "s", kPerMnemonic)},
         true});
  }
  return out;
}

const FunctionLowerer::VectorReg *FunctionLowerer::vectorRegister(const std::string &name) const {
  for (size_t i = scopes_.size(); i-- > 0;) {
    const Scope &s = scopes_[i];
    if (s.regs.count(name) || s.regTypes.count(name) || s.vars.count(name))
      return nullptr; // shadowed
    if (auto it = s.vectors.find(name); it != s.vectors.end())
      return &it->second;
  }
  return nullptr;
}

namespace {
// The operand shapes of the instruction families whose forms the lowering reads (PTX ISA 9.0,
// chapter 9.7): each operand is a register or number (scalar) unless the table says more. An
// operand of another kind is an error at it, before any lowering is tried.
enum Allow : uint8_t { kScalar = 1, kPair = 2, kVector = 4, kAddress = 8 };
struct Shape {
  uint8_t first;  // the first operand
  uint8_t second; // the second
  uint8_t rest;   // every later one
};
std::optional<Shape> shapeOf(std::string_view op) {
  static constexpr std::string_view kScalarOps[] = {
      "add",  "sub",  "mul",  "mad",   "mul24",    "mad24",     "sad",   "div",  "rem",
      "abs",  "neg",  "min",  "max",   "popc",     "clz",       "bfind", "brev", "bfe",
      "bfi",  "fns",  "and",  "or",    "xor",      "not",       "cnot",  "shl",  "shr",
      "shf",  "prmt", "selp", "slct",  "copysign", "fma",       "rcp",   "sqrt", "rsqrt",
      "sin",  "cos",  "lg2",  "ex2",   "tanh",     "testp",     "dp2a",  "dp4a", "addc",
      "subc", "madc", "bmsk", "szext", "cvta",     "activemask"};
  if (std::find(std::begin(kScalarOps), std::end(kScalarOps), op) != std::end(kScalarOps))
    return Shape{kScalar, kScalar, kScalar};
  // lop3.BoolOp.b32 d|p, a, b, c, immLut, q (PTX ISA 8.2) writes a pair too
  if (op == "setp" || op == "set" || op == "lop3")
    return Shape{uint8_t(kScalar | kPair), kScalar, kScalar};
  // cvt.rs{.relu}.satfinite.{e4m3x4,e5m2x4,...}.f32 d, {a, b, e, f}, rbits (PTX ISA 9.0,
  // 9.7.9.21) takes a vector source
  if (op == "cvt")
    return Shape{kScalar, uint8_t(kScalar | kVector), kScalar};
  if (op == "mov")
    return Shape{uint8_t(kScalar | kVector), uint8_t(kScalar | kVector), 0};
  if (op == "ld" || op == "ldu")
    return Shape{uint8_t(kScalar | kVector), kAddress, kScalar};
  // st.async [a], b, [mbar]: a later address
  if (op == "st")
    return Shape{kAddress, uint8_t(kScalar | kVector), uint8_t(kScalar | kAddress)};
  if (op == "bra")
    return Shape{kScalar, 0, 0};
  return std::nullopt;
}
} // namespace

bool isShapedFamily(std::string_view opcode) { return shapeOf(opcode).has_value(); }

void FunctionLowerer::checkOperandForms(const Instruction &pi) {
  if (std::optional<Shape> shape = shapeOf(pi.opcode)) {
    for (size_t k = 0; k < pi.operands.size(); ++k) {
      const Operand &o = pi.operands[k];
      const uint8_t allow = k == 0 ? shape->first : k == 1 ? shape->second : shape->rest;
      if (allow == 0)
        fail(o.loc, fmt::format("'{}' takes {} operand{}", pi.opcode, k, k == 1 ? "" : "s"));
      bool ok = false;
      switch (o.kind) {
      case Operand::Kind::Name:
      case Operand::Kind::Int:
      case Operand::Kind::Float:
      case Operand::Kind::Sink:
        ok = allow & kScalar;
        break;
      case Operand::Kind::Pair:
        ok = allow & kPair;
        break;
      case Operand::Kind::Vector:
        ok = allow & kVector;
        break;
      case Operand::Kind::Address:
        ok = allow & kAddress;
        break;
      case Operand::Kind::Call:
        ok = false;
        break;
      }
      if (!ok) {
        std::vector<std::string> kinds;
        if (allow & kScalar)
          kinds.push_back("a register or a number");
        if (allow & kPair)
          kinds.push_back("a pair p|q");
        if (allow & kVector)
          kinds.push_back("a vector {a, b}");
        if (allow & kAddress)
          kinds.push_back("an address [a]");
        fail(o.loc, fmt::format("operand {} of '{}' must be {}", k + 1, pi.opcode,
                                fmt::join(kinds, " or ")));
      }
    }
    // The first operand of these is a destination but for st and bra: a register (ptxas 13.0:
    // "Result discard mode is not allowed", "must be register", "Read-only special register").
    const Operand *d =
        pi.operands.empty() || pi.opcode == "st" || pi.opcode == "bra" ? nullptr : &pi.operands[0];
    if (d && d->kind == Operand::Kind::Sink)
      fail(d->loc,
           fmt::format("'{}' cannot discard its result: '_' stands in a pair or vector only",
                       pi.opcode));
    // Each register the first operand names must be of the class the instruction writes: a
    // predicate for setp (both of its pair) and testp, for the second of lop3's pair and for an
    // instruction of type .pred; else not one (ptxas: "Arguments mismatch"; the lowering would
    // write a predicate with an integer instruction).
    const bool predType = std::any_of(pi.mods.begin(), pi.mods.end(),
                                      [](const std::string &m) { return m == ".pred"; });
    auto destination = [&](const Operand &o, bool pred) {
      if (o.kind != Operand::Kind::Name || o.negated || o.ival != 0)
        return; // checkForm's errors
      const NameRef r = resolve(o.name);
      if (r.kind == NameRef::Variable || r.kind == NameRef::Function ||
          r.kind == NameRef::EntryParam || r.kind == NameRef::Special)
        fail(o.loc, fmt::format("'{}' is not a register: the destination of '{}' must be one",
                                o.name, pi.opcode));
      if (r.kind == NameRef::Register && r.reg.isPredicate() != pred)
        fail(o.loc, fmt::format("'{}' is {} register; '{}' writes {} here", o.name,
                                r.reg.isPredicate() ? "a predicate" : "not a predicate", pi.opcode,
                                pred ? "a predicate" : "a value"));
    };
    if (d) {
      const bool pred =
          pi.opcode == "setp" || pi.opcode == "testp" || predType; // testp writes a predicate
      if (d->kind == Operand::Kind::Pair) {
        destination(d->elems[0], pred);
        destination(d->elems[1], true);
      } else if (d->kind == Operand::Kind::Vector) {
        for (const Operand &e : d->elems)
          destination(e, false);
      } else {
        destination(*d, pred);
      }
    }
    // ld/st .v2/.v4/.v8: the data is a vector of that many elements; without: one value
    // (ptxas: "Result vector expected", "Argument vector size mismatch").
    if (pi.opcode == "ld" || pi.opcode == "ldu" || pi.opcode == "st") {
      size_t want = 0;
      for (const std::string &m : pi.mods)
        want = m == ".v2" ? 2 : m == ".v4" ? 4 : m == ".v8" ? 8 : want;
      const size_t k = pi.opcode == "st" ? 1 : 0;
      if (k < pi.operands.size()) {
        const Operand &data = pi.operands[k];
        const bool vector = data.kind == Operand::Kind::Vector;
        if (want && (!vector || data.elems.size() != want))
          fail(data.loc, fmt::format("'{}' with .v{} takes a vector of {} elements here", pi.opcode,
                                     want, want));
        if (!want && vector && data.elems.size() != 1)
          fail(data.loc,
               fmt::format("a vector operand of '{}' needs .v{}", pi.opcode, data.elems.size()));
      }
    }
  }
  const bool firstIsDef = !hasNoDestination(pi.opcode, pi.mods);
  for (size_t k = 0; k < pi.operands.size(); ++k)
    checkForm(pi.operands[k], k, firstIsDef, Operand::Kind::Name, pi);
}

// `container` is the kind of operand o stands in (Name: o is an operand of its own).
void FunctionLowerer::checkForm(const Operand &o, size_t k, bool firstIsDef,
                                Operand::Kind container, const Instruction &pi) {
  const bool call = pi.opcode == "call";
  const bool def = k == 0 && firstIsDef;
  const bool top = container == Operand::Kind::Name;
  switch (o.kind) {
  case Operand::Kind::Name: {
    const NameRef r = resolve(o.name);
    if (o.negated) {
      if (def)
        fail(o.loc, fmt::format("a destination cannot be negated ('!{}')", o.name));
      if (!top)
        fail(o.loc, fmt::format(
                        "'!{}': a negated predicate cannot be an element of a vector, pair or list",
                        o.name));
      if (r.kind != NameRef::Register || !r.reg.isPredicate())
        fail(o.loc,
             fmt::format("'!' negates a predicate; '{}' is not a predicate register", o.name));
    }
    if (o.ival == 0)
      return;
    const std::string written = fmt::format("'{}{:+}'", o.name, o.ival);
    if (def)
      fail(o.loc, fmt::format("a destination cannot have an offset ({})", written));
    if (!top)
      fail(o.loc,
           fmt::format("{}: an element of a vector, pair or list cannot have an offset", written));
    if (labelsSeen_.count(o.name))
      fail(o.loc, fmt::format("{}: a label plus an offset is no branch target", written));
    switch (r.kind) {
    case NameRef::Register:
      if (r.reg.isPredicate())
        fail(o.loc, fmt::format("{}: a predicate plus an offset has no meaning", written));
      if (auto t = f_.regTypes.find(r.reg); t != f_.regTypes.end() && isFloatRegType(t->second))
        fail(o.loc, fmt::format("{}: an offset is added to integers; '{}' is a .{} register",
                                written, o.name, t->second));
      return;
    case NameRef::Special:
      fail(o.loc, fmt::format("{}: a special register cannot have an offset", written));
    case NameRef::Function:
      fail(o.loc, fmt::format("{}: a function's address cannot have an offset", written));
    default:
      return; // a variable's or parameter's address plus the offset (or OPAQUE)
    }
  }
  case Operand::Kind::Sink:
    // ptxas 13.0: "Sink '_' not allowed as a source operand".
    if (call)
      return; // `call (_), f, ...`: the lowering of call decides
    if (k > 0 || (firstIsSource(pi.opcode) && container != Operand::Kind::Pair))
      fail(o.loc, "the sink '_' stands for a destination only");
    return;
  case Operand::Kind::Pair:
    if (k > 0 || !top)
      fail(o.loc, "a pair 'p|q' is a destination, the first operand");
    for (const Operand &e : o.elems)
      checkForm(e, k, firstIsDef, Operand::Kind::Pair, pi);
    return;
  case Operand::Kind::Vector:
    if (!top)
      fail(o.loc, "a vector operand cannot stand inside another operand here");
    for (const Operand &e : o.elems) {
      if (e.kind == Operand::Kind::Pair)
        fail(e.loc, "a pair 'p|q' cannot be an element of a vector");
      checkForm(e, k, firstIsDef, Operand::Kind::Vector, pi);
    }
    return;
  case Operand::Kind::Call:
    for (const Operand &e : o.elems)
      checkForm(e, k, firstIsDef, Operand::Kind::Call, pi);
    return;
  case Operand::Kind::Address:
    if (!top)
      return;
    if (!o.name.empty()) {
      const NameRef r = resolve(o.name);
      if (r.kind == NameRef::Register && r.reg.isPredicate())
        fail(o.loc, fmt::format("'[{}]': a predicate cannot be an address", o.name));
      if (r.kind == NameRef::Special)
        fail(o.loc, fmt::format("'[{}]': a special register cannot be an address", o.name));
    }
    return;
  case Operand::Kind::Int:
  case Operand::Kind::Float:
    if (def)
      fail(o.loc, "a destination must be a register, not a number");
    return;
  }
}

// The name that starts at t[i] (an identifier's first character) as the scanners of PTX text
// read it (here and ptx/lower_origin.cpp): a special register or a vector register's element
// with its dot (`%tid.x`, `v.x`), else the identifier alone. Returns the index after it.
size_t FunctionLowerer::nameAt(const std::string &t, size_t i, std::string &name) {
  size_t j = i;
  while (j < t.size() && isIdentChar(t[j]))
    ++j;
  name = t.substr(i, j - i);
  if (j + 1 < t.size() && t[j] == '.' && isIdentStart(t[j + 1])) { // %tid.x, v.x
    size_t k = j + 1;
    while (k < t.size() && isIdentChar(t[k]))
      ++k;
    std::string dotted = t.substr(i, k - i);
    NameRef d = resolve(dotted);
    if (d.kind == NameRef::Special || (d.kind == NameRef::Register && vectorRegister(name))) {
      name = std::move(dotted);
      j = k;
    }
  }
  return j;
}

std::optional<Instruction> FunctionLowerer::expandVectorRegisters(const Instruction &pi) {
  auto names = [&](const Operand &o) {
    return o.kind == Operand::Kind::Name && !o.negated && o.ival == 0 && vectorRegister(o.name);
  };
  if (std::none_of(pi.operands.begin(), pi.operands.end(), names))
    return std::nullopt;
  Instruction out = pi;
  for (Operand &o : out.operands) {
    if (!names(o))
      continue;
    const VectorReg &v = *vectorRegister(o.name);
    Operand vec;
    vec.kind = Operand::Kind::Vector;
    vec.loc = o.loc;
    for (uint32_t e = 0; e < v.count; ++e) {
      Operand &x = vec.elems.emplace_back();
      x.kind = Operand::Kind::Name;
      x.name = o.name + "." + "xyzw"[e];
      x.loc = o.loc;
    }
    o = std::move(vec);
  }
  return out;
}

// `sym[K]` (Operand::indexed): sym + K * its element size, an address operand in every
// instruction but `mov` and `cvta` (PTX ISA 9.0, 6.4.3: `ld.global.u32 s, a[0]`; `mov.u32 s,
// a[1]` moves the address of a[1]; ptxas 13.0 takes `cvta.global.u64 d, a[1]` too).
std::optional<Instruction> FunctionLowerer::expandArrayIndices(const Instruction &pi) {
  auto indexed = [](const Operand &o) { return o.indexed; };
  if (std::none_of(pi.operands.begin(), pi.operands.end(), indexed))
    return std::nullopt;
  Instruction out = pi;
  for (Operand &o : out.operands) {
    if (!o.indexed)
      continue;
    const NameRef ref = resolve(o.name);
    const ori::Variable *var = nullptr;
    if (ref.kind == NameRef::Variable) {
      for (const ori::Variable &v : f_.variables)
        if (v.name == ref.symbol)
          var = &v;
      for (const ori::Variable &v : om_.variables)
        if (!var && v.name == ref.symbol)
          var = &v;
    }
    if (!var)
      fail(o.loc, fmt::format("'{}[{}]': '{}' is not an array variable of a state space", o.name,
                              o.index, o.name));
    o.ival = static_cast<int64_t>(static_cast<uint64_t>(o.ival) +
                                  static_cast<uint64_t>(o.index) * var->elemSize);
    o.indexed = false;
    if (pi.opcode != "mov" && pi.opcode != "cvta")
      o.kind = Operand::Kind::Address;
  }
  return out;
}

bool FunctionLowerer::allHonored(const Instruction &pi) const {
  for (const Operand &o : pi.operands)
    if (o.kind == Operand::Kind::Name && (o.ival != 0 || o.negated) &&
        !honored_.count({o.loc.line, o.loc.col}))
      return false;
  return true;
}

// The instruction's own text with every register replaced by a placeholder:
// @dN for the Nth def, @uN for the Nth use (ptx/ptx.h). A vector register's element (`v.x`)
// is that register; a whole vector register is `{@u0, @u1}`, a vector of its elements.
void FunctionLowerer::opaque(const Instruction &pi) {
  ori::Instr in;
  in.op = ori::Opcode::OPAQUE;
  const std::string &t = pi.text;
  size_t mnemonicEnd = 0;
  while (mnemonicEnd < t.size() && !std::isspace(static_cast<unsigned char>(t[mnemonicEnd])))
    ++mnemonicEnd;
  bool firstIsDef = !hasNoDestination(pi.opcode, pi.mods);
  bool rmw = pi.opcode == "wgmma"; // reads its accumulator destination too
  std::string out = t.substr(0, mnemonicEnd);
  int depth = 0;
  bool inFirst = true;
  auto placeholder = [&](auto &list, char tag, ori::Reg r) {
    for (size_t k = 0; k < list.size(); ++k)
      if (list[k].reg == r)
        return fmt::format("@{}{}", tag, k);
    list.push_back(ori::Operand::reg_(r));
    return fmt::format("@{}{}", tag, list.size() - 1);
  };
  auto registerText = [&](ori::Reg r) {
    bool def = inFirst && firstIsDef;
    if (def && rmw)
      placeholder(in.srcs, 'u', r);
    return def ? placeholder(in.dsts, 'd', r) : placeholder(in.srcs, 'u', r);
  };
  for (size_t i = mnemonicEnd; i < t.size();) {
    char c = t[i];
    if (c == '[' || c == '{' || c == '(')
      ++depth;
    if (c == ']' || c == '}' || c == ')')
      --depth;
    if (c == ',' && depth == 0)
      inFirst = false;
    if (std::isdigit(static_cast<unsigned char>(c))) { // a number, with any letters (0f3F80...)
      size_t j = i;
      while (j < t.size() && (isIdentChar(t[j]) || t[j] == '.'))
        ++j;
      out.append(t, i, j - i);
      i = j;
      continue;
    }
    if (!isIdentStart(c)) {
      out += c;
      ++i;
      continue;
    }
    std::string name;
    i = nameAt(t, i, name);
    if (const VectorReg *v = vectorRegister(name)) {
      out += "{";
      for (uint32_t e = 0; e < v->count; ++e)
        out += (e ? ", " : "") + registerText(resolve(name + "." + "xyzw"[e]).reg);
      out += "}";
      continue;
    }
    NameRef ref = resolve(name);
    if (ref.kind == NameRef::Register) {
      out += registerText(ref.reg);
      continue;
    }
    if (name[0] == '%' && ref.kind == NameRef::None && !isUnmodelledSpecialRegister(name))
      fail(pi.loc, fmt::format("undeclared register '{}'", name));
    out += name;
  }
  in.opaqueText = std::move(out);
  emit(std::move(in));
}

} // namespace ori::ptx
