// DoSwitchOpt's lowerings in the optimized half (internal to optimized/do_switch_opt*.cpp): what
// do_switch_opt.cpp decides for a switch, and do_switch_opt_emit.cpp builds.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/ir.h"

namespace ori::optimized {

// A clustered case: values [lo, hi] (in the chosen order) go to `target`.
struct Cluster {
  uint32_t lo, hi, target;
};

struct Lowering {
  uint32_t head;
  Reg selector;
  uint32_t isetpIndex; // the head's ISETP, removed with its BRA
  uint32_t iaddIndex;  // and the IADD3 of a biased compare (UINT32_MAX: none)
  uint32_t deflt;
  bool isSigned; // the order of the hull and the clusters
  enum class How : uint8_t { JumpTable, Bst, BitTests, Cascade } how;
  std::vector<Cluster> clusters;
};

// Builds the lowered dispatch of every switch (heads in RPO order; registers and names numbered
// in that order), places the new blocks after their heads and renumbers the function once.
void emitLowerings(Function &f, const std::vector<Lowering> &lowerings);

} // namespace ori::optimized
