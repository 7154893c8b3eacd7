// Phase 29 GeneralOptimize (spec/002 "Algorithm B"; docs/general-optimize.md),
// the reference way. For each block in the RPO computed at entry: find the
// first rewrite the rules allow in the block (instruction by instruction: its
// guard, its sources, then the simplifier), by scanning backwards from the
// instruction for what reaches it; apply it; look again from the start of
// the block, until nothing applies. Then remove, in sweeps with liveness
// recomputed before each, a copy whose value replaced a use (or a MOV the
// simplifier made a NOP) when nothing it writes is live after it.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "interp/evaluate.h"
#include "reference/reference.h"
#include "rules/general_optimize.h"
#include "rules/general_optimize_evaluate.h"

namespace ori::reference {
namespace {

struct State {
  std::map<std::pair<uint32_t, size_t>, FoldMark> marks; // by (bix, index)
  std::set<std::pair<uint32_t, size_t>> nops;            // MOVs made NOPs
  GeneralOptimizeCounts counts;
};

class Rules {
public:
  Rules(Function &f, const CfgFacts &cfg, const GeneralOptimizeOptions &opt)
      : f(f), cfg(cfg), opt(opt) {
    for (Reg r : alwaysZeroExtended(f, computeLiveness(f, cfg).uninitialized))
      always.insert(r);
  }

  // The copy that reaches use `r` at instruction i of block b: its value and index.
  std::optional<std::pair<Operand, size_t>> reachingCopy(uint32_t b, size_t i, Reg r,
                                                         bool &predicate) const {
    const auto &instrs = f.blocks[b].instrs;
    const auto j = lastWriteBefore(instrs, i, r);
    if (!j)
      return std::nullopt;
    const Instr &c = instrs[*j];
    if (c.dsts.empty() || c.dsts[0].kind != Operand::Kind::Reg || c.dsts[0].reg != r)
      return std::nullopt;
    bool zext = false;
    if (c.op == Opcode::MOV && !c.srcs.empty() && c.srcs[0].kind == Operand::Kind::Reg) {
      const auto s = lastWriteBefore(instrs, *j, c.srcs[0].reg);
      zext = (s && writesZeroExtended32(instrs[*s])) || always.count(c.srcs[0].reg);
    }
    std::optional<Operand> value = copySource(c, zext);
    predicate = false;
    if (!value && opt.predicateMarking) {
      value = predicateCopySource(c);
      predicate = value.has_value();
    }
    if (!value)
      return std::nullopt;
    // The value must still be what it was: its register not written since.
    if (const auto read = value->regRead(); read && !read->isConst())
      for (size_t k = *j + 1; k < i; ++k)
        if (writesRegister(instrs[k], *read))
          return std::nullopt;
    return std::make_pair(*value, *j);
  }

  std::optional<bool> knownPredicate(uint32_t b, size_t i, const Operand &p) const {
    if (p.kind != Operand::Kind::Reg || !p.reg.isPredicate())
      return std::nullopt;
    if (p.reg.isConst())
      return !p.neg;
    auto classify = [&](const Instr &def) { return predicateValueAfter(def, p); };
    const auto &instrs = f.blocks[b].instrs;
    if (const auto j = lastWriteBefore(instrs, i, p.reg))
      return classify(instrs[*j]);
    uint32_t q = b;
    for (uint32_t depth = 0; depth < kPredicateScanDepth; ++depth) {
      if (cfg.preds[q].size() != 1)
        return std::nullopt;
      q = cfg.preds[q][0];
      if (q == b)
        return std::nullopt;
      const auto &qi = f.blocks[q].instrs;
      if (const auto j = lastWriteBefore(qi, qi.size(), p.reg))
        return classify(qi[*j]);
    }
    return std::nullopt;
  }

