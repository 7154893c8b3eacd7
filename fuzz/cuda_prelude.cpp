// The text put before the generated kernels (fuzz/cuda_render.h): helpers
// both compilers read alike (the integer wrappers that keep C++ defined,
// traits, loads and stores), then what differs: on the device the CUDA
// functions themselves, on the host models of them written from the CUDA
// and PTX documentation (docs/cuda-host-diff.md cites the sections). The
// host's __half arithmetic is cuda_fp16.h's own host code (binary16 +, -,
// *, / and sqrt through float are correctly rounded: 24 >= 2 * 11 + 2), with
// an exact __hfma added here.
#include "fuzz/cuda_render.h"

namespace ori::cudagen {

const char *commonPrelude() {
  return R"CUDA(#include <stdint.h>
#include <string.h>
#include <cuda_fp16.h>
#ifdef __CUDACC__
#define HD static __device__ __forceinline__
#else
#define HD static inline
#endif
#define FULL 0xffffffffu

// Ranges of the integer types: U is the unsigned type arithmetic is done in
// (at least 32 bits, so no promotion to int can overflow); [lo, hi) the floats
// that convert without saturating.
template <class T> struct Tr;
#define ORI_TR(T, UT, S, LO, HI, MN, MX) \
  template <> struct Tr<T> { typedef UT U; static constexpr int bits = int(sizeof(T) * 8); \
    static constexpr bool sgn = S; static constexpr double lo = LO, hi = HI; \
    static constexpr T mn = (T)(MN), mx = (T)(MX); };
ORI_TR(int8_t, unsigned, true, -128.0, 128.0, -128, 127)
ORI_TR(uint8_t, unsigned, false, 0.0, 256.0, 0, 255)
ORI_TR(int16_t, unsigned, true, -32768.0, 32768.0, -32768, 32767)
ORI_TR(uint16_t, unsigned, false, 0.0, 65536.0, 0, 65535)
ORI_TR(int, unsigned, true, -2147483648.0, 2147483648.0, -2147483647 - 1, 2147483647)
ORI_TR(unsigned, unsigned, false, 0.0, 4294967296.0, 0u, 4294967295u)
ORI_TR(long long, unsigned long long, true, -9223372036854775808.0, 9223372036854775808.0,
       -9223372036854775807LL - 1, 9223372036854775807LL)
ORI_TR(unsigned long long, unsigned long long, false, 0.0, 18446744073709551616.0, 0ull, 18446744073709551615ull)

template <class T> HD T w_add(T a, T b) { typedef typename Tr<T>::U U; return (T)(U)((U)a + (U)b); }
template <class T> HD T w_sub(T a, T b) { typedef typename Tr<T>::U U; return (T)(U)((U)a - (U)b); }
template <class T> HD T w_mul(T a, T b) { typedef typename Tr<T>::U U; return (T)(U)((U)a * (U)b); }
template <class T> HD T w_neg(T a) { typedef typename Tr<T>::U U; return (T)(U)((U)0 - (U)a); }
template <class T> HD T w_not(T a) { return (T)~a; }
template <class T> HD T w_abs(T a) { return a < (T)0 ? w_neg<T>(a) : a; }
template <class T> HD T w_min(T a, T b) { return a < b ? a : b; }
template <class T> HD T w_max(T a, T b) { return a < b ? b : a; }
template <class T> HD T w_div(T a, T b) {
  if (b == (T)0 || (Tr<T>::sgn && a == Tr<T>::mn && b == (T)-1)) return a;
  return (T)(a / b);
}
template <class T> HD T w_rem(T a, T b) {
  if (b == (T)0) return a;
  if (Tr<T>::sgn && a == Tr<T>::mn && b == (T)-1) return (T)0;
  return (T)(a % b);
}
template <class T> HD T w_shl(T a, unsigned s) {
  typedef typename Tr<T>::U U;
  return (T)(U)((U)a << (s & unsigned(Tr<T>::bits - 1)));
}
template <class T> HD T w_shr(T a, unsigned s) { return (T)(a >> (s & unsigned(Tr<T>::bits - 1))); }
// A float as an integer type: NaN 0, out of range saturated, else truncated.
template <class T, class F> HD T f2i(F x) {
  if (x != x) return (T)0;
  if (x < (F)Tr<T>::lo) return Tr<T>::mn;
  if (x >= (F)Tr<T>::hi) return Tr<T>::mx;
  return (T)x;
}
)CUDA";
}

