// Models of the integer opcodes of interp/interp_intops.cpp: IADDC, IDP, I2IP, BMSK, FNS
// (PTX ISA 9.0: add.cc/addc/sub.cc/subc, dp4a/dp2a, cvt.pack.sat, bmsk, fns). Written from
// those definitions (ir/opcodes.def, docs/interpreter.md), not from the interpreter's code:
// the cross-check compares the two.
#include "verify/opcode_model.h"

namespace ori::verify {
namespace models {
namespace {
ModelOutputs one(const z3::expr &d) { return ModelOutputs{{d}, std::nullopt}; }
} // namespace

// {carry, d} = a + b + carry-in in w + 1 bits; .SUB complements b.
std::optional<ModelOutputs> iaddc(ModelContext &m) {
  const unsigned w = m.has(Mod::W64) ? 64 : 32;
  z3::expr b = m.intSrc(1, w);
  if (m.has(Mod::SUB))
    b = ~b;
  z3::expr sum = Smt::zext(m.intSrc(0, w), w + 1) + Smt::zext(b, w + 1) +
                 Smt::zext(m.smt.bit(m.predSrc(2)), w + 1);
  return ModelOutputs{{m.wide(sum.extract(w - 1, 0)), m.smt.isSet(sum.extract(w, w))},
                      std::nullopt};
}

// c + sum of element products; elements extended to 32 bits, the sum taken mod 2^32.
std::optional<ModelOutputs> idp(ModelContext &m) {
  const bool aSigned = m.has(Mod::S8) || m.has(Mod::S16), bSigned = m.has(Mod::IDP_B_S8);
  z3::expr a = m.intSrc(0, 32), b = m.intSrc(1, 32);
  auto ext = [](const z3::expr &v, bool s) { return s ? Smt::sext(v, 32) : Smt::zext(v, 32); };
  auto byteOf = [&](unsigned k) { return ext(b.extract(8 * k + 7, 8 * k), bSigned); };
  z3::expr sum = m.intSrc(2, 32);
  if (m.has(Mod::A2)) {
    const unsigned k = m.has(Mod::HI) ? 2 : 0;
    for (unsigned i = 0; i < 2; ++i)
      sum = sum + ext(a.extract(16 * i + 15, 16 * i), aSigned) * byteOf(k + i);
  } else {
    for (unsigned i = 0; i < 4; ++i)
      sum = sum + ext(a.extract(8 * i + 7, 8 * i), aSigned) * byteOf(i);
  }
  return one(m.wide(sum));
}

// a and b (signed 32-bit) clamped to the type's range, packed: 8-bit types under c's low
// 16 bits moved up, 16-bit types alone.
std::optional<ModelOutputs> i2ip(ModelContext &m) {
  unsigned bits;
  int64_t lo, hi;
  if (m.has(Mod::U8))
    bits = 8, lo = 0, hi = 255;
  else if (m.has(Mod::S8))
    bits = 8, lo = -128, hi = 127;
  else if (m.has(Mod::U16))
    bits = 16, lo = 0, hi = 65535;
  else if (m.has(Mod::S16))
    bits = 16, lo = -32768, hi = 32767;
  else
    return std::nullopt;
  z3::expr loV = m.smt.bv(uint64_t(lo), 32), hiV = m.smt.bv(uint64_t(hi), 32);
  auto clamp = [&](const z3::expr &v) {
    z3::expr up = z3::ite(z3::slt(v, loV), loV, v);
    return z3::ite(z3::slt(hiV, up), hiV, up).extract(bits - 1, 0);
  };
  z3::expr packed = z3::concat(clamp(m.intSrc(0, 32)), clamp(m.intSrc(1, 32)));
  if (bits == 8)
    packed = z3::concat(m.intSrc(2, 32).extract(15, 0), packed);
  return one(m.wide(packed));
}

// The PTX ISA's bmsk pseudocode: mask0 = ~0 << (a mod 32) (0 for a >= 32 without .W);
// mask1 = ~0 << (a mod 32 + b mod 32), 0 when that sum reaches 32 (or, without .W, when
// a or b does), all ones when b mod 32 is 0; d = mask0 & ~mask1.
std::optional<ModelOutputs> bmsk(ModelContext &m) {
  Smt &s = m.smt;
  const bool wrap = m.has(Mod::W);
  z3::expr a = m.intSrc(0, 32), b = m.intSrc(1, 32), ones = s.bv(0xffffffff, 32);
  z3::expr a1 = a & s.bv(31, 32), b1 = b & s.bv(31, 32), sum = a1 + b1;
  z3::expr big = s.bv(32, 32);
  z3::expr mask0 = z3::shl(ones, a1);
  z3::expr overflow = z3::uge(sum, big);
  if (!wrap) {
    mask0 = z3::ite(z3::uge(a, big), s.bv(0, 32), mask0);
    overflow = overflow || z3::uge(a, big) || z3::uge(b, big);
  }
  z3::expr mask1 =
      z3::ite(overflow, s.bv(0, 32), z3::ite(b1 == s.bv(0, 32), ones, z3::shl(ones, sum)));
  return one(m.wide(mask0 & ~mask1));
}

// PTX fns: positions counted with a running number of set bits from base (upwards for
// offset > 0, downwards for offset < 0); the one where the count reaches |offset| on a set
// bit. offset 0: base if its bit is set. None, or base > 31: 0xffffffff.
std::optional<ModelOutputs> fns(ModelContext &m) {
  Smt &s = m.smt;
  z3::expr mask = m.intSrc(0, 32), base = m.intSrc(1, 32), offset = m.intSrc(2, 32);
  z3::expr none = s.bv(0xffffffff, 32), zero = s.bv(0, 32);
  z3::expr up = mask & z3::shl(s.bv(0xffffffff, 32), base); // bits at or above base
  z3::expr down = mask & z3::lshr(s.bv(0xffffffff, 32), s.bv(31, 32) - base); // at or below
  z3::expr want =
      z3::ite(z3::slt(offset, zero), -offset, offset); // INT_MIN stays 2^31: never reached
  z3::expr r = none;
  z3::expr count = zero; // upwards: set bits of `up` in [0, p]
  std::vector<z3::expr> upHit;
  for (unsigned p = 0; p < 32; ++p) {
    z3::expr bit = up.extract(p, p) == s.bv(1, 1);
    count = count + Smt::zext(up.extract(p, p), 32);
    upHit.push_back(bit && count == want);
  }
  count = zero; // downwards: set bits of `down` in [p, 31]
  std::vector<z3::expr> downHit(32, s.boolVal(false));
  for (unsigned q = 32; q-- > 0;) {
    z3::expr bit = down.extract(q, q) == s.bv(1, 1);
    count = count + Smt::zext(down.extract(q, q), 32);
    downHit[q] = bit && count == want;
  }
  z3::expr upResult = none, downResult = none;
  for (unsigned p = 32; p-- > 0;)
    upResult = z3::ite(upHit[p], s.bv(p, 32), upResult);
  for (unsigned p = 0; p < 32; ++p)
    downResult = z3::ite(downHit[p], s.bv(p, 32), downResult);
  z3::expr baseBit = z3::lshr(mask, base).extract(0, 0) == s.bv(1, 1);
  r = z3::ite(offset == zero, z3::ite(baseBit, base, none),
              z3::ite(z3::slt(zero, offset), upResult, downResult));
  return one(m.wide(z3::ite(z3::ugt(base, s.bv(31, 32)), none, r)));
}

} // namespace models
} // namespace ori::verify
