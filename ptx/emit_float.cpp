// Ori -> PTX: floating point and conversions (emit_impl.h), with the
// interpreter's meaning (interp/interp_float.cpp, docs/interpreter.md):
//   FADD/FMUL/FFMA -> add/mul/fma.rnd{.ftz}{.sat}.f32, always with an explicit
//     rounding mode (PTX may contract add/mul without one into fma); a + -b -> sub;
//     FADD.FTZ -a, -0.0 and |a|, -0.0 -> neg/abs.ftz.f32 (the lowering's forms of those);
//   DADD/DMUL/DFMA -> .f64, then NaN results made CUDART_NAN (0xfff8...)
//     like the interpreter's (hardware binary64 may propagate an input NaN);
//   FMNMX -> min/max{.ftz}.f32 (PTX: one NaN gives the other operand, -0 < +0);
//   FSETP/DSETP -> setp with every comparison (T and F are constants);
//   I2F -> cvt.rnd.f32/f64.<int>; F2I -> cvt.rni/rzi/rmi/rpi{.ftz}.<int>.<float>
//     (PTX float-to-int conversions saturate; NaN gives 0 only for non-.f64
//     sources and 32-bit or narrower results, so the others select 0 for NaN);
//   DMNMX -> min/max.f64; F2F -> cvt{.rnd}{.ftz}{.sat}.<dst>.<src>; FRND -> cvt.r?i.f32.f32;
//   FDIV/FSQRT -> div/rcp/sqrt.rnd{.ftz}; MUFU -> rcp/sqrt/rsqrt/ex2/lg2/sin/cos.approx{.ftz}.f32 (the
//     interpreter's result is one of those PTX allows); HADD2/HMUL2/HFMA2 -> add/mul/fma.rn
//     .f16x2/.bf16x2. binary64 results get the canonical NaN as above.
#include <fmt/format.h>

#include <bit>

