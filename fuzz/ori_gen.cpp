// RapidCheck generators of well-formed Ori functions (fuzz/ori_gen.h).
//
// Everything is drawn inside rc::gen::exec, so RapidCheck shrinks a failing
// function by shrinking the individual choices (fewer blocks, smaller
// numbers, earlier opcodes ...).
//
// Names come from disjoint families so that no two kinds of name collide and
// none looks like a register, a special register or a directive:
//   labels L<n>, $L__BB<n>, loop.<n>   tables T<n>, $jt<n>   registers %r<n>, v_<n>
//   functions fn<n>                     parameters p<n>        variables gv<n>, sv<n>
#include "fuzz/ori_gen.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>

#include "ir/mma.h"
#include "ir/ori.h"

namespace ori::gen {
namespace {

// ------------------------------------------------------------ small choices
// (only inside rc::gen::exec)

// rc::gen::inRange scales its range with the generation size; choices among
// alternatives must not (or late opcodes and modifiers would be rare at small
// sizes), counts should (small functions first, shrinking to fewer blocks).
template <typename T> T uniform(T lo, T hi) { // [lo, hi)
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<T>(lo, hi));
}
int below(int n) { return n <= 1 ? 0 : uniform(0, n); }              // a choice in [0, n)
int upTo(int n) { return n <= 0 ? 0 : *rc::gen::inRange(0, n + 1); } // a count in [0, n]
bool chance(int percent) { return below(100) < percent; }
template <typename T> const T &oneOf(const std::vector<T> &v) {
  return v[size_t(below(int(v.size())))];
}
template <typename T> T anyBits() {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::arbitrary<T>());
}

struct TypeInfo {
  const char *name;
  uint32_t size;
};
const std::vector<TypeInfo> kTypes = {
    {"u8", 1},  {"s8", 1},  {"b8", 1},  {"u16", 2}, {"s16", 2}, {"b16", 2}, {"f16", 2}, {"u32", 4},
    {"s32", 4}, {"b32", 4}, {"f32", 4}, {"u64", 8}, {"s64", 8}, {"b64", 8}, {"f64", 8},
};

uint32_t powerOfTwoUpTo4096() { return 1u << below(13); }

// ------------------------------------------------------------ registers

// Registers that appear in generated code: mostly small numbers so that
// named registers and reuse are common, sometimes large virtual ones.
uint32_t regNumber() {
  switch (below(10)) {
  case 0:
    return uint32_t(uniform<int64_t>(0, int64_t(Reg::kConst) - 1));
  case 1:
    return uint32_t(uniform(16, 100000));
  default:
    return uint32_t(below(16));
  }
}

Reg anyReg(RegFile file, bool allowConst) {
  if (allowConst && file != RegFile::B && chance(10))
    return Reg{file, Reg::kConst};
  return Reg{file, regNumber()};
}

// A register of a file the slot mask accepts.
Reg regFor(uint16_t kinds, bool allowConst) {
  std::vector<RegFile> files;
  if (kinds & K_REG)
    files.insert(files.end(), {RegFile::R, RegFile::R, RegFile::R, RegFile::UR});
  if (kinds & K_PRED)
    files.insert(files.end(), {RegFile::P, RegFile::P, RegFile::UP});
  if (kinds & K_BAR)
    files.push_back(RegFile::B);
  return anyReg(oneOf(files), allowConst);
}

// ------------------------------------------------------------ immediates

// The integer range an immediate source has (mirrors the parser's rule).
enum class Width { Lut, W32, W64 };

Width immWidth(const Instr &in, size_t srcIndex) {
  if ((in.op == Opcode::LOP3 && srcIndex == 3) || (in.op == Opcode::PLOP3 && srcIndex >= 3))
    return Width::Lut;
  if (in.has(Mod::W64) || in.has(Mod::U64) || in.has(Mod::S64) ||
      (in.op == Opcode::IMAD && in.has(Mod::WIDE) && srcIndex == 2) || in.op == Opcode::I2F)
    return Width::W64;
  return Width::W32;
}

