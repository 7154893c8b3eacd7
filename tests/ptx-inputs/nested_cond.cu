// CUDA kernels with && / || chains and nested ifs for phase 38 OptimizeNestedCondBranches,
// compiled at test time (tests/unit/nested_cond_kernels_test.cpp) by
//   nvcc -arch=sm_90 -ptx -Xcicc -O0        NVVM unoptimized: every if its own branch
//   nvcc -arch=sm_90 -ptx                   -O3: nvcc flattens the chains itself
//   clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudainc -nocudalib -O1 -S
// Each kernel loads its inputs first, so the conditions between the branches are compares
// only; thread i of n writes out[i] (0 where no branch writes it).
#ifdef __clang__
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
static __device__ int threadIndex() { return __nvvm_read_ptx_sreg_tid_x(); }
#else
static __device__ int threadIndex() { return threadIdx.x; }
#endif

extern "C" __global__ void and_chain(const int* x, const int* y, int* out, int n) {
  int i = threadIndex();
  int a = x[i], b = y[i];
  if (i < n && a > 0 && b < 100) out[i] = a + b;
}

extern "C" __global__ void or_chain(const int* x, int* out, int lo, int hi) {
  int i = threadIndex();
  int v = x[i];
  if (v < lo || v > hi || v == 42) out[i] = -1;
}

extern "C" __global__ void mixed(const int* x, const int* y, int* out) {
  int i = threadIndex();
  int a = x[i], b = y[i];
  if (a > 0) {
    if (b < 5 || b > 10) out[i] = a * b;
  }
}

extern "C" __global__ void three_deep(const int* x, const int* y, const int* z, int* out) {
  int i = threadIndex();
  int a = x[i], b = y[i], c = z[i];
  if (a > 0)
    if (b > 0)
      if (c > 0) out[i] = a + b + c;
}

// A store between the two conditions: nothing may move above the outer branch.
extern "C" __global__ void side_effect_between(const int* x, const int* y, int* out) {
  int i = threadIndex();
  int a = x[i], b = y[i];
  if (a > 0) {
    out[i] = 1;
    if (b > 0) out[i] += 2;
  }
}
