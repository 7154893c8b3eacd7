// Phase 29 GeneralOptimize (spec/002 "Algorithm B: Forward Walk with Flag
// Marking"; docs/general-optimize.md), the optimized way: one forward walk
// per block with the available copies in flat per-register arrays (registers
// numbered densely at entry, a walk stamp instead of clearing them, a version
// per register so that a copy dies when its source is written; the registers
// always zero-extended found once at entry), walked again
// until a walk changes nothing; then the liveness-gated local DCE in rounds
// of one backward pass each. Both ask liveness of a few registers only (the
// copies' destinations; registers live into the entry), so they use
// SubsetLiveness, not computeLiveness's blocks x registers bits.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "interp/evaluate.h"
#include "ir/general_optimize.h"
#include "ir/general_optimize_evaluate.h"
#include "optimized/liveness_subset.h"
#include "optimized/optimized.h"

namespace ori::optimized {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

class GeneralOptimizer {
public:
  GeneralOptimizer(Function& f, const GeneralOptimizeOptions& opt) : f_(f), opt_(opt), cfg_(computeCfg(f)) {
    // Registers every write of which zero-extends, less those read before written
    // (computeLiveness's `uninitialized`, asked of these registers only).
    const std::vector<Reg> zext = alwaysZeroExtended(f, {});
    const SubsetLiveness live(f, cfg_, zext);
    for (Reg r : zext) {
      if (live.liveIntoEntry(uint32_t(live.index(r)))) continue;
      const uint32_t i = id(r);
      if (always_.size() <= i) always_.resize(i + 1, 0);
      always_[i] = 1;
    }
    mask_.resize(f.blocks.size());
    uses_.resize(f.blocks.size());
    ours_.resize(f.blocks.size());
    for (size_t b = 0; b < f.blocks.size(); ++b) {
      mask_[b].assign(f.blocks[b].instrs.size(), 0);
      uses_[b].assign(f.blocks[b].instrs.size(), 0);
      ours_[b].assign(f.blocks[b].instrs.size(), 0);
    }
  }

  GeneralOptimizeResult run() {
    GeneralOptimizeResult result;
    for (uint32_t b : cfg_.rpo)
      while (walk(b)) {
      }
    for (uint32_t b = 0; b < f_.blocks.size(); ++b)
      for (uint32_t i = 0; i < mask_[b].size(); ++i)
        if (mask_[b][i]) result.marks.push_back(FoldMark{b, i, 0, mask_[b][i], uses_[b][i]});
    std::vector<std::vector<uint8_t>> candidates(f_.blocks.size());
    for (size_t b = 0; b < f_.blocks.size(); ++b) {
      candidates[b].resize(f_.blocks[b].instrs.size());
      for (size_t i = 0; i < candidates[b].size(); ++i) candidates[b][i] = ours_[b][i] || uses_[b][i] > 0;
    }
    counts_.removed = removeDeadCandidates(f_, std::move(candidates));
    if (counts_.removed) dropEmptyUnlabelledBlocks(f_);
    result.counts = counts_;
    return result;
  }

private:
  struct Avail {
    Operand value;
    uint32_t copy = 0;          // index of the copy in the block
    uint32_t source = kNone;    // the register the value reads (dense id), if any
    uint32_t sourceVersion = 0; // its version when the copy ran
    bool predicate = false;
  };

  uint32_t id(Reg r) {
    const uint64_t key = uint64_t(r.file) << 32 | r.num;
    auto [it, inserted] = ids_.try_emplace(key, uint32_t(ids_.size()));
    if (inserted) {
      avail_.emplace_back();
      availStamp_.push_back(0);
      version_.push_back(0);
      zextStamp_.push_back(0);
      zext_.push_back(0);
      defStamp_.push_back(0);
      lastDef_.push_back(0);
    }
    return it->second;
  }

  // The value of predicate operand p just before instruction i of block b:
  // its last definition in b (forward), else in the chain of single
  // predecessors (backward, kPredicateScanDepth blocks), when that is a PLOP3
  // with a constant first result.
  std::optional<bool> knownPredicate(uint32_t b, const Operand& p) {
    if (p.kind != Operand::Kind::Reg || !p.reg.isPredicate()) return std::nullopt;
    if (p.reg.isConst()) return !p.neg;
    auto classify = [&](const Instr& def) -> std::optional<bool> {
      if (def.dsts.empty() || def.dsts[0].kind != Operand::Kind::Reg || def.dsts[0].reg != p.reg) return std::nullopt;
      const auto c = plop3ConstantResult(def);
      if (!c) return std::nullopt;
      return *c != p.neg;
    };
    const uint32_t r = id(p.reg);
    if (defStamp_[r] == stamp_) return classify(f_.blocks[b].instrs[lastDef_[r]]);
    uint32_t q = b;
    for (uint32_t depth = 0; depth < kPredicateScanDepth; ++depth) {
      if (cfg_.preds[q].size() != 1) return std::nullopt;
      q = cfg_.preds[q][0];
      if (q == b) return std::nullopt;
      const auto& instrs = f_.blocks[q].instrs;
      for (size_t i = instrs.size(); i-- > 0;)
        if (writesRegister(instrs[i], p.reg)) return classify(instrs[i]);
    }
    return std::nullopt;
  }

