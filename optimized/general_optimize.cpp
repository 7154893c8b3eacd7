// Phase 29 GeneralOptimize (spec/002 "Algorithm B: Forward Walk with Flag
// Marking"; docs/general-optimize.md), the optimized way: one forward walk
// per block with the available copies in flat per-register arrays (registers
// numbered densely at entry, a walk stamp instead of clearing them, a version
// per register so that a copy dies when its source is written; the registers
// always zero-extended found once at entry), each instruction rewritten
// until nothing applies to it; then the liveness-gated local DCE in rounds
// of one backward pass each. Both ask liveness of a few registers only (the
// copies' destinations; registers live into the entry), so they use
// SubsetLiveness, not computeLiveness's blocks x registers bits.
//
// The instructions are read as little as possible (on a big function every
// look at one is a cache miss): the registers of every instruction are read
// once into a flat FunctionRegs (optimized/reg_index.h) that the walks keep
// up to date when they rewrite an instruction, and that the DCE, the
// zero-extension analysis, the next round and the walks themselves read
// instead; a walk skips, from it alone, an instruction that is no copy or
// select and that no copy reaches. A round that changes no control flow
// hands its CFG to the next.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "interp/evaluate.h"
#include "ir/inline_vector.h"
#include "optimized/liveness_subset.h"
#include "optimized/optimized.h"
#include "rules/general_optimize.h"
#include "rules/general_optimize_evaluate.h"

namespace ori::optimized {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

// Bits of InstrRegs::passBits: every write of the instruction zero-extends
// (writesZeroExtended32 with guarded writes too: alwaysZeroExtended's input);
// the walk must look at it whatever its uses (a MOV, SEL or PLOP3: a copy or
// a select the predicate simplifier may rewrite).
constexpr uint8_t kZeroExtends = 1, kLook = 2;

uint8_t passBits(const Instr &in) {
  const bool look = in.op == Opcode::MOV || in.op == Opcode::SEL || in.op == Opcode::PLOP3;
  return uint8_t((writesZeroExtended32(in, true) ? kZeroExtends : 0) | (look ? kLook : 0));
}

FunctionRegs scanRegs(const Function &f) {
  return functionRegs(f, [](const Instr &in, InstrRegs &r) { r.passBits = passBits(in); });
}

// regs, which described f before dropEmptyUnlabelledBlocks, made to describe
// it after: the dropped blocks were empty, so the other blocks' entries keep
// their order and a block's entry is the next one of its length. False when
// they do not line up (regs must be built again).
bool followDroppedBlocks(FunctionRegs &regs, const Function &f) {
  size_t old = 0;
  for (size_t b = 0; b < f.blocks.size(); ++b, ++old) {
    while (old < regs.blocks.size() && regs.blocks[old].size() != f.blocks[b].instrs.size() &&
           regs.blocks[old].empty())
      ++old;
    if (old == regs.blocks.size() || regs.blocks[old].size() != f.blocks[b].instrs.size())
      return false;
    if (old != b)
      regs.blocks[b] = std::move(regs.blocks[old]);
  }
  regs.blocks.resize(f.blocks.size());
  return true;
}

bool sameShape(const FunctionRegs &regs, const Function &f) {
  if (regs.blocks.size() != f.blocks.size())
    return false;
  for (size_t b = 0; b < f.blocks.size(); ++b)
    if (regs.blocks[b].size() != f.blocks[b].instrs.size())
      return false;
  return true;
}

// alwaysZeroExtended (rules/general_optimize.h) by dense id: general registers
// every write of which zero-extends (guarded writes too), less those read
// before written (computeLiveness's `uninitialized`, asked of these registers
// only). Of the ids in `asked` (ascending) only, or of every register when null.
std::vector<uint8_t> alwaysZeroExtendedIds(const FunctionRegs &regs, const CfgFacts &cfg,
                                           const std::vector<uint32_t> *asked) {
  const uint32_t regCount = regs.index.size();
  std::vector<uint8_t> wanted(regCount, asked ? 0 : 1), written(regCount, 0), every(regCount, 1);
  if (asked)
    for (uint32_t r : *asked)
      wanted[r] = 1;
  for (const auto &block : regs.blocks)
    for (const InstrRegs &in : block) {
      const uint32_t *defs = regs.defs(in);
      for (uint32_t d = 0; d < in.defs; ++d) {
        written[defs[d]] = 1;
        every[defs[d]] &= in.passBits & kZeroExtends;
      }
    }
  std::vector<uint32_t> zext;
  for (uint32_t i = 0; i < regCount; ++i)
    if (wanted[i] && written[i] && every[i] && regs.index.reg(i).isGeneral())
      zext.push_back(i);
  std::vector<uint8_t> always(regCount, 0);
  if (zext.empty())
    return always;
  const SubsetLiveness live(regs, cfg, zext, /*entryOnly=*/true);
  for (uint32_t k = 0; k < zext.size(); ++k)
    if (!live.liveIntoEntry(k))
      always[zext[k]] = 1;
  return always;
}

// One round. `regs` describes f at entry (scanRegs) and is kept describing it
// (the walks refresh the entries of what they rewrite; the DCE compacts them),
// so that the DCE and the next round need not read the IR again; stale() says
// when that could not be done.
class GeneralOptimizer {
public:
  GeneralOptimizer(Function &f, const GeneralOptimizeOptions &opt, FunctionRegs &regs,
                   const CfgFacts &cfg)
      : f_(f), opt_(opt), cfg_(cfg), regs_(regs) {
    start_.reserve(regs_.blocks.size() + 1);
    uint32_t count = 0;
    for (const auto &block : regs_.blocks) {
      start_.push_back(count);
      count += uint32_t(block.size());
    }
    start_.push_back(count);
    predicateDefs_.resize(regs_.blocks.size());
    predicateDefsKnown_.assign(regs_.blocks.size(), 0);
    mask_.assign(count, 0);
    uses_.assign(count, 0);
    ours_.assign(count, 0);
    always_ = alwaysZeroExtendedIds(regs_, cfg_, nullptr);
    grow(regs_.index.size());
  }