#include "ir/ori.h"
#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {
namespace {

// A register operand -R (not |R|, not RZ).
bool isNegatedReg(const Operand& o) {
  return o.kind == Operand::Kind::Reg && o.neg && !o.abs && !o.reg.isConst();
}

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
    // neg.ftz.f32 and abs.ftz.f32 as the lowering gives them (-a + -0.0, |a| + -0.0, .FTZ):
    // printed as those again (docs/ptx.md, "Round trip").
    if (in.op == Opcode::FADD && in.srcs.size() == 2 && in.srcs[1].kind == Operand::Kind::FImm &&
        std::bit_cast<uint64_t>(in.srcs[1].fimm) == (uint64_t(1) << 63) && in.srcs[0].kind == Operand::Kind::Reg &&
        !in.srcs[0].reg.isConst() && in.srcs[0].neg != in.srcs[0].abs && in.has(Mod::FTZ) && !sat &&
        rounding(in) == "rn") {
      Instr plain = in;
      plain.srcs[0].neg = plain.srcs[0].abs = false;
      std::string a = f32Src(plain, 0);
      emit(fmt::format("{}.ftz.f32 {}, {};", in.srcs[0].neg ? "neg" : "abs", intDst(in, 0, 32), a));
      return true;
    }
    std::string mods = fmt::format(".{}{}{}", rounding(in), in.has(Mod::FTZ) ? ".ftz" : "", sat ? ".sat" : "");
    // a + -b as PTX sub (the lowering of sub), b read without the negation
    const bool sub = in.op == Opcode::FADD && in.srcs.size() == 2 && isNegatedReg(in.srcs[1]);
    Instr plain = in;
    if (sub) plain.srcs[1].neg = false;
    std::string a = f32Src(in, 0), b = f32Src(plain, 1);
    std::string c = in.op == Opcode::FFMA ? f32Src(in, 2) : "";
    // .SAT gives +0.0 for -0.0 in the interpreter; PTX only says it clamps to
    // [0.0, 1.0], which -0.0 is in: adding +0.0 makes -0.0 +0.0 and keeps the rest.
    std::string d = sat ? temp(32) : intDst(in, 0, 32);
    if (in.op == Opcode::FFMA) emit(fmt::format("fma{}.f32 {}, {}, {}, {};", mods, d, a, b, c));
    else emit(fmt::format("{}{}.f32 {}, {}, {};", sub ? "sub" : in.op == Opcode::FADD ? "add" : "mul", mods, d, a, b));
    if (sat) emit(fmt::format("add.rn.f32 {}, {}, 0f00000000;", intDst(in, 0, 32), d));
    return true;
  }
  case Opcode::DADD: case Opcode::DMUL: case Opcode::DFMA: {
    const bool sub = in.op == Opcode::DADD && in.srcs.size() == 2 && isNegatedReg(in.srcs[1]); // as for FADD
    Instr plain = in;
    if (sub) plain.srcs[1].neg = false;
    std::string a = f64Src(in, 0), b = f64Src(plain, 1);
    std::string r = temp(64), p = temp(1);
    if (in.op == Opcode::DFMA) {
      std::string c = f64Src(in, 2);
      emit(fmt::format("fma.{}.f64 {}, {}, {}, {};", rounding(in), r, a, b, c));
    } else {
      emit(fmt::format("{}.{}.f64 {}, {}, {};", sub ? "sub" : in.op == Opcode::DADD ? "add" : "mul", rounding(in), r, a, b));
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
  case Opcode::DMNMX: {
    std::string a = f64Src(in, 0), b = f64Src(in, 1);
    Pred p = predSrc(in, 2);
    std::string r = temp(64), q = temp(1);
    if (p.isConst) {
      emit(fmt::format("{}.f64 {}, {}, {};", p.value ? "min" : "max", r, a, b));
    } else {
      std::string lo = temp(64), hi = temp(64);
      emit(fmt::format("min.f64 {}, {}, {};", lo, a, b));
      emit(fmt::format("max.f64 {}, {}, {};", hi, a, b));
      emit(fmt::format("selp.b64 {}, {}, {}, {};", r, p.neg ? hi : lo, p.neg ? lo : hi, p.name));
    }
    emitCanonicalNaN64(in, r, q);
    return true;
  }
  case Opcode::F2F: {
    auto dm = in.mods.inGroup(ModGroup::FType), sm = in.mods.inGroup(ModGroup::FSrc);
    if (!dm || !sm) fail(in.loc, fmt::format("{}: F2F needs a destination and a source format", printInstr(f, in)));
    auto name = [](Mod m) -> std::pair<std::string, unsigned> {
      switch (m) {
      case Mod::F16: case Mod::SRC_F16: return {"f16", 16};
      case Mod::BF16: case Mod::SRC_BF16: return {"bf16", 16};
      case Mod::F32: case Mod::SRC_F32: return {"f32", 32};
      default: return {"f64", 64};
      }
    };
    auto [dt, dbits] = name(*dm);
    auto [st, sbits] = name(*sm);
    std::string a = sbits == 64 ? f64Src(in, 0) : sbits == 32 ? f32Src(in, 0) : halfSrc(in, 0);
    if (in.has(Mod::SAT) && (dt == "bf16" || st == "bf16")) {
      // ptxas rejects .sat on every conversion with a bfloat16 side. The interpreter clamps the
      // source value to [0, 1] and then rounds (docs/interpreter.md), so clamp in binary32 or
      // binary64 first (16-bit sources widen exactly) and convert without .sat: a value in
      // [0, 1] rounds to one in [0, 1]. .FTZ matters only on a binary32 source or result.
      bool ftz = in.has(Mod::FTZ) && (sbits == 32 || dbits == 32);
      std::string w = sbits == 64 ? temp(64) : temp(32);
      if (sbits == 64) {
        emit(fmt::format("cvt.sat.f64.f64 {}, {};", w, a));
      } else {
        if (sbits == 16) {
          emit(fmt::format("cvt.f32.{} {}, {};", st, w, a));
          a = w;
        }
        emit(fmt::format("cvt{}.sat.f32.f32 {}, {};", ftz ? ".ftz" : "", w, a));
      }
      std::string wt = sbits == 64 ? "f64" : "f32";
      if (dbits == 64) {
        std::string r = temp(64), q = temp(1);
        emit(fmt::format("cvt.f64.f32 {}, {};", r, w));
        emitCanonicalNaN64(in, r, q);
      } else if (dbits == 32) {
        emit(fmt::format("mov.b32 {}, {};", intDst(in, 0, 32), w));
      } else {
        std::string h = temp(16);
        emit(fmt::format("cvt.{}.{}.{} {}, {};", rounding(in), dt, wt, h, w));
        emit(fmt::format("cvt.u32.u16 {}, {};", intDst(in, 0, 32), h));
      }
      return true;
    }
    // A rounding modifier only where the conversion can round (PTX rejects it on widening).
    bool narrows = dbits < sbits || (dbits == 16 && sbits == 16 && dt != st);
    std::string mods = narrows ? "." + rounding(in) : "";
    if (in.has(Mod::FTZ) && (dbits == 32 || sbits == 32)) mods += ".ftz";
    if (in.has(Mod::SAT)) mods += ".sat";
    if (dbits == 64) {
      std::string r = temp(64), q = temp(1);
      emit(fmt::format("cvt{}.f64.{} {}, {};", mods, st, r, a));
      emitCanonicalNaN64(in, r, q);
    } else if (dbits == 32) {
      emit(fmt::format("cvt{}.f32.{} {}, {};", mods, st, intDst(in, 0, 32), a));
    } else {
      std::string h = temp(16);
      emit(fmt::format("cvt{}.{}.{} {}, {};", mods, dt, st, h, a));
      emit(fmt::format("cvt.u32.u16 {}, {};", intDst(in, 0, 32), h));
    }
    return true;
  }
  case Opcode::FRND: {
    bool f64 = in.has(Mod::F64), ftz = in.has(Mod::FTZ);
    if (f64 && ftz) fail(in.loc, fmt::format("{}: .FTZ applies to binary32 only (the interpreter refuses it)", printInstr(f, in)));
    auto r = in.mods.inGroup(ModGroup::IRound);
    std::string rnd = !r ? "rni" : *r == Mod::TRUNC ? "rzi" : *r == Mod::FLOOR ? "rmi" : "rpi";
    if (!f64) {
      std::string a = f32Src(in, 0); // sources before the destination, in statements of their own
      emit(fmt::format("cvt.{}{}.f32.f32 {}, {};", rnd, ftz ? ".ftz" : "", intDst(in, 0, 32), a));
      return true;
    }
    std::string t = temp(64), q = temp(1);
    emit(fmt::format("cvt.{}.f64.f64 {}, {};", rnd, t, f64Src(in, 0)));
    emitCanonicalNaN64(in, t, q);
    return true;
  }
  case Opcode::FDIV: case Opcode::FSQRT: {
    bool f64 = in.has(Mod::F64), ftz = in.has(Mod::FTZ);
    if (f64 && ftz) fail(in.loc, fmt::format("{}: .FTZ applies to binary32 only (the interpreter refuses it)", printInstr(f, in)));
    std::string mods = fmt::format(".{}{}", rounding(in), ftz ? ".ftz" : "");
    std::string type = f64 ? "f64" : "f32";
    auto src = [&](size_t i) { return f64 ? f64Src(in, i) : f32Src(in, i); };
    std::string d = f64 ? temp(64) : intDst(in, 0, 32);
    const Operand& a = in.srcs.at(0);
    if (in.op == Opcode::FSQRT) emit(fmt::format("sqrt{}.{} {}, {};", mods, type, d, src(0)));
    else if (a.kind == Operand::Kind::FImm && a.fimm == 1.0 && !a.neg && !a.abs)
      emit(fmt::format("rcp{}.{} {}, {};", mods, type, d, src(1)));
    else {
      std::string x = src(0), y = src(1);
      emit(fmt::format("div{}.{} {}, {}, {};", mods, type, d, x, y));
    }
    if (f64) emitCanonicalNaN64(in, d, temp(1));
    return true;
  }
  case Opcode::MUFU: {
    auto fn = in.mods.inGroup(ModGroup::MufuOp);
    if (!fn) fail(in.loc, fmt::format("{}: MUFU names no function", printInstr(f, in)));
    const char* name = *fn == Mod::RCP ? "rcp" : *fn == Mod::SQRT ? "sqrt" : *fn == Mod::RSQ ? "rsqrt"
                     : *fn == Mod::EX2 ? "ex2" : *fn == Mod::LG2 ? "lg2" : *fn == Mod::SIN ? "sin" : "cos";
    std::string a = f32Src(in, 0);
    emit(fmt::format("{}.approx{}.f32 {}, {};", name, in.has(Mod::FTZ) ? ".ftz" : "", intDst(in, 0, 32), a));
    return true;
  }
  case Opcode::HADD2: case Opcode::HMUL2: case Opcode::HFMA2: {
    bool bf = in.has(Mod::BF16);
    if (bf && (in.has(Mod::FTZ) || in.has(Mod::SAT)))
      fail(in.loc, fmt::format("{}: PTX has no .ftz or .sat on .bf16x2 arithmetic", printInstr(f, in)));
    std::string mods = fmt::format(".rn{}{}", in.has(Mod::FTZ) ? ".ftz" : "", in.has(Mod::SAT) ? ".sat" : "");
    std::string type = bf ? "bf16x2" : "f16x2";
    std::string a = intSrc(in, 0, 32, true), b = intSrc(in, 1, 32, true);
    if (in.op == Opcode::HFMA2) {
      std::string c = intSrc(in, 2, 32, true);
      emit(fmt::format("fma{}.{} {}, {}, {}, {};", mods, type, intDst(in, 0, 32), a, b, c));
    }
    else
      emit(fmt::format("{}{}.{} {}, {}, {};", in.op == Opcode::HADD2 ? "add" : "mul", mods, type, intDst(in, 0, 32), a, b));
    return true;
  }
  default: return false;
  }
}