int64_t immediate(Width w) {
  switch (w) {
  case Width::Lut:
    return below(256);
  case Width::W32:
    switch (below(4)) {
    case 0:
      return oneOf(std::vector<int64_t>{0, 1, -1, INT32_MIN, INT32_MAX, int64_t(UINT32_MAX)});
    case 1:
      return uniform<int64_t>(INT32_MIN, int64_t(UINT32_MAX) + 1);
    default:
      return *rc::gen::inRange<int64_t>(-64, 256);
    }
  case Width::W64:
    switch (below(3)) {
    case 0:
      return oneOf(std::vector<int64_t>{0, -1, INT64_MIN, INT64_MAX, int64_t(1) << 32});
    case 1:
      return anyBits<int64_t>();
    default:
      return *rc::gen::inRange<int64_t>(-64, 256);
    }
  }
  return 0;
}

double floatImmediate() {
  switch (below(5)) {
  case 0:
    return oneOf(std::vector<double>{
        0.0, -0.0, 1.0, -1.5, 0.1, 1e-7, std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
        -std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::denorm_min(),
        std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(),
        double(std::numeric_limits<float>::max()), 3.4028234663852886e+38, 16777217.0});
  case 1:
    return std::bit_cast<double>(anyBits<uint64_t>()); // any bits: NaN payloads too
  case 2:
    return double(std::bit_cast<float>(anyBits<uint32_t>()));
  case 3:
    return *rc::gen::arbitrary<double>();
  default:
    return double(uniform(-1000, 1000)) / 8.0;
  }
}

// ------------------------------------------------------------ operands

struct FnCtx {
  std::vector<uint32_t> labelled;     // bix of labelled blocks
  uint32_t tables = 0;                // number of jump tables
  std::vector<std::string> functions; // CALL targets
  std::vector<std::string> symbols;   // memory symbols: variables, .func parameters and returns
  std::vector<std::string>
      paramVars; // .param variables of the function: CALL arguments and results
};

Operand cbankOperand() {
  uint32_t bank = uint32_t(chance(70) ? 0 : below(18));
  if (chance(60))
    return Operand::cbank(bank, chance(50) ? 4 * below(0x4000) : below(0x10000));
  Operand o = Operand::cbank(bank, uniform<int64_t>(-0x8000, 0x10000));
  o.hasReg = true;
  o.reg = regFor(K_REG, true);
  return o;
}

Operand memOperand(const FnCtx &ctx) {
  std::optional<Reg> base;
  std::string sym;
  if (chance(75))
    base = regFor(K_REG, true);
  if (!ctx.symbols.empty() && chance(30))
    sym = oneOf(ctx.symbols);
  if (!base && sym.empty())
    return Operand::mem(std::nullopt, uniform<int64_t>(0, int64_t(UINT32_MAX) + 1));
  int64_t off = chance(30)   ? 0
                : chance(80) ? uniform<int64_t>(-256, 4096)
                             : uniform<int64_t>(INT32_MIN, int64_t(INT32_MAX) + 1);
  return Operand::mem(base, off, sym);
}

// Which kinds a slot can be given in this function (labels need labelled
// blocks, jump tables need tables, symbols need functions).
uint16_t usableKinds(uint16_t kinds, const FnCtx &ctx) {
  if (ctx.labelled.empty())
    kinds &= uint16_t(~K_LABEL);
  if (ctx.tables == 0)
    kinds &= uint16_t(~K_JTAB);
  if (ctx.functions.empty() && ctx.symbols.empty())
    kinds &= uint16_t(~K_SYM);
  return kinds;
}

