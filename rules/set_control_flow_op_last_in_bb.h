// Phase 6 SetControlFlowOpLastInBB (spec/000): the contract of
// reference/set_control_flow_op_last_in_bb.cpp and optimized/set_control_flow_op_last_in_bb.cpp.
// Splits each block after every control-flow instruction (CONTROL in the opcode table) that is
// not last; the new blocks get fresh labels L_split<k> and the label id of their first
// instruction. Returns the number of splits. Ungated. The parser never leaves such a block (see
// `--unsplit-blocks`). Guarantees: the same instructions in the same order; both halves leave
// the same function.
#pragma once

#include "ir/ir.h"
#include <cstdint>

namespace ori {

// The two halves' entries (the contract above).
namespace reference {
uint32_t setControlFlowOpLastInBB(Function &f);
}
namespace optimized {
uint32_t setControlFlowOpLastInBB(Function &f);
}

} // namespace ori
