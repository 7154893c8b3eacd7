#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void atom_global(int* i, unsigned* u, unsigned long long* ull, long long* ll, float* f, double* d,
                            __half2* h2, __nv_bfloat162* b2, __half* h, __nv_bfloat16* b, int* out) {
  int t = threadIdx.x;
  int r = 0;
  r += atomicAdd(i, t); r += atomicSub(i, 1); r += atomicMax(i, t); r += atomicMin(i, t);
  r += atomicExch(i, t); r += atomicCAS(i, t, t+1); r += atomicAnd(i, t); r += atomicOr(i, t); r += atomicXor(i, t);
  r += atomicAdd(u, 1u); r += atomicMax(u, 2u); r += atomicMin(u, 3u); r += atomicInc(u, 10u); r += atomicDec(u, 10u);
  r += atomicExch(u, 5u); r += atomicCAS(u, 1u, 2u);
  r += (int)atomicAdd(ull, 1ull); r += (int)atomicMax(ull, 2ull); r += (int)atomicMin(ull, 3ull);
  r += (int)atomicExch(ull, 4ull); r += (int)atomicCAS(ull, 4ull, 5ull); r += (int)atomicAnd(ull, 1ull);
  r += (int)atomicOr(ull, 1ull); r += (int)atomicXor(ull, 1ull);
  r += (int)atomicMax(ll, (long long)t); r += (int)atomicMin(ll, (long long)t);
  r += (int)atomicAdd(f, 1.5f); r += (int)atomicExch(f, 2.0f);
  r += (int)atomicAdd(d, 1.5);
  __half2 hh = atomicAdd(h2, __floats2half2_rn(1.0f, 2.0f)); r += (int)__low2float(hh);
  __nv_bfloat162 bb = atomicAdd(b2, __floats2bfloat162_rn(1.0f, 2.0f)); r += (int)__low2float(bb);
  r += (int)__half2float(atomicAdd(h, __float2half(1.0f)));
  r += (int)__bfloat162float(atomicAdd(b, __float2bfloat16(1.0f)));


  unsigned short us = atomicCAS((unsigned short*)u, (unsigned short)1, (unsigned short)2); r += us;
  r += atomicAdd_block(i, 1); r += atomicAdd_system(i, 1); r += atomicCAS_block(i, 1, 2); r += atomicExch_system(u, 3u);
  r += (int)atomicAdd_block(f, 1.0f); r += (int)atomicAdd_system(d, 1.0);
  out[t] = r;
}
__global__ void red_global(int* i, unsigned* u, unsigned long long* ull, float* f, double* d, __half2* h2, __nv_bfloat162* b2) {
  int t = threadIdx.x;
  atomicAdd(i, t); atomicMax(i, t); atomicMin(i, t); atomicAnd(i, t); atomicOr(i, t); atomicXor(i, t);
  atomicInc(u, 10u); atomicDec(u, 10u);
  atomicAdd(ull, 1ull); atomicAdd(f, 1.0f); atomicAdd(d, 1.0);
  atomicAdd(h2, __floats2half2_rn(1.0f, 2.0f)); atomicAdd(b2, __floats2bfloat162_rn(1.0f, 2.0f));
  atomicAdd_block(i, 1); atomicAdd_system(f, 1.0f);
}
__global__ void atom_shared(int* out, float fin, double din) {
  __shared__ int si[32]; __shared__ unsigned long long sl[32]; __shared__ float sf[32]; __shared__ double sd[32];
  __shared__ __half2 sh2[32]; __shared__ __nv_bfloat162 sb2[32];
  int t = threadIdx.x;
  si[t] = 0; sl[t] = 0; sf[t] = 0; sd[t] = 0; __syncthreads();
  int r = 0;
  r += atomicAdd(&si[t & 3], t); r += atomicMax(&si[t & 1], t); r += atomicMin(&si[t&1], t); r += atomicCAS(&si[0], 1, 2);
  r += atomicExch(&si[1], 3); r += atomicInc((unsigned*)&si[2], 5u); r += atomicDec((unsigned*)&si[2], 5u);
  r += atomicAnd(&si[3], 1); r += atomicOr(&si[3], 1); r += atomicXor(&si[3], 1);
  r += (int)atomicAdd(&sl[0], 1ull); r += (int)atomicCAS(&sl[1], 1ull, 2ull); r += (int)atomicMax(&sl[2], 7ull);
  r += (int)atomicAdd(&sf[0], fin); r += (int)atomicAdd(&sd[0], din);

  __half2 hh = atomicAdd(&sh2[0], __floats2half2_rn(1.0f, 2.0f)); r += (int)__low2float(hh);
  __nv_bfloat162 bb = atomicAdd(&sb2[0], __floats2bfloat162_rn(1.0f, 2.0f)); r += (int)__low2float(bb);
  atomicAdd(&si[5], 1); atomicAdd(&sf[5], 1.0f);
  __syncthreads();
  out[t] = r + si[t & 7];
}
