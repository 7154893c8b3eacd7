// PTX -> Ori, one instruction: dp4a, dp2a, sad, bmsk, szext, add/sub.sat.s32, fns, cnot,
// cvt.pack.sat, the packed 16-bit integer forms of add/min/max (.u16x2 .s16x2, .relu)
// and min/max.relu.s32 (PTX ISA 9.0; see lowering.h and docs/ptx.md). Where SASS has one
// instruction (IDP, BMSK, I2IP) Ori has it too; the rest are short exact sequences.
#include "ptx/lowering.h"

namespace ori::ptx::lowering {

namespace {
bool isS32orU32(PtxType t) {
  return (t.kind == PtxType::Signed || t.kind == PtxType::Unsigned) && t.bits == 32;
}
} // namespace

// dp4a.atype.btype d, a, b, c and dp2a.{lo,hi}.atype.btype d, a, b, c (.u32/.s32 each):
// IDP.4A / IDP.2A.LO / .HI with a's element type then b's.
bool Lowering::dotProduct() {
  const bool two = pi.opcode == "dp2a";
  onlyMods(pi, {".lo", ".hi"});
  need(4);
  std::vector<PtxType> ts = types(pi);
  if (ts.size() != 2 || !isS32orU32(ts[0]) || !isS32orU32(ts[1]))
    return false;
  if (two ? hasMod(pi, ".lo") == hasMod(pi, ".hi") : (hasMod(pi, ".lo") || hasMod(pi, ".hi")))
    return false;
  const bool aSigned = ts[0].kind == PtxType::Signed, bSigned = ts[1].kind == PtxType::Signed;
  // c is .u32 when both are unsigned, else .s32: the same 32 bits either way.
  ori::Instr x =
      make(Opcode::IDP, {}, {reg(dst(0))}, {srcReg(1, ts[0]), src(2, ts[1]), src(3, ts[0])});
  if (two) {
    x.mods.set(Mod::A2);
    x.mods.set(hasMod(pi, ".hi") ? Mod::HI : Mod::LO);
    x.mods.set(aSigned ? Mod::S16 : Mod::U16);
  } else {
    x.mods.set(Mod::A4);
    x.mods.set(aSigned ? Mod::S8 : Mod::U8);
  }
  x.mods.set(bSigned ? Mod::IDP_B_S8 : Mod::IDP_B_U8);
  emit(std::move(x));
  return true;
}

// sad.type d, a, b, c: c + |a - b| = c + max(a, b) - min(a, b) in the type (SASS VABSDIFF
// for 32 bits); 16-bit types on their extended values, the result masked back.
bool Lowering::sad() {
  onlyMods(pi, {});
  need(4);
  PtxType t = lastType(pi);
  if (!t.isInt() || t.kind == PtxType::Bits || (t.bits != 16 && t.bits != 32 && t.bits != 64))
    return false;
  const bool isSigned = t.kind == PtxType::Signed;
  OOp a, b, c;
  Mod ty;
  bool w64 = t.bits == 64;
  if (t.bits == 16) {
    a = narrowSrc(1, t, isSigned), b = narrowSrc(2, t, isSigned), c = narrowSrc(3, t, false);
    ty = isSigned ? Mod::S32 : Mod::U32;
  } else {
    a = src(1, t), b = src(2, t), c = src(3, t);
    ty = intTypeMod(t);
  }
  const char *rt = w64 ? "b64" : "b32";
  ori::Reg mx = L.newTemp(ori::RegFile::R, rt), mn = L.newTemp(ori::RegFile::R, rt);
  emit(make(Opcode::IMNMX, {ty}, {reg(mx)}, {a, b, kNotPT}));
  emit(make(Opcode::IMNMX, {ty}, {reg(mn)}, {a, b, kPT}));
  if (t.bits == 16) {
    ori::Reg r = temp32();
    emit(make(Opcode::IADD3, {}, {reg(r)}, {reg(mx), reg(mn, true), c}));
    narrowResult(dst(0), reg(r), t, false);
    return true;
  }
  emit(make(Opcode::IADD3, {}, {reg(dst(0))}, {reg(mx), reg(mn, true), c}), w64);
  return true;
}

// bmsk.{clamp,wrap}.b32 d, a, b: BMSK (.W: wrap).
bool Lowering::bitMask() {
  onlyMods(pi, {".clamp", ".wrap"});
  need(3);
  PtxType t = lastType(pi);
  if (t.kind != PtxType::Bits || t.bits != 32 || hasMod(pi, ".clamp") == hasMod(pi, ".wrap"))
    return false;
  ori::Instr x = make(Opcode::BMSK, {}, {reg(dst(0))}, {src(1, t), src(2, t)});
  if (hasMod(pi, ".wrap"))
    x.mods.set(Mod::W);
  emit(std::move(x));
  return true;
}

// szext.{clamp,wrap}.{u32,s32} d, a, b: the low b bits of a, sign- (.s32) or zero-extended;
// b = 0 gives 0. .clamp: b >= 32 gives a (SGXT's own rule); .wrap: b taken modulo 32 first.
bool Lowering::signZeroExtend() {
  onlyMods(pi, {".clamp", ".wrap"});
  need(3);
  PtxType t = lastType(pi);
  if (!isS32orU32(t) || hasMod(pi, ".clamp") == hasMod(pi, ".wrap"))
    return false;
  OOp a = srcReg(1, t), b = src(2, PtxType{PtxType::Unsigned, 32});
  if (hasMod(pi, ".wrap")) {
    if (b.kind == OOp::Kind::Imm) {
      b = imm(b.imm & 31);
    } else {
      ori::Reg r = temp32();
      emit(make(Opcode::LOP3, {Mod::LUT}, {reg(r)}, {b, imm(31), kRZ, imm(0xC0)}));
      b = reg(r);
    }
  }
  ori::Instr x = make(Opcode::SGXT, {}, {reg(dst(0))}, {a, b});
  if (t.kind == PtxType::Unsigned)
    x.mods.set(Mod::U32);
  emit(std::move(x));
  return true;
}

// add.sat.s32 / sub.sat.s32: the exact sum of the sign-extended operands (64-bit IMAD.WIDE
// by 1 and by -1), clamped to [INT32_MIN, INT32_MAX], its low word.
bool Lowering::satAddSub() {
  onlyMods(pi, {".sat"});
  need(3);
  PtxType t = lastType(pi);
  if (t.kind != PtxType::Signed || t.bits != 32)
    return false;
  ori::Reg x = L.newTemp(ori::RegFile::R, "b64"), s = L.newTemp(ori::RegFile::R, "b64");
  ori::Reg lo = L.newTemp(ori::RegFile::R, "b64"), hi = L.newTemp(ori::RegFile::R, "b64");
  emit(make(Opcode::IMAD, {Mod::WIDE}, {reg(x)}, {srcReg(1, t), imm(1), kRZ}));
  emit(make(Opcode::IMAD, {Mod::WIDE}, {reg(s)},
            {srcReg(2, t), imm(pi.opcode == "sub" ? -1 : 1), reg(x)}));
  emit(make(Opcode::IMNMX, {Mod::S64}, {reg(lo)}, {reg(s), imm(INT32_MAX), kPT}));
  emit(make(Opcode::IMNMX, {Mod::S64}, {reg(hi)}, {reg(lo), imm(INT32_MIN), kNotPT}));
  emit(make(Opcode::MOV, {}, {reg(dst(0))}, {reg(hi)}));
  return true;
}

// fns.b32 d, mask, base, offset: FNS.
bool Lowering::findNthSet() {
  onlyMods(pi, {});
  need(4);
  PtxType t = lastType(pi);
  if (t.kind != PtxType::Bits || t.bits != 32 || types(pi).size() != 1)
    return false;
  PtxType s32{PtxType::Signed, 32};
  emit(make(Opcode::FNS, {}, {reg(dst(0))}, {src(1, t), src(2, t), src(3, s32)}));
  return true;
}

// cvt.pack.sat.{u8,s8}.s32.b32 d, a, b, c and cvt.pack.sat.{u16,s16}.s32 d, a, b: I2IP.
// (The ISA's pseudocode assigns ta twice, the second without the lower clamp; its text and
// ptxas's I2IP...SAT clamp at both ends, and so does I2IP.)
bool Lowering::cvtPack() {
  onlyMods(pi, {".pack", ".sat"});
  std::vector<PtxType> ts = types(pi);
  if (!hasMod(pi, ".sat") || ts.size() < 2 || ts[1].kind != PtxType::Signed || ts[1].bits != 32)
    return false;
  PtxType dt = ts[0];
  if (!(dt.kind == PtxType::Signed || dt.kind == PtxType::Unsigned) ||
      (dt.bits != 8 && dt.bits != 16))
    return false;
  const bool eight = dt.bits == 8;
  if (ts.size() != (eight ? 3u : 2u) ||
      (eight && (ts[2].kind != PtxType::Bits || ts[2].bits != 32)))
    return false;
  need(eight ? 4 : 3);
  Mod m = eight ? (dt.kind == PtxType::Signed ? Mod::S8 : Mod::U8)
                : (dt.kind == PtxType::Signed ? Mod::S16 : Mod::U16);
  OOp c = eight ? src(3, ts[2]) : kRZ;
  emit(make(Opcode::I2IP, {m}, {reg(dst(0))}, {src(1, ts[1]), src(2, ts[1]), c}));
  return true;
}

// add/min/max on .u16x2/.s16x2 (min/max.relu.s16x2): each half on its own. (PTX has no
// sub on them.)
bool Lowering::packed16() {
  const std::string &op = pi.opcode;
  const bool isSigned = hasMod(pi, ".s16x2");
  const bool minmax = op == "min" || op == "max";
  if (op != "add" && !minmax)
    return false;
  onlyMods(pi, {".u16x2", ".s16x2", ".relu"});
  need(3);
  if (hasMod(pi, ".u16x2") == isSigned || pi.mods.size() != (hasMod(pi, ".relu") ? 2u : 1u))
    return false;
  if (hasMod(pi, ".relu") && !(minmax && isSigned))
    return false;
  PtxType b32{PtxType::Bits, 32};
  OOp a = src(1, b32), b = src(2, b32);
  ori::Reg d = dst(0);
  constexpr int64_t kHigh = 0x80008000, kLow = 0x7fff7fff;
  if (!minmax) {
    // Lane by lane without a carry between the halves (the signedness does not matter):
    // ((a & 0x7fff7fff) + (b & 0x7fff7fff)) ^ ((a ^ b) & 0x80008000).
    ori::Reg x = temp32(), y = temp32(), s = temp32(), e = temp32();
    emit(make(Opcode::LOP3, {Mod::LUT}, {reg(x)}, {a, imm(kLow), kRZ, imm(0xC0)}));
    emit(make(Opcode::LOP3, {Mod::LUT}, {reg(y)}, {b, imm(kLow), kRZ, imm(0xC0)}));
    emit(make(Opcode::IADD3, {}, {reg(s)}, {reg(x), reg(y), kRZ}));
    emit(make(Opcode::LOP3, {Mod::LUT}, {reg(e)}, {a, b, kRZ, imm(0x3C)}));
    emit(make(Opcode::LOP3, {Mod::LUT}, {reg(d)},
              {reg(s), reg(e), imm(kHigh), imm(0x78)})); // s ^ (e & H)
    return true;
  }
  // The halves extended to 32 bits, compared, (.relu: max with 0), packed again.
  Mod ty = isSigned ? Mod::S32 : Mod::U32;
  auto half = [&](OOp v, bool high) {
    ori::Reg r = temp32();
    if (v.kind == OOp::Kind::Imm) {
      uint64_t h = (uint64_t(v.imm) >> (high ? 16 : 0)) & 0xffff;
      int64_t x = isSigned ? int64_t(int16_t(h)) : int64_t(h);
      emit(make(Opcode::MOV, {}, {reg(r)}, {imm(int64_t(uint32_t(x)))}));
    } else if (high) {
      emit(make(Opcode::SHR, {ty}, {reg(r)}, {v, imm(16)}));
    } else if (isSigned) {
      emit(make(Opcode::SGXT, {}, {reg(r)}, {v, imm(16)}));
    } else {
      emit(make(Opcode::LOP3, {Mod::LUT}, {reg(r)}, {v, imm(0xffff), kRZ, imm(0xC0)}));
    }
    return reg(r);
  };
  OOp which = op == "min" ? kPT : kNotPT;
  ori::Reg parts[2];
  for (int h = 0; h < 2; ++h) {
    OOp x = half(a, h == 1), y = half(b, h == 1);
    parts[h] = temp32();
    emit(make(Opcode::IMNMX, {ty}, {reg(parts[h])}, {x, y, which}));
    if (hasMod(pi, ".relu")) {
      ori::Reg r = temp32();
      emit(make(Opcode::IMNMX, {Mod::S32}, {reg(r)}, {reg(parts[h]), imm(0), kNotPT}));
      parts[h] = r;
    }
  }
  emit(make(Opcode::PRMT, {}, {reg(d)}, {reg(parts[0]), imm(0x5410), reg(parts[1])}));
  return true;
}

// min.relu.s32 / max.relu.s32: the result, then max with 0.
bool Lowering::reluMinMax() {
  onlyMods(pi, {".relu"});
  need(3);
  PtxType t = lastType(pi);
  if (t.kind != PtxType::Signed || t.bits != 32 || types(pi).size() != 1)
    return false;
  ori::Reg r = temp32();
  emit(make(Opcode::IMNMX, {Mod::S32}, {reg(r)},
            {src(1, t), src(2, t), pi.opcode == "min" ? kPT : kNotPT}));
  emit(make(Opcode::IMNMX, {Mod::S32}, {reg(dst(0))}, {reg(r), imm(0), kNotPT}));
  return true;
}

// cnot.b16/.b32/.b64 d, a: 1 if a is 0, else 0 (PTX ISA 9.0, 9.7.8.4 "cnot").
bool Lowering::cnot() {
  onlyMods(pi, {});
  need(2);
  PtxType t = lastType(pi);
  if (t.kind != PtxType::Bits || (t.bits != 16 && t.bits != 32 && t.bits != 64))
    return false;
  OOp a = t.bits == 16 ? narrowSrc(1, t, false) : src(1, t);
  ori::Reg p = L.newTemp(ori::RegFile::P, "pred");
  emit(make(Opcode::ISETP, {Mod::EQ, t.bits == 64 ? Mod::U64 : Mod::U32, Mod::AND}, {reg(p), kPT},
            {a, imm(0), kPT}));
  if (t.bits == 16) {
    ori::Reg r = temp32();
    emit(make(Opcode::SEL, {}, {reg(r)}, {imm(1), imm(0), reg(p)}));
    narrowResult(dst(0), reg(r), t, true);
    return true;
  }
  emit(make(Opcode::SEL, {}, {reg(dst(0))}, {imm(1), imm(0), reg(p)}), t.bits == 64);
  return true;
}

} // namespace ori::ptx::lowering
