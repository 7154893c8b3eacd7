// ptxas's iterative RPO, CFG::computeRPO (spec/000 sub_BDE150), as the spec's pseudocode
// writes it (`--rpo=ptxas-iterative`): the contract of reference/rpo_iterative.cpp and
// optimized/rpo_iterative.cpp. computeRpoIterativeSlots gives its raw slots; computeCfgIterative
// computeCfg's facts with rpo, rpoNumber (slot minus the lowest slot written) and backedges
// taken from that walk. It pushes all successors at once, so the last one is expanded first,
// and never pushes a block twice, which makes its order differ from every DFS order
// (docs/spec-notes.md, "ptxas-iterative RPO vs DFS"). Both halves' results are equal.
#pragma once

#include "ir/facts.h"
#include "ir/ir.h"

namespace ori {

// The two halves' entries (the contract above).
namespace reference {
RpoSlots computeRpoIterativeSlots(const CfgFacts &cfg);
}
namespace optimized {
RpoSlots computeRpoIterativeSlots(const CfgFacts &cfg);
}
namespace reference {
CfgFacts computeCfgIterative(const Function &f);
}
namespace optimized {
CfgFacts computeCfgIterative(const Function &f);
}

} // namespace ori
