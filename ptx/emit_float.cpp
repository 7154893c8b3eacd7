// Ori -> PTX: floating point and conversions (emit_impl.h), with the
// interpreter's meaning (ir/interp_float.cpp, docs/interpreter.md):
//   FADD/FMUL/FFMA -> add/mul/fma.rnd{.ftz}{.sat}.f32, always with an explicit
//     rounding mode (PTX may contract add/mul without one into fma);
//   DADD/DMUL/DFMA -> .f64, then NaN results made CUDART_NAN (0xfff8...)
//     like the interpreter's (hardware binary64 may propagate an input NaN);
//   FMNMX -> min/max{.ftz}.f32 (PTX: one NaN gives the other operand, -0 < +0);
//   FSETP/DSETP -> setp with every comparison (T and F are constants);
//   I2F -> cvt.rnd.f32/f64.<int>; F2I -> cvt.rni/rzi/rmi/rpi{.ftz}.<int>.<float>
//     (PTX float-to-int conversions saturate; NaN gives 0 only for non-.f64
//     sources and 32-bit or narrower results, so the others select 0 for NaN).
#include <fmt/format.h>

#include "ir/ori.h"
#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {
namespace {

std::string rounding(const Instr& in) {
  auto r = in.mods.inGroup(ModGroup::FRound);
  if (!r || *r == Mod::RN) return "rn";
  return *r == Mod::RZ ? "rz" : *r == Mod::RM ? "rm" : "rp";
}

// The integer type of I2F's source or F2I's result (.S32 when absent).
std::pair<std::string, unsigned> intKind(const Instr& in) {
  auto t = in.mods.inGroup(ModGroup::Type);
  switch (t.value_or(Mod::S32)) {
  case Mod::U8: return {"u8", 8};
  case Mod::S8: return {"s8", 8};
  case Mod::U16: return {"u16", 16};
  case Mod::S16: return {"s16", 16};
  case Mod::U32: return {"u32", 32};
  case Mod::U64: return {"u64", 64};
  case Mod::S64: return {"s64", 64};
  case Mod::S32: return {"s32", 32};
  default: fail(in.loc, fmt::format("{}: integer type .{} has no conversion", in.info().name, modText(*t)));
  }
}

} // namespace

