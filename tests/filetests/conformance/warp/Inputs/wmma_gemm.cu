// nvcuda::wmma 16x16x16 on half, compiled by nvcc for sm_90 (wmma_nvcc.test runs it in
// oriopt's interpreter against wmma_oracle.py's host product).
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

// c = 2 * (A * B + 1) in f32, row-major; ch = Ch + A * B in f16, column-major (in place).
// A is row-major with leading dimension lda (a kernel parameter: a register stride), staged
// through shared memory; B is column-major in global memory.
extern "C" __global__ void wmma_gemm(const half* a, const half* b, float* c, half* ch, int lda) {
  __shared__ __align__(32) half sa[16 * 32];
  for (int i = threadIdx.x; i < 16 * lda; i += blockDim.x) sa[i] = a[i];
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> fh;
  wmma::fill_fragment(fc, 1.0f);
  wmma::load_matrix_sync(fa, sa, lda);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  for (int i = 0; i < fc.num_elements; i++) fc.x[i] *= 2.0f;
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
  wmma::load_matrix_sync(fh, ch, 16, wmma::mem_col_major);
  wmma::mma_sync(fh, fa, fb, fh);
  wmma::store_matrix_sync(ch, fh, 16, wmma::mem_col_major);
}
