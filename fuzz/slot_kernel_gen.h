// RapidCheck generator of random well-formed, terminating kernels with work for phase 37's
// ConvertMemoryToRegisterOrUniform (docs/general-optimize.md "Phase 37"): two function-scope
// .local variables, `frame` (32 bytes, reached through its generic address as nvcc's %SP,
// and through its window offset with LDL/STL) and `other` (8 bytes, LDL/STL at
// [other+offset]); stores and loads of 4 and 8 bytes at random offsets (so slots overlap
// now and then), guarded ones, loads before any store on some path, stores through the
// kernel's own buffer pointer between them (which cannot reach a variable that does not
// escape), if-blocks and counted loops; and, in some kernels, what keeps a variable in
// memory: its address stored (an escape), a load at a computed index, a byte store.
//
// The kernel is `.entry slots(.u64 buf, .u32 a, .u32 b)`; each thread writes its results to
// its own 256 bytes of buf (buf + (tid & 63) * 256), so fuzz/dce_checks.h inputsFor
// launches it with kernel_gen.h's kLaunchBufferBytes.
#pragma once

#include <rapidcheck.h>

#include "ir/ir.h"

namespace ori::gen {

struct SlotKernelOptions {
  int maxStatements = 10;       // per statement list
  int maxDepth = 2;             // nesting of ifs and loops
  int keepInMemoryPercent = 35; // kernels with an escape, an indexed load or a byte store
  int hotSlotPercent = 15;      // kernels whose frame accesses are mostly loads of frame[0]
};

rc::Gen<Function> slotKernel(SlotKernelOptions opts = {});

} // namespace ori::gen
