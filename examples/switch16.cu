// An ordinary switch on the low four bits of a value. nvcc 13 narrows the selector to 16 bits
// (cvt.u16.u32, and.b16, setp.*.s16 compare trees, selp.b16) before any switch lowering sees
// it; oriopt lowers those natively, so the compare tree is visible to the passes.
__global__ void switch16(const unsigned* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int r;
  switch (in[i] & 15) {
  case 0: r = 10; break;
  case 1: r = 21; break;
  case 2: r = 32; break;
  case 3: r = 43; break;
  case 4: r = 54; break;
  case 5: r = 65; break;
  case 6: r = 76; break;
  case 7: r = 87; break;
  case 8: r = 98; break;
  case 9: r = 109; break;
  case 10: r = 120; break;
  case 11: r = 131; break;
  default: r = -1; break;
  }
  out[i] = r;
}
