// sw_fewtargets: a switch over 24 values (0..23, interleaved) with only three
// distinct bodies: the case values are not in runs, so no range check merges
// them. Each body stores a distinct value to out[0]; the default -1.
// Used by scripts/switch-peers (nvcc vs oriopt phases 30,80 vs LLVM 14).
extern "C" __global__ void sw_fewtargets(int sel, int* out) {
  switch (sel) {
  case 0: case 3: case 6: case 9: case 12: case 15: case 18: case 21:
    out[0] = 100; break;
  case 1: case 4: case 7: case 10: case 13: case 16: case 19: case 22:
    out[0] = 200; break;
  case 2: case 5: case 8: case 11: case 14: case 17: case 20: case 23:
    out[0] = 300; break;
  default: out[0] = -1; break;
  }
}
