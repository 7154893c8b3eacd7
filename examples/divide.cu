// Integer division and remainder on signed and unsigned 32- and 64-bit values. The divisors
// are read from memory, so nvcc cannot replace the division by a multiplication: the PTX
// keeps div and rem, which oriopt lowers to IDIV and IREM.
__global__ void divide(const int* a, const int* b, const long long* c, const long long* d, int* q32,
                       unsigned* r32, long long* q64, unsigned long long* r64) {
  int i = threadIdx.x;
  q32[i] = a[i] / b[i];
  r32[i] = unsigned(a[i]) % unsigned(b[i]);
  q64[i] = c[i] / d[i];
  r64[i] = (unsigned long long)c[i] % (unsigned long long)d[i];
}
