// PTX -> Ori, one instruction: warp shuffles, matches and reductions, and CTA barriers
// (see lowering.h; vote and activemask are in lower_mem.cpp).
//   shfl{.sync}.{idx,up,down,bfly}.b32 d[|p], a, b, c{, membermask}
//       -> [WARPSYNC membermask] SHFL.{IDX,UP,DOWN,BFLY} p (PT without |p), d, a, b, c
//   match.{any,all}.sync.{b32,b64} d[|p], a, membermask
//       -> WARPSYNC membermask; MATCH.{ANY,ALL}[.U64] d, p (PT without |p), a
//   redux.sync.{add,min,max}.{u32,s32} / .{and,or,xor}.b32 d, a, membermask
//       -> WARPSYNC membermask; REDUX.{SUM,MIN,MAX,AND,OR,XOR}[.S32] d, a
//   bar/barrier{.cta}.sync{.aligned} a{, b}      -> BAR.SYNC a[, b]
//   bar/barrier{.cta}.arrive{.aligned} a, b      -> BAR.ARV a, b
//   bar/barrier{.cta}.red.popc{.aligned}.u32 d, a{, b}, {!}c -> BAR.RED.POPC d, a[, b], c
//   bar/barrier{.cta}.red.{and,or}{.aligned}.pred p, a{, b}, {!}c -> BAR.RED.AND/.OR p, ...
//   bar.warp.sync membermask                      -> WARPSYNC membermask
//   elect.sync d|p, membermask                    -> WARPSYNC membermask; ELECT d (RZ for _), p,
//   membermask griddepcontrol.wait / .launch_dependents      -> ACQBULK / PREEXIT
//   setmaxnreg.{inc,dec}.sync.aligned.u32 n       -> SETMAXREG.INC/.DEC n
// A modifier or type these forms do not have (a newer PTX form, say) leaves the
// instruction OPAQUE, as everywhere in the lowering; a form that is wrong for every PTX
// version (a missing member mask, two modes, an operand too many) is an error at the
// instruction. The .aligned and .cta qualifiers change nothing Ori records.
#include <fmt/format.h>

#include "ptx/lowering.h"

