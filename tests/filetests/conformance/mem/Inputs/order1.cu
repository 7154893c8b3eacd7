#include <cuda/atomic>
__global__ void orders(int* p, int* out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> a(*p);
  int r = a.load(cuda::std::memory_order_acquire);
  a.store(r, cuda::std::memory_order_release);
  r += a.fetch_add(1, cuda::std::memory_order_acq_rel);
  cuda::atomic_thread_fence(cuda::std::memory_order_seq_cst, cuda::thread_scope_block);
  out[threadIdx.x] = r;
}