// binary64 result r into destination 0 with NaN made CUDART_NAN (as the interpreter's).
void FnEmitter::emitCanonicalNaN64(const Instr& in, const std::string& r, const std::string& p) {
  emit(fmt::format("setp.nan.f64 {}, {}, {};", p, r, r));
  emit(fmt::format("selp.b64 {}, 0xfff8000000000000, {}, {};", intDst(in, 0, 64), r, p));
}

// A binary16/bfloat16 source as a 16-bit register, |..| and - applied to bit 15.
std::string FnEmitter::halfSrc(const Instr& in, size_t i) {
  const Operand& o = in.srcs.at(i);
  if (o.kind == Operand::Kind::FImm) fail(in.loc, fmt::format("{}: a float immediate as a 16-bit source has no PTX form here", printInstr(f, in)));
  std::string h = intSrc(in, i, 16, true);
  if (!o.abs && !o.neg) return h;
  std::string t = temp(16);
  if (o.abs && o.neg) emit(fmt::format("or.b16 {}, {}, 0x8000;", t, h));
  else if (o.abs) emit(fmt::format("and.b16 {}, {}, 0x7fff;", t, h));
  else emit(fmt::format("xor.b16 {}, {}, 0x8000;", t, h));
  return t;
}

} // namespace ori::ptx::emit_detail
