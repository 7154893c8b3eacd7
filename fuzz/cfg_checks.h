// Checks of the CFG analyses on one function, shared by the RapidCheck
// properties (fuzz/prop_cfg_diff.cpp) and the orifuzz campaign tool
// (fuzz/orifuzz.cpp). Each returns "" when the check holds, else one line
// naming the first problem.
//
// The definitional checks compare the optimized half with brute force
// straight from the definitions (spec/000; rules/cfg.h): they cost
// O(n * (n + e)) and are meant for fuzzer-sized graphs, not for 100k blocks.
#pragma once

#include <string>

#include "ir/facts.h"
#include "ir/ir.h"

namespace ori::checks {

// The reference and optimized halves give equal CfgFacts, DomFacts and
// LoopFacts ("" as well when reference/ is not built).
std::string halvesAgree(const Function &f);

// Successor lists follow the rules of rules/cfg.h, computed the obvious way;
// each edge appears once among the target's predecessors, which ascend.
std::string successorsFollowTheRules(const Function &f, const CfgFacts &cfg);

// The RPO is a permutation of the blocks reachable from bix 0 starting at
// bix 0, rpoNumber is its inverse, every edge that is not a backedge goes
// forward, backedges are exactly the reachable edges with RPO(dst) <=
// RPO(src), ordered by source, and every block but the entry has a
// predecessor before it in the order (its depth-first tree parent).
std::string rpoIsADepthFirstOrder(const CfgFacts &cfg);

// idom[b] is kNoBlock exactly for the entry and unreachable blocks, and
// otherwise the closest strict dominator of b, dominance decided by removing
// a block and searching.
std::string idomIsTheClosestStrictDominator(const CfgFacts &cfg, const DomFacts &dom);

// Loops are the natural loops of the backedges whose target dominates their
// source, one per header by ascending header, with the latches, body,
// preheader, exits and depth of ir/facts.h's Loop.
std::string loopsAreTheNaturalLoops(const CfgFacts &cfg, const DomFacts &dom,
                                    const LoopFacts &loops);

// Everything above on f, after verifyFunction accepts it: the `cfg-diff`
// check of orifuzz.
std::string cfgDiff(const Function &f);

} // namespace ori::checks
