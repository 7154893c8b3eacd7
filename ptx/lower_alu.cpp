// PTX -> Ori, one instruction: operands, moves, integer arithmetic (float in lower_float.cpp),
// logic, shifts, min/max (see lowering.h).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "ptx/lowering.h"

namespace ori::ptx {

using namespace lowering;

ori::Reg FunctionLowerer::destination(const Operand &o) {
  if (o.kind != Operand::Kind::Name || !o.selector.empty() || o.minus)
    throw NotNative{};
  NameRef r = resolve(o.name);
  if (r.kind != NameRef::Register) {
    // As in source(), so that which of the two fails first cannot matter.
    if (o.name[0] == '%' && r.kind == NameRef::None && !isUnmodelledSpecialRegister(o.name))
      fail(o.loc, fmt::format("undeclared register '{}'", o.name));
    throw NotNative{};
  }
  return r.reg;
}

OOp FunctionLowerer::source(const Operand &o, PtxType t, uint16_t kinds) {
  auto viaMov = [&](OOp value, bool wide) {
    ori::Reg tmp = newTemp(ori::RegFile::R, wide ? "b64" : "b32");
    ori::Instr mov = make(Opcode::MOV, {}, {reg(tmp)}, {std::move(value)});
    if (wide)
      mov.mods.set(Mod::W64);
    emit(std::move(mov));
    return reg(tmp);
  };
  if (!o.selector.empty() || o.minus)
    throw NotNative{}; // video selectors and `-a`: lower_video.cpp's
  // `base+off` (PTX accepts a register or an address plus an integer as a source and adds
  // them: ptxas 13.0 gives `add.s32 d, %r2+1, %r3` the SASS of an add of 1 first, at the
  // operand's width: 32 bits for `%r+4294967297` adds 1, 64 bits add the full offset).
  auto plusOffset = [&](OOp base, bool wide) {
    ori::Reg tmp = newTemp(ori::RegFile::R, wide ? "b64" : "b32");
    ori::Instr add = make(Opcode::IADD3, {}, {reg(tmp)},
                          {std::move(base), imm(wide ? o.ival : int64_t(uint32_t(o.ival))), kRZ});
    if (wide)
      add.mods.set(Mod::W64);
    emit(std::move(add));
    honored(o);
    return reg(tmp);
  };
  // In the families whose shapes the reader checks, a predicate where an integer goes (or the
  // reverse) and a variable's address outside mov and cvta are errors, as ptxas 13.0 has them
  // ("Arguments mismatch", "Argument 1 of instruction 'add': must be register").
  const std::string &opcode = current_ ? current_->opcode : std::string();
  const bool checked = current_ && isShapedFamily(opcode) && t.kind != PtxType::None;
  auto reject = [&](const std::string &why) {
    if (checked)
      fail(o.loc, why);
    throw NotNative{};
  };
  // An offset is added at the operand's width, 32 or 64 bits, then the slot reads the sum's
  // bits: ptxas 13.0 gives `add.f32 d, %r2+4, f` the SASS of an integer add then add.f32 of
  // its bits, and `add.s32 d, g+4, r` that of the address's low word plus 4.
  auto offsetWidth = [&]() -> bool {
    if (t.kind == PtxType::Pred || t.bits < 8 || t.bits > 64 ||
        (t.kind != PtxType::Signed && t.kind != PtxType::Unsigned && t.kind != PtxType::Bits &&
         t.bits < 32))
      reject(fmt::format("'{}{:+}': an offset has no meaning in this operand of '{}'", o.name,
                         o.ival, opcode));
    return t.bits == 64;
  };
  switch (o.kind) {
  case Operand::Kind::Name: {
    NameRef r = resolve(o.name);
    switch (r.kind) {
    case NameRef::Register:
      if (r.reg.isPredicate() != (t.kind == PtxType::Pred))
        reject(fmt::format("'{}' is {} register; this operand of '{}' takes {}", o.name,
                           r.reg.isPredicate() ? "a predicate" : "not a predicate", opcode,
                           t.kind == PtxType::Pred ? "a predicate" : "a value of its type"));
      if (o.ival != 0)
        return plusOffset(reg(r.reg), offsetWidth()); // an integer register (checkForm)
      if (o.negated)
        honored(o);
      return reg(r.reg, o.negated);
    case NameRef::Special: {
      if (t.kind == PtxType::Pred)
        reject(fmt::format("'{}' is no predicate: this operand of '{}' takes one", o.name, opcode));
      if (kinds & ori::K_SREG)
        return OOp::special(r.sreg);
      ori::Reg tmp = newTemp(ori::RegFile::R, "b32");
      emit(make(Opcode::S2R, {}, {reg(tmp)}, {OOp::special(r.sreg)}));
      return reg(tmp);
    }
    case NameRef::Variable:
    case NameRef::Function:
    case NameRef::EntryParam: {
      // A kernel parameter's address (`mov.u64 %rd, p`) is its offset from the first parameter
      // (ptxas 13.0 gives `mov.u64 %rd, a` of a second parameter after a .u64 the SASS of
      // `mov.u64 %rd, 8`), which `ld.param [%rd]` reads (ptx/lower_mem.cpp).
      const bool param = r.kind == NameRef::EntryParam;
      if (o.ival != 0) { // the address plus the offset: ptxas takes `add.s64 d, g+4, 0`, `p+4` too
        bool wide = offsetWidth();
        return plusOffset(viaMov(OOp::symbol(r.symbol), true), wide);
      }
      // (but not `g` alone outside mov's source and cvta: not in a mov's packed vector either)
      if (checked && (opcode == "mov" ? !(kinds & ori::K_SYM) : opcode != "cvta"))
        fail(o.loc, fmt::format("'{}' is not a register: '{}' takes {} address only in mov{}",
                                o.name, opcode, param ? "a parameter's" : "a variable's",
                                param ? "" : " and cvta"));
      if (param) {
        if ((kinds & ori::K_SYM) && t.bits == 64 && opcode == "mov")
          return OOp::symbol(r.symbol);
        if (t.bits == 64 && opcode == "cvta" &&
            (hasMod(*current_, ".param") || hasMod(*current_, ".param::entry")))
          return viaMov(OOp::symbol(r.symbol), true); // cvta.param.u64 d, p (lower_mem.cpp)
        throw NotNative{}; // a 32-bit parameter address: OPAQUE, as 32-bit addresses are
      }
      // A kernel's own .param variables (call slots) have no address a register may hold
      // there: `ld.param [%rd]` in a kernel reads the kernel's parameters (lower_mem.cpp).
      if (f_.isEntry && isParamVariable(r.symbol))
        throw NotNative{};
      if (kinds & ori::K_SYM)
        return OOp::symbol(r.symbol);
      return viaMov(OOp::symbol(r.symbol), true);
    }
    case NameRef::None:
      if (o.name[0] == '%' && !isUnmodelledSpecialRegister(o.name))
        fail(o.loc, fmt::format("undeclared register '{}'", o.name));
      throw NotNative{};
    }
    throw NotNative{};
  }
  case Operand::Kind::Int:
    // A constant predicate (`selp.b32 d, a, b, 1;`, `vote.sync.ballot.b32 d, 1, m;`): true when
    // nonzero (ptxas 13.0 gives 2, -1 and 0x100 the SASS of 1).
    if (t.kind == PtxType::Pred)
      return OOp::reg_(ori::PT, o.ival == 0);
    // PTX ISA 9.0 4.5.2: a floating-point operand takes a floating-point literal (1.0,
    // 0f3F800000); ptxas 13.0 rejects `mov.f32 %f1, 1` ("Arguments mismatch"), .b types take both.
    if (t.kind == PtxType::Float || t.kind == PtxType::Packed)
      fail(o.loc,
           fmt::format("integer literal {} for a .{}{}{} operand of '{}': write a "
                       "floating-point literal (1.0, 0f3F800000)",
                       o.ival, t.bfloat ? "bf" : "f", t.kind == PtxType::Packed ? 16 : t.bits,
                       t.kind == PtxType::Packed ? "x2" : "", opcode));
    if (t.bits != 64 && (o.ival < INT32_MIN || o.ival > int64_t(UINT32_MAX)))
      throw NotNative{};
    if (kinds & ori::K_IMM)
      return imm(o.ival);
    return viaMov(imm(o.ival), t.bits == 64);
  case Operand::Kind::Float: {
    if (t.kind == PtxType::Pred)
      reject(fmt::format("a floating-point number is no predicate ('{}' takes one here)", opcode));
    // ... and an integer operand (.s, .u) no floating-point one (ptxas 13.0: `add.s32 %r1,
    // %r1, 1.0` and `mov.u32 %r1, 0f3F800000` are "Arguments mismatch"; mov.b32 takes it).
    if (t.kind == PtxType::Signed || t.kind == PtxType::Unsigned)
      fail(o.loc, fmt::format("floating-point literal for a .{}{} operand of '{}': write an "
                              "integer (or use a .b type)",
                              t.kind == PtxType::Signed ? "s" : "u", t.bits, opcode));
    // A binary32 instruction with a 0d literal rounds it; keep only exact ones.
    if (t.kind == PtxType::Float && t.bits == 32 && !o.floatIsF32 &&
        double(float(o.fval)) != o.fval)
      throw NotNative{};
    if (t.kind == PtxType::Float && (kinds & ori::K_FIMM))
      return OOp::floatImm(o.fval);
    // The literal's exact bits (ival) where its width matches, so NaN payloads survive.
    int64_t bits;
    if (t.bits == 32)
      bits = o.floatIsF32 ? int64_t(uint32_t(o.ival)) : std::bit_cast<uint32_t>(float(o.fval));
    else if (t.bits == 64)
      bits = o.floatIsF32 ? int64_t(std::bit_cast<uint64_t>(o.fval)) : o.ival;
    else
      throw NotNative{};
    if (kinds & ori::K_IMM)
      return imm(bits);
    return viaMov(imm(bits), t.bits == 64);
  }
  default:
    throw NotNative{};
  }
}

namespace {
// .target sm_10 .. sm_13 (PTX ISA: "sm_1x: .ftz is implied" for binary32 arithmetic).
bool isSm1x(const std::string &target) {
  return target.size() >= 5 && target.compare(0, 4, "sm_1") == 0 &&
         std::isdigit(static_cast<unsigned char>(target[4])) &&
         (target.size() == 5 || !std::isalnum(static_cast<unsigned char>(target[5])));
}

// On sm_1x targets ptxas 13.0 compiles every binary32 instruction that takes .ftz as if it
// had it: add, sub, mul, mad, min, max, abs, neg, setp, set, slct, div, rcp, sqrt, rsqrt,
// ex2, lg2, cvt.rzi.f32.f32, cvt.rzi.s32.f32, cvt.rn.f32.f64, cvt.f64.f32 give the
// byte-identical SASS of their .ftz forms for .target sm_20 (docs/spec-notes.md, "ptxas
// findings"). The copy returned has .ftz written out; an instruction without a binary32
// operand type is left as it is.
std::optional<Instruction> withImpliedFtz(const Instruction &pi) {
  static const std::set<std::string, std::less<>> kTakesFtz = {
      "add",  "sub", "mul", "mad",  "fma",   "min", "max", "abs", "neg", "setp", "set",
      "slct", "div", "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "cvt"};
  if (!kTakesFtz.count(pi.opcode) || hasMod(pi, ".ftz"))
    return std::nullopt;
  auto isF32 = [](PtxType t) { return t.kind == PtxType::Float && t.bits == 32 && !t.bfloat; };
  std::vector<PtxType> ts = types(pi);
  if (ts.empty())
    return std::nullopt;
  // cvt: a .f32 source, or a .f32 result from another float (cvt.rn.f32.f64 is flushed too)
  bool f32 = isF32(ts.back()) ||
             (pi.opcode == "cvt" && isF32(ts.front()) && ts.back().kind == PtxType::Float);
  if (!f32)
    return std::nullopt;
  Instruction out = pi;
  auto at =
      std::find_if(out.mods.begin(), out.mods.end(), // before the first type, as PTX writes it
                   [](const std::string &m) { return parseType(m).kind != PtxType::None; });
  out.mods.insert(at, ".ftz");
  return out;
}
} // namespace

bool FunctionLowerer::lowerInstruction(const Instruction &pi) {
  try {
    if (isSm1x(ast_.target))
      if (std::optional<Instruction> ftz = withImpliedFtz(pi))
        return Lowering{*this, *ftz}.run();
    return Lowering{*this, pi}.run();
  } catch (const NotNative &) {
    return false;
  }
}

namespace lowering {

bool Lowering::run() {
  const std::string &op = pi.opcode;
  if (std::optional<bool> r = halfPrecision())
    return *r; // lower_half.cpp
  if (op == "mov" && lastType(pi).bits == 128)
    return mov128();
  if (op == "mov")
    return mov();
  // lower_carry.cpp, lower_intops.cpp: extended precision, 64-bit .hi, .sat, packed 16-bit
  if (((op == "add" || op == "sub") && hasMod(pi, ".cc")) || op == "addc" || op == "subc")
    return carryArith();
  if ((op == "mad" && hasMod(pi, ".cc")) || op == "madc")
    return madCarry();
  if ((op == "mul" || op == "mad") && hasMod(pi, ".hi") && lastType(pi).isInt() &&
      lastType(pi).bits == 64)
    return mulHi();
  if ((op == "add" || op == "min" || op == "max") && (hasMod(pi, ".u16x2") || hasMod(pi, ".s16x2")))
    return packed16();
  if ((op == "add" || op == "sub") && hasMod(pi, ".sat") && lastType(pi).isInt())
    return satAddSub();
  if ((op == "min" || op == "max") && hasMod(pi, ".relu") && lastType(pi).isInt())
    return reluMinMax();
  if (op == "dp4a" || op == "dp2a")
    return dotProduct();
  if (op == "sad")
    return sad();
  if (op == "bmsk")
    return bitMask();
  if (op == "szext")
    return signZeroExtend();
  if (op == "fns")
    return findNthSet();
  if (op == "cnot")
    return cnot();
  if (op == "cvt" && hasMod(pi, ".pack"))
    return cvtPack();
  if (op == "vadd" || op == "vsub" || op == "vabsdiff" || op == "vmin" || op == "vmax" ||
      op == "vshl" || op == "vshr" || op == "vset")
    return videoScalar();
  if (op == "vmad")
    return videoMultiplyAdd();
  if (op == "vadd2" || op == "vsub2" || op == "vavrg2" || op == "vabsdiff2" || op == "vmin2" ||
      op == "vmax2" || op == "vset2" || op == "vadd4" || op == "vsub4" || op == "vavrg4" ||
      op == "vabsdiff4" || op == "vmin4" || op == "vmax4" || op == "vset4")
    return videoSimd();
  if (op == "add" || op == "sub")
    return addSub();
  if (op == "mul" || op == "mad")
    return mulMad();
  if (op == "and" || op == "or" || op == "xor" || op == "not")
    return logic();
  if (op == "lop3")
    return lop3();
  if (op == "shl" || op == "shr")
    return shift();
  if (op == "shf")
    return funnelShift();
  if (op == "min" || op == "max")
    return minMax();
  if (op == "neg" || op == "abs")
    return negAbs();
  if (op == "div" && lastType(pi).kind == PtxType::Float)
    return floatDiv();
  if (op == "div" || op == "rem")
    return divRem();
  if (op == "rcp" || op == "sqrt" || op == "rsqrt" || op == "ex2" || op == "lg2" || op == "sin" ||
      op == "cos")
    return floatUnary();
  if (op == "copysign")
    return copysign();
  if (op == "prmt")
    return prmt();
  if (op == "popc" || op == "clz" || op == "brev" || op == "bfind")
    return bitCount();
  if (op == "bfe")
    return bfe();
  if (op == "bfi")
    return bfi();
  if (op == "mul24" || op == "mad24")
    return mul24();
  if (op == "fma")
    return lastType(pi).kind == PtxType::Packed ? packedArith() : fma();
  if (op == "setp")
    return setp();
  if (op == "selp")
    return selp();
  if (op == "set")
    return set();
  if (op == "slct")
    return slct();
  if (op == "cvt")
    return cvt();
  if (op == "cvta")
    return cvta();
  if (op == "ld" || op == "ldu")
    return load();
  if (op == "st")
    return store();
  if (op == "atom" || op == "red")
    return atomic();
  if (op == "membar" || op == "fence")
    return fence();
  if (op == "nanosleep")
    return nanosleep();
  if (op == "prefetch" || op == "prefetchu" || op == "applypriority" || op == "discard")
    return cacheControl();
  if (op == "isspacep")
    return isspacep();
  if (op == "createpolicy")
    return createpolicy();
  if (op == "alloca" || op == "stacksave" || op == "stackrestore")
    return stack();
  if (op == "suld" || op == "sust")
    return surface();
  if (op == "tex")
    return texture();
  if (op == "cp")
    return asyncCopy();
  if (op == "bar" || op == "barrier")
    return bar();
  if (op == "shfl")
    return shfl();
  if (op == "match")
    return match();
  if (op == "redux")
    return redux();
  if (op == "elect")
    return elect();
  if (op == "griddepcontrol")
    return gridDepControl();
  if (op == "setmaxnreg")
    return setMaxNReg();
  if (op == "mma")
    return mma();
  if (op == "ldmatrix" || op == "stmatrix")
    return ldmatrix();
  if (op == "movmatrix")
    return movmatrix();
  if (op == "wmma")
    return wmma();
  if (op == "vote" || op == "activemask")
    return vote();
  if (op == "bra")
    return bra();
  if (op == "brx")
    return brx();
  if (op == "ret" || op == "exit")
    return retExit();
  if (op == "trap")
    return trap();
  if (op == "call")
    return call();
  return false;
}

void Lowering::floatMods(ori::Instr &in) const {
  static constexpr std::pair<std::string_view, Mod> kMap[] = {
      {".rn", Mod::RN}, {".rz", Mod::RZ},   {".rm", Mod::RM},
      {".rp", Mod::RP}, {".ftz", Mod::FTZ}, {".sat", Mod::SAT}};
  for (auto [text, m] : kMap)
    if (hasMod(pi, text))
      in.mods.set(m);
}

bool Lowering::mov() {
  onlyMods(pi, {});
  need(2);
  PtxType t = lastType(pi);
  if (t.kind == PtxType::Pred) {
    // PLOP3 with LUT 0xF0 copies its first source; a constant is LUT 0xFF or 0x00.
    ori::Reg d = dst(0);
    if (ops[1].kind == Operand::Kind::Int) {
      emit(make(Opcode::PLOP3, {Mod::LUT}, {reg(d), kPT},
                {kPT, kPT, kPT, imm(ops[1].ival ? 0xFF : 0), imm(0)}));
      return true;
    }
    emit(make(Opcode::PLOP3, {Mod::LUT}, {reg(d), kPT},
              {src(1, t, ori::K_PRED | ori::K_REG), kPT, kPT, imm(0xF0), imm(0)}));
    return true;
  }
  if (ops[0].kind == Operand::Kind::Vector || ops[1].kind == Operand::Kind::Vector)
    return packUnpack(t);
  if (t.kind == PtxType::None || t.bits == 128 || t.bits == 8)
    return false;
  ori::Reg d = dst(0);
  // %clock64 and %globaltimer (PTX ISA 9.0, 10.15 and 10.22): the low then the high word, as
  // S2R reads them (SASS reads both at once, CS2R; the interpreter's clock would have to pass
  // 2^32 steps between the two reads to tell, docs/interpreter.md "Special registers").
  if (ops[1].kind == Operand::Kind::Name && t.bits == 64 &&
      (ops[1].name == "%clock64" || ops[1].name == "%globaltimer")) {
    const bool clock = ops[1].name == "%clock64";
    ori::Reg lo = temp32(), hi = temp32();
    emit(make(Opcode::S2R, {}, {reg(lo)},
              {OOp::special(clock ? ori::SpecialReg::CLOCKLO : ori::SpecialReg::GLOBALTIMERLO)}));
    emit(make(Opcode::S2R, {}, {reg(hi)},
              {OOp::special(clock ? ori::SpecialReg::CLOCKHI : ori::SpecialReg::GLOBALTIMERHI)}));
    pack64(d, reg(lo), reg(hi));
    return true;
  }
  if (ops[1].kind == Operand::Kind::Name) {
    NameRef r = L.resolve(ops[1].name);
    if (r.kind == NameRef::Special) {
      if (t.bits == 64) { // ptxas 13.0: "Arguments mismatch" for mov.u64 of a 32-bit one
        if (r.sreg != ori::SpecialReg::GRIDID)
          L.fail(ops[1].loc,
                 fmt::format("'{}' is a 32-bit special register: mov.{} cannot read it",
                             ops[1].name, pi.mods.empty() ? "u64" : pi.mods.back().substr(1)));
        return false; // %gridid, 64 bits since PTX ISA 3.0: left to ptxas
      }
      if (t.bits == 16) { // the low half, as PTX's mov.u16 of a 32-bit special register reads it
        ori::Reg s = temp32();
        emit(make(Opcode::S2R, {}, {reg(s)}, {OOp::special(r.sreg)}));
        narrowResult(d, reg(s), t, false);
        return true;
      }
      emit(make(Opcode::S2R, {}, {reg(d)}, {OOp::special(r.sreg)}));
      return true;
    }
  }
  if (t.bits == 16) { // zero-extended: an immediate masked to 16 bits
    narrowResult(d, narrowSrc(1, t, false), t, true);
    return true;
  }
  emit(make(Opcode::MOV, {}, {reg(d)}, {src(1, t, ori::K_REG | ori::K_IMM | ori::K_SYM)}),
       t.bits == 64);
  return true;
}

// mov.b64 d, {lo, hi} (32-bit halves), mov.b64 d, {a, b, c, e} and mov.b32 d, {lo, hi}
// (16-bit parts), and the reverse unpacking forms (with `_` sinks).
// d = zext(hi) << 32 | zext(lo); IMAD.WIDE.U32 x, 1 zero-extends a 32-bit value.
void Lowering::pack64(ori::Reg d, const OOp &lo, const OOp &hi) {
  ori::Reg hi64 = L.newTemp(ori::RegFile::R, "b64"), sh = L.newTemp(ori::RegFile::R, "b64");
  ori::Reg lo64 = L.newTemp(ori::RegFile::R, "b64");
  emit(make(Opcode::IMAD, {Mod::WIDE, Mod::U32}, {reg(hi64)}, {hi, imm(1), kRZ}));
  emit(make(Opcode::SHL, {}, {reg(sh)}, {reg(hi64), imm(32)}), true);
  emit(make(Opcode::IMAD, {Mod::WIDE, Mod::U32}, {reg(lo64)}, {lo, imm(1), kRZ}));
  emit(make(Opcode::LOP3, {Mod::LUT}, {reg(d)}, {reg(sh), reg(lo64), kRZ, imm(0xFC)}), true);
}

bool Lowering::packUnpack(PtxType t) {
  bool pack = ops[1].kind == Operand::Kind::Vector && ops[0].kind == Operand::Kind::Name;
  bool unpack = ops[0].kind == Operand::Kind::Vector && ops[1].kind == Operand::Kind::Name;
  if (pack && t.bits == 16 && ops[1].elems.size() == 2)
    return packBytes(); // lower_cvt.cpp
  if ((t.bits != 32 && t.bits != 64) || (!pack && !unpack))
    return false;
  const std::vector<Operand> &e = (pack ? ops[1] : ops[0]).elems;
  if (e.size() != 2 && e.size() != 4)
    return false;
  unsigned part = t.bits / unsigned(e.size());
  if (part != 16 && part != 32)
    return false;
  PtxType pt{PtxType::Bits, part};
  if (pack) {
    for (const Operand &x : e)
      if (x.kind == Operand::Kind::Sink)
        return false;
    // Two 16-bit parts make a word: bytes 0-1 of the first, then bytes 0-1 of the second.
    auto word = [&](size_t k, ori::Reg w) {
      emit(make(Opcode::PRMT, {}, {reg(w)},
                {L.source(e[k], pt, ori::K_REG), imm(0x5410), L.source(e[k + 1], pt, ori::K_REG)}));
      return reg(w);
    };
    if (t.bits == 32) {
      word(0, dst(0));
      return true;
    }
    ori::Reg d = dst(0);
    OOp lo, hi;
    if (part == 32) {
      lo = L.source(e[0], pt, ori::K_REG);
      hi = L.source(e[1], pt, ori::K_REG);
    } else {
      lo = word(0, temp32());
      hi = word(2, temp32());
    }
    pack64(d, lo, hi);
    return true;
  }
  OOp s = srcReg(1, t);
  for (size_t k = 0; k < e.size(); ++k) {
    if (e[k].kind == Operand::Kind::Sink)
      continue;
    ori::Reg d = L.destination(e[k]);
    unsigned at = unsigned(k) * part;
    OOp v = s;
    if (at > 0) { // shifted down to bit 0
      ori::Reg sh = L.newTemp(ori::RegFile::R, t.bits == 64 ? "b64" : "b32");
      emit(make(Opcode::SHR, {t.bits == 64 ? Mod::U64 : Mod::U32}, {reg(sh)}, {s, imm(at)}));
      v = reg(sh);
    }
    if (part == 32)
      emit(make(Opcode::MOV, {}, {reg(d)}, {v})); // a 32-bit move keeps the low word
    else
      narrowResult(d, v, pt, at + part == t.bits); // the top part has nothing above it
  }
  return true;
}

bool Lowering::addSub() {
  PtxType t = lastType(pi);
  bool sub = pi.opcode == "sub";
  if (t.kind == PtxType::Float)
    return floatAddSub();
  if (t.kind == PtxType::Packed)
    return packedArith();
  if (t.isInt() && t.bits == 16)
    return narrowArith(t);
  onlyMods(pi, {});
  need(3);
  if (!isInt32or64(t))
    return false;
  OOp a = src(1, t), b = src(2, t);
  if (sub) {
    if (b.kind == OOp::Kind::Imm) {
      // a - b = a + (-b) mod 2^width; -INT64_MIN is INT64_MIN itself (nvcc -O0 writes
      // `sub.s64 d, a, -9223372036854775808` for `x - LLONG_MIN`).
      b.imm = int64_t(0 - uint64_t(b.imm));
    } else {
      b.neg = true;
    }
  }
  emit(make(Opcode::IADD3, {}, {reg(dst(0))}, {a, b, kRZ}), t.bits == 64);
  return true;
}

bool Lowering::mulMad() {
  PtxType t = lastType(pi);
  bool mad = pi.opcode == "mad";
  if (t.kind == PtxType::Float)
    return floatMulMad();
  if (t.kind == PtxType::Packed)
    return packedArith();
  if (t.isInt() && t.bits == 16)
    return narrowArith(t);
  onlyMods(pi, {".lo", ".hi", ".wide"});
  need(mad ? 4 : 3);
  if (!isInt32or64(t) || t.kind == PtxType::Bits)
    return false;
  bool wide = hasMod(pi, ".wide"), hi = hasMod(pi, ".hi");
  if ((wide || hi) && t.bits != 32)
    return false;
  // IMAD's first factor must be a register: an immediate goes second.
  size_t ia = 1, ib = 2;
  if (ops[1].kind != Operand::Kind::Name && ops[2].kind == Operand::Kind::Name)
    std::swap(ia, ib);
  OOp a = srcReg(ia, t), b = src(ib, t);
  OOp c = mad ? src(3, wide ? PtxType{t.kind, 64} : t) : kRZ;
  ori::Instr in = make(Opcode::IMAD, {}, {reg(dst(0))}, {a, b, c});
  if (wide)
    in.mods.set(Mod::WIDE);
  if (hi)
    in.mods.set(Mod::HI);
  if ((wide || hi) && t.kind == PtxType::Unsigned)
    in.mods.set(Mod::U32);
  emit(std::move(in), t.bits == 64);
  return true;
}

bool Lowering::logic() {
  onlyMods(pi, {});
  PtxType t = lastType(pi);
  bool isNot = pi.opcode == "not";
  need(isNot ? 2 : 3);
  // PTX's LUT convention: a = 0xF0, b = 0xCC, c = 0xAA.
  uint8_t lut = pi.opcode == "and"   ? 0xC0
                : pi.opcode == "or"  ? 0xFC
                : pi.opcode == "xor" ? 0x3C
                                     : 0x0F;
  if (t.kind == PtxType::Pred) {
    OOp a = src(1, t, ori::K_PRED | ori::K_REG);
    OOp b = isNot ? kPT : src(2, t, ori::K_PRED | ori::K_REG);
    emit(make(Opcode::PLOP3, {Mod::LUT}, {reg(dst(0)), kPT}, {a, b, kPT, imm(lut), imm(0)}));
    return true;
  }
  if (t.kind != PtxType::Bits || (t.bits != 16 && t.bits != 32 && t.bits != 64))
    return false;
  if (t.bits == 16) { // zero-extended operands give a zero-extended result; not.b16 is ~a & 0xFFFF
    OOp a = narrowSrc(1, t, false), b = isNot ? imm(0xFFFF) : narrowSrc(2, t, false);
    if (isNot)
      lut = 0x0C; // ~a & b
    ori::Reg r = temp32();
    emit(make(Opcode::LOP3, {Mod::LUT}, {reg(r)}, {a, b, kRZ, imm(lut)}));
    narrowResult(dst(0), reg(r), t, true);
    return true;
  }
  OOp a = src(1, t);
  OOp b = isNot ? kRZ : src(2, t);
  emit(make(Opcode::LOP3, {Mod::LUT}, {reg(dst(0))}, {a, b, kRZ, imm(lut)}), t.bits == 64);
  return true;
}

bool Lowering::lop3() {
  onlyMods(pi, {});
  need(5);
  PtxType t = lastType(pi);
  if (t.kind != PtxType::Bits || t.bits != 32 || ops[4].kind != Operand::Kind::Int)
    return false;
  emit(make(Opcode::LOP3, {Mod::LUT}, {reg(dst(0))},
            {src(1, t), src(2, t), src(3, t), imm(ops[4].ival & 0xFF)}));
  return true;
}

bool Lowering::shift() {
  onlyMods(pi, {});
  need(3);
  PtxType t = lastType(pi);
  if (t.isInt() && t.bits == 16)
    return narrowArith(t);
  if (!isInt32or64(t))
    return false;
  OOp amount = src(2, PtxType{PtxType::Unsigned, 32});
  if (pi.opcode == "shl") {
    emit(make(Opcode::SHL, {}, {reg(dst(0))}, {srcReg(1, t), amount}), t.bits == 64);
    return true;
  }
  bool s = t.kind == PtxType::Signed;
  Mod m = t.bits == 64 ? (s ? Mod::S64 : Mod::U64) : (s ? Mod::S32 : Mod::U32);
  emit(make(Opcode::SHR, {m}, {reg(dst(0))}, {srcReg(1, t), amount}));
  return true;
}

// shf.l.clamp.b32 d, a, b, c: the high word of {b,a} << min(c, 32);
// shf.r.clamp.b32 d, a, b, c: the low word of {b,a} >> min(c, 32) (PTX ISA,
// "shf"). Ori's SHF.U32 clamps at 32 the same way; .wrap (c & 31) is SHF.W.
bool Lowering::funnelShift() {
  onlyMods(pi, {".l", ".r", ".clamp", ".wrap"});
  need(4);
  PtxType t = lastType(pi);
  if (hasMod(pi, ".clamp") == hasMod(pi, ".wrap") || t.bits != 32 ||
      hasMod(pi, ".l") == hasMod(pi, ".r"))
    return false;
  bool left = hasMod(pi, ".l");
  ori::Instr in = make(Opcode::SHF, {left ? Mod::L : Mod::R, Mod::U32}, {reg(dst(0))},
                       {srcReg(1, t), src(3, PtxType{PtxType::Unsigned, 32}), srcReg(2, t)});
  if (left)
    in.mods.set(Mod::HI);
  if (hasMod(pi, ".wrap"))
    in.mods.set(Mod::W); // the amount modulo 32
  emit(std::move(in));
  return true;
}

bool Lowering::minMax() {
  PtxType t = lastType(pi);
  need(3);
  OOp which = pi.opcode == "min" ? kPT : kNotPT;
  if (t.kind == PtxType::Float)
    return floatMinMax();
  if (t.isInt() && t.bits == 16)
    return narrowArith(t);
  onlyMods(pi, {});
  if (!isInt32or64(t) || t.kind == PtxType::Bits)
    return false;
  emit(make(Opcode::IMNMX, {intTypeMod(t)}, {reg(dst(0))}, {src(1, t), src(2, t), which}));
  return true;
}

bool Lowering::negAbs() {
  PtxType t = lastType(pi);
  need(2);
  bool neg = pi.opcode == "neg";
  if (t.kind == PtxType::Float)
    return floatNegAbs();
  if (t.isInt() && t.bits == 16)
    return narrowArith(t);
  onlyMods(pi, {});
  if (!isInt32or64(t) || t.kind != PtxType::Signed)
    return false;
  ori::Reg d = dst(0);
  OOp a = srcReg(1, t), na = a;
  na.neg = true;
  if (neg) {
    emit(make(Opcode::IADD3, {}, {reg(d)}, {na, kRZ, kRZ}), t.bits == 64);
    return true;
  }
  ori::Reg tmp = L.newTemp(ori::RegFile::R, t.bits == 64 ? "b64" : "b32");
  emit(make(Opcode::IADD3, {}, {reg(tmp)}, {na, kRZ, kRZ}), t.bits == 64);
  emit(make(Opcode::IMNMX, {intTypeMod(t)}, {reg(d)}, {a, reg(tmp), kNotPT})); // max(a, -a)
  return true;
}

} // namespace lowering
} // namespace ori::ptx
