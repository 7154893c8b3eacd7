// DoSwitchOpt's two steps in the reference half (rules/do_switch_opt.h): do_switch_opt.cpp finds
// the switches and decides how to lower each (a Decision), do_switch_opt_emit.cpp emits them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/ir.h"

namespace ori::reference {

struct Cluster {
  uint32_t lo, hi, target;
};

enum class Lowering { JumpTable, Bst, BitTests, Cascade };

struct Decision {
  uint32_t head;
  Reg selector;
  size_t isetpIndex;
  std::optional<size_t> iaddIndex;
  uint32_t deflt;
  bool isSigned;
  Lowering how;
  std::vector<Cluster> clusters;
};

// Emits every decision's lowering: each head's compare and branch replaced, the new blocks
// placed after their heads (from the last head back), labels named, tables numbered.
void emitLowerings(Function &f, const std::vector<Decision> &decisions);

} // namespace ori::reference