const char *devicePrelude() {
  return R"CUDA(
HD float bits_f32(unsigned u) { return __uint_as_float(u); }
HD double bits_f64(unsigned long long u) { return __longlong_as_double((long long)u); }
HD __half bits_f16(unsigned u) { return __ushort_as_half((unsigned short)u); }
template <class T> HD T ld(const uint8_t* in, unsigned i) { return ((const T*)in)[i & (1024u / sizeof(T) - 1u)]; }
template <class T> HD void st_out(uint8_t* out, unsigned slot, T v) {
  unsigned long long b = 0;
  memcpy(&b, &v, sizeof v);
  ((unsigned long long*)out)[slot] = b;
}
HD float xfma(float a, float b, float c) { return fmaf(a, b, c); }
HD double xfma(double a, double b, double c) { return fma(a, b, c); }
HD float xsqrt(float a) { return sqrtf(a); }
HD double xsqrt(double a) { return sqrt(a); }
// + 0: which zero fmin(+0, -0) gives is left open (nvcc folds it to +0, PTX min.f32 gives -0).
HD float xmin(float a, float b) { return fminf(a, b) + 0.0f; }
HD double xmin(double a, double b) { return fmin(a, b) + 0.0; }
HD float xmax(float a, float b) { return fmaxf(a, b) + 0.0f; }
HD double xmax(double a, double b) { return fmax(a, b) + 0.0; }
HD float xabs(float a) { return fabsf(a); }
HD double xabs(double a) { return fabs(a); }
HD float xfloor(float a) { return floorf(a); }
HD double xfloor(double a) { return floor(a); }
HD float xceil(float a) { return ceilf(a); }
HD double xceil(double a) { return ceil(a); }
HD float xtrunc(float a) { return truncf(a); }
HD double xtrunc(double a) { return trunc(a); }
HD float xrint(float a) { return rintf(a); }
HD double xrint(double a) { return rint(a); }
HD bool xisnan(float a) { return isnan(a); }
HD bool xisnan(double a) { return isnan(a); }
HD float xround(float a) { return roundf(a); }
HD double xround(double a) { return round(a); }
// The sign of a NaN is its payload's business (canonical on the device): not copied.
HD float xcopysign(float a, float b) { return copysignf(a, isnan(b) ? 1.0f : b); }
HD double xcopysign(double a, double b) { return copysign(a, isnan(b) ? 1.0 : b); }
#define TID (threadIdx.x + threadIdx.y * blockDim.x)
#define BID (blockIdx.x)
#define NTID (blockDim.x * blockDim.y)
#define NCTA (gridDim.x)
#define LANE (TID & 31u)
#define WID (TID >> 5)
)CUDA";
}

