// Adds v to *out only when bit 0 or bit 20 of flags is set, and stores the sum in out[1]
// as well; out[2] gets the final value either way. nvcc emits and.b32, setp.eq.s32 and a
// branch for the test. Re-emitted as lop3.b32, that pattern crashed ptxas 13.0
// (docs/spec-notes.md, "ptxas findings"): this example keeps it assembling.
__global__ void bit_test_add(int* out, unsigned flags, int v) {
  int x = *out;
  if (flags & 0x100001) {
    x += v;
    out[1] = x;
  }
  out[2] = x;
}
