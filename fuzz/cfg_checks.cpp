// Checks of the CFG analyses (fuzz/cfg_checks.h), each from the definitions.
#include "fuzz/cfg_checks.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ir/verify.h"
#include "optimized/optimized.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori::checks {
namespace {

// Blocks reached from bix 0 without entering `avoid` (kNoBlock: none avoided).
std::vector<bool> reachAvoiding(const CfgFacts &cfg, int32_t avoid) {
  const size_t n = cfg.succs.size();
  std::vector<bool> seen(n, false);
  if (n == 0 || avoid == 0)
    return seen;
  std::vector<uint32_t> work{0};
  seen[0] = true;
  while (!work.empty()) {
    uint32_t b = work.back();
    work.pop_back();
    for (uint32_t s : cfg.succs[b])
      if (!seen[s] && int32_t(s) != avoid) {
        seen[s] = true;
        work.push_back(s);
      }
  }
  return seen;
}

// dom[d][b]: d dominates b (both reachable): b is reachable, and no longer
// reachable once d is removed.
std::vector<std::vector<bool>> bruteDominance(const CfgFacts &cfg) {
  const size_t n = cfg.succs.size();
  std::vector<bool> reach = reachAvoiding(cfg, kNoBlock);
  std::vector<std::vector<bool>> dom(n, std::vector<bool>(n, false));
  for (size_t d = 0; d < n; ++d) {
    if (!reach[d])
      continue;
    std::vector<bool> without = reachAvoiding(cfg, int32_t(d));
    for (size_t b = 0; b < n; ++b)
      dom[d][b] = reach[b] && !without[b];
  }
  return dom;
}

} // namespace

std::string halvesAgree([[maybe_unused]] const Function &f) {
#if defined(ORIOPT_HAVE_REFERENCE)
  CfgFacts rc = reference::computeCfg(f), oc = optimized::computeCfg(f);
  if (!(rc == oc))
    return "CfgFacts: " + firstDifference(rc, oc);
  DomFacts rd = reference::computeDominators(f, rc), od = optimized::computeDominators(f, oc);
  if (!(rd == od))
    return "DomFacts: " + firstDifference(rd, od);
  LoopFacts rl = reference::computeLoops(f, rc, rd), ol = optimized::computeLoops(f, oc, od);
  if (!(rl == ol))
    return "LoopFacts: " + firstDifference(rl, ol);
#endif
  return "";
}

std::string successorsFollowTheRules(const Function &f, const CfgFacts &cfg) {
  const uint32_t n = uint32_t(f.blocks.size());
  if (cfg.succs.size() != n || cfg.preds.size() != n)
    return fmt::format("{} blocks but {} successor and {} predecessor lists", n, cfg.succs.size(),
                       cfg.preds.size());
  for (uint32_t b = 0; b < n; ++b) {
    std::vector<uint32_t> want;
    const Block &blk = f.blocks[b];
    bool fall = true;
    if (!blk.instrs.empty()) {
      const Instr &in = blk.instrs.back();
      if (in.op == Opcode::BRA)
        want.push_back(in.srcs[0].target);
      if (isTableBranch(in.op))
        want = f.jumpTables[in.srcs[1].target].targets;
      bool cf = in.op == Opcode::BRA || isTableBranch(in.op) || in.op == Opcode::EXIT ||
                in.op == Opcode::RET;
      fall = !cf || in.isGuarded();
    }
    if (fall && b + 1 < n)
      want.push_back(b + 1);
    std::vector<uint32_t> dedup;
    for (uint32_t s : want)
      if (std::find(dedup.begin(), dedup.end(), s) == dedup.end())
        dedup.push_back(s);
    if (!std::ranges::equal(cfg.succs[b], dedup))
      return fmt::format("succs of bix{}: [{}], the rules give [{}]", b,
                         fmt::join(cfg.succs[b], ", "), fmt::join(dedup, ", "));
    for (uint32_t s : cfg.succs[b])
      if (std::count(cfg.preds[s].begin(), cfg.preds[s].end(), b) != 1)
        return fmt::format("edge bix{} -> bix{} is not once among the preds [{}]", b, s,
                           fmt::join(cfg.preds[s], ", "));
    if (!std::is_sorted(cfg.preds[b].begin(), cfg.preds[b].end()))
      return fmt::format("preds of bix{} do not ascend: [{}]", b, fmt::join(cfg.preds[b], ", "));
  }
  size_t edges = 0, predEntries = 0;
  for (uint32_t b = 0; b < n; ++b)
    edges += cfg.succs[b].size(), predEntries += cfg.preds[b].size();
  if (edges != predEntries)
    return fmt::format("{} edges but {} predecessor entries", edges, predEntries);
  return "";
}

