// The tensor-core instructions HMMA, IMMA, DMMA and BMMA (PTX mma.sync.aligned; docs/
// interpreter.md, "Matrix instructions"): one instruction for the whole warp. Every lane's
// A, B and C registers are read first, the matrices put together as the PTX ISA's fragment
// layouts say (ir/mma.h: mmaCoord), D = A * B + C computed, and D handed back to the lanes.
//
// The ISA leaves the order of accumulation, the intermediate rounding and subnormals open
// for the floating-point forms; here every element is
//   d = round_D(c + a0*b0 + a1*b1 + ... + a(K-1)*b(K-1))
// summed from k = 0 up in binary32, each step one fused multiply-add rounded to nearest even
// (every .f16 .bf16 .tf32 .e4m3 .e5m2 input is exact in binary32, so each product is exact
// until that rounding), subnormals kept, then rounded once more to nearest even for a .f16 D
// (NaN results are canonical: 0x7fffffff, 0x7fff). .tf32 inputs are binary32 patterns whose
// low 13 significand bits are ignored (truncated), as the ISA lets tf32 be "implementation
// defined". DMMA: the same order as a chain of binary64 fused multiply-adds in the
// instruction's rounding (the ISA: .f64 precision fused multiply-add; .RN by default).
// IMMA: the exact sum, then .SAT clamps it to the signed 32-bit range, else it wraps. BMMA:
// c + popc(a AND/XOR b) over the K bits, wrapping.
#include <fmt/format.h>

#include <array>
#include <cfenv>
#include <cmath>
#include <vector>

#include "interp/interp_impl.h"
#include "ir/mma.h"

