// The control-flow graph of a function (spec/000; ir/facts.h CfgFacts): the contract of
// reference/cfg.cpp and optimized/cfg.cpp. Successors by terminator (spec/000 "Successor Edge
// Population"): EXIT/RET none; unconditional BRA its target; conditional BRA taken target then
// fall-through; BRX its table in order (a guarded BRX: then the fall-through); CALL and anything
// else the fall-through; a guarded EXIT or RET the fall-through only; the last block no
// fall-through; each successor once, in first-occurrence order. Then predecessors, RPO (a
// depth-first search from bix 0 in successor order) and backedges (RPO(dst) <= RPO(src),
// reachable blocks only). Both halves' facts are equal (operator==).
#pragma once

#include "ir/facts.h"
#include "ir/ir.h"

namespace ori {

// The two halves' entries (the contract above).
namespace reference {
CfgFacts computeCfg(const Function &f);
}
namespace optimized {
CfgFacts computeCfg(const Function &f);
}

} // namespace ori