  void trySubstitute(uint32_t b, Instr& in, int k, bool& changed) {
    Operand& use = k < 0 ? *in.guard : in.srcs[size_t(k)];
    if (use.kind != Operand::Kind::Reg || use.reg.isConst()) return;
    const uint32_t r = id(use.reg);
    if (availStamp_[r] != stamp_) return;
    const Avail& a = avail_[r];
    if (a.source != kNone && version_[a.source] != a.sourceVersion) return;
    if (!mayReplaceUse(in, k, use.reg, a.value, opt_)) return;
    use = replacedUse(use, a.value);
    mask_[b][a.copy] |= a.predicate ? kFoldUnderPredicate : kFoldPropagated;
    ++uses_[b][a.copy];
    ++counts_.usesReplaced;
    changed = true;
  }

  // --fold=evaluate (ir/general_optimize_evaluate.h): `in` rewritten with what
  // is known of its sources (an available copy's immediate or RZ, a known
  // predicate); a copy whose value the rewrite used and no longer reads counts a use.
  bool evaluate(uint32_t b, Instr& in) {
    std::vector<std::optional<Operand>> known(in.srcs.size());
    std::vector<uint32_t> from(in.srcs.size(), kNone);
    for (size_t k = 0; k < in.srcs.size(); ++k) {
      const Operand& s = in.srcs[k];
      if (s.kind != Operand::Kind::Reg || s.reg.isConst()) continue;
      if (s.reg.isPredicate()) {
        if (const auto p = knownPredicate(b, Operand::reg_(s.reg))) known[k] = Operand::reg_(PT, !*p);
        continue;
      }
      const uint32_t r = id(s.reg);
      if (availStamp_[r] != stamp_) continue;
      const Avail& a = avail_[r];
      if (a.source != kNone && version_[a.source] != a.sourceVersion) continue;
      if (a.predicate) continue;
      if (a.value.kind == Operand::Kind::Imm || (a.value.kind == Operand::Kind::Reg && a.value.reg.isConst())) {
        known[k] = a.value;
        from[k] = a.copy;
      }
    }
    auto rw = evaluateRewrite(in, known, evaluateConstant);
    if (!rw) return false;
    in = std::move(rw->instr);
    for (size_t k : rw->consumed)
      if (from[k] != kNone) {
        mask_[b][from[k]] |= kFoldPropagated;
        ++uses_[b][from[k]];
      }
    ++counts_.evaluated;
    return true;
  }

  bool walk(uint32_t b) {
    ++stamp_;
    bool changed = false;
    auto& instrs = f_.blocks[b].instrs;
    for (uint32_t i = 0; i < instrs.size(); ++i) {
      Instr& in = instrs[i];
      // Uses first (the guard, then the sources), then the predicate simplifier; a
      // simplified instruction's uses are looked at again (the reference's restart
      // reaches them before anything after them).
      for (bool simplified = true; simplified;) {
        simplified = false;
        if (in.guard) trySubstitute(b, in, -1, changed);
        for (size_t k = 0; k < in.srcs.size(); ++k) trySubstitute(b, in, int(k), changed);
        if (selectEligible(in, opt_)) {
          if (auto mov = selectAsCopy(in, knownPredicate(b, in.srcs[2]))) {
            in = std::move(*mov);
            mask_[b][i] |= kFoldDeferred;
            ++counts_.selectsToCopies;
            changed = simplified = true;
          }
        } else if (in.op == Opcode::MOV && in.isGuarded()) {
          if (const auto known = knownPredicate(b, *in.guard)) {
            if (*known) {
              in.guard.reset();
            } else {
              in = Instr{}; // a NOP until the DCE removes it
              ours_[b][i] = 1;
            }
            mask_[b][i] |= kFoldUnderPredicate;
            ++counts_.guardsResolved;
            changed = simplified = true;
          }
        }
        if (!simplified && opt_.evaluate && evaluate(b, in)) changed = simplified = true;
      }
      // The copy this instruction makes, judged before its own writes.
      bool sourceZext = false;
      if (in.op == Opcode::MOV && !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Reg &&
          !in.srcs[0].reg.isConst()) {
        const uint32_t s = id(in.srcs[0].reg);
        sourceZext = (zextStamp_[s] == stamp_ && zext_[s]) || (s < always_.size() && always_[s]);
      }
      std::optional<Operand> value = copySource(in, sourceZext);
      bool predicate = false;
      if (!value && opt_.predicateMarking) {
        value = predicateCopySource(in);
        predicate = value.has_value();
      }
      const bool zext = writesZeroExtended32(in);
      forEachDef(in, [&](Reg d) {
        const uint32_t r = id(d);
        ++version_[r];
        availStamp_[r] = 0;
        zextStamp_[r] = stamp_;
        zext_[r] = zext;
        defStamp_[r] = stamp_;
        lastDef_[r] = i;
      });
      if (value) {
        Avail a;
        a.value = *value;
        a.copy = i;
        a.predicate = predicate;
        std::optional<Reg> read = value->regRead();
        if (read && !read->isConst()) {
          a.source = id(*read);
          a.sourceVersion = version_[a.source];
        }
        const uint32_t r = id(in.dsts[0].reg);
        avail_[r] = std::move(a);
        availStamp_[r] = stamp_;
      }
    }
    return changed;
  }

