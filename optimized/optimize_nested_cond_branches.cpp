// Phase 38 OptimizeNestedCondBranches (spec/003), the optimized way: the same rounds and
// result as reference/optimize_nested_cond_branches.cpp, with each round's work cut down.
// A round first finds the pairs by shape alone (conditional branch, single-predecessor
// successor ending in a conditional branch to a shared merge point) from the CFG's
// predecessor lists and a count of label references per block; only when some pair has that
// shape is liveness solved (bit vectors, optimized/liveness.cpp), once: a combination does not
// change the live-in sets of the blocks that remain (below). Most functions have no such pair,
// and pay for one CFG.
#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "optimized/optimized.h"
#include "rules/lut.h"

namespace ori::optimized {
namespace {

// A pair with the shape of a combination: outer block, intermediate, merge point, body.
struct Shape {
  uint32_t outer, inner, merge, body;
};

class Round {
public:
  explicit Round(const Function &f) : f_(f), cfg_(computeCfg(f)), labelRefs_(f.blocks.size()) {
    for (const Block &blk : f.blocks)
      for (const Instr &in : blk.instrs)
        for (const Operand &s : in.srcs)
          if (s.kind == Operand::Kind::Label)
            ++labelRefs_[s.target];
    for (const JumpTable &jt : f.jumpTables)
      for (uint32_t t : jt.targets)
        ++labelRefs_[t];
  }

  const CfgFacts &cfg() const { return cfg_; }

  // The shape with outer block o and intermediate i (o's successor), m o's other successor.
  std::optional<Shape> shape(uint32_t o, uint32_t i, uint32_t m) const {
    const uint32_t n = uint32_t(f_.blocks.size());
    if (i == 0 || i == o || i + 1 >= n)
      return std::nullopt;
    if (cfg_.preds[i].size() != 1 || cfg_.preds[i][0] != o)
      return std::nullopt;
    // o's BRA names i only when i is its target: then that is the one reference allowed
    // (a jump table or a BSSY naming i keeps it).
    const uint32_t allowed = f_.blocks[o].instrs.back().srcs[0].target == i ? 1 : 0;
    if (labelRefs_[i] != allowed)
      return std::nullopt;
    const Instr *ib = guardedBra(i);
    if (!ib || ib->mods != f_.blocks[o].instrs.back().mods)
      return std::nullopt;
    const uint32_t ti = ib->srcs[0].target, fi = i + 1;
    if (ti == fi || ti == i)
      return std::nullopt;
    if (m == ti)
      return Shape{o, i, m, fi};
    if (m == fi)
      return Shape{o, i, m, ti};
    return std::nullopt;
  }

  // The shapes of block o as the outer block: the fall-through pair first.
  std::array<std::optional<Shape>, 2> shapes(uint32_t o) const {
    const Instr *ob = guardedBra(o);
    if (!ob || o + 1 >= f_.blocks.size() || ob->srcs[0].target == o + 1)
      return {};
    return {shape(o, o + 1, ob->srcs[0].target), shape(o, ob->srcs[0].target, o + 1)};
  }

  const Instr *guardedBra(uint32_t b) const {
    const std::vector<Instr> &instrs = f_.blocks[b].instrs;
    if (instrs.empty())
      return nullptr;
    const Instr &last = instrs.back();
    return last.op == Opcode::BRA && last.guard && !last.guard->reg.isConst() ? &last : nullptr;
  }

private:
  const Function &f_;
  CfgFacts cfg_;
  std::vector<uint32_t> labelRefs_;
};

struct Combination {
  Shape s{};
  uint32_t target = 0;
  uint8_t lut = 0;
  std::array<Reg, 3> inputs{PT, PT, PT};
  std::optional<size_t> outerPlop, innerPlop;
};

class Checker {
public:
  Checker(const Function &f, const LivenessFacts &live, const CfgFacts &cfg)
      : f_(f), live_(live), cfg_(cfg) {}

