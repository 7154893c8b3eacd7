// sw_dense16: a dense 16-case switch (selector 0..15) on a kernel parameter.
// Each case stores a distinct value to out[0]; the default stores -1.
// Used by scripts/switch-peers (nvcc vs oriopt phases 30,80 vs LLVM 14).
extern "C" __global__ void sw_dense16(int sel, int* out) {
  switch (sel) {
  case 0: out[0] = 100; break;
  case 1: out[0] = 107; break;
  case 2: out[0] = 114; break;
  case 3: out[0] = 121; break;
  case 4: out[0] = 128; break;
  case 5: out[0] = 135; break;
  case 6: out[0] = 142; break;
  case 7: out[0] = 149; break;
  case 8: out[0] = 156; break;
  case 9: out[0] = 163; break;
  case 10: out[0] = 170; break;
  case 11: out[0] = 177; break;
  case 12: out[0] = 184; break;
  case 13: out[0] = 191; break;
  case 14: out[0] = 198; break;
  case 15: out[0] = 205; break;
  default: out[0] = -1; break;
  }
}
