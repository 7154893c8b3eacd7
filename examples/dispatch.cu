// A small byte-code dispatcher: a switch on an opcode with nested conditions in its cases, the
// shape `make run` shows oriopt's main job on (scripts/demo): the ptxas pipeline, --verify,
// the PTX written back and assembled, and the kernel run before and after.
__global__ void dispatch(const unsigned* code, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned insn = code[i];
  int a = int(insn >> 8) & 0xff, b = int(insn >> 16) & 0xff;
  int r;
  switch (insn & 7) {
  case 0: r = a + b; break;
  case 1: r = a - b; break;
  case 2:
    if (a > 16) {
      if (b > 16) r = a * b;
      else r = a;
    } else {
      r = b;
    }
    break;
  case 3: r = a > b ? a : b; break;
  case 4: r = a & b; break;
  case 5: r = a | b; break;
  case 6:
    if (a != 0 && b != 0) r = a ^ b;
    else r = -1;
    break;
  default: r = 0; break;
  }
  out[i] = r;
}
