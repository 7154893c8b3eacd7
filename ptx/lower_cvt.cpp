// PTX -> Ori, one instruction: cvt, by the kinds of its two types (see
// lowering.h). Integer to integer: truncation, sign and zero extension;
// integer to float: I2F; float to integer: F2I (both with .f16/.bf16 too); between float
// formats: F2F, and FRND for the integer roundings (.rni .rzi .rmi .rpi) of a format to
// itself; the packing forms (.f16x2 .bf16x2 from two .f32, to and from .e4m3x2 .e5m2x2): F2FP;
// .tf32: F2F.TF32.
#include <fmt/format.h>

#include "ptx/lowering.h"

namespace ori::ptx::lowering {

bool Lowering::cvt() {
  for (const std::string &m : pi.mods)
    if (m == ".e4m3x2" || m == ".e5m2x2" || m == ".tf32")
      return cvtSmallFormats();
  std::vector<PtxType> ts = types(pi);
  if (ts.size() != 2)
    return false;
  PtxType dt = ts[0], st = ts[1];
  if (dt.kind == PtxType::Packed && st.kind == PtxType::Float && st.bits == 32)
    return cvtPackHalves(dt);
  need(2);
  if (dt.isInt() && st.isInt())
    return cvtIntInt(dt, st);
  if (dt.kind == PtxType::Float && st.isInt())
    return cvtIntFloat(dt, st);
  if (dt.isInt() && st.kind == PtxType::Float)
    return cvtFloatInt(dt, st);
  if (dt.kind == PtxType::Float && st.kind == PtxType::Float)
    return cvtFloatFloat(dt, st);
  return false;
}

// Integer to integer: the source read at its type (a wider register truncated,
// a narrow one extended by the source's signedness), clamped to the
// destination's range with .sat, then the low dt.bits placed in d as PTX has it
// (narrowResult: extended to d's width by the destination type's signedness).
bool Lowering::cvtIntInt(PtxType dt, PtxType st) {
  onlyMods(pi, {".sat"});
  if (dt.bits > 64 || st.bits > 64)
    return false;
  bool srcSigned = st.kind == PtxType::Signed, dstSigned = dt.kind == PtxType::Signed;
  bool wide = st.bits == 64;
  OOp v = st.bits < 32 ? narrowSrc(1, st, srcSigned, true) : srcReg(1, st);
  if (hasMod(pi, ".sat")) {
    // The ranges as mathematical integers; a bound is applied where the source can pass it.
    __extension__ typedef __int128 I128;
    auto lo = [](PtxType t) {
      return t.kind == PtxType::Signed ? -(I128(1) << (t.bits - 1)) : I128(0);
    };
    auto hi = [](PtxType t) {
      return t.kind == PtxType::Signed ? (I128(1) << (t.bits - 1)) - 1 : (I128(1) << t.bits) - 1;
    };
    // Compare as the source is read: 32 bits unless it is 64-bit.
    PtxType cmpType{st.kind == PtxType::Signed ? PtxType::Signed : PtxType::Unsigned,
                    wide ? 64u : 32u};
    auto clamp = [&](I128 bound, bool takeMin) {
      ori::Reg r = L.newTemp(ori::RegFile::R, wide ? "b64" : "b32");
      emit(make(Opcode::IMNMX, {intTypeMod(cmpType)}, {reg(r)},
                {v, imm(int64_t(bound)), takeMin ? kPT : kNotPT}));
      v = reg(r);
    };
    if (lo(dt) > lo(st))
      clamp(lo(dt), false);
    if (hi(dt) < hi(st))
      clamp(hi(dt), true);
  }
  ori::Reg d = dst(0);
  if (dt.bits == 64) {
    if (wide)
      emit(make(Opcode::MOV, {}, {reg(d)}, {v}), true);
    else { // 32 -> 64: extended by the source's signedness
      ori::Instr in = make(Opcode::IMAD, {Mod::WIDE}, {reg(d)}, {v, imm(1), kRZ});
      if (!srcSigned)
        in.mods.set(Mod::U32);
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

// Integer to float: I2F, rounded as .rn .rz .rm .rp say (to .f16/.bf16 too, zero-extended);
// .sat clamps the result to [0, 1] (F2F.SAT of the format to itself: exact).
bool Lowering::cvtIntFloat(PtxType dt, PtxType st) {
  ori::Reg d = dst(0);
  onlyMods(pi, {".rn", ".rz", ".rm", ".rp", ".sat"});
  if ((dt.bits != 16 && dt.bits != 32 && dt.bits != 64) || st.bits > 64)
    return false;
  bool sat = hasMod(pi, ".sat");
  if (sat && dt.bfloat)
    return false; // ptxas rejects .sat on .bf16
  Mod to = dt.bits == 64 ? Mod::F64 : dt.bits == 32 ? Mod::F32 : dt.bfloat ? Mod::BF16 : Mod::F16;
  ori::Reg r = sat ? L.newTemp(ori::RegFile::R, dt.bits == 64   ? "f64"
                                                : dt.bits == 32 ? "f32"
                                                                : "b16")
                   : d;
  ori::Instr in = make(Opcode::I2F, {to}, {reg(r)}, {srcReg(1, st)});
  in.mods.set(st.kind == PtxType::Signed ? (st.bits == 64   ? Mod::S64
                                            : st.bits == 16 ? Mod::S16
                                            : st.bits == 8  ? Mod::S8
                                                            : Mod::S32)
                                         : (st.bits == 64   ? Mod::U64
                                            : st.bits == 16 ? Mod::U16
                                            : st.bits == 8  ? Mod::U8
                                                            : Mod::U32));
  for (auto [text, m] :
       {std::pair{".rz", Mod::RZ}, std::pair{".rm", Mod::RM}, std::pair{".rp", Mod::RP}})
    if (hasMod(pi, text))
      in.mods.set(m);
  emit(std::move(in));
  if (sat) {
    Mod from = to == Mod::F64 ? Mod::SRC_F64 : to == Mod::F32 ? Mod::SRC_F32 : Mod::SRC_F16;
    emit(make(Opcode::F2F, {to, from, Mod::SAT}, {reg(d)}, {reg(r)}));
  }
  return true;
}

bool Lowering::cvtFloatInt(PtxType dt, PtxType st) {
  ori::Reg d = dst(0);
  // Float-to-integer conversions saturate in PTX with or without .sat.
  onlyMods(pi, {".rni", ".rzi", ".rmi", ".rpi", ".ftz", ".sat"});
  if ((st.bits != 16 && st.bits != 32 && st.bits != 64) || dt.bits > 64)
    return false;
  if (hasMod(pi, ".ftz") && st.bits != 32)
    return false;
  if (!hasMod(pi, ".rni") && !hasMod(pi, ".rzi") && !hasMod(pi, ".rmi") && !hasMod(pi, ".rpi"))
    return false;
  bool isSigned = dt.kind == PtxType::Signed;
  Mod type = dt.bits == 8    ? (isSigned ? Mod::S8 : Mod::U8)
             : dt.bits == 16 ? (isSigned ? Mod::S16 : Mod::U16)
                             : intTypeMod(dt);
  // An 8/16-bit result saturates to its type's range; F2I extends it to 32 bits by its
  // signedness, and narrowResult keeps the low bits as the destination register holds them.
  bool narrow = dt.bits < 32;
  ori::Reg r = narrow ? temp32() : d;
  Mod from = st.bits == 64 ? Mod::F64 : st.bits == 32 ? Mod::F32 : st.bfloat ? Mod::BF16 : Mod::F16;
  ori::Instr in = make(Opcode::F2I, {from, type}, {reg(r)}, {srcReg(1, st)});
  if (hasMod(pi, ".rzi"))
    in.mods.set(Mod::TRUNC);
  if (hasMod(pi, ".rmi"))
    in.mods.set(Mod::FLOOR);
  if (hasMod(pi, ".rpi"))
    in.mods.set(Mod::CEIL);
  if (hasMod(pi, ".ftz"))
    in.mods.set(Mod::FTZ);
  emit(std::move(in));
  if (narrow)
    narrowResult(d, reg(r), dt, !isSigned);
  return true;
}

namespace {
Mod formatMod(PtxType t, bool source) {
  if (t.bits == 16)
    return t.bfloat ? (source ? Mod::SRC_BF16 : Mod::BF16) : (source ? Mod::SRC_F16 : Mod::F16);
  if (t.bits == 32)
    return source ? Mod::SRC_F32 : Mod::F32;
  return source ? Mod::SRC_F64 : Mod::F64;
}
} // namespace

// cvt.{rn,rz}{.relu}{.satfinite}.f16x2.f32 d, a, b (and .bf16x2): a converted into the upper
// half of d, b into the lower (ISA 9.7.9.21): F2FP.F16/.BF16.SRC_F32.
bool Lowering::cvtPackHalves(PtxType dt) {
  onlyMods(pi, {".rn", ".rz", ".relu", ".satfinite"});
  need(3);
  if (hasMod(pi, ".rn") == hasMod(pi, ".rz"))
    return false; // PTX requires one of them
  PtxType f32{PtxType::Float, 32};
  ori::Instr in = make(Opcode::F2FP, {dt.bfloat ? Mod::BF16 : Mod::F16, Mod::SRC_F32},
                       {reg(dst(0))}, {srcReg(1, f32), srcReg(2, f32)});
  for (auto [text, m] : {std::pair{".rz", Mod::RZ}, std::pair{".relu", Mod::RELU},
                         std::pair{".satfinite", Mod::SATFINITE}})
    if (hasMod(pi, text))
      in.mods.set(m);
  emit(std::move(in));
  return true;
}

// The 8-bit formats and tf32 (ISA 9.7.9.21, the PTX ISA's "Alternate Floating Point Data
// Formats"): cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b and .f16x2 d, a; cvt.rn{.relu}
// .f16x2.{e4m3x2,e5m2x2} d, a: F2FP. cvt.rna{.satfinite}.tf32.f32, cvt.{rn,rz}{.relu}
// {.satfinite}.tf32.f32: F2F.TF32.
bool Lowering::cvtSmallFormats() {
  onlyMods(pi, {".rn", ".rz", ".rna", ".relu", ".satfinite", ".e4m3x2", ".e5m2x2", ".tf32"});
  auto type = [&](size_t i) -> std::string {
    size_t k = 0;
    for (const std::string &m : pi.mods)
      if (m == ".e4m3x2" || m == ".e5m2x2" || m == ".tf32" || parseType(m).kind != PtxType::None)
        if (k++ == i)
          return m;
    return "";
  };
  std::string d = type(0), s = type(1);
  if (!type(2).empty())
    return false;
  bool relu = hasMod(pi, ".relu"), satfinite = hasMod(pi, ".satfinite");
  auto eight = [](const std::string &t) -> std::optional<Mod> {
    if (t == ".e4m3x2")
      return Mod::E4M3;
    if (t == ".e5m2x2")
      return Mod::E5M2;
    return std::nullopt;
  };
  if (d == ".tf32") {
    need(2);
    if (s != ".f32")
      return false;
    std::optional<Mod> rnd = hasMod(pi, ".rna")  ? Mod::RNA
                             : hasMod(pi, ".rn") ? Mod::RN
                             : hasMod(pi, ".rz") ? Mod::RZ
                                                 : std::optional<Mod>{};
    if (!rnd || (*rnd == Mod::RNA && relu))
      return false;
    ori::Instr in = make(Opcode::F2F, {Mod::TF32, Mod::SRC_F32}, {reg(dst(0))},
                         {srcReg(1, PtxType{PtxType::Float, 32})});
    if (*rnd != Mod::RN)
      in.mods.set(*rnd);
    if (relu)
      in.mods.set(Mod::RELU);
    if (satfinite)
      in.mods.set(Mod::SATFINITE);
    emit(std::move(in));
    return true;
  }
  if (!hasMod(pi, ".rn") || hasMod(pi, ".rz") || hasMod(pi, ".rna"))
    return false;
  if (std::optional<Mod> to = eight(d)) { // to E4M3/E5M2: .satfinite is required
    if (!satfinite)
      return false;
    ori::Instr in;
    if (s == ".f32") {
      need(3);
      PtxType f32{PtxType::Float, 32};
      in = make(Opcode::F2FP, {*to, Mod::SRC_F32, Mod::SATFINITE}, {reg(dst(0))},
                {srcReg(1, f32), srcReg(2, f32)});
    } else if (s == ".f16x2") {
      need(2);
      in = make(Opcode::F2FP, {*to, Mod::SRC_F16, Mod::SATFINITE}, {reg(dst(0))},
                {srcReg(1, PtxType{PtxType::Bits, 32})});
    } else {
      return false;
    }
    if (relu)
      in.mods.set(Mod::RELU);
    emit(std::move(in));
    return true;
  }
  std::optional<Mod> from = eight(s);
  if (!from || d != ".f16x2" || satfinite)
    return false;
  need(2);
  ori::Instr in = make(Opcode::F2FP, {Mod::F16, *from == Mod::E4M3 ? Mod::SRC_E4M3 : Mod::SRC_E5M2},
                       {reg(dst(0))}, {srcReg(1, PtxType{PtxType::Bits, 16})});
  if (relu)
    in.mods.set(Mod::RELU);
  emit(std::move(in));
  return true;
}

// mov.b16 d, {a, b} of two 8-bit parts (nvcc's inline PTX in cuda_fp16.hpp: mov.b16 %rs1,
// {myreg, 0}): d = a | b << 8. The parts are zero-extended 8-bit values (an immediate is
// masked), so PRMT takes byte 0 of each and a zero byte of a above them.
bool Lowering::packBytes() {
  const std::vector<Operand> &e = ops[1].elems;
  PtxType b8{PtxType::Bits, 8};
  auto part = [&](const Operand &o) {
    if (o.kind == Operand::Kind::Int) {
      ori::Reg t = temp32();
      emit(make(Opcode::MOV, {}, {reg(t)}, {imm(o.ival & 0xff)}));
      return reg(t);
    }
    if (o.kind != Operand::Kind::Name)
      throw NotNative{};
    return L.source(o, b8, ori::K_REG);
  };
  OOp a = part(e[0]), b = part(e[1]);
  emit(make(Opcode::PRMT, {}, {reg(dst(0))},
            {a, imm(0x1140), b})); // bytes: a.0, b.0, a.1 (0), a.1 (0)
  return true;
}

// Between .f16 .bf16 .f32 .f64: F2F (.rn .rz .rm .rp; .ftz on a .f32 side; .sat clamps to
// [0, 1]); the integer roundings of .f32/.f64 to themselves: FRND. A conversion of a
// format to itself without them is a copy.
bool Lowering::cvtFloatFloat(PtxType dt, PtxType st) {
  onlyMods(pi, {".rn", ".rz", ".rm", ".rp", ".rni", ".rzi", ".rmi", ".rpi", ".ftz", ".sat", ".relu",
                ".satfinite"});
  bool relu = hasMod(pi, ".relu"), satfinite = hasMod(pi, ".satfinite");
  // .relu and .satfinite: cvt.{rn,rz}{.relu}{.satfinite}.{f16,bf16}.f32 only (ISA 9.7.9.21).
  if ((relu || satfinite) && (dt.bits != 16 || st.bits != 32 || st.bfloat || hasMod(pi, ".sat")))
    return false;
  auto ok = [](PtxType t) { return t.bits == 16 || t.bits == 32 || (t.bits == 64 && !t.bfloat); };
  if (!ok(dt) || !ok(st))
    return false;
  bool same = dt.bits == st.bits && dt.bfloat == st.bfloat;
  bool ftz = hasMod(pi, ".ftz"), sat = hasMod(pi, ".sat");
  ori::Reg d = dst(0);
  OOp a = srcReg(1, st);
  std::optional<Mod> irnd;
  for (auto [text, m] : {std::pair{".rni", Mod::RN}, std::pair{".rzi", Mod::TRUNC},
                         std::pair{".rmi", Mod::FLOOR}, std::pair{".rpi", Mod::CEIL}})
    if (hasMod(pi, text))
      irnd = m;
  if (irnd) {
    if (!same || (ftz && st.bits != 32) || (sat && st.bits == 16))
      return false;
    ori::Reg r = sat ? L.newTemp(ori::RegFile::R, st.bits == 64 ? "f64" : "f32") : d;
    ori::Instr in = make(Opcode::FRND, {}, {reg(r)}, {a});
    if (*irnd != Mod::RN)
      in.mods.set(*irnd);
    if (st.bits == 64)
      in.mods.set(Mod::F64);
    if (st.bits == 16)
      in.mods.set(st.bfloat ? Mod::BF16 : Mod::F16);
    if (ftz)
      in.mods.set(Mod::FTZ);
    emit(std::move(in));
    if (!sat)
      return true;
    a = reg(r);
    ftz = false;
  }
  if (same && !ftz && !sat) {
    emit(make(Opcode::MOV, {}, {reg(d)}, {a}), st.bits == 64);
    return true;
  }
  ori::Instr in = make(Opcode::F2F, {formatMod(dt, false), formatMod(st, true)}, {reg(d)}, {a});
  if (!irnd)
    for (auto [text, m] :
         {std::pair{".rz", Mod::RZ}, std::pair{".rm", Mod::RM}, std::pair{".rp", Mod::RP}})
      if (hasMod(pi, text))
        in.mods.set(m);
  if (ftz)
    in.mods.set(Mod::FTZ);
  if (sat)
    in.mods.set(Mod::SAT);
  if (relu)
    in.mods.set(Mod::RELU);
  if (satfinite)
    in.mods.set(Mod::SATFINITE);
  emit(std::move(in));
  return true;
}

} // namespace ori::ptx::lowering
