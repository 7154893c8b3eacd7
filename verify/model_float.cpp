// Models of the floating-point opcodes and conversions (docs/interpreter.md;
// PTX ISA add/mul/fma .rn .rz .rm .rp .ftz .sat, min/max, setp, cvt), on
// Z3's IEEE 754 terms. NaN results are canonical (binary32 0x7fffffff,
// binary64 0xfff8000000000000), so no result depends on which NaN Z3 picks.
#include <bit>
#include <cmath>

#include "verify/model_float_impl.h"

namespace ori::verify {
namespace models {
namespace {
constexpr uint64_t kOne32 = 0x3f800000;
} // namespace

std::optional<ModelOutputs> fArith(ModelContext &m) {
  Smt &smt = m.smt;
  bool ftz = m.has(Mod::FTZ), sat = m.has(Mod::SAT);
  auto in = [&](size_t i) {
    z3::expr b = m.f32Src(i);
    return smt.fromBits(ftz ? flush32(smt, b) : b);
  };
  Rounding r = roundingOf(m);
  std::optional<z3::expr> v;
  switch (m.in.op) {
  case Opcode::FADD:
    v = smt.fpAdd(r, in(0), in(1));
    break;
  case Opcode::FMUL:
    v = smt.fpMul(r, in(0), in(1));
    break;
  case Opcode::FFMA:
    v = smt.fpFma(r, in(0), in(1), in(2));
    break;
  default:
    return std::nullopt;
  }
  z3::expr bits = Smt::toBits(*v);
  if (ftz)
    bits = flush32(smt, bits);
  if (sat) { // clamp to [0, 1]: NaN and -0.0 give +0.0 (after .FTZ)
    z3::expr x = smt.fromBits(bits);
    bits = z3::ite(!smt.fpLt(smt.floatVal(0.0, 32), x), smt.bv(0, 32),
                   z3::ite(smt.fpLt(smt.floatVal(1.0, 32), x), smt.bv(kOne32, 32), bits));
  }
  bits = z3::ite(v->mk_is_nan(), smt.bv(sat ? 0 : kNaN32, 32), bits);
  return one(m.wide(bits));
}

std::optional<ModelOutputs> dArith(ModelContext &m) {
  Smt &smt = m.smt;
  auto in = [&](size_t i) { return smt.fromBits(m.f64Src(i)); };
  Rounding r = roundingOf(m);
  std::optional<z3::expr> v;
  switch (m.in.op) {
  case Opcode::DADD:
    v = smt.fpAdd(r, in(0), in(1));
    break;
  case Opcode::DMUL:
    v = smt.fpMul(r, in(0), in(1));
    break;
  case Opcode::DFMA:
    v = smt.fpFma(r, in(0), in(1), in(2));
    break;
  default:
    return std::nullopt;
  }
  return one(z3::ite(v->mk_is_nan(), smt.bv(kNaN64, 64), Smt::toBits(*v)));
}

// IEEE 754-2019 minimumNumber/maximumNumber with -0.0 < +0.0 (.NAN: PTX min/max.NaN,
// .XORSIGN: .xorsign.abs); the result is one of the (flushed) inputs bit for bit; two NaNs give
// the canonical NaN.
std::optional<ModelOutputs> fmnmx(ModelContext &m) {
  Smt &smt = m.smt;
  z3::expr a = m.f32Src(0), b = m.f32Src(1);
  if (m.has(Mod::FTZ)) {
    a = flush32(smt, a);
    b = flush32(smt, b);
  }
  return one(m.wide(minMaxExpr(smt, a, b, m.predSrc(2), m.has(Mod::NANMM), m.has(Mod::XORSIGN),
                               smt.floatSort(8, 24), 32, kNaN32)));
}

// PTX setp on floats: ordered comparisons are false with a NaN operand, the
// U forms true; NUM/NAN test for NaNs; T and F are constant.
std::optional<ModelOutputs> fsetp(ModelContext &m) {
  Smt &smt = m.smt;
  auto cmp = m.mod(ModGroup::Cmp);
  if (!cmp)
    return std::nullopt;
  z3::expr x(smt.ctx()), y(smt.ctx());
  if (m.in.op == Opcode::FSETP) {
    z3::expr a = m.f32Src(0), b = m.f32Src(1);
    if (m.has(Mod::FTZ)) {
      a = flush32(smt, a);
      b = flush32(smt, b);
    }
    x = smt.fromBits(a);
    y = smt.fromBits(b);
  } else {
    x = smt.fromBits(m.f64Src(0));
    y = smt.fromBits(m.f64Src(1));
  }
  std::optional<z3::expr> r = compareExpr(smt, *cmp, x, y);
  if (!r)
    return std::nullopt;
  return predicatePair(m, *r, m.predSrc(2));
}

std::optional<ModelOutputs> dmnmx(ModelContext &m) {
  Smt &smt = m.smt;
  z3::expr a = m.f64Src(0), b = m.f64Src(1);
  z3::expr x = smt.fromBits(a), y = smt.fromBits(b);
  z3::expr aNeg = a.extract(63, 63) == smt.bv(1, 1);
  z3::expr same = smt.fpEq(x, y);
  z3::expr minTakesA = smt.fpLt(x, y) || (same && aNeg);
  z3::expr maxTakesA = smt.fpLt(y, x) || (same && !aNeg);
  z3::expr pick = z3::ite(z3::ite(m.predSrc(2), minTakesA, maxTakesA), a, b);
  return one(z3::ite(x.mk_is_nan() && y.mk_is_nan(), smt.bv(kNaN64, 64),
                     z3::ite(x.mk_is_nan(), b, z3::ite(y.mk_is_nan(), a, pick))));
}

namespace {
// MUFU.RCP64H/RSQ64H (PTX rcp/rsqrt.approx.ftz.f64, ISA 9.7.3.14/17): the high word of a as a
// binary64 with the low word zero, a denormal flushed; RN(1/t) or RN(1/RN(sqrt t)) in binary64,
// then rounded to nearest even to 20 fraction bits (1.11.20), a denormal flushed, into the high
// word; NaN gives 0x7fffffff00000000 (the ISA's).
ModelOutputs mufu64H(ModelContext &m, Mod fn) {
  Smt &smt = m.smt;
  constexpr uint64_t kNaN64H = 0x7fffffff00000000ull;
  z3::expr hi = flushBits(smt, m.f64Src(0).extract(63, 32), 32, 11);
  z3::expr t = smt.fromBits(z3::concat(hi, smt.bv(0, 32)));
  z3::expr one64 = smt.floatVal(1.0, 64);
  z3::expr q = fn == Mod::RCP64H
                   ? smt.fpDiv(Rounding::NearestEven, one64, t)
                   : smt.fpDiv(Rounding::NearestEven, one64, smt.fpSqrt(Rounding::NearestEven, t));
  z3::expr h = flushBits(
      smt, Smt::toBits(smt.fpConvert(Rounding::NearestEven, q, smt.floatSort(11, 21))), 32, 11);
  return one(z3::ite(q.mk_is_nan(), smt.bv(kNaN64H, 64), z3::concat(h, smt.bv(0, 32))));
}
} // namespace

// MUFU, as docs/interpreter.md defines its results: RCP = RN(1/x), SQRT = RN(sqrt x),
// RSQ = RN(1/RN(sqrt x)), EX2/LG2/SIN/COS as ir/approx_math.h computes them; .FTZ flushes
// the source and the result.
std::optional<ModelOutputs> mufu(ModelContext &m) {
  Smt &smt = m.smt;
  auto fn = m.mod(ModGroup::MufuOp);
  if (!fn)
    return std::nullopt;
  bool ftz = m.has(Mod::FTZ);
  auto width = m.mod(ModGroup::FType);
  if (*fn == Mod::RCP64H || *fn == Mod::RSQ64H) {
    if (width)
      return std::nullopt;
    return mufu64H(m, *fn);
  }
  if (width == Mod::F64) { // rsqrt.approx.f64: RN(1/RN(sqrt a)) in binary64
    if (*fn != Mod::RSQ || ftz)
      return std::nullopt;
    z3::expr x = smt.fromBits(m.f64Src(0));
    z3::expr y = smt.fpDiv(Rounding::NearestEven, smt.floatVal(1.0, 64),
                           smt.fpSqrt(Rounding::NearestEven, x));
    return one(bitsOf(y, kNaN64, 64, smt));
  }
  if (width == Mod::F16 || width == Mod::BF16) { // one 16-bit value: the binary32 function, rounded
    if (*fn != Mod::EX2 && *fn != Mod::TANH)
      return std::nullopt;
    FloatFormat f = formatOf(smt, *width);
    if (m.in.srcs.at(0).kind == Operand::Kind::FImm)
      return std::nullopt;
    z3::expr b = Smt::low(m.raw(0), 16);
    if (m.in.srcs[0].abs)
      b = b & smt.bv(0x7fff, 16);
    if (m.in.srcs[0].neg)
      b = b ^ smt.bv(0x8000, 16);
    if (ftz)
      b = flush16(smt, b, f.expBits);
    z3::expr x = smt.fpConvert(Rounding::NearestEven, smt.fromBits(b, f.sort),
                               smt.floatSort(8, 24)); // exact
    Z3ApproxOps o{smt};
    z3::expr y = *fn == Mod::EX2 ? approx::ex2(o, x) : approx::tanh(o, x);
    z3::expr bits = bitsOf(smt.fpConvert(Rounding::NearestEven, y, f.sort), kNaN16, 16, smt);
    return one(m.wide(ftz ? flush16(smt, bits, f.expBits) : bits));
  }
  if (width)
    return std::nullopt;
  z3::expr x = smt.fromBits(ftz ? flush32(smt, m.f32Src(0)) : m.f32Src(0));
  z3::expr one32 = smt.floatVal(1.0, 32);
  std::optional<z3::expr> y;
  switch (*fn) {
  case Mod::RCP:
    y = smt.fpDiv(Rounding::NearestEven, one32, x);
    break;
  case Mod::SQRT:
    y = smt.fpSqrt(Rounding::NearestEven, x);
    break;
  case Mod::RSQ:
    y = smt.fpDiv(Rounding::NearestEven, one32, smt.fpSqrt(Rounding::NearestEven, x));
    break;
  case Mod::EX2: {
    Z3ApproxOps o{smt};
    y = approx::ex2(o, x);
    break;
  }
  case Mod::LG2: {
    Z3ApproxOps o{smt};
    y = approx::lg2(o, x);
    break;
  }
  case Mod::SIN:
  case Mod::COS: {
    Z3ApproxOps o{smt};
    y = approx::sinCos(o, x, *fn == Mod::COS);
    break;
  }
  case Mod::TANH: {
    Z3ApproxOps o{smt};
    y = approx::tanh(o, x);
    break;
  }
  default:
    return std::nullopt;
  }
  z3::expr out = ftz ? flush32(smt, Smt::toBits(*y)) : Smt::toBits(*y);
  return one(m.wide(z3::ite(y->mk_is_nan(), smt.bv(kNaN32, 32), out)));
}

// FDIV and FSQRT: IEEE division and square root in the requested direction.
std::optional<ModelOutputs> fdivSqrt(ModelContext &m) {
  Smt &smt = m.smt;
  bool div = m.in.op == Opcode::FDIV, f64 = m.has(Mod::F64), ftz = m.has(Mod::FTZ);
  if (f64 && ftz)
    return std::nullopt;
  auto in = [&](size_t i) {
    if (f64)
      return smt.fromBits(m.f64Src(i));
    return smt.fromBits(ftz ? flush32(smt, m.f32Src(i)) : m.f32Src(i));
  };
  Rounding r = roundingOf(m);
  z3::expr y = div ? smt.fpDiv(r, in(0), in(1)) : smt.fpSqrt(r, in(0));
  if (f64)
    return one(bitsOf(y, kNaN64, 64, smt));
  z3::expr out = ftz ? flush32(smt, Smt::toBits(y)) : Smt::toBits(y);
  return one(m.wide(z3::ite(y.mk_is_nan(), smt.bv(kNaN32, 32), out)));
}

// HADD2/HMUL2/HFMA2: each 16-bit lane on its own, rounded to nearest even; .FTZ flushes
// sources and result, .SAT clamps to [0, 1], .RELU makes a negative result +0.0 (NaN
// canonical), .OOB gives +0.0 where an operand is 0x7fff.
std::optional<ModelOutputs> half2(ModelContext &m) {
  Smt &smt = m.smt;
  FloatFormat f = formatOf(smt, m.has(Mod::BF16) ? Mod::BF16 : Mod::F16);
  bool ftz = m.has(Mod::FTZ), sat = m.has(Mod::SAT);
  size_t n = m.in.op == Opcode::HFMA2 ? 3 : 2;
  std::optional<z3::expr> result;
  for (unsigned lane = 0; lane < 2; ++lane) {
    std::vector<z3::expr> v;
    z3::expr oob = smt.boolVal(false); // an operand is the out-of-bounds NaN 0x7fff (HFMA2.OOB)
    for (size_t i = 0; i < n; ++i) {
      z3::expr b = m.intSrc(i, 32).extract(16 * lane + 15, 16 * lane);
      oob = oob || b == smt.bv(0x7fff, 16);
      v.push_back(smt.fromBits(ftz ? flush16(smt, b, f.expBits) : b, f.sort));
    }
    z3::expr y = m.in.op == Opcode::HADD2   ? smt.fpAdd(Rounding::NearestEven, v[0], v[1])
                 : m.in.op == Opcode::HMUL2 ? smt.fpMul(Rounding::NearestEven, v[0], v[1])
                                            : smt.fpFma(Rounding::NearestEven, v[0], v[1], v[2]);
    if (sat)
      y = saturate(smt, y, f.sort);
    z3::expr bits = bitsOf(y, kNaN16, 16, smt);
    if (ftz)
      bits = flush16(smt, bits, f.expBits);
    if (m.has(Mod::RELU))
      bits = reluBits(smt, bits, y.mk_is_nan(), 16, kNaN16);
    if (m.has(Mod::OOB))
      bits = z3::ite(oob, smt.bv(0, 16), bits);
    result = result ? z3::concat(bits, *result) : bits;
  }
  return one(m.wide(*result));
}

} // namespace models
} // namespace ori::verify
