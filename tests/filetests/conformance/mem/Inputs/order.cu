#include <cuda/atomic>
#include <cuda/std/atomic>
template <cuda::thread_scope S>
__device__ int scoped(int* p, int v) {
  cuda::atomic_ref<int, S> a(*p);
  int r = 0;
  r += a.load(cuda::std::memory_order_relaxed);
  r += a.load(cuda::std::memory_order_acquire);
  r += a.load(cuda::std::memory_order_seq_cst);
  a.store(v, cuda::std::memory_order_relaxed);
  a.store(v, cuda::std::memory_order_release);
  a.store(v, cuda::std::memory_order_seq_cst);
  r += a.fetch_add(v, cuda::std::memory_order_relaxed);
  r += a.fetch_add(v, cuda::std::memory_order_acquire);
  r += a.fetch_add(v, cuda::std::memory_order_release);
  r += a.fetch_add(v, cuda::std::memory_order_acq_rel);
  r += a.fetch_add(v, cuda::std::memory_order_seq_cst);
  r += a.exchange(v, cuda::std::memory_order_acq_rel);
  int e = v; a.compare_exchange_strong(e, v + 1, cuda::std::memory_order_acq_rel); r += e;
  r += a.fetch_min(v); r += a.fetch_max(v); r += a.fetch_and(v); r += a.fetch_or(v); r += a.fetch_xor(v);
  cuda::std::atomic_thread_fence(cuda::std::memory_order_seq_cst);
  cuda::atomic_thread_fence(cuda::std::memory_order_acq_rel, S);
  cuda::atomic_thread_fence(cuda::std::memory_order_acquire, S);
  cuda::atomic_thread_fence(cuda::std::memory_order_release, S);
  return r;
}
__global__ void orders(int* p, int* out, float* fp, unsigned long long* lp) {
  int t = threadIdx.x;
  int r = scoped<cuda::thread_scope_thread>(p, t) + scoped<cuda::thread_scope_block>(p, t) + scoped<cuda::thread_scope_device>(p, t) + scoped<cuda::thread_scope_system>(p, t);
  cuda::atomic_ref<float, cuda::thread_scope_device> f(*fp);
  r += (int)f.fetch_add(1.0f, cuda::std::memory_order_relaxed);
  r += (int)f.load(cuda::std::memory_order_acquire);
  f.store(2.0f, cuda::std::memory_order_release);
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_block> l(*lp);
  r += (int)l.fetch_add(1, cuda::std::memory_order_acq_rel);
  r += (int)l.load(cuda::std::memory_order_acquire);
  l.store(3, cuda::std::memory_order_release);
  __threadfence(); __threadfence_block(); __threadfence_system();
  __nanosleep(100);
  out[t] = r;
}
__global__ void shared_orders(int* out) {
  __shared__ int s[32];
  int t = threadIdx.x;
  cuda::atomic_ref<int, cuda::thread_scope_block> a(s[t & 3]);
  a.store(t, cuda::std::memory_order_release);
  int r = a.load(cuda::std::memory_order_acquire);
  r += a.fetch_add(1, cuda::std::memory_order_acq_rel);
  cuda::std::atomic<int>* g = reinterpret_cast<cuda::std::atomic<int>*>(out);
  r += g->load(); g->store(r); r += g->fetch_add(1);
  out[t + 1] = r;
}
