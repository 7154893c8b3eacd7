// Immediate dominators (spec/000 "CHK"; ir/facts.h DomFacts): the contract of
// reference/dominators.cpp (Lengauer-Tarjan) and optimized/dominators.cpp (Cooper-Harvey-Kennedy).
// Every reachable block but the entry gets its immediate dominator over computeCfg's graph;
// the entry and unreachable blocks kNoBlock. Both halves' facts are equal.
#pragma once

#include "ir/facts.h"
#include "ir/ir.h"

namespace ori {

// The two halves' entries (the contract above).
namespace reference {
DomFacts computeDominators(const Function &f, const CfgFacts &cfg);
}
namespace optimized {
DomFacts computeDominators(const Function &f, const CfgFacts &cfg);
}

} // namespace ori
