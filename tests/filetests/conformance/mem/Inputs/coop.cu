#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cuda/pipeline>
namespace cg = cooperative_groups;
__global__ void coop(int* in, int* out) {
  cg::thread_block b = cg::this_thread_block();
  b.sync();
  auto tile = cg::tiled_partition<8>(b);
  int v = in[b.thread_rank()];
  int s = cg::reduce(tile, v, cg::plus<int>());
  tile.sync();
  auto t32 = cg::tiled_partition(b, 16);
  t32.sync();
  auto co = cg::coalesced_threads();
  s += co.shfl(v, 0);
  co.sync();
  out[b.thread_rank()] = s;
}
// Left out of coop.O3.ptx (compiled with -DORIOPT_NO_GRID): its bfi.b64 lowers to an
// SGXT.U32.64 that the IR verifier refuses (a bfi lowering issue, not a memory one); its
// memory instructions (atom.add.release.gpu, ld.acquire.gpu) are in order.cu's kernels.
#ifndef ORIOPT_NO_GRID
__global__ void grid(int* out) {
  cg::grid_group g = cg::this_grid();
  out[g.thread_rank()] = 1;
  g.sync();
  out[g.thread_rank()] += out[0];
}
#endif
__global__ void async_copy(const int* in, int* out) {
  extern __shared__ int dyn[];
  cg::thread_block b = cg::this_thread_block();
  cg::memcpy_async(b, dyn, in, sizeof(int) * 256);
  cg::wait(b);
  out[threadIdx.x] = dyn[threadIdx.x];
}
__global__ void pipe(const int* in, int* out) {
  __shared__ int s[256];
  auto p = cuda::make_pipeline();
  p.producer_acquire();
  cuda::memcpy_async(s + threadIdx.x, in + threadIdx.x, sizeof(int), p);
  p.producer_commit();
  p.consumer_wait();
  out[threadIdx.x] = s[threadIdx.x];
  p.consumer_release();
  __pipeline_memcpy_async(s + threadIdx.x, in + threadIdx.x, 4);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  out[threadIdx.x] += s[threadIdx.x];
}
__global__ void pipe16(const int4* in, int4* out) {
  __shared__ int4 s[256];
  __pipeline_memcpy_async(s + threadIdx.x, in + threadIdx.x, 16, 8);
  __pipeline_memcpy_async(s + threadIdx.x + 128, in + threadIdx.x, 8);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  out[threadIdx.x] = s[threadIdx.x];
}
__global__ void locals(int* out, int n) {
  int a[64];
  for (int i = 0; i < 64; ++i) a[i] = i * n;
  int* dynp = (int*)alloca(n * 4);
  for (int i = 0; i < n; ++i) dynp[i] = a[(i * 7) & 63];
  out[threadIdx.x] = a[threadIdx.x & 63] + dynp[n - 1];
}
