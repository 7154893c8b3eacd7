// PTX -> Ori, one instruction: cvt, by the kinds of its two types (see
// lowering.h). Integer to integer: truncation, sign and zero extension;
// integer to float: I2F; float to integer: F2I; between float formats: F2F, and FRND for the
// integer roundings (.rni .rzi .rmi .rpi) of a format to itself.
#include <fmt/format.h>

#include "ptx/lowering.h"

namespace ori::ptx::lowering {

bool Lowering::cvt() {
  std::vector<PtxType> ts = types(pi);
  if (ts.size() != 2) return false;
  PtxType dt = ts[0], st = ts[1];
  if (dt.kind == PtxType::Packed && st.kind == PtxType::Float && st.bits == 32) return cvtPackHalves(dt);
  need(2);
  if (dt.isInt() && st.isInt()) return cvtIntInt(dt, st);
  if (dt.kind == PtxType::Float && st.isInt()) return cvtIntFloat(dt, st);
  if (dt.isInt() && st.kind == PtxType::Float) return cvtFloatInt(dt, st);
  if (dt.kind == PtxType::Float && st.kind == PtxType::Float) return cvtFloatFloat(dt, st);
  return false;
}

// Integer to integer: the source read at its type (a wider register truncated,
// a narrow one extended by the source's signedness), clamped to the
// destination's range with .sat, then the low dt.bits placed in d as PTX has it
// (narrowResult: extended to d's width by the destination type's signedness).
bool Lowering::cvtIntInt(PtxType dt, PtxType st) {
  onlyMods(pi, {".sat"});
  if (dt.bits > 64 || st.bits > 64) return false;
  bool srcSigned = st.kind == PtxType::Signed, dstSigned = dt.kind == PtxType::Signed;
  bool wide = st.bits == 64;
  OOp v = st.bits < 32 ? narrowSrc(1, st, srcSigned, true) : srcReg(1, st);
  if (hasMod(pi, ".sat")) {
    // The ranges as mathematical integers; a bound is applied where the source can pass it.
    __extension__ typedef __int128 I128;
    auto lo = [](PtxType t) { return t.kind == PtxType::Signed ? -(I128(1) << (t.bits - 1)) : I128(0); };
    auto hi = [](PtxType t) { return t.kind == PtxType::Signed ? (I128(1) << (t.bits - 1)) - 1 : (I128(1) << t.bits) - 1; };
    // Compare as the source is read: 32 bits unless it is 64-bit.
    PtxType cmpType{st.kind == PtxType::Signed ? PtxType::Signed : PtxType::Unsigned, wide ? 64u : 32u};
    auto clamp = [&](I128 bound, bool takeMin) {
      ori::Reg r = L.newTemp(ori::RegFile::R, wide ? "b64" : "b32");
      emit(make(Opcode::IMNMX, {intTypeMod(cmpType)}, {reg(r)}, {v, imm(int64_t(bound)), takeMin ? kPT : kNotPT}));
      v = reg(r);
    };
    if (lo(dt) > lo(st)) clamp(lo(dt), false);
    if (hi(dt) < hi(st)) clamp(hi(dt), true);
  }
  ori::Reg d = dst(0);
  if (dt.bits == 64) {
    if (wide) emit(make(Opcode::MOV, {}, {reg(d)}, {v}), true);
    else { // 32 -> 64: extended by the source's signedness
      ori::Instr in = make(Opcode::IMAD, {Mod::WIDE}, {reg(d)}, {v, imm(1), kRZ});
      if (!srcSigned) in.mods.set(Mod::U32);
      emit(std::move(in));
    }
    return true;
  }
  // A 32-bit result (wider registers: extended by the destination's signedness).
  if (dt.bits == 32 && L.regBits(d) == 32) {
    emit(make(Opcode::MOV, {}, {reg(d)}, {v}));
    return true;
  }
  // Clean: a zero-extended narrow source no wider than the destination type.
  bool clean = st.bits <= dt.bits && !srcSigned && !dstSigned;
  narrowResult(d, v, dt, clean);
  return true;
}

bool Lowering::cvtIntFloat(PtxType dt, PtxType st) {
  ori::Reg d = dst(0);
  onlyMods(pi, {".rn", ".rz", ".rm", ".rp"});
  if ((dt.bits != 32 && dt.bits != 64) || st.bits > 64) return false;
  ori::Instr in = make(Opcode::I2F, {dt.bits == 64 ? Mod::F64 : Mod::F32}, {reg(d)}, {srcReg(1, st)});
  in.mods.set(st.kind == PtxType::Signed ? (st.bits == 64 ? Mod::S64 : st.bits == 16 ? Mod::S16 : st.bits == 8 ? Mod::S8 : Mod::S32)
                                         : (st.bits == 64 ? Mod::U64 : st.bits == 16 ? Mod::U16 : st.bits == 8 ? Mod::U8 : Mod::U32));
  for (auto [text, m] : {std::pair{".rz", Mod::RZ}, std::pair{".rm", Mod::RM}, std::pair{".rp", Mod::RP}})
    if (hasMod(pi, text)) in.mods.set(m);
  emit(std::move(in));
  return true;
}

bool Lowering::cvtFloatInt(PtxType dt, PtxType st) {
  ori::Reg d = dst(0);
  // Float-to-integer conversions saturate in PTX with or without .sat.
  onlyMods(pi, {".rni", ".rzi", ".rmi", ".rpi", ".ftz", ".sat"});
  if ((st.bits != 32 && st.bits != 64) || dt.bits > 64) return false;
  if (hasMod(pi, ".ftz") && st.bits != 32) return false;
  if (!hasMod(pi, ".rni") && !hasMod(pi, ".rzi") && !hasMod(pi, ".rmi") && !hasMod(pi, ".rpi")) return false;
  bool isSigned = dt.kind == PtxType::Signed;
  Mod type = dt.bits == 8 ? (isSigned ? Mod::S8 : Mod::U8) : dt.bits == 16 ? (isSigned ? Mod::S16 : Mod::U16)
                                                                           : intTypeMod(dt);
  // An 8/16-bit result saturates to its type's range; F2I extends it to 32 bits by its
  // signedness, and narrowResult keeps the low bits as the destination register holds them.
  bool narrow = dt.bits < 32;
  ori::Reg r = narrow ? temp32() : d;
  ori::Instr in = make(Opcode::F2I, {st.bits == 64 ? Mod::F64 : Mod::F32, type}, {reg(r)}, {srcReg(1, st)});
  if (hasMod(pi, ".rzi")) in.mods.set(Mod::TRUNC);
  if (hasMod(pi, ".rmi")) in.mods.set(Mod::FLOOR);
  if (hasMod(pi, ".rpi")) in.mods.set(Mod::CEIL);
  if (hasMod(pi, ".ftz")) in.mods.set(Mod::FTZ);
  emit(std::move(in));
  if (narrow) narrowResult(d, reg(r), dt, !isSigned);
  return true;
}

namespace {
Mod formatMod(PtxType t, bool source) {
  if (t.bits == 16) return t.bfloat ? (source ? Mod::SRC_BF16 : Mod::BF16) : (source ? Mod::SRC_F16 : Mod::F16);
  if (t.bits == 32) return source ? Mod::SRC_F32 : Mod::F32;
  return source ? Mod::SRC_F64 : Mod::F64;
}
} // namespace

// cvt.rn{.relu}.f16x2.f32 d, a, b (and .bf16x2): a converted into the upper half of d, b into
// the lower (PTX ISA), each by F2F, then packed by PRMT as mov.b32 {lo, hi} is.
bool Lowering::cvtPackHalves(PtxType dt) {
  onlyMods(pi, {".rn", ".rz", ".satfinite"});
  need(3);
  if (hasMod(pi, ".satfinite")) return false; // clamps to the largest finite value: not modelled
  PtxType f32{PtxType::Float, 32};
  Mod to = dt.bfloat ? Mod::BF16 : Mod::F16;
  auto half = [&](size_t i) {
    ori::Reg h = temp32();
    ori::Instr in = make(Opcode::F2F, {to, Mod::SRC_F32}, {reg(h)}, {srcReg(i, f32)});
    if (hasMod(pi, ".rz")) in.mods.set(Mod::RZ);
    emit(std::move(in));
    return reg(h);
  };
  OOp hi = half(1), lo = half(2);
  emit(make(Opcode::PRMT, {}, {reg(dst(0))}, {lo, imm(0x5410), hi}));
  return true;
}

// Between .f16 .bf16 .f32 .f64: F2F (.rn .rz .rm .rp; .ftz on a .f32 side; .sat clamps to
// [0, 1]); the integer roundings of .f32/.f64 to themselves: FRND. A conversion of a
// format to itself without them is a copy.
bool Lowering::cvtFloatFloat(PtxType dt, PtxType st) {
  onlyMods(pi, {".rn", ".rz", ".rm", ".rp", ".rni", ".rzi", ".rmi", ".rpi", ".ftz", ".sat"});
  auto ok = [](PtxType t) { return t.bits == 16 || t.bits == 32 || (t.bits == 64 && !t.bfloat); };
  if (!ok(dt) || !ok(st)) return false;
  bool same = dt.bits == st.bits && dt.bfloat == st.bfloat;
  bool ftz = hasMod(pi, ".ftz"), sat = hasMod(pi, ".sat");
  ori::Reg d = dst(0);
  OOp a = srcReg(1, st);
  std::optional<Mod> irnd;
  for (auto [text, m] : {std::pair{".rni", Mod::RN}, std::pair{".rzi", Mod::TRUNC}, std::pair{".rmi", Mod::FLOOR},
                         std::pair{".rpi", Mod::CEIL}})
    if (hasMod(pi, text)) irnd = m;
  if (irnd) {
    if (!same || st.bits == 16 || (ftz && st.bits != 32)) return false;
    ori::Reg r = sat ? L.newTemp(ori::RegFile::R, st.bits == 64 ? "f64" : "f32") : d;
    ori::Instr in = make(Opcode::FRND, {}, {reg(r)}, {a});
    if (*irnd != Mod::RN) in.mods.set(*irnd);
    if (st.bits == 64) in.mods.set(Mod::F64);
    if (ftz) in.mods.set(Mod::FTZ);
    emit(std::move(in));
    if (!sat) return true;
    a = reg(r);
    ftz = false;
  }
  if (same && !ftz && !sat) {
    emit(make(Opcode::MOV, {}, {reg(d)}, {a}), st.bits == 64);
    return true;
  }
  ori::Instr in = make(Opcode::F2F, {formatMod(dt, false), formatMod(st, true)}, {reg(d)}, {a});
  if (!irnd)
    for (auto [text, m] : {std::pair{".rz", Mod::RZ}, std::pair{".rm", Mod::RM}, std::pair{".rp", Mod::RP}})
      if (hasMod(pi, text)) in.mods.set(m);
  if (ftz) in.mods.set(Mod::FTZ);
  if (sat) in.mods.set(Mod::SAT);
  emit(std::move(in));
  return true;
}

} // namespace ori::ptx::lowering