Operand operand(const Instr &in, const OperandSlot &slot, bool isDst, size_t srcIndex,
                const FnCtx &ctx) {
  uint16_t kinds = usableKinds(slot.kinds, ctx);
  // TEX takes a symbol only when it names a .texref of the module (a .ptx directive this
  // generator does not write): a register handle.
  if (in.op == Opcode::TEX)
    kinds &= uint16_t(~K_SYM);
  std::vector<uint16_t> bits;
  for (uint16_t b = 1; b; b = uint16_t(b << 1))
    if (kinds & b)
      bits.push_back(b);
  uint16_t kind = oneOf(bits);
  const OpInfo &info = in.info();
  switch (kind) {
  case K_REG:
  case K_PRED:
  case K_BAR: {
    Operand o = Operand::reg_(regFor(kind, true));
    if (isDst)
      return o;
    if (o.reg.isPredicate())
      o.neg = chance(30);
    else if (o.reg.isGeneral()) {
      o.neg = info.is(INEG | FNEG) && chance(30);
      o.abs = info.is(FNEG) && chance(30);
    }
    return o;
  }
  case K_IMM:
    return Operand::immediate(immediate(immWidth(in, srcIndex)));
  case K_FIMM:
    return Operand::floatImm(floatImmediate());
  case K_CBANK: {
    Operand o = cbankOperand();
    o.neg = info.is(INEG | FNEG) && chance(20);
    o.abs = info.is(FNEG) && chance(20);
    return o;
  }
  case K_SREG:
    return Operand::special(SpecialReg(below(kNumSpecialRegs)));
  case K_MEM:
    return memOperand(ctx);
  case K_LABEL:
    return Operand::label(oneOf(ctx.labelled));
  case K_JTAB:
    return Operand::jumpTable(uint32_t(below(int(ctx.tables))));
  case K_SYM: { // MOV R1, sym: the address of a variable, parameter or function
    std::vector<std::string> names = ctx.symbols;
    names.insert(names.end(), ctx.functions.begin(), ctx.functions.end());
    return Operand::symbol(oneOf(names));
  }
  }
  return Operand::immediate(0);
}

// ------------------------------------------------------------ instructions

// CALL [(results),] target [, (arguments)]: results and arguments are .param
// variables of the caller; the target a function or an R/UR register.
void callOperands(Instr &in, const FnCtx &ctx) {
  if (!ctx.functions.empty() && chance(80))
    in.srcs.push_back(Operand::symbol(oneOf(ctx.functions)));
  else
    in.srcs.push_back(Operand::reg_(regFor(K_REG, true)));
  if (ctx.paramVars.empty())
    return;
  int rets = upTo(2), args = upTo(3);
  for (int i = 0; i < rets; ++i)
    in.dsts.push_back(Operand::symbol(oneOf(ctx.paramVars)));
  for (int i = 0; i < args; ++i)
    in.srcs.push_back(Operand::symbol(oneOf(ctx.paramVars)));
}

std::string opaqueText() {
  static const std::vector<std::string> pieces = {
      "BMOV.32", " ",  "B6", ",", "\"", "\\", "\n", "\t",  "\r",  "{", "}", "//", "é", "→",
      "@P0",     "R1", "0x", "[", "]",  "'",  ";",  "%r1", "\\n", "a", "Z", "~",  "€", "𝔸",
  };
  std::string s;
  int n = upTo(8);
  for (int i = 0; i < n; ++i)
    s += oneOf(pieces);
  return s;
}

void modifiers(Instr &in) {
  const OpInfo &info = in.info();
  std::vector<Mod> allowed = info.allowedMods.list();
  std::set<ModGroup> groups;
  for (Mod m : allowed)
    groups.insert(modGroup(m));
  for (ModGroup g : groups) {
    if (!chance(40))
      continue;
    std::vector<Mod> inGroup;
    for (Mod m : allowed)
      if (modGroup(m) == g)
        inGroup.push_back(m);
    in.mods.set(oneOf(inGroup));
  }
}

std::optional<Operand> guard(bool mustNotFallThrough) {
  if (mustNotFallThrough) {
    if (chance(10))
      return Operand::reg_(oneOf(std::vector<Reg>{PT, Reg{RegFile::UP, Reg::kConst}}));
    return std::nullopt;
  }
  if (!chance(25))
    return std::nullopt;
  Operand g = Operand::reg_(regFor(K_PRED, true));
  g.neg = chance(40);
  return g;
}

// BAR's shape depends on its modifiers (dstCount and checkShape, ir/): BAR.RED.POPC Rd,
// BAR.RED.AND/.OR Pd, then a[, b] and the predicate last; the other forms a[, b] only.
void barOperands(Instr &in, const FnCtx &ctx) {
  for (Mod m : {Mod::POPC, Mod::AND, Mod::OR})
    in.mods.reset(m);
  bool red = in.has(Mod::RED);
  if (red) {
    Mod op = oneOf(std::vector<Mod>{Mod::POPC, Mod::AND, Mod::OR});
    in.mods.set(op);
    in.dsts.push_back(operand(in, OperandSlot{op == Mod::POPC ? uint16_t(K_REG) : uint16_t(K_PRED)},
                              true, 0, ctx));
  }
  OperandSlot id{uint16_t(K_REG | K_IMM)};
  in.srcs.push_back(operand(in, id, false, 0, ctx));
  if (chance(50))
    in.srcs.push_back(operand(in, id, false, 1, ctx));
  if (red)
    in.srcs.push_back(operand(in, OperandSlot{uint16_t(K_PRED)}, false, in.srcs.size(), ctx));
}