  std::optional<Combination> check(const Shape &s) {
    const Instr &ob = f_.blocks[s.outer].instrs.back();
    const Instr &ib = f_.blocks[s.inner].instrs.back();
    Combination c{};
    c.s = s;
    c.outerPlop = foldablePlop3(s.outer, ob.guard->reg);
    c.innerPlop = foldablePlop3(s.inner, ib.guard->reg);
    count_ = 0;
    const uint8_t outerTaken = conditionLut(s.outer, c.outerPlop);
    const uint32_t outerInputs = count_;
    const uint8_t innerTaken = conditionLut(s.inner, c.innerPlop);
    if (count_ > kNestedCondMaxInputs)
      return std::nullopt;

    const std::vector<Instr> &code = f_.blocks[s.inner].instrs;
    for (size_t k = 0; k + 1 < code.size(); ++k) {
      if (c.innerPlop && *c.innerPlop == k)
        continue;
      if (!movable(code[k]))
        return std::nullopt;
      for (const Operand &d : code[k].dsts) {
        if (!d.isReg() || d.reg.isConst())
          continue;
        if (isLive(s.merge, d.reg) || (d.reg != ib.guard->reg && isLive(s.body, d.reg)))
          return std::nullopt;
        if (std::find(regs_.begin(), regs_.begin() + outerInputs, d.reg) !=
            regs_.begin() + outerInputs)
          return std::nullopt;
      }
    }

    const uint8_t toInner = s.inner == ob.srcs[0].target ? outerTaken : uint8_t(~outerTaken);
    const uint32_t ti = ib.srcs[0].target;
    const uint8_t toBody = toInner & (s.body == ti ? innerTaken : uint8_t(~innerTaken));
    const bool innerWasFallThrough = s.inner == s.outer + 1;
    c.target = innerWasFallThrough ? ti : s.body;
    c.lut = innerWasFallThrough && ti != s.body ? uint8_t(~toBody) : toBody;
    std::copy(regs_.begin(), regs_.begin() + count_, c.inputs.begin());
    return c;
  }

private:
  bool isLive(uint32_t b, Reg r) const {
    return std::binary_search(live_.liveIn[b].begin(), live_.liveIn[b].end(), r);
  }

  // The LUT of predicate operand o over the inputs seen so far (a new register takes the
  // next slot; past the third the count alone matters: the combination is refused).
  uint8_t operandLut(const Operand &o) {
    uint8_t l = 0xFF;
    if (!o.reg.isConst()) {
      uint32_t k = 0;
      while (k < count_ && k < regs_.size() && regs_[k] != o.reg)
        ++k;
      if (k == count_) {
        if (count_ < regs_.size())
          regs_[count_] = o.reg;
        ++count_;
      }
      l = lut::kInputs[std::min<uint32_t>(k, 2)];
    }
    return o.neg ? uint8_t(~l) : l;
  }

  uint8_t conditionLut(uint32_t b, std::optional<size_t> plop) {
    const std::vector<Instr> &code = f_.blocks[b].instrs;
    const Operand &guard = *code.back().guard;
    uint8_t l;
    if (plop) {
      const Instr &p = code[*plop];
      const uint8_t x = operandLut(p.srcs[0]), y = operandLut(p.srcs[1]), z = operandLut(p.srcs[2]);
      l = lut::compose(uint8_t(p.srcs[3].imm), x, y, z);
    } else {
      l = operandLut(Operand::reg_(guard.reg));
    }
    return guard.neg ? uint8_t(~l) : l;
  }

  // The PLOP3 defining guard g of block b that the combined one may replace (the rule of
  // rules/optimize_nested_cond_branches.h), by a backward scan that stops at g's last definition.
  std::optional<size_t> foldablePlop3(uint32_t b, Reg g) const {
    for (uint32_t s : cfg_.succs[b])
      if (isLive(s, g))
        return std::nullopt;
    const std::vector<Instr> &code = f_.blocks[b].instrs;
    std::array<bool, 3> rewritten{};
    size_t j = code.size() - 1;
    std::array<Reg, 3> srcs{};
    while (j-- > 0) {
      const Instr &in = code[j];
      const std::vector<Reg> defs = in.defs();
      if (std::find(defs.begin(), defs.end(), g) != defs.end()) {
        if (in.op != Opcode::PLOP3 || in.isGuarded() || in.dsts[0].reg != g ||
            !in.dsts[1].reg.isConst())
          return std::nullopt;
        srcs = {in.srcs[0].reg, in.srcs[1].reg, in.srcs[2].reg};
        break;
      }
    }
    if (j == size_t(-1))
      return std::nullopt;
    for (size_t k = j + 1; k + 1 < code.size(); ++k) {
      for (Reg u : code[k].uses())
        if (u == g)
          return std::nullopt;
      for (Reg d : code[k].defs())
        for (size_t s = 0; s < 3; ++s)
          rewritten[s] = rewritten[s] || d == srcs[s];
    }
    if (rewritten[0] || rewritten[1] || rewritten[2])
      return std::nullopt;
    return j;
  }

