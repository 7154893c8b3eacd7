// Ori -> PTX: MUFU and the packed-half opcodes besides arithmetic (emit_impl.h), with the
// interpreter's meaning (interp/interp_float.cpp, interp_half.cpp, interp_convert.cpp):
//   MUFU -> rcp/sqrt/rsqrt/ex2/lg2/sin/cos/tanh.approx{.ftz}.f32; ex2/tanh .approx on
//     .f16/.bf16; rcp/rsqrt.approx.ftz.f64 (RCP64H/RSQ64H); rsqrt.approx.f64 (the
//     interpreter's result is one of those PTX allows);
//   HMNMX2 -> min/max{.ftz}{.NaN}{.xorsign.abs}.f16x2/.bf16x2 (selp between the two for a
//     register predicate);
//   HSETP2 -> setp.cmp.bool{.ftz}.f16x2 p|q, a, b, c (PTX's pair is per lane, as HSETP2's);
//   HSET2 -> set.cmp.bool{.ftz}.{u32,f16x2,bf16x2}.f16x2;
//   F2FP -> cvt to .f16x2/.bf16x2 from two .f32, to/from .e4m3x2/.e5m2x2.
#include <fmt/format.h>

#include "ir/ori.h"
#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {
namespace {

std::string halfType(const Instr &in, bool packed) {
  return std::string(in.has(Mod::BF16) ? "bf16" : "f16") + (packed ? "x2" : "");
}

} // namespace

