// PTX -> Ori, one instruction: cvt, by the kinds of its two types (see
// lowering.h). Integer to integer: truncation, sign and zero extension;
// integer to float: I2F; float to integer: F2I. cvt between two float types stays OPAQUE for now.
#include <fmt/format.h>

#include "ptx/lowering.h"

namespace ori::ptx::lowering {

bool Lowering::cvt() {
  std::vector<PtxType> ts = types(pi);
  need(2);
  if (ts.size() != 2) return false;
  PtxType dt = ts[0], st = ts[1];
  if (dt.isInt() && st.isInt()) return cvtIntInt(dt, st);
  if (dt.kind == PtxType::Float && st.isInt()) return cvtIntFloat(dt, st);
  if (dt.isInt() && st.kind == PtxType::Float) return cvtFloatInt(dt, st);
  if (dt.kind == PtxType::Float && st.kind == PtxType::Float) return cvtFloatFloat(dt, st);
  return false;
}

bool Lowering::cvtIntInt(PtxType dt, PtxType st) {
  ori::Reg d = dst(0);
  onlyMods(pi, {});
  if (dt.bits == 8 || dt.bits > 64 || st.bits > 64) return false;
  OOp a = srcReg(1, st);
  auto wide = [&](OOp v, bool isSigned) {
    ori::Instr in = make(Opcode::IMAD, {Mod::WIDE}, {reg(d)}, {v, imm(1), kRZ}); // 32 -> 64 extension
    if (!isSigned) in.mods.set(Mod::U32);
    emit(std::move(in));
  };
  if (st.bits >= dt.bits) { // truncation
    if (dt.bits == 16) emit(make(Opcode::LOP3, {Mod::LUT}, {reg(d)}, {a, imm(0xFFFF), kRZ, imm(0xC0)}));
    else emit(make(Opcode::MOV, {}, {reg(d)}, {a}), dt.bits == 64);
    return true;
  }
  bool isSigned = st.kind == PtxType::Signed;
  if (st.bits == 32) {
    wide(a, isSigned);
    return true;
  }
  // 8 or 16 bits: extend to 32 first (mask, or shift up and arithmetic shift down).
  ori::Reg r32 = dt.bits == 64 ? L.newTemp(ori::RegFile::R, "b32") : d;
  if (isSigned) {
    ori::Reg up = L.newTemp(ori::RegFile::R, "b32");
    emit(make(Opcode::SHL, {}, {reg(up)}, {a, imm(32 - st.bits)}));
    emit(make(Opcode::SHR, {Mod::S32}, {reg(r32)}, {reg(up), imm(32 - st.bits)}));
  } else {
    emit(make(Opcode::LOP3, {Mod::LUT}, {reg(r32)}, {a, imm(st.bits == 8 ? 0xFF : 0xFFFF), kRZ, imm(0xC0)}));
  }
  if (dt.bits == 64) wide(reg(r32), isSigned);
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
  if ((st.bits != 32 && st.bits != 64) || (dt.bits != 32 && dt.bits != 64)) return false;
  if (hasMod(pi, ".ftz") && st.bits != 32) return false;
  if (!hasMod(pi, ".rni") && !hasMod(pi, ".rzi") && !hasMod(pi, ".rmi") && !hasMod(pi, ".rpi")) return false;
  ori::Instr in = make(Opcode::F2I, {st.bits == 64 ? Mod::F64 : Mod::F32, intTypeMod(dt)}, {reg(d)}, {srcReg(1, st)});
  if (hasMod(pi, ".rzi")) in.mods.set(Mod::TRUNC);
  if (hasMod(pi, ".rmi")) in.mods.set(Mod::FLOOR);
  if (hasMod(pi, ".rpi")) in.mods.set(Mod::CEIL);
  if (hasMod(pi, ".ftz")) in.mods.set(Mod::FTZ);
  emit(std::move(in));
  return true;
}

bool Lowering::cvtFloatFloat(PtxType, PtxType) { return false; }

} // namespace ori::ptx::lowering
