// Natural loops (spec/000 "Natural Loop Detection"; ir/facts.h LoopFacts): the contract of
// reference/loops.cpp and optimized/loops.cpp. One loop per header, for backedges whose header
// dominates their source (irreducible backedges form none); unreachable blocks are in no loop
// and are not outside predecessors when the preheader is chosen. Both halves' facts are equal.
#pragma once

#include "ir/facts.h"
#include "ir/ir.h"

namespace ori {

// The two halves' entries (the contract above).
namespace reference {
LoopFacts computeLoops(const Function &f, const CfgFacts &cfg, const DomFacts &dom);
}
namespace optimized {
LoopFacts computeLoops(const Function &f, const CfgFacts &cfg, const DomFacts &dom);
}

} // namespace ori