const char *hostPrelude() {
  return R"CUDA(
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
HD float bits_f32(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
HD double bits_f64(unsigned long long u) { double d; memcpy(&d, &u, 8); return d; }
HD __half bits_f16(unsigned u) { return __ushort_as_half((unsigned short)u); }
template <class T> HD T ld(const uint8_t* in, unsigned i) {
  T v;
  memcpy(&v, in + (i & (1024u / sizeof(T) - 1u)) * sizeof(T), sizeof(T));
  return v;
}
template <class T> HD void st_out(uint8_t* out, unsigned slot, T v) {
  unsigned long long b = 0;
  memcpy(&b, &v, sizeof v);
  memcpy(out + size_t(slot) * 8, &b, 8);
}
// fmaf, sqrtf, floorf, ... are correctly rounded in glibc (sqrt and fma by
// IEEE 754; the others exact). fminf/fmaxf follow PTX min.f32/max.f32 (PTX ISA
// 9.0, "min", "max"; docs/interpreter.md FMNMX): a NaN operand yields the
// other, and -0.0 < +0.0 (glibc may return either zero), as cuda_fp16.hpp's
// host __hmin does.
template <class F> HD F h_min(F a, F b) {
  if (a != a) return b;
  if (b != b) return a;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <class F> HD F h_max(F a, F b) {
  if (a != a) return b;
  if (b != b) return a;
  if (a == b) return std::signbit(a) ? b : a;
  return a < b ? b : a;
}
HD float xfma(float a, float b, float c) { return std::fma(a, b, c); }
HD double xfma(double a, double b, double c) { return std::fma(a, b, c); }
HD float xsqrt(float a) { return std::sqrt(a); }
HD double xsqrt(double a) { return std::sqrt(a); }
HD float xmin(float a, float b) { return h_min(a, b) + 0.0f; }
HD double xmin(double a, double b) { return h_min(a, b) + 0.0; }
HD float xmax(float a, float b) { return h_max(a, b) + 0.0f; }
HD double xmax(double a, double b) { return h_max(a, b) + 0.0; }
HD float xabs(float a) { return std::fabs(a); }
HD double xabs(double a) { return std::fabs(a); }
HD float xfloor(float a) { return std::floor(a); }
HD double xfloor(double a) { return std::floor(a); }
HD float xceil(float a) { return std::ceil(a); }
HD double xceil(double a) { return std::ceil(a); }
HD float xtrunc(float a) { return std::trunc(a); }
HD double xtrunc(double a) { return std::trunc(a); }
HD float xrint(float a) { return std::rint(a); } // the default rounding mode: to nearest even
HD double xrint(double a) { return std::rint(a); }
HD bool xisnan(float a) { return std::isnan(a); }
HD bool xisnan(double a) { return std::isnan(a); }
HD float xround(float a) { return std::round(a); }
HD double xround(double a) { return std::round(a); }
HD float xcopysign(float a, float b) { return std::copysign(a, std::isnan(b) ? 1.0f : b); }
HD double xcopysign(double a, double b) { return std::copysign(a, std::isnan(b) ? 1.0 : b); }

// CUDA's arithmetic with a rounding mode (__fadd_rz, __dmul_ru, __int2float_rd, ...): the IEEE
// operation in that mode, which x86-64's SSE arithmetic and glibc's sqrt and fma honour (the
// host is built with -frounding-math; volatile keeps the operation inside the mode).
struct RoundMode {
  int old;
  explicit RoundMode(int m) : old(fegetround()) { fesetround(m); }
  ~RoundMode() { fesetround(old); }
};
#define ORI_RND4(NAME, T, PARAMS, EXPR) \
  HD T NAME##_rn PARAMS { RoundMode m(FE_TONEAREST); volatile T r = EXPR; return r; } \
  HD T NAME##_rz PARAMS { RoundMode m(FE_TOWARDZERO); volatile T r = EXPR; return r; } \
  HD T NAME##_rd PARAMS { RoundMode m(FE_DOWNWARD); volatile T r = EXPR; return r; } \
  HD T NAME##_ru PARAMS { RoundMode m(FE_UPWARD); volatile T r = EXPR; return r; }
ORI_RND4(__fadd, float, (float a, float b), a + b)
ORI_RND4(__fsub, float, (float a, float b), a - b)
ORI_RND4(__fmul, float, (float a, float b), a * b)
ORI_RND4(__fdiv, float, (float a, float b), a / b)
ORI_RND4(__frcp, float, (float a), 1.0f / a)
ORI_RND4(__fsqrt, float, (float a), std::sqrt(a))
ORI_RND4(__fmaf, float, (float a, float b, float c), std::fma(a, b, c))
ORI_RND4(__dadd, double, (double a, double b), a + b)
ORI_RND4(__dsub, double, (double a, double b), a - b)
ORI_RND4(__dmul, double, (double a, double b), a * b)
ORI_RND4(__ddiv, double, (double a, double b), a / b)
ORI_RND4(__drcp, double, (double a), 1.0 / a)
ORI_RND4(__dsqrt, double, (double a), std::sqrt(a))
ORI_RND4(__fma, double, (double a, double b, double c), std::fma(a, b, c))
ORI_RND4(__int2float, float, (int a), (float)a)
ORI_RND4(__uint2float, float, (unsigned a), (float)a)
ORI_RND4(__ll2float, float, (long long a), (float)a)
ORI_RND4(__ull2float, float, (unsigned long long a), (float)a)
ORI_RND4(__ll2double, double, (long long a), (double)a)
ORI_RND4(__ull2double, double, (unsigned long long a), (double)a)
ORI_RND4(__double2float, float, (double a), (float)a)
// Clamped to [+0.0, 1.0]; NaN gives +0.0 (CUDA Math API, __saturatef).
HD float __saturatef(float a) { return a > 0.0f ? (a > 1.0f ? 1.0f : a) : 0.0f; }
// The low 32 bits of the product of the low 24 bits of a and b (as signed or unsigned 24-bit
// numbers: PTX mul24.lo).
HD int __mul24(int a, int b) {
  long long x = (int)((unsigned)a << 8) >> 8, y = (int)((unsigned)b << 8) >> 8;
  return (int)(unsigned)(unsigned long long)(x * y);
}
HD unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }

// CUDA integer intrinsics (CUDA Math API, "Integer Intrinsics").
HD int __popc(unsigned x) { return __builtin_popcount(x); }
HD int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
HD int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
HD int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
HD int __ffs(int x) { return __builtin_ffs(x); }
HD int __ffsll(long long x) { return __builtin_ffsll(x); }
HD unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
HD unsigned long long __brevll(unsigned long long x) {
  unsigned long long r = 0;
  for (int i = 0; i < 64; ++i) r |= ((x >> i) & 1ull) << (63 - i);
  return r;
}
// Byte n of the result is byte (s >> 4n) & 7 of the 8 bytes {y, x} (x the low
// four); the generator keeps bit 3 of each selector nibble clear.
HD unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int n = 0; n < 4; ++n) r |= unsigned((v >> (8 * ((s >> (4 * n)) & 7u))) & 0xffu) << (8 * n);
  return r;
}
HD unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return unsigned((v << (s & 31u)) >> 32);
}
HD unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return s >= 32u ? lo : unsigned((v << s) >> 32);
}
HD unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return unsigned(v >> (s & 31u));
}
HD unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return s >= 32u ? hi : unsigned(v >> s);
}
HD unsigned __umulhi(unsigned a, unsigned b) { return unsigned(((unsigned long long)a * b) >> 32); }
HD int __mulhi(int a, int b) { return int(((long long)a * b) >> 32); }
HD unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
HD long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
HD unsigned __sad(int x, int y, unsigned z) {
  long long d = (long long)x - y;
  return unsigned(d < 0 ? -d : d) + z;
}
HD unsigned __usad(unsigned x, unsigned y, unsigned z) { return (x > y ? x - y : y - x) + z; }
HD int __hadd(int a, int b) { return int(((long long)a + b) >> 1); }
HD int __rhadd(int a, int b) { return int(((long long)a + b + 1) >> 1); }
HD unsigned __uhadd(unsigned a, unsigned b) { return unsigned(((unsigned long long)a + b) >> 1); }
HD unsigned __urhadd(unsigned a, unsigned b) { return unsigned(((unsigned long long)a + b + 1) >> 1); }