std::string rpoIsADepthFirstOrder(const CfgFacts &cfg) {
  const size_t n = cfg.succs.size();
  if (n == 0)
    return cfg.rpo.empty() ? "" : "an empty function has an RPO";
  std::vector<bool> reach = reachAvoiding(cfg, kNoBlock);
  if (cfg.rpo.empty() || cfg.rpo[0] != 0u)
    return "the RPO does not start at bix0";
  size_t reachable = size_t(std::count(reach.begin(), reach.end(), true));
  if (cfg.rpo.size() != reachable)
    return fmt::format("the RPO has {} blocks, {} are reachable", cfg.rpo.size(), reachable);
  if (cfg.rpoNumber.size() != n)
    return fmt::format("rpoNumber has {} entries for {} blocks", cfg.rpoNumber.size(), n);
  for (size_t b = 0; b < n; ++b) {
    if ((cfg.rpoNumber[b] != kNoBlock) != bool(reach[b]))
      return fmt::format("bix{} is {}reachable but has RPO number {}", b, reach[b] ? "" : "un",
                         cfg.rpoNumber[b]);
    if (reach[b] &&
        (size_t(cfg.rpoNumber[b]) >= cfg.rpo.size() || cfg.rpo[size_t(cfg.rpoNumber[b])] != b))
      return fmt::format("rpoNumber[{}] = {} is not its position in the RPO", b, cfg.rpoNumber[b]);
  }
  std::set<std::pair<uint32_t, uint32_t>> back(cfg.backedges.begin(), cfg.backedges.end());
  if (back.size() != cfg.backedges.size())
    return "a backedge is listed twice";
  if (!std::is_sorted(cfg.backedges.begin(), cfg.backedges.end(),
                      [](auto a, auto b) { return a.first < b.first; }))
    return "backedges are not ordered by source";
  size_t reachableEdgesBack = 0;
  for (uint32_t b = 0; b < n; ++b) {
    if (!reach[b])
      continue;
    for (uint32_t s : cfg.succs[b]) {
      bool isBack = back.count({b, s}) != 0;
      bool goesBack = cfg.rpoNumber[s] <= cfg.rpoNumber[b];
      if (isBack != goesBack)
        return fmt::format("edge bix{} -> bix{} (RPO {} -> {}) is {}listed as a backedge", b, s,
                           cfg.rpoNumber[b], cfg.rpoNumber[s], isBack ? "" : "not ");
      reachableEdgesBack += isBack;
    }
  }
  if (reachableEdgesBack != back.size())
    return "a backedge is not a reachable edge";
  // Depth-first: every block but the entry has a predecessor before it.
  for (size_t i = 1; i < cfg.rpo.size(); ++i) {
    bool parentBefore = false;
    for (uint32_t p : cfg.preds[cfg.rpo[i]])
      if (cfg.rpoNumber[p] != kNoBlock && cfg.rpoNumber[p] < int32_t(i))
        parentBefore = true;
    if (!parentBefore)
      return fmt::format("bix{} (RPO {}) has no predecessor before it", cfg.rpo[i], i);
  }
  return "";
}

