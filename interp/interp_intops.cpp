// Integer opcodes beyond interp_alu.cpp's: the carry add (IADDC), dot products (IDP),
// saturating packs (I2IP), bit masks (BMSK) and find-n-th-set-bit (FNS). Each follows the
// PTX ISA definition of the instruction it comes from (docs/interpreter.md, "Semantics
// table"; ir/opcodes.def says what each computes).
#include <fmt/format.h>

#include <algorithm>

#include "interp/interp_impl.h"

namespace ori::interp_detail {
namespace {

// PTX ISA 9.0, "bmsk": the mask of width b from bit position a. Without .W (.clamp) a >= 32
// gives 0 and b >= 32 a mask up to bit 31; .W (.wrap) takes both modulo 32. A mask that
// would pass bit 31 stops there; width 0 gives 0.
uint32_t bitMask(uint32_t a, uint32_t b, bool wrap) {
  const uint32_t a1 = a & 31, b1 = b & 31, sum = a1 + b1;
  uint32_t mask0 = ~uint32_t(0) << a1;
  bool overflow = sum >= 32;
  if (!wrap) {
    if (a >= 32) {
      mask0 = 0;
      overflow = true;
    }
    overflow = overflow || b >= 32;
  }
  uint32_t mask1 = 0;
  if (!overflow)
    mask1 = b1 == 0 ? ~uint32_t(0) : ~uint32_t(0) << sum;
  return mask0 & ~mask1;
}

// PTX ISA 9.0, "fns": the position of the |offset|-th set bit of mask from base, upwards for
// offset > 0 and downwards for offset < 0; offset 0 asks whether bit base is set. None:
// 0xffffffff. The ISA leaves base > 31 undefined; here it finds nothing.
uint32_t findNthSet(uint32_t mask, uint32_t base, int32_t offset) {
  if (base > 31)
    return 0xffffffff;
  if (offset == 0)
    return (mask >> base) & 1 ? base : 0xffffffff;
  // |INT32_MIN| = 2^31 set bits never exist in 32 bits.
  uint64_t count = offset > 0 ? uint64_t(offset) : uint64_t(-int64_t(offset));
  const int step = offset > 0 ? 1 : -1;
  for (int pos = int(base); pos >= 0 && pos < 32; pos += step)
    if ((mask >> pos) & 1 && --count == 0)
      return uint32_t(pos);
  return 0xffffffff;
}

int64_t clampTo(int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v, lo), hi); }

} // namespace

bool Machine::execIntegerMore(const Instr &in) {
  switch (in.op) {
  case Opcode::IADDC: {
    // {carry, d} = a + b + carry-in (.SUB: a + ~b + carry-in), unsigned, one bit wider.
    const unsigned w = in.has(Mod::W64) ? 64 : 32;
    const uint64_t a = readInt(in, 0, w);
    uint64_t b = readInt(in, 1, w);
    if (in.has(Mod::SUB))
      b = maskTo(~b, w);
    const unsigned __int128 sum = (unsigned __int128)a + b + (readPred(in, 2) ? 1 : 0);
    writeInt(in, 0, maskTo(uint64_t(sum), w), w);
    writePred(in, 1, ((sum >> w) & 1) != 0);
    return true;
  }
  case Opcode::IDP: {
    // c + the products of a's bytes (.4A) or halves (.2A) with b's bytes, mod 2^32.
    const uint64_t a = readInt(in, 0, 32), b = readInt(in, 1, 32), c = readInt(in, 2, 32);
    const bool aSigned = in.has(Mod::S8) || in.has(Mod::S16), bSigned = in.has(Mod::IDP_B_S8);
    auto byteOf = [&](uint64_t v, unsigned k, bool s) {
      uint64_t x = (v >> (8 * k)) & 0xff;
      return s ? signExtend(x, 8) : int64_t(x);
    };
    int64_t sum = int64_t(c);
    if (in.has(Mod::A2)) {
      const unsigned k = in.has(Mod::HI) ? 2 : 0;
      for (unsigned i = 0; i < 2; ++i) {
        uint64_t h = (a >> (16 * i)) & 0xffff;
        sum += (aSigned ? signExtend(h, 16) : int64_t(h)) * byteOf(b, k + i, bSigned);
      }
    } else {
      for (unsigned i = 0; i < 4; ++i)
        sum += byteOf(a, i, aSigned) * byteOf(b, i, bSigned);
    }
    writeInt(in, 0, maskTo(uint64_t(sum), 32), 32);
    return true;
  }
  case Opcode::I2IP: {
    unsigned bits;
    int64_t lo, hi;
    if (in.has(Mod::U8))
      bits = 8, lo = 0, hi = 0xff;
    else if (in.has(Mod::S8))
      bits = 8, lo = -0x80, hi = 0x7f;
    else if (in.has(Mod::U16))
      bits = 16, lo = 0, hi = 0xffff;
    else if (in.has(Mod::S16))
      bits = 16, lo = -0x8000, hi = 0x7fff;
    else
      unsupported("I2IP without a result type (.U8 .S8 .U16 .S16)");
    const int64_t a = signExtend(readInt(in, 0, 32), 32), b = signExtend(readInt(in, 1, 32), 32);
    const uint64_t c = readInt(in, 2, 32);
    const uint64_t pa = maskTo(uint64_t(clampTo(a, lo, hi)), bits),
                   pb = maskTo(uint64_t(clampTo(b, lo, hi)), bits);
    uint64_t d = pa << bits | pb;
    if (bits == 8)
      d |= c << 16;
    writeInt(in, 0, maskTo(d, 32), 32);
    return true;
  }
  case Opcode::BMSK:
    writeInt(in, 0,
             bitMask(uint32_t(readInt(in, 0, 32)), uint32_t(readInt(in, 1, 32)), in.has(Mod::W)),
             32);
    return true;
  case Opcode::FNS:
    writeInt(in, 0,
             findNthSet(uint32_t(readInt(in, 0, 32)), uint32_t(readInt(in, 1, 32)),
                        int32_t(uint32_t(readInt(in, 2, 32)))),
             32);
    return true;
  default:
    return false;
  }
}

} // namespace ori::interp_detail
