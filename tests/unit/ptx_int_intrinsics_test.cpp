// The integer intrinsics of CUDA on real nvcc output: tests/ptx-inputs/int_intrinsics.cu
// compiled at test time by nvcc -arch=sm_90 (-O3, and -Xcicc -O0). Every instruction of both
// lowers to native Ori (no OPAQUE), the emitted PTX assembles, and each kernel run in the
// interpreter (as lowered, and after --emit=ptx read back) gives, thread by thread, what the
// same function computes on the host: __int128 and the CUDA Math API's definitions written
// out in C++ here (docs.nvidia.com, "Integer Intrinsics", "SIMD Intrinsics").
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "interp/interp.h"
#include "ir/ori.h"
#include "ptx/ptx.h"
#include "tests/unit/ptx_kernel_runner.h"

namespace ori {
namespace {

namespace fs = std::filesystem;
using u32 = uint32_t;
using u64 = uint64_t;
using u128 = unsigned __int128;
using s128 = __int128;

bool haveNvcc() { return std::system("command -v nvcc > /dev/null 2>&1") == 0; }

struct Build {
  Module lowered, reEmitted;
  std::string emitted;
  bool ok = false;
};

// The source compiled with `flags`, lowered, emitted and lowered again (once per flags).
const Build &build(const std::string &flags) {
  static std::map<std::string, Build> cache;
  auto it = cache.find(flags);
  if (it != cache.end())
    return it->second;
  Build &b = cache[flags];
  const fs::path src = fs::path(ORIOPT_SOURCE_DIR) / "tests/ptx-inputs/int_intrinsics.cu";
  auto slurp = [](const fs::path &p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  };
  // nvcc takes seconds and ctest runs each test in a process of its own: the PTX is kept in
  // the temporary directory under a hash of the source and the flags, written under a name of
  // this process's and renamed into place (two tests may compile it at once).
  const std::string key = std::to_string(std::hash<std::string>{}(slurp(src) + "|" + flags));
  const fs::path cached = fs::temp_directory_path() / ("oriopt-int-intrinsics-" + key + ".ptx");
  if (!fs::exists(cached)) {
    const fs::path out = fs::temp_directory_path() /
                         ("oriopt-int-intrinsics-" + std::to_string(::getpid()) + ".ptx");
    const std::string cmd = "nvcc -arch=sm_90 -ptx " + flags + " '" + src.string() + "' -o '" +
                            out.string() + "' 2>/dev/null";
    if (std::system(cmd.c_str()) != 0) {
      ADD_FAILURE() << cmd;
      return b;
    }
    std::error_code ec;
    fs::rename(out, cached, ec);
    if (ec)
      fs::remove(out);
  }
  ptxtest::Kernel k = ptxtest::lowerAndReEmit(slurp(cached));
  b.lowered = std::move(k.lowered);
  b.reEmitted = std::move(k.reEmitted);
  b.emitted = std::move(k.emittedPtx);
  b.ok = !b.lowered.functions.empty() && !b.reEmitted.functions.empty();
  return b;
}

const char *const kFlags[] = {"", "-Xcicc -O0"};

// --------------------------------------------------------------------- host references

u32 lanes2(u32 x, u32 y, const std::function<int64_t(u32, u32)> &f) {
  u32 r = 0;
  for (int i = 0; i < 2; ++i)
    r |= u32(f((x >> (16 * i)) & 0xffff, (y >> (16 * i)) & 0xffff) & 0xffff) << (16 * i);
  return r;
}
u32 lanes4(u32 x, u32 y, const std::function<int64_t(u32, u32)> &f) {
  u32 r = 0;
  for (int i = 0; i < 4; ++i)
    r |= u32(f((x >> (8 * i)) & 0xff, (y >> (8 * i)) & 0xff) & 0xff) << (8 * i);
  return r;
}
int64_t s16(u32 v) { return int16_t(uint16_t(v)); }
int64_t s8(u32 v) { return int8_t(uint8_t(v)); }
int64_t clampTo(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }
u32 sum2(u32 x, u32 y, const std::function<int64_t(u32, u32)> &f) {
  return u32(f(x & 0xffff, y & 0xffff) + f(x >> 16, y >> 16));
}
u32 sum4(u32 x, u32 y, const std::function<int64_t(u32, u32)> &f) {
  int64_t s = 0;
  for (int i = 0; i < 4; ++i)
    s += f((x >> (8 * i)) & 0xff, (y >> (8 * i)) & 0xff);
  return u32(s);
}
// PTX fns, as the CUDA Math API's __fns.
u32 fns(u32 mask, u32 base, int32_t offset) {
  if (offset == 0)
    return (mask >> base) & 1 ? base : 0xffffffff;
  int64_t count = offset > 0 ? offset : -int64_t(offset);
  for (int pos = int(base); pos >= 0 && pos<32; pos += offset> 0 ? 1 : -1)
    if ((mask >> pos) & 1 && --count == 0)
      return u32(pos);
  return 0xffffffff;
}
int64_t sx(u32 v, int bits) { return int64_t(int32_t(v << (32 - bits))) >> (32 - bits); }
u32 dot(u32 a, u32 b, u32 c, bool sa, bool sb, int form) { // form 4: dp4a; 0/2: dp2a lo/hi
  int64_t s = int64_t(int32_t(c));
  if (form == 4) {
    for (int i = 0; i < 4; ++i) {
      u32 x = (a >> (8 * i)) & 0xff, y = (b >> (8 * i)) & 0xff;
      s += (sa ? sx(x, 8) : x) * (sb ? sx(y, 8) : y);
    }
  } else {
    for (int i = 0; i < 2; ++i) {
      u32 x = (a >> (16 * i)) & 0xffff, y = (b >> (8 * (form + i))) & 0xff;
      s += (sa ? sx(x, 16) : x) * (sb ? sx(y, 8) : y);
    }
  }
  return u32(s);
}
u32 addMax16(u32 a, u32 b, u32 c, bool isSigned, bool isMax, bool relu) {
  u32 r = 0;
  for (int i = 0; i < 2; ++i) {
    u32 x = (a >> (16 * i)) & 0xffff, y = (b >> (16 * i)) & 0xffff, z = (c >> (16 * i)) & 0xffff;
    int64_t s = (x + y) & 0xffff;
    int64_t sv = isSigned ? s16(u32(s)) : s, zv = isSigned ? s16(z) : z;
    int64_t m = isMax ? std::max(sv, zv) : std::min(sv, zv);
    if (relu)
      m = std::max<int64_t>(m, 0);
    r |= u32(m & 0xffff) << (16 * i);
  }
  return r;
}
u32 mnmx3_16(u32 a, u32 b, u32 c, bool isSigned, bool isMax, bool relu) {
  u32 r = 0;
  for (int i = 0; i < 2; ++i) {
    auto v = [&](u32 w) {
      u32 h = (w >> (16 * i)) & 0xffff;
      return isSigned ? s16(h) : int64_t(h);
    };
    int64_t m = isMax ? std::max({v(a), v(b), v(c)}) : std::min({v(a), v(b), v(c)});
    if (relu)
      m = std::max<int64_t>(m, 0);
    r |= u32(m & 0xffff) << (16 * i);
  }
  return r;
}
int32_t i32(u32 v) { return int32_t(v); }

struct Case32 {
  const char *kernel;
  std::function<u32(u32, u32, u32)> ref;
};

const std::vector<Case32> &cases32() {
  static const std::vector<Case32> c = {
      {"k_brev", [](u32 x, u32, u32) { u32 r = 0; for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1) << (31 - i); return r; }},
      {"k_byte_perm", [](u32 x, u32 y, u32 z) {
         u64 v = u64(y) << 32 | x; u32 s = z & 0x7777, r = 0;
         for (int n = 0; n < 4; ++n) r |= u32((v >> (8 * ((s >> (4 * n)) & 7))) & 0xff) << (8 * n);
         return r; }},
      {"k_clz", [](u32 x, u32, u32) { return u32(std::countl_zero(x)); }},
      {"k_ffs", [](u32 x, u32, u32) { return x ? u32(std::countr_zero(x)) + 1 : 0u; }},
      {"k_popc", [](u32 x, u32, u32) { return u32(std::popcount(x)); }},
      {"k_hadd", [](u32 x, u32 y, u32) { return u32((int64_t(i32(x)) + i32(y)) >> 1); }},
      {"k_uhadd", [](u32 x, u32 y, u32) { return u32((u64(x) + y) >> 1); }},
      {"k_rhadd", [](u32 x, u32 y, u32) { return u32((int64_t(i32(x)) + i32(y) + 1) >> 1); }},
      {"k_urhadd", [](u32 x, u32 y, u32) { return u32((u64(x) + y + 1) >> 1); }},
      {"k_mul24", [](u32 x, u32 y, u32) { return u32(sx(x, 24) * sx(y, 24)); }},
      {"k_umul24", [](u32 x, u32 y, u32) { return u32(u64(x & 0xffffff) * (y & 0xffffff)); }},
      {"k_mulhi", [](u32 x, u32 y, u32) { return u32((int64_t(i32(x)) * i32(y)) >> 32); }},
      {"k_umulhi", [](u32 x, u32 y, u32) { return u32((u64(x) * y) >> 32); }},
      {"k_sad", [](u32 x, u32 y, u32 z) { return u32(std::llabs(int64_t(i32(x)) - i32(y))) + z; }},
      {"k_usad", [](u32 x, u32 y, u32 z) { return (x > y ? x - y : y - x) + z; }},
      {"k_funnelshift_l", [](u32 x, u32 y, u32 z) { return u32(((u64(y) << 32 | x) << (z & 31)) >> 32); }},
      {"k_funnelshift_lc", [](u32 x, u32 y, u32 z) { return u32(((u64(y) << 32 | x) << std::min(z, 32u)) >> 32); }},
      {"k_funnelshift_r", [](u32 x, u32 y, u32 z) { return u32((u64(y) << 32 | x) >> (z & 31)); }},
      {"k_funnelshift_rc", [](u32 x, u32 y, u32 z) { return u32((u64(y) << 32 | x) >> std::min(z, 32u)); }},
      {"k_dp4a_s", [](u32 x, u32 y, u32 z) { return dot(x, y, z, true, true, 4); }},
      {"k_dp4a_u", [](u32 x, u32 y, u32 z) { return dot(x, y, z, false, false, 4); }},
      {"k_dp2a_lo_s", [](u32 x, u32 y, u32 z) { return dot(x, y, z, true, true, 0); }},
      {"k_dp2a_lo_u", [](u32 x, u32 y, u32 z) { return dot(x, y, z, false, false, 0); }},
      {"k_dp2a_hi_s", [](u32 x, u32 y, u32 z) { return dot(x, y, z, true, true, 2); }},
      {"k_dp2a_hi_u", [](u32 x, u32 y, u32 z) { return dot(x, y, z, false, false, 2); }},
      {"k_fns", [](u32 x, u32 y, u32 z) { return fns(x, y & 31, i32(z) % 40); }},
      {"k_bswap32", [](u32 x, u32, u32) { return x >> 24 | (x >> 8 & 0xff00) | (x << 8 & 0xff0000) | x << 24; }},
      // SIMD: per halfword / byte, as the CUDA Math API describes each.
      {"k_vabs2", [](u32 x, u32, u32) { return lanes2(x, 0, [](u32 a, u32) { return std::llabs(s16(a)); }); }},
      {"k_vabs4", [](u32 x, u32, u32) { return lanes4(x, 0, [](u32 a, u32) { return std::llabs(s8(a)); }); }},
      {"k_vabsss2", [](u32 x, u32, u32) { return lanes2(x, 0, [](u32 a, u32) { return std::min<int64_t>(std::llabs(s16(a)), 0x7fff); }); }},
      {"k_vabsss4", [](u32 x, u32, u32) { return lanes4(x, 0, [](u32 a, u32) { return std::min<int64_t>(std::llabs(s8(a)), 0x7f); }); }},
      {"k_vabsdiffs2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return std::llabs(s16(a) - s16(b)); }); }},
      {"k_vabsdiffs4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return std::llabs(s8(a) - s8(b)); }); }},
      {"k_vabsdiffu2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return std::llabs(int64_t(a) - b); }); }},
      {"k_vabsdiffu4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return std::llabs(int64_t(a) - b); }); }},
      {"k_vadd2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return int64_t(a) + b; }); }},
      {"k_vadd4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return int64_t(a) + b; }); }},
      {"k_vaddss2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return clampTo(s16(a) + s16(b), -0x8000, 0x7fff); }); }},
      {"k_vaddss4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return clampTo(s8(a) + s8(b), -0x80, 0x7f); }); }},
      {"k_vaddus2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return std::min<int64_t>(int64_t(a) + b, 0xffff); }); }},
      {"k_vaddus4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return std::min<int64_t>(int64_t(a) + b, 0xff); }); }},
      {"k_vavgu2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return (int64_t(a) + b + 1) >> 1; }); }},
      {"k_vavgu4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return (int64_t(a) + b + 1) >> 1; }); }},
      {"k_vcmpeq2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return a == b ? -1 : 0; }); }},
      {"k_vcmpeq4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return a == b ? -1 : 0; }); }},
      {"k_vcmpges2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return s16(a) >= s16(b) ? -1 : 0; }); }},
      {"k_vcmpges4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return s8(a) >= s8(b) ? -1 : 0; }); }},
      {"k_vcmpgeu2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return a >= b ? -1 : 0; }); }},
      {"k_vcmpgeu4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return a >= b ? -1 : 0; }); }},
      {"k_vcmpgts2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return s16(a) > s16(b) ? -1 : 0; }); }},
      {"k_vcmpgts4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return s8(a) > s8(b) ? -1 : 0; }); }},
      {"k_vcmpgtu2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return a > b ? -1 : 0; }); }},
      {"k_vcmpgtu4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return a > b ? -1 : 0; }); }},
      {"k_vcmples2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return s16(a) <= s16(b) ? -1 : 0; }); }},
      {"k_vcmples4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return s8(a) <= s8(b) ? -1 : 0; }); }},
      {"k_vcmpleu2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return a <= b ? -1 : 0; }); }},
      {"k_vcmpleu4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return a <= b ? -1 : 0; }); }},
      {"k_vcmplts2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return s16(a) < s16(b) ? -1 : 0; }); }},
      {"k_vcmplts4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return s8(a) < s8(b) ? -1 : 0; }); }},
      {"k_vcmpltu2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return a < b ? -1 : 0; }); }},
      {"k_vcmpltu4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return a < b ? -1 : 0; }); }},
      {"k_vcmpne2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return a != b ? -1 : 0; }); }},
      {"k_vcmpne4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return a != b ? -1 : 0; }); }},
      {"k_vhaddu2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return (int64_t(a) + b) >> 1; }); }},
      {"k_vhaddu4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return (int64_t(a) + b) >> 1; }); }},
      {"k_vmaxs2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return std::max(s16(a), s16(b)); }); }},
      {"k_vmaxs4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return std::max(s8(a), s8(b)); }); }},
      {"k_vmaxu2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return int64_t(std::max(a, b)); }); }},
      {"k_vmaxu4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return int64_t(std::max(a, b)); }); }},
      {"k_vmins2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return std::min(s16(a), s16(b)); }); }},
      {"k_vmins4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return std::min(s8(a), s8(b)); }); }},
      {"k_vminu2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return int64_t(std::min(a, b)); }); }},
      {"k_vminu4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return int64_t(std::min(a, b)); }); }},
      {"k_vneg2", [](u32 x, u32, u32) { return lanes2(x, 0, [](u32 a, u32) { return -int64_t(a); }); }},
      {"k_vneg4", [](u32 x, u32, u32) { return lanes4(x, 0, [](u32 a, u32) { return -int64_t(a); }); }},
      {"k_vnegss2", [](u32 x, u32, u32) { return lanes2(x, 0, [](u32 a, u32) { return std::min<int64_t>(-s16(a), 0x7fff); }); }},
      {"k_vnegss4", [](u32 x, u32, u32) { return lanes4(x, 0, [](u32 a, u32) { return std::min<int64_t>(-s8(a), 0x7f); }); }},
      {"k_vsads2", [](u32 x, u32 y, u32) { return sum2(x, y, [](u32 a, u32 b) { return std::llabs(s16(a) - s16(b)); }); }},
      {"k_vsads4", [](u32 x, u32 y, u32) { return sum4(x, y, [](u32 a, u32 b) { return std::llabs(s8(a) - s8(b)); }); }},
      {"k_vsadu2", [](u32 x, u32 y, u32) { return sum2(x, y, [](u32 a, u32 b) { return std::llabs(int64_t(a) - b); }); }},
      {"k_vsadu4", [](u32 x, u32 y, u32) { return sum4(x, y, [](u32 a, u32 b) { return std::llabs(int64_t(a) - b); }); }},
      {"k_vseteq2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return a == b; }); }},
      {"k_vseteq4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return a == b; }); }},
      {"k_vsetges2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return s16(a) >= s16(b); }); }},
      {"k_vsetges4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return s8(a) >= s8(b); }); }},
      {"k_vsetgeu2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return a >= b; }); }},
      {"k_vsetgeu4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return a >= b; }); }},
      {"k_vsetgts2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return s16(a) > s16(b); }); }},
      {"k_vsetgts4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return s8(a) > s8(b); }); }},
      {"k_vsetgtu2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return a > b; }); }},
      {"k_vsetgtu4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return a > b; }); }},
      {"k_vsetles2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return s16(a) <= s16(b); }); }},
      {"k_vsetles4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return s8(a) <= s8(b); }); }},
      {"k_vsetleu2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return a <= b; }); }},
      {"k_vsetleu4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return a <= b; }); }},
      {"k_vsetlts2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return s16(a) < s16(b); }); }},
      {"k_vsetlts4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return s8(a) < s8(b); }); }},
      {"k_vsetltu2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return a < b; }); }},
      {"k_vsetltu4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return a < b; }); }},
      {"k_vsetne2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return a != b; }); }},
      {"k_vsetne4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return a != b; }); }},
      {"k_vsub2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return int64_t(a) - b; }); }},
      {"k_vsub4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return int64_t(a) - b; }); }},
      {"k_vsubss2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return clampTo(s16(a) - s16(b), -0x8000, 0x7fff); }); }},
      {"k_vsubss4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return clampTo(s8(a) - s8(b), -0x80, 0x7f); }); }},
      {"k_vsubus2", [](u32 x, u32 y, u32) { return lanes2(x, y, [](u32 a, u32 b) { return std::max<int64_t>(int64_t(a) - b, 0); }); }},
      {"k_vsubus4", [](u32 x, u32 y, u32) { return lanes4(x, y, [](u32 a, u32 b) { return std::max<int64_t>(int64_t(a) - b, 0); }); }},
      // DPX (sm_90): add then max/min, three-way max/min, .relu clamps at 0.
      {"k_viaddmax_s32", [](u32 x, u32 y, u32 z) { return u32(std::max(i32(x + y), i32(z))); }},
      {"k_viaddmax_s32_relu", [](u32 x, u32 y, u32 z) { return u32(std::max({i32(x + y), i32(z), 0})); }},
      {"k_viaddmax_u32", [](u32 x, u32 y, u32 z) { return std::max(x + y, z); }},
      {"k_viaddmin_s32", [](u32 x, u32 y, u32 z) { return u32(std::min(i32(x + y), i32(z))); }},
      {"k_viaddmin_s32_relu", [](u32 x, u32 y, u32 z) { return u32(std::max(std::min(i32(x + y), i32(z)), 0)); }},
      {"k_viaddmin_u32", [](u32 x, u32 y, u32 z) { return std::min(x + y, z); }},
      {"k_viaddmax_s16x2", [](u32 x, u32 y, u32 z) { return addMax16(x, y, z, true, true, false); }},
      {"k_viaddmax_s16x2_relu", [](u32 x, u32 y, u32 z) { return addMax16(x, y, z, true, true, true); }},
      {"k_viaddmax_u16x2", [](u32 x, u32 y, u32 z) { return addMax16(x, y, z, false, true, false); }},
      {"k_viaddmin_s16x2", [](u32 x, u32 y, u32 z) { return addMax16(x, y, z, true, false, false); }},
      {"k_viaddmin_s16x2_relu", [](u32 x, u32 y, u32 z) { return addMax16(x, y, z, true, false, true); }},
      {"k_viaddmin_u16x2", [](u32 x, u32 y, u32 z) { return addMax16(x, y, z, false, false, false); }},
      {"k_vimax3_s32", [](u32 x, u32 y, u32 z) { return u32(std::max({i32(x), i32(y), i32(z)})); }},
      {"k_vimax3_s32_relu", [](u32 x, u32 y, u32 z) { return u32(std::max({i32(x), i32(y), i32(z), 0})); }},
      {"k_vimax3_u32", [](u32 x, u32 y, u32 z) { return std::max({x, y, z}); }},
      {"k_vimin3_s32", [](u32 x, u32 y, u32 z) { return u32(std::min({i32(x), i32(y), i32(z)})); }},
      {"k_vimin3_s32_relu", [](u32 x, u32 y, u32 z) { return u32(std::max(std::min({i32(x), i32(y), i32(z)}), 0)); }},
      {"k_vimin3_u32", [](u32 x, u32 y, u32 z) { return std::min({x, y, z}); }},
      {"k_vimax3_s16x2", [](u32 x, u32 y, u32 z) { return mnmx3_16(x, y, z, true, true, false); }},
      {"k_vimax3_s16x2_relu", [](u32 x, u32 y, u32 z) { return mnmx3_16(x, y, z, true, true, true); }},
      {"k_vimax3_u16x2", [](u32 x, u32 y, u32 z) { return mnmx3_16(x, y, z, false, true, false); }},
      {"k_vimin3_s16x2", [](u32 x, u32 y, u32 z) { return mnmx3_16(x, y, z, true, false, false); }},
      {"k_vimin3_s16x2_relu", [](u32 x, u32 y, u32 z) { return mnmx3_16(x, y, z, true, false, true); }},
      {"k_vimin3_u16x2", [](u32 x, u32 y, u32 z) { return mnmx3_16(x, y, z, false, false, false); }},
      {"k_vimax_s16x2_relu", [](u32 x, u32 y, u32) { return mnmx3_16(x, y, y, true, true, true); }},
      {"k_vimax_s32_relu", [](u32 x, u32 y, u32) { return u32(std::max({i32(x), i32(y), 0})); }},
      {"k_vimin_s16x2_relu", [](u32 x, u32 y, u32) { return mnmx3_16(x, y, y, true, false, true); }},
      {"k_vimin_s32_relu", [](u32 x, u32 y, u32) { return u32(std::max(std::min(i32(x), i32(y)), 0)); }},
  };
  return c;
}

constexpr u32 kThreads = 64;
const u32 kEdges[] = {0,          1,          2,          0x7f,       0x80,       0xff,
                      0x7fff,     0x8000,     0xffff,     0x7fffffff, 0x80000000, 0xffffffff,
                      0x80008000, 0x7fff7fff, 0x80808080, 0x7f7f7f7f, 0xffff0000, 0x0000ffff,
                      0x01020304, 0xfedcba98, 0x00ff00ff};

// Input k of the launch: edge cases crossed for the first 40 threads, then an LCG.
std::vector<u32> inputs(int which) {
  std::vector<u32> v(kThreads);
  const size_t n = std::size(kEdges);
  u32 x = 12345u + 977u * u32(which);
  for (u32 i = 0; i < kThreads; ++i) {
    x = x * 1664525u + 1013904223u;
    v[i] =
        i < 40 ? kEdges[(i * (2 * which + 1) + u32(which) * 3) % n] : x ^ (x >> 13) * 0x9e3779b9u;
  }
  return v;
}

template <class T> std::vector<uint8_t> bytes(const std::vector<T> &v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  for (size_t k = 0; k < v.size(); ++k)
    for (size_t i = 0; i < sizeof(T); ++i)
      b[k * sizeof(T) + i] = uint8_t(v[k] >> (8 * i));
  return b;
}
template <class T> T valueAt(const std::vector<uint8_t> &b, size_t k) {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    v |= T(b.at(k * sizeof(T) + i)) << (8 * i);
  return v;
}

// Runs `kernel` of both modules of a build; the output buffer of each.
std::vector<std::vector<uint8_t>> run(const Build &b, const std::string &kernel, size_t outBytes,
                                      const std::vector<std::vector<uint8_t>> &ins) {
  RunConfig cfg;
  cfg.entry = kernel;
  cfg.threads = kThreads;
  cfg.buffers[kernel + "_param_0"] = std::vector<uint8_t>(outBytes);
  for (size_t k = 0; k < ins.size(); ++k)
    cfg.buffers[kernel + "_param_" + std::to_string(k + 1)] = ins[k];
  std::vector<std::vector<uint8_t>> out;
  for (const Module *m : {&b.lowered, &b.reEmitted}) {
    RunResult r = runKernel(*m, cfg);
    EXPECT_EQ(int(r.kind), int(RunResult::Kind::Ok))
        << kernel << (m == &b.lowered ? "" : " (re-emitted)") << ": " << formatExit(r, kernel)
        << " " << r.message;
    out.push_back(r.buffers[kernel + "_param_0"]);
  }
  return out;
}

TEST(PtxIntIntrinsics, EveryInstructionIsNativeAndTheEmittedPtxAssembles) {
  if (!haveNvcc())
    GTEST_SKIP() << "nvcc is not installed";
  for (const char *flags : kFlags) {
    SCOPED_TRACE(flags);
    const Build &b = build(flags);
    ASSERT_TRUE(b.ok);
    size_t instrs = 0, opaque = 0;
    std::string first;
    for (const Function &f : b.lowered.functions)
      for (const Block &bl : f.blocks)
        for (const Instr &in : bl.instrs) {
          ++instrs;
          if (in.op != Opcode::OPAQUE)
            continue;
          if (opaque++ < 5)
            first += std::string(in.opaqueText) + "\n";
        }
    EXPECT_GT(instrs, 2000u);
    EXPECT_EQ(opaque, 0u) << first;
    if (ptxtest::havePtxas())
      EXPECT_EQ(ptxtest::ptxasErrors(b.emitted), "");
  }
}

TEST(PtxIntIntrinsics, ThirtyTwoBitKernelsMatchTheHost) {
  if (!haveNvcc())
    GTEST_SKIP() << "nvcc is not installed";
  const std::vector<u32> a = inputs(0), bv = inputs(1), c = inputs(2);
  for (const char *flags : kFlags) {
    const Build &b = build(flags);
    ASSERT_TRUE(b.ok);
    for (const Case32 &cs : cases32()) {
      SCOPED_TRACE(std::string(cs.kernel) + " " + flags);
      auto outs = run(b, cs.kernel, 4 * kThreads, {bytes(a), bytes(bv), bytes(c)});
      for (const auto &out : outs) {
        int bad = 0;
        for (u32 i = 0; i < kThreads && bad < 3; ++i) {
          const u32 want = cs.ref(a[i], bv[i], c[i]), got = valueAt<u32>(out, i);
          if (want == got)
            continue;
          ++bad;
          ADD_FAILURE() << std::hex << "thread " << std::dec << i << std::hex << ": a=0x" << a[i]
                        << " b=0x" << bv[i] << " c=0x" << c[i] << ": host 0x" << want
                        << ", interpreter 0x" << got;
        }
      }
    }
  }
}

TEST(PtxIntIntrinsics, CompareAndSelectReportWhichOperandWon) {
  if (!haveNvcc())
    GTEST_SKIP() << "nvcc is not installed";
  const std::vector<u32> a = inputs(0), bv = inputs(1), c = inputs(2);
  struct Case {
    const char *kernel;
    bool isMax, isSigned, halves;
  };
  const Case cases[] = {
      {"k_vibmax_s32", true, true, false},   {"k_vibmax_u32", true, false, false},
      {"k_vibmin_s32", false, true, false},  {"k_vibmin_u32", false, false, false},
      {"k_vibmax_s16x2", true, true, true},  {"k_vibmax_u16x2", true, false, true},
      {"k_vibmin_s16x2", false, true, true}, {"k_vibmin_u16x2", false, false, true}};
  for (const char *flags : kFlags) {
    const Build &b = build(flags);
    ASSERT_TRUE(b.ok);
    for (const Case &cs : cases) {
      SCOPED_TRACE(std::string(cs.kernel) + " " + flags);
      auto outs = run(b, cs.kernel, 8 * kThreads, {bytes(a), bytes(bv), bytes(c)});
      for (const auto &out : outs)
        for (u32 i = 0; i < kThreads; ++i) {
          // __vibmax_*: the max and whether a >= b (__vibmin_*: a <= b); the 16x2 forms report
          // the high half's predicate first (bit 0 here) and the low half's second (bit 1).
          u32 want = 0, preds = 0;
          const int n = cs.halves ? 2 : 1;
          for (int h = 0; h < n; ++h) {
            const int bits = cs.halves ? 16 : 32;
            u32 x = cs.halves ? (a[i] >> (16 * h)) & 0xffff : a[i],
                y = cs.halves ? (bv[i] >> (16 * h)) & 0xffff : bv[i];
            int64_t xv = cs.isSigned ? sx(x, bits) : int64_t(x),
                    yv = cs.isSigned ? sx(y, bits) : int64_t(y);
            bool pick = cs.isMax ? xv >= yv : xv <= yv;
            u32 r = pick ? x : y;
            want |= cs.halves ? r << (16 * h) : r;
            if (cs.halves)
              preds |= u32(pick) << (h == 1 ? 0 : 1);
            else
              preds = pick;
          }
          EXPECT_EQ(valueAt<u32>(out, i), want) << "thread " << i;
          EXPECT_EQ(valueAt<u32>(out, kThreads + i), preds) << "thread " << i;
        }
    }
  }
}

TEST(PtxIntIntrinsics, SixtyFourBitKernelsMatchTheHost) {
  if (!haveNvcc())
    GTEST_SKIP() << "nvcc is not installed";
  std::vector<u64> a(kThreads), bv(kThreads);
  {
    const std::vector<u32> a0 = inputs(3), a1 = inputs(4), b0 = inputs(5), b1 = inputs(6);
    for (u32 i = 0; i < kThreads; ++i)
      a[i] = u64(a1[i]) << 32 | a0[i], bv[i] = u64(b1[i]) << 32 | b0[i];
  }
  const std::map<std::string, std::function<u64(u64, u64)>> refs = {
      {"k_brevll",
       [](u64 x, u64) {
         u64 r = 0;
         for (int i = 0; i < 64; ++i)
           r |= ((x >> i) & 1) << (63 - i);
         return r;
       }},
      {"k_clzll", [](u64 x, u64) { return u64(std::countl_zero(x)); }},
      {"k_ffsll", [](u64 x, u64) { return x ? u64(std::countr_zero(x)) + 1 : 0; }},
      {"k_popcll", [](u64 x, u64) { return u64(std::popcount(x)); }},
      {"k_mul64hi", [](u64 x, u64 y) { return u64((s128(int64_t(x)) * s128(int64_t(y))) >> 64); }},
      {"k_umul64hi", [](u64 x, u64 y) { return u64((u128(x) * u128(y)) >> 64); }},
      {"k_div7", [](u64 x, u64) { return x / 7; }},
      {"k_sdiv13", [](u64 x, u64) { return u64(int64_t(x) / -13); }},
      {"k_rem_prime", [](u64 x, u64) { return x % 1000000007ull; }},
      {"k_bswap64",
       [](u64 x, u64) {
         u64 r = 0;
         for (int i = 0; i < 8; ++i)
           r |= ((x >> (8 * i)) & 0xff) << (56 - 8 * i);
         return r;
       }},
  };
  for (const char *flags : kFlags) {
    const Build &b = build(flags);
    ASSERT_TRUE(b.ok);
    for (const auto &[kernel, ref] : refs) {
      SCOPED_TRACE(kernel + " " + flags);
      auto outs = run(b, kernel, 8 * kThreads, {bytes(a), bytes(bv)});
      for (const auto &out : outs)
        for (u32 i = 0; i < kThreads; ++i)
          EXPECT_EQ(valueAt<u64>(out, i), ref(a[i], bv[i]))
              << std::hex << "a=0x" << a[i] << " b=0x" << bv[i];
    }
  }
}

TEST(PtxIntIntrinsics, Int128MatchesTheHost) {
  if (!haveNvcc())
    GTEST_SKIP() << "nvcc is not installed";
  std::vector<u128> a(kThreads), bv(kThreads);
  {
    std::vector<u32> w[8];
    for (int k = 0; k < 8; ++k)
      w[k] = inputs(10 + k);
    for (u32 i = 0; i < kThreads; ++i) {
      a[i] = u128(w[3][i]) << 96 | u128(w[2][i]) << 64 | u128(w[1][i]) << 32 | w[0][i];
      bv[i] = u128(w[7][i]) << 96 | u128(w[6][i]) << 64 | u128(w[5][i]) << 32 | w[4][i];
    }
    a[0] = ~u128(0), bv[0] = 1;              // carries through every word
    a[1] = u128(1) << 64, bv[1] = 1;         // a borrow through the low word
    a[2] = u128(1) << 127, bv[2] = ~u128(0); // INT128_MIN, -1
  }
  for (const char *flags : kFlags) {
    const Build &b = build(flags);
    ASSERT_TRUE(b.ok);
    {
      SCOPED_TRACE(std::string("k_u128 ") + flags);
      for (const auto &out : run(b, "k_u128", 64 * kThreads, {bytes(a), bytes(bv)}))
        for (u32 i = 0; i < kThreads; ++i) {
          const u128 x = a[i], y = bv[i];
          EXPECT_TRUE(valueAt<u128>(out, 4 * i) == x + y) << "thread " << i;
          EXPECT_TRUE(valueAt<u128>(out, 4 * i + 1) == x - y) << "thread " << i;
          EXPECT_TRUE(valueAt<u128>(out, 4 * i + 2) == x * y) << "thread " << i;
          EXPECT_TRUE(valueAt<u128>(out, 4 * i + 3) == ((x >> unsigned(y & 127)) ^ (x << 3)))
              << "thread " << i;
        }
    }
    {
      SCOPED_TRACE(std::string("k_s128 ") + flags);
      for (const auto &out : run(b, "k_s128", 48 * kThreads, {bytes(a), bytes(bv)}))
        for (u32 i = 0; i < kThreads; ++i) {
          const s128 x = s128(a[i]), y = s128(bv[i]);
          EXPECT_TRUE(valueAt<u128>(out, 3 * i) == u128(x) * u128(y)) << "thread " << i;
          EXPECT_TRUE(valueAt<u128>(out, 3 * i + 1) == u128(x >> 70)) << "thread " << i;
          EXPECT_TRUE(valueAt<u128>(out, 3 * i + 2) == u128(x < y ? -x : x / 3)) << "thread " << i;
        }
    }
    {
      SCOPED_TRACE(std::string("k_u128div ") + flags);
      for (const auto &out : run(b, "k_u128div", 32 * kThreads, {bytes(a), bytes(bv)}))
        for (u32 i = 0; i < kThreads; ++i) {
          EXPECT_TRUE(valueAt<u128>(out, 2 * i) == a[i] / (bv[i] | 1)) << "thread " << i;
          EXPECT_TRUE(valueAt<u128>(out, 2 * i + 1) == a[i] % (bv[i] | 1)) << "thread " << i;
        }
    }
  }
}

} // namespace
} // namespace ori
