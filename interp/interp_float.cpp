// Floating-point semantics of the interpreter: FADD/FMUL/FFMA/FMNMX/FSETP on
// binary32, DADD/DMUL/DFMA/DSETP on binary64, and the I2F/F2I conversions
// (docs/interpreter.md has the table this file implements).
//
// Directed rounding (.RZ/.RM/.RP) switches the host's rounding mode with
// fesetround around exactly one operation whose operands and result pass
// through volatile objects, so the compiler can neither fold the operation
// nor move it out of the window; the unit tests check each mode on inputs
// whose correctly rounded results differ. Integer-to-float conversions are
// rounded exactly instead (host round-to-nearest, then one step towards the
// requested direction if the result overshoots).
#include <fmt/format.h>

#include <bit>
#include <cfenv>
#include <cmath>
#include <limits>
#include <optional>

#include "ir/approx_math.h"
#include "ir/float_format.h"
#include "interp/interp_impl.h"

namespace ori::interp_detail {
namespace {

__extension__ typedef __int128 I128;

constexpr uint32_t kCanonicalNaN32 = 0x7fffffffu;            // CUDART_NAN_F (math_constants.h)
constexpr uint64_t kCanonicalNaN64 = 0xfff8000000000000ull;  // CUDART_NAN
constexpr uint64_t kCanonicalNaN16 = 0x7fff;                 // binary16 and bfloat16 (CUDART_NAN_FP16)

float asF32(uint32_t b) { return std::bit_cast<float>(b); }
double asF64(uint64_t b) { return std::bit_cast<double>(b); }

// .FTZ: a denormal becomes a zero of the same sign.
uint32_t flush32(uint32_t b) { return (b & 0x7f800000u) == 0 ? b & 0x80000000u : b; }

int hostRounding(const Instr& in) {
  auto r = modOf(in, ModGroup::FRound);
  if (!r || *r == Mod::RN) return FE_TONEAREST;
#if defined(FE_TOWARDZERO) && defined(FE_DOWNWARD) && defined(FE_UPWARD)
  if (*r == Mod::RZ) return FE_TOWARDZERO;
  if (*r == Mod::RM) return FE_DOWNWARD;
  return FE_UPWARD;
#else
  unsupported(fmt::format("the host cannot round .{}", modText(*r)));
#endif
}

// op(a, b, c) evaluated once under the host rounding mode `mode`.
template <typename T, typename Op> T rounded(int mode, T a, T b, T c, Op op) {
  volatile T va = a, vb = b, vc = c;
  if (mode == FE_TONEAREST) {
    volatile T r = op(T(va), T(vb), T(vc));
    return r;
  }
  int old = std::fegetround();
  if (std::fesetround(mode) != 0) unsupported("the host cannot select the rounding mode");
  volatile T r = op(T(va), T(vb), T(vc));
  std::fesetround(old);
  return r;
}

// The bits of a binary32 result: canonical NaN, .FTZ on the output, then
// .SAT (clamp to [0, 1]; NaN and -0.0 give +0.0).
uint32_t finish32(float r, bool ftz, bool sat) {
  if (std::isnan(r)) return sat ? 0 : kCanonicalNaN32;
  uint32_t b = std::bit_cast<uint32_t>(r);
  if (ftz) b = flush32(b);
  if (sat) {
    float x = asF32(b);
    if (!(x > 0)) b = 0;
    else if (x > 1) b = std::bit_cast<uint32_t>(1.0f);
  }
  return b;
}

uint64_t finish64(double r) { return std::isnan(r) ? kCanonicalNaN64 : std::bit_cast<uint64_t>(r); }

bool floatCompare(Mod cmp, double x, double y) {
  bool un = std::isnan(x) || std::isnan(y);
  switch (cmp) {
  case Mod::F: return false;
  case Mod::LT: return !un && x < y;
  case Mod::EQ: return !un && x == y;
  case Mod::LE: return !un && x <= y;
  case Mod::GT: return !un && x > y;
  case Mod::NE: return !un && x != y;
  case Mod::GE: return !un && x >= y;
  case Mod::NUM: return !un;
  case Mod::NAN_: return un;
  case Mod::LTU: return un || x < y;
  case Mod::EQU: return un || x == y;
  case Mod::LEU: return un || x <= y;
  case Mod::GTU: return un || x > y;
  case Mod::NEU: return un || x != y;
  case Mod::GEU: return un || x >= y;
  case Mod::T: return true;
  default: unsupported(fmt::format("float comparison .{}", modText(cmp)));
  }
}

struct IntKind {
  unsigned bits = 32;
  bool isSigned = true;
};
// The integer type of I2F's source or F2I's result; .S32 when absent.
IntKind intKind(const Instr& in) {
  auto t = modOf(in, ModGroup::Type);
  switch (t.value_or(Mod::S32)) {
  case Mod::U8: return {8, false};
  case Mod::S8: return {8, true};
  case Mod::U16: return {16, false};
  case Mod::S16: return {16, true};
  case Mod::U32: return {32, false};
  case Mod::U64: return {64, false};
  case Mod::S64: return {64, true};
  case Mod::S32: return {32, true};
  default: unsupported(fmt::format("integer type .{}", modText(*t)));
  }
}

// x (exactly an integer of 64 bits or fewer) rounded to F as `round` says.
template <typename F> F intToFloat(I128 x, Mod round) {
  F r = x < 0 ? F(int64_t(x)) : F(uint64_t(x)); // the host rounds to nearest even
  I128 rv = I128(r);                             // exact: |r| <= 2^64
  constexpr F inf = std::numeric_limits<F>::infinity();
  switch (round) {
  case Mod::RZ:
    if ((x >= 0 && rv > x) || (x < 0 && rv < x)) r = std::nextafter(r, F(0));
    break;
  case Mod::RM:
    if (rv > x) r = std::nextafter(r, -inf);
    break;
  case Mod::RP:
    if (rv < x) r = std::nextafter(r, inf);
    break;
  default: break;
  }
  return r;
}

// v rounded to an integer as `round` says (round to nearest even when
// absent), NaN -> 0, saturated to the type's range (PTX cvt).
uint64_t floatToInt(double v, std::optional<Mod> round, IntKind k) {
  if (std::isnan(v)) return 0;
  double r = !round ? std::nearbyint(v) // the host mode is round-to-nearest-even here
             : *round == Mod::TRUNC ? std::trunc(v)
             : *round == Mod::FLOOR ? std::floor(v)
                                    : std::ceil(v);
  if (k.isSigned) {
    double lim = std::ldexp(1.0, int(k.bits) - 1);
    int64_t x = r >= lim ? int64_t((uint64_t(1) << (k.bits - 1)) - 1)
                : r < -lim ? int64_t(uint64_t(0) - (uint64_t(1) << (k.bits - 1)))
                           : int64_t(r);
    return maskTo(uint64_t(x), k.bits == 64 ? 64 : 32); // 8/16-bit results sign-extended to 32
  }
  double lim = std::ldexp(1.0, int(k.bits));
  if (r >= lim) return maskTo(~uint64_t(0), k.bits);
  if (!(r > 0)) return 0;
  return uint64_t(r);
}


fp::Round fpRound(const Instr& in) {
  switch (modOf(in, ModGroup::FRound).value_or(Mod::RN)) {
  case Mod::RZ: return fp::Round::TowardZero;
  case Mod::RM: return fp::Round::Down;
  case Mod::RP: return fp::Round::Up;
  default: return fp::Round::NearestEven;
  }
}

// The formats F2F converts between; 64 bits is the host's double.
struct FloatKind {
  unsigned bits;
  fp::Format format; // unused for 64 bits
  uint64_t nan;
};
FloatKind floatKind(Mod m) {
  switch (m) {
  case Mod::F16: case Mod::SRC_F16: return {16, fp::kHalf, kCanonicalNaN16};
  case Mod::BF16: case Mod::SRC_BF16: return {16, fp::kBFloat16, kCanonicalNaN16};
  case Mod::F32: case Mod::SRC_F32: return {32, fp::kSingle, kCanonicalNaN32};
  default: return {64, fp::kSingle, kCanonicalNaN64};
  }
}

// PTX cvt.sat and the .SAT of the packed opcodes: clamp to [0, 1]; NaN and -0.0 give +0.0.
double saturate(double v) { return !(v > 0) ? 0.0 : v > 1 ? 1.0 : v; }

// One binary16/bfloat16 lane of HADD2/HMUL2/HFMA2.
uint64_t halfLane(Opcode op, fp::Format f, bool ftz, bool sat, uint64_t a, uint64_t b, uint64_t c) {
  auto in = [&](uint64_t x) { return fp::decode(ftz ? fp::flush(x, f) : x, f); };
  double x = in(a), y = in(b);
  double r = op == Opcode::HADD2 ? fp::fmaToOdd(x, 1.0, y) : op == Opcode::HMUL2 ? x * y : fp::fmaToOdd(x, y, in(c));
  if (sat) r = saturate(r);
  uint64_t bits = fp::encode(r, f, fp::Round::NearestEven, kCanonicalNaN16);
  return ftz ? fp::flush(bits, f) : bits;
}

} // namespace

// A binary16/bfloat16 source: the low 16 bits of a register or constant, or a float
// immediate rounded to the format; `|..|` and `-` act on bit 15.
uint64_t Machine::readHalfBits(const Instr& in, size_t i, fp::Format f) const {
  const Operand& o = src(in, i);
  uint64_t v = 0;
  switch (o.kind) {
  case Operand::Kind::Reg:
    if (!o.reg.isGeneral()) malformed(fmt::format("operand {} of {} at line {} must be a register of file R or UR",
                                                  i + 1, in.info().name, in.loc.line));
    v = th->regs.get(o.reg) & 0xffff;
    break;
  case Operand::Kind::FImm: v = fp::encode(o.fimm, f, fp::Round::NearestEven, kCanonicalNaN16); break;
  case Operand::Kind::CBank: v = readCBank(o, 2); break;
  default: malformed(fmt::format("operand {} of {} at line {} must be a float register, immediate or constant", i + 1,
                                 in.info().name, in.loc.line));
  }
  if (o.abs) v &= 0x7fff;
  if (o.neg) v ^= 0x8000;
  return v;
}

bool Machine::execFloat(const Instr& in) {
  switch (in.op) {
  case Opcode::FADD: case Opcode::FMUL: case Opcode::FFMA: {
    bool ftz = in.has(Mod::FTZ), sat = in.has(Mod::SAT);
    auto in32 = [&](size_t i) { uint32_t b = readF32Bits(in, i); return asF32(ftz ? flush32(b) : b); };
    float a = in32(0), b = in32(1), c = in.op == Opcode::FFMA ? in32(2) : 0.0f;
    int mode = hostRounding(in);
    float r = in.op == Opcode::FADD ? rounded(mode, a, b, c, [](float x, float y, float) { return x + y; })
              : in.op == Opcode::FMUL ? rounded(mode, a, b, c, [](float x, float y, float) { return x * y; })
                                      : rounded(mode, a, b, c, [](float x, float y, float z) { return std::fma(x, y, z); });
    writeInt(in, 0, finish32(r, ftz, sat), 32);
    return true;
  }
  case Opcode::DADD: case Opcode::DMUL: case Opcode::DFMA: {
    double a = asF64(readF64Bits(in, 0)), b = asF64(readF64Bits(in, 1));
    double c = in.op == Opcode::DFMA ? asF64(readF64Bits(in, 2)) : 0.0;
    int mode = hostRounding(in);
    double r = in.op == Opcode::DADD ? rounded(mode, a, b, c, [](double x, double y, double) { return x + y; })
               : in.op == Opcode::DMUL ? rounded(mode, a, b, c, [](double x, double y, double) { return x * y; })
                                       : rounded(mode, a, b, c, [](double x, double y, double z) { return std::fma(x, y, z); });
    writeInt(in, 0, finish64(r), 64);
    return true;
  }
  case Opcode::FMNMX: {
    bool ftz = in.has(Mod::FTZ);
    uint32_t a = readF32Bits(in, 0), b = readF32Bits(in, 1);
    if (ftz) { a = flush32(a); b = flush32(b); }
    bool takeMin = readPred(in, 2);
    float x = asF32(a), y = asF32(b);
    uint32_t r;
    if (std::isnan(x) && std::isnan(y)) r = kCanonicalNaN32;
    else if (std::isnan(x)) r = b;
    else if (std::isnan(y)) r = a;
    else if (x == y) r = takeMin ? a | b : a & b; // -0.0 < +0.0: min takes the sign bit, max drops it
    else r = (x < y) == takeMin ? a : b;
    writeInt(in, 0, r, 32);
    return true;
  }
  case Opcode::FSETP: case Opcode::DSETP: {
    auto cmp = modOf(in, ModGroup::Cmp);
    if (!cmp) unsupported(fmt::format("{} without a comparison (.LT, .EQU, ...)", in.info().name));
    double x, y;
    if (in.op == Opcode::FSETP) {
      bool ftz = in.has(Mod::FTZ);
      uint32_t a = readF32Bits(in, 0), b = readF32Bits(in, 1);
      x = asF32(ftz ? flush32(a) : a);
      y = asF32(ftz ? flush32(b) : b);
    } else {
      x = asF64(readF64Bits(in, 0));
      y = asF64(readF64Bits(in, 1));
    }
    bool r = floatCompare(*cmp, x, y);
    bool c = readPred(in, 2);
    writePred(in, 0, combinePredicate(in, r, c));
    writePred(in, 1, combinePredicate(in, !r, c));
    return true;
  }
  case Opcode::I2F: {
    IntKind k = intKind(in);
    uint64_t raw = readInt(in, 0, k.bits == 64 ? 64 : 32);
    I128 x = k.isSigned ? I128(signExtend(raw, k.bits)) : I128(maskTo(raw, k.bits));
    Mod round = modOf(in, ModGroup::FRound).value_or(Mod::RN);
    if (in.has(Mod::F64)) writeInt(in, 0, std::bit_cast<uint64_t>(intToFloat<double>(x, round)), 64);
    else writeInt(in, 0, std::bit_cast<uint32_t>(intToFloat<float>(x, round)), 32);
    return true;
  }
  case Opcode::F2I: {
    bool ftz = in.has(Mod::FTZ);
    double v;
    if (in.has(Mod::F64)) {
      if (ftz) unsupported("F2I.F64.FTZ: .FTZ applies to binary32 sources only (PTX cvt)");
      v = asF64(readF64Bits(in, 0));
    } else {
      uint32_t b = readF32Bits(in, 0);
      v = asF32(ftz ? flush32(b) : b);
    }
    IntKind k = intKind(in);
    writeInt(in, 0, floatToInt(v, modOf(in, ModGroup::IRound), k), k.bits == 64 ? 64 : 32);
    return true;
  }

  case Opcode::DMNMX: {
    uint64_t a = readF64Bits(in, 0), b = readF64Bits(in, 1);
    bool takeMin = readPred(in, 2);
    double x = asF64(a), y = asF64(b);
    uint64_t r;
    if (std::isnan(x) && std::isnan(y)) r = kCanonicalNaN64;
    else if (std::isnan(x)) r = b;
    else if (std::isnan(y)) r = a;
    else if (x == y) r = takeMin ? a | b : a & b; // -0.0 < +0.0
    else r = (x < y) == takeMin ? a : b;
    writeInt(in, 0, r, 64);
    return true;
  }
  case Opcode::F2F: {
    auto dm = modOf(in, ModGroup::FType), sm = modOf(in, ModGroup::FSrc);
    if (!dm || !sm) malformed(fmt::format("F2F at line {} needs a destination (.F16 .BF16 .F32 .F64) and a source "
                                          "format (.SRC_F16 ...)", in.loc.line));
    FloatKind dk = floatKind(*dm), sk = floatKind(*sm);
    bool ftz = in.has(Mod::FTZ);
    double v;
    if (sk.bits == 64) v = asF64(readF64Bits(in, 0));
    else if (sk.bits == 32) {
      uint32_t b = readF32Bits(in, 0);
      v = asF32(ftz ? flush32(b) : b);
    } else v = fp::decode(readHalfBits(in, 0, sk.format), sk.format);
    if (in.has(Mod::SAT)) v = saturate(v);
    if (dk.bits == 64) {
      // Widening is exact; binary64 to binary64 is the value itself (canonical NaN).
      writeInt(in, 0, finish64(v), 64);
      return true;
    }
    uint64_t r = fp::encode(v, dk.format, fpRound(in), dk.nan);
    if (ftz && dk.bits == 32) r = flush32(uint32_t(r));
    writeInt(in, 0, r, 32); // a 16-bit result zero-extended in its register
    return true;
  }
  case Opcode::FRND: {
    Mod m = modOf(in, ModGroup::IRound).value_or(Mod::RN);
    auto integral = [&](double v) {
      return m == Mod::TRUNC ? std::trunc(v) : m == Mod::FLOOR ? std::floor(v) : m == Mod::CEIL ? std::ceil(v)
                                                                               : std::nearbyint(v);
    };
    if (in.has(Mod::F64)) {
      if (in.has(Mod::FTZ)) unsupported("FRND.F64.FTZ: .FTZ applies to binary32 only");
      writeInt(in, 0, finish64(integral(asF64(readF64Bits(in, 0)))), 64);
    } else {
      uint32_t b = readF32Bits(in, 0);
      if (in.has(Mod::FTZ)) b = flush32(b);
      writeInt(in, 0, finish32(float(integral(asF32(b))), false, false), 32);
    }
    return true;
  }
  case Opcode::MUFU: {
    auto fn = modOf(in, ModGroup::MufuOp);
    if (!fn) malformed(fmt::format("MUFU at line {} names no function (.RCP .RSQ .SQRT ...)", in.loc.line));
    bool ftz = in.has(Mod::FTZ);
    uint32_t b = readF32Bits(in, 0);
    float x = asF32(ftz ? flush32(b) : b);
    volatile float vx = x; // evaluated at run time, in binary32, rounded to nearest
    float r;
    switch (*fn) {
    case Mod::RCP: r = 1.0f / vx; break;
    case Mod::SQRT: r = std::sqrt(float(vx)); break;
    case Mod::RSQ: { volatile float s = std::sqrt(float(vx)); r = 1.0f / s; break; }
    case Mod::EX2: { approx::HostOps o; r = approx::ex2(o, x); break; }
    case Mod::LG2: { approx::HostOps o; r = approx::lg2(o, x); break; }
    case Mod::SIN: case Mod::COS: { approx::HostOps o; r = approx::sinCos(o, x, *fn == Mod::COS); break; }
    default: unsupported(fmt::format("MUFU.{}", modText(*fn)));
    }
    writeInt(in, 0, finish32(r, ftz, false), 32);
    return true;
  }
  case Opcode::FDIV: case Opcode::FSQRT: {
    bool div = in.op == Opcode::FDIV;
    int mode = hostRounding(in);
    if (in.has(Mod::F64)) {
      if (in.has(Mod::FTZ)) unsupported(fmt::format("{}.F64.FTZ: .FTZ applies to binary32 only", in.info().name));
      double a = asF64(readF64Bits(in, 0)), b = div ? asF64(readF64Bits(in, 1)) : 0.0;
      double r = div ? rounded(mode, a, b, 0.0, [](double x, double y, double) { return x / y; })
                     : rounded(mode, a, b, 0.0, [](double x, double, double) { return std::sqrt(x); });
      writeInt(in, 0, finish64(r), 64);
      return true;
    }
    bool ftz = in.has(Mod::FTZ);
    auto in32 = [&](size_t i) { uint32_t b = readF32Bits(in, i); return asF32(ftz ? flush32(b) : b); };
    float a = in32(0), b = div ? in32(1) : 0.0f;
    float r = div ? rounded(mode, a, b, 0.0f, [](float x, float y, float) { return x / y; })
                  : rounded(mode, a, b, 0.0f, [](float x, float, float) { return std::sqrt(x); });
    writeInt(in, 0, finish32(r, ftz, false), 32);
    return true;
  }
  case Opcode::HADD2: case Opcode::HMUL2: case Opcode::HFMA2: {
    fp::Format f = in.has(Mod::BF16) ? fp::kBFloat16 : fp::kHalf;
    bool ftz = in.has(Mod::FTZ), sat = in.has(Mod::SAT);
    uint64_t a = readInt(in, 0, 32), b = readInt(in, 1, 32), c = in.op == Opcode::HFMA2 ? readInt(in, 2, 32) : 0;
    uint64_t r = 0;
    for (unsigned lane = 0; lane < 2; ++lane) {
      auto part = [&](uint64_t v) { return (v >> (16 * lane)) & 0xffff; };
      r |= halfLane(in.op, f, ftz, sat, part(a), part(b), part(c)) << (16 * lane);
    }
    writeInt(in, 0, r, 32);
    return true;
  }
  default: return false;
  }
}

} // namespace ori::interp_detail
