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
//   FDIV/FSQRT -> div/rcp/sqrt.rnd{.ftz}; MUFU -> rcp/sqrt/rsqrt/ex2/lg2/sin/cos.approx{.ftz}.f32
//   (the
//     interpreter's result is one of those PTX allows); HADD2/HMUL2/HFMA2 -> add/mul/fma.rn
//     .f16x2/.bf16x2. binary64 results get the canonical NaN as above.
#include <fmt/format.h>

#include <bit>

#include "ir/ori.h"
#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {
namespace {

// A register operand -R (not |R|, not RZ).
bool isNegatedReg(const Operand &o) {
  return o.kind == Operand::Kind::Reg && o.neg && !o.abs && !o.reg.isConst();
}

std::string rounding(const Instr &in) {
  auto r = in.mods.inGroup(ModGroup::FRound);
  if (!r || *r == Mod::RN)
    return "rn";
  return *r == Mod::RZ ? "rz" : *r == Mod::RM ? "rm" : *r == Mod::RP ? "rp" : "rna";
}

// The integer type of I2F's source or F2I's result (.S32 when absent).
std::pair<std::string, unsigned> intKind(const Instr &in) {
  auto t = in.mods.inGroup(ModGroup::Type);
  switch (t.value_or(Mod::S32)) {
  case Mod::U8:
    return {"u8", 8};
  case Mod::S8:
    return {"s8", 8};
  case Mod::U16:
    return {"u16", 16};
  case Mod::S16:
    return {"s16", 16};
  case Mod::U32:
    return {"u32", 32};
  case Mod::U64:
    return {"u64", 64};
  case Mod::S64:
    return {"s64", 64};
  case Mod::S32:
    return {"s32", 32};
  default:
    fail(in.loc,
         fmt::format("{}: integer type .{} has no conversion", in.info().name, modText(*t)));
  }
}

} // namespace