Instr instruction(Opcode op, const FnCtx &ctx, bool lastOfFunction) {
  Instr in;
  in.op = op;
  in.guard = guard(lastOfFunction);
  const OpInfo &info = in.info();
  if (op == Opcode::OPAQUE) {
    in.opaqueText = opaqueText();
    auto registers = [&](auto &list) { // dsts, then srcs: the draws in the same order as before
      int n = upTo(3);
      for (int i = 0; i < n; ++i)
        list.push_back(Operand::reg_(regFor(K_REG | K_PRED | K_BAR, false)));
    };
    registers(in.dsts);
    registers(in.srcs);
    return in;
  }
  modifiers(in);
  if (op == Opcode::CALL) {
    callOperands(in, ctx);
    return in;
  }
  if (op == Opcode::BAR) {
    barOperands(in, ctx);
    return in;
  }
  if (op == Opcode::REDUX) { // one operation; .S32 only with .MIN/.MAX (checkShape, ir/ori.h)
    if (in.has(Mod::SUM) && in.mods.inGroup(ModGroup::AtomOp))
      in.mods.reset(*in.mods.inGroup(ModGroup::AtomOp));
    if (in.has(Mod::SUM) || in.has(Mod::ATOM_AND) || in.has(Mod::ATOM_OR) || in.has(Mod::ATOM_XOR))
      in.mods.reset(Mod::S32);
  }
  if (op == Opcode::SULD ||
      op == Opcode::SUST) { // dimensions and vector fix the operands (checkShape)
    if (surfaceDims(in.mods) == 0)
      in.mods.set(oneOf(std::vector<Mod>{Mod::D1, Mod::D2, Mod::D3}));
    if (in.has(Mod::V4) && in.has(Mod::W64))
      in.mods.reset(Mod::V4);
    const size_t nd = op == Opcode::SULD ? surfaceElems(in.mods) : 0;
    const size_t ns = 1 + surfaceDims(in.mods) + (op == Opcode::SUST ? surfaceElems(in.mods) : 0);
    for (size_t k = 0; k < nd; ++k)
      in.dsts.push_back(operand(in, info.dsts[0], true, 0, ctx));
    for (size_t k = 0; k < ns; ++k)
      in.srcs.push_back(operand(in, info.srcs[std::min<size_t>(k, 1)], false, k, ctx));
    return in;
  }
  if (isMma(op)) { // one of the forms (ir/mma.h), with as many registers as it has
    in.mods = oneOf(mmaForms(op));
    const MmaForm f = std::get<MmaForm>(mmaForm(op, in.mods));
    for (unsigned k = 0; k < f.dRegs; ++k)
      in.dsts.push_back(operand(in, info.dsts[0], true, 0, ctx));
    for (unsigned k = 0; k < f.aRegs + f.bRegs + f.cRegs; ++k)
      in.srcs.push_back(operand(in, info.srcs[0], false, k, ctx));
    return in;
  }
  if (op == Opcode::LDSM || op == Opcode::STSM || op == Opcode::MOVM || op == Opcode::SETMAXREG) {
    // .M88/.MT88 and one register per matrix; MOVM .MT88; SETMAXREG .INC/.DEC (checkShape)
    if (op == Opcode::MOVM)
      in.mods.set(Mod::MT88);
    if (op == Opcode::SETMAXREG && !in.has(Mod::INC) && !in.has(Mod::DEC))
      in.mods.set(oneOf(std::vector<Mod>{Mod::INC, Mod::DEC}));
    if ((op == Opcode::LDSM || op == Opcode::STSM) && !in.has(Mod::M88) && !in.has(Mod::MT88))
      in.mods.set(oneOf(std::vector<Mod>{Mod::M88, Mod::MT88}));
    if (op == Opcode::LDSM || op == Opcode::STSM) {
      const unsigned n = matrixCount(in.mods);
      for (unsigned k = 0; k < (op == Opcode::LDSM ? n : 0); ++k)
        in.dsts.push_back(operand(in, info.dsts[0], true, 0, ctx));
      in.srcs.push_back(operand(in, info.srcs[0], false, 0, ctx));
      for (unsigned k = 0; k < (op == Opcode::STSM ? n : 0); ++k)
        in.srcs.push_back(operand(in, info.srcs[1], false, 1 + k, ctx));
      return in;
    }
  }
  if (op ==
      Opcode::TEX) { // the same for TEX: 4 destinations, handle, coordinates, level or gradients
    if (surfaceDims(in.mods) == 0)
      in.mods.set(oneOf(std::vector<Mod>{Mod::D1, Mod::D2, Mod::D3}));
    if (in.has(Mod::F32))
      in.mods.reset(Mod::U32), in.mods.reset(Mod::S32);
    if (in.has(Mod::GRAD) && surfaceDims(in.mods) == 3)
      in.mods.reset(Mod::GRAD);
    const size_t dims = surfaceDims(in.mods);
    const size_t ns = 1 + dims + (in.has(Mod::LOD) ? 1 : 0) + (in.has(Mod::GRAD) ? 2 * dims : 0);
    for (size_t k = 0; k < 4; ++k)
      in.dsts.push_back(operand(in, info.dsts[0], true, 0, ctx));
    for (size_t k = 0; k < ns; ++k)
      in.srcs.push_back(operand(in, info.srcs[std::min<size_t>(k, 1)], false, k, ctx));
    return in;
  }
  if (isAtomic(op) || op == Opcode::LD || op == Opcode::LDG || op == Opcode::ST ||
      op == Opcode::STG) {
    // The modifiers fix the operand counts (checkShape, ir/ori_shape.cpp): .128 is CAS or
    // EXCH with two sources per value, .U16 CAS only, CAS takes no .HINT, .HINT adds a policy.
    const bool cas = in.has(Mod::CAS);
    if (in.has(Mod::W128) && !cas && !in.has(Mod::EXCH))
      in.mods.reset(Mod::W128);
    if (in.has(Mod::U16) && !cas)
      in.mods.reset(Mod::U16);
    if (cas)
      in.mods.reset(Mod::HINT);
    const bool load = op == Opcode::LD || op == Opcode::LDG,
               store = op == Opcode::ST || op == Opcode::STG;
    const size_t values = load ? 0 : store ? 1 : (in.has(Mod::W128) ? 2 : 1) * (cas ? 2 : 1);
    for (size_t d = 0; d < dstCount(op, in.mods); ++d)
      in.dsts.push_back(operand(in, info.dsts[d], true, 0, ctx));
    in.srcs.push_back(operand(in, info.srcs[0], false, 0, ctx));
    // Each value in its own slot: the later ones (ATOM's R? R? for .128) take registers only.
    for (size_t k = 0; k < values; ++k)
      in.srcs.push_back(
          operand(in, info.srcs[std::min<size_t>(1 + k, info.srcs.size() - 1)], false, 1 + k, ctx));
    if (in.has(Mod::HINT))
      in.srcs.push_back(operand(in, OperandSlot{uint16_t(K_REG)}, false, 1 + values, ctx));
    return in;
  }
  for (const OperandSlot &s : info.dsts)
    in.dsts.push_back(operand(in, s, true, 0, ctx));
  for (size_t k = 0; k < info.srcs.size(); ++k) {
    const OperandSlot &s = info.srcs[k];
    if (s.optional && chance(50))
      break; // optional slots are last
    in.srcs.push_back(operand(in, s, false, k, ctx));
  }
  if (op == Opcode::LDGSTS && in.has(Mod::HINT) && in.srcs.size() < 3)
    in.mods.reset(Mod::HINT); // its policy is last
  return in;
}

