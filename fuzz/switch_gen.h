// Random switch kernels for DoSwitchOpt (phases 14, 30, 80): a selector read
// from a parameter, compared against case constants by a linear chain or an
// nvcc-style tree (range splits on GT, EQ/NE leaves, BRA-only trampolines),
// with interleaved code in the head, case bodies that share targets, runs of
// consecutive values, negative and extreme constants, a body reached by
// fall-through, predicates read again after the switch (which must stop a
// lowering), an unreachable region, and nvcc's narrowed selectors (S = sel &
// 0xff or 0x7fff, range splits compare SGXT(S, 16), leaves S itself) and bit
// tests (a bounds check, then (1 << S) & mask per body, the bit register made
// once or twice, sometimes read again after the switch). Each body stores its
// own number.
#pragma once

#include <cstdint>
#include <vector>

#include <rapidcheck.h>

#include "ir/ir.h"

namespace ori::gen {

// The kernel `.entry sw(.u64 out, .u32 sel)`: out[0] gets the body's number.
rc::Gen<Function> switchKernel();

// Selector values worth running a switch kernel on: every constant its
// compares use, one below and one above, 0, the extremes of both orders.
std::vector<uint32_t> interestingSelectors(const Function &f);

} // namespace ori::gen