bool FnEmitter::emitFloat(const Instr &in) {
  switch (in.op) {
  case Opcode::FADD:
  case Opcode::FMUL:
  case Opcode::FFMA: {
    bool sat = in.has(Mod::SAT);
    // neg.ftz.f32 and abs.ftz.f32 as the lowering gives them (-a + -0.0, |a| + -0.0, .FTZ):
    // printed as those again (docs/ptx.md, "Round trip").
    if (in.op == Opcode::FADD && in.srcs.size() == 2 && in.srcs[1].kind == Operand::Kind::FImm &&
        std::bit_cast<uint64_t>(in.srcs[1].fimm) == (uint64_t(1) << 63) &&
        in.srcs[0].kind == Operand::Kind::Reg && !in.srcs[0].reg.isConst() &&
        in.srcs[0].neg != in.srcs[0].abs && in.has(Mod::FTZ) && !sat && rounding(in) == "rn") {
      Instr plain = in;
      plain.srcs[0].neg = plain.srcs[0].abs = false;
      std::string a = f32Src(plain, 0);
      emit(fmt::format("{}.ftz.f32 {}, {};", in.srcs[0].neg ? "neg" : "abs", intDst(in, 0, 32), a));
      return true;
    }
    std::string mods =
        fmt::format(".{}{}{}", rounding(in), in.has(Mod::FTZ) ? ".ftz" : "", sat ? ".sat" : "");
    // a + -b as PTX sub (the lowering of sub), b read without the negation
    const bool sub = in.op == Opcode::FADD && in.srcs.size() == 2 && isNegatedReg(in.srcs[1]);
    Instr plain = in;
    if (sub)
      plain.srcs[1].neg = false;
    std::string a = f32Src(in, 0), b = f32Src(plain, 1);
    std::string c = in.op == Opcode::FFMA ? f32Src(in, 2) : "";
    // .SAT gives +0.0 for -0.0 in the interpreter; PTX only says it clamps to
    // [0.0, 1.0], which -0.0 is in: adding +0.0 makes -0.0 +0.0 and keeps the rest.
    std::string d = sat ? temp(32) : intDst(in, 0, 32);
    if (in.op == Opcode::FFMA)
      emit(fmt::format("fma{}.f32 {}, {}, {}, {};", mods, d, a, b, c));
    else
      emit(fmt::format("{}{}.f32 {}, {}, {};",
                       sub                     ? "sub"
                       : in.op == Opcode::FADD ? "add"
                                               : "mul",
                       mods, d, a, b));
    if (sat)
      emit(fmt::format("add.rn.f32 {}, {}, 0f00000000;", intDst(in, 0, 32), d));
    return true;
  }
  case Opcode::DADD:
  case Opcode::DMUL:
  case Opcode::DFMA: {
    const bool sub =
        in.op == Opcode::DADD && in.srcs.size() == 2 && isNegatedReg(in.srcs[1]); // as for FADD
    Instr plain = in;
    if (sub)
      plain.srcs[1].neg = false;
    std::string a = f64Src(in, 0), b = f64Src(plain, 1);
    std::string r = temp(64), p = temp(1);
    if (in.op == Opcode::DFMA) {
      std::string c = f64Src(in, 2);
      emit(fmt::format("fma.{}.f64 {}, {}, {}, {};", rounding(in), r, a, b, c));
    } else {
      emit(fmt::format("{}.{}.f64 {}, {}, {};",
                       sub                     ? "sub"
                       : in.op == Opcode::DADD ? "add"
                                               : "mul",
                       rounding(in), r, a, b));
    }
    emit(fmt::format("setp.nan.f64 {}, {}, {};", p, r, r));
    emit(fmt::format("selp.b64 {}, 0xfff8000000000000, {}, {};", intDst(in, 0, 64), r, p));
    return true;
  }
  case Opcode::FMNMX: {
    std::string ftz = in.has(Mod::FTZ) ? ".ftz" : "";
    if (in.has(Mod::NANMM)) {
      ftz += ".NaN";
      ctx.require(7, 0);
    }
    if (in.has(Mod::XORSIGN)) {
      ftz += ".xorsign.abs";
      ctx.require(7, 2);
    }
    std::string a = f32Src(in, 0), b = f32Src(in, 1);
    Pred p = predSrc(in, 2);
    if (p.isConst) {
      emit(fmt::format("{}{}.f32 {}, {}, {};", p.value ? "min" : "max", ftz, intDst(in, 0, 32), a,
                       b));
      return true;
    }
    std::string lo = temp(32), hi = temp(32);
    emit(fmt::format("min{}.f32 {}, {}, {};", ftz, lo, a, b));
    emit(fmt::format("max{}.f32 {}, {}, {};", ftz, hi, a, b));
    emit(fmt::format("selp.b32 {}, {}, {}, {};", intDst(in, 0, 32), p.neg ? hi : lo,
                     p.neg ? lo : hi, p.name));
    return true;
  }
  case Opcode::FSETP:
  case Opcode::DSETP: {
    auto cmp = in.mods.inGroup(ModGroup::Cmp);
    if (!cmp)
      fail(in.loc, fmt::format("{}: {} needs a comparison", printInstr(f, in), in.info().name));
    bool f32 = in.op == Opcode::FSETP;
    // The operands are read even when the result does not depend on them (a
    // constant-bank read can fault).
    std::string a = f32 ? f32Src(in, 0) : f64Src(in, 0), b = f32 ? f32Src(in, 1) : f64Src(in, 1);
    if (*cmp == Mod::T || *cmp == Mod::F) {
      emitConstCompare(in, *cmp == Mod::T);
      return true;
    }
    const char *name = compareName(*cmp);
    if (!name)
      fail(in.loc, fmt::format("{}: unknown float comparison", printInstr(f, in)));
    emitSetp(in, fmt::format("setp.{}", name),
             fmt::format("{}.{}", f32 && in.has(Mod::FTZ) ? ".ftz" : "", f32 ? "f32" : "f64"), a,
             b);
    return true;
  }
  case Opcode::I2F: {
    auto [type, bits] = intKind(in);
    std::string a = intSrc(in, 0, bits == 64 ? 64 : 32, true);
    if (in.has(Mod::F16) || in.has(Mod::BF16)) { // into a 16-bit temporary, zero-extended
      if (bits < 32 &&
          in.has(Mod::BF16)) { // ptxas takes only a register of the type's width for .bf16
        std::string b = temp(bits);
        emit(fmt::format("cvt.{}{}.{}32 {}, {};", type[0], bits, type[0], b, a));
        a = b;
      }
      // A 16-bit result into a 16-bit register as it is (finishDsts zero-extends it into a wider
      // one).
      emit(fmt::format("cvt.{}.{}.{} {}, {};", rounding(in), in.has(Mod::BF16) ? "bf16" : "f16",
                       type, intDst(in, 0, 16), a));
      if (in.has(Mod::BF16))
        ctx.require(7, 8);
      return true;
    }
    bool f64 = in.has(Mod::F64);
    emit(fmt::format("cvt.{}.{}.{} {}, {};", rounding(in), f64 ? "f64" : "f32", type,
                     intDst(in, 0, f64 ? 64 : 32), a));
    return true;
  }
  case Opcode::F2I: {
    bool f64 = in.has(Mod::F64), ftz = in.has(Mod::FTZ),
         half = in.has(Mod::F16) || in.has(Mod::BF16);
    if ((f64 || half) && ftz)
      fail(in.loc,
           fmt::format("{}: .FTZ applies to binary32 sources only (the interpreter refuses it)",
                       printInstr(f, in)));
    auto [type, bits] = intKind(in);
    unsigned w = bits == 64 ? 64 : 32;
    auto r = in.mods.inGroup(ModGroup::IRound);
    std::string rnd = !r ? "rni" : *r == Mod::TRUNC ? "rzi" : *r == Mod::FLOOR ? "rmi" : "rpi";
    std::string src = f64 ? "f64" : in.has(Mod::F16) ? "f16" : in.has(Mod::BF16) ? "bf16" : "f32";
    std::string a = f64 ? f64Src(in, 0) : half ? halfSrc(in, 0) : f32Src(in, 0);
    if (in.has(Mod::BF16))
      ctx.require(7, 8);
    // PTX's NaN results (0, or 1 << (width - 1) from .f64 or into 64 bits) are the interpreter's.
    if (half && bits < 32) { // ptxas takes no wider destination than the type from a 16-bit float
      unsigned tb = in.has(Mod::BF16) ? bits : 16; // from .bf16: a register of the type's width
      std::string t = temp(tb);
      emit(fmt::format("cvt.{}.{}.{} {}, {};", rnd, type, src, t, a));
      emit(fmt::format("cvt.{}32.{}{} {}, {};", type[0], type[0], tb, intDst(in, 0, 32), t));
      return true;
    }
    emit(fmt::format("cvt.{}{}.{}.{} {}, {};", rnd, ftz ? ".ftz" : "", type, src, intDst(in, 0, w),
                     a));
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
    if (!dm || !sm)
      fail(in.loc,
           fmt::format("{}: F2F needs a destination and a source format", printInstr(f, in)));
    auto name = [](Mod m) -> std::pair<std::string, unsigned> {
      switch (m) {
      case Mod::F16:
      case Mod::SRC_F16:
        return {"f16", 16};
      case Mod::BF16:
      case Mod::SRC_BF16:
        return {"bf16", 16};
      case Mod::F32:
      case Mod::SRC_F32:
        return {"f32", 32};
      default:
        return {"f64", 64};
      }
    };
    if (*dm == Mod::E4M3 || *dm == Mod::E5M2 || *sm == Mod::SRC_E4M3 || *sm == Mod::SRC_E5M2)
      fail(in.loc,
           fmt::format("{}: F2F has no 8-bit formats (F2FP converts them)", printInstr(f, in)));
    if (*dm == Mod::TF32 || in.has(Mod::RELU) || in.has(Mod::SATFINITE) || in.has(Mod::RNA)) {
      emitF2FSaturating(in);
      return true;
    }
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
    std::string mods = narrows ? fmt::format(".{}", rounding(in)) : "";
    if (in.has(Mod::FTZ) && (dbits == 32 || sbits == 32))
      mods += ".ftz";
    if (in.has(Mod::SAT))
      mods += ".sat";
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
    if (in.has(Mod::F16) || in.has(Mod::BF16)) {
      if (ftz)
        fail(in.loc, fmt::format("{}: .FTZ applies to binary32 only (the interpreter refuses it)",
                                 printInstr(f, in)));
      auto r = in.mods.inGroup(ModGroup::IRound);
      std::string rnd = !r ? "rni" : *r == Mod::TRUNC ? "rzi" : *r == Mod::FLOOR ? "rmi" : "rpi";
      std::string type = in.has(Mod::BF16) ? "bf16" : "f16", a = halfSrc(in, 0);
      if (in.has(Mod::BF16))
        ctx.require(7, 8);
      emit(fmt::format("cvt.{}.{}.{} {}, {};", rnd, type, type, intDst(in, 0, 16), a));
      return true;
    }
    if (f64 && ftz)
      fail(in.loc, fmt::format("{}: .FTZ applies to binary32 only (the interpreter refuses it)",
                               printInstr(f, in)));
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
  case Opcode::FDIV:
  case Opcode::FSQRT: {
    bool f64 = in.has(Mod::F64), ftz = in.has(Mod::FTZ);
    if (f64 && ftz)
      fail(in.loc, fmt::format("{}: .FTZ applies to binary32 only (the interpreter refuses it)",
                               printInstr(f, in)));
    std::string mods = fmt::format(".{}{}", rounding(in), ftz ? ".ftz" : "");
    std::string type = f64 ? "f64" : "f32";
    auto src = [&](size_t i) { return f64 ? f64Src(in, i) : f32Src(in, i); };
    std::string d = f64 ? temp(64) : intDst(in, 0, 32);
    const Operand &a = in.srcs.at(0);
    if (in.op == Opcode::FSQRT)
      emit(fmt::format("sqrt{}.{} {}, {};", mods, type, d, src(0)));
    else if (a.kind == Operand::Kind::FImm && a.fimm == 1.0 && !a.neg && !a.abs)
      emit(fmt::format("rcp{}.{} {}, {};", mods, type, d, src(1)));
    else {
      std::string x = src(0), y = src(1);
      emit(fmt::format("div{}.{} {}, {}, {};", mods, type, d, x, y));
    }
    if (f64)
      emitCanonicalNaN64(in, d, temp(1));
    return true;
  }
  case Opcode::HADD2:
  case Opcode::HMUL2:
  case Opcode::HFMA2: {
    bool bf = in.has(Mod::BF16);
    if (bf && (in.has(Mod::FTZ) || in.has(Mod::SAT)))
      fail(in.loc,
           fmt::format("{}: PTX has no .ftz or .sat on .bf16x2 arithmetic", printInstr(f, in)));
    if (in.has(Mod::OOB) && (in.has(Mod::FTZ) || in.has(Mod::SAT)))
      fail(in.loc, fmt::format("{}: PTX has no .oob with .ftz or .sat", printInstr(f, in)));
    // fma.rn{.ftz}{.sat}, fma.rn{.ftz}.relu, fma.rn.oob{.relu} (ISA 9.7.4.4).
    std::string mods =
        fmt::format(".rn{}{}{}{}", in.has(Mod::FTZ) ? ".ftz" : "", in.has(Mod::OOB) ? ".oob" : "",
                    in.has(Mod::SAT) ? ".sat" : "", in.has(Mod::RELU) ? ".relu" : "");
    if (in.has(Mod::RELU))
      ctx.require(7, 0);
    if (in.has(Mod::OOB))
      ctx.require(8, 1);
    if (bf)
      ctx.require(7, 8);
    // On 16-bit registers (the lowering's scalar .f16/.bf16 forms) the scalar instruction: the
    // upper lane is +0.0 in and out, so the low half is the whole result.
    size_t n = in.op == Opcode::HFMA2 ? 3 : 2;
    bool scalar = isScalarHalf(in, n);
    unsigned w = scalar ? 16 : 32;
    std::string type = std::string(bf ? "bf16" : "f16") + (scalar ? "" : "x2");
    std::string a = intSrc(in, 0, w, true), b = intSrc(in, 1, w, true);
    if (in.op == Opcode::HFMA2) {
      std::string c = intSrc(in, 2, w, true);
      emit(fmt::format("fma{}.{} {}, {}, {}, {};", mods, type, intDst(in, 0, w), a, b, c));
    } else
      emit(fmt::format("{}{}.{} {}, {}, {};", in.op == Opcode::HADD2 ? "add" : "mul", mods, type,
                       intDst(in, 0, w), a, b));
    return true;
  }
  default:
    return emitHalf(in);
  }
}

// F2F with .TF32, .RELU, .SATFINITE or .RNA: PTX cvt.rna{.satfinite}.tf32.f32,
// cvt.{rn,rz}{.relu}{.satfinite}.{tf32,f16,bf16}.f32. ptxas 13.0 takes .satfinite on .rn/.rz
// .tf32 only from sm_100: before, the source is first clamped to tf32's largest finite value
// (min/max .NaN keep a NaN), which every rounding of a larger magnitude would reach or pass.
void FnEmitter::emitF2FSaturating(const Instr &in) {
  auto dm = in.mods.inGroup(ModGroup::FType);
  bool relu = in.has(Mod::RELU), satfinite = in.has(Mod::SATFINITE), rna = in.has(Mod::RNA);
  std::string rnd = rounding(in);
  bool ok = in.has(Mod::SRC_F32) && !in.has(Mod::FTZ) && !in.has(Mod::SAT) &&
            (rnd == "rn" || rnd == "rz" || rna) &&
            (*dm == Mod::TF32 || *dm == Mod::F16 || *dm == Mod::BF16) &&
            !(rna && (relu || *dm != Mod::TF32));
  if (!ok)
    fail(in.loc, fmt::format("{}: no PTX cvt has this form", printInstr(f, in)));
  std::string a = f32Src(in, 0);
  ctx.require(7, 8);
  if (satfinite)
    ctx.require(8, 1);
  if (*dm == Mod::TF32) {
    if (satfinite && !rna && ctx.sm < 100) {
      if (ctx.sm < 80)
        fail(in.loc, fmt::format("{}: needs sm_80 (min/max.NaN)", printInstr(f, in)));
      std::string t = temp(32);
      emit(fmt::format("max.NaN.f32 {}, {}, 0fFF7FE000;", t, a));
      emit(fmt::format("min.NaN.f32 {}, {}, 0f7F7FE000;", t, t));
      a = t;
      satfinite = false;
    }
    emit(fmt::format("cvt.{}{}{}.tf32.f32 {}, {};", rnd, relu ? ".relu" : "",
                     satfinite ? ".satfinite" : "", intDst(in, 0, 32), a));
    return;
  }
  emit(fmt::format("cvt.{}{}{}.{}.f32 {}, {};", rnd, relu ? ".relu" : "",
                   satfinite ? ".satfinite" : "", *dm == Mod::BF16 ? "bf16" : "f16",
                   intDst(in, 0, 16), a));
}

// Destination 0 and sources 0..n-1 are 16-bit registers or 16-bit immediates (no |..| or -):
// a packed-half instruction on them can print as its scalar .f16/.bf16 form.
bool FnEmitter::isScalarHalf(const Instr &in, size_t n) const {
  const Operand &d = in.dsts.at(0);
  if (d.kind != Operand::Kind::Reg || d.reg.isConst() || !d.reg.isGeneral() || regBits(d.reg) != 16)
    return false;
  for (size_t i = 0; i < n && i < in.srcs.size(); ++i) {
    const Operand &o = in.srcs[i];
    if (o.neg || o.abs)
      return false;
    if (o.kind == Operand::Kind::Imm
            ? (o.imm < 0 || o.imm > 0xffff)
            : (o.kind != Operand::Kind::Reg || o.reg.isConst() || regBits(o.reg) != 16))
      return false;
  }
  return true;
}

// binary64 result r into destination 0 with NaN made CUDART_NAN (as the interpreter's).
void FnEmitter::emitCanonicalNaN64(const Instr &in, const std::string &r, const std::string &p) {
  emit(fmt::format("setp.nan.f64 {}, {}, {};", p, r, r));
  emit(fmt::format("selp.b64 {}, 0xfff8000000000000, {}, {};", intDst(in, 0, 64), r, p));
}

// A binary16/bfloat16 source as a 16-bit register, |..| and - applied to bit 15.
std::string FnEmitter::halfSrc(const Instr &in, size_t i) {
  const Operand &o = in.srcs.at(i);
  if (o.kind == Operand::Kind::FImm)
    fail(in.loc, fmt::format("{}: a float immediate as a 16-bit source has no PTX form here",
                             printInstr(f, in)));
  std::string h = intSrc(in, i, 16, true);
  if (!o.abs && !o.neg)
    return h;
  std::string t = temp(16);
  if (o.abs && o.neg)
    emit(fmt::format("or.b16 {}, {}, 0x8000;", t, h));
  else if (o.abs)
    emit(fmt::format("and.b16 {}, {}, 0x7fff;", t, h));
  else
    emit(fmt::format("xor.b16 {}, {}, 0x8000;", t, h));
  return t;
}

} // namespace ori::ptx::emit_detail
