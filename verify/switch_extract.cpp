// Switch dispatch read back from Ori IR (verify/switch_extract.h); the before/after check of the
// switch phases is verify/switch_rewrites_check.cpp.
//
// The walk from the head is a depth-first search with an explicit stack (no
// recursion: a long cascade must not overflow the stack). What is known about
// the selector flows along the edges, so a block is expanded once per set of
// facts it is entered with (memoized by block and facts); a block met again on
// the current path is a cycle. Children become nodes before their parent, so
// every node refers only to earlier ones, as DispatchProgram requires.
#include "verify/switch_extract.h"
#include "verify/switch_extract_impl.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "ir/ori.h"
#include "rules/lut.h"

namespace ori::verify {
namespace {

// A predicate that holds `selector - bias <cmp> constant` (32-bit compare),
// or, for a bit test, `((1 << (selector - bias)) & mask) <cmp> 0` with cmp NE
// or EQ (the bit as SHL makes it: 0 when selector - bias >= 32).
struct Cond {
  DispatchCmp cmp = DispatchCmp::EQ;
  bool isSigned = false;
  uint32_t constant = 0;
  uint32_t bias = 0;
  bool bitTest = false;
  uint32_t mask = 0; // bit test only
  friend auto operator<=>(const Cond &, const Cond &) = default;
};

// A register that holds (1 << (selector - bias)) & mask, the shift as SHL does
// it (0 when selector - bias >= 32): SHL's bit has mask 0xffffffff, a LOP3 AND
// with a constant narrows the mask.
struct MaskedBit {
  uint32_t bias = 0;
  uint32_t mask = 0;
  friend auto operator<=>(const MaskedBit &, const MaskedBit &) = default;
};

// What is known, at one point of the dispatch, about the selector: the
// registers that hold selector - bias (the selector itself, bias 0), the
// predicates that hold a compare of such a register with a constant or a bit
// test, the registers a MOV set to a constant (the 1 that SHL shifts) and the
// registers that hold a masked bit. A register is in at most one map.
struct Facts {
  std::map<Reg, uint32_t> regs; // register -> bias
  std::map<Reg, Cond> preds;
  std::map<Reg, uint32_t> consts; // register -> its value
  std::map<Reg, MaskedBit> bits;
  friend auto operator<=>(const Facts &, const Facts &) = default;
};

Facts initialFacts(Reg selector) {
  Facts f;
  f.regs[selector] = 0;
  return f;
}

// b cmp' a for a cmp b.
DispatchCmp swapped(DispatchCmp c) {
  switch (c) {
  case DispatchCmp::LT:
    return DispatchCmp::GT;
  case DispatchCmp::LE:
    return DispatchCmp::GE;
  case DispatchCmp::GT:
    return DispatchCmp::LT;
  case DispatchCmp::GE:
    return DispatchCmp::LE;
  default:
    return c;
  }
}

// !(a cmp b) as a compare.
DispatchCmp negated(DispatchCmp c) {
  switch (c) {
  case DispatchCmp::EQ:
    return DispatchCmp::NE;
  case DispatchCmp::NE:
    return DispatchCmp::EQ;
  case DispatchCmp::LT:
    return DispatchCmp::GE;
  case DispatchCmp::GE:
    return DispatchCmp::LT;
  case DispatchCmp::LE:
    return DispatchCmp::GT;
  case DispatchCmp::GT:
    return DispatchCmp::LE;
  }
  return c;
}

// What `facts` (one of Facts' maps) records for a plain register source.
template <typename Map>
std::optional<typename Map::mapped_type> factOf(const Operand &o, const Map &facts) {
  std::optional<Reg> r = plainReg(o);
  if (!r)
    return std::nullopt;
  auto it = facts.find(*r);
  if (it == facts.end())
    return std::nullopt;
  return it->second;
}

// The value of a source known to be constant: an immediate, RZ, or a register
// a MOV set to a constant.
std::optional<uint32_t> knownValue(const Operand &o, const Facts &facts) {
  if (std::optional<uint32_t> c = constantOf(o))
    return c;
  return factOf(o, facts.consts);
}

// The bias of a source that holds selector - bias.
std::optional<uint32_t> trackedBias(const Operand &o, const Facts &facts) {
  return factOf(o, facts.regs);
}

// IADD3 t, x, y, z (32-bit, unguarded) with one of x, y, z a tracked register
// and the other two immediates or RZ: t's bias. nullopt if not of that form.
std::optional<uint32_t> derivedBias(const Instr &in, const Facts &facts) {
  if (in.op != Opcode::IADD3 || in.isGuarded() || in.has(Mod::W64) || in.dsts.size() != 1 ||
      in.srcs.size() != 3)
    return std::nullopt;
  if (!plainReg(in.dsts[0]))
    return std::nullopt;
  std::optional<uint32_t> bias;
  uint32_t sum = 0;
  for (const Operand &s : in.srcs) {
    if (std::optional<uint32_t> c = constantOf(s)) {
      sum += *c;
    } else if (std::optional<uint32_t> b = trackedBias(s, facts); b && !bias) {
      bias = b;
    } else {
      return std::nullopt; // an untracked source, or a second tracked one
    }
  }
  if (!bias)
    return std::nullopt;
  return *bias - sum; // t = selector - bias + sum
}

// An unguarded ISETP of a tracked register with a constant (either side): the
// compare its first destination holds (the second holds the negation).
std::optional<Cond> compareOf(const Instr &in, const Facts &facts) {
  if (in.isGuarded())
    return std::nullopt;
  auto kind = isetpKind(in);
  if (!kind)
    return std::nullopt;
  Cond c{kind->first, kind->second, 0, 0};
  if (auto bias = trackedBias(in.srcs[0], facts)) {
    auto k = constantOf(in.srcs[1]);
    if (!k)
      return std::nullopt;
    c.bias = *bias, c.constant = *k;
  } else if (auto bias1 = trackedBias(in.srcs[1], facts)) {
    auto k = constantOf(in.srcs[0]);
    if (!k)
      return std::nullopt;
    c.bias = *bias1, c.constant = *k, c.cmp = swapped(c.cmp);
  } else {
    return std::nullopt;
  }
  return c;
}

// A source that holds a masked bit.
std::optional<MaskedBit> trackedBit(const Operand &o, const Facts &facts) {
  return factOf(o, facts.bits);
}

// An unguarded ISETP.{EQ,NE}.{U32,S32} of a register holding a masked bit with
// zero (either side): the bit test its first destination holds. EQ and NE do
// not depend on the signedness.
std::optional<Cond> bitTestOf(const Instr &in, const Facts &facts) {
  if (in.isGuarded())
    return std::nullopt;
  auto kind = isetpKind(in);
  if (!kind || (kind->first != DispatchCmp::EQ && kind->first != DispatchCmp::NE))
    return std::nullopt;
  for (size_t k = 0; k < 2; ++k) {
    std::optional<MaskedBit> b = trackedBit(in.srcs[k], facts);
    if (!b)
      continue;
    if (knownValue(in.srcs[1 - k], facts) != 0u)
      return std::nullopt;
    Cond c;
    c.cmp = kind->first, c.bias = b->bias, c.bitTest = true, c.mask = b->mask;
    return c;
  }
  return std::nullopt;
}

// MOV r, imm (or RZ), 32-bit and unguarded: r's value.
std::optional<uint32_t> movedConstant(const Instr &in) {
  if (!plainForm(in, Opcode::MOV, 1))
    return std::nullopt;
  return constantOf(in.srcs[0]);
}

// SHL b, one, t (32-bit, unguarded) with `one` holding 1 and t holding
// selector - bias: b = 1 << (selector - bias). The interpreter and the SHL
// model both take all 32 bits of the amount and give 0 from 32 up (no masking
// to 5 bits), which is the BitTest node's bit.
std::optional<MaskedBit> shiftedBit(const Instr &in, const Facts &facts) {
  if (!plainForm(in, Opcode::SHL, 2) || knownValue(in.srcs[0], facts) != 1u)
    return std::nullopt;
  std::optional<uint32_t> bias = trackedBias(in.srcs[1], facts);
  if (!bias)
    return std::nullopt;
  return MaskedBit{*bias, 0xffffffffu};
}

// LOP3.LUT x, a, b, c, lut (32-bit, unguarded) with one of a, b, c a masked
// bit and the other two known constants. LOP3 works bit by bit and the masked
// bit has at most one bit set, so x = bit & M exactly when the LUT gives 0
// with that source all zeros, M being what it gives with the source all ones
// (the LUT is evaluated on the real operands, so AND written in any operand
// order or with any LUT that is AND where the other inputs are is read).
std::optional<MaskedBit> maskedBit(const Instr &in, const Facts &facts) {
  if (!plainForm(in, Opcode::LOP3, 4))
    return std::nullopt;
  const Operand &l = in.srcs[3];
  if (l.kind != Operand::Kind::Imm || l.neg || l.abs || l.imm < 0 || l.imm > 0xff)
    return std::nullopt;
  std::optional<size_t> at;
  MaskedBit from;
  uint32_t v[3] = {0, 0, 0};
  for (size_t k = 0; k < 3; ++k) {
    if (std::optional<uint32_t> c = knownValue(in.srcs[k], facts)) {
      v[k] = *c;
    } else if (std::optional<MaskedBit> b = trackedBit(in.srcs[k], facts); b && !at) {
      at = k, from = *b;
    } else {
      return std::nullopt; // an unknown source, or the bit twice
    }
  }
  if (!at)
    return std::nullopt;
  auto eval = [&](uint32_t x) {
    uint32_t w[3] = {v[0], v[1], v[2]};
    w[*at] = x;
    return lut::apply<uint32_t>(uint32_t(l.imm), w[0], w[1], w[2]);
  };
  if (eval(0) != 0)
    return std::nullopt; // not bit & M: e.g. an OR with M
  return MaskedBit{from.bias, from.mask & eval(0xffffffffu)};
}

// SGXT t, x, w (no .U32, 32-bit, unguarded, w an immediate) with x holding
// the selector itself (bias 0): whether t holds the selector too. SGXT gives
// the low w bits of x sign-extended, 0 for w = 0 and x for w >= 32 (the
// interpreter, interp/interp_alu.cpp, and the SGXT model, verify/model_int.cpp).
// For 0 < w < 32 that is x exactly when x < 2^(w-1); the head's bound
// (selector <= maxSelector) must say so for every selector.
bool sgxtCopiesSelector(const Instr &in, const Facts &facts, uint32_t maxSelector) {
  if (!plainForm(in, Opcode::SGXT, 2))
    return false;
  if (trackedBias(in.srcs[0], facts) != 0u)
    return false;
  const Operand &w = in.srcs[1];
  if (w.kind != Operand::Kind::Imm)
    return false;
  std::optional<uint32_t> width = constantOf(w);
  if (!width || *width == 0)
    return false;
  if (*width >= 32)
    return true;
  // .U32 keeps the low w bits (selector < 2^w), the signed form extends bit w-1 (selector <
  // 2^(w-1)).
  const uint32_t kept = in.has(Mod::U32) ? *width : *width - 1;
  return (uint64_t(maxSelector) >> kept) == 0;
}

enum class Effect { Derive, Compare, Value, SelectorWritten, Other };

// The facts about what `in` writes end there.
void forgetDefs(const Instr &in, Facts &facts) {
  for (Reg r : in.defs()) {
    facts.regs.erase(r);
    facts.preds.erase(r);
    facts.consts.erase(r);
    facts.bits.erase(r);
  }
}

// Updates `facts` past one instruction (not the block's branch); the head's
// bound is selector <= maxSelector.
Effect apply(const Instr &in, Facts &facts, Reg selector, uint32_t maxSelector) {
  std::vector<Reg> defs = in.defs();
  if (std::find(defs.begin(), defs.end(), selector) != defs.end()) {
    facts = initialFacts(selector); // the dispatch reads the selector's last value
    return Effect::SelectorWritten;
  }
  // Each new fact is read from the facts before `in`, then what `in` writes is
  // forgotten, then the fact is recorded (so SHL R4, R3, R4 works).
  if (std::optional<uint32_t> bias = derivedBias(in, facts)) {
    forgetDefs(in, facts);
    facts.regs[in.dsts[0].reg] = *bias;
    return Effect::Derive;
  }
  if (sgxtCopiesSelector(in, facts, maxSelector)) {
    forgetDefs(in, facts);
    facts.regs[in.dsts[0].reg] = 0;
    return Effect::Derive;
  }
  std::optional<Cond> c = compareOf(in, facts);
  if (!c)
    c = bitTestOf(in, facts);
  if (c) {
    Reg p = in.dsts[0].reg, q = in.dsts[1].reg;
    Cond notC = *c;
    notC.cmp = negated(c->cmp); // a bit test's EQ and NE negate each other too
    // Written in order, as the interpreter does: q wins when p == q.
    if (!p.isConst())
      facts.preds[p] = *c;
    if (!q.isConst())
      facts.preds[q] = notC;
    return Effect::Compare;
  }
  if (std::optional<uint32_t> k = movedConstant(in)) {
    forgetDefs(in, facts);
    facts.consts[in.dsts[0].reg] = *k;
    return Effect::Value;
  }
  std::optional<MaskedBit> bit = shiftedBit(in, facts);
  if (!bit)
    bit = maskedBit(in, facts);
  if (bit) {
    forgetDefs(in, facts);
    facts.bits[in.dsts[0].reg] = *bit;
    return Effect::Value;
  }
  forgetDefs(in, facts);
  return Effect::Other;
}

// How one block continues the dispatch.
struct Step {
  enum class Kind { Leaf, Goto, Compare, Table };
  Kind kind = Kind::Leaf;
  Cond cond;                  // Compare
  uint32_t bias = 0;          // Table
  std::vector<uint32_t> succ; // Goto: {to}; Compare: {ifTrue, ifFalse}; Table: its entries
  Facts out;                  // the facts on every edge out
};

std::string bixName(const Function &f, uint32_t bix) {
  const Block &b = f.blocks[bix];
  return b.label.empty() ? fmt::format("bix{}", bix) : fmt::format("{} (bix{})", b.label, bix);
}

// Block `bix` entered with `facts`. The head may run any code before its tail
// and must end in dispatch (else an error says why); any other block is a Leaf
// unless it holds nothing but dispatch. selector <= maxSelector (the head's
// bound) holds throughout.
std::variant<Step, std::string> analyze(const Function &f, uint32_t bix, Facts facts, Reg selector,
                                        bool isHead, uint32_t maxSelector) {
  const Block &b = f.blocks[bix];
  const uint32_t numBlocks = uint32_t(f.blocks.size());
  auto notDispatch = [&](const std::string &why) -> std::variant<Step, std::string> {
    if (isHead)
      return fmt::format("{} is not a dispatch: {}", bixName(f, bix), why);
    return Step{};
  };
  const size_t n = b.instrs.size();
  const bool endsInControl = n > 0 && b.instrs.back().info().is(CONTROL);
  // The registers and predicates a non-head block writes and has not read
  // yet. Such a block must read them itself (its SHL, LOP3, ISETP and BRA
  // do): a block that leaves a value for later, as a case body `MOV R2, 0x1;
  // BRA join` or `IADD3 R5, R0, 0x1, RZ; BRA join` does, is a leaf, not a
  // trampoline.
  std::set<Reg> unread;
  for (size_t i = 0; i + (endsInControl ? 1 : 0) < n; ++i) {
    const Instr &in = b.instrs[i];
    for (Reg r : in.uses())
      unread.erase(r);
    for (Reg r : in.defs())
      unread.erase(r);
    Effect e = apply(in, facts, selector, maxSelector);
    if (!isHead && (e == Effect::Other || e == Effect::SelectorWritten))
      return Step{};
    for (Reg r : in.defs())
      if (!r.isConst())
        unread.insert(r);
  }
  if (endsInControl)
    for (Reg r : b.instrs.back().uses())
      unread.erase(r);
  if (!isHead && !unread.empty())
    return Step{};
  Step s;
  s.out = std::move(facts);
  if (!endsInControl) {
    // Falls through: the head's tail is in the next block; an empty block is a
    // trampoline (it shares its label id with the next one); a non-empty
    // non-head block that does not branch is a leaf.
    if (!isHead && n > 0)
      return Step{};
    if (bix + 1 >= numBlocks)
      return notDispatch("it falls off the end of the function");
    s.kind = Step::Kind::Goto;
    s.succ = {bix + 1};
    return s;
  }
  const Instr &t = b.instrs.back();
  if (t.op == Opcode::BRA && t.srcs.size() == 1 && t.srcs[0].kind == Operand::Kind::Label) {
    uint32_t to = t.srcs[0].target;
    if (to >= numBlocks)
      return fmt::format("{}: BRA to a missing block", bixName(f, bix));
    if (!t.isGuarded()) {
      s.kind = Step::Kind::Goto;
      s.succ = {to};
      return s;
    }
    auto it = t.guard->reg.isConst() ? s.out.preds.end() : s.out.preds.find(t.guard->reg);
    if (it == s.out.preds.end())
      return notDispatch(
          fmt::format("the guard of {} is not a compare of the selector", printInstr(f, t)));
    if (bix + 1 >= numBlocks)
      return fmt::format("{}: a conditional branch falls off the end of the function",
                         bixName(f, bix));
    s.kind = Step::Kind::Compare;
    s.cond = it->second;
    s.succ = t.guard->neg ? std::vector<uint32_t>{bix + 1, to} : std::vector<uint32_t>{to, bix + 1};
    return s;
  }
  if (isTableBranch(t.op) && !t.isGuarded() && t.srcs.size() == 2 &&
      t.srcs[1].kind == Operand::Kind::JumpTable && t.srcs[1].target < f.jumpTables.size()) {
    std::optional<uint32_t> bias = trackedBias(t.srcs[0], s.out);
    if (!bias)
      return notDispatch(
          fmt::format("the index of {} is not derived from the selector", printInstr(f, t)));
    const JumpTable &jt = f.jumpTables[t.srcs[1].target];
    if (jt.targets.empty())
      return notDispatch(fmt::format("jump table {} is empty", jt.name));
    for (uint32_t to : jt.targets)
      if (to >= numBlocks)
        return fmt::format("jump table {} names a missing block", jt.name);
    s.kind = Step::Kind::Table;
    s.bias = *bias;
    s.succ = jt.targets;
    return s;
  }
  return notDispatch(fmt::format("it ends in {}", printInstr(f, t)));
}

bool sameNode(const DispatchNode &a, const DispatchNode &b) {
  return a.kind == b.kind && a.target == b.target && a.bias == b.bias && a.cmp == b.cmp &&
         a.isSigned == b.isSigned && a.constant == b.constant && a.ifTrue == b.ifTrue &&
         a.ifFalse == b.ifFalse && a.entries == b.entries && a.clusters == b.clusters &&
         a.otherwise == b.otherwise;
}

} // namespace

SwitchExtractor::SwitchExtractor(const Function &f, size_t maxNodes) : f_(f), maxNodes_(maxNodes) {
  for (uint32_t b = 0; b < f.blocks.size(); ++b)
    byId_[f.blocks[b].labelId].push_back(b);
}

std::optional<uint32_t> SwitchExtractor::blockWithId(uint32_t labelId) const {
  auto it = byId_.find(labelId);
  if (it == byId_.end())
    return std::nullopt;
  if (it->second.size() == 1)
    return it->second[0];
  std::optional<uint32_t> found;
  for (uint32_t b : it->second) {
    if (f_.blocks[b].instrs.empty())
      continue;
    if (found)
      return std::nullopt;
    found = b;
  }
  return found;
}

std::string SwitchExtractor::blockName(uint32_t labelId) const {
  if (labelId == kFaultTarget)
    return "a fault (past the jump table)";
  std::optional<uint32_t> b = blockWithId(labelId);
  if (b && !f_.blocks[*b].label.empty())
    return f_.blocks[*b].label;
  return fmt::format("L{:x}", labelId);
}

std::variant<DispatchProgram, std::string> SwitchExtractor::extract(uint32_t head,
                                                                    Reg selector) const {
  if (head >= f_.blocks.size())
    return fmt::format("no block bix{}", head);
  // The head's last write of the selector bounds it in every dispatch block:
  // they do not write it (a block that does is a leaf).
  const uint32_t maxSelector = selectorBound(f_, head, selector).max;
  DispatchProgram prog;
  std::map<std::pair<uint32_t, Facts>, uint32_t> done; // (block, facts on entry) -> its node
  std::map<uint32_t, uint32_t> targetNode;             // label id -> its Target node
  std::vector<bool> onPath(f_.blocks.size());
  size_t work = 0;
  std::string err;

  struct Frame {
    uint32_t bix;
    Facts in;
    bool isHead;
    Step step;
    std::vector<uint32_t> kids; // the nodes of step.succ[0 .. kids.size())
  };
  std::vector<Frame> stack;

  // A leaf: the Target node of its label id, one per id.
  auto leaf = [&](uint32_t bix) -> std::optional<uint32_t> {
    uint32_t id = f_.blocks[bix].labelId;
    if (id == kFaultTarget) {
      err = fmt::format("ambiguous block identity: leaf {} has the fault's id L{:x}",
                        bixName(f_, bix), id);
      return std::nullopt;
    }
    if (blockWithId(id) != bix) {
      err = fmt::format(
          "ambiguous block identity: leaf {} has label id L{:x}, which {} other block(s) also have",
          bixName(f_, bix), id, byId_.at(id).size() - 1);
      return std::nullopt;
    }
    auto [it, fresh] = targetNode.try_emplace(id, 0);
    if (fresh)
      it->second = prog.target(id);
    return it->second;
  };
  // The node of block `bix` entered with `facts` when it is known now (a leaf,
  // or done before); else pushes a frame for it, or sets err.
  auto visit = [&](uint32_t bix, const Facts &facts, bool isHead) -> std::optional<uint32_t> {
    if (++work > maxNodes_) {
      err = fmt::format("too large: over {} blocks visited", maxNodes_);
      return std::nullopt;
    }
    if (!isHead)
      if (auto it = done.find({bix, facts}); it != done.end())
        return it->second;
    std::variant<Step, std::string> r = analyze(f_, bix, facts, selector, isHead, maxSelector);
    if (auto *e = std::get_if<std::string>(&r)) {
      err = *e;
      return std::nullopt;
    }
    Step &s = std::get<Step>(r);
    if (s.kind == Step::Kind::Leaf)
      return leaf(bix);
    if (onPath[bix]) {
      err = fmt::format("a cycle of dispatch blocks through {}", bixName(f_, bix));
      return std::nullopt;
    }
    onPath[bix] = true;
    stack.push_back(Frame{bix, facts, isHead, std::move(s), {}});
    return std::nullopt;
  };
  // The node of a frame whose successors all have nodes.
  auto build = [&](const Frame &fr) -> uint32_t {
    const Step &s = fr.step;
    switch (s.kind) {
    case Step::Kind::Leaf:
      break; // never pushed
    case Step::Kind::Goto:
      return fr.kids[0];
    case Step::Kind::Compare:
      if (s.cond.bitTest) {
        // NE: the bit in the mask makes the predicate true; EQ: false.
        const bool hitIsTrue = s.cond.cmp == DispatchCmp::NE;
        return prog.bitTest(s.cond.bias, {{s.cond.mask, fr.kids[hitIsTrue ? 0 : 1]}},
                            fr.kids[hitIsTrue ? 1 : 0]);
      }
      return prog.compare(s.cond.cmp, s.cond.isSigned, s.cond.constant, fr.kids[0], fr.kids[1],
                          s.cond.bias);
    case Step::Kind::Table: {
      // A table entry is a block; an entry whose block dispatches further
      // becomes `v == k ? its node : table` in front of the table.
      std::vector<uint32_t> entries(fr.kids.size());
      std::vector<size_t> further;
      for (size_t k = 0; k < fr.kids.size(); ++k) {
        const DispatchNode &n = prog.nodes[fr.kids[k]];
        if (n.kind == DispatchNode::Kind::Target)
          entries[k] = n.target;
        else
          further.push_back(k), entries[k] = kFaultTarget; // never read: caught by the compare
      }
      uint32_t node = prog.table(s.bias, std::move(entries));
      for (size_t k : further)
        node = prog.compare(DispatchCmp::EQ, false, uint32_t(k), fr.kids[k], node, s.bias);
      return node;
    }
    }
    return 0;
  };

  std::optional<uint32_t> root = visit(head, initialFacts(selector), true);
  while (err.empty() && !stack.empty()) {
    Frame &fr = stack.back();
    if (fr.kids.size() < fr.step.succ.size()) {
      uint32_t to = fr.step.succ[fr.kids.size()];
      Facts out = fr.step.out; // a copy: visit may grow the stack
      if (std::optional<uint32_t> node = visit(to, out, false))
        stack.back().kids.push_back(*node);
      continue;
    }
    uint32_t node = build(fr);
    onPath[fr.bix] = false;
    if (!fr.isHead)
      done.emplace(std::pair{fr.bix, std::move(fr.in)}, node);
    stack.pop_back();
    if (stack.empty())
      root = node;
    else
      stack.back().kids.push_back(node);
  }
  if (!err.empty())
    return err;
  if (!root)
    return std::string("no dispatch"); // not reached: no error means a root
  // The last node is where dispatch starts; a root reached through trampolines
  // may be an earlier node: repeat it (its references stay earlier).
  if (*root + 1 != prog.nodes.size())
    prog.nodes.push_back(prog.nodes[*root]);
  return prog;
}

std::variant<DispatchProgram, std::string> extractDispatch(const Function &f, uint32_t head,
                                                           Reg selector, size_t maxNodes) {
  return SwitchExtractor(f, maxNodes).extract(head, selector);
}

bool sameProgram(const DispatchProgram &a, const DispatchProgram &b) {
  return a.nodes.size() == b.nodes.size() &&
         std::equal(a.nodes.begin(), a.nodes.end(), b.nodes.begin(), sameNode);
}

} // namespace ori::verify
