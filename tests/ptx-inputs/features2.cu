// CUDA source compiled by nvcc (-arch=sm_90a) at test time
// (tests/unit/ptx_parser_test.cpp): sm_90 features in the PTX nvcc 13 writes:
// cluster launch directives (.explicitcluster, .reqnctapercluster,
// .maxclusterrank), a managed variable (.attribute(.managed)), dynamic shared
// memory (.extern .shared ... []), a __grid_constant__ struct parameter,
// texture and surface objects ([tex, {x, y}] addresses), half precision
// (mov.b32 {%rs, %rs}), recursion, alloca, assert (__assertfail), trap.
#include <cuda_fp16.h>
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cstdio>
#include <cassert>
namespace cg = cooperative_groups;
__managed__ unsigned managedCounter;
extern __shared__ float dyn[];
struct Big { int a[8]; };
__device__ __noinline__ int rec(int n) { return n <= 1 ? 1 : n * rec(n - 1); }
__global__ void __cluster_dims__(2, 1, 1) clus(float* o, const __grid_constant__ Big b, cudaTextureObject_t tex, cudaSurfaceObject_t surf) {
  cg::cluster_group c = cg::this_cluster();
  __shared__ float s[64];
  s[threadIdx.x] = tex2D<float>(tex, threadIdx.x, 0.5f) + b.a[threadIdx.x & 7];
  c.sync();
  float* remote = c.map_shared_rank(s, 1);
  float4 v; surf2Dread(&v, surf, 0, 0);
  __half h = __float2half(remote[threadIdx.x]);
  __half2 h2 = __halves2half2(h, h);
  h2 = __hmul2(h2, h2);
  o[threadIdx.x] = __half2float(__low2half(h2)) + v.x + dyn[threadIdx.x];
  atomicAdd(&managedCounter, 1u);
  unsigned long long t = clock64();
  __nanosleep(100);
  if (o[0] < 0) __trap();
  assert(threadIdx.x < 1024);
  __syncwarp();
  o[1] += rec(threadIdx.x) + (float)(clock64() - t);
  __threadfence();
  char* stack = (char*)alloca(threadIdx.x + 1);
  stack[threadIdx.x] = 1;
  o[2] = stack[threadIdx.x / 2];
}
__global__ void __launch_bounds__(128, 4, 2) lb(double* d, long long* l) {
  double x = d[threadIdx.x];
  atomicAdd(d, x);
  atomicMax(l, (long long)x);
  d[1] = __shfl_xor_sync(0xffffffff, x, 1);
  if (__all_sync(0xffffffff, x > 0)) d[2] = rsqrt(x) + sin(x) * 1e-300;
}
