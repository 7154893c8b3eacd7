// PTX -> Ori, one instruction: floating-point arithmetic (see lowering.h).
// add/sub/mul/fma/mad, min/max, neg/abs, copysign on .f32/.f64; div, rcp, sqrt and rsqrt
// (IEEE forms as the pseudo-instructions FDIV/FSQRT, .approx as MUFU, the binary64
// approximations as MUFU.RCP64H/RSQ64H/RSQ.F64); add/sub/mul/fma on .f16x2/.bf16x2 as
// HADD2/HMUL2/HFMA2 (the other half-precision forms: lower_half.cpp).
#include <fmt/format.h>

#include "ptx/lowering.h"

namespace ori::ptx::lowering {

bool Lowering::fma() {
  PtxType t = lastType(pi);
  onlyMods(pi, {".rn", ".rz", ".rm", ".rp", ".ftz", ".sat"});
  need(4);
  if (t.kind != PtxType::Float || (t.bits != 32 && t.bits != 64))
    return false;
  if (t.bits == 64 && (hasMod(pi, ".ftz") || hasMod(pi, ".sat")))
    return false;
  uint16_t k = ori::K_REG | ori::K_FIMM;
  ori::Instr in = make(t.bits == 32 ? Opcode::FFMA : Opcode::DFMA, {}, {reg(dst(0))},
                       {src(1, t, k), src(2, t, k), src(3, t, k)});
  floatMods(in);
  emit(std::move(in));
  return true;
}

bool Lowering::floatAddSub() {
  PtxType t = lastType(pi);
  bool sub = pi.opcode == "sub";
  onlyMods(pi, {".rn", ".rz", ".rm", ".rp", ".ftz", ".sat"});
  need(3);
  if (t.bits != 32 && t.bits != 64)
    return false;
  if (t.bits == 64 && (hasMod(pi, ".ftz") || hasMod(pi, ".sat")))
    return false;
  OOp b = src(2, t, ori::K_REG | ori::K_FIMM);
  if (sub) {
    if (b.kind == OOp::Kind::FImm)
      b.fimm = -b.fimm;
    else
      b.neg = !b.neg;
  }
  ori::Instr in = make(t.bits == 32 ? Opcode::FADD : Opcode::DADD, {}, {reg(dst(0))},
                       {src(1, t, ori::K_REG | ori::K_FIMM), b});
  floatMods(in);
  emit(std::move(in));
  return true;
}

bool Lowering::floatMulMad() {
  PtxType t = lastType(pi);
  // mad.f32 without a rounding modifier (PTX ISA < 3.1, .target sm_20 and up) is fma.rn.f32:
  // ptxas 13.0 makes byte-identical SASS of the two (docs/ptx.md).
  if (pi.opcode == "mad")
    return fma();
  onlyMods(pi, {".rn", ".rz", ".rm", ".rp", ".ftz", ".sat"});
  need(3);
  if (t.bits != 32 && t.bits != 64)
    return false;
  if (t.bits == 64 && (hasMod(pi, ".ftz") || hasMod(pi, ".sat")))
    return false;
  ori::Instr in = make(t.bits == 32 ? Opcode::FMUL : Opcode::DMUL, {}, {reg(dst(0))},
                       {src(1, t, ori::K_REG | ori::K_FIMM), src(2, t, ori::K_REG | ori::K_FIMM)});
  floatMods(in);
  emit(std::move(in));
  return true;
}

// min/max{.ftz}{.NaN}{.xorsign.abs}.f32 (ISA 9.7.3.10/11): FMNMX (.NAN, .XORSIGN); .f64: DMNMX.
bool Lowering::floatMinMax() {
  PtxType t = lastType(pi);
  need(3);
  OOp which = pi.opcode == "min" ? kPT : kNotPT;
  onlyMods(pi, {".ftz", ".NaN", ".xorsign", ".abs"});
  bool nan = hasMod(pi, ".NaN"), xorsign = hasMod(pi, ".xorsign");
  if (xorsign != hasMod(pi, ".abs"))
    return false;
  if (t.bits == 64 && !hasMod(pi, ".ftz") && !nan && !xorsign) {
    emit(make(Opcode::DMNMX, {}, {reg(dst(0))},
              {src(1, t, ori::K_REG | ori::K_FIMM), src(2, t, ori::K_REG | ori::K_FIMM), which}));
    return true;
  }
  if (t.bits != 32)
    return false;
  ori::Instr in =
      make(Opcode::FMNMX, {}, {reg(dst(0))},
           {src(1, t, ori::K_REG | ori::K_FIMM), src(2, t, ori::K_REG | ori::K_FIMM), which});
  floatMods(in);
  if (nan)
    in.mods.set(Mod::NANMM);
  if (xorsign)
    in.mods.set(Mod::XORSIGN);
  emit(std::move(in));
  return true;
}

bool Lowering::floatNegAbs() {
  PtxType t = lastType(pi);
  need(2);
  bool neg = pi.opcode == "neg";
  onlyMods(pi, {".ftz"});
  if (t.bits != 32 && t.bits != 64)
    return false;
  ori::Reg d = dst(0);
  OOp a = srcReg(1, t);
  if (hasMod(pi, ".ftz")) {
    if (t.bits != 32)
      return false;
    // -a + -0 and |a| + -0 are exact, and FTZ flushes a denormal input.
    a.neg = neg;
    a.abs = !neg;
    emit(make(Opcode::FADD, {Mod::FTZ}, {reg(d)}, {a, OOp::floatImm(-0.0)}));
    return true;
  }
  // Without .ftz they only touch the sign bit.
  int64_t sign = t.bits == 32 ? 0x80000000ll : INT64_MIN;
  int64_t mask = t.bits == 32 ? 0x7FFFFFFFll : INT64_MAX;
  emit(make(Opcode::LOP3, {Mod::LUT}, {reg(d)},
            {a, imm(neg ? sign : mask), kRZ, imm(neg ? 0x3C : 0xC0)}),
       t.bits == 64);
  return true;
}

namespace {
std::optional<Mod> roundingMod(const Instruction &pi) {
  for (auto [text, m] : {std::pair{".rn", Mod::RN}, std::pair{".rz", Mod::RZ},
                         std::pair{".rm", Mod::RM}, std::pair{".rp", Mod::RP}})
    if (hasMod(pi, text))
      return m;
  return std::nullopt;
}
} // namespace

// div.{rn,rz,rm,rp}{.ftz}.f32 and .f64: FDIV, IEEE division (a pseudo-instruction: ptxas
// calls a subroutine of MUFU.RCP and FFMA refinements). div.approx{.ftz}.f32 and div.full:
// MUFU.RCP then FMUL, as SASS computes them (docs/interpreter.md gives MUFU.RCP its result).
bool Lowering::floatDiv() {
  PtxType t = lastType(pi);
  onlyMods(pi, {".rn", ".rz", ".rm", ".rp", ".ftz", ".approx", ".full"});
  need(3);
  bool ftz = hasMod(pi, ".ftz");
  uint16_t k = ori::K_REG | ori::K_FIMM;
  if (hasMod(pi, ".approx") || hasMod(pi, ".full")) {
    if (t.bits != 32)
      return false;
    ori::Reg r = L.newTemp(ori::RegFile::R, "f32");
    ori::Instr rcp = make(Opcode::MUFU, {Mod::RCP}, {reg(r)}, {srcReg(2, t)});
    ori::Instr mul = make(Opcode::FMUL, {}, {reg(dst(0))}, {src(1, t, k), reg(r)});
    if (ftz) {
      rcp.mods.set(Mod::FTZ);
      mul.mods.set(Mod::FTZ);
    }
    emit(std::move(rcp));
    emit(std::move(mul));
    return true;
  }
  std::optional<Mod> rnd = roundingMod(pi);
  if (!rnd || (t.bits != 32 && t.bits != 64) || (t.bits == 64 && ftz))
    return false;
  ori::Instr in = make(Opcode::FDIV, {*rnd}, {reg(dst(0))}, {src(1, t, k), src(2, t, k)});
  if (t.bits == 64)
    in.mods.set(Mod::F64);
  if (ftz)
    in.mods.set(Mod::FTZ);
  emit(std::move(in));
  return true;
}

// rcp, sqrt, rsqrt, ex2, lg2, sin, cos: .approx{.ftz}.f32 as MUFU (RCP, SQRT, RSQ, EX2, LG2,
// SIN, COS); rcp and sqrt .rn .rz .rm .rp on .f32/.f64 as FDIV (1/a) and FSQRT. ptxas scales
// a sin/cos argument by 1/(2 pi) first (FMUL.RZ before MUFU.SIN); here MUFU.SIN takes radians,
// so the source lowers unchanged.
bool Lowering::floatUnary() {
  PtxType t = lastType(pi);
  onlyMods(pi, {".rn", ".rz", ".rm", ".rp", ".ftz", ".approx"});
  need(2);
  bool ftz = hasMod(pi, ".ftz");
  const std::string &op = pi.opcode;
  if (hasMod(pi, ".approx")) {
    if (t.bits == 64 && t.kind == PtxType::Float) {
      // rcp.approx.ftz.f64, rsqrt.approx.ftz.f64 (ISA 9.7.3.14/17): MUFU.RCP64H/RSQ64H on the
      // high word; rsqrt.approx.f64 (9.7.3.16): MUFU.RSQ.F64.
      if (op == "rcp" && ftz)
        emit(make(Opcode::MUFU, {Mod::RCP64H}, {reg(dst(0))}, {srcReg(1, t)}));
      else if (op == "rsqrt")
        emit(make(Opcode::MUFU, {ftz ? Mod::RSQ64H : Mod::RSQ}, {reg(dst(0))}, {srcReg(1, t)}));
      else
        return false;
      if (!ftz)
        L.lastPendingMods().set(Mod::F64);
      return true;
    }
    if (t.bits != 32 || t.kind != PtxType::Float)
      return false;
    Mod fn = op == "rcp"     ? Mod::RCP
             : op == "sqrt"  ? Mod::SQRT
             : op == "rsqrt" ? Mod::RSQ
             : op == "ex2"   ? Mod::EX2
             : op == "lg2"   ? Mod::LG2
             : op == "sin"   ? Mod::SIN
                             : Mod::COS;
    ori::Instr in = make(Opcode::MUFU, {fn}, {reg(dst(0))}, {srcReg(1, t)});
    if (ftz)
      in.mods.set(Mod::FTZ);
    emit(std::move(in));
    return true;
  }
  std::optional<Mod> rnd = roundingMod(pi);
  if (!rnd || (op != "rcp" && op != "sqrt") || (t.bits != 32 && t.bits != 64) ||
      (t.bits == 64 && ftz))
    return false;
  ori::Instr in =
      op == "rcp" ? make(Opcode::FDIV, {*rnd}, {reg(dst(0))}, {OOp::floatImm(1.0), srcReg(1, t)})
                  : make(Opcode::FSQRT, {*rnd}, {reg(dst(0))}, {srcReg(1, t)});
  if (t.bits == 64)
    in.mods.set(Mod::F64);
  if (ftz)
    in.mods.set(Mod::FTZ);
  emit(std::move(in));
  return true;
}

// copysign.f32 d, a, b: b's magnitude with a's sign, one LOP3 (d = (a & sign) | (b & ~sign));
// a literal operand is its bit pattern.
bool Lowering::copysign() {
  PtxType t = lastType(pi);
  onlyMods(pi, {});
  need(3);
  if (t.kind != PtxType::Float || t.bfloat || (t.bits != 32 && t.bits != 64))
    return false;
  int64_t sign = t.bits == 32 ? 0x80000000ll : INT64_MIN;
  // LUT over (a, b, c = sign mask): (a & c) | (b & ~c) = 0xF0&0xAA | 0xCC&~0xAA = 0xA0 | 0x44 =
  // 0xE4.
  emit(make(Opcode::LOP3, {Mod::LUT}, {reg(dst(0))}, {src(1, t), src(2, t), imm(sign), imm(0xE4)}),
       t.bits == 64);
  return true;
}

// add/sub/mul/fma on .f16x2 and .bf16x2: lower_half.cpp's halfArith (run() reaches it first
// through halfPrecision(); this entry stays for the dispatch lines of add/mul/fma).
bool Lowering::packedArith() { return halfArith(); }

} // namespace ori::ptx::lowering
