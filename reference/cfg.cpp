// Reference CFG (spec/000 "Successor Edge Population", "Reverse Post-Order",
// "Backedge Detection"): successors from each block's last instruction, a
// Boost.Graph adjacency_list, Boost's own (iterative) depth-first search for
// the RPO, and backedges as edges src -> dst with RPO(dst) <= RPO(src).
#include <algorithm>
#include <cstdint>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>

#include "reference/reference.h"

namespace ori::reference {
namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;

void addOnce(std::vector<uint32_t> &list, uint32_t b) {
  if (std::find(list.begin(), list.end(), b) == list.end())
    list.push_back(b);
}

// Successor rules of rules/cfg.h. A block without instructions, or ending in
// a non-control instruction or a CALL, falls through; the last block has no
// fall-through. An unguarded terminator (EXIT, RET, BRA, BRX) does not fall
// through: a guarded EXIT/RET falls through only, a guarded BRA or BRX goes
// to its targets, then falls through.
std::vector<uint32_t> successorsOf(const Function &f, uint32_t bix) {
  std::vector<uint32_t> out;
  const Block &b = f.blocks[bix];
  const bool hasNext = bix + 1 < f.blocks.size();
  if (b.instrs.empty()) {
    if (hasNext)
      out.push_back(bix + 1);
    return out;
  }
  const Instr &last = b.instrs.back();
  if (last.op == Opcode::BRA) {
    addOnce(out, last.srcs.at(0).target);
  } else if (isTableBranch(last.op)) {
    for (uint32_t t : f.jumpTables.at(last.srcs.at(1).target).targets)
      addOnce(out, t);
  }
  const bool fallsThrough = !last.info().is(TERMINATOR) || last.isGuarded();
  if (fallsThrough && hasNext)
    addOnce(out, bix + 1);
  return out;
}

// Records vertices in the order the DFS finishes them (postorder).
struct PostorderRecorder : boost::default_dfs_visitor {
  std::vector<Vertex> *postorder;
  explicit PostorderRecorder(std::vector<Vertex> *p) : postorder(p) {}
  void finish_vertex(Vertex v, const Graph &) { postorder->push_back(v); }
};

} // namespace

CfgFacts computeCfg(const Function &f) {
  const auto n = static_cast<uint32_t>(f.blocks.size());
  CfgFacts cfg;
  cfg.rpoNumber.assign(n, kNoBlock);
  if (n == 0)
    return cfg;

  Graph g(n);
  std::vector<std::vector<uint32_t>> succs(n), preds(n);
  for (uint32_t b = 0; b < n; ++b) {
    succs[b] = successorsOf(f, b);
    for (uint32_t s : succs[b]) {
      boost::add_edge(b, s, g); // out-edges keep insertion (= successor) order
      preds[s].push_back(b);
    }
  }
  for (auto &p : preds)
    std::sort(p.begin(), p.end());
  cfg.succs = succs;
  cfg.preds = preds;

  // DFS from bix 0 only: unreachable blocks stay white and get no number.
  std::vector<boost::default_color_type> color(n, boost::white_color);
  std::vector<Vertex> postorder;
  boost::depth_first_visit(
      g, boost::vertex(0, g), PostorderRecorder(&postorder),
      boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, g)));
  cfg.rpo.assign(postorder.rbegin(), postorder.rend());
  for (uint32_t i = 0; i < cfg.rpo.size(); ++i)
    cfg.rpoNumber[cfg.rpo[i]] = static_cast<int32_t>(i);

  for (uint32_t src = 0; src < n; ++src) {
    if (cfg.rpoNumber[src] == kNoBlock)
      continue;
    for (uint32_t dst : cfg.succs[src])
      if (cfg.rpoNumber[dst] <= cfg.rpoNumber[src])
        cfg.backedges.emplace_back(src, dst);
  }
  return cfg;
}

} // namespace ori::reference
