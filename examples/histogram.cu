// Shared memory, a device function, a local array, a switch and global
// atomics: the kinds of code the PTX lowering must carry.
//   nvcc -arch=sm_90 -ptx examples/histogram.cu -o histogram.ptx
//   oriopt --run --param histogram_param_1=16 --param histogram_param_2=1 \
//     --buffer histogram_param_0=@in.bin --buffer histogram_param_3=32 \
//     --dump-buffer histogram_param_3 histogram.ptx
__device__ __noinline__ unsigned bucket(unsigned v, unsigned mode) {
  switch (mode) {
  case 0: return v & 7;
  case 1: return (v >> 3) & 7;
  case 2: return (v * 2654435761u) >> 29;
  default: return 7 - (v & 7);
  }
}

extern "C" __global__ void histogram(const unsigned* in, unsigned n, unsigned mode, unsigned* out) {
  __shared__ unsigned tile[256];
  unsigned local[8];
  for (int b = 0; b < 8; ++b) local[b] = 0;
  for (unsigned base = 0; base < n; base += blockDim.x) {
    unsigned i = base + threadIdx.x;
    tile[threadIdx.x % 256] = i < n ? in[i] : 0;
    __syncthreads();
    if (i < n) local[bucket(tile[threadIdx.x % 256], mode)]++;
    __syncthreads();
  }
  for (int b = 0; b < 8; ++b)
    if (local[b]) atomicAdd(&out[b], local[b]);
}
