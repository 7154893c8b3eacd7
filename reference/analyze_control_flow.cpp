// Reference AnalyzeControlFlow (phase 3, spec/001; rules/analyze_control_flow.h): every
// annotation computed straight from its definition over the CFG, with sets.
//
// Definitions (RPO numbers 1-based; only numbered, i.e. reachable, blocks
// take part):
//   backedge      u -> v with rpo(v) <= rpo(u) (spec/000; self loops too)
//   LOOP_HEADER   v is the target of a backedge
//   exit(h)       max rpo(u) over the backedges u -> h; h's interval is [rpo(h), exit(h)]
//   IN_LOOP       rpo(b) lies in some header's interval (closed: spec/000 "header_rpo <=
//                 block_rpo <= exit_rpo")
//   HAS_PRED      some predecessor has a smaller RPO number (force: every numbered block)
//   ANALYSIS_OK   b is the source of a backedge
//   +152          exit(b) on a header, else min rpo(v) over b's backedges b -> v, else 0
//   rpoViolation  an edge u -> v with rpo(h) < rpo(v) <= exit(h) and rpo(u) outside
//                 [rpo(h), exit(h)] for some header h (enters an interval from the side)
//   earlyExit     a numbered block's previous +280 has bit 0 set
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>

#include "reference/reference.h"

namespace ori::reference {

AnnotationFacts analyzeControlFlow(const Function &f, const CfgFacts &cfg,
                                   const AnnotationFacts *previous, bool forceFullRebuild) {
  const uint32_t n = uint32_t(f.blocks.size());
  std::vector<uint32_t> rpo(n, 0);
  for (uint32_t b = 0; b < n; ++b)
    if (cfg.rpoNumber[b] != kNoBlock)
      rpo[b] = uint32_t(cfg.rpoNumber[b]) + 1;

  std::set<std::pair<uint32_t, uint32_t>> edges, backedges;
  for (uint32_t u = 0; u < n; ++u)
    for (uint32_t v : cfg.succs[u])
      if (rpo[u] != 0 && rpo[v] != 0) {
        edges.insert({u, v});
        if (rpo[v] <= rpo[u])
          backedges.insert({u, v});
      }

  std::map<uint32_t, uint32_t> exitOf; // header -> exit(h)
  for (auto [u, h] : backedges)
    exitOf[h] = std::max(exitOf[h], rpo[u]);
  auto inInterval = [&](uint32_t r, uint32_t h) { return rpo[h] <= r && r <= exitOf.at(h); };

  AnnotationFacts out;
  out.blocks.resize(n);
  for (uint32_t b = 0; b < n; ++b) {
    BlockAnnotation &a = out.blocks[b];
    uint32_t before = previous && b < previous->blocks.size() ? previous->blocks[b].flags : 0;
    a.flags = before & BlockAnnotation::kResetMask;
    a.rpoNumber = rpo[b];
    if (rpo[b] == 0)
      continue;
    if (before & BlockAnnotation::kEarlyExit)
      out.earlyExitObserved = true;

    if (exitOf.count(b))
      a.flags |= BlockAnnotation::kLoopHeader;
    bool smallerPred = std::any_of(cfg.preds[b].begin(), cfg.preds[b].end(),
                                   [&](uint32_t p) { return rpo[p] != 0 && rpo[p] < rpo[b]; });
    if (smallerPred || forceFullRebuild)
      a.flags |= BlockAnnotation::kHasPred;
    std::set<uint32_t> backTargets;
    for (auto [u, v] : backedges)
      if (u == b)
        backTargets.insert(rpo[v]);
    if (!backTargets.empty())
      a.flags |= BlockAnnotation::kAnalysisOk;
    for (const auto &[h, exit] : exitOf)
      if (inInterval(rpo[b], h))
        a.flags |= BlockAnnotation::kInLoop;

    if (exitOf.count(b))
      a.latchPredOrExit = exitOf[b];
    else if (!backTargets.empty())
      a.latchPredOrExit = *backTargets.begin();
  }

  for (auto [u, v] : edges)
    for (const auto &[h, exit] : exitOf)
      if (rpo[h] < rpo[v] && rpo[v] <= exit && !inInterval(rpo[u], h))
        out.rpoViolation = true;
  out.reentrancyGuard = false; // set on entry, released on exit
  return out;
}

} // namespace ori::reference