namespace ori::interp_detail {
namespace {

constexpr uint32_t kNaN32 = 0x7fffffffu;
constexpr uint64_t kNaN64 = 0xfff8000000000000ull;
constexpr uint64_t kNaN16 = 0x7fff;

// e4m3 (PTX ISA 5.2.3): sign, 4 exponent bits (bias 7), 3 fraction bits; no infinities,
// S.1111.111 is NaN, every other pattern a number (the largest 448).
double decodeE4M3(uint32_t b) {
  const bool neg = b & 0x80;
  const uint32_t e = (b >> 3) & 0xf, m = b & 7;
  if (e == 0xf && m == 7)
    return std::numeric_limits<double>::quiet_NaN();
  double v = e == 0 ? std::ldexp(double(m), -9) : std::ldexp(double(8 + m), int(e) - 10);
  return neg ? -v : v;
}

// The value of element bits `v` of type e (exact as a double).
double floatValue(MmaElem e, uint64_t v) {
  switch (e) {
  case MmaElem::F16:
    return fp::decode(v & 0xffff, fp::kHalf);
  case MmaElem::BF16:
    return fp::decode(v & 0xffff, fp::kBFloat16);
  case MmaElem::TF32:
    return double(std::bit_cast<float>(uint32_t(v) & 0xffffe000u));
  case MmaElem::F32:
    return double(std::bit_cast<float>(uint32_t(v)));
  case MmaElem::E4M3:
    return decodeE4M3(uint32_t(v) & 0xff);
  case MmaElem::E5M2:
    return fp::decode(v & 0xff, fp::Format{5, 2});
  case MmaElem::F64:
    return std::bit_cast<double>(v);
  default:
    return 0;
  }
}

int64_t intValue(MmaElem e, uint64_t v) {
  switch (e) {
  case MmaElem::S8:
    return signExtend(v, 8);
  case MmaElem::S4:
    return signExtend(v, 4);
  case MmaElem::S32:
    return signExtend(v, 32);
  default:
    return int64_t(v); // U8, U4, B1: already masked
  }
}

// The operand's matrices (one per product), row-major, as raw element bits.
struct Matrices {
  unsigned rows = 0, cols = 0;
  std::vector<uint64_t> bits; // [q][row][col]
  uint64_t &at(unsigned q, unsigned r, unsigned c) {
    return bits[(size_t(q) * rows + r) * cols + c];
  }
};

// Source registers first..first+regs of every lane (read before any lane writes).
Matrices gather(Machine &m, const Instr &in, Thread *lanes, const MmaForm &f, MmaOperand which,
                size_t first, unsigned regs) {
  const MmaElem e = which == MmaOperand::A ? f.a : which == MmaOperand::B ? f.b : f.c;
  Matrices out;
  out.rows = which == MmaOperand::B ? f.k : f.m;
  out.cols = which == MmaOperand::A ? f.k : f.n;
  out.bits.assign(size_t(f.quad ? 4 : 1) * out.rows * out.cols, 0);
  const unsigned bits = mmaElemBits(e), per = e == MmaElem::F64 ? 1 : 32 / bits,
                 n = mmaElems(f, which);
  for (unsigned lane = 0; lane < 32; ++lane) {
    m.th = &lanes[lane];
    std::array<uint64_t, 16> r{};
    for (unsigned j = 0; j < regs; ++j)
      r[j] = m.readInt(in, first + j, e == MmaElem::F64 ? 64 : 32);
    for (unsigned i = 0; i < n; ++i) {
      const MmaCoord c = mmaCoord(f, which, lane, i);
      out.at(c.q, c.row, c.col) =
          e == MmaElem::F64 ? r[i] : maskTo(r[i / per] >> ((i % per) * bits), bits);
    }
  }
  return out;
}

// D's element bits per product, row and column.
Matrices compute(const Instr &in, const MmaForm &f, Matrices &a, Matrices &b, Matrices &c) {
  Matrices d;
  d.rows = f.m, d.cols = f.n;
  d.bits.assign(c.bits.size(), 0);
  const unsigned products = f.quad ? 4 : 1;
  int mode = FE_TONEAREST;
  if (in.op == Opcode::DMMA) {
    if (in.has(Mod::RZ))
      mode = FE_TOWARDZERO;
    else if (in.has(Mod::RM))
      mode = FE_DOWNWARD;
    else if (in.has(Mod::RP))
      mode = FE_UPWARD;
  }
  const int old = std::fegetround();
  if (mode != old && std::fesetround(mode) != 0)
    unsupported("the host cannot select the rounding mode");
  for (unsigned q = 0; q < products; ++q)
    for (unsigned r = 0; r < f.m; ++r)
      for (unsigned col = 0; col < f.n; ++col) {
        uint64_t &out = d.at(q, r, col);
        const uint64_t cv = c.at(q, r, col);
        if (in.op == Opcode::HMMA) {
          volatile float acc = float(floatValue(f.c, cv));
          for (unsigned k = 0; k < f.k; ++k)
            acc = std::fma(float(floatValue(f.a, a.at(q, r, k))),
                           float(floatValue(f.b, b.at(q, k, col))), float(acc));
          if (f.d == MmaElem::F32)
            out = std::isnan(acc) ? kNaN32 : std::bit_cast<uint32_t>(float(acc));
          else
            out = fp::encode(double(acc), fp::kHalf, fp::Round::NearestEven, kNaN16);
        } else if (in.op == Opcode::DMMA) {
          volatile double acc = floatValue(MmaElem::F64, cv);
          for (unsigned k = 0; k < f.k; ++k)
            acc = std::fma(floatValue(MmaElem::F64, a.at(q, r, k)),
                           floatValue(MmaElem::F64, b.at(q, k, col)), double(acc));
          out = std::isnan(acc) ? kNaN64 : std::bit_cast<uint64_t>(double(acc));
        } else {
          int64_t acc = intValue(MmaElem::S32, cv);
          for (unsigned k = 0; k < f.k; ++k) {
            const uint64_t x = a.at(q, r, k), y = b.at(q, k, col);
            if (in.op == Opcode::BMMA)
              acc += f.bitAnd ? (x & y) : (x ^ y);
            else
              acc += intValue(f.a, x) * intValue(f.b, y);
          }
          if (f.satfinite)
            acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
          out = uint32_t(acc);
        }
      }
  if (mode != old)
    std::fesetround(old);
  return d;
}

} // namespace

void execMma(Machine &m, const Instr &in, Thread *lanes) {
  const auto form = mmaForm(in.op, in.mods);
  if (const std::string *why = std::get_if<std::string>(&form))
    malformed(fmt::format("line {}: {}", in.loc.line, *why));
  const MmaForm &f = std::get<MmaForm>(form);
  if (in.dsts.size() != f.dRegs || in.srcs.size() != f.aRegs + f.bRegs + f.cRegs)
    malformed(
        fmt::format("{} at line {} has the wrong number of operands", mnemonic(in), in.loc.line));
  Matrices a = gather(m, in, lanes, f, MmaOperand::A, 0, f.aRegs);
  Matrices b = gather(m, in, lanes, f, MmaOperand::B, f.aRegs, f.bRegs);
  Matrices c = gather(m, in, lanes, f, MmaOperand::C, f.aRegs + f.bRegs, f.cRegs);
  Matrices d = compute(in, f, a, b, c);
  const unsigned bits = mmaElemBits(f.d), per = f.d == MmaElem::F64 ? 1 : 32 / bits,
                 n = mmaElems(f, MmaOperand::D);
  for (unsigned lane = 0; lane < 32; ++lane) {
    std::array<uint64_t, 8> r{};
    for (unsigned i = 0; i < n; ++i) {
      const MmaCoord co = mmaCoord(f, MmaOperand::D, lane, i);
      const uint64_t v = d.at(co.q, co.row, co.col);
      if (f.d == MmaElem::F64)
        r[i] = v;
      else
        r[i / per] |= v << ((i % per) * bits);
    }
    m.th = &lanes[lane];
    for (unsigned j = 0; j < f.dRegs; ++j)
      m.writeInt(in, j, r[j], f.d == MmaElem::F64 ? 64 : 32);
  }
}

} // namespace ori::interp_detail
