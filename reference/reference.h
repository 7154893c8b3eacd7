// The reference half's CFG analyses (spec/000; DESIGN.md, "The two halves").
// Same signatures in reference/reference.h and optimized/optimized.h; the
// results (ir/facts.h) must be equal.
#pragma once

#include "ir/facts.h"
#include "ir/ir.h"

namespace ori::reference {

// Successors by terminator (spec/000 "Successor Edge Population"): EXIT/RET
// none; unconditional BRA its target; conditional BRA taken target then
// fall-through; BRX its table in order (a guarded BRX: then the
// fall-through); CALL and anything else the fall-through; a guarded EXIT or
// RET the fall-through only; the last block no fall-through; each successor
// once, in first-occurrence order. Then predecessors, RPO (a depth-first
// search from bix 0 in successor order) and backedges (RPO(dst) <= RPO(src),
// reachable blocks only).
// Loops: one per header, for backedges whose header dominates their source
// (irreducible backedges form none); unreachable blocks are in no loop and
// are not outside predecessors when the preheader is chosen.
CfgFacts computeCfg(const Function& f);
DomFacts computeDominators(const Function& f, const CfgFacts& cfg);
LoopFacts computeLoops(const Function& f, const CfgFacts& cfg, const DomFacts& dom);

} // namespace ori::reference