  bool stale() const { return stale_; }
  // Whether the next round would change nothing, known without running it
  // (run() decides; see confirmationNeedless).
  bool nextRoundNeedless() const { return nextRoundNeedless_; }
  // Whether the CFG given at entry is still the function's.
  bool cfgKept() const { return cfgKept_; }

  GeneralOptimizeResult run() {
    GeneralOptimizeResult result;
    for (uint32_t b : cfg_.rpo)
      walk(b);
    std::vector<uint8_t> candidates(mask_.size());
    for (uint32_t b = 0; b < f_.blocks.size(); ++b)
      for (uint32_t i = start_[b]; i < start_[b + 1]; ++i) {
        if (mask_[i])
          result.marks.push_back(FoldMark{b, i - start_[b], 0, mask_[i], uses_[i]});
        candidates[i] = ours_[i] || uses_[i] > 0;
      }
    // The walks rewrite instructions in place; the CFG is still the one computed
    // at entry unless one of them touched a control instruction.
    stale_ = stale_ || !sameShape(regs_, f_);
    bool controlCandidate = stale_; // not known then
    for (size_t b = 0, at = 0; !stale_ && b < regs_.blocks.size(); ++b)
      for (const InstrRegs &in : regs_.blocks[b])
        controlCandidate = controlCandidate || (candidates[at++] && in.control);
    std::vector<uint8_t> readsRemovedWrite; // asked only where confirmationNeedless may use it
    const bool mayConfirm = !stale_ && !controlTouched_ && !opt_.evaluate;
    counts_.removed =
        removeDeadCandidates(f_, std::move(candidates), controlTouched_ ? nullptr : &cfg_,
                             stale_ ? nullptr : &regs_, mayConfirm ? &readsRemovedWrite : nullptr);
    bool dropped = false;
    if (counts_.removed && dropEmptyUnlabelledBlocks(f_)) {
      dropped = true;
      stale_ = stale_ || !followDroppedBlocks(regs_, f_);
    }
    cfgKept_ = !controlTouched_ && !(counts_.removed && controlCandidate) && !dropped;
    nextRoundNeedless_ = confirmationNeedless(readsRemovedWrite);
    result.counts = counts_;
    return result;
  }

private:
  // Every block in the RPO was walked to its fixed point; the next round
  // would walk them again from the same state, and so change nothing, if
  // what a walk of block b reads is as it was at b's walk:
  // - b's instructions: the DCE only removed some. A removed instruction X
  //   wrote nothing live after it, so no later instruction of b reads what X
  //   wrote before it is written again: X's writes ended no copy into their
  //   register that a use could take, nor decided a MOV's zero-extension or a
  //   predicate's last definition. They could have ended a copy *from* their
  //   register, if a kept instruction of b reads it (readsRemovedWrite, from
  //   removeDeadCandidates): then b may change.
  // - the predecessors' last predicate definitions (knownPredicate): one the
  //   DCE removed was not live out of its block, so no walk found it there.
  // - alwaysZeroExtended, of the registers a MOV of the walks asked it
  //   of (consulted_): asked again of those now.
  // - the CFG and the registers' numbering: kept (no control instruction
  //   touched or removed, no block dropped, regs_ not stale).
  // --fold=evaluate is left to run the round.
  bool confirmationNeedless(const std::vector<uint8_t> &readsRemovedWrite) {
    if (stale_ || !cfgKept_ || opt_.evaluate)
      return false; // cfgKept_: no control instruction touched
    if (std::find(readsRemovedWrite.begin(), readsRemovedWrite.end(), 1) != readsRemovedWrite.end())
      return false;
    if (consulted_.empty())
      return true;
    std::sort(consulted_.begin(), consulted_.end());
    consulted_.erase(std::unique(consulted_.begin(), consulted_.end()), consulted_.end());
    if (consulted_.back() >= regs_.index.size())
      return false; // a register the walks brought in
    const std::vector<uint8_t> now = alwaysZeroExtendedIds(regs_, cfg_, &consulted_);
    for (uint32_t r : consulted_)
      if (now[r] != always_[r])
        return false;
    return true;
  }

