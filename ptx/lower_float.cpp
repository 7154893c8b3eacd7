// PTX -> Ori, one instruction: floating-point arithmetic (see lowering.h).
// add/sub/mul/fma/mad.rn, min/max and neg/abs on .f32/.f64.
#include <fmt/format.h>

#include "ptx/lowering.h"

namespace ori::ptx::lowering {

bool Lowering::fma() {
  PtxType t = lastType(pi);
  onlyMods(pi, {".rn", ".rz", ".rm", ".rp", ".ftz", ".sat"});
  need(4);
  if (t.kind != PtxType::Float || (t.bits != 32 && t.bits != 64)) return false;
  if (t.bits == 64 && (hasMod(pi, ".ftz") || hasMod(pi, ".sat"))) return false;
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
  if (t.bits != 32 && t.bits != 64) return false;
  if (t.bits == 64 && (hasMod(pi, ".ftz") || hasMod(pi, ".sat"))) return false;
  OOp b = src(2, t, ori::K_REG | ori::K_FIMM);
  if (sub) {
    if (b.kind == OOp::Kind::FImm) b.fimm = -b.fimm;
    else b.neg = !b.neg;
  }
  ori::Instr in = make(t.bits == 32 ? Opcode::FADD : Opcode::DADD, {}, {reg(dst(0))},
                       {src(1, t, ori::K_REG | ori::K_FIMM), b});
  floatMods(in);
  emit(std::move(in));
  return true;
}

bool Lowering::floatMulMad() {
  PtxType t = lastType(pi);
  bool mad = pi.opcode == "mad";
  // mad.f32 without a rounding modifier is the old unfused form; the rounded ones are fma.
  bool rounded = hasMod(pi, ".rn") || hasMod(pi, ".rz") || hasMod(pi, ".rm") || hasMod(pi, ".rp");
  if (mad) return rounded && fma();
  onlyMods(pi, {".rn", ".rz", ".rm", ".rp", ".ftz", ".sat"});
  need(3);
  if (t.bits != 32 && t.bits != 64) return false;
  if (t.bits == 64 && (hasMod(pi, ".ftz") || hasMod(pi, ".sat"))) return false;
  ori::Instr in = make(t.bits == 32 ? Opcode::FMUL : Opcode::DMUL, {}, {reg(dst(0))},
                       {src(1, t, ori::K_REG | ori::K_FIMM), src(2, t, ori::K_REG | ori::K_FIMM)});
  floatMods(in);
  emit(std::move(in));
  return true;
}

bool Lowering::floatMinMax() {
  PtxType t = lastType(pi);
  need(3);
  OOp which = pi.opcode == "min" ? kPT : kNotPT;
  onlyMods(pi, {".ftz"});
  if (t.bits != 32) return false;
  ori::Instr in = make(Opcode::FMNMX, {}, {reg(dst(0))},
                       {src(1, t, ori::K_REG | ori::K_FIMM), src(2, t, ori::K_REG | ori::K_FIMM), which});
  floatMods(in);
  emit(std::move(in));
  return true;
}

bool Lowering::floatNegAbs() {
  PtxType t = lastType(pi);
  need(2);
  bool neg = pi.opcode == "neg";
  onlyMods(pi, {".ftz"});
  if (t.bits != 32 && t.bits != 64) return false;
  ori::Reg d = dst(0);
  OOp a = srcReg(1, t);
  if (hasMod(pi, ".ftz")) {
    if (t.bits != 32) return false;
    // -a + -0 and |a| + -0 are exact, and FTZ flushes a denormal input.
    a.neg = neg;
    a.abs = !neg;
    emit(make(Opcode::FADD, {Mod::FTZ}, {reg(d)}, {a, OOp::floatImm(-0.0)}));
    return true;
  }
  // Without .ftz they only touch the sign bit.
  int64_t sign = t.bits == 32 ? 0x80000000ll : INT64_MIN;
  int64_t mask = t.bits == 32 ? 0x7FFFFFFFll : INT64_MAX;
  emit(make(Opcode::LOP3, {Mod::LUT}, {reg(d)}, {a, imm(neg ? sign : mask), kRZ, imm(neg ? 0x3C : 0xC0)}), t.bits == 64);
  return true;
}

} // namespace ori::ptx::lowering
