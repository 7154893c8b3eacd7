// sw_dense32: a dense 32-case switch (selector 0..31) on a kernel parameter.
// Each case stores a distinct value to out[0]; the default stores -1.
// The issue's measurement: a 32-case dense switch, which nvcc emits as a compare tree.
// Used by scripts/switch-peers (nvcc vs oriopt phases 30,80 vs LLVM 14).
extern "C" __global__ void sw_dense32(int sel, int* out) {
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
  case 16: out[0] = 212; break;
  case 17: out[0] = 219; break;
  case 18: out[0] = 226; break;
  case 19: out[0] = 233; break;
  case 20: out[0] = 240; break;
  case 21: out[0] = 247; break;
  case 22: out[0] = 254; break;
  case 23: out[0] = 261; break;
  case 24: out[0] = 268; break;
  case 25: out[0] = 275; break;
  case 26: out[0] = 282; break;
  case 27: out[0] = 289; break;
  case 28: out[0] = 296; break;
  case 29: out[0] = 303; break;
  case 30: out[0] = 310; break;
  case 31: out[0] = 317; break;
  default: out[0] = -1; break;
  }
}