  // Applies the first rewrite block b allows; false if there is none.
  bool rewriteOnce(uint32_t b, State &st) {
    auto &instrs = f.blocks[b].instrs;
    for (size_t i = 0; i < instrs.size(); ++i) {
      Instr &in = instrs[i];
      for (int k = -1; k < int(in.srcs.size()); ++k) {
        if (k < 0 && !in.guard)
          continue;
        Operand &use = k < 0 ? *in.guard : in.srcs[size_t(k)];
        if (use.kind != Operand::Kind::Reg || use.reg.isConst())
          continue;
        bool predicate = false;
        const auto copy = reachingCopy(b, i, use.reg, predicate);
        if (!copy || !mayReplaceUse(in, k, use.reg, copy->first, opt))
          continue;
        use = replacedUse(use, copy->first);
        FoldMark &m = mark(st, b, copy->second);
        m.mask |= predicate ? kFoldUnderPredicate : kFoldPropagated;
        ++m.uses;
        ++st.counts.usesReplaced;
        return true;
      }
      if (selectEligible(in, opt)) {
        if (auto mov = selectAsCopy(in, knownPredicate(b, i, in.srcs[2]))) {
          in = *mov;
          mark(st, b, i).mask |= kFoldDeferred;
          ++st.counts.selectsToCopies;
          return true;
        }
      } else if (in.op == Opcode::MOV && in.isGuarded()) {
        if (const auto known = knownPredicate(b, i, *in.guard)) {
          if (*known) {
            in.guard.reset();
          } else {
            in = Instr{};
            st.nops.insert({b, i});
          }
          mark(st, b, i).mask |= kFoldUnderPredicate;
          ++st.counts.guardsResolved;
          return true;
        }
      }
      if (opt.evaluate && evaluateAt(b, i, st))
        return true;
    }
    return false;
  }

  // --fold=evaluate (rules/general_optimize_evaluate.h): instruction i of block b
  // rewritten with what is known of its sources (the immediate or RZ of the copy
  // that reaches a register, a known predicate); a copy whose value the rewrite
  // used and no longer reads has one use more, as a propagated copy.
  bool evaluateAt(uint32_t b, size_t i, State &st) {
    Instr &in = f.blocks[b].instrs[i];
    std::vector<std::optional<Operand>> known(in.srcs.size());
    std::vector<std::optional<size_t>> from(in.srcs.size());
    for (size_t k = 0; k < in.srcs.size(); ++k) {
      const Operand &s = in.srcs[k];
      if (s.kind != Operand::Kind::Reg || s.reg.isConst())
        continue;
      if (s.reg.isPredicate()) {
        if (const auto p = knownPredicate(b, i, Operand::reg_(s.reg)))
          known[k] = Operand::reg_(PT, !*p);
        continue;
      }
      bool predicate = false;
      const auto c = reachingCopy(b, i, s.reg, predicate);
      if (c && (c->first.kind == Operand::Kind::Imm ||
                (c->first.kind == Operand::Kind::Reg && c->first.reg.isConst()))) {
        known[k] = c->first;
        from[k] = c->second;
      }
    }
    auto rw = evaluateRewrite(in, known);
    if (!rw)
      return false;
    in = std::move(rw->instr);
    for (size_t k : rw->consumed)
      if (from[k]) {
        FoldMark &m = mark(st, b, *from[k]);
        m.mask |= kFoldPropagated;
        ++m.uses;
      }
    ++st.counts.evaluated;
    return true;
  }

  static FoldMark &mark(State &st, uint32_t b, size_t i) {
    FoldMark &m = st.marks[{b, i}];
    m.bix = b;
    m.index = uint32_t(i);
    return m;
  }

