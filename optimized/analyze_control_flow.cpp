// AnalyzeControlFlow (phase 3's body sub_781F80, spec/001 "Algorithm";
// rules/analyze_control_flow.h), in the spec's four phases, without recursion:
//  1. reset: every block's +280 &= 0xFF78F98F, +144 and +152 cleared;
//  2. one linear walk over the blocks in RPO (ptxas walks its instruction
//     list; the block-start case numbers the block with ++count). A successor
//     already numbered is the target of a backedge: it is a loop header, its
//     exit marker becomes the current block's number (the walk goes up, so
//     the last one is the largest), and the current block is a latch
//     (ANALYSIS_OK, latch-pred = the smallest such target). A successor not
//     yet numbered gets a predecessor with a smaller number (HAS_PRED);
//  3. IN_LOOP over the intervals [header, exit] in one sweep: the intervals
//     start at their headers, so a running maximum of the exits open so far
//     says whether a position is covered;
//  4. the RPO-violation latch: an edge u -> v enters some interval [h, e]
//     from outside it, h < v <= e. For a forward edge (u < v) that means an
//     open-at-v interval starting in (u, v): the nearest open start left of v
//     (a stack of intervals) must be > u. For a backward edge (v <= u) an
//     interval with h < v <= e < u: the smallest end among intervals open at v
//     (a min-heap) must be < u.
// Positions below are RPO numbers, 1-based as ptxas's +144.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "optimized/optimized.h"

namespace ori::optimized {
namespace {

// Phase 4. exitAt[p] = exit marker of the header numbered p (0: no header).
bool rpoViolation(const CfgFacts &cfg, const std::vector<uint32_t> &rpo,
                  const std::vector<uint32_t> &exitAt) {
  const uint32_t count = uint32_t(cfg.rpo.size());
  // nearestOpen[p]: the largest header position h < p with exit >= p (0: none).
  // minOpenEnd[p]: the smallest exit among headers h < p with exit >= p (0: none).
  std::vector<uint32_t> nearestOpen(count + 1, 0), minOpenEnd(count + 1, 0);
  std::vector<std::pair<uint32_t, uint32_t>> stack; // (header, exit), headers ascending
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ends;
  for (uint32_t p = 1; p <= count; ++p) {
    while (!stack.empty() && stack.back().second < p)
      stack.pop_back(); // closed for good
    nearestOpen[p] = stack.empty() ? 0 : stack.back().first;
    while (!ends.empty() && ends.top() < p)
      ends.pop();
    minOpenEnd[p] = ends.empty() ? 0 : ends.top();
    if (exitAt[p] != 0) {
      stack.emplace_back(p, exitAt[p]);
      ends.push(exitAt[p]);
    }
  }
  for (uint32_t b : cfg.rpo)
    for (uint32_t s : cfg.succs[b]) {
      const uint32_t u = rpo[b], v = rpo[s];
      if (u < v ? nearestOpen[v] > u : (minOpenEnd[v] != 0 && minOpenEnd[v] < u))
        return true;
    }
  return false;
}

} // namespace

AnnotationFacts analyzeControlFlow(const Function &f, const CfgFacts &cfg,
                                   const AnnotationFacts *previous, bool forceFullRebuild) {
  const uint32_t n = uint32_t(f.blocks.size());
  AnnotationFacts out;
  out.blocks.resize(n);
  // Phase 1: reset (sub_781F80:343). The guard (CO +1370 bit 0x10) is held
  // from here to the end.
  out.reentrancyGuard = true;
  for (uint32_t b = 0; b < n; ++b) {
    uint32_t before = previous && b < previous->blocks.size() ? previous->blocks[b].flags : 0;
    out.blocks[b].flags = before & BlockAnnotation::kResetMask;
  }

  // Phase 2: the linear walk.
  const uint32_t count = uint32_t(cfg.rpo.size());
  std::vector<uint32_t> rpo(n, 0), exitAt(count + 1, 0), latchPred(n, 0);
  uint32_t numbered = 0;
  for (uint32_t b : cfg.rpo) {
    BlockAnnotation &cur = out.blocks[b];
    rpo[b] = cur.rpoNumber = ++numbered; // block-start marker
    if (forceFullRebuild)
      cur.flags |= BlockAnnotation::kHasPred;
    if (cur.flags & BlockAnnotation::kEarlyExit)
      out.earlyExitObserved = true;
    for (uint32_t s : cfg.succs[b]) {
      if (rpo[s] == 0) {
        out.blocks[s].flags |= BlockAnnotation::kHasPred;
        continue;
      }
      out.blocks[s].flags |= BlockAnnotation::kLoopHeader;
      exitAt[rpo[s]] = numbered;
      cur.flags |= BlockAnnotation::kAnalysisOk;
      if (latchPred[b] == 0 || rpo[s] < latchPred[b])
        latchPred[b] = rpo[s];
    }
  }

  // Phase 3: IN_LOOP and the +152 field.
  uint32_t openUntil = 0;
  for (uint32_t p = 1; p <= count; ++p) {
    BlockAnnotation &a = out.blocks[cfg.rpo[p - 1]];
    openUntil = std::max(openUntil, exitAt[p]);
    if (p <= openUntil)
      a.flags |= BlockAnnotation::kInLoop;
    a.latchPredOrExit = exitAt[p] != 0 ? exitAt[p] : latchPred[cfg.rpo[p - 1]];
  }

  // Phase 4: the consistency check, then release the guard.
  out.rpoViolation = rpoViolation(cfg, rpo, exitAt);
  out.reentrancyGuard = false;
  return out;
}

} // namespace ori::optimized
