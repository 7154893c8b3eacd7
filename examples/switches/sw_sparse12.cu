// sw_sparse12: a sparse 12-case switch (values from -100 to 123456) on a kernel
// parameter: too spread out for a jump table, so the candidates are a compare
// tree or a BST. Each case stores a distinct value to out[0]; the default -1.
// Used by scripts/switch-peers (nvcc vs oriopt phases 30,80 vs LLVM 14).
extern "C" __global__ void sw_sparse12(int sel, int* out) {
  switch (sel) {
  case -100: out[0] = 1; break;
  case 3: out[0] = 2; break;
  case 70: out[0] = 3; break;
  case 1000: out[0] = 4; break;
  case 1001: out[0] = 5; break;
  case 4096: out[0] = 6; break;
  case 9999: out[0] = 7; break;
  case 20000: out[0] = 8; break;
  case 31337: out[0] = 9; break;
  case 65536: out[0] = 10; break;
  case 100000: out[0] = 11; break;
  case 123456: out[0] = 12; break;
  default: out[0] = -1; break;
  }
}