namespace {

using Dominance = std::vector<std::vector<bool>>;

std::string idomCheck(const CfgFacts &cfg, const DomFacts &d, const Dominance &dom) {
  const size_t n = cfg.succs.size();
  if (d.idom.size() != n)
    return fmt::format("idom has {} entries for {} blocks", d.idom.size(), n);
  if (n == 0)
    return "";
  if (d.idom[0] != kNoBlock)
    return fmt::format("the entry has idom {}", d.idom[0]);
  for (size_t b = 1; b < n; ++b) {
    if (cfg.rpoNumber[b] == kNoBlock) {
      if (d.idom[b] != kNoBlock)
        return fmt::format("unreachable bix{} has idom {}", b, d.idom[b]);
      continue;
    }
    // The idom chain climbs to the entry with strictly falling RPO numbers,
    // through dominators of b only.
    int32_t x = d.idom[b];
    int32_t lastRpo = cfg.rpoNumber[b];
    while (true) {
      if (x == kNoBlock || size_t(x) >= n)
        return fmt::format("the idom chain of bix{} ends at {}", b, x);
      if (cfg.rpoNumber[size_t(x)] == kNoBlock || cfg.rpoNumber[size_t(x)] >= lastRpo)
        return fmt::format("the idom chain of bix{} does not climb in RPO at bix{}", b, x);
      if (!dom[size_t(x)][b])
        return fmt::format("bix{} is on the idom chain of bix{} but does not dominate it", x, b);
      if (x == 0)
        break;
      lastRpo = cfg.rpoNumber[size_t(x)];
      x = d.idom[size_t(x)];
    }
    // Immediate: every strict dominator of b dominates idom(b).
    for (size_t s = 0; s < n; ++s)
      if (s != b && dom[s][b] && !dom[s][size_t(d.idom[b])])
        return fmt::format("bix{} strictly dominates bix{} but not its idom bix{}", s, b,
                           d.idom[b]);
  }
  return "";
}

std::string loopsCheck(const CfgFacts &cfg, const LoopFacts &lf, const Dominance &dom) {
  const uint32_t n = uint32_t(cfg.succs.size());
  std::vector<std::vector<uint32_t>> latches(n);
  for (auto [s, h] : cfg.backedges)
    if (dom[h][s])
      latches[h].push_back(s);
  std::vector<uint32_t> headers;
  for (uint32_t h = 0; h < n; ++h)
    if (!latches[h].empty())
      headers.push_back(h);
  if (lf.loops.size() != headers.size())
    return fmt::format("{} loops, the dominating backedges give headers [{}]", lf.loops.size(),
                       fmt::join(headers, ", "));
  std::vector<std::vector<bool>> inBody;
  for (size_t k = 0; k < lf.loops.size(); ++k) {
    const Loop &L = lf.loops[k];
    const uint32_t h = headers[k];
    if (L.header != h)
      return fmt::format("loop {} has header bix{}, expected bix{}", k, L.header, h);
    std::vector<uint32_t> want = latches[h];
    std::sort(want.begin(), want.end());
    if (L.latches != want)
      return fmt::format("loop at bix{}: latches [{}], expected [{}]", h,
                         fmt::join(L.latches, ", "), fmt::join(want, ", "));
    // Body: the header, and each reachable b with a path to a latch that does
    // not pass the header.
    std::vector<bool> body(n, false);
    body[h] = true;
    for (uint32_t b = 0; b < n; ++b) {
      if (b == h || cfg.rpoNumber[b] == kNoBlock)
        continue;
      std::vector<bool> seen(n, false);
      std::vector<uint32_t> work{b};
      seen[b] = true;
      while (!work.empty() && !body[b]) {
        uint32_t x = work.back();
        work.pop_back();
        if (std::count(want.begin(), want.end(), x))
          body[b] = true;
        for (uint32_t s : cfg.succs[x])
          if (s != h && !seen[s]) {
            seen[s] = true;
            work.push_back(s);
          }
      }
    }
    std::vector<uint32_t> wantBody;
    for (uint32_t b = 0; b < n; ++b)
      if (body[b]) {
        wantBody.push_back(b);
        if (!dom[h][b])
          return fmt::format("loop at bix{}: body block bix{} is not dominated by the header", h,
                             b);
      }
    if (L.body != wantBody)
      return fmt::format("loop at bix{}: body [{}], expected [{}]", h, fmt::join(L.body, ", "),
                         fmt::join(wantBody, ", "));
    std::set<uint32_t> outsidePreds, exits;
    for (uint32_t p : cfg.preds[h])
      if (!body[p] && cfg.rpoNumber[p] != kNoBlock)
        outsidePreds.insert(p); // reachable only
    int32_t wantPreheader = outsidePreds.size() == 1 ? int32_t(*outsidePreds.begin()) : kNoBlock;
    if (L.preheader != wantPreheader)
      return fmt::format("loop at bix{}: preheader {}, expected {}", h, L.preheader, wantPreheader);
    for (uint32_t b : wantBody)
      for (uint32_t s : cfg.succs[b])
        if (!body[s])
          exits.insert(s);
    if (L.exits != std::vector<uint32_t>(exits.begin(), exits.end()))
      return fmt::format("loop at bix{}: exits [{}], expected [{}]", h, fmt::join(L.exits, ", "),
                         fmt::join(exits, ", "));
    inBody.push_back(std::move(body));
  }
  for (size_t k = 0; k < lf.loops.size(); ++k) {
    uint32_t depth = 0;
    for (const auto &body : inBody)
      depth += body[lf.loops[k].header] ? 1 : 0;
    if (lf.loops[k].depth != depth)
      return fmt::format("loop at bix{}: depth {}, expected {}", lf.loops[k].header,
                         lf.loops[k].depth, depth);
  }
  return "";
}

} // namespace

std::string idomIsTheClosestStrictDominator(const CfgFacts &cfg, const DomFacts &dom) {
  return idomCheck(cfg, dom, bruteDominance(cfg));
}

// Loops are checked against brute-force dominance, not against the idoms.
std::string loopsAreTheNaturalLoops(const CfgFacts &cfg, const DomFacts &, const LoopFacts &loops) {
  return loopsCheck(cfg, loops, bruteDominance(cfg));
}

std::string cfgDiff(const Function &f) {
  if (std::vector<std::string> problems = verifyFunction(f); !problems.empty())
    return "the generated function does not verify: " + problems.front();
  if (std::string d = halvesAgree(f); !d.empty())
    return d;
  CfgFacts cfg = optimized::computeCfg(f);
  DomFacts dom = optimized::computeDominators(f, cfg);
  LoopFacts loops = optimized::computeLoops(f, cfg, dom);
  // In this order: each check relies on the shape the previous one checked.
  if (std::string d = successorsFollowTheRules(f, cfg); !d.empty())
    return d;
  if (std::string d = rpoIsADepthFirstOrder(cfg); !d.empty())
    return d;
  Dominance brute = bruteDominance(cfg);
  if (std::string d = idomCheck(cfg, dom, brute); !d.empty())
    return d;
  return loopsCheck(cfg, loops, brute);
}

} // namespace ori::checks