  struct Avail {
    Operand value;
    uint32_t copy = 0;          // index of the copy in the block
    uint32_t source = kNone;    // the register the value reads (dense id), if any
    uint32_t sourceVersion = 0; // its version when the copy ran
    bool predicate = false;
  };

  // The dense number of r: its RegIndex number; a register the walk brings in
  // that the function did not mention at entry (none of the rules makes one)
  // is numbered past them.
  uint32_t id(Reg r) {
    if (const int32_t i = regs_.index.index(r); i >= 0)
      return uint32_t(i);
    const uint64_t key = uint64_t(r.file) << 32 | r.num;
    auto [it, inserted] = extra_.try_emplace(key, uint32_t(regs_.index.size() + extra_.size()));
    if (inserted)
      grow(size_t(it->second) + 1);
    return it->second;
  }

  void grow(size_t n) {
    avail_.resize(n);
    availStamp_.resize(n, 0);
    version_.resize(n, 0);
    zextStamp_.resize(n, 0);
    zext_.resize(n, 0);
    defStamp_.resize(n, 0);
    lastDef_.resize(n, 0);
    always_.resize(n, 0);
  }

  // The value of predicate operand p just before instruction i of block b:
  // its last definition in b (forward), else in the chain of single
  // predecessors (backward, kPredicateScanDepth blocks), when that is a PLOP3
  // with a constant first result.
  std::optional<bool> knownPredicate(uint32_t b, const Operand &p) {
    if (p.kind != Operand::Kind::Reg || !p.reg.isPredicate())
      return std::nullopt;
    if (p.reg.isConst())
      return !p.neg;
    auto classify = [&](const Instr &def) { return predicateValueAfter(def, p); };
    const uint32_t r = id(p.reg);
    if (defStamp_[r] == stamp_)
      return classify(f_.blocks[b].instrs[lastDef_[r]]);
    uint32_t q = b;
    for (uint32_t depth = 0; depth < kPredicateScanDepth; ++depth) {
      if (cfg_.preds[q].size() != 1)
        return std::nullopt;
      q = cfg_.preds[q][0];
      if (q == b)
        return std::nullopt;
      const auto &instrs = f_.blocks[q].instrs;
      if (stale_) {
        for (size_t i = instrs.size(); i-- > 0;)
          if (writesRegister(instrs[i], p.reg))
            return classify(instrs[i]);
        continue;
      }
      for (const PredicateDef &d : predicateDefs(q)) // the same question, without a walk over q
        if (d.reg == r)
          return classify(instrs[d.last]);
    }
    return std::nullopt;
  }