// CUDA's float-to-integer intrinsics are PTX cvt.{rni,rzi,rmi,rpi} (PTX ISA
// 9.0, "cvt": integer results saturate to the destination range; NaN gives 0 when the
// source is not .f64 and the destination not 64-bit, else 1 << (width - 1)).
template <class T, class F> HD T h_cvt(F x, int mode) {
  if (x != x) {
    typedef typename Tr<T>::U U;
    return sizeof(F) == 8 || Tr<T>::bits == 64 ? (T)(U)((U)1 << (Tr<T>::bits - 1)) : (T)0;
  }
  F r = mode == 0 ? std::rint(x) : mode == 1 ? std::trunc(x) : mode == 2 ? std::floor(x) : std::ceil(x);
  return f2i<T>(r);
}
#define ORI_CVT(NAME, T, F) \
  HD T NAME##_rn(F x) { return h_cvt<T>(x, 0); } HD T NAME##_rz(F x) { return h_cvt<T>(x, 1); } \
  HD T NAME##_rd(F x) { return h_cvt<T>(x, 2); } HD T NAME##_ru(F x) { return h_cvt<T>(x, 3); }
ORI_CVT(__float2int, int, float)
ORI_CVT(__float2uint, unsigned, float)
ORI_CVT(__float2ll, long long, float)
ORI_CVT(__float2ull, unsigned long long, float)
ORI_CVT(__double2int, int, double)
ORI_CVT(__double2uint, unsigned, double)