  // sub_A07940's eligibility (rules/optimize_nested_cond_branches.h gives the list).
  static bool movable(const Instr &in) {
    if (in.info().is(CONTROL | SIDE_EFFECT | MEMORY | BARRIER | CONVERGENCE | CALL_))
      return false;
    if (in.op == Opcode::LEA)
      return false;
    if (in.op == Opcode::LDC)
      return !in.srcs[0].hasReg; // a fixed offset reads a constant
    if (in.op == Opcode::PLOP3)
      return int(!in.srcs[0].reg.isConst()) + int(!in.srcs[1].reg.isConst()) +
                 int(!in.srcs[2].reg.isConst()) <
             2;
    if (in.op == Opcode::ISETP || in.op == Opcode::FSETP || in.op == Opcode::DSETP)
      return in.srcs[2].reg.isConst() && !in.srcs[2].neg;
    return true;
  }

  const Function &f_;
  const LivenessFacts &live_;
  const CfgFacts &cfg_;
  std::array<Reg, kNestedCondMaxInputs> regs_{};
  uint32_t count_ = 0;
};

void combine(Function &f, const Combination &c) {
  const Shape &s = c.s;
  std::vector<Instr> &outer = f.blocks[s.outer].instrs;
  Instr bra = std::move(outer.back());
  outer.pop_back();
  if (c.outerPlop)
    outer.erase(outer.begin() + ptrdiff_t(*c.outerPlop));
  std::vector<Instr> &inner = f.blocks[s.inner].instrs;
  inner.pop_back();
  if (c.innerPlop)
    inner.erase(inner.begin() + ptrdiff_t(*c.innerPlop));
  outer.insert(outer.end(), std::make_move_iterator(inner.begin()),
               std::make_move_iterator(inner.end()));

  const Reg pn = f.newReg(RegFile::P);
  Instr plop =
      makeInstr(Opcode::PLOP3, {Operand::reg_(pn), Operand::reg_(PT)},
                {Operand::reg_(c.inputs[0]), Operand::reg_(c.inputs[1]), Operand::reg_(c.inputs[2]),
                 Operand::immediate(c.lut), Operand::immediate(0)},
                {Mod::LUT});
  plop.loc = bra.loc;
  bra.guard = Operand::reg_(pn);
  bra.srcs[0].target = c.target;
  outer.push_back(std::move(plop));
  outer.push_back(std::move(bra));

  Block &target = f.blocks[c.target];
  if (target.label.empty()) {
    std::string name = fmt::format("$L__NC{:x}", target.labelId);
    for (uint32_t k = 1; f.findBlock(name); ++k)
      name = fmt::format("$L__NC{:x}_{}", target.labelId, k);
    target.label = std::move(name);
  }

  // Erase the intermediate block: every block index past it moves down by one.
  const uint32_t gone = s.inner;
  f.blocks.erase(f.blocks.begin() + gone);
  auto renumber = [gone](uint32_t &t) { t -= t > gone ? 1 : 0; };
  for (Block &blk : f.blocks)
    for (Instr &in : blk.instrs)
      for (Operand &o : in.srcs)
        if (o.kind == Operand::Kind::Label)
          renumber(o.target);
  for (JumpTable &jt : f.jumpTables)
    std::ranges::for_each(jt.targets, renumber);
}

} // namespace

NestedCondCounts optimizeNestedCondBranches(Function &f, const NestedCondObserver &observer) {
  NestedCondCounts counts;
  // Liveness is solved once and carried from round to round: a combination leaves every live-in
  // set of the blocks that remain as it was (the moved code's results are dead at the merge
  // point and, but for the branch predicate, at the body; the new predicate is written before
  // it is read; a folded PLOP3's sources are read later but not rewritten in between), so
  // dropping the erased block's entry is the solution the next round would compute.
  std::optional<LivenessFacts> live;
  while (f.blocks.size() > 1) {
    ++counts.rounds;
    const Round round(f);
    std::vector<Shape> candidates; // in reverse RPO, each block's fall-through pair first
    const std::vector<uint32_t> &rpo = round.cfg().rpo;
    for (auto it = rpo.rbegin(); it != rpo.rend(); ++it)
      for (const std::optional<Shape> &s : round.shapes(*it))
        if (s)
          candidates.push_back(*s);
    if (candidates.empty())
      break;
    if (!live)
      live = computeLiveness(f, round.cfg());
    Checker checker(f, *live, round.cfg());
    std::optional<Combination> found;
    for (const Shape &s : candidates)
      if ((found = checker.check(s)))
        break;
    if (!found)
      break;
    counts.absorbedPlop3 +=
        uint32_t(found->outerPlop.has_value()) + uint32_t(found->innerPlop.has_value());
    ++counts.combined;
    live->liveIn.erase(live->liveIn.begin() + found->s.inner);
    if (!observer) {
      combine(f, *found);
      continue;
    }
    const Function before = f;
    const uint32_t outerLabelId = f.blocks[found->s.outer].labelId;
    combine(f, *found);
    observer(before, f, outerLabelId);
  }
  return counts;
}

} // namespace ori::optimized