  struct PredicateDef {
    uint32_t reg, last; // dense id, index of its last write in the block
  };
  // The last write of each predicate register in block b, as regs_ has it:
  // what knownPredicate's backward scan asks of a predecessor, in a list of a
  // few entries instead of a walk over the block. Made when first asked for,
  // and made again after a walk changes an instruction of b (no rule changes
  // which predicates an instruction writes today; the list stays exact if one does).
  const InlineVector<PredicateDef, 2> &predicateDefs(uint32_t b) {
    auto &list = predicateDefs_[b];
    if (predicateDefsKnown_[b])
      return list;
    predicateDefsKnown_[b] = 1;
    list.clear();
    const auto &block = regs_.blocks[b];
    for (uint32_t i = 0; i < block.size(); ++i) {
      const uint32_t *defs = regs_.defs(block[i]);
      for (uint32_t d = 0; d < block[i].defs; ++d) {
        if (!regs_.index.reg(defs[d]).isPredicate())
          continue;
        auto it = std::find_if(list.begin(), list.end(),
                               [&](const PredicateDef &e) { return e.reg == defs[d]; });
        if (it == list.end())
          list.push_back(PredicateDef{defs[d], i});
        else
          it->last = i;
      }
    }
    return list;
  }

  // Whether a copy into register r (dense id) reaches the current point of
  // the walk: made in this walk, neither r nor its source written since.
  bool available(uint32_t r) const {
    if (availStamp_[r] != stamp_)
      return false;
    const Avail &a = avail_[r];
    return a.source == kNone || version_[a.source] == a.sourceVersion;
  }

  bool trySubstitute(uint32_t b, Instr &in, int k) {
    Operand &use = k < 0 ? *in.guard : in.srcs[size_t(k)];
    if (use.kind != Operand::Kind::Reg || use.reg.isConst())
      return false;
    const uint32_t r = id(use.reg);
    if (!available(r))
      return false;
    const Avail &a = avail_[r];
    if (!mayReplaceUse(in, k, use.reg, a.value, opt_))
      return false;
    use = replacedUse(use, a.value);
    mask_[start_[b] + a.copy] |= a.predicate ? kFoldUnderPredicate : kFoldPropagated;
    ++uses_[start_[b] + a.copy];
    ++counts_.usesReplaced;
    return true;
  }

  // The first rewrite instruction i of b allows, in the reference's order
  // (its rewriteOnce): a use (the guard, then the sources) taking a copy's
  // value, the predicate simplifier, then --fold=evaluate. Applied; false if
  // there is none. A use may take a copy's value and then that value's copy.
  bool rewriteOnce(uint32_t b, uint32_t i, Instr &in) {
    if (in.guard && trySubstitute(b, in, -1))
      return true;
    for (size_t k = 0; k < in.srcs.size(); ++k)
      if (trySubstitute(b, in, int(k)))
        return true;
    if (selectEligible(in, opt_)) {
      if (auto mov = selectAsCopy(in, knownPredicate(b, in.srcs[2]))) {
        in = std::move(*mov);
        mask_[start_[b] + i] |= kFoldDeferred;
        ++counts_.selectsToCopies;
        return true;
      }
    } else if (in.op == Opcode::MOV && in.isGuarded()) {
      if (const auto known = knownPredicate(b, *in.guard)) {
        if (*known) {
          in.guard.reset();
        } else {
          in = Instr{}; // a NOP until the DCE removes it
          ours_[start_[b] + i] = 1;
        }
        mask_[start_[b] + i] |= kFoldUnderPredicate;
        ++counts_.guardsResolved;
        return true;
      }
    }
    return opt_.evaluate && evaluate(b, in);
  }

