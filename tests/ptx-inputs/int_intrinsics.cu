// Every integer intrinsic of the CUDA Math API (device_functions.h, sm_*_intrinsics.h), the
// SIMD intrinsics, the DPX functions of sm_90 and __int128 arithmetic, one kernel each, for
// tests/unit/ptx_int_intrinsics_test.cpp: it compiles this file with
//   nvcc -arch=sm_90 -ptx int_intrinsics.cu              (and with -Xcicc -O0)
// checks that every instruction of the PTX lowers to native Ori, and runs the kernels in
// the interpreter against the same functions computed on the host.
#include <cstdint>

// o[i] = f(a[i], b[i], c[i]) on 32-bit words.
#define K32(name, expr)                                                                         \
  extern "C" __global__ void name(unsigned* o, const unsigned* a, const unsigned* b, const unsigned* c) { \
    int i = threadIdx.x;                                                                        \
    unsigned x = a[i], y = b[i], z = c[i];                                                      \
    (void)x, (void)y, (void)z;                                                                  \
    o[i] = (expr);                                                                              \
  }
// o[i] = f(a[i], b[i]) on 64-bit words.
#define K64(name, expr)                                                                         \
  extern "C" __global__ void name(unsigned long long* o, const unsigned long long* a,          \
                                  const unsigned long long* b) {                                \
    int i = threadIdx.x;                                                                        \
    unsigned long long x = a[i], y = b[i];                                                      \
    (void)x, (void)y;                                                                           \
    o[i] = (expr);                                                                              \
  }

K32(k_brev, __brev(x))
K32(k_byte_perm, __byte_perm(x, y, z & 0x7777))
K32(k_clz, __clz(x))
K32(k_ffs, __ffs(x))
K32(k_popc, __popc(x))
K32(k_hadd, __hadd(int(x), int(y)))
K32(k_uhadd, __uhadd(x, y))
K32(k_rhadd, __rhadd(int(x), int(y)))
K32(k_urhadd, __urhadd(x, y))
K32(k_mul24, __mul24(int(x), int(y)))
K32(k_umul24, __umul24(x, y))
K32(k_mulhi, __mulhi(int(x), int(y)))
K32(k_umulhi, __umulhi(x, y))
K32(k_sad, __sad(int(x), int(y), z))
K32(k_usad, __usad(x, y, z))
K32(k_funnelshift_l, __funnelshift_l(x, y, z))
K32(k_funnelshift_lc, __funnelshift_lc(x, y, z))
K32(k_funnelshift_r, __funnelshift_r(x, y, z))
K32(k_funnelshift_rc, __funnelshift_rc(x, y, z))
K32(k_dp4a_s, __dp4a(int(x), int(y), int(z)))
K32(k_dp4a_u, __dp4a(x, y, z))
K32(k_dp2a_lo_s, __dp2a_lo(int(x), int(y), int(z)))
K32(k_dp2a_lo_u, __dp2a_lo(x, y, z))
K32(k_dp2a_hi_s, __dp2a_hi(int(x), int(y), int(z)))
K32(k_dp2a_hi_u, __dp2a_hi(x, y, z))
K32(k_fns, __fns(x, y & 31, int(z) % 40))
K32(k_bswap32, __nv_bswap32(x))
K64(k_brevll, __brevll(x))
K64(k_clzll, (unsigned long long)__clzll((long long)x))
K64(k_ffsll, (unsigned long long)__ffsll((long long)x))
K64(k_popcll, (unsigned long long)__popcll(x))
K64(k_mul64hi, (unsigned long long)__mul64hi((long long)x, (long long)y))
K64(k_umul64hi, __umul64hi(x, y))
K64(k_div7, x / 7)
K64(k_sdiv13, (unsigned long long)((long long)x / -13))
K64(k_rem_prime, x % 1000000007ull)
K64(k_bswap64, __nv_bswap64(x))

// SIMD intrinsics
#define S(n) K32(k_##n, __##n(x, y))
#define S1(n) K32(k_##n, __##n(x))
S1(vabs2) S1(vabs4) S(vabsdiffs2) S(vabsdiffs4) S(vabsdiffu2) S(vabsdiffu4) S1(vabsss2) S1(vabsss4)
S(vadd2) S(vadd4) S(vaddss2) S(vaddss4) S(vaddus2) S(vaddus4) S(vavgs2) S(vavgs4) S(vavgu2) S(vavgu4)
S(vcmpeq2) S(vcmpeq4) S(vcmpges2) S(vcmpges4) S(vcmpgeu2) S(vcmpgeu4) S(vcmpgts2) S(vcmpgts4)
S(vcmpgtu2) S(vcmpgtu4) S(vcmples2) S(vcmples4) S(vcmpleu2) S(vcmpleu4) S(vcmplts2) S(vcmplts4)
S(vcmpltu2) S(vcmpltu4) S(vcmpne2) S(vcmpne4) S(vhaddu2) S(vhaddu4) S(vmaxs2) S(vmaxs4) S(vmaxu2)
S(vmaxu4) S(vmins2) S(vmins4) S(vminu2) S(vminu4) S1(vneg2) S1(vneg4) S1(vnegss2) S1(vnegss4)
S(vsads2) S(vsads4) S(vsadu2) S(vsadu4) S(vseteq2) S(vseteq4) S(vsetges2) S(vsetges4) S(vsetgeu2)
S(vsetgeu4) S(vsetgts2) S(vsetgts4) S(vsetgtu2) S(vsetgtu4) S(vsetles2) S(vsetles4) S(vsetleu2)
S(vsetleu4) S(vsetlts2) S(vsetlts4) S(vsetltu2) S(vsetltu4) S(vsetne2) S(vsetne4) S(vsub2) S(vsub4)
S(vsubss2) S(vsubss4) S(vsubus2) S(vsubus4)