namespace ori::ptx::lowering {

namespace {

const PtxType kU32{PtxType::Unsigned, 32};
const PtxType kB32{PtxType::Bits, 32};
const PtxType kPred{PtxType::Pred, 1};

// The one modifier of `pi` among `choices` (text, value); an error when there are several
// and, if `required`, when there is none.
std::optional<Mod> oneOf(const Lowering &lw,
                         std::initializer_list<std::pair<std::string_view, Mod>> choices,
                         std::string_view what, bool required) {
  std::optional<Mod> found;
  std::string_view foundText;
  for (auto [text, mod] : choices) {
    if (!hasMod(lw.pi, text))
      continue;
    if (found)
      lw.L.fail(lw.pi.loc, fmt::format("{} takes one {}, not both {} and {}", lw.pi.opcode, what,
                                       foundText, text));
    found = mod;
    foundText = text;
  }
  if (!found && required) {
    std::string list;
    for (auto [text, mod] : choices)
      list += fmt::format("{}{}", list.empty() ? "" : " ", text);
    const char *article =
        std::string_view("aeiou").find(what[0]) == std::string_view::npos ? "a" : "an";
    lw.L.fail(lw.pi.loc, fmt::format("{} needs {} {} ({})", lw.pi.opcode, article, what, list));
  }
  return found;
}

// The type modifiers of `pi`, which must be exactly one of `allowed` (an error otherwise).
PtxType onlyType(const Lowering &lw, std::initializer_list<std::string_view> allowed) {
  std::vector<std::string> found;
  for (const std::string &m : lw.pi.mods)
    if (parseType(m).kind != PtxType::None)
      found.push_back(m);
  std::string list;
  for (std::string_view a : allowed)
    list += fmt::format("{}{}", list.empty() ? "" : " or ", a);
  if (found.size() != 1)
    lw.L.fail(lw.pi.loc, fmt::format("{} takes one type, {}", lw.pi.opcode, list));
  for (std::string_view a : allowed)
    if (found[0] == a)
      return parseType(a);
  lw.L.fail(lw.pi.loc, fmt::format("{} takes type {}, not {}", lw.pi.opcode, list, found[0]));
}

void operandCount(const Lowering &lw, size_t lo, size_t hi, std::string_view form) {
  size_t n = lw.ops.size();
  if (n >= lo && n <= hi)
    return;
  std::string count = lo == hi ? std::to_string(lo) : fmt::format("{} or {}", lo, hi);
  lw.L.fail(lw.pi.loc,
            fmt::format("{} takes {} operands ({}), got {}", lw.pi.opcode, count, form, n));
}

// A general register destination (a predicate register there: not native).
OOp generalDst(const Lowering &lw, const Operand &o) {
  ori::Reg r = lw.L.destination(o);
  if (r.isPredicate())
    throw NotNative{};
  return reg(r);
}

// A predicate destination; `_` gives PT.
OOp predicateDst(const Lowering &lw, const Operand &o) {
  if (o.kind == Operand::Kind::Sink)
    return kPT;
  ori::Reg r = lw.L.destination(o);
  if (!r.isPredicate())
    throw NotNative{};
  return reg(r);
}

// d or d|p: the general register and the predicate (PT without |p). `pairOk`: whether the
// instruction has the |p form.
std::pair<OOp, OOp> dstAndPredicate(const Lowering &lw, bool pairOk) {
  const Operand &o = lw.ops[0];
  if (o.kind != Operand::Kind::Pair)
    return {generalDst(lw, o), kPT};
  if (!pairOk)
    lw.L.fail(o.loc, fmt::format("{} has no predicate destination (d|p)", lw.pi.opcode));
  return {generalDst(lw, o.elems[0]), predicateDst(lw, o.elems[1])};
}

} // namespace

bool Lowering::shfl() {
  onlyMods(pi, {".sync", ".idx", ".up", ".down", ".bfly"});
  Mod mode = *oneOf(
      *this, {{".idx", Mod::IDX}, {".up", Mod::UP}, {".down", Mod::DOWN}, {".bfly", Mod::BFLY}},
      "mode", true);
  onlyType(*this, {".b32"});
  bool sync = hasMod(pi, ".sync");
  if (sync)
    operandCount(*this, 5, 5, "d[|p], a, b, c, membermask");
  else
    operandCount(*this, 4, 4, "d[|p], a, b, c; shfl.sync also takes a membermask");
  auto [d, p] = dstAndPredicate(*this, true);
  OOp a = srcReg(1, kB32), b = src(2, kB32), c = src(3, kB32);
  if (sync)
    emit(make(Opcode::WARPSYNC, {}, {}, {src(4, kU32)}));
  emit(make(Opcode::SHFL, {mode}, {p, d}, {a, b, c}));
  return true;
}

bool Lowering::match() {
  onlyMods(pi, {".sync", ".any", ".all"});
  Mod mode = *oneOf(*this, {{".any", Mod::ANY}, {".all", Mod::ALL}}, "mode", true);
  if (!hasMod(pi, ".sync"))
    L.fail(pi.loc, "match needs .sync (match.any.sync, match.all.sync)");
  PtxType t = onlyType(*this, {".b32", ".b64"});
  operandCount(*this, 3, 3, mode == Mod::ALL ? "d[|p], a, membermask" : "d, a, membermask");
  auto [d, p] = dstAndPredicate(*this, mode == Mod::ALL);
  OOp a = srcReg(1, t), mask = src(2, kU32);
  emit(make(Opcode::WARPSYNC, {}, {}, {mask}));
  ori::Instr in = make(Opcode::MATCH, {mode}, {d, p}, {a});
  if (t.bits == 64)
    in.mods.set(Mod::U64);
  emit(std::move(in));
  return true;
}

bool Lowering::redux() {
  onlyMods(pi, {".sync", ".add", ".min", ".max", ".and", ".or", ".xor"});
  for (const std::string &m : pi.mods) // .f32 (redux.sync.min/max.f32, sm_100a): not modelled
    if (PtxType t = parseType(m); t.kind == PtxType::Float)
      throw NotNative{};
  Mod op = *oneOf(*this,
                  {{".add", Mod::SUM},
                   {".min", Mod::MIN},
                   {".max", Mod::MAX},
                   {".and", Mod::ATOM_AND},
                   {".or", Mod::ATOM_OR},
                   {".xor", Mod::ATOM_XOR}},
                  "operation", true);
  if (!hasMod(pi, ".sync"))
    L.fail(pi.loc, "redux needs .sync (redux.sync)");
  bool arith = op == Mod::SUM || op == Mod::MIN || op == Mod::MAX;
  PtxType t = arith ? onlyType(*this, {".u32", ".s32"}) : onlyType(*this, {".b32"});
  operandCount(*this, 3, 3, "d, a, membermask");
  OOp d = dstAndPredicate(*this, false).first;
  OOp a = srcReg(1, t), mask = src(2, kU32);
  emit(make(Opcode::WARPSYNC, {}, {}, {mask}));
  ori::Instr in = make(Opcode::REDUX, {op}, {d}, {a});
  if (t.kind == PtxType::Signed && op != Mod::SUM)
    in.mods.set(Mod::S32);
  emit(std::move(in));
  return true;
}

bool Lowering::bar() {
  if (pi.opcode == "bar" && hasMod(pi, ".warp")) { // bar.warp.sync membermask
    onlyMods(pi, {".warp", ".sync"});
    if (!hasMod(pi, ".sync"))
      return false;
    operandCount(*this, 1, 1, "membermask");
    emit(make(Opcode::WARPSYNC, {}, {}, {src(0, kU32)}));
    return true;
  }
  if (pi.opcode == "barrier")
    onlyMods(pi, {".cta", ".sync", ".arrive", ".red", ".popc", ".and", ".or", ".aligned"});
  else
    onlyMods(pi, {".cta", ".sync", ".arrive", ".red", ".popc", ".and", ".or"});
  Mod kind = *oneOf(*this, {{".sync", Mod::SYNC}, {".arrive", Mod::ARV}, {".red", Mod::RED}},
                    "form", true);
  if (kind != Mod::RED) {
    for (std::string_view m : {".popc", ".and", ".or"})
      if (hasMod(pi, m))
        L.fail(pi.loc, fmt::format("{} is only for {}.red", m, pi.opcode));
    for (const std::string &m : pi.mods)
      if (parseType(m).kind != PtxType::None)
        L.fail(pi.loc, fmt::format("{}{} takes no type", pi.opcode,
                                   kind == Mod::SYNC ? ".sync" : ".arrive"));
    if (kind == Mod::SYNC)
      operandCount(*this, 1, 2, "a{, b}");
    else
      operandCount(*this, 2, 2, "a, b");
    std::vector<OOp> srcs;
    for (size_t i = 0; i < ops.size(); ++i)
      srcs.push_back(src(i, kU32));
    emit(make(Opcode::BAR, {kind}, {}, std::move(srcs)));
    return true;
  }
  Mod op = *oneOf(*this, {{".popc", Mod::POPC}, {".and", Mod::AND}, {".or", Mod::OR}}, "operation",
                  true);
  onlyType(*this, {op == Mod::POPC ? ".u32" : ".pred"});
  operandCount(*this, 3, 4, op == Mod::POPC ? "d, a{, b}, {!}c" : "p, a{, b}, {!}c");
  OOp d = op == Mod::POPC ? generalDst(*this, ops[0]) : predicateDst(*this, ops[0]);
  std::vector<OOp> srcs;
  for (size_t i = 1; i + 1 < ops.size(); ++i)
    srcs.push_back(src(i, kU32));
  const Operand &c = ops.back(); // ptxas also takes 0 and 1 for the predicate
  srcs.push_back(c.kind == Operand::Kind::Int
                     ? (c.ival ? kPT : kNotPT)
                     : src(ops.size() - 1, kPred, ori::K_PRED | ori::K_REG));
  emit(make(Opcode::BAR, {Mod::RED, op}, {d}, std::move(srcs)));
  return true;
}

bool Lowering::elect() {
  onlyMods(pi, {".sync"});
  if (!hasMod(pi, ".sync"))
    L.fail(pi.loc, "elect needs .sync (elect.sync)");
  if (!types(pi).empty())
    L.fail(pi.loc, "elect.sync takes no type");
  operandCount(*this, 2, 2, "d|p, membermask");
  const Operand &o = ops[0];
  if (o.kind != Operand::Kind::Pair)
    L.fail(o.loc, "elect.sync writes d|p (d may be _)");
  OOp d = o.elems[0].kind == Operand::Kind::Sink ? kRZ : generalDst(*this, o.elems[0]);
  if (o.elems[1].kind == Operand::Kind::Sink)
    L.fail(o.elems[1].loc, "elect.sync's predicate p cannot be _");
  OOp p = predicateDst(*this, o.elems[1]);
  OOp mask = src(1, kU32);
  emit(make(Opcode::WARPSYNC, {}, {}, {mask}));
  emit(make(Opcode::ELECT, {}, {d, p}, {mask}));
  return true;
}

bool Lowering::gridDepControl() {
  onlyMods(pi, {".wait", ".launch_dependents"});
  Mod action =
      *oneOf(*this, {{".wait", Mod::SYNC}, {".launch_dependents", Mod::ARV}}, "action", true);
  if (!types(pi).empty())
    L.fail(pi.loc, "griddepcontrol takes no type");
  operandCount(*this, 0, 0, "none");
  emit(make(action == Mod::SYNC ? Opcode::ACQBULK : Opcode::PREEXIT, {}, {}, {}));
  return true;
}

// setmaxnreg.{inc,dec}.sync.aligned.u32 n: n from 24 to 256, a multiple of 8 (PTX ISA 9.7.19.5).
bool Lowering::setMaxNReg() {
  onlyMods(pi, {".inc", ".dec", ".sync", ".aligned"});
  Mod action = *oneOf(*this, {{".inc", Mod::INC}, {".dec", Mod::DEC}}, "action", true);
  if (!hasSync())
    L.fail(pi.loc, "setmaxnreg needs .sync.aligned");
  onlyType(*this, {".u32"});
  operandCount(*this, 1, 1, "imm-reg-count");
  const Operand &n = ops[0];
  if (n.kind != Operand::Kind::Int || n.ival < 24 || n.ival > 256 || n.ival % 8 != 0)
    L.fail(n.loc, "setmaxnreg takes a register count from 24 to 256, a multiple of 8");
  emit(make(Opcode::SETMAXREG, {action}, {}, {imm(n.ival)}));
  return true;
}

} // namespace ori::ptx::lowering