  // --fold=evaluate (rules/general_optimize_evaluate.h): `in` rewritten with what
  // is known of its sources (an available copy's immediate or RZ, a known
  // predicate); a copy whose value the rewrite used and no longer reads counts a use.
  bool evaluate(uint32_t b, Instr &in) {
    std::vector<std::optional<Operand>> known(in.srcs.size());
    std::vector<uint32_t> from(in.srcs.size(), kNone);
    for (size_t k = 0; k < in.srcs.size(); ++k) {
      const Operand &s = in.srcs[k];
      if (s.kind != Operand::Kind::Reg || s.reg.isConst())
        continue;
      if (s.reg.isPredicate()) {
        if (const auto p = knownPredicate(b, Operand::reg_(s.reg)))
          known[k] = Operand::reg_(PT, !*p);
        continue;
      }
      const uint32_t r = id(s.reg);
      if (!available(r))
        continue;
      const Avail &a = avail_[r];
      if (a.predicate)
        continue;
      if (a.value.kind == Operand::Kind::Imm ||
          (a.value.kind == Operand::Kind::Reg && a.value.reg.isConst())) {
        known[k] = a.value;
        from[k] = a.copy;
      }
    }
    auto rw = evaluateRewrite(in, known);
    if (!rw)
      return false;
    in = std::move(rw->instr);
    for (size_t k : rw->consumed)
      if (from[k] != kNone) {
        mask_[start_[b] + from[k]] |= kFoldPropagated;
        ++uses_[start_[b] + from[k]];
      }
    ++counts_.evaluated;
    return true;
  }

  // Instruction i of the block being walked writes register r (dense id):
  // copies of r and from r end, and r's last write is i.
  void recordWrite(uint32_t r, bool zext, uint32_t i) {
    ++version_[r];
    availStamp_[r] = 0;
    zextStamp_[r] = stamp_;
    zext_[r] = zext;
    defStamp_[r] = stamp_;
    lastDef_[r] = i;
  }

  // Instruction i of b, when nothing can happen to it (not a MOV, SEL or
  // PLOP3, so neither a copy nor simplified; no use reached by a copy) and
  // regs_ says so without reading it: its writes are recorded from regs_ and
  // it is done. Not with --fold=evaluate, which looks at every instruction.
  bool quiet(uint32_t b, uint32_t i) {
    if (stale_ || opt_.evaluate)
      return false;
    const InstrRegs &x = regs_.blocks[b][i];
    if (x.passBits & kLook)
      return false;
    const uint32_t *uses = regs_.uses(x);
    for (uint32_t u = 0; u < x.uses; ++u) {
      const uint32_t r = uses[u];
      if (available(r))
        return false;
    }
    const bool zext = (x.passBits & kZeroExtends) && !x.guarded; // writesZeroExtended32(in)
    const uint32_t *defs = regs_.defs(x);
    for (uint32_t d = 0; d < x.defs; ++d)
      recordWrite(defs[d], zext, i);
    return true;
  }