  Function& f_;
  const GeneralOptimizeOptions& opt_;
  CfgFacts cfg_;
  std::unordered_map<uint64_t, uint32_t> ids_;
  std::vector<Avail> avail_;
  std::vector<uint32_t> availStamp_, version_, zextStamp_, defStamp_, lastDef_;
  std::vector<uint8_t> zext_, always_; // always_: alwaysZeroExtended, by dense id
  uint32_t stamp_ = 0;
  std::vector<std::vector<uint16_t>> mask_;
  std::vector<std::vector<uint32_t>> uses_;
  std::vector<std::vector<uint8_t>> ours_;
  GeneralOptimizeCounts counts_;
};

} // namespace

uint32_t removeDeadCandidates(Function& f, std::vector<std::vector<uint8_t>> candidates) {
  // Only the registers the candidates write decide whether one is dead.
  std::vector<Reg> written;
  bool any = false;
  for (size_t b = 0; b < candidates.size(); ++b)
    for (size_t i = 0; i < candidates[b].size(); ++i)
      if (candidates[b][i]) {
        any = true;
        forEachDef(f.blocks[b].instrs[i], [&](Reg r) { written.push_back(r); });
      }
  if (!any) return 0; // no liveness to solve
  CfgFacts cfg = computeCfg(f);
  std::vector<uint32_t> liveStamp;
  uint32_t stamp = 0, total = 0;
  for (;;) {
    const SubsetLiveness live(f, cfg, written);
    liveStamp.resize(live.size(), 0);
    uint32_t removed = 0;
    bool controlRemoved = false, readAsked = false;
    for (uint32_t b = 0; b < f.blocks.size(); ++b) {
      ++stamp;
      for (uint32_t r : live.liveOut(b)) liveStamp[r] = stamp;
      auto& instrs = f.blocks[b].instrs;
      uint32_t dead = 0;
      for (size_t i = instrs.size(); i-- > 0;) {
        const Instr& in = instrs[i];
        bool anyLive = false;
        forEachDef(in, [&](Reg d) {
          const int32_t r = live.index(d);
          anyLive = anyLive || (r >= 0 && liveStamp[r] == stamp);
        });
        if (candidates[b][i] && !anyLive) {
          candidates[b][i] = 2; // removed below, after the walk
          controlRemoved = controlRemoved || in.info().is(CONTROL);
          forEachUse(in, [&](Reg u) { readAsked = readAsked || live.index(u) >= 0; });
          ++dead;
          continue;
        }
        if (!in.isGuarded())
          forEachDef(in, [&](Reg d) {
            if (const int32_t r = live.index(d); r >= 0) liveStamp[r] = 0;
          });
        forEachUse(in, [&](Reg u) {
          if (const int32_t r = live.index(u); r >= 0) liveStamp[r] = stamp;
        });
      }
      if (dead) { // one compaction per block, not an erase per instruction
        size_t kept = 0;
        for (size_t i = 0; i < instrs.size(); ++i)
          if (candidates[b][i] != 2) {
            if (kept != i) instrs[kept] = std::move(instrs[i]), candidates[b][kept] = candidates[b][i];
            ++kept;
          }
        instrs.resize(kept);
        candidates[b].resize(kept);
        removed += dead;
      }
    }
    total += removed;
    // Removing an instruction whose results are dead changes the liveness of
    // the candidates' registers only through what it read: when it read none
    // of them, another sweep would decide exactly as this one did.
    if (!removed || !readAsked) return total;
    if (controlRemoved) cfg = computeCfg(f);
  }
}

GeneralOptimizeResult generalOptimize(Function& f, const GeneralOptimizeOptions& opt) {
  GeneralOptimizeResult total;
  if (f.blocks.empty()) return total;
  for (uint32_t round = 1; round <= kGeneralOptimizeRounds; ++round) {
    const GeneralOptimizeResult one = GeneralOptimizer(f, opt).run();
    addRound(total, one, round);
    const GeneralOptimizeCounts& c = one.counts;
    if (c.usesReplaced + c.selectsToCopies + c.guardsResolved + c.removed + c.evaluated == 0) break;
  }
  return total;
}

} // namespace ori::optimized