// Opcodes that can appear at all, given what the function offers.
bool usable(const OpInfo &info, const FnCtx &ctx, const Options &opts) {
  if (info.op == Opcode::OPAQUE)
    return opts.opaque;
  if (info.op == Opcode::CALL)
    return opts.calls; // its operands are made by callOperands
  for (const auto *slots : {&info.dsts, &info.srcs})
    for (const OperandSlot &s : *slots)
      if (!s.optional && usableKinds(s.kinds, ctx) == 0)
        return false;
  return true;
}

std::vector<Opcode> opcodes(const FnCtx &ctx, const Options &opts, bool control,
                            bool terminatorOnly) {
  std::vector<Opcode> out;
  for (int o = 0; o < kNumOpcodes; ++o) {
    const OpInfo &info = opInfo(Opcode(o));
    if (info.is(CONTROL) != control || !usable(info, ctx, opts))
      continue;
    if (terminatorOnly && !info.is(TERMINATOR))
      continue;
    out.push_back(Opcode(o));
  }
  return out;
}

// ------------------------------------------------------------ declarations

std::vector<Param> params(const char *prefix, int max) {
  std::vector<Param> ps;
  int n = upTo(max);
  for (int i = 0; i < n; ++i) {
    const TypeInfo &t = oneOf(kTypes);
    Param p;
    p.type = t.name;
    p.name = prefix + std::to_string(i);
    p.count = chance(70) ? 0 : uint32_t(chance(90) ? 1 + below(4) : 1 + below(1 << 20));
    p.size = t.size * std::max<uint32_t>(p.count, 1);
    p.align = chance(75) ? t.size : powerOfTwoUpTo4096();
    ps.push_back(p);
  }
  return ps;
}