// Exact binary16 fma: the product of two halves is exact in double; the sum
// rounded to odd at 53 bits (TwoSum gives the error) and then to nearest at
// 11 bits is the correctly rounded result (53 >= 11 + 2).
HD __half __hfma(__half a, __half b, __half c) {
  double p = (double)__half2float(a) * (double)__half2float(b), q = (double)__half2float(c);
  double s = p + q;
  if (std::isfinite(s)) {
    double bb = s - p, e = (p - (s - bb)) + (q - bb);
    unsigned long long bits;
    memcpy(&bits, &s, 8);
    if (e != 0 && !(bits & 1)) s = std::nextafter(s, e > 0 ? INFINITY : -INFINITY);
  }
  return __double2half(s);
}

// Shared-memory atomics: the host runs one thread at a time.
template <class T> HD T atomicAdd(T* p, T v) { T o = *p; *p = w_add<T>(o, v); return o; }
template <class T> HD T atomicXor(T* p, T v) { T o = *p; *p = (T)(o ^ v); return o; }
template <class T> HD T atomicOr(T* p, T v) { T o = *p; *p = (T)(o | v); return o; }
template <class T> HD T atomicAnd(T* p, T v) { T o = *p; *p = (T)(o & v); return o; }
template <class T> HD T atomicMin(T* p, T v) { T o = *p; *p = w_min<T>(o, v); return o; }
template <class T> HD T atomicMax(T* p, T v) { T o = *p; *p = w_max<T>(o, v); return o; }

// Warp shuffles as PTX shfl.sync defines them (PTX ISA 9.0, "shfl.sync") for the c
// operand CUDA passes (((32 - width) << 8) | (up ? 0 : 31)): v holds the
// values of the CTA's threads, tid is the reader.
enum { SH_IDX, SH_UP, SH_DOWN, SH_XOR };
template <class T> HD T h_shfl(const T* v, unsigned tid, int mode, unsigned b, int width) {
  unsigned lane = tid & 31u, base = tid - lane;
  unsigned segmask = unsigned(32 - width) & 31u, cval = mode == SH_UP ? 0u : 31u;
  unsigned maxLane = (lane & segmask) | (cval & ~segmask), minLane = lane & segmask, bval = b & 31u;
  int j = int(lane);
  bool p = false;
  switch (mode) {
  case SH_UP: j = int(lane) - int(bval); p = j >= int(maxLane); break;
  case SH_DOWN: j = int(lane + bval); p = j <= int(maxLane); break;
  case SH_XOR: j = int(lane ^ bval); p = j <= int(maxLane); break;
  default: j = int(minLane | (bval & ~segmask)); p = j <= int(maxLane); break;
  }
  if (!p) j = int(lane);
  return v[base + unsigned(j)];
}
)CUDA";
}

} // namespace ori::cudagen
