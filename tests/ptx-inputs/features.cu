// CUDA source compiled by nvcc at test time (tests/unit/ptx_parser_test.cpp),
// so the PTX parser sees what the installed nvcc writes: device function calls
// (call.uni with scoped callseq blocks, a struct returned in .param .b8[]),
// a switch, a local array, shared memory, a constant array initializer, a
// pointer initializer (generic(sym)+off), atomics, printf (vprintf, .extern
// declaration), warp votes and a shuffle (whose p|q destination pair).
#include <cstdio>

__device__ __noinline__ int helper(int x, float* p) { return x * 3 + (int)p[x]; }

struct S {
  float a[4];
  int b;
};

__device__ __noinline__ S mk(int x) {
  S s;
  for (int i = 0; i < 4; ++i) s.a[i] = x + i;
  s.b = x;
  return s;
}

__global__ void sw(int* out, const int* in, int n) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  if (t >= n) return;
  int v = in[t];
  int r;
  switch (v & 15) {
  case 0: r = in[t + 1] * 7; break;
  case 1: r = v + 99; break;
  case 2: r = v ^ 0x55; break;
  case 3: r = v * v; break;
  case 4: r = v - 1000; break;
  case 5: r = v << 3; break;
  case 6: r = v >> 2; break;
  case 7: r = ~v; break;
  case 8: r = v / 3; break;
  case 9: r = v % 7; break;
  default: r = 0;
  }
  out[t] = r;
}

__shared__ float smem[256];
__constant__ float cst[4] = {1.0f, 2.5f, -3.0f, 1e10f};
__device__ int gvar[3] = {1, 2, 3};
__device__ int* gptr = &gvar[1];

__global__ void __launch_bounds__(256, 2) k(float* o, int* cnt, const float* in, int n) {
  int local[16];
  int t = threadIdx.x;
  for (int i = 0; i < 16; ++i) local[i] = in[(t + i) % n];
  smem[t] = in[t] * cst[t & 3];
  __syncthreads();
  float acc = 0;
  for (int i = 0; i < n; ++i) acc += smem[(t + i) & 255] * local[i & 15];
  atomicAdd(cnt, 1);
  atomicCAS(cnt + 1, 5, t);
  int h = helper(t, o);
  S s = mk(t);
  if (t == 0) printf("acc=%f h=%d %d\n", acc, h, *gptr);
  o[t] = acc + h + s.a[t & 3] + s.b;
  unsigned b = __ballot_sync(0xffffffff, acc > 0);
  if (__any_sync(0xffffffff, b)) o[t + 1] = __shfl_down_sync(0xffffffff, acc, 1);
}
