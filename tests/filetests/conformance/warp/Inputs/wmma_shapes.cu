// nvcuda::wmma in the shapes and types nvcc emits wmma.* for on sm_90, one kernel each:
// d = a * b + c (wmma_shapes.test runs them in oriopt's interpreter against
// wmma_shapes_oracle.py). A is row-major or column-major as the kernel's name says (_ra/_ca),
// B likewise (_rb/_cb), C and D row-major (_rc) or column-major (_cc); leading dimensions are
// the matrices' own.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

template <int M, int N, int K, typename TA, typename TS, typename TC, typename LA, typename LB, wmma::layout_t LC>
__device__ void gemm(const TS* a, const TS* b, const TC* c, TC* d) {
  wmma::fragment<wmma::matrix_a, M, N, K, TA, LA> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, TA, LB> fb;
  wmma::fragment<wmma::accumulator, M, N, K, TC> fc;
  constexpr bool rowA = std::is_same<LA, wmma::row_major>::value, rowB = std::is_same<LB, wmma::row_major>::value;
  wmma::load_matrix_sync(fa, a, rowA ? K : M);
  wmma::load_matrix_sync(fb, b, rowB ? N : K);
  wmma::load_matrix_sync(fc, c, LC == wmma::mem_row_major ? N : M, LC);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, LC == wmma::mem_row_major ? N : M, LC);
}

#define KERNEL(name, M, N, K, TA, TS, TC, LA, LB, LC)                                              \
  extern "C" __global__ void name(const TS* a, const TS* b, const TC* c, TC* d) {                  \
    gemm<M, N, K, TA, TS, TC, wmma::LA, wmma::LB, wmma::LC>(a, b, c, d);                           \
  }

KERNEL(h_m32n8k16_ra_cb_rc_f32, 32, 8, 16, half, half, float, row_major, col_major, mem_row_major)
KERNEL(h_m8n32k16_ca_rb_cc_f32, 8, 32, 16, half, half, float, col_major, row_major, mem_col_major)
KERNEL(h_m8n32k16_ra_cb_rc_f16, 8, 32, 16, half, half, half, row_major, col_major, mem_row_major)
KERNEL(h_m16n16k16_ca_rb_rc_f16, 16, 16, 16, half, half, half, col_major, row_major, mem_row_major)
KERNEL(bf_m16n16k16_ra_rb_cc_f32, 16, 16, 16, __nv_bfloat16, __nv_bfloat16, float, row_major, row_major, mem_col_major)
KERNEL(bf_m8n32k16_ca_cb_rc_f32, 8, 32, 16, __nv_bfloat16, __nv_bfloat16, float, col_major, col_major, mem_row_major)
KERNEL(s8_m16n16k16_ra_cb_rc, 16, 16, 16, signed char, signed char, int, row_major, col_major, mem_row_major)
KERNEL(u8_m32n8k16_ca_rb_cc, 32, 8, 16, unsigned char, unsigned char, int, col_major, row_major, mem_col_major)
KERNEL(s8_m8n32k16_ra_rb_rc, 8, 32, 16, signed char, signed char, int, row_major, row_major, mem_row_major)
KERNEL(tf_m16n16k8_ra_cb_rc, 16, 16, 8, wmma::precision::tf32, float, float, row_major, col_major, mem_row_major)
KERNEL(tf_m16n16k8_ca_rb_cc, 16, 16, 8, wmma::precision::tf32, float, float, col_major, row_major, mem_col_major)
KERNEL(d_m8n8k4_ra_cb_rc, 8, 8, 4, double, double, double, row_major, col_major, mem_row_major)
KERNEL(d_m8n8k4_ca_rb_cc, 8, 8, 4, double, double, double, col_major, row_major, mem_col_major)

// Sub-byte and single-bit (nvcuda::wmma::experimental): A row-major, B column-major only.
namespace wx = nvcuda::wmma::experimental;
template <typename P, int K, wmma::layout_t LC>
__device__ void gemmSub(const int* a, const int* b, const int* c, int* d, bool bitAnd) {
  wmma::fragment<wmma::matrix_a, 8, 8, K, P, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, K, P, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, K, int> fc;
  wmma::load_matrix_sync(fa, a, K);
  wmma::load_matrix_sync(fb, b, K);
  wmma::load_matrix_sync(fc, c, 8, LC);
  if constexpr (K == 128) {
    if (bitAnd) wmma::bmma_sync(fc, fa, fb, fc, wx::bmmaBitOpAND, wx::bmmaAccumulateOpPOPC);
    else wmma::bmma_sync(fc, fa, fb, fc, wx::bmmaBitOpXOR, wx::bmmaAccumulateOpPOPC);
  } else {
    wmma::mma_sync(fc, fa, fb, fc);
  }
  wmma::store_matrix_sync(d, fc, 8, LC);
}
extern "C" __global__ void s4_m8n8k32_ra_cb_rc(const int* a, const int* b, const int* c, int* d) {
  gemmSub<wx::precision::s4, 32, wmma::mem_row_major>(a, b, c, d, false);
}
extern "C" __global__ void u4_m8n8k32_ra_cb_cc(const int* a, const int* b, const int* c, int* d) {
  gemmSub<wx::precision::u4, 32, wmma::mem_col_major>(a, b, c, d, false);
}
extern "C" __global__ void b1and_m8n8k128_ra_cb_rc(const int* a, const int* b, const int* c, int* d) {
  gemmSub<wx::precision::b1, 128, wmma::mem_row_major>(a, b, c, d, true);
}
extern "C" __global__ void b1xor_m8n8k128_ra_cb_cc(const int* a, const int* b, const int* c, int* d) {
  gemmSub<wx::precision::b1, 128, wmma::mem_col_major>(a, b, c, d, false);
}

// .f16 C with .f32 D and the reverse (wmma.mma .f32.f16 / .f16.f32).
template <typename TC, typename TD, int M, int N>
__device__ void gemmMixed(const half* a, const half* b, const TC* c, TD* d) {
  wmma::fragment<wmma::matrix_a, M, N, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, M, N, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, M, N, 16, TC> fc;
  wmma::fragment<wmma::accumulator, M, N, 16, TD> fd;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::load_matrix_sync(fc, c, N, wmma::mem_row_major);
  wmma::mma_sync(fd, fa, fb, fc);
  wmma::store_matrix_sync(d, fd, N, wmma::mem_row_major);
}
extern "C" __global__ void h_m16n16k16_ra_cb_rc_d32c16(const half* a, const half* b, const half* c, float* d) {
  gemmMixed<half, float, 16, 16>(a, b, c, d);
}
extern "C" __global__ void h_m8n32k16_ra_cb_rc_d16c32(const half* a, const half* b, const float* c, half* d) {
  gemmMixed<float, half, 8, 32>(a, b, c, d);
}
