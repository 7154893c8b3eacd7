// Register liveness (spec/004 "Dataflow Algorithm"; ir/facts.h LivenessFacts): the contract of
// reference/liveness.cpp (std::set per block) and optimized/liveness.cpp (SSE2 bitvectors).
// gen/kill per block, then the backward dataflow equations solved to their least fixed point.
// Both halves' facts are equal.
#pragma once

#include "ir/facts.h"
#include "ir/ir.h"

namespace ori {

// The two halves' entries (the contract above).
namespace reference {
LivenessFacts computeLiveness(const Function &f, const CfgFacts &cfg);
}
namespace optimized {
LivenessFacts computeLiveness(const Function &f, const CfgFacts &cfg);
}

} // namespace ori