std::vector<Variable> variables(const std::string &prefix, const std::vector<Space> &spaces,
                                int max) {
  std::vector<Variable> vs;
  int n = upTo(max);
  for (int i = 0; i < n; ++i) {
    const TypeInfo &t = oneOf(kTypes);
    Variable v;
    v.space = oneOf(spaces);
    v.type = t.name;
    v.name = prefix + std::to_string(i);
    v.elemSize = t.size;
    v.count = chance(50) ? 0 : uint32_t(1 + below(16));
    v.align = chance(75) ? t.size : powerOfTwoUpTo4096();
    if (chance(40)) {
      int elems = 1 + below(int(std::max<uint32_t>(v.count, 1)));
      for (int b = 0; b < elems * int(t.size); ++b)
        v.init.push_back(anyBits<uint8_t>());
    }
    vs.push_back(std::move(v));
  }
  return vs;
}

std::vector<std::string> ptxLines() {
  std::vector<std::string> out;
  if (chance(80))
    return out;
  int n = 1 + upTo(1);
  for (int i = 0; i < n; ++i)
    out.push_back(opaqueText());
  return out;
}

void nameRegisters(Function &f) {
  int n = upTo(5);
  std::set<Reg> named;
  for (int i = 0; i < n; ++i) {
    Reg r = anyReg(oneOf(std::vector<RegFile>{RegFile::R, RegFile::R, RegFile::UR, RegFile::P,
                                              RegFile::UP, RegFile::B}),
                   false);
    if (r.num > 64)
      r.num %= 16; // name registers that the code is likely to use
    if (!named.insert(r).second)
      continue;
    f.regNames[r] = (chance(50) ? "%r" : "v_") + std::to_string(i);
    if (r.file != RegFile::B && chance(50))
      f.regTypes[r] = r.isPredicate() ? "pred" : oneOf(kTypes).name;
  }
}

// ------------------------------------------------------------ functions