  // Block b's instructions in order, each rewritten until no rewrite applies
  // (rewriteOnce), then its copy and writes recorded. The reference looks again
  // from the block's start after every rewrite, but a rewrite of instruction i
  // changes nothing that decides a rewrite before i (what reaches an
  // instruction is written before it), so it too finishes the instructions
  // in order: one walk leaves b where the reference's fixed point does.
  void walk(uint32_t b) {
    ++stamp_;
    auto &instrs = f_.blocks[b].instrs;
    for (uint32_t i = 0; i < instrs.size(); ++i) {
      if (quiet(b, i))
        continue;
      Instr &in = instrs[i];
      const bool control = stale_ ? in.info().is(CONTROL) : regs_.blocks[b][i].control;
      bool changed = false;
      while (rewriteOnce(b, i, in))
        changed = true;
      if (changed) {
        if (control || in.info().is(CONTROL))
          controlTouched_ = true;
        InstrRegs &r = regs_.blocks[b][i];
        if (stale_ || !refreshInstrRegs(regs_, r, in)) {
          stale_ = true;
        } else {
          r.passBits = passBits(in);
          predicateDefsKnown_[b] = 0;
        }
      }
      // The copy this instruction makes, judged before its own writes.
      bool sourceZext = false;
      if (in.op == Opcode::MOV && !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Reg &&
          !in.srcs[0].reg.isConst()) {
        const uint32_t s = id(in.srcs[0].reg);
        sourceZext = zextStamp_[s] == stamp_ && zext_[s];
        if (!sourceZext) {
          consulted_.push_back(s);
          sourceZext = always_[s];
        }
      }
      std::optional<Operand> value = copySource(in, sourceZext);
      bool predicate = false;
      if (!value && opt_.predicateMarking) {
        value = predicateCopySource(in);
        predicate = value.has_value();
      }
      const bool zext = writesZeroExtended32(in);
      forEachDef(in, [&](Reg d) { recordWrite(id(d), zext, i); });
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
  }

  Function &f_;
  const GeneralOptimizeOptions &opt_;
  const CfgFacts &cfg_;
  FunctionRegs &regs_;
  bool stale_ = false;          // regs_ no longer describes f_
  bool controlTouched_ = false; // a walk changed a control instruction: cfg_ may be stale
  bool cfgKept_ = false;
  bool nextRoundNeedless_ = false;
  std::vector<uint32_t> consulted_;              // registers whose always_ the walks read
  std::unordered_map<uint64_t, uint32_t> extra_; // registers not in regs_
  std::vector<uint32_t> start_; // block b's instructions: [start_[b], start_[b + 1])
  std::vector<Avail> avail_;
  std::vector<uint32_t> availStamp_, version_, zextStamp_, defStamp_, lastDef_;
  std::vector<uint8_t> zext_, always_; // always_: alwaysZeroExtended, by dense id
  std::vector<InlineVector<PredicateDef, 2>>
      predicateDefs_; // per block (two fit without an allocation)
  std::vector<uint8_t> predicateDefsKnown_;
  uint32_t stamp_ = 0;
  std::vector<uint16_t> mask_; // per instruction, flat (start_)
  std::vector<uint32_t> uses_;
  std::vector<uint8_t> ours_;
  GeneralOptimizeCounts counts_;
};

} // namespace

uint32_t removeDeadCandidates(Function &f, std::vector<uint8_t> candidates, const CfgFacts *cfgNow,
                              FunctionRegs *regsNow, std::vector<uint8_t> *readsRemovedWrite) {
  if (readsRemovedWrite)
    readsRemovedWrite->assign(f.blocks.size(), 0);
  if (std::find(candidates.begin(), candidates.end(), 1) == candidates.end())
    return 0; // no liveness to solve
  std::optional<FunctionRegs> ownRegs;
  if (!regsNow)
    ownRegs = functionRegs(f);
  FunctionRegs &all = regsNow ? *regsNow : *ownRegs;
  std::optional<CfgFacts> ownCfg;
  if (!cfgNow)
    ownCfg = computeCfg(f);
  candidates.resize(f.instrCount(), 0);

  // Only the registers the candidates write decide whether one is dead.
  std::vector<uint32_t> asked;
  for (size_t b = 0, at = 0; b < all.blocks.size(); ++b)
    for (const InstrRegs &in : all.blocks[b])
      if (candidates[at++])
        asked.insert(asked.end(), all.defs(in), all.defs(in) + in.defs);
  std::vector<uint32_t> liveStamp, readStamp;
  std::vector<uint32_t> removedWriteStamp(readsRemovedWrite ? all.index.size() : 0,
                                          0); // by register number
  // The candidates a sweep kept: block, index in it, where their flags are.
  struct Kept {
    uint32_t b, i;
    size_t flag;
  };
  std::vector<Kept> survivors;
  uint32_t stamp = 0, total = 0;
  for (;;) {
    std::sort(asked.begin(), asked.end());
    asked.erase(std::unique(asked.begin(), asked.end()), asked.end());
    const SubsetLiveness live(all, ownCfg ? *ownCfg : *cfgNow, asked);
    liveStamp.assign(live.size(), 0);
    readStamp.assign(live.size(), 0); // 1: read by an instruction this sweep removed
    auto index = [&](uint32_t number) { return live.indexOfNumbered(number); };
    uint32_t removed = 0;
    bool controlRemoved = false;
    survivors.clear();
    // Blocks in order; each block's candidates are read at [read, read + size)
    // and the kept ones written back at `write` (<= read: a compaction in place).
    size_t read = 0, write = 0;
    for (uint32_t b = 0; b < f.blocks.size(); ++b) {
      ++stamp;
      for (uint32_t r : live.liveOut(b))
        liveStamp[r] = stamp;
      auto &instrs = f.blocks[b].instrs;
      auto &regs = all.blocks[b];
      uint8_t *const cand = candidates.data() + read;
      uint32_t dead = 0;
      for (size_t i = regs.size(); i-- > 0;) {
        const InstrRegs &in = regs[i];
        const uint32_t *defs = all.defs(in), *uses = all.uses(in);
        bool anyLive = false;
        for (uint32_t d = 0; d < in.defs; ++d)
          if (const int32_t r = index(defs[d]); r >= 0 && liveStamp[r] == stamp)
            anyLive = true;
        if (cand[i] && !anyLive) {
          cand[i] = 2; // removed below, after the walk
          controlRemoved = controlRemoved || in.control;
          for (uint32_t u = 0; u < in.uses; ++u)
            if (const int32_t r = index(uses[u]); r >= 0)
              readStamp[r] = 1;
          ++dead;
          continue;
        }
        if (!in.guarded)
          for (uint32_t d = 0; d < in.defs; ++d)
            if (const int32_t r = index(defs[d]); r >= 0)
              liveStamp[r] = 0;
        for (uint32_t u = 0; u < in.uses; ++u)
          if (const int32_t r = index(uses[u]); r >= 0)
            liveStamp[r] = stamp;
      }
      if (readsRemovedWrite && dead) {
        // Whether an instruction kept in b reads a register one removed from b wrote.
        for (size_t i = 0; i < regs.size(); ++i)
          if (cand[i] == 2)
            for (uint32_t d = 0; d < regs[i].defs; ++d)
              removedWriteStamp[all.defs(regs[i])[d]] = stamp;
        for (size_t i = 0; i < regs.size(); ++i)
          if (cand[i] != 2)
            for (uint32_t u = 0; u < regs[i].uses; ++u)
              if (removedWriteStamp[all.uses(regs[i])[u]] == stamp)
                (*readsRemovedWrite)[b] = 1;
      }
      const size_t size = regs.size();
      size_t kept = 0;
      for (size_t i = 0; i < size; ++i) {
        if (cand[i] == 2)
          continue; // one compaction per block, not an erase per instruction
        if (kept != i)
          instrs[kept] = std::move(instrs[i]), regs[kept] = regs[i];
        if (cand[i])
          survivors.push_back(Kept{b, uint32_t(kept), write});
        candidates[write++] = cand[i];
        ++kept;
      }
      instrs.resize(kept);
      regs.resize(kept);
      removed += dead;
      read += size;
    }
    candidates.resize(write);
    total += removed;
    // Removing an instruction whose results are dead makes registers less live
    // only through what it read (it wrote nothing live), so a kept candidate
    // can die in another sweep only if it writes a register a removed
    // instruction read; only such candidates stay candidates, and only their
    // registers are asked then.
    asked.clear();
    for (const Kept &k : survivors) {
      const InstrRegs &in = all.blocks[k.b][k.i];
      const uint32_t *defs = all.defs(in);
      bool maybe = false;
      for (uint32_t d = 0; d < in.defs; ++d)
        if (const int32_t r = index(defs[d]); r >= 0 && readStamp[r])
          maybe = true;
      if (maybe)
        asked.insert(asked.end(), defs, defs + in.defs);
      else
        candidates[k.flag] = 0;
    }
    if (!removed || asked.empty())
      return total;
    if (controlRemoved)
      ownCfg = computeCfg(f);
  }
}

GeneralOptimizeResult generalOptimize(Function &f, const GeneralOptimizeOptions &opt) {
  GeneralOptimizeResult total;
  if (f.blocks.empty())
    return total;
  // What a round leaves true of the function is handed to the next: its
  // registers, and its CFG when the round changed no control flow.
  std::optional<FunctionRegs> regs;
  std::optional<CfgFacts> cfg;
  for (uint32_t round = 1; round <= kGeneralOptimizeRounds; ++round) {
    if (!regs || !sameShape(*regs, f))
      regs = scanRegs(f);
    if (!cfg)
      cfg = computeCfg(f);
    GeneralOptimizer optimizer(f, opt, *regs, *cfg);
    const GeneralOptimizeResult one = optimizer.run();
    if (optimizer.stale())
      regs.reset();
    if (!optimizer.cfgKept())
      cfg.reset();
    addRound(total, one, round);
    const GeneralOptimizeCounts &c = one.counts;
    if (c.usesReplaced + c.selectsToCopies + c.guardsResolved + c.removed + c.evaluated == 0)
      break;
    if (optimizer.nextRoundNeedless()) {
      // The next round would change nothing: counted as run (as the reference runs it), not run.
      if (round < kGeneralOptimizeRounds)
        addRound(total, GeneralOptimizeResult{}, round + 1);
      break;
    }
  }
  return total;
}

} // namespace ori::optimized
