// Byte-code dispatchers as nvcc 13 -O3 narrows them (issue 43, "Switches on narrow selectors"):
// `vm` switches on `insn >> 25` (at most 127), which nvcc makes a 16-bit value (`cvt.u16.u32`,
// a LOP3 AND with 0xffff in Ori) and splits by signed 16-bit compares (SGXT); `chr` on
// `(unsigned char)(v >> 5) % 11` of a loaded byte. DoSwitchOpt reads the selector's bound
// through the AND and the shift (rules/do_switch_opt.h, boundOf) and makes both jump tables:
// tests/filetests/switch/vm_dispatch_nvcc.test runs the PTX nvcc made of this file.
//   nvcc -arch=sm_90 -ptx -O3 examples/vm_dispatch.cu -o vm_dispatch.ptx
extern "C" __global__ void vm(const unsigned *code, int n, int *out) {
  int acc = threadIdx.x;
  for (int pc = 0; pc < n; ++pc) {
    unsigned insn = code[pc];
    unsigned op = insn >> 25;
    switch (op) {
    case 0: acc = acc * 3 + 1; break;
    case 1: acc = acc * 4 + 8; break;
    case 2: acc = acc * 5 + 15; break;
    case 3: acc = acc * 6 + 22; break;
    case 4: acc = acc * 7 + 29; break;
    case 5: acc = acc * 8 + 36; break;
    case 6: acc = acc * 9 + 43; break;
    case 7: acc = acc * 10 + 50; break;
    case 8: acc = acc * 11 + 57; break;
    case 9: acc = acc * 12 + 64; break;
    case 10: acc = acc * 13 + 71; break;
    case 11: acc = acc * 14 + 78; break;
    case 12: acc = acc * 15 + 85; break;
    case 13: acc = acc * 16 + 92; break;
    case 14: acc = acc * 17 + 99; break;
    case 15: acc = acc * 18 + 106; break;
    case 16: acc = acc * 19 + 113; break;
    case 17: acc = acc * 20 + 120; break;
    case 18: acc = acc * 21 + 127; break;
    case 19: acc = acc * 22 + 134; break;
    case 20: acc = acc * 23 + 141; break;
    case 21: acc = acc * 24 + 148; break;
    case 22: acc = acc * 25 + 155; break;
    case 23: acc = acc * 26 + 162; break;
    case 24: acc = acc * 27 + 169; break;
    case 25: acc = acc * 28 + 176; break;
    case 26: acc = acc * 29 + 183; break;
    case 27: acc = acc * 30 + 190; break;
    case 28: acc = acc * 31 + 197; break;
    case 29: acc = acc * 32 + 204; break;
    case 30: acc = acc * 33 + 211; break;
    case 31: acc = acc * 34 + 218; break;
    case 32: acc = acc * 35 + 225; break;
    case 33: acc = acc * 36 + 232; break;
    case 34: acc = acc * 37 + 239; break;
    case 35: acc = acc * 38 + 246; break;
    case 36: acc = acc * 39 + 253; break;
    case 37: acc = acc * 40 + 260; break;
    case 38: acc = acc * 41 + 267; break;
    case 39: acc = acc * 42 + 274; break;
    default: acc ^= insn; break;
    }
  }
  out[threadIdx.x] = acc;
}

extern "C" __global__ void chr(const unsigned char *in, int *out) {
  unsigned v = in[threadIdx.x];
  int r = 0;
  switch ((unsigned char)(v >> 5) % 11) {
  case 0: r = 5; break;
  case 1: r = 18; break;
  case 2: r = 31; break;
  case 3: r = 44; break;
  case 4: r = 57; break;
  case 5: r = 70; break;
  case 6: r = 83; break;
  case 7: r = 96; break;
  case 8: r = 109; break;
  case 9: r = 122; break;
  case 10: r = 135; break;
  }
  out[threadIdx.x] = r;
}