Function makeFunction(const std::string &name, const Scope &scope, const Options &opts) {
  Function f;
  f.name = name;
  f.isEntry = chance(50);
  f.params = params("p", 4);
  if (!f.isEntry)
    f.returns = params("r", 2);
  layoutParams(f.params, f.isEntry ? kParamBase : 0);
  layoutParams(f.returns, 0);
  if (opts.variables)
    f.variables = variables("sv", {Space::Shared, Space::Local, Space::Param}, 2);

  // Block structure: which blocks are labelled, which end in control flow.
  int n = 1 + upTo(std::max(opts.maxBlocks, 1) - 1);
  std::vector<bool> labelled(static_cast<size_t>(n)), endsInControl(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    labelled[size_t(i)] = chance(50);
  for (int i = 0; i + 1 < n; ++i)
    endsInControl[size_t(i)] = !labelled[size_t(i) + 1] || chance(40);
  endsInControl[size_t(n) - 1] = true;

  FnCtx ctx;
  ctx.functions = scope.functions;
  ctx.functions.push_back(name);
  ctx.symbols = scope.symbols;
  for (const Variable &v : f.variables) {
    ctx.symbols.push_back(v.name);
    if (v.space == Space::Param)
      ctx.paramVars.push_back(v.name);
  }
  if (!f.isEntry)
    for (const auto *list : {&f.params, &f.returns})
      for (const Param &p : *list)
        ctx.symbols.push_back(p.name);
  if (!opts.variables)
    ctx.symbols.clear();
  f.ptxDirectives = ptxLines();
  for (int i = 0; i < n; ++i)
    if (labelled[size_t(i)])
      ctx.labelled.push_back(uint32_t(i));
  if (!ctx.labelled.empty()) {
    int tables = upTo(2);
    for (int t = 0; t < tables; ++t) {
      JumpTable jt{(chance(50) ? "T" : "$jt") + std::to_string(t), {}};
      int size = 1 + upTo(4);
      for (int k = 0; k < size; ++k)
        jt.targets.push_back(oneOf(ctx.labelled));
      f.jumpTables.push_back(std::move(jt));
    }
    ctx.tables = uint32_t(f.jumpTables.size());
  }

  std::vector<Opcode> body = opcodes(ctx, opts, false, false);
  std::vector<Opcode> control = opcodes(ctx, opts, true, false);
  std::vector<Opcode> terminators = opcodes(ctx, opts, true, true);
  static const char *const kLabelStyles[] = {"L", "$L__BB", "loop."};
  const char *labelStyle = kLabelStyles[below(3)];
  uint32_t index = 0;
  for (int i = 0; i < n; ++i) {
    Block b;
    bool last = i + 1 == n;
    if (labelled[size_t(i)])
      b.label = labelStyle + std::to_string(i);
    b.labelId = 0x10 * index;
    // An empty block must be labelled, not last and not end in control flow.
    bool mayBeEmpty = labelled[size_t(i)] && !endsInControl[size_t(i)];
    int size = upTo(std::max(opts.maxInstrs, 1));
    if (size == 0 && !mayBeEmpty)
      size = 1;
    for (int k = 0; k < size; ++k) {
      bool isEnd = k + 1 == size && endsInControl[size_t(i)];
      Opcode op = isEnd ? oneOf(last ? terminators : control) : oneOf(body);
      b.instrs.push_back(instruction(op, ctx, isEnd && last));
    }
    index += uint32_t(b.instrs.size());
    f.blocks.push_back(std::move(b));
  }
  nameRegisters(f);
  f.recountRegs();
  return f;
}

} // namespace

rc::Gen<Function> function(std::string name, Scope scope, Options opts) {
  return rc::gen::exec([name, scope, opts] { return makeFunction(name, scope, opts); });
}

rc::Gen<Function> function(Options opts) {
  return rc::gen::exec([opts] {
    Options o = opts;
    return makeFunction("fn0", {}, o);
  });
}

rc::Gen<Module> module(Options opts) {
  return rc::gen::exec([opts] {
    Module m;
    m.fileName = "gen.ori";
    if (opts.variables)
      m.variables = variables("gv", {Space::Global, Space::Const, Space::Shared}, 2);
    m.ptxDirectives = ptxLines();
    int n = 1 + upTo(std::max(opts.maxFunctions, 1) - 1);
    int declarations = opts.calls && chance(30) ? 1 : 0;
    Scope scope;
    for (int i = 0; i < n + declarations; ++i)
      scope.functions.push_back("fn" + std::to_string(i));
    for (const Variable &v : m.variables)
      scope.symbols.push_back(v.name);
    for (int i = 0; i < n + declarations; ++i) {
      if (i >= n) { // a declaration: .func (...) fnN(...);
        Function d;
        d.name = scope.functions[size_t(i)];
        d.params = params("p", 3);
        d.returns = params("r", 1);
        layoutParams(d.params, 0);
        layoutParams(d.returns, 0);
        m.functions.push_back(std::move(d));
        continue;
      }
      Scope s = scope;
      s.functions.erase(s.functions.begin() + i); // added back by makeFunction
      m.functions.push_back(makeFunction(scope.functions[size_t(i)], s, opts));
    }
    return m;
  });
}

} // namespace ori::gen

namespace ori {
void showValue(const Function &f, std::ostream &os) { os << "\n" << printFunction(f); }
void showValue(const Module &m, std::ostream &os) { os << "\n" << printModule(m); }
} // namespace ori