bool FnEmitter::emitHalf(const Instr &in) {
  switch (in.op) {
  case Opcode::MUFU: {
    auto fn = in.mods.inGroup(ModGroup::MufuOp);
    if (!fn)
      fail(in.loc, fmt::format("{}: MUFU names no function", printInstr(f, in)));
    auto width = in.mods.inGroup(ModGroup::FType);
    bool ftz = in.has(Mod::FTZ);
    if (*fn == Mod::RCP64H || *fn == Mod::RSQ64H) { // always flushing (PTX has only .ftz)
      if (width)
        fail(in.loc, fmt::format("{}: no PTX form", printInstr(f, in)));
      std::string a = f64Src(in, 0);
      emit(fmt::format("{}.approx.ftz.f64 {}, {};", *fn == Mod::RCP64H ? "rcp" : "rsqrt",
                       intDst(in, 0, 64), a));
      if (*fn == Mod::RSQ64H)
        ctx.require(4, 0);
      return true;
    }
    if (width == Mod::F64) {
      if (*fn != Mod::RSQ || ftz)
        fail(in.loc, fmt::format("{}: no PTX form", printInstr(f, in)));
      std::string r = temp(64);
      emit(fmt::format("rsqrt.approx.f64 {}, {};", r, f64Src(in, 0)));
      emitCanonicalNaN64(in, r, temp(1));
      return true;
    }
    if (width == Mod::F16 || width == Mod::BF16) {
      bool bf = width == Mod::BF16, ex2 = *fn == Mod::EX2;
      // ex2 .bf16 takes .ftz and needs it; .f16 has none; tanh none.
      if ((*fn != Mod::EX2 && *fn != Mod::TANH) || (ex2 ? ftz != bf : ftz))
        fail(in.loc, fmt::format("{}: no PTX form", printInstr(f, in)));
      std::string type = bf ? "bf16" : "f16", a = halfSrc(in, 0);
      emit(fmt::format("{}.approx{}.{} {}, {};", ex2 ? "ex2" : "tanh", ftz ? ".ftz" : "", type,
                       intDst(in, 0, 16), a));
      ctx.require(7, bf ? 8 : 0);
      return true;
    }
    if (width)
      fail(in.loc, fmt::format("{}: no PTX form", printInstr(f, in)));
    const char *name = *fn == Mod::RCP    ? "rcp"
                       : *fn == Mod::SQRT ? "sqrt"
                       : *fn == Mod::RSQ  ? "rsqrt"
                       : *fn == Mod::EX2  ? "ex2"
                       : *fn == Mod::LG2  ? "lg2"
                       : *fn == Mod::SIN  ? "sin"
                       : *fn == Mod::COS  ? "cos"
                                          : "tanh";
    std::string a = f32Src(in, 0);
    if (*fn == Mod::TANH) { // no .ftz in PTX: flush the source and the result by adding -0.0
      ctx.require(7, 0);
      if (ftz) {
        std::string t = temp(32);
        emit(fmt::format("add.rn.ftz.f32 {}, {}, 0f80000000;", t, a));
        a = t;
      }
      std::string d = ftz ? temp(32) : intDst(in, 0, 32);
      emit(fmt::format("tanh.approx.f32 {}, {};", d, a));
      if (ftz)
        emit(fmt::format("add.rn.ftz.f32 {}, {}, 0f80000000;", intDst(in, 0, 32), d));
      return true;
    }
    emit(fmt::format("{}.approx{}.f32 {}, {};", name, ftz ? ".ftz" : "", intDst(in, 0, 32), a));
    return true;
  }
  case Opcode::HMNMX2: {
    bool bf = in.has(Mod::BF16);
    if (bf && in.has(Mod::FTZ))
      fail(in.loc, fmt::format("{}: PTX has no .ftz on .bf16x2 min/max", printInstr(f, in)));
    bool scalar = isScalarHalf(in, 2);
    unsigned w = scalar ? 16 : 32;
    std::string mods =
        fmt::format("{}{}{}.{}", in.has(Mod::FTZ) ? ".ftz" : "", in.has(Mod::NANMM) ? ".NaN" : "",
                    in.has(Mod::XORSIGN) ? ".xorsign.abs" : "", halfType(in, !scalar));
    ctx.require(7, in.has(Mod::XORSIGN) ? 2 : 0);
    if (bf)
      ctx.require(7, 8);
    std::string a = intSrc(in, 0, w, true), b = intSrc(in, 1, w, true);
    Pred p = predSrc(in, 2);
    if (p.isConst) {
      emit(fmt::format("{}{} {}, {}, {};", p.value ? "min" : "max", mods, intDst(in, 0, w), a, b));
      return true;
    }
    std::string lo = temp(w), hi = temp(w);
    emit(fmt::format("min{} {}, {}, {};", mods, lo, a, b));
    emit(fmt::format("max{} {}, {}, {};", mods, hi, a, b));
    emit(fmt::format("selp.b{} {}, {}, {}, {};", w, intDst(in, 0, w), p.neg ? hi : lo,
                     p.neg ? lo : hi, p.name));
    return true;
  }
  case Opcode::HSETP2:
  case Opcode::HSET2: {
    auto cmp = in.mods.inGroup(ModGroup::Cmp);
    if (!cmp)
      fail(in.loc, fmt::format("{}: {} needs a comparison", printInstr(f, in), in.info().name));
    bool bf = in.has(Mod::BF16);
    if (bf && in.has(Mod::FTZ))
      fail(in.loc, fmt::format("{}: PTX has no .ftz on .bf16x2 comparisons", printInstr(f, in)));
    if (bf)
      ctx.require(7, 8);
    else if (in.op == Opcode::HSET2 && !in.has(Mod::BFV))
      ctx.require(6, 5);
    // HSETP2 whose q is PT, on 16-bit registers: the scalar setp (lane 0).
    auto is16 = [&](size_t i) {
      const Operand &o = in.srcs.at(i);
      return !o.neg && !o.abs &&
             (o.kind == Operand::Kind::Imm ? o.imm >= 0 && o.imm <= 0xffff
                                           : o.kind == Operand::Kind::Reg && !o.reg.isConst() &&
                                                 o.reg.isGeneral() && regBits(o.reg) == 16);
    };
    bool scalarSetp = in.op == Opcode::HSETP2 && in.dsts.size() == 2 &&
                      in.dsts[1].kind == Operand::Kind::Reg && in.dsts[1].reg.isConst() &&
                      is16(0) && is16(1);
    unsigned w = scalarSetp ? 16 : 32;
    std::string a = intSrc(in, 0, w, true), b = intSrc(in, 1, w, true);
    Mod op = in.mods.inGroup(ModGroup::BoolOp).value_or(Mod::AND);
    Pred c = predSrc(in, 2);
    std::string cName;
    // r BOOL c is r itself for AND true, OR false, XOR false.
    bool plain = c.isConst && (op == Mod::AND ? c.value : !c.value);
    if (c.isConst) { // the bool operation needs a register: the constant in a temporary
      if (!plain) {
        cName = temp(1);
        setPred(cName, c);
      }
    } else {
      cName = predText(c);
    }
    std::string ftz = in.has(Mod::FTZ) ? ".ftz" : "";
    std::string boolName = op == Mod::OR ? "or" : op == Mod::XOR ? "xor" : "and";
    // "setp.lt.and.ftz" + " d, a, b, c" or, for r itself, "setp.lt.ftz" + " d, a, b"
    std::string boolPart = plain ? "" : "." + boolName, cPart = plain ? "" : ", " + cName;
    if (*cmp == Mod::T ||
        *cmp == Mod::F) { // PTX has no constant comparisons: r = (a num a) | !(a num a)
      std::string r = temp(1), s = temp(1);
      emit(fmt::format("setp.num.f32 {}, 0f00000000, 0f00000000;", r)); // true
      if (*cmp == Mod::F)
        emit(fmt::format("not.pred {}, {};", r, r));
      if (plain)
        emit(fmt::format("mov.pred {}, {};", s, r));
      else
        emit(fmt::format("{}.pred {}, {}, {};", boolName, s, r, cName));
      if (in.op == Opcode::HSETP2) {
        for (size_t d = 0; d < 2; ++d)
          if (!in.dsts[d].reg.isConst())
            emit(fmt::format("mov.pred {}, {};", predDst(in, d), s));
        return true;
      }
      uint32_t one = !in.has(Mod::BFV) ? 0xffffu : bf ? 0x3f80u : 0x3c00u;
      emit(fmt::format("selp.b32 {}, 0x{:x}, 0, {};", intDst(in, 0, 32), one | one << 16, s));
      return true;
    }
    const char *name = compareName(*cmp);
    if (!name)
      fail(in.loc, fmt::format("{}: unknown float comparison", printInstr(f, in)));
    if (in.op == Opcode::HSETP2) {
      if (scalarSetp) // lane 0 only: the scalar form, with its one destination
        emit(fmt::format("setp.{}{}{}.{} {}, {}, {}{};", name, boolPart, ftz, halfType(in, false),
                         predDst(in, 0), a, b, cPart));
      else
        emit(fmt::format("setp.{}{}{}.{} {}|{}, {}, {}{};", name, boolPart, ftz, halfType(in, true),
                         predDst(in, 0), predDst(in, 1), a, b, cPart));
      return true;
    }
    std::string dtype = in.has(Mod::BFV) ? halfType(in, true) : "u32";
    emit(fmt::format("set.{}{}{}.{}.{} {}, {}, {}{};", name, boolPart, ftz, dtype,
                     halfType(in, true), intDst(in, 0, 32), a, b, cPart));
    return true;
  }
  case Opcode::F2FP: {
    auto dm = in.mods.inGroup(ModGroup::FType), sm = in.mods.inGroup(ModGroup::FSrc);
    if (!dm || !sm)
      fail(in.loc,
           fmt::format("{}: F2FP needs a destination and a source format", printInstr(f, in)));
    bool relu = in.has(Mod::RELU), satfinite = in.has(Mod::SATFINITE), rz = in.has(Mod::RZ);
    auto bad = [&] {
      fail(in.loc, fmt::format("{}: no PTX cvt has this form", printInstr(f, in)));
    };
    bool eight = *dm == Mod::E4M3 || *dm == Mod::E5M2;
    std::string mods = fmt::format(".{}{}{}", rz ? "rz" : "rn", satfinite ? ".satfinite" : "",
                                   relu ? ".relu" : "");
    if (eight) { // cvt.rn.satfinite{.relu}.e4m3x2.{f32,f16x2}: a 16-bit result
      if (rz || !satfinite || (*sm != Mod::SRC_F32 && *sm != Mod::SRC_F16))
        bad();
      if (ctx.sm < 89)
        fail(in.loc, fmt::format("{}: PTX has the 8-bit formats from sm_89", printInstr(f, in)));
      ctx.require(ctx.sm < 90 ? 8 : 7, ctx.sm < 90 ? 1 : 8);
      std::string type = *dm == Mod::E4M3 ? "e4m3x2" : "e5m2x2";
      if (*sm == Mod::SRC_F32) {
        std::string a = f32Src(in, 0), b = f32Src(in, 1);
        emit(fmt::format("cvt{}.{}.f32 {}, {}, {};", mods, type, intDst(in, 0, 16), a, b));
      } else {
        std::string a = intSrc(in, 0, 32, true);
        emit(fmt::format("cvt{}.{}.f16x2 {}, {};", mods, type, intDst(in, 0, 16), a));
      }
      return true;
    }
    if (*sm == Mod::SRC_E4M3 || *sm == Mod::SRC_E5M2) { // cvt.rn{.relu}.f16x2.e4m3x2 d, a16
      if (rz || satfinite || *dm != Mod::F16)
        bad();
      if (ctx.sm < 89)
        fail(in.loc, fmt::format("{}: PTX has the 8-bit formats from sm_89", printInstr(f, in)));
      ctx.require(ctx.sm < 90 ? 8 : 7, ctx.sm < 90 ? 1 : 8);
      std::string a = intSrc(in, 0, 16, true);
      emit(fmt::format("cvt{}.f16x2.{} {}, {};", mods, *sm == Mod::SRC_E4M3 ? "e4m3x2" : "e5m2x2",
                       intDst(in, 0, 32), a));
      return true;
    }
    if (*sm != Mod::SRC_F32 || (*dm != Mod::F16 && *dm != Mod::BF16))
      bad();
    std::string a = f32Src(in, 0), b = f32Src(in, 1);
    if (ctx.sm < 80 && *dm == Mod::F16 && !relu &&
        !satfinite) { // .f16x2 from sm_80: two cvt to .f16
      std::string hi = temp(16), lo = temp(16);
      emit(fmt::format("cvt.{}.f16.f32 {}, {};", rz ? "rz" : "rn", hi, a));
      emit(fmt::format("cvt.{}.f16.f32 {}, {};", rz ? "rz" : "rn", lo, b));
      emit(fmt::format("mov.b32 {}, {{{}, {}}};", intDst(in, 0, 32), lo, hi));
      return true;
    }
    ctx.require(satfinite ? 8 : 7, satfinite ? 1 : 0);
    emit(
        fmt::format("cvt{}.{}.f32 {}, {}, {};", mods, halfType(in, true), intDst(in, 0, 32), a, b));
    return true;
  }
  default:
    return false;
  }
}

} // namespace ori::ptx::emit_detail
