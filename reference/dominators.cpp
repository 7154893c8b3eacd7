// Reference dominators: Boost.Graph's lengauer_tarjan_dominator_tree on the
// CFG's successor lists, rooted at bix 0. Blocks Boost leaves without a
// dominator (the entry, unreachable blocks) get kNoBlock.
//
// Only edges leaving reachable blocks go into the graph: Boost 1.74 gives a
// reachable block with an unreachable predecessor no idom at all (see
// CfgHalves.UnreachablePredecessorsOfALoop). Dropping unreachable blocks
// first is the textbook remedy (Appel, "Modern Compiler Implementation",
// 18.1) and does not change any reachable block's dominators.
#include <cstdint>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dominator_tree.hpp>

#include "reference/reference.h"

namespace ori::reference {

DomFacts computeDominators(const Function & /*f*/, const CfgFacts &cfg) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
  using Vertex = boost::graph_traits<Graph>::vertex_descriptor;

  const size_t n = cfg.succs.size();
  DomFacts dom;
  dom.idom.assign(n, kNoBlock);
  if (n == 0)
    return dom;

  Graph g(n);
  for (uint32_t b = 0; b < n; ++b)
    if (cfg.rpoNumber[b] != kNoBlock)
      for (uint32_t s : cfg.succs[b])
        boost::add_edge(b, s, g);

  const Vertex none = boost::graph_traits<Graph>::null_vertex();
  std::vector<Vertex> idom(n, none);
  boost::lengauer_tarjan_dominator_tree(
      g, boost::vertex(0, g),
      boost::make_iterator_property_map(idom.begin(), boost::get(boost::vertex_index, g)));
  for (size_t b = 0; b < n; ++b)
    if (idom[b] != none)
      dom.idom[b] = static_cast<int32_t>(idom[b]);
  return dom;
}

} // namespace ori::reference
