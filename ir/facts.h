// Analysis results shared by the two halves (DESIGN.md, "The two halves and
// their contract"): plain values in canonical form, compared with ==, and a
// printer that names the first difference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/ir.h"

namespace ori {

inline constexpr int32_t kNoBlock = -1;

// The control-flow graph of one function (spec/000).
struct CfgFacts {
  // Successors of each block in successor-list order (conditional BRA: taken
  // target, then fall-through; BRX: table order), each block once, in first
  // occurrence order.
  std::vector<std::vector<uint32_t>> succs;
  // Predecessors of each block, ascending.
  std::vector<std::vector<uint32_t>> preds;
  // Reverse postorder of the blocks reachable from bix 0 (a depth-first
  // search visiting successors in successor-list order).
  std::vector<uint32_t> rpo;
  // RPO number of each block (its index in rpo), kNoBlock when unreachable.
  std::vector<int32_t> rpoNumber;
  // Backedges src -> dst with RPO(dst) <= RPO(src), ordered by src, then by
  // successor order.
  std::vector<std::pair<uint32_t, uint32_t>> backedges;
  friend bool operator==(const CfgFacts&, const CfgFacts&) = default;
};

// Immediate dominators: idom[b] for each reachable block but the entry,
// kNoBlock for the entry and for unreachable blocks.
struct DomFacts {
  std::vector<int32_t> idom;
  friend bool operator==(const DomFacts&, const DomFacts&) = default;
};

// Natural loops (spec/000 "Natural Loop Detection"), one per header, ordered
// by header bix.
struct Loop {
  uint32_t header = 0;
  std::vector<uint32_t> latches; // sources of backedges to the header, ascending
  std::vector<uint32_t> body;    // blocks that reach a latch without passing the header, plus the header; ascending
  uint32_t depth = 1;            // 1 for an outermost loop
  int32_t preheader = kNoBlock;  // the single outside predecessor of the header, if there is exactly one
  std::vector<uint32_t> exits;   // blocks outside the body with a predecessor inside, ascending
  friend bool operator==(const Loop&, const Loop&) = default;
};

struct LoopFacts {
  std::vector<Loop> loops;
  friend bool operator==(const LoopFacts&, const LoopFacts&) = default;
};

// "" when equal, else a line naming the first difference, e.g.
// "succs of bix3: reference [4, 5], optimized [5, 4]".
std::string firstDifference(const CfgFacts& reference, const CfgFacts& optimized);
std::string firstDifference(const DomFacts& reference, const DomFacts& optimized);
std::string firstDifference(const LoopFacts& reference, const LoopFacts& optimized);

} // namespace ori