bool FnEmitter::emitFloat(const Instr& in) {
  switch (in.op) {
  case Opcode::FADD: case Opcode::FMUL: case Opcode::FFMA: {
    bool sat = in.has(Mod::SAT);
    std::string mods = fmt::format(".{}{}{}", rounding(in), in.has(Mod::FTZ) ? ".ftz" : "", sat ? ".sat" : "");
    std::string a = f32Src(in, 0), b = f32Src(in, 1);
    std::string c = in.op == Opcode::FFMA ? f32Src(in, 2) : "";
    // .SAT gives +0.0 for -0.0 in the interpreter; PTX only says it clamps to
    // [0.0, 1.0], which -0.0 is in: adding +0.0 makes -0.0 +0.0 and keeps the rest.
    std::string d = sat ? temp(32) : intDst(in, 0, 32);
    if (in.op == Opcode::FFMA) emit(fmt::format("fma{}.f32 {}, {}, {}, {};", mods, d, a, b, c));
    else emit(fmt::format("{}{}.f32 {}, {}, {};", in.op == Opcode::FADD ? "add" : "mul", mods, d, a, b));
    if (sat) emit(fmt::format("add.rn.f32 {}, {}, 0f00000000;", intDst(in, 0, 32), d));
    return true;
  }
  case Opcode::DADD: case Opcode::DMUL: case Opcode::DFMA: {
    std::string a = f64Src(in, 0), b = f64Src(in, 1);
    std::string r = temp(64), p = temp(1);
    if (in.op == Opcode::DFMA) {
      std::string c = f64Src(in, 2);
      emit(fmt::format("fma.{}.f64 {}, {}, {}, {};", rounding(in), r, a, b, c));
    } else {
      emit(fmt::format("{}.{}.f64 {}, {}, {};", in.op == Opcode::DADD ? "add" : "mul", rounding(in), r, a, b));
    }
    emit(fmt::format("setp.nan.f64 {}, {}, {};", p, r, r));
    emit(fmt::format("selp.b64 {}, 0xfff8000000000000, {}, {};", intDst(in, 0, 64), r, p));
    return true;
  }
  case Opcode::FMNMX: {
    std::string ftz = in.has(Mod::FTZ) ? ".ftz" : "";
    std::string a = f32Src(in, 0), b = f32Src(in, 1);
    Pred p = predSrc(in, 2);
    if (p.isConst) {
      emit(fmt::format("{}{}.f32 {}, {}, {};", p.value ? "min" : "max", ftz, intDst(in, 0, 32), a, b));
      return true;
    }
    std::string lo = temp(32), hi = temp(32);
    emit(fmt::format("min{}.f32 {}, {}, {};", ftz, lo, a, b));
    emit(fmt::format("max{}.f32 {}, {}, {};", ftz, hi, a, b));
    emit(fmt::format("selp.b32 {}, {}, {}, {};", intDst(in, 0, 32), p.neg ? hi : lo, p.neg ? lo : hi, p.name));
    return true;
  }
  case Opcode::FSETP: case Opcode::DSETP: {
    auto cmp = in.mods.inGroup(ModGroup::Cmp);
    if (!cmp) fail(in.loc, fmt::format("{}: {} needs a comparison", printInstr(f, in), in.info().name));
    bool f32 = in.op == Opcode::FSETP;
    // The operands are read even when the result does not depend on them (a
    // constant-bank read can fault).
    std::string a = f32 ? f32Src(in, 0) : f64Src(in, 0), b = f32 ? f32Src(in, 1) : f64Src(in, 1);
    if (*cmp == Mod::T || *cmp == Mod::F) {
      emitConstCompare(in, *cmp == Mod::T);
      return true;
    }
    const char* name = compareName(*cmp);
    if (!name) fail(in.loc, fmt::format("{}: unknown float comparison", printInstr(f, in)));
    emitSetp(in, fmt::format("setp.{}", name), fmt::format("{}.{}", f32 && in.has(Mod::FTZ) ? ".ftz" : "", f32 ? "f32" : "f64"), a, b);
    return true;
  }
  case Opcode::I2F: {
    if (in.has(Mod::F16)) fail(in.loc, "I2F.F16 has no meaning in the interpreter");
    auto [type, bits] = intKind(in);
    std::string a = intSrc(in, 0, bits == 64 ? 64 : 32, true);
    bool f64 = in.has(Mod::F64);
    emit(fmt::format("cvt.{}.{}.{} {}, {};", rounding(in), f64 ? "f64" : "f32", type, intDst(in, 0, f64 ? 64 : 32), a));
    return true;
  }
  case Opcode::F2I: {
    if (in.has(Mod::F16)) fail(in.loc, "F2I.F16 has no meaning in the interpreter");
    bool f64 = in.has(Mod::F64), ftz = in.has(Mod::FTZ);
    if (f64 && ftz) fail(in.loc, fmt::format("{}: .FTZ applies to binary32 sources only (the interpreter refuses it)", printInstr(f, in)));
    auto [type, bits] = intKind(in);
    unsigned w = bits == 64 ? 64 : 32;
    auto r = in.mods.inGroup(ModGroup::IRound);
    std::string rnd = !r ? "rni" : *r == Mod::TRUNC ? "rzi" : *r == Mod::FLOOR ? "rmi" : "rpi";
    std::string src = f64 ? "f64" : "f32";
    std::string a = f64 ? f64Src(in, 0) : f32Src(in, 0);
    std::string cvt = fmt::format("cvt.{}{}.{}.{}", rnd, ftz ? ".ftz" : "", type, src);
    if (!f64 && bits != 64) {
      emit(fmt::format("{} {}, {};", cvt, intDst(in, 0, w), a));
      return true;
    }
    std::string t = temp(w), p = temp(1);
    emit(fmt::format("setp.nan.{} {}, {}, {};", src, p, a, a));
    emit(fmt::format("{} {}, {};", cvt, t, a));
    emit(fmt::format("selp.b{} {}, 0, {}, {};", w, intDst(in, 0, w), t, p));
    return true;
  }
  default: return false;
  }
}

} // namespace ori::ptx::emit_detail
