// Phase 38 OptimizeNestedCondBranches (spec/003 "OptimizeNestedCondBranches"), the reference
// way: every round recomputes the CFG and liveness from scratch, tries the blocks in reverse
// RPO and makes the first combination it finds. The rules are in
// rules/optimize_nested_cond_branches.h and docs/branch-and-switch.md, "Phase 38".
#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "reference/reference.h"
#include "rules/lut.h"

namespace ori::reference {
namespace {

// A conditional BRA ending block b: guarded by a predicate register (not PT/!PT).
const Instr *conditionalBra(const Function &f, uint32_t b) {
  const auto &instrs = f.blocks[b].instrs;
  if (instrs.empty())
    return nullptr;
  const Instr &bra = instrs.back();
  if (bra.op != Opcode::BRA || !bra.guard || bra.guard->reg.isConst())
    return nullptr;
  return &bra;
}

bool liveIn(const LivenessFacts &live, uint32_t b, Reg r) {
  return std::ranges::binary_search(live.liveIn[b], r);
}

// The predicates the combined PLOP3 reads (slots a, b, c) and the LUT of a source operand.
struct Leaves {
  std::vector<Reg> regs;
  // The LUT of predicate operand `o` over the slots, adding a slot for a new register.
  uint8_t lutOf(const Operand &o) {
    uint8_t l = 0xFF; // PT
    if (!o.reg.isConst()) {
      auto it = std::ranges::find(regs, o.reg);
      if (it == regs.end())
        it = regs.insert(regs.end(), o.reg);
      l = lut::kInputs[size_t(std::min<ptrdiff_t>(it - regs.begin(), 2))];
    }
    return o.neg ? lut::negateOutput(l) : l;
  }
};

// The PLOP3 that defines guard register g of block b's branch, if it can be folded into the
// combined one: the last definition of g in the block, unguarded, its second destination PT;
// after it nothing in the block reads g (but the branch) or writes one of its sources; and g
// is dead after the block. Its index.
std::optional<size_t> absorbablePlop3(const Function &f, uint32_t b, Reg g, const CfgFacts &cfg,
                                      const LivenessFacts &live) {
  const auto &instrs = f.blocks[b].instrs;
  for (uint32_t s : cfg.succs[b])
    if (liveIn(live, s, g))
      return std::nullopt;
  for (size_t j = instrs.size() - 1; j-- > 0;) {
    const Instr &in = instrs[j];
    const std::vector<Reg> defs = in.defs();
    if (std::ranges::find(defs, g) == defs.end())
      continue;
    if (in.op != Opcode::PLOP3 || in.isGuarded() || in.dsts[0].reg != g ||
        !in.dsts[1].reg.isConst())
      return std::nullopt;
    for (size_t k = j + 1; k + 1 < instrs.size(); ++k) {
      const std::vector<Reg> uses = instrs[k].uses(), kdefs = instrs[k].defs();
      if (std::ranges::find(uses, g) != uses.end())
        return std::nullopt;
      for (size_t s = 0; s < 3; ++s)
        if (std::ranges::find(kdefs, in.srcs[s].reg) != kdefs.end())
          return std::nullopt;
    }
    return j;
  }
  return std::nullopt; // g is defined outside the block
}

// The LUT of "block b's branch is taken" over `leaves`, folding the PLOP3 at `plop`.
uint8_t takenLut(const Function &f, uint32_t b, std::optional<size_t> plop, Leaves &leaves) {
  const Instr &bra = f.blocks[b].instrs.back();
  uint8_t l;
  if (plop) {
    const Instr &p = f.blocks[b].instrs[*plop];
    const uint8_t a = leaves.lutOf(p.srcs[0]), bb = leaves.lutOf(p.srcs[1]),
                  c = leaves.lutOf(p.srcs[2]);
    l = lut::compose(uint8_t(p.srcs[3].imm), a, bb, c);
  } else {
    l = leaves.lutOf(Operand::reg_(bra.guard->reg));
  }
  return bra.guard->neg ? lut::negateOutput(l) : l;
}

// sub_A07940's eligibility of an instruction of the intermediate block, which the combination
// executes on the merge path too: nothing with effects, memory, warp-level values or
// convergence; not LEA (the spec's list); not a PLOP3 that already combines two predicates;
// not a compare that chains another predicate (the spec's "combined-condition field"); not
// an LDC with an index register (a load that may fault; one at a fixed offset, as PTX's
// ld.param becomes, reads a constant).
bool eligible(const Instr &in) {
  const OpInfo &info = in.info();
  if (info.is(CONTROL | SIDE_EFFECT | MEMORY | BARRIER | CONVERGENCE | CALL_))
    return false;
  switch (in.op) {
  case Opcode::LEA:
    return false;
  case Opcode::LDC:
    return !in.srcs[0].hasReg;
  case Opcode::PLOP3:
    return std::ranges::count_if(in.srcs.begin(), in.srcs.begin() + 3,
                                 [](const Operand &o) { return !o.reg.isConst(); }) < 2;
  case Opcode::ISETP:
  case Opcode::FSETP:
  case Opcode::DSETP:
    return in.srcs[2].reg.isConst() && !in.srcs[2].neg;
  default:
    return true;
  }
}

struct Plan {
  uint32_t outer, inner;
  uint32_t target;         // the combined branch's target
  uint8_t lut;             // of "the combined branch is taken"
  std::vector<Reg> leaves; // its PLOP3's sources
  std::optional<size_t> outerPlop, innerPlop;
  bool labelTarget; // the target needs a label
};

// The combination with `o` as the outer block and its successor `i` as the intermediate one,
// `m` the other successor (the merge point), if every rule allows it.
std::optional<Plan> tryPair(const Function &f, const CfgFacts &cfg, const LivenessFacts &live,
                            uint32_t o, uint32_t i, uint32_t m) {
  const Instr &ob = f.blocks[o].instrs.back();
  const Instr *ib = conditionalBra(f, i);
  if (!ib || i == 0 || i == o || cfg.preds[i].size() != 1 || cfg.preds[i][0] != o ||
      i + 1 >= f.blocks.size())
    return std::nullopt;
  if (ib->mods != ob.mods)
    return std::nullopt;
  // Nothing but o's branch names i (a BSSY's reconvergence label, a jump table).
  for (const JumpTable &jt : f.jumpTables)
    if (std::ranges::find(jt.targets, i) != jt.targets.end())
      return std::nullopt;
  for (uint32_t b = 0; b < f.blocks.size(); ++b)
    for (const Instr &in : f.blocks[b].instrs)
      for (const Operand &s : in.srcs)
        if (s.kind == Operand::Kind::Label && s.target == i && &in != &ob)
          return std::nullopt;
  const uint32_t ti = ib->srcs[0].target, fi = i + 1;
  if (ti == fi || ti == i)
    return std::nullopt;
  uint32_t body;
  if (m == ti)
    body = fi;
  else if (m == fi)
    body = ti;
  else
    return std::nullopt; // the two branches do not share a merge point

  Plan p{o, i, 0, 0, {}, std::nullopt, std::nullopt, false};
  p.outerPlop = absorbablePlop3(f, o, ob.guard->reg, cfg, live);
  p.innerPlop = absorbablePlop3(f, i, ib->guard->reg, cfg, live);
  Leaves leaves;
  const uint8_t outerTaken = takenLut(f, o, p.outerPlop, leaves);
  const size_t outerLeaves = leaves.regs.size();
  const uint8_t innerTaken = takenLut(f, i, p.innerPlop, leaves);
  if (leaves.regs.size() > kNestedCondMaxInputs)
    return std::nullopt;
  const std::vector<Reg> outerRegs(leaves.regs.begin(),
                                   leaves.regs.begin() + ptrdiff_t(outerLeaves));

  // The instructions that move into o: eligible, and their results dead wherever the moved
  // code now also runs (the merge path) and, but for the branch predicate, after i.
  const auto &instrs = f.blocks[i].instrs;
  const Reg pb = ib->guard->reg;
  for (size_t k = 0; k + 1 < instrs.size(); ++k) {
    if (p.innerPlop == k)
      continue;
    if (!eligible(instrs[k]))
      return std::nullopt;
    for (Reg d : instrs[k].defs()) {
      if (liveIn(live, m, d))
        return std::nullopt;
      if (d != pb && liveIn(live, body, d))
        return std::nullopt;
      if (std::ranges::find(outerRegs, d) != outerRegs.end())
        return std::nullopt;
    }
  }

  const uint8_t toInner = i == ob.srcs[0].target ? outerTaken : lut::negateOutput(outerTaken);
  const uint8_t toBody =
      uint8_t(toInner & (body == ti ? innerTaken : lut::negateOutput(innerTaken)));
  if (i == o + 1) { // i was the fall-through: o now falls into fi and branches to ti
    p.target = ti;
    p.lut = ti == body ? toBody : lut::negateOutput(toBody);
  } else { // i was the branch target: o still falls into m and branches to the body
    p.target = body;
    p.lut = toBody;
    p.labelTarget = f.blocks[body].label.empty();
  }
  p.leaves = std::move(leaves.regs);
  return p;
}

std::optional<Plan> findCombination(const Function &f, const CfgFacts &cfg,
                                    const LivenessFacts &live, uint32_t o) {
  const Instr *ob = conditionalBra(f, o);
  if (!ob || o + 1 >= f.blocks.size())
    return std::nullopt;
  const uint32_t taken = ob->srcs[0].target, fall = o + 1;
  if (taken == fall)
    return std::nullopt;
  if (std::optional<Plan> p = tryPair(f, cfg, live, o, fall, taken))
    return p;
  return tryPair(f, cfg, live, o, taken, fall);
}

// A label no block of f has, from the block's label id.
std::string freshLabel(const Function &f, uint32_t labelId) {
  std::string name = fmt::format("$L__NC{:x}", labelId);
  for (uint32_t k = 1; f.findBlock(name); ++k)
    name = fmt::format("$L__NC{:x}_{}", labelId, k);
  return name;
}

// Deletes block b, which nothing reaches or names, renumbering the blocks after it.
void eraseBlock(Function &f, uint32_t b) {
  f.blocks.erase(f.blocks.begin() + b);
  for (Block &blk : f.blocks)
    for (Instr &in : blk.instrs)
      for (Operand &s : in.srcs)
        if (s.kind == Operand::Kind::Label && s.target > b)
          --s.target;
  for (JumpTable &jt : f.jumpTables)
    for (uint32_t &t : jt.targets)
      if (t > b)
        --t;
}

void apply(Function &f, const Plan &p, NestedCondCounts &counts) {
  const Block &inner = f.blocks[p.inner];
  std::vector<Instr> code;
  const std::vector<Instr> &outerInstrs = f.blocks[p.outer].instrs;
  for (size_t k = 0; k + 1 < outerInstrs.size(); ++k)
    if (p.outerPlop != k)
      code.push_back(outerInstrs[k]);
  for (size_t k = 0; k + 1 < inner.instrs.size(); ++k)
    if (p.innerPlop != k)
      code.push_back(inner.instrs[k]);
  counts.absorbedPlop3 += uint32_t(p.outerPlop.has_value()) + uint32_t(p.innerPlop.has_value());
  Instr bra = outerInstrs.back();
  const Reg pc = f.newReg(RegFile::P);
  std::vector<Operand> srcs;
  for (size_t s = 0; s < 3; ++s)
    srcs.push_back(Operand::reg_(s < p.leaves.size() ? p.leaves[s] : PT));
  srcs.push_back(Operand::immediate(p.lut));
  srcs.push_back(Operand::immediate(0));
  Instr plop =
      makeInstr(Opcode::PLOP3, {Operand::reg_(pc), Operand::reg_(PT)}, std::move(srcs), {Mod::LUT});
  plop.loc = bra.loc;
  code.push_back(plop);
  bra.guard = Operand::reg_(pc);
  bra.srcs[0].target = p.target;
  code.push_back(bra);
  if (p.labelTarget)
    f.blocks[p.target].label = freshLabel(f, f.blocks[p.target].labelId);
  f.blocks[p.outer].instrs = std::move(code);
  eraseBlock(f, p.inner);
  ++counts.combined;
}

} // namespace

NestedCondCounts optimizeNestedCondBranches(Function &f, const NestedCondObserver &observer) {
  NestedCondCounts counts;
  // Each round combines one pair and erases a block, so there are at most as many rounds as
  // blocks; a function of one block has nothing to combine (the spec's sub_7DDB50 != 1 guard).
  while (f.blocks.size() > 1) {
    ++counts.rounds;
    const CfgFacts cfg = computeCfg(f);                 // stage 1's input: the RPO
    const LivenessFacts live = computeLiveness(f, cfg); // stages 1 and 2: live-in sets
    std::optional<Plan> plan;
    for (auto it = cfg.rpo.rbegin(); !plan && it != cfg.rpo.rend(); ++it)
      plan = findCombination(f, cfg, live, *it);
    if (!plan)
      break;
    if (observer) {
      const Function before = f;
      const uint32_t outerLabelId = f.blocks[plan->outer].labelId;
      apply(f, *plan, counts);
      observer(before, f, outerLabelId);
    } else {
      apply(f, *plan, counts);
    }
  }
  return counts;
}

} // namespace ori::reference