// DPX functions (sm_90)
#define D3(n) K32(k_##n, (unsigned)__##n(x, y, z))
#define D3S(n) K32(k_##n, (unsigned)__##n(int(x), int(y), int(z)))
#define D2(n) K32(k_##n, (unsigned)__##n(x, y))
#define D2S(n) K32(k_##n, (unsigned)__##n(int(x), int(y)))
D3(viaddmax_s16x2) D3(viaddmax_s16x2_relu) D3S(viaddmax_s32) D3S(viaddmax_s32_relu) D3(viaddmax_u16x2)
D3(viaddmax_u32) D3(viaddmin_s16x2) D3(viaddmin_s16x2_relu) D3S(viaddmin_s32) D3S(viaddmin_s32_relu)
D3(viaddmin_u16x2) D3(viaddmin_u32) D3(vimax3_s16x2) D3(vimax3_s16x2_relu) D3S(vimax3_s32)
D3S(vimax3_s32_relu) D3(vimax3_u16x2) D3(vimax3_u32) D3(vimin3_s16x2) D3(vimin3_s16x2_relu)
D3S(vimin3_s32) D3S(vimin3_s32_relu) D3(vimin3_u16x2) D3(vimin3_u32) D2(vimax_s16x2_relu)
D2S(vimax_s32_relu) D2(vimin_s16x2_relu) D2S(vimin_s32_relu)
// __vibmax/__vibmin also say which operand won: o = result, o + 64 = the predicates (bit 0, 1).
#define DB(n, T, call, preds)                                                                   \
  extern "C" __global__ void k_##n(unsigned* o, const unsigned* a, const unsigned* b, const unsigned* c) { \
    int i = threadIdx.x;                                                                        \
    bool p = false, q = false;                                                                  \
    o[i] = (unsigned)call;                                                                      \
    o[i + 64] = unsigned(p) | unsigned(q) << 1;                                                 \
    (void)c;                                                                                    \
  }
DB(vibmax_s32, int, __vibmax_s32(int(a[i]), int(b[i]), &p), 1)
DB(vibmax_u32, unsigned, __vibmax_u32(a[i], b[i], &p), 1)
DB(vibmin_s32, int, __vibmin_s32(int(a[i]), int(b[i]), &p), 1)
DB(vibmin_u32, unsigned, __vibmin_u32(a[i], b[i], &p), 1)
DB(vibmax_s16x2, unsigned, __vibmax_s16x2(a[i], b[i], &p, &q), 2)
DB(vibmax_u16x2, unsigned, __vibmax_u16x2(a[i], b[i], &p, &q), 2)
DB(vibmin_s16x2, unsigned, __vibmin_s16x2(a[i], b[i], &p, &q), 2)
DB(vibmin_u16x2, unsigned, __vibmin_u16x2(a[i], b[i], &p, &q), 2)

// __int128: carry chains, 64-bit high products, shifts, and the division nvcc calls.
extern "C" __global__ void k_u128(unsigned __int128* o, const unsigned __int128* a, const unsigned __int128* b) {
  int i = threadIdx.x;
  unsigned __int128 x = a[i], y = b[i];
  o[4 * i] = x + y;
  o[4 * i + 1] = x - y;
  o[4 * i + 2] = x * y;
  o[4 * i + 3] = (x >> unsigned(y & 127)) ^ (x << 3);
}
extern "C" __global__ void k_s128(__int128* o, const __int128* a, const __int128* b) {
  int i = threadIdx.x;
  __int128 x = a[i], y = b[i];
  o[3 * i] = x * y;
  o[3 * i + 1] = x >> 70;
  o[3 * i + 2] = x < y ? -x : x / 3;
}
extern "C" __global__ void k_u128div(unsigned __int128* o, const unsigned __int128* a, const unsigned __int128* b) {
  int i = threadIdx.x;
  o[2 * i] = a[i] / (b[i] | 1);
  o[2 * i + 1] = a[i] % (b[i] | 1);
}
