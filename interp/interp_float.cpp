// Floating-point semantics of the interpreter: FADD/FMUL/FFMA/FMNMX/FSETP on
// binary32, DADD/DMUL/DFMA/DSETP on binary64, MUFU, FDIV/FSQRT and the packed
// HADD2/HMUL2/HFMA2 (docs/interpreter.md has the table this file implements; conversions
// are in interp_convert.cpp, the other packed-half opcodes in interp_half.cpp).
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

#include "interp/interp_float_impl.h"
#include "ir/approx_math.h"
#include "ir/float_format.h"

namespace ori::interp_detail {
namespace {

__extension__ typedef __int128 I128;

int hostRounding(const Instr &in) {
  auto r = modOf(in, ModGroup::FRound);
  if (!r || *r == Mod::RN)
    return FE_TONEAREST;
#if defined(FE_TOWARDZERO) && defined(FE_DOWNWARD) && defined(FE_UPWARD)
  if (*r == Mod::RZ)
    return FE_TOWARDZERO;
  if (*r == Mod::RM)
    return FE_DOWNWARD;
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
  if (std::fesetround(mode) != 0)
    unsupported("the host cannot select the rounding mode");
  volatile T r = op(T(va), T(vb), T(vc));
  std::fesetround(old);
  return r;
}

// The bits of a binary32 result: canonical NaN, .FTZ on the output, then
// .SAT (clamp to [0, 1]; NaN and -0.0 give +0.0).
uint32_t finish32(float r, bool ftz, bool sat) {
  if (std::isnan(r))
    return sat ? 0 : kCanonicalNaN32;
  uint32_t b = std::bit_cast<uint32_t>(r);
  if (ftz)
    b = flush32(b);
  if (sat) {
    float x = asF32(b);
    if (!(x > 0))
      b = 0;
    else if (x > 1)
      b = std::bit_cast<uint32_t>(1.0f);
  }
  return b;
}

// The out-of-bounds NaN a tensor load fills with (PTX ISA 5.5.3.3 leaves its bits open; our
// choice, docs/interpreter.md): HFMA2.OOB gives +0.0 for a lane where an operand is it.
constexpr uint64_t kOobNaN16 = 0x7fff;

// One binary16/bfloat16 lane of HADD2/HMUL2/HFMA2.
uint64_t halfLane(const Instr &instr, fp::Format f, uint64_t a, uint64_t b, uint64_t c) {
  Opcode op = instr.op;
  bool ftz = instr.has(Mod::FTZ), sat = instr.has(Mod::SAT);
  if (instr.has(Mod::OOB) && (a == kOobNaN16 || b == kOobNaN16 || c == kOobNaN16))
    return 0;
  auto in = [&](uint64_t x) { return fp::decode(ftz ? fp::flush(x, f) : x, f); };
  double x = in(a), y = in(b);
  double r = op == Opcode::HADD2   ? fp::fmaToOdd(x, 1.0, y)
             : op == Opcode::HMUL2 ? x * y
                                   : fp::fmaToOdd(x, y, in(c));
  if (sat)
    r = saturate(r);
  uint64_t bits = fp::encode(r, f, fp::Round::NearestEven, kCanonicalNaN16);
  if (ftz)
    bits = fp::flush(bits, f);
  return instr.has(Mod::RELU) ? reluBits(bits, f, kCanonicalNaN16) : bits;
}

// MUFU.EX2/TANH on one binary16/bfloat16 value: the binary32 approximation of the exact
// value, rounded to nearest even (within the PTX bounds, ISA 9.7.4.9/10); .FTZ flushes the
// source and the result.
uint64_t mufuHalf(Mod fn, fp::Format f, bool ftz, uint64_t a) {
  approx::HostOps o;
  float x = float(fp::decode(ftz ? fp::flush(a, f) : a, f)); // exact
  float r = fn == Mod::EX2 ? approx::ex2(o, x) : approx::tanh(o, x);
  uint64_t bits = fp::encode(r, f, fp::Round::NearestEven, kCanonicalNaN16);
  return ftz ? fp::flush(bits, f) : bits;
}

// The high word of `a` as a binary64 with the low word zero (PTX rcp/rsqrt.approx.ftz.f64 read
// it in 1.11.20), flushed; the result rounded to 20 fraction bits in the high word, flushed.
uint64_t mufu64H(Mod fn, uint64_t a) {
  constexpr fp::Format k64H{11, 20};
  double t = std::bit_cast<double>(a & 0xffffffff00000000ull);
  if (std::isnan(t))
    return 0x7fffffff00000000ull; // the ISA's canonical NaN for these
  if (t != 0 && std::fabs(t) < 0x1p-1022)
    t = std::copysign(0.0, t);
  volatile double vt = t;
  double q;
  if (fn == Mod::RCP64H)
    q = 1.0 / vt;
  else {
    volatile double s = std::sqrt(double(vt));
    q = 1.0 / s;
  }
  if (std::isnan(q))
    return 0x7fffffff00000000ull;
  uint64_t h = fp::encode(q, k64H, fp::Round::NearestEven, 0x7fffffff);
  h = fp::flush(h, k64H);
  return h << 32;
}

} // namespace

// A binary16/bfloat16 source: the low 16 bits of a register or constant, or a float
// immediate rounded to the format; `|..|` and `-` act on bit 15.
uint64_t Machine::readHalfBits(const Instr &in, size_t i, fp::Format f) const {
  const Operand &o = src(in, i);
  uint64_t v = 0;
  switch (o.kind) {
  case Operand::Kind::Reg:
    if (!o.reg.isGeneral())
      malformed(fmt::format("operand {} of {} at line {} must be a register of file R or UR", i + 1,
                            in.info().name, in.loc.line));
    v = th->regs.get(o.reg) & 0xffff;
    break;
  case Operand::Kind::FImm:
    v = fp::encode(o.fimm, f, fp::Round::NearestEven, kCanonicalNaN16);
    break;
  case Operand::Kind::CBank:
    v = readCBank(o, 2);
    break;
  default:
    malformed(
        fmt::format("operand {} of {} at line {} must be a float register, immediate or constant",
                    i + 1, in.info().name, in.loc.line));
  }
  if (o.abs)
    v &= 0x7fff;
  if (o.neg)
    v ^= 0x8000;
  return v;
}

bool Machine::execFloat(const Instr &in) {
  switch (in.op) {
  case Opcode::FADD:
  case Opcode::FMUL:
  case Opcode::FFMA: {
    bool ftz = in.has(Mod::FTZ), sat = in.has(Mod::SAT);
    auto in32 = [&](size_t i) {
      uint32_t b = readF32Bits(in, i);
      return asF32(ftz ? flush32(b) : b);
    };
    float a = in32(0), b = in32(1), c = in.op == Opcode::FFMA ? in32(2) : 0.0f;
    int mode = hostRounding(in);
    float r =
        in.op == Opcode::FADD
            ? rounded(mode, a, b, c, [](float x, float y, float) { return x + y; })
        : in.op == Opcode::FMUL
            ? rounded(mode, a, b, c, [](float x, float y, float) { return x * y; })
            : rounded(mode, a, b, c, [](float x, float y, float z) { return std::fma(x, y, z); });
    writeInt(in, 0, finish32(r, ftz, sat), 32);
    return true;
  }
  case Opcode::DADD:
  case Opcode::DMUL:
  case Opcode::DFMA: {
    double a = asF64(readF64Bits(in, 0)), b = asF64(readF64Bits(in, 1));
    double c = in.op == Opcode::DFMA ? asF64(readF64Bits(in, 2)) : 0.0;
    int mode = hostRounding(in);
    double r = in.op == Opcode::DADD
                   ? rounded(mode, a, b, c, [](double x, double y, double) { return x + y; })
               : in.op == Opcode::DMUL
                   ? rounded(mode, a, b, c, [](double x, double y, double) { return x * y; })
                   : rounded(mode, a, b, c,
                             [](double x, double y, double z) { return std::fma(x, y, z); });
    writeInt(in, 0, finish64(r), 64);
    return true;
  }
  case Opcode::FMNMX: {
    bool ftz = in.has(Mod::FTZ);
    uint32_t a = readF32Bits(in, 0), b = readF32Bits(in, 1);
    if (ftz) {
      a = flush32(a);
      b = flush32(b);
    }
    bool takeMin = readPred(in, 2);
    writeInt(in, 0,
             minMaxBits(a, b, takeMin, in.has(Mod::NANMM), in.has(Mod::XORSIGN), fp::kSingle,
                        kCanonicalNaN32),
             32);
    return true;
  }
  case Opcode::FSETP:
  case Opcode::DSETP: {
    auto cmp = modOf(in, ModGroup::Cmp);
    if (!cmp)
      unsupported(fmt::format("{} without a comparison (.LT, .EQU, ...)", in.info().name));
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
  case Opcode::DMNMX: {
    uint64_t a = readF64Bits(in, 0), b = readF64Bits(in, 1);
    bool takeMin = readPred(in, 2);
    double x = asF64(a), y = asF64(b);
    uint64_t r;
    if (std::isnan(x) && std::isnan(y))
      r = kCanonicalNaN64;
    else if (std::isnan(x))
      r = b;
    else if (std::isnan(y))
      r = a;
    else if (x == y)
      r = takeMin ? a | b : a & b; // -0.0 < +0.0
    else
      r = (x < y) == takeMin ? a : b;
    writeInt(in, 0, r, 64);
    return true;
  }
  case Opcode::MUFU: {
    auto fn = modOf(in, ModGroup::MufuOp);
    if (!fn)
      malformed(
          fmt::format("MUFU at line {} names no function (.RCP .RSQ .SQRT ...)", in.loc.line));
    bool ftz = in.has(Mod::FTZ);
    auto width = modOf(in, ModGroup::FType);
    if (*fn == Mod::RCP64H ||
        *fn == Mod::RSQ64H) { // .FTZ or not: these always flush (PTX has only .ftz)
      if (width)
        unsupported(fmt::format("MUFU.{}.{}", modText(*fn), modText(*width)));
      writeInt(in, 0, mufu64H(*fn, readF64Bits(in, 0)), 64);
      return true;
    }
    if (width == Mod::F64) { // rsqrt.approx.f64: RN(1/RN(sqrt a)) in binary64, subnormals kept
      if (*fn != Mod::RSQ || ftz)
        unsupported(fmt::format("MUFU.{}.F64{}", modText(*fn), ftz ? ".FTZ" : ""));
      volatile double x = asF64(readF64Bits(in, 0));
      volatile double s = std::sqrt(double(x));
      writeInt(in, 0, finish64(1.0 / s), 64);
      return true;
    }
    if (width == Mod::F16 || width == Mod::BF16) {
      fp::Format f = width == Mod::BF16 ? fp::kBFloat16 : fp::kHalf;
      if (*fn != Mod::EX2 && *fn != Mod::TANH)
        unsupported(fmt::format("MUFU.{}.{}", modText(*fn), modText(*width)));
      writeInt(in, 0, mufuHalf(*fn, f, ftz, readHalfBits(in, 0, f)), 32);
      return true;
    }
    if (width)
      unsupported(fmt::format("MUFU.{}.{}", modText(*fn), modText(*width)));
    uint32_t b = readF32Bits(in, 0);
    float x = asF32(ftz ? flush32(b) : b);
    volatile float vx = x; // evaluated at run time, in binary32, rounded to nearest
    float r;
    switch (*fn) {
    case Mod::RCP:
      r = 1.0f / vx;
      break;
    case Mod::SQRT:
      r = std::sqrt(float(vx));
      break;
    case Mod::RSQ: {
      volatile float s = std::sqrt(float(vx));
      r = 1.0f / s;
      break;
    }
    case Mod::EX2: {
      approx::HostOps o;
      r = approx::ex2(o, x);
      break;
    }
    case Mod::LG2: {
      approx::HostOps o;
      r = approx::lg2(o, x);
      break;
    }
    case Mod::SIN:
    case Mod::COS: {
      approx::HostOps o;
      r = approx::sinCos(o, x, *fn == Mod::COS);
      break;
    }
    case Mod::TANH: {
      approx::HostOps o;
      r = approx::tanh(o, x);
      break;
    }
    default:
      unsupported(fmt::format("MUFU.{}", modText(*fn)));
    }
    writeInt(in, 0, finish32(r, ftz, false), 32);
    return true;
  }
  case Opcode::FDIV:
  case Opcode::FSQRT: {
    bool div = in.op == Opcode::FDIV;
    int mode = hostRounding(in);
    if (in.has(Mod::F64)) {
      if (in.has(Mod::FTZ))
        unsupported(fmt::format("{}.F64.FTZ: .FTZ applies to binary32 only", in.info().name));
      double a = asF64(readF64Bits(in, 0)), b = div ? asF64(readF64Bits(in, 1)) : 0.0;
      double r =
          div ? rounded(mode, a, b, 0.0, [](double x, double y, double) { return x / y; })
              : rounded(mode, a, b, 0.0, [](double x, double, double) { return std::sqrt(x); });
      writeInt(in, 0, finish64(r), 64);
      return true;
    }
    bool ftz = in.has(Mod::FTZ);
    auto in32 = [&](size_t i) {
      uint32_t b = readF32Bits(in, i);
      return asF32(ftz ? flush32(b) : b);
    };
    float a = in32(0), b = div ? in32(1) : 0.0f;
    float r = div ? rounded(mode, a, b, 0.0f, [](float x, float y, float) { return x / y; })
                  : rounded(mode, a, b, 0.0f, [](float x, float, float) { return std::sqrt(x); });
    writeInt(in, 0, finish32(r, ftz, false), 32);
    return true;
  }
  case Opcode::HADD2:
  case Opcode::HMUL2:
  case Opcode::HFMA2: {
    fp::Format f = in.has(Mod::BF16) ? fp::kBFloat16 : fp::kHalf;
    uint64_t a = readInt(in, 0, 32), b = readInt(in, 1, 32),
             c = in.op == Opcode::HFMA2 ? readInt(in, 2, 32) : 0;
    uint64_t r = 0;
    for (unsigned lane = 0; lane < 2; ++lane) {
      auto part = [&](uint64_t v) { return (v >> (16 * lane)) & 0xffff; };
      r |= halfLane(in, f, part(a), part(b), part(c)) << (16 * lane);
    }
    writeInt(in, 0, r, 32);
    return true;
  }
  default:
    return execConvert(in) || execHalf(in);
  }
}

} // namespace ori::interp_detail
