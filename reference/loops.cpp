// Reference natural loops (spec/000 "Natural Loop Detection"), textbook style.
//
// Decisions:
//  - A loop is formed for each header h that is the target of at least one
//    backedge l -> h (RPO(h) <= RPO(l)) where h dominates l. All such
//    backedges to h are merged into one loop; their sources are its latches.
//  - A backedge whose target does not dominate its source is a retreating
//    edge of an irreducible region: it forms no loop and its source is no
//    latch (there is no natural loop with a single header to describe).
//  - The body is the header plus every block that reaches a latch backwards
//    without passing the header, found by an explicit worklist.
//    Unreachable blocks (no RPO number) are ignored everywhere: they are
//    never in a body, never an exit, and do not count as outside
//    predecessors when looking for the preheader.
//  - depth = number of loops whose body contains the header (1 = outermost).
//  - preheader = the single reachable predecessor of the header outside the
//    body, if there is exactly one, else kNoBlock.
//  - exits = blocks outside the body with a predecessor in the body, ascending.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "reference/reference.h"

namespace ori::reference {
namespace {

bool reachable(const CfgFacts &cfg, uint32_t b) { return cfg.rpoNumber[b] != kNoBlock; }

// Does a dominate b? Walks b's idom chain up to the entry.
bool dominates(const DomFacts &dom, uint32_t a, uint32_t b) {
  for (int32_t x = static_cast<int32_t>(b); x != kNoBlock; x = dom.idom[x])
    if (x == static_cast<int32_t>(a))
      return true;
  return false;
}

std::set<uint32_t> naturalLoopBody(const CfgFacts &cfg, uint32_t header,
                                   const std::vector<uint32_t> &latches) {
  std::set<uint32_t> body{header};
  std::vector<uint32_t> work;
  for (uint32_t l : latches)
    if (body.insert(l).second)
      work.push_back(l);
  while (!work.empty()) {
    uint32_t b = work.back();
    work.pop_back();
    for (uint32_t p : cfg.preds[b])
      if (reachable(cfg, p) && body.insert(p).second)
        work.push_back(p);
  }
  return body;
}

} // namespace

LoopFacts computeLoops(const Function & /*f*/, const CfgFacts &cfg, const DomFacts &dom) {
  std::map<uint32_t, std::set<uint32_t>> latchesOf; // header -> latches, both ascending
  for (auto [src, dst] : cfg.backedges)
    if (dominates(dom, dst, src))
      latchesOf[dst].insert(src);

  LoopFacts facts;
  std::vector<std::set<uint32_t>> bodies;
  for (const auto &[header, latchSet] : latchesOf) {
    Loop loop;
    loop.header = header;
    loop.latches.assign(latchSet.begin(), latchSet.end());
    std::set<uint32_t> body = naturalLoopBody(cfg, header, loop.latches);
    loop.body.assign(body.begin(), body.end());

    std::vector<uint32_t> outside;
    for (uint32_t p : cfg.preds[header])
      if (reachable(cfg, p) && !body.count(p))
        outside.push_back(p);
    if (outside.size() == 1)
      loop.preheader = static_cast<int32_t>(outside[0]);

    std::set<uint32_t> exits;
    for (uint32_t b : body)
      for (uint32_t s : cfg.succs[b])
        if (!body.count(s))
          exits.insert(s);
    loop.exits.assign(exits.begin(), exits.end());

    facts.loops.push_back(std::move(loop));
    bodies.push_back(std::move(body));
  }

  for (Loop &loop : facts.loops)
    loop.depth = static_cast<uint32_t>(
        std::count_if(bodies.begin(), bodies.end(), [&](const std::set<uint32_t> &body) {
          return body.count(loop.header) != 0;
        }));
  return facts;
}

} // namespace ori::reference
