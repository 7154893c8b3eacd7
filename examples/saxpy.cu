// The CUDA source of a saxpy kernel: nvcc -arch=sm_90 -ptx examples/saxpy.cu -o saxpy.ptx
// then: oriopt --run --threads 4 --param saxpy_param_0=4 --param saxpy_param_1=2.0 \
//         --buffer saxpy_param_2=@examples/saxpy-x.bin --buffer saxpy_param_3=@examples/saxpy-y.bin \
//         --dump-buffer saxpy_param_3 saxpy.ptx
extern "C" __global__ void saxpy(unsigned n, float a, const float* x, float* y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