  Function &f;
  const CfgFacts &cfg;
  const GeneralOptimizeOptions &opt;
  std::set<Reg> always; // alwaysZeroExtended at entry
};

} // namespace

namespace {

// One round: every block's rewrites to their fixed point, then the DCE.
GeneralOptimizeResult oneRound(Function &f, const GeneralOptimizeOptions &opt) {
  GeneralOptimizeResult result;
  const CfgFacts cfg = computeCfg(f);
  State st;
  Rules rules(f, cfg, opt);
  for (uint32_t b : cfg.rpo)
    while (rules.rewriteOnce(b, st)) {
    }
  for (const auto &[at, m] : st.marks)
    result.marks.push_back(m);
  std::set<std::pair<uint32_t, size_t>> candidates = st.nops;
  for (const auto &[at, m] : st.marks)
    if (m.uses > 0)
      candidates.insert(at);
  st.counts.removed = removeDeadCandidates(f, std::move(candidates));
  if (st.counts.removed)
    dropEmptyUnlabelledBlocks(f);
  result.counts = st.counts;
  return result;
}

} // namespace

GeneralOptimizeResult generalOptimize(Function &f, const GeneralOptimizeOptions &opt) {
  GeneralOptimizeResult total;
  if (f.blocks.empty())
    return total;
  for (uint32_t round = 1; round <= kGeneralOptimizeRounds; ++round) {
    const GeneralOptimizeResult one = oneRound(f, opt);
    addRound(total, one, round);
    const GeneralOptimizeCounts &c = one.counts;
    if (c.usesReplaced + c.selectsToCopies + c.guardsResolved + c.removed + c.evaluated == 0)
      break;
  }
  return total;
}

namespace {

// The candidates with nothing they write live just after them, under the
// liveness of `f` as it is (each block walked backwards from its live-out; a
// removed candidate's reads are not added, so a chain inside a block goes at
// once).
std::set<std::pair<uint32_t, size_t>>
deadCandidates(const Function &f, const std::set<std::pair<uint32_t, size_t>> &candidates) {
  const LivenessFacts live = computeLiveness(f, computeCfg(f));
  std::set<std::pair<uint32_t, size_t>> dead;
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    std::set<Reg> liveNow(live.liveOut[b].begin(), live.liveOut[b].end());
    const auto &instrs = f.blocks[b].instrs;
    for (size_t i = instrs.size(); i-- > 0;) {
      const Instr &in = instrs[i];
      bool anyLive = false;
      for (Reg d : in.defs())
        anyLive = anyLive || liveNow.count(d);
      if (!anyLive && candidates.count({b, i})) {
        dead.insert({b, i});
        continue;
      }
      if (!in.isGuarded())
        for (Reg d : in.defs())
          liveNow.erase(d);
      for (Reg u : in.uses())
        liveNow.insert(u);
    }
  }
  return dead;
}

} // namespace

// Removing an instruction whose results are dead only takes reads away, so it
// never makes another candidate live: the candidates removed in the end are
// the same whatever the order, and each sweep may take every dead one at once.
// Sweeps repeat, with liveness recomputed, until one removes nothing (a removal
// can make a candidate in a predecessor block dead).
uint32_t removeDeadCandidates(Function &f, std::set<std::pair<uint32_t, size_t>> candidates) {
  uint32_t removed = 0;
  for (;;) {
    const std::set<std::pair<uint32_t, size_t>> dead = deadCandidates(f, candidates);
    if (dead.empty())
      return removed;
    for (auto it = dead.rbegin(); it != dead.rend();
         ++it) { // last first: indices before stay valid
      auto &instrs = f.blocks[it->first].instrs;
      instrs.erase(instrs.begin() + std::ptrdiff_t(it->second));
    }
    // The remaining candidates move up by the number of removals before them in their block.
    std::set<std::pair<uint32_t, size_t>> moved;
    for (auto [b, i] : candidates) {
      if (dead.count({b, i}))
        continue;
      const size_t before =
          size_t(std::distance(dead.lower_bound({b, 0}), dead.lower_bound({b, i})));
      moved.insert({b, i - before});
    }
    candidates = std::move(moved);
    removed += uint32_t(dead.size());
  }
}

} // namespace ori::reference
