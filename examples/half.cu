// Half precision through cuda_fp16.h: two floats rounded to a __half2 (cvt.rn.f16x2.f32),
// squared and added lane by lane (mul.f16x2, add.f16x2), widened back (cvt.f32.f16); then
// IEEE division and square root in binary32 (div.rn.f32, sqrt.rn.f32: nvcc's defaults).
#include <cuda_fp16.h>

__global__ void half_math(const float* x, const float* y, float* sum, unsigned* packed, float* quotient,
                          float* root) {
  int i = threadIdx.x;
  __half2 a = __floats2half2_rn(x[i], y[i]); // low half x, high half y
  __half2 b = __hmul2(a, a);
  __half2 c = __hadd2(b, a);
  sum[i] = __low2float(c) + __high2float(c);
  packed[i] = *reinterpret_cast<unsigned*>(&c);
  quotient[i] = x[i] / y[i];
  root[i] = sqrtf(x[i]);
}
