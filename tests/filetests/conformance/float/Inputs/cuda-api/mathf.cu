#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#define F1(fn) o[i++] = fn(a);
#define F2(fn) o[i++] = fn(a, b);
extern "C" __global__ void kf(const float* in, float* o, int* oi) {
  float a = in[threadIdx.x], b = in[threadIdx.x + 1], c = in[threadIdx.x + 2];
  int i = 0;
  F1(acosf) F1(acoshf) F1(asinf) F1(asinhf) F1(atanf) F1(atanhf) F1(cbrtf) F1(ceilf) F1(cosf) F1(coshf)
  F1(cospif) F1(cyl_bessel_i0f) F1(cyl_bessel_i1f) F1(erfcf) F1(erfcinvf) F1(erfcxf) F1(erff) F1(erfinvf)
  F1(exp10f) F1(exp2f) F1(expf) F1(expm1f) F1(fabsf) F1(floorf) F1(j0f) F1(j1f) F1(lgammaf) F1(log10f)
  F1(log1pf) F1(log2f) F1(logbf) F1(logf) F1(nearbyintf) F1(normcdff) F1(normcdfinvf) F1(rcbrtf) F1(rintf)
  F1(roundf) F1(rsqrtf) F1(sinf) F1(sinhf) F1(sinpif) F1(sqrtf) F1(tanf) F1(tanhf) F1(tgammaf) F1(truncf)
  F1(y0f) F1(y1f) F1(__cosf) F1(__exp10f) F1(__expf) F1(__log10f) F1(__log2f) F1(__logf) F1(__sinf) F1(__tanf)
  F1(__saturatef) F1(__frcp_rn) F1(__frcp_rz) F1(__frcp_rd) F1(__frcp_ru) F1(__frsqrt_rn) F1(__fsqrt_rn)
  F1(__fsqrt_rz) F1(__fsqrt_rd) F1(__fsqrt_ru)
  F2(atan2f) F2(copysignf) F2(fdimf) F2(fdividef) F2(fmaxf) F2(fminf) F2(fmodf) F2(hypotf) F2(nextafterf)
  F2(powf) F2(remainderf) F2(rhypotf) F2(__fdividef) F2(__powf) F2(__fadd_rn) F2(__fadd_rz) F2(__fadd_rd)
  F2(__fadd_ru) F2(__fsub_rn) F2(__fsub_rz) F2(__fsub_rd) F2(__fsub_ru) F2(__fmul_rn) F2(__fmul_rz)
  F2(__fmul_rd) F2(__fmul_ru) F2(__fdiv_rn) F2(__fdiv_rz) F2(__fdiv_rd) F2(__fdiv_ru) F2(fdivide)
  o[i++] = fmaf(a, b, c); o[i++] = __fmaf_rn(a, b, c); o[i++] = __fmaf_rz(a, b, c); o[i++] = __fmaf_rd(a, b, c);
  o[i++] = __fmaf_ru(a, b, c); o[i++] = __fmaf_ieee_rn(a, b, c); o[i++] = __fmaf_ieee_rz(a, b, c);
  o[i++] = __fmaf_ieee_rd(a, b, c); o[i++] = __fmaf_ieee_ru(a, b, c);
  o[i++] = norm3df(a, b, c); o[i++] = rnorm3df(a, b, c); o[i++] = norm4df(a, b, c, a); o[i++] = rnorm4df(a, b, c, a);
  o[i++] = ldexpf(a, oi[0]); o[i++] = scalbnf(a, oi[1]); o[i++] = scalblnf(a, oi[2]);
  int e; o[i++] = frexpf(a, &e); oi[3] = e; float ip; o[i++] = modff(a, &ip); o[i++] = ip;
  int q; o[i++] = remquof(a, b, &q); oi[4] = q; float s, co; sincosf(a, &s, &co); o[i++] = s; o[i++] = co;
  sincospif(a, &s, &co); o[i++] = s; o[i++] = co; __sincosf(a, &s, &co); o[i++] = s; o[i++] = co;
  oi[5] = ilogbf(a); oi[6] = isfinite(a); oi[7] = isinf(a); oi[8] = isnan(a); oi[9] = signbit(a);
  oi[10] = lrintf(a); oi[11] = lroundf(a); ((long long*)oi)[6] = llrintf(a); ((long long*)oi)[7] = llroundf(a);
  oi[16] = __float2int_rn(a); oi[17] = __float2int_rz(a); oi[18] = __float2int_rd(a); oi[19] = __float2int_ru(a);
  oi[20] = __float2uint_rn(a); oi[21] = __float2uint_rz(a); oi[22] = __float2uint_rd(a); oi[23] = __float2uint_ru(a);
  ((long long*)oi)[12] = __float2ll_rn(a); ((long long*)oi)[13] = __float2ll_rz(a);
  ((unsigned long long*)oi)[14] = __float2ull_rd(a); ((unsigned long long*)oi)[15] = __float2ull_ru(a);
  o[i++] = __int2float_rn(oi[1]); o[i++] = __int2float_rz(oi[1]); o[i++] = __int2float_rd(oi[1]); o[i++] = __int2float_ru(oi[1]);
  o[i++] = __uint2float_rn(oi[1]); o[i++] = __uint2float_rz(oi[1]); o[i++] = __ll2float_rn(((long long*)oi)[1]);
  o[i++] = __ull2float_rz(((long long*)oi)[1]); o[i++] = __int_as_float(oi[2]); oi[24] = __float_as_int(a);
  oi[25] = __float_as_uint(a); o[i++] = __uint_as_float(oi[3]);
  o[i++] = fmaxf(a, b); o[i++] = __fmul_rn(a, b);
  o[i++] = __half2float(__float2half_rz(a)); o[i++] = __half2float(__float2half_rd(a)); o[i++] = __half2float(__float2half_ru(a));
  o[i++] = __bfloat162float(__float2bfloat16_rz(a)); o[i++] = __bfloat162float(__float2bfloat16_rd(a)); o[i++] = __bfloat162float(__float2bfloat16_ru(a));
  o[i++] = __int2float_rn(__float2int_rn(a)) ;
}
extern "C" __global__ void kd(const double* in, double* o, int* oi, long long* ol) {
  double a = in[threadIdx.x], b = in[threadIdx.x + 1], c = in[threadIdx.x + 2];
  int i = 0;
  F1(acos) F1(acosh) F1(asin) F1(asinh) F1(atan) F1(atanh) F1(cbrt) F1(ceil) F1(cos) F1(cosh)
  F1(cospi) F1(cyl_bessel_i0) F1(cyl_bessel_i1) F1(erfc) F1(erfcinv) F1(erfcx) F1(erf) F1(erfinv)
  F1(exp10) F1(exp2) F1(exp) F1(expm1) F1(fabs) F1(floor) F1(j0) F1(j1) F1(lgamma) F1(log10)
  F1(log1p) F1(log2) F1(logb) F1(log) F1(nearbyint) F1(normcdf) F1(normcdfinv) F1(rcbrt) F1(rint)
  F1(round) F1(rsqrt) F1(sin) F1(sinh) F1(sinpi) F1(sqrt) F1(tan) F1(tanh) F1(tgamma) F1(trunc) F1(y0) F1(y1)
  F1(__drcp_rn) F1(__drcp_rz) F1(__drcp_rd) F1(__drcp_ru) F1(__dsqrt_rn) F1(__dsqrt_rz) F1(__dsqrt_rd) F1(__dsqrt_ru)
  F2(atan2) F2(copysign) F2(fdim) F2(fmax) F2(fmin) F2(fmod) F2(hypot) F2(nextafter) F2(pow) F2(remainder) F2(rhypot)
  F2(__dadd_rn) F2(__dadd_rz) F2(__dadd_rd) F2(__dadd_ru) F2(__dsub_rn) F2(__dsub_rz) F2(__dsub_rd) F2(__dsub_ru)
  F2(__dmul_rn) F2(__dmul_rz) F2(__dmul_rd) F2(__dmul_ru) F2(__ddiv_rn) F2(__ddiv_rz) F2(__ddiv_rd) F2(__ddiv_ru)
  o[i++] = fma(a, b, c); o[i++] = __fma_rn(a, b, c); o[i++] = __fma_rz(a, b, c); o[i++] = __fma_rd(a, b, c); o[i++] = __fma_ru(a, b, c);
  o[i++] = norm3d(a, b, c); o[i++] = rnorm3d(a, b, c); o[i++] = norm4d(a, b, c, a); o[i++] = rnorm4d(a, b, c, a);
  o[i++] = ldexp(a, oi[0]); o[i++] = scalbn(a, oi[1]);
  int e; o[i++] = frexp(a, &e); oi[3] = e; double ip; o[i++] = modf(a, &ip); o[i++] = ip;
  int q; o[i++] = remquo(a, b, &q); oi[4] = q; double s, co; sincos(a, &s, &co); o[i++] = s; o[i++] = co;
  sincospi(a, &s, &co); o[i++] = s; o[i++] = co;
  oi[5] = ilogb(a); oi[6] = isfinite(a); oi[7] = isinf(a); oi[8] = isnan(a); oi[9] = signbit(a);
  ol[0] = llrint(a); ol[1] = llround(a); oi[10] = lrint(a);
  oi[16] = __double2int_rn(a); oi[17] = __double2int_rz(a); oi[18] = __double2int_rd(a); oi[19] = __double2int_ru(a);
  oi[20] = __double2uint_rn(a); oi[21] = __double2uint_rz(a); ol[2] = __double2ll_rd(a); ol[3] = __double2ull_ru(a);
  o[i++] = __int2double_rn(oi[1]); o[i++] = __uint2double_rn(oi[1]); o[i++] = __ll2double_rz(ol[4]); o[i++] = __ull2double_rd(ol[5]);
  ((float*)o)[100] = __double2float_rn(a); ((float*)o)[101] = __double2float_rz(a); ((float*)o)[102] = __double2float_rd(a); ((float*)o)[103] = __double2float_ru(a);
  oi[30] = __double2hiint(a); oi[31] = __double2loint(a); o[i++] = __hiloint2double(oi[2], oi[3]);
  ol[6] = __double_as_longlong(a); o[i++] = __longlong_as_double(ol[7]);
  ((float*)o)[104] = __half2float(__double2half(a)); o[i++] = (double)__float2half(a);
}
