// sw_ranges: a switch whose cases come in runs sharing one body
// (case 1: case 2: case 3: ...), 20 values 1..20 over 7 bodies. Each body stores
// a distinct value to out[0]; the default (0 and anything above 20) stores -1.
// Used by scripts/switch-peers (nvcc vs oriopt phases 30,80 vs LLVM 14).
extern "C" __global__ void sw_ranges(int sel, int* out) {
  switch (sel) {
  case 1: case 2: case 3: out[0] = 10; break;
  case 4: case 5: out[0] = 20; break;
  case 6: case 7: case 8: case 9: out[0] = 30; break;
  case 10: out[0] = 40; break;
  case 11: case 12: case 13: out[0] = 50; break;
  case 14: case 15: case 16: out[0] = 60; break;
  case 17: case 18: case 19: case 20: out[0] = 70; break;
  default: out[0] = -1; break;
  }
}
