// PTX -> Ori, one instruction: half precision (.f16 .bf16 .f16x2 .bf16x2) arithmetic, min/max,
// neg/abs, set/setp, ex2/tanh, and the other float forms of issue 39 (tanh.approx.f32,
// testp). Scalar 16-bit values live zero-extended in R registers (docs/ptx.md, "Conventions"):
// the packed opcodes run on them as pairs whose upper lane is +0.0, which every operation used
// here keeps +0.0 (0 + 0, 0 * 0, fma, min/max, relu, sat of +0.0 are +0.0), so the result is
// zero-extended too.
#include <fmt/format.h>

#include <cmath>

#include "ptx/lowering.h"

namespace ori::ptx::lowering {

namespace {

bool isHalf(PtxType t) {
  return (t.kind == PtxType::Float && t.bits == 16) || t.kind == PtxType::Packed;
}

constexpr std::pair<std::string_view, Mod> kFloatCompares[] = {
    {".eq", Mod::EQ},   {".ne", Mod::NE},    {".lt", Mod::LT},   {".le", Mod::LE},
    {".gt", Mod::GT},   {".ge", Mod::GE},    {".equ", Mod::EQU}, {".neu", Mod::NEU},
    {".ltu", Mod::LTU}, {".leu", Mod::LEU},  {".gtu", Mod::GTU}, {".geu", Mod::GEU},
    {".num", Mod::NUM}, {".nan", Mod::NAN_},
};

} // namespace

// The instructions of this file; nullopt: not one of them (run() goes on).
std::optional<bool> Lowering::halfPrecision() {
  const std::string &op = pi.opcode;
  if (op == "testp")
    return testp();
  if (op == "tanh" || (op == "ex2" && isHalf(lastType(pi))))
    return mufuHalf();
  std::vector<PtxType> ts = types(pi);
  bool anyHalf = false;
  for (PtxType t : ts)
    anyHalf |= isHalf(t);
  if (!anyHalf)
    return std::nullopt;
  if (op == "add" || op == "sub" || op == "mul" || op == "fma")
    return halfArith();
  if (op == "neg" || op == "abs")
    return halfNegAbs();
  if (op == "min" || op == "max")
    return halfMinMax();
  if (op == "setp" || op == "set")
    return halfCompare();
  return std::nullopt;
}

// A 16-bit (scalar) or 32-bit (packed) source: a register, or an immediate of that width.
OOp Lowering::halfSrc(size_t i, PtxType t) {
  PtxType bits{PtxType::Bits, t.kind == PtxType::Packed ? 32u : 16u};
  OOp o = src(i, bits, ori::K_REG | ori::K_IMM);
  if (o.kind == OOp::Kind::Imm)
    o.imm &= bits.bits == 16 ? 0xffff : 0xffffffffll;
  return o;
}

// add/sub/mul/fma{.rn}{.ftz}{.sat|.relu}{.oob} on .f16 .bf16 .f16x2 .bf16x2 (ISA 9.7.4.1-4):
// HADD2, HMUL2, HFMA2; sub flips the sign bits of its second source first.
bool Lowering::halfArith() {
  PtxType t = lastType(pi);
  const std::string &op = pi.opcode;
  bool fma = op == "fma";
  if (fma)
    onlyMods(pi, {".rn", ".ftz", ".sat", ".relu", ".oob"});
  else
    onlyMods(pi, {".rn", ".ftz", ".sat"});
  need(fma ? 4 : 3);
  if (!isHalf(t))
    return false;
  if (fma && !hasMod(pi, ".rn"))
    return false; // PTX requires the rounding of fma
  if (t.bfloat && (hasMod(pi, ".ftz") || hasMod(pi, ".sat")))
    return false;
  if (hasMod(pi, ".sat") && hasMod(pi, ".relu"))
    return false;
  bool packed = t.kind == PtxType::Packed;
  OOp a = halfSrc(1, t), b = halfSrc(2, t);
  if (op == "sub") {
    int64_t signs = packed ? 0x80008000ll : 0x8000;
    if (b.kind == OOp::Kind::Imm) {
      b.imm ^= signs;
    } else {
      ori::Reg nb = L.newTemp(ori::RegFile::R, packed ? "b32" : "b16");
      emit(make(Opcode::LOP3, {Mod::LUT}, {reg(nb)}, {b, imm(signs), kRZ, imm(0x3C)})); // b ^ signs
      b = reg(nb);
    }
  }
  std::vector<OOp> srcs{a, b};
  if (fma)
    srcs.push_back(halfSrc(3, t));
  ori::Instr in = make(fma           ? Opcode::HFMA2
                       : op == "mul" ? Opcode::HMUL2
                                     : Opcode::HADD2,
                       {}, {reg(dst(0))}, srcs);
  if (t.bfloat)
    in.mods.set(Mod::BF16);
  for (auto [text, m] : {std::pair{".ftz", Mod::FTZ}, std::pair{".sat", Mod::SAT},
                         std::pair{".relu", Mod::RELU}, std::pair{".oob", Mod::OOB}})
    if (hasMod(pi, text))
      in.mods.set(m);
  emit(std::move(in));
  return true;
}

// neg/abs{.ftz} on .f16 .bf16 .f16x2 .bf16x2 (ISA 9.7.4.5/6): the sign bits by LOP3; .ftz
// flushes first with HADD2.FTZ a, -0.0 (exact for every other input; a NaN becomes the
// canonical NaN, which PTX allows: "NaN inputs yield an unspecified NaN").
bool Lowering::halfNegAbs() {
  PtxType t = lastType(pi);
  onlyMods(pi, {".ftz"});
  need(2);
  if (!isHalf(t) || (t.bfloat && hasMod(pi, ".ftz")))
    return false;
  bool packed = t.kind == PtxType::Packed, neg = pi.opcode == "neg";
  OOp a = halfSrc(1, t);
  if (hasMod(pi, ".ftz")) {
    ori::Reg f = L.newTemp(ori::RegFile::R, packed ? "b32" : "b16");
    // -0.0 in each lane that holds a value (the upper lane of a scalar stays +0.0 + +0.0).
    emit(make(Opcode::HADD2, {Mod::FTZ}, {reg(f)}, {a, imm(packed ? 0x80008000ll : 0x8000)}));
    a = reg(f);
  }
  int64_t signs = packed ? 0x80008000ll : 0x8000, magnitude = packed ? 0x7fff7fffll : 0x7fff;
  emit(make(Opcode::LOP3, {Mod::LUT}, {reg(dst(0))},
            {a, imm(neg ? signs : magnitude), kRZ, imm(neg ? 0x3C : 0xC0)}));
  return true;
}

// min/max{.ftz}{.NaN}{.xorsign.abs} on .f16 .bf16 .f16x2 .bf16x2 (ISA 9.7.4.7/8): HMNMX2.
bool Lowering::halfMinMax() {
  PtxType t = lastType(pi);
  onlyMods(pi, {".ftz", ".NaN", ".xorsign", ".abs"});
  need(3);
  if (!isHalf(t) || (t.bfloat && hasMod(pi, ".ftz")) ||
      hasMod(pi, ".xorsign") != hasMod(pi, ".abs"))
    return false;
  ori::Instr in = make(Opcode::HMNMX2, {}, {reg(dst(0))},
                       {halfSrc(1, t), halfSrc(2, t), pi.opcode == "min" ? kPT : kNotPT});
  if (t.bfloat)
    in.mods.set(Mod::BF16);
  if (hasMod(pi, ".ftz"))
    in.mods.set(Mod::FTZ);
  if (hasMod(pi, ".NaN"))
    in.mods.set(Mod::NANMM);
  if (hasMod(pi, ".xorsign"))
    in.mods.set(Mod::XORSIGN);
  emit(std::move(in));
  return true;
}

// setp and set with a half-precision side (ISA 9.7.7.1/2).
// setp.cmp{.bool}{.ftz}.f16 p, a, b{, c}: HSETP2 p, PT, a, b, c (lane 0); on .f16x2: p|q from
// lanes 0 and 1. set.cmp{.bool}{.ftz}.dtype.f16 d, a, b{, c}: HSETP2 then SEL of the true value
// (0xffffffff .u32/.s32, 0xffff .u16/.s16, 1.0 .f16/.bf16); set.cmp.dtype.f16x2: HSET2 (.BF for
// a .f16x2/.bf16x2 dtype: lanes of 1.0). set.cmp.f16.stype / .bf16.stype of another stype: the
// setp compare, then SEL 1.0 or 0.0.
bool Lowering::halfCompare() {
  std::vector<PtxType> ts = types(pi);
  bool isSet = pi.opcode == "set";
  if (ts.size() != (isSet ? 2u : 1u))
    return false;
  PtxType st = ts.back(), dt = ts.front();
  auto trueValue = [&](PtxType d) -> std::optional<int64_t> {
    if (d.kind == PtxType::Float && d.bits == 16)
      return d.bfloat ? 0x3f80 : 0x3c00;
    if ((d.kind == PtxType::Unsigned || d.kind == PtxType::Signed) &&
        (d.bits == 16 || d.bits == 32))
      return d.bits == 16 ? 0xffff : 0xffffffffll;
    return std::nullopt;
  };
  if (isSet && !isHalf(st)) { // set.f16/.bf16.stype of an integer or wider float stype
    std::optional<int64_t> one = trueValue(dt);
    if (!one || dt.kind != PtxType::Float)
      return false;
    ori::Reg p = L.newTemp(ori::RegFile::P, "pred");
    if (!compare(reg(p), kPT, 1, st))
      return false;
    emit(make(Opcode::SEL, {}, {reg(dst(0))}, {imm(*one), imm(0), reg(p)}));
    return true;
  }
  if (!isHalf(st))
    return false;
  std::optional<Mod> cmp, boolOp;
  for (const std::string &m : pi.mods) {
    if (parseType(m).kind != PtxType::None)
      continue;
    bool known = m == ".ftz" && !st.bfloat;
    for (auto [text, mod] : kFloatCompares)
      if (m == text) {
        cmp = mod;
        known = true;
      }
    if (m == ".and") {
      boolOp = Mod::AND;
      known = true;
    }
    if (m == ".or") {
      boolOp = Mod::OR;
      known = true;
    }
    if (m == ".xor") {
      boolOp = Mod::XOR;
      known = true;
    }
    if (!known)
      return false;
  }
  if (!cmp || ops.size() != (boolOp ? 4u : 3u))
    return false;
  bool packed = st.kind == PtxType::Packed;
  OOp c = boolOp ? src(3, PtxType{PtxType::Pred, 1}, ori::K_PRED | ori::K_REG) : kPT;
  auto withMods = [&](ori::Instr in) {
    in.mods.set(*cmp);
    in.mods.set(boolOp.value_or(Mod::AND));
    if (st.bfloat)
      in.mods.set(Mod::BF16);
    if (hasMod(pi, ".ftz"))
      in.mods.set(Mod::FTZ);
    return in;
  };
  if (!isSet) {
    OOp p = kPT, q = kPT;
    if (ops[0].kind == Operand::Kind::Pair) {
      if (!packed)
        return false; // the scalar forms have one destination
      if (ops[0].elems[0].kind != Operand::Kind::Sink)
        p = reg(L.destination(ops[0].elems[0]));
      if (ops[0].elems[1].kind != Operand::Kind::Sink)
        q = reg(L.destination(ops[0].elems[1]));
    } else {
      p = reg(dst(0));
    }
    if (!p.reg.isPredicate() || !q.reg.isPredicate())
      return false;
    emit(withMods(make(Opcode::HSETP2, {}, {p, q}, {halfSrc(1, st), halfSrc(2, st), c})));
    return true;
  }
  if (packed) { // dtype .f16x2/.bf16x2 (lanes of 1.0), .u32/.s32 (lanes of 0xffff)
    bool floats = dt.kind == PtxType::Packed;
    if (!floats && !(dt.bits == 32 && (dt.kind == PtxType::Unsigned || dt.kind == PtxType::Signed)))
      return false;
    if (floats && dt.bfloat != st.bfloat)
      return false;
    ori::Instr in =
        withMods(make(Opcode::HSET2, {}, {reg(dst(0))}, {halfSrc(1, st), halfSrc(2, st), c}));
    if (floats)
      in.mods.set(Mod::BFV);
    emit(std::move(in));
    return true;
  }
  std::optional<int64_t> one = trueValue(dt);
  if (!one)
    return false;
  ori::Reg p = L.newTemp(ori::RegFile::P, "pred");
  emit(withMods(make(Opcode::HSETP2, {}, {reg(p), kPT}, {halfSrc(1, st), halfSrc(2, st), c})));
  emit(make(Opcode::SEL, {}, {reg(dst(0))}, {imm(*one), imm(0), reg(p)}));
  return true;
}

// tanh.approx.f32: MUFU.TANH. ex2.approx{.ftz} and tanh.approx on .f16 .bf16 (ISA 9.7.4.9/10):
// MUFU.EX2/TANH.F16/.BF16 on one value; on .f16x2 .bf16x2: on each half (the upper one shifted
// down), packed by PRMT.
bool Lowering::mufuHalf() {
  PtxType t = lastType(pi);
  onlyMods(pi, {".approx", ".ftz"});
  need(2);
  if (!hasMod(pi, ".approx"))
    return false;
  Mod fn = pi.opcode == "tanh" ? Mod::TANH : Mod::EX2;
  bool ftz = hasMod(pi, ".ftz");
  if (t.kind == PtxType::Float && t.bits == 32 && !t.bfloat) {
    if (fn != Mod::TANH || ftz)
      return false;
    emit(make(Opcode::MUFU, {Mod::TANH}, {reg(dst(0))}, {srcReg(1, t)}));
    return true;
  }
  if (!isHalf(t))
    return false;
  // PTX: ex2 .bf16 requires .ftz, .f16 forbids it; tanh takes none.
  if (fn == Mod::TANH ? ftz : ftz != t.bfloat)
    return false;
  Mod width = t.bfloat ? Mod::BF16 : Mod::F16;
  auto one = [&](OOp a, ori::Reg d) {
    ori::Instr in = make(Opcode::MUFU, {fn, width}, {reg(d)}, {a});
    if (ftz)
      in.mods.set(Mod::FTZ);
    emit(std::move(in));
  };
  if (t.kind != PtxType::Packed) {
    one(srcReg(1, PtxType{PtxType::Bits, 16}), dst(0));
    return true;
  }
  OOp a = srcReg(1, PtxType{PtxType::Bits, 32});
  ori::Reg hiIn = temp32(), lo = temp32(), hi = temp32();
  one(a, lo);
  emit(make(Opcode::SHR, {Mod::U32}, {reg(hiIn)}, {a, imm(16)}));
  one(reg(hiIn), hi);
  emit(make(Opcode::PRMT, {}, {reg(dst(0))}, {reg(lo), imm(0x5410), reg(hi)}));
  return true;
}

// testp.op.{f32,f64} p, a (ISA 9.7.3.1), by comparisons of |a| (FSETP/DSETP, exact: no .FTZ):
// finite |a| < inf; infinite |a| == inf; number and notanumber a NUM/NAN a; subnormal
// 0 < |a| < smallest normal; normal: finite and not subnormal (±0 count as normal).
bool Lowering::testp() {
  PtxType t = lastType(pi);
  static constexpr std::string_view kOps[] = {".finite",     ".infinite", ".number",
                                              ".notanumber", ".normal",   ".subnormal"};
  onlyMods(pi, {".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal"});
  need(2);
  if (t.kind != PtxType::Float || t.bfloat || (t.bits != 32 && t.bits != 64))
    return false;
  std::string_view which;
  for (std::string_view o : kOps)
    if (hasMod(pi, o))
      which = o;
  if (which.empty())
    return false;
  ori::Reg p = dst(0);
  if (!p.isPredicate())
    return false;
  Opcode setp = t.bits == 32 ? Opcode::FSETP : Opcode::DSETP;
  OOp a = srcReg(1, t), absA = a;
  absA.abs = true;
  double inf = INFINITY, minNormal = t.bits == 32 ? 0x1p-126 : 0x1p-1022;
  auto cmp = [&](OOp d, Mod c, OOp x, OOp y, Mod b, OOp pc) {
    emit(make(setp, {c, b}, {d, kPT}, {x, y, pc}));
  };
  auto fimm = [](double v) { return OOp::floatImm(v); };
  if (which == ".finite")
    cmp(reg(p), Mod::LT, absA, fimm(inf), Mod::AND, kPT);
  else if (which == ".infinite")
    cmp(reg(p), Mod::EQ, absA, fimm(inf), Mod::AND, kPT);
  else if (which == ".number")
    cmp(reg(p), Mod::NUM, a, a, Mod::AND, kPT);
  else if (which == ".notanumber")
    cmp(reg(p), Mod::NAN_, a, a, Mod::AND, kPT);
  else {
    ori::Reg nonzero = L.newTemp(ori::RegFile::P, "pred");
    cmp(reg(nonzero), Mod::GT, absA, fimm(0.0), Mod::AND, kPT); // false for ±0 and NaN
    if (which == ".subnormal") {
      cmp(reg(p), Mod::LT, absA, fimm(minNormal), Mod::AND, reg(nonzero));
    } else {
      // not subnormal: |a| >= min normal (or NaN), or not nonzero; then finite.
      ori::Reg notSub = L.newTemp(ori::RegFile::P, "pred");
      cmp(reg(notSub), Mod::GEU, absA, fimm(minNormal), Mod::OR, reg(nonzero, true));
      cmp(reg(p), Mod::LT, absA, fimm(inf), Mod::AND, reg(notSub));
    }
  }
  return true;
}

} // namespace ori::ptx::lowering
