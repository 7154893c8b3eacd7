// Liveness checks (fuzz/liveness_checks.h).
#include "fuzz/liveness_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <vector>

#include "optimized/optimized.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori::checks {
namespace {

// The function's instructions with their uses and surely-written defs
// (unguarded instructions only), computed once.
struct Effects {
  std::vector<std::vector<std::vector<Reg>>> uses, kills, defs; // [block][instr]
  std::vector<Reg> universe;                                    // every register mentioned, sorted
};

Effects effectsOf(const Function &f) {
  Effects e;
  std::set<Reg> all;
  for (const Block &b : f.blocks) {
    auto &u = e.uses.emplace_back();
    auto &k = e.kills.emplace_back();
    auto &d = e.defs.emplace_back();
    for (const Instr &in : b.instrs) {
      u.push_back(in.uses());
      d.push_back(in.defs());
      k.push_back(in.isGuarded() ? std::vector<Reg>{} : in.defs());
      all.insert(u.back().begin(), u.back().end());
      all.insert(d.back().begin(), d.back().end());
    }
  }
  e.universe.assign(all.begin(), all.end());
  return e;
}

bool contains(const std::vector<Reg> &v, Reg r) {
  return std::find(v.begin(), v.end(), r) != v.end();
}

// Is r live before instruction i of block b (i == size: at the block's end)?
bool liveAt(const Effects &e, const CfgFacts &cfg, uint32_t b, size_t i, Reg r) {
  std::vector<bool> entered(cfg.succs.size(), false);
  std::vector<std::pair<uint32_t, size_t>> work{{b, i}};
  while (!work.empty()) {
    auto [x, k] = work.back();
    work.pop_back();
    bool killed = false;
    for (; k < e.uses[x].size() && !killed; ++k) {
      if (contains(e.uses[x][k], r))
        return true;
      killed = contains(e.kills[x][k], r);
    }
    if (killed)
      continue;
    for (uint32_t s : cfg.succs[x])
      if (!entered[s]) {
        entered[s] = true;
        work.emplace_back(s, 0);
      }
  }
  return false;
}

} // namespace

std::string livenessHalvesAgree([[maybe_unused]] const Function &f) {
#if defined(ORIOPT_HAVE_REFERENCE)
  CfgFacts cfg = optimized::computeCfg(f);
  LivenessFacts r = reference::computeLiveness(f, cfg), o = optimized::computeLiveness(f, cfg);
  if (!(r == o))
    return "LivenessFacts: " + firstDifference(r, o);
#endif
  return "";
}

std::string livenessMatchesDefinition(const Function &f) {
  const CfgFacts cfg = optimized::computeCfg(f);
  const LivenessFacts got = optimized::computeLiveness(f, cfg);
  const Effects e = effectsOf(f);
  const uint32_t n = uint32_t(f.blocks.size());
  LivenessFacts want;
  auto liveSet = [&](uint32_t b, size_t i) {
    std::vector<Reg> s;
    for (Reg r : e.universe)
      if (liveAt(e, cfg, b, i, r))
        s.push_back(r);
    return s;
  };
  for (uint32_t b = 0; b < n; ++b) {
    const size_t size = e.uses[b].size();
    want.liveIn.push_back(liveSet(b, 0));
    want.liveOut.push_back(liveSet(b, size));
    RegCounts best{};
    auto raise = [&](std::vector<Reg> s, const std::vector<Reg> &extra) {
      for (Reg r : extra)
        if (!contains(s, r))
          s.push_back(r);
      RegCounts c{};
      for (Reg r : s)
        ++c[size_t(r.file)];
      for (size_t k = 0; k < c.size(); ++k)
        best[k] = std::max(best[k], c[k]);
    };
    raise(want.liveIn.back(), {});
    for (size_t i = 0; i < size; ++i)
      raise(i + 1 == size ? want.liveOut.back() : liveSet(b, i + 1), e.defs[b][i]);
    want.pressure.push_back(best);
    for (size_t k = 0; k < best.size(); ++k)
      want.maxPressure[k] = std::max(want.maxPressure[k], best[k]);
  }
  if (n)
    want.uninitialized = want.liveIn[0];
  if (!(want == got))
    return "liveness: definition (as reference) vs optimized: " + firstDifference(want, got);
  return "";
}

std::string livenessDiff(const Function &f) {
  for (std::string d : {livenessHalvesAgree(f), livenessMatchesDefinition(f)})
    if (!d.empty())
      return d;
  return "";
}

} // namespace ori::checks
