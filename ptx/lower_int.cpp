// PTX -> Ori, one instruction: narrow (8/16-bit) integers and the integer
// instructions SASS builds from several operations (see lowering.h and
// docs/ptx.md, "Conventions of the lowering"): 16-bit arithmetic, set, slct,
// prmt, popc, clz, brev, bfind, bfe, bfi, mul24/mad24, div/rem.
//
// A narrow register holds its value zero-extended. A 16-bit operation is done
// on 32 bits and its result masked back (narrowResult); a source is read
// zero- or sign-extended as the operation needs (narrowSrc). A register wider
// than the instruction's type is truncated to it (PTX ISA, "Operand Size
// Exceeding Instruction-Type Size"), and a narrow result written into a wider
// register is extended by the type's signedness.
#include <algorithm>

#include "ptx/lowering.h"

namespace ori::ptx::lowering {

namespace {
uint64_t maskOf(unsigned bits) { return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1; }
int64_t extendImm(int64_t v, unsigned bits, bool isSigned) {
  uint64_t u = uint64_t(v) & maskOf(bits);
  if (isSigned && bits < 64 && ((u >> (bits - 1)) & 1))
    u |= ~maskOf(bits);
  return int64_t(u);
}
} // namespace

ori::Reg Lowering::temp32() const { return L.newTemp(ori::RegFile::R, "b32"); }

OOp Lowering::narrowSrc(size_t i, PtxType t, bool sext, bool inReg) {
  OOp v = src(i, PtxType{t.kind, 32});
  if (v.kind == OOp::Kind::Imm) {
    v.imm = extendImm(v.imm, t.bits, sext);
    if (sext)
      v.imm = int64_t(uint32_t(v.imm)); // a 32-bit operand
    if (!inReg)
      return v;
    ori::Reg r = temp32();
    emit(make(Opcode::MOV, {}, {reg(r)}, {v}));
    return reg(r);
  }
  if (v.kind != OOp::Kind::Reg || v.reg.isConst())
    return v;
  if (!sext && L.regBits(v.reg) <= t.bits)
    return v; // already zero-extended
  ori::Reg r = temp32();
  if (sext)
    emit(make(Opcode::SGXT, {}, {reg(r)}, {v, imm(t.bits)}));
  else
    emit(make(Opcode::LOP3, {Mod::LUT}, {reg(r)},
              {v, imm(int64_t(maskOf(t.bits))), kRZ, imm(0xC0)}));
  return reg(r);
}

void Lowering::narrowResult(ori::Reg d, OOp value, PtxType t, bool clean) {
  unsigned w = L.regBits(d);
  bool isSigned = t.kind == PtxType::Signed;
  if (w <= t.bits) { // the register's own width: zero-extended
    if (clean && w == t.bits)
      emit(make(Opcode::MOV, {}, {reg(d)}, {value}));
    else
      emit(make(Opcode::LOP3, {Mod::LUT}, {reg(d)},
                {value, imm(int64_t(maskOf(w))), kRZ, imm(0xC0)}));
    return;
  }
  if (!isSigned) { // zero-extended to any wider register (a 32-bit write clears the rest)
    if (clean)
      emit(make(Opcode::MOV, {}, {reg(d)}, {value}));
    else
      emit(make(Opcode::LOP3, {Mod::LUT}, {reg(d)},
                {value, imm(int64_t(maskOf(t.bits))), kRZ, imm(0xC0)}));
    return;
  }
  // Signed into a wider register: sign-extended to its width, then kept canonical.
  ori::Reg s = w == 32 ? d : temp32();
  if (t.bits < 32)
    emit(make(Opcode::SGXT, {}, {reg(s)}, {value, imm(t.bits)}));
  else
    emit(make(Opcode::MOV, {}, {reg(s)}, {value}));
  if (w == 64)
    emit(make(Opcode::IMAD, {Mod::WIDE}, {reg(d)}, {reg(s), imm(1), kRZ}));
  else if (w < 32)
    emit(make(Opcode::LOP3, {Mod::LUT}, {reg(d)},
              {reg(s), imm(int64_t(maskOf(w))), kRZ, imm(0xC0)}));
}

// add sub mul mad shl shr min max neg abs div rem on .s16/.u16/.b16.
bool Lowering::narrowArith(PtxType t) {
  const std::string &op = pi.opcode;
  bool isSigned = t.kind == PtxType::Signed;
  ori::Reg r = temp32();
  if (op == "add" || op == "sub") {
    onlyMods(pi, {});
    need(3);
    if (t.kind == PtxType::Bits)
      return false;
    OOp b = narrowSrc(2, t, false);
    if (op == "sub") {
      if (b.kind == OOp::Kind::Imm)
        b.imm = -b.imm;
      else
        b.neg = true;
    }
    emit(make(Opcode::IADD3, {}, {reg(r)}, {narrowSrc(1, t, false), b, kRZ}));
    narrowResult(dst(0), reg(r), t, false);
    return true;
  }
  if (op == "mul" || op == "mad") {
    onlyMods(pi, {".lo", ".hi", ".wide"});
    bool mad = op == "mad", wide = hasMod(pi, ".wide"), hi = hasMod(pi, ".hi");
    need(mad ? 4 : 3);
    if (t.kind == PtxType::Bits)
      return false;
    // The 32-bit product of the extended values is exact: .lo is its low, .hi its high half.
    OOp a = narrowSrc(1, t, isSigned, true), b = narrowSrc(2, t, isSigned);
    if (wide) { // a 32-bit result: the product (plus a 32-bit addend)
      PtxType t32{t.kind, 32};
      OOp c = mad ? src(3, t32) : kRZ;
      emit(make(Opcode::IMAD, {}, {reg(r)}, {a, b, c}));
      narrowResult(dst(0), reg(r), t32, true);
      return true;
    }
    emit(make(Opcode::IMAD, {}, {reg(r)}, {a, b, kRZ}));
    OOp v = reg(r);
    if (hi) {
      ori::Reg h = temp32();
      emit(make(Opcode::SHR, {Mod::U32}, {reg(h)}, {v, imm(int64_t(t.bits))}));
      v = reg(h);
    }
    if (mad) {
      ori::Reg s = temp32();
      emit(make(Opcode::IADD3, {}, {reg(s)}, {v, narrowSrc(3, t, false), kRZ}));
      v = reg(s);
    }
    narrowResult(dst(0), v, t, false);
    return true;
  }
  if (op == "shl" || op == "shr") {
    onlyMods(pi, {});
    need(3);
    OOp amount = src(2, PtxType{PtxType::Unsigned, 32});
    if (op == "shl") { // amounts >= 16 move every bit out of the field
      emit(make(Opcode::SHL, {}, {reg(r)}, {narrowSrc(1, t, false, true), amount}));
      narrowResult(dst(0), reg(r), t, false);
      return true;
    }
    emit(make(Opcode::SHR, {isSigned ? Mod::S32 : Mod::U32}, {reg(r)},
              {narrowSrc(1, t, isSigned, true), amount}));
    narrowResult(dst(0), reg(r), t, !isSigned);
    return true;
  }
  if (op == "min" || op == "max") {
    onlyMods(pi, {});
    need(3);
    if (t.kind == PtxType::Bits)
      return false;
    emit(make(Opcode::IMNMX, {isSigned ? Mod::S32 : Mod::U32}, {reg(r)},
              {narrowSrc(1, t, isSigned), narrowSrc(2, t, isSigned), op == "min" ? kPT : kNotPT}));
    narrowResult(dst(0), reg(r), t, !isSigned);
    return true;
  }
  if (op == "neg" || op == "abs") {
    onlyMods(pi, {});
    need(2);
    if (!isSigned)
      return false;
    OOp a = narrowSrc(1, t, true, true), na = a;
    na.neg = true;
    emit(make(Opcode::IADD3, {}, {reg(r)}, {na, kRZ, kRZ}));
    if (op == "abs") { // max(a, -a); -32768 stays -32768 (PTX abs)
      ori::Reg m = temp32();
      emit(make(Opcode::IMNMX, {Mod::S32}, {reg(m)}, {a, reg(r), kNotPT}));
      r = m;
    }
    narrowResult(dst(0), reg(r), t, false);
    return true;
  }
  if (op == "div" || op == "rem") {
    onlyMods(pi, {});
    need(3);
    if (t.kind == PtxType::Bits)
      return false;
    // On the extended operands: x / 0 gives all ones, masked; INT16_MIN / -1 wraps.
    emit(make(op == "div" ? Opcode::IDIV : Opcode::IREM, {isSigned ? Mod::S32 : Mod::U32}, {reg(r)},
              {narrowSrc(1, t, isSigned, true), narrowSrc(2, t, isSigned)}));
    narrowResult(dst(0), reg(r), t, false);
    return true;
  }
  return false;
}

// div/rem on 32/64 bits (the 16-bit ones are narrowArith's).
bool Lowering::divRem() {
  onlyMods(pi, {});
  need(3);
  PtxType t = lastType(pi);
  if (t.isInt() && t.bits == 16)
    return narrowArith(t);
  if (!isInt32or64(t) || t.kind == PtxType::Bits)
    return false;
  emit(make(pi.opcode == "div" ? Opcode::IDIV : Opcode::IREM, {intTypeMod(t)}, {reg(dst(0))},
            {srcReg(1, t), src(2, t)}));
  return true;
}

// set.CmpOp{.BoolOp}.dtype.stype d, a, b{, c}: all ones (.u32/.s32) or 1.0f
// (.f32) where the comparison holds, else 0: the setp compare, then SEL.
bool Lowering::set() {
  std::vector<PtxType> ts = types(pi);
  if (ts.size() != 2 || (ops.size() != 3 && ops.size() != 4))
    return false;
  PtxType dt = ts[0];
  if (!(dt.bits == 32 &&
        (dt.kind == PtxType::Unsigned || dt.kind == PtxType::Signed || dt.kind == PtxType::Float)))
    return false;
  ori::Reg p = L.newTemp(ori::RegFile::P, "pred");
  if (!compare(reg(p), kPT, 1, ts[1]))
    return false;
  emit(make(Opcode::SEL, {}, {reg(dst(0))},
            {imm(dt.kind == PtxType::Float ? 0x3f800000 : 0xffffffff), imm(0), reg(p)}));
  return true;
}

// slct.dtype.s32 d, a, b, c: c >= 0 ? a : b; slct{.ftz}.dtype.f32: the same on a
// binary32 c, where -0.0 counts as >= 0 and NaN does not.
bool Lowering::slct() {
  onlyMods(pi, {".ftz"});
  need(4);
  std::vector<PtxType> ts = types(pi);
  if (ts.size() != 2)
    return false;
  PtxType dt = ts[0], ct = ts[1];
  ori::Reg p = L.newTemp(ori::RegFile::P, "pred");
  if (ct.kind == PtxType::Signed && ct.bits == 32 && !hasMod(pi, ".ftz")) {
    emit(make(Opcode::ISETP, {Mod::GE, Mod::S32, Mod::AND}, {reg(p), kPT},
              {src(3, ct), imm(0), kPT}));
  } else if (ct.kind == PtxType::Float && ct.bits == 32) {
    ori::Instr in = make(Opcode::FSETP, {Mod::GE, Mod::AND}, {reg(p), kPT},
                         {src(3, ct, ori::K_REG | ori::K_FIMM), OOp::floatImm(0.0), kPT});
    if (hasMod(pi, ".ftz"))
      in.mods.set(Mod::FTZ);
    emit(std::move(in));
  } else {
    return false;
  }
  return select(dt, reg(p));
}

// d = p ? a : b for an instruction of type t (selp, slct).
bool Lowering::select(PtxType t, OOp p) {
  if (t.kind == PtxType::Pred || t.bits > 64)
    return false;
  if (t.bits < 32) {
    if (!t.isInt())
      return false;
    ori::Reg r = temp32();
    emit(make(Opcode::SEL, {}, {reg(r)}, {narrowSrc(1, t, false), narrowSrc(2, t, false), p}));
    narrowResult(dst(0), reg(r), t, true);
    return true;
  }
  emit(make(Opcode::SEL, {}, {reg(dst(0))}, {src(1, t), src(2, t), p}), t.bits == 64);
  return true;
}

// prmt.b32{.mode} d, a, b, c: SASS's PRMT d, a, c, b.
bool Lowering::prmt() {
  static constexpr std::pair<std::string_view, Mod> kModes[] = {
      {".f4e", Mod::F4E}, {".b4e", Mod::B4E}, {".rc8", Mod::RC8},
      {".ecl", Mod::ECL}, {".ecr", Mod::ECR}, {".rc16", Mod::RC16}};
  onlyMods(pi, {".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"});
  need(4);
  PtxType t = lastType(pi);
  if (t.kind != PtxType::Bits || t.bits != 32)
    return false;
  ori::Instr in = make(Opcode::PRMT, {}, {reg(dst(0))}, {srcReg(1, t), src(3, t), srcReg(2, t)});
  for (auto [text, m] : kModes)
    if (hasMod(pi, text))
      in.mods.set(m);
  emit(std::move(in));
  return true;
}

// popc, clz, brev, bfind: POPC, FLO, BREV. clz is FLO.SH (31 - position, or
// all ones for 0) clamped to the width.
bool Lowering::bitCount() {
  const std::string &op = pi.opcode;
  onlyMods(pi, {".shiftamt"});
  need(2);
  PtxType t = lastType(pi);
  if (!isInt32or64(t))
    return false;
  bool w64 = t.bits == 64;
  if (op == "bfind") {
    if (t.kind == PtxType::Bits)
      return false;
    ori::Instr in = make(Opcode::FLO, {intTypeMod(t)}, {reg(dst(0))}, {srcReg(1, t)});
    if (hasMod(pi, ".shiftamt"))
      in.mods.set(Mod::SH);
    emit(std::move(in));
    return true;
  }
  if (t.kind != PtxType::Bits || hasMod(pi, ".shiftamt"))
    return false;
  if (op == "popc") {
    emit(make(Opcode::POPC, {}, {reg(dst(0))}, {srcReg(1, t)}), w64);
    return true;
  }
  if (op == "brev") {
    emit(make(Opcode::BREV, {}, {reg(dst(0))}, {srcReg(1, t)}), w64);
    return true;
  }
  ori::Reg f = temp32(); // clz
  emit(make(Opcode::FLO, {w64 ? Mod::U64 : Mod::U32, Mod::SH}, {reg(f)}, {srcReg(1, t)}));
  emit(make(Opcode::IMNMX, {Mod::U32}, {reg(dst(0))}, {reg(f), imm(t.bits), kPT}));
  return true;
}

// An operand restricted to 0..255, as bfe and bfi read positions and lengths.
OOp Lowering::byteOperand(size_t i) {
  OOp v = src(i, PtxType{PtxType::Unsigned, 32});
  if (v.kind == OOp::Kind::Imm)
    return imm(v.imm & 0xff);
  ori::Reg r = temp32();
  emit(make(Opcode::LOP3, {Mod::LUT}, {reg(r)}, {v, imm(0xff), kRZ, imm(0xC0)}));
  return reg(r);
}

// bfe.type d, a, pos, len: the field shifted down (arithmetically for signed
// types, so bits past the top are the sign), then extended from bit len - 1
// (SGXT; .U32 zero-extends). That is the PTX ISA's definition, fill bit
// a[min(pos + len - 1, msb)] included; len = 0 gives 0.
bool Lowering::bfe() {
  onlyMods(pi, {});
  need(4);
  PtxType t = lastType(pi);
  if (!isInt32or64(t) || t.kind == PtxType::Bits)
    return false;
  bool isSigned = t.kind == PtxType::Signed, w64 = t.bits == 64;
  OOp pos = byteOperand(2), len = byteOperand(3);
  ori::Reg s = L.newTemp(ori::RegFile::R, w64 ? "b64" : "b32");
  emit(make(Opcode::SHR, {intTypeMod(t)}, {reg(s)}, {srcReg(1, t), pos}));
  if (w64 && !isSigned) { // SGXT.U32 is 32-bit only (.U32 and .64 share a modifier group): mask
    emit(make(Opcode::LOP3, {Mod::LUT}, {reg(dst(0))},
              {reg(s), reg(lowOnes64(len)), kRZ, imm(0xC0)}),
         true);
    return true;
  }
  ori::Instr x = make(Opcode::SGXT, {}, {reg(dst(0))}, {reg(s), len});
  if (!isSigned)
    x.mods.set(Mod::U32);
  emit(std::move(x), w64);
  return true;
}

// A 64-bit register of min(len, 64) low one bits (len an 8-bit count): all ones shifted right
// by 64 - min(len, 64) (SHR by 64 gives 0).
ori::Reg Lowering::lowOnes64(OOp len) {
  ori::Reg l = temp32(), n = temp32();
  ori::Reg ones = L.newTemp(ori::RegFile::R, "b64"), field = L.newTemp(ori::RegFile::R, "b64");
  emit(make(Opcode::IMNMX, {Mod::U32}, {reg(l)}, {len, imm(64), kPT}));
  OOp negL = reg(l);
  negL.neg = true;
  emit(make(Opcode::IADD3, {}, {reg(n)}, {negL, imm(64), kRZ}));
  emit(make(Opcode::MOV, {}, {reg(ones)}, {imm(-1)}), true);
  emit(make(Opcode::SHR, {Mod::U64}, {reg(field)}, {reg(ones), reg(n)}));
  return field;
}

// bfi.type d, f, b, pos, len: b with bits pos..pos+len-1 (those below the
// width) taken from f's low bits. mask = zero-extend(all ones, len) << pos;
// d = (f << pos) & mask | b & ~mask (LOP3 0xe2: "mask ? f<<pos : b").
bool Lowering::bfi() {
  onlyMods(pi, {});
  need(5);
  PtxType t = lastType(pi);
  if (!isInt32or64(t) || t.kind != PtxType::Bits)
    return false;
  bool w64 = t.bits == 64;
  const char *ty = w64 ? "b64" : "b32";
  OOp pos = byteOperand(3), len = byteOperand(4);
  ori::Reg field;
  if (w64) {
    field = lowOnes64(len); // SGXT.U32 is 32-bit only (.U32 and .64 share a modifier group)
  } else {
    ori::Reg ones = L.newTemp(ori::RegFile::R, ty);
    field = L.newTemp(ori::RegFile::R, ty);
    emit(make(Opcode::MOV, {}, {reg(ones)}, {imm(0xffffffff)}));
    emit(make(Opcode::SGXT, {Mod::U32}, {reg(field)}, {reg(ones), len}));
  }
  ori::Reg mask = L.newTemp(ori::RegFile::R, ty), shifted = L.newTemp(ori::RegFile::R, ty);
  emit(make(Opcode::SHL, {}, {reg(mask)}, {reg(field), pos}), w64);
  emit(make(Opcode::SHL, {}, {reg(shifted)}, {srcReg(1, t), pos}), w64);
  emit(make(Opcode::LOP3, {Mod::LUT}, {reg(dst(0))},
            {reg(shifted), reg(mask), src(2, t), imm(0xE2)}),
       w64);
  return true;
}

// mul24/mad24.{lo,hi}.{u32,s32}: the 48-bit product of the low 24 bits
// (extended by the type); .lo its bits 31..0, .hi its bits 47..16.
bool Lowering::mul24() {
  onlyMods(pi, {".lo", ".hi"});
  bool mad = pi.opcode == "mad24", hi = hasMod(pi, ".hi");
  need(mad ? 4 : 3);
  PtxType t = lastType(pi);
  if (t.bits != 32 || (t.kind != PtxType::Signed && t.kind != PtxType::Unsigned))
    return false;
  bool isSigned = t.kind == PtxType::Signed;
  auto low24 = [&](size_t i) {
    ori::Reg r = temp32();
    ori::Instr x = make(Opcode::SGXT, {}, {reg(r)}, {srcReg(i, t), imm(24)});
    if (!isSigned)
      x.mods.set(Mod::U32);
    emit(std::move(x));
    return reg(r);
  };
  OOp a = low24(1), b = low24(2), c = mad ? src(3, t) : kRZ;
  if (!hi) {
    emit(make(Opcode::IMAD, {}, {reg(dst(0))}, {a, b, c}));
    return true;
  }
  ori::Reg p = L.newTemp(ori::RegFile::R, "b64"), q = L.newTemp(ori::RegFile::R, "b64");
  ori::Instr wide = make(Opcode::IMAD, {Mod::WIDE}, {reg(p)}, {a, b, kRZ});
  if (!isSigned)
    wide.mods.set(Mod::U32);
  emit(std::move(wide));
  emit(make(Opcode::SHR, {Mod::U64}, {reg(q)}, {reg(p), imm(16)}));
  emit(make(Opcode::IADD3, {}, {reg(dst(0))}, {reg(q), c, kRZ})); // 32 bits: the low word of q
  return true;
}

} // namespace ori::ptx::lowering
