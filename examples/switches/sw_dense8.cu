// sw_dense8: a dense 8-case switch (selector 0..7) on a kernel parameter.
// Each case stores a distinct value to out[0]; the default stores -1.
// Used by scripts/switch-peers to compare nvcc's, oriopt's (phases 30,80) and
// LLVM 14's lowering of the same switch (SASS size and interpreter dispatch steps).
extern "C" __global__ void sw_dense8(int sel, int* out) {
  switch (sel) {
  case 0: out[0] = 11; break;
  case 1: out[0] = 22; break;
  case 2: out[0] = 33; break;
  case 3: out[0] = 44; break;
  case 4: out[0] = 55; break;
  case 5: out[0] = 66; break;
  case 6: out[0] = 77; break;
  case 7: out[0] = 88; break;
  default: out[0] = -1; break;
  }
}
