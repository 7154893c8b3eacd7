// Cross-check inputs (verify/crosscheck_inputs.h).
#include "verify/crosscheck_inputs.h"

#include <bit>
#include <cmath>

namespace ori::verify {
namespace {

constexpr uint64_t kIntEdges[] = {0,
                                  1,
                                  2,
                                  0x7f,
                                  0x80,
                                  0xff,
                                  0x7fff,
                                  0x8000,
                                  0xffff,
                                  0x7fffffff,
                                  0x80000000,
                                  0xfffffffe,
                                  0xffffffff, // INT32_MAX, INT32_MIN, -2, -1 (32-bit)
                                  0xffffffff80000000ull,
                                  0x100000000ull,
                                  0x1ffffffffull, // INT32_MIN sign-extended, 2^32
                                  0x7fffffffffffffffull,
                                  0x8000000000000000ull,
                                  0xffffffffffffffffull, // INT64_MAX, INT64_MIN, -1
                                  0xdeadbeef00000001ull, // garbage above a 32-bit 1
                                  31,
                                  32,
                                  63,
                                  64};

constexpr uint64_t kShiftEdges[] = {0,
                                    1,
                                    31,
                                    32,
                                    33,
                                    63,
                                    64,
                                    65,
                                    0x7fffffff,
                                    0x80000000,
                                    0xffffffff,
                                    0x100000000ull /* low 32 bits 0 */,
                                    0xffffffff00000001ull};

constexpr uint64_t kF32Edges[] = {
    0x00000000,           0x80000000, // +0, -0
    0x7f800000,           0xff800000, // +inf, -inf
    0x7fc00000,           0xffc00000, 0x7f800001,
    0x7fbfffff,           0x7fffffff, // quiet, negative, signalling NaNs
    0x00000001,           0x80000001, 0x007fffff,
    0x807fffff, // denormals
    0x00800000,           0x80800000, 0x7f7fffff,
    0xff7fffff, // smallest normals, largest finite
    0x3f800000,           0xbf800000, 0x3f000000,
    0xbf000000, // +-1, +-0.5
    0x3fc00000,           0x40200000, 0xc0200000,
    0x3effffff, // 1.5, 2.5, -2.5, 0.49999997
    0x4f000000,           0xcf000000, 0x4effffff,
    0xcf000001, // +-2^31, below 2^31, below -2^31
    0x4f800000,           0x4f7fffff, 0x5f000000,
    0xdf000000,           0x5f800000, 0x5effffff, // 2^32, 2^63, 2^64
    0x4b800000,           0x4b800001, 0x437f0000,
    0x43800000,           0xc3000000, 0xc3010000, // 2^24, 255, 256, -128, -129
    0x477fff00,           0x47800000, 0xc7000000,
    0xc7000100, // 65535, 65536, -32768, -32769
    0x477fe000,           0x477ff000, 0xc77ff000,
    0x477fefff, // 65504 (binary16's largest), 65520 (its overflow tie)
    0x43e00000,           0x43e80000, 0xc3e80001,
    0x43f00000, // 448 (E4M3's largest), 464 (tie), 480
    0x47600000,           0x47700000, 0x3c800000,
    0x3b000000, // 57344 (E5M2's largest), 61440, 2^-6, 2^-9
    0x3a800000,           0x3ac00000, 0x7f7f8000,
    0x7f7fe000,             // 2^-10 (E4M3 tie to 0), 3*2^-11, bfloat16/tf32 ties
    0xdeadbeef3f800000ull}; // 1.0 with garbage above

constexpr uint64_t kF64Edges[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
    0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull, 0x7ff7ffffffffffffull,
    0x0000000000000001ull, 0x8000000000000001ull, 0x000fffffffffffffull, 0x0010000000000000ull,
    0x7fefffffffffffffull, 0xffefffffffffffffull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
    0x3fe0000000000000ull, 0x3ff8000000000000ull, 0x4004000000000000ull, 0xc004000000000000ull,
    0x3fdfffffffffffffull, // 1, -1, 0.5, 1.5, +-2.5, below 0.5
    0x41e0000000000000ull, 0xc1e0000000000000ull, 0x41dfffffffc00000ull, // 2^31, -2^31, 2^31-1
    0xc1e0000000200000ull, 0x41efffffffe00000ull, 0x41f0000000000000ull, // -2^31-1, 2^32-1, 2^32
    0x43e0000000000000ull, 0xc3e0000000000000ull, 0x43f0000000000000ull, // 2^63, -2^63, 2^64
    0x43dfffffffffffffull, 0x43efffffffffffffull, 0xc3e0000000000001ull, 0x406fe00000000000ull,
    0x4070000000000000ull, 0x40effe0000000000ull, 0x40f0000000000000ull, // 255 256 65535 65536
    0x47efffffe0000000ull, 0x36a0000000000000ull};                       // FLT_MAX, 2^-149

// Lanes of Half2: binary16 +-0, +-inf, NaNs, denormals, the smallest normal, the largest
// finite, 1, 0.5, 1.5, 2.5, 2048 (ties start), 65504; bfloat16 1.0, its inf, NaN, max.
// 0x7fff: the canonical NaN and HFMA2.OOB's out-of-bounds NaN. Byte pairs of E4M3/E5M2: 0x7e7f
// (448, NaN), 0x7b7c (57344, infinity), 0x0108 (subnormal, smallest normal), 0x80ff.
constexpr uint16_t kHalfLaneEdges[] = {
    0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe00, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff,
    0xfbff, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4100, 0x6800, 0x6801, 0x3f80, 0x7f80, 0x7fc0, 0x7f7f,
    0x0080, 0x007f, 0x7fff, 0xffff, 0x5f00, 0x5f80, 0x7b00, 0x7b80, 0x7e7f, 0x7b7c, 0x0108, 0x80ff};

constexpr uint64_t kCountEdges[] = {0,
                                    1,
                                    2,
                                    31,
                                    32,
                                    33,
                                    0xffffffff /* -1 */,
                                    0xfffffffe,
                                    0xffffffe1 /* -31 */,
                                    0xffffffe0,
                                    0x7fffffff,
                                    0x80000000,
                                    0x100000001ull /* 1 with garbage above */};

constexpr uint64_t kLutEdges[] = {0x00, 0xff, 0xf0, 0xcc, 0xaa, 0xc0,
                                  0xfc, 0x3c, 0x96, 0xe8, 0x80, 0xfe};
constexpr uint64_t kSmallImmEdges[] = {0, 1, 31, 32, 33, 63, 64, 65};
constexpr uint64_t kPredEdges[] = {0, 1};

uint64_t randomFloatBits(Rng &rng, bool f64) {
  unsigned expBits = f64 ? 11 : 8, manBits = f64 ? 52 : 23;
  int bias = f64 ? 1023 : 127, maxExp = (1 << expBits) - 1;
  uint64_t sign = rng() & 1, man = rng() & ((uint64_t(1) << manBits) - 1);
  int e;
  switch (rng() % 8) {
  case 0:
  case 1:
    e = int(rng() % uint64_t(maxExp + 1));
    break; // anywhere
  case 2:
  case 3:
    e = bias - 10 + int(rng() % 21);
    break; // near 1.0
  case 4:
    e = bias + int(rng() % 66);
    break; // integers up to 2^65
  case 5:
    e = int(rng() % 3);
    break;  // denormals, tiny normals
  case 6: { // an integer or a tie k + 0.5
    double v = double(int64_t(rng() % 2001) - 1000) + ((rng() & 1) ? 0.5 : 0.0);
    return f64 ? std::bit_cast<uint64_t>(v) : std::bit_cast<uint32_t>(float(v));
  }
  default:
    e = maxExp - 2 + int(rng() % 3);
    break; // huge, inf, NaN
  }
  if (rng() % 4 == 0)
    man &= ~((uint64_t(1) << (manBits / 2)) - 1); // few significant bits
  return sign << (expBits + manBits) | uint64_t(e) << manBits | man;
}

uint16_t randomHalfLane(Rng &rng) {
  switch (rng() % 4) {
  case 0:
    return kHalfLaneEdges[rng() % std::size(kHalfLaneEdges)];
  case 1:
    return uint16_t(rng());
  case 2:
    return uint16_t((rng() & 0x8000) | (0x3000 + rng() % 0x1800)); // binary16 near 1
  default:
    return uint16_t((rng() & 0x8000) |
                    (0x3c00 + rng() % 0x0800)); // bfloat16 near 1 / binary16 1..2
  }
}

uint64_t randomInt(Rng &rng) {
  switch (rng() % 5) {
  case 0:
    return rng();
  case 1:
    return rng() & 0xffffffff;
  case 2:
    return (rng() & 0xffffffff) | (rng() << 32); // garbage above 32 bits
  case 3:
    return uint64_t(int64_t(rng() % 601) - 300); // small signed, sign-extended
  default:
    return uint64_t(uint32_t(int32_t(rng() % 601) - 300)); // small signed, 32-bit
  }
}

} // namespace

std::span<const uint64_t> edgeCases(Domain d) {
  switch (d) {
  case Domain::Int:
  case Domain::Address:
  case Domain::CBank:
    return kIntEdges;
  case Domain::Shift:
    return kShiftEdges;
  case Domain::Count:
    return kCountEdges;
  case Domain::F32:
    return kF32Edges;
  case Domain::F64:
    return kF64Edges;
  case Domain::Lut:
    return kLutEdges;
  case Domain::SmallImm:
    return kSmallImmEdges;
  case Domain::Pred:
    return kPredEdges;
  default:
    return {};
  }
}

uint64_t drawValue(Domain d, Rng &rng) {
  std::span<const uint64_t> edges = edgeCases(d);
  if (!edges.empty() && rng() % 10 < 3)
    return edges[rng() % edges.size()];
  switch (d) {
  case Domain::Int:
  case Domain::Address:
  case Domain::CBank:
    return randomInt(rng);
  case Domain::Shift:
    return rng() % 2 ? rng() % 70 : randomInt(rng);
  case Domain::Count:
    return rng() % 4 ? uint64_t(uint32_t(int32_t(rng() % 81) - 40)) : randomInt(rng);
  case Domain::F32: {
    uint64_t b = randomFloatBits(rng, false);
    return rng() % 4 == 0 ? b | (rng() << 32) : b; // garbage above the binary32 pattern
  }
  case Domain::F64:
    return randomFloatBits(rng, true);
  case Domain::Half2: {
    uint64_t v = uint64_t(randomHalfLane(rng)) | uint64_t(randomHalfLane(rng)) << 16;
    return rng() % 4 == 0 ? v | (rng() << 32) : v; // garbage above the pair
  }
  case Domain::Lut:
    return rng() & 0xff;
  case Domain::SmallImm:
    return rng() % 71;
  case Domain::Pred:
    return rng() & 1;
  case Domain::Window: { // docs/interpreter.md, "Memory": each window's first and last bytes and
                         // beyond
    static constexpr uint64_t kWindows[][2] = {
        {0x7e0000000000, 0x38000},
        {0x7f0000000000, 0x80000},
        {0x7c0000000000, uint64_t(64) << 20},
        {0x7c8000000000, 0x8000}}; // the kernel's parameters (cvta.param)
    const auto &w = kWindows[rng() % 4];
    switch (rng() % 5) {
    case 0:
      return w[0] - 1 - rng() % 4;
    case 1:
      return w[0] + rng() % 4;
    case 2:
      return w[0] + w[1] - 1 - rng() % 4;
    case 3:
      return w[0] + w[1] + rng() % 4;
    default:
      return rng() % 2 ? w[0] + rng() % w[1] : randomInt(rng);
    }
  }
  default:
    return 0;
  }
}

} // namespace ori::verify
