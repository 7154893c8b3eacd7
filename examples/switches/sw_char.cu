// sw_char: a switch on a signed char kernel parameter, 10 cases from -4 to 5
// (negative values exercise sign extension of the 8-bit selector and a signed
// hull). Each case stores a distinct value to out[0]; the default -1.
// Used by scripts/switch-peers (nvcc vs oriopt phases 30,80 vs LLVM 14).
extern "C" __global__ void sw_char(signed char sel, int* out) {
  switch (sel) {
  case -4: out[0] = 40; break;
  case -3: out[0] = 41; break;
  case -2: out[0] = 42; break;
  case -1: out[0] = 43; break;
  case 0: out[0] = 44; break;
  case 1: out[0] = 45; break;
  case 2: out[0] = 46; break;
  case 3: out[0] = 47; break;
  case 4: out[0] = 48; break;
  case 5: out[0] = 49; break;
  default: out[0] = -1; break;
  }
}
