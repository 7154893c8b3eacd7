// Unreachable-block erase (spec/003 OriBranchOpt "Transformation 2"), the
// reference way: reachability by Boost.Graph's breadth-first search, then a
// new block list of the reachable blocks. Plus sub_BDE6C0's RPO slot
// assignment exactly as spec/003 documents it (computeEraseSlots).
//
// A block is kept when it is reachable from bix 0 along CFG edges or label
// operands (BSSY's reconvergence label is not a CFG edge, but it must keep
// naming a block). No BRA is ever needed to keep fall-through right: a kept
// block that falls through has its next block as a CFG successor, so that
// block is kept too and still follows it; an erased block never sat between
// a block and its fall-through. A jump table loses its reason to exist when
// one of its targets is erased (a kept BRX's targets are all reachable), so
// such tables are dropped.
#include <cstdint>
#include <span>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>

#include "reference/reference.h"

namespace ori::reference {
namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

std::vector<bool> reachableBlocks(const Function &f) {
  const auto n = static_cast<uint32_t>(f.blocks.size());
  const CfgFacts cfg = computeCfg(f);
  Graph g(n);
  for (uint32_t b = 0; b < n; ++b) {
    for (uint32_t s : cfg.succs[b])
      boost::add_edge(b, s, g);
    for (const Instr &in : f.blocks[b].instrs)
      for (const Operand &o : in.srcs)
        if (o.kind == Operand::Kind::Label)
          boost::add_edge(b, o.target, g);
  }
  std::vector<boost::default_color_type> color(n, boost::white_color);
  auto colorMap =
      boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, g));
  boost::breadth_first_search(g, boost::vertex(0, g), boost::color_map(colorMap));
  std::vector<bool> reach(n);
  for (uint32_t b = 0; b < n; ++b)
    reach[b] = color[b] != boost::white_color;
  return reach;
}

} // namespace

std::vector<uint32_t> eraseUnreachableBlocks(Function &f) {
  std::vector<uint32_t> erased;
  if (f.blocks.empty())
    return erased;
  const std::vector<bool> reach = reachableBlocks(f);
  std::vector<int64_t> newIndex(f.blocks.size(), -1);
  std::vector<Block> kept;
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    if (!reach[b]) {
      erased.push_back(b);
      continue;
    }
    newIndex[b] = int64_t(kept.size());
    kept.push_back(f.blocks[b]);
  }
  if (erased.empty())
    return erased;

  std::vector<JumpTable> tables;
  std::vector<int64_t> newTable(f.jumpTables.size(), -1);
  for (size_t t = 0; t < f.jumpTables.size(); ++t) {
    JumpTable jt = f.jumpTables[t];
    bool allKept = true;
    for (uint32_t &target : jt.targets) {
      if (newIndex[target] < 0)
        allKept = false;
      else
        target = uint32_t(newIndex[target]);
    }
    if (!allKept)
      continue;
    newTable[t] = int64_t(tables.size());
    tables.push_back(std::move(jt));
  }
  for (Block &blk : kept)
    for (Instr &in : blk.instrs)
      for (Operand &o : in.srcs) {
        if (o.kind == Operand::Kind::Label)
          o.target = uint32_t(newIndex[o.target]);
        if (o.kind == Operand::Kind::JumpTable)
          o.target = uint32_t(newTable[o.target]);
      }
  f.blocks = std::move(kept);
  f.jumpTables = std::move(tables);
  return erased;
}

// sub_BDE6C0 as spec/003 prints it, driven as its caller sub_BDFB10 drives
// it: once per bix, 0 up to the highest, one counter shared by all calls and
// starting at the highest bix. The recursion (visit a block, cascade into
// each successor whose mark is 1, then take the slot) runs on an explicit
// stack of (block, next successor) frames so a long chain cannot overflow.
RpoSlots computeEraseSlots(const CfgFacts &cfg, EraseMarks marks) {
  const auto n = static_cast<uint32_t>(cfg.succs.size());
  RpoSlots out;
  out.rpoNumber.assign(n, kNoBlock);
  out.rpoArray.assign(n, kNoBlock);
  out.counter = int32_t(n) - 1;
  std::vector<uint32_t> mark(n); // spec/003's pred_count[]
  for (uint32_t b = 0; b < n; ++b)
    mark[b] = marks == EraseMarks::PredCount ? uint32_t(cfg.preds[b].size()) : 1;

  struct Frame {
    uint32_t bix;
    size_t next; // index of the next successor to look at
  };
  for (uint32_t root = 0; root < n; ++root) {
    if (mark[root] == 0)
      continue; // "already removed": return at once
    mark[root] = 0;
    std::vector<Frame> calls{{root, 0}};
    while (!calls.empty()) {
      Frame &top = calls.back();
      const std::span<const uint32_t> succs = cfg.succs[top.bix];
      if (top.next < succs.size()) {
        const uint32_t s = succs[top.next++];
        if (mark[s] == 1) { // "sole predecessor is bix": cascade
          mark[s] = 0;
          calls.push_back({s, 0});
        }
        continue;
      }
      // finalize: the block takes the current slot
      out.rpoNumber[top.bix] = out.counter;
      out.rpoArray[size_t(out.counter)] = int32_t(top.bix);
      --out.counter;
      calls.pop_back();
    }
  }
  return out;
}

} // namespace ori::reference
