// Phases 14/30 DoSwitchOpt (rules/do_switch_opt.h), the reference way. Where a tree sends each
// selector value is found without any set algebra: the tree's constants cut the 32-bit values
// into elementary intervals on which every compare of the tree gives one answer, and one value
// of each interval is run down the tree. The case set is a std::map from case value to target
// block.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "reference/do_switch_opt_impl.h"
#include "reference/reference.h"
#include "rules/block_merging.h"
#include "rules/do_switch_opt.h"

namespace ori::reference {
namespace {

using Compare = SwitchCompare;

bool writes(const Instr &in, Reg r) {
  for (const Operand &d : in.dsts)
    if (d.isReg() && d.reg == r)
      return true;
  return false;
}

// A compare block (its compare, @!P or @P, where the branch and the fall-through go) or a
// trampoline (only `taken`).
struct Node {
  bool isCompare = false;
  Compare cmp{};
  bool negated = false;
  uint32_t taken = 0, fallThrough = 0;
  size_t isetpIndex = 0;
  std::optional<size_t> iaddIndex; // the head: the IADD3 of a biased compare, or the SGXT
  uint32_t bound = UINT32_MAX;     // the head: a bound on the selector (boundOf)
  std::optional<Reg> bit;          // a bit test: the register holding 1 << S
  bool makesBit = false;           // ... made in this block (MOV 1; SHL)
};

struct Recognizer {
  const Function &f;
  const SwitchOptOptions &opt;
  std::map<Reg, int> reads; // predicate and R registers: how many times each is read
  std::map<Reg, int> defs;  // and written
  std::set<uint32_t> consumed;
  CfgFacts cfg;

  Recognizer(const Function &fn, const SwitchOptOptions &o) : f(fn), opt(o), cfg(computeCfg(fn)) {
    for (const Block &b : f.blocks)
      for (const Instr &in : b.instrs) {
        for (Reg r : in.defs())
          ++defs[r];
        if (in.guard && !in.guard->reg.isConst())
          ++reads[in.guard->reg];
        for (const Operand &s : in.srcs) {
          if (s.isReg() && s.reg.isPredicate() && !s.reg.isConst())
            ++reads[s.reg];
          if (std::optional<Reg> r = s.regRead(); r && r->file == RegFile::R && !r->isConst())
            ++reads[*r];
        }
      }
  }

  bool readOnce(Reg p) const { return reads.count(p) && reads.at(p) == 1; }

  std::optional<Node> head(uint32_t b) const {
    const std::vector<Instr> &ins = f.blocks[b].instrs;
    if (ins.size() < 2 || b + 1 >= f.blocks.size())
      return std::nullopt;
    const Instr &bra = ins.back();
    if (bra.op != Opcode::BRA || !bra.isGuarded() || bra.guard->reg.isConst())
      return std::nullopt;
    // The last instruction before the BRA that writes its predicate must be the compare.
    for (size_t i = ins.size() - 1; i-- > 0;) {
      std::optional<Compare> c = selectorCompare(ins[i]);
      if (c && c->pred == bra.guard->reg) {
        if (!readOnce(c->pred))
          return std::nullopt;
        Node nd{true, *c,           bra.guard->neg, bra.srcs[0].target, b + 1,
                i,    std::nullopt, UINT32_MAX,     std::nullopt,       false};
        // The compared register made by an IADD3 t = S + k of this block, read only here: a range
        // check on S; or by an SGXT that leaves S as it is under S's bound there: a compare of S.
        size_t j = i;
        while (j > 0 && !writes(ins[j - 1], c->selector))
          --j;
        nd.bound = boundOf(ins, c->selector, i);
        if (j > 0 && readOnce(c->selector)) {
          std::optional<SwitchOffset> off = offsetOf(ins[j - 1]);
          std::optional<Reg> wide =
              ins[j - 1].op == Opcode::SGXT && ins[j - 1].srcs.size() == 2 &&
                      ins[j - 1].srcs[0].isReg()
                  ? sgxtIdentity(ins[j - 1], boundOf(ins, ins[j - 1].srcs[0].reg, j - 1))
                  : std::nullopt;
          if (off) {
            nd.cmp.selector = off->s;
            nd.cmp.bias = 0u - off->k;
            nd.iaddIndex = j - 1;
            nd.bound = boundOf(ins, off->s, j - 1);
          } else if (wide) {
            nd.cmp.selector = *wide;
            nd.iaddIndex = j - 1;
            nd.bound = boundOf(ins, *wide, j - 1);
          }
        }
        for (size_t k = nd.iaddIndex.value_or(i) + 1; k + 1 < ins.size(); ++k)
          if (writes(ins[k], nd.cmp.selector))
            return std::nullopt;
        return nd;
      }
      if (!opt.extendedPatternMatch || writes(ins[i], bra.guard->reg) || ins[i].info().is(CONTROL))
        return std::nullopt;
    }
    return std::nullopt;
  }

  // nvcc's bit test on selector S (bitTestShape), with one, x and P read once. Whether `bit`
  // really is 1 << S is checked on the whole tree (bitTestsSound).
  std::optional<Node> bitTestNode(uint32_t b, Reg selector) const {
    if (b + 1 >= f.blocks.size())
      return std::nullopt;
    const std::vector<Instr> &ins = f.blocks[b].instrs;
    const std::optional<BitTestShape> t = bitTestShape(ins, selector);
    if (!t || (t->one && !readOnce(*t->one)) || !readOnce(t->x) || !readOnce(t->cmp.pred))
      return std::nullopt;
    const Instr &bra = ins.back();
    Node nd{true,         t->cmp,     bra.guard->neg, bra.srcs[0].target, b + 1, t->isetpIndex,
            std::nullopt, UINT32_MAX, t->bit,         t->one.has_value()};
    return nd;
  }

  // Every bit register of the tree holds 1 << S where it is read: it is
  // written once in the function, by a node of the tree, and read only by the
  // tree's bit tests; and a node that reads it without making it is entered
  // (in the whole CFG) only from nodes of the tree that read the same register.
  bool bitTestsSound(const std::map<uint32_t, Node> &tree) const {
    std::map<Reg, int> users, makers;
    for (const auto &[b, nd] : tree)
      if (nd.bit) {
        ++users[*nd.bit];
        if (nd.makesBit)
          ++makers[*nd.bit];
      }
    for (const auto &[bit, n] : users)
      if (!reads.count(bit) || reads.at(bit) != n || !makers.count(bit) || makers.at(bit) != 1 ||
          defs.at(bit) != 1)
        return false;
    for (const auto &[b, nd] : tree)
      if (nd.bit && !nd.makesBit)
        for (uint32_t p : cfg.preds[b])
          if (!tree.count(p) || tree.at(p).bit != nd.bit)
            return false;
    return true;
  }

  std::optional<Node> node(uint32_t b, Reg selector, uint32_t headBix, uint32_t bound) const {
    if (b == headBix || consumed.count(b))
      return std::nullopt;
    const std::vector<Instr> &ins = f.blocks[b].instrs;
    if (opt.secondPass && !ins.empty() && ins[0].info().is(CONVERGENCE | BARRIER))
      return std::nullopt;
    if (std::optional<Node> bt = bitTestNode(b, selector))
      return bt;
    if (ins.size() == 1 && ins[0].op == Opcode::BRA && !ins[0].isGuarded())
      return Node{false, {},           false,      ins[0].srcs[0].target, 0,
                  0,     std::nullopt, UINT32_MAX, std::nullopt,          false};
    if ((ins.size() != 2 && ins.size() != 3) || b + 1 >= f.blocks.size())
      return std::nullopt;
    const Instr &bra = ins.back();
    if (bra.op != Opcode::BRA || !bra.isGuarded() || bra.guard->reg.isConst())
      return std::nullopt;
    std::optional<Compare> c = selectorCompare(ins[ins.size() - 2]);
    if (!c || c->pred != bra.guard->reg || !readOnce(c->pred))
      return std::nullopt;
    if (ins.size() ==
        3) { // IADD3 t, S, k, RZ or SGXT t, S, k; ISETP on t; @P BRA: a range check on S, or S
      if (!writes(ins[0], c->selector) || !readOnce(c->selector))
        return std::nullopt;
      if (std::optional<SwitchOffset> off = offsetOf(ins[0])) {
        c->selector = off->s;
        c->bias = 0u - off->k;
      } else if (std::optional<Reg> wide = sgxtIdentity(ins[0], bound)) {
        c->selector = *wide;
      } else {
        return std::nullopt;
      }
    }
    if (c->selector != selector)
      return std::nullopt;
    return Node{true,           *c,           bra.guard->neg, bra.srcs[0].target, b + 1,
                ins.size() - 2, std::nullopt, UINT32_MAX,     std::nullopt,       false};
  }

  // Depth-first from the head: every node once; false on a cycle of nodes or too many.
  bool collect(uint32_t b, Reg selector, uint32_t headBix, uint32_t bound,
               std::map<uint32_t, Node> &tree, std::set<uint32_t> &path) {
    path.insert(b);
    const Node nd = tree.at(b);
    std::vector<uint32_t> succs{nd.taken};
    if (nd.isCompare)
      succs.push_back(nd.fallThrough);
    for (uint32_t s : succs) {
      if (s == headBix)
        continue; // the head again: a leaf
      if (tree.count(s)) {
        if (path.count(s))
          return false;
        continue;
      }
      std::optional<Node> next = node(s, selector, headBix, bound);
      if (!next)
        continue;
      if (tree.size() >= kSwitchMaxTreeBlocks)
        return false;
      tree[s] = *next;
      if (!collect(s, selector, headBix, bound, tree, path))
        return false;
    }
    path.erase(b);
    return true;
  }

  // Compare blocks on the longest path from b.
  uint32_t longestPath(uint32_t b, uint32_t headBix, const std::map<uint32_t, Node> &tree) const {
    const Node &nd = tree.at(b);
    uint32_t below = 0;
    for (uint32_t s : {nd.taken, nd.fallThrough})
      if ((s != nd.fallThrough || nd.isCompare) && s != headBix && tree.count(s))
        below = std::max(below, longestPath(s, headBix, tree));
    return below + (nd.isCompare ? 1 : 0);
  }

  // Where the tree sends value v.
  uint32_t leafOf(uint32_t headBix, const std::map<uint32_t, Node> &tree, uint32_t v) const {
    uint32_t at = headBix;
    for (;;) {
      const Node &nd = tree.at(at);
      const uint32_t next =
          !nd.isCompare || compareHolds(nd.cmp, v) != nd.negated ? nd.taken : nd.fallThrough;
      if (next == headBix || !tree.count(next))
        return next;
      at = next;
    }
  }

  // How many compare blocks value v passes before it leaves the tree.
  uint32_t depthOf(uint32_t headBix, const std::map<uint32_t, Node> &tree, uint32_t v) const {
    uint32_t at = headBix, depth = 0;
    for (;;) {
      const Node &nd = tree.at(at);
      depth += nd.isCompare ? 1 : 0;
      const uint32_t next =
          !nd.isCompare || compareHolds(nd.cmp, v) != nd.negated ? nd.taken : nd.fallThrough;
      if (next == headBix || !tree.count(next))
        return depth;
      at = next;
    }
  }

  uint64_t countOf(uint32_t b) const {
    if (f.blocks[b].label.empty())
      return 0;
    auto it = opt.blockCounts->find(f.blocks[b].label);
    return it == opt.blockCounts->end() ? 0 : it->second;
  }

  static uint32_t bstDepth(uint32_t lo, uint32_t hi) {
    if (lo == hi)
      return 1;
    const uint32_t mid = lo + (hi - lo) / 2;
    return 2 + std::max(bstDepth(mid + 1, hi), mid > lo ? bstDepth(lo, mid - 1) : 0u);
  }

  std::optional<Decision> decide(uint32_t headBix, const Node &root, SwitchOptCounts &counts) {
    std::map<uint32_t, Node> tree{{headBix, root}};
    std::set<uint32_t> path;
    if (!collect(headBix, root.cmp.selector, headBix, root.bound, tree, path) ||
        !bitTestsSound(tree))
      return std::nullopt;
    for (const auto &[b, nd] : tree)
      if (nd.isCompare)
        consumed.insert(b);

    // Elementary intervals: every compare of the tree answers the same inside one.
    std::set<uint64_t> cuts{0, 0x80000000u};
    for (const auto &[b, nd] : tree)
      if (nd.isCompare && nd.cmp.isBitTest) {
        // A bit test's answer changes only at its mask's bits.
        for (uint32_t i = 0; i < 32; ++i)
          if ((nd.cmp.mask >> i) & 1)
            cuts.insert(uint32_t(i + nd.cmp.bias)), cuts.insert(uint32_t(i + 1 + nd.cmp.bias));
      } else if (nd.isCompare) {
        // The answer of `S - bias cmp c` changes where S - bias passes c, c + 1, 0 or 0x80000000.
        for (uint32_t at : {nd.cmp.constant, nd.cmp.constant + 1, 0u, 0x80000000u})
          cuts.insert(uint32_t(at + nd.cmp.bias));
      }
    cuts.insert(uint64_t(1) << 32);
    std::map<uint32_t, uint64_t> reached; // leaf -> how many values
    std::vector<std::pair<std::pair<uint32_t, uint32_t>, uint32_t>> pieces; // [lo, hi] -> leaf
    for (auto it = cuts.begin(); std::next(it) != cuts.end() && *it < (uint64_t(1) << 32); ++it) {
      const uint64_t lo = *it, hi = *std::next(it) - 1;
      const uint32_t leaf = leafOf(headBix, tree, uint32_t(lo));
      reached[leaf] += hi - lo + 1;
      pieces.push_back({{uint32_t(lo), uint32_t(hi)}, leaf});
    }
    uint32_t deflt = 0;
    uint64_t most = 0;
    for (const auto &[leaf, count] : reached)
      if (count > most)
        most = count, deflt = leaf;
    const uint64_t caseValues = (uint64_t(1) << 32) - most;
    if (caseValues == 0 || caseValues > kSwitchMaxCaseValues)
      return std::nullopt;
    ++counts.switches;

    std::map<uint32_t, uint32_t> cases; // value -> target
    for (const auto &[range, leaf] : pieces)
      if (leaf != deflt)
        for (uint64_t v = range.first; v <= range.second; ++v)
          cases[uint32_t(v)] = leaf;
    // Signed order: the values as int32_t.
    std::vector<uint32_t> inSigned;
    for (const auto &[v, t] : cases)
      inSigned.push_back(v);
    std::stable_sort(inSigned.begin(), inSigned.end(),
                     [](uint32_t a, uint32_t b) { return int32_t(a) < int32_t(b); });
    const uint64_t spanUnsigned = uint64_t(cases.rbegin()->first - cases.begin()->first) + 1;
    const uint64_t spanSigned = uint64_t(uint32_t(inSigned.back() - inSigned.front())) + 1;
    const bool isSigned = spanSigned < spanUnsigned;
    std::vector<uint32_t> order;
    if (isSigned)
      order = inSigned;
    else
      for (const auto &[v, t] : cases)
        order.push_back(v);

    Decision d{headBix, root.cmp.selector, root.isetpIndex, root.iaddIndex,
               deflt,   isSigned,          Lowering::Bst,   {}};
    for (size_t i = 0; i < order.size(); ++i) {
      const uint32_t v = order[i], t = cases.at(v);
      if (i > 0 && v == order[i - 1] + 1 && d.clusters.back().target == t)
        d.clusters.back().hi = v;
      else
        d.clusters.push_back({v, v, t});
    }
    if (opt.blockCounts) { // the PGO early exit; cascades weighed under the counts
      uint32_t compares = 0;
      for (const auto &[b, nd] : tree)
        compares += nd.isCompare ? 1 : 0;
      if (d.clusters.size() > kSwitchCascadeMaxClusters) {
        ++counts.keptForProfile;
        return std::nullopt;
      }
      if (compares <= kSwitchProfileMaxCompares) {
        // Compares executed, each cluster weighed by its target's count and the
        // default by its own at its deepest value: the tree as it is ...
        unsigned __int128 before = 0, after = 0;
        uint32_t defaultDepth = 0;
        for (const auto &[range, leaf] : pieces)
          if (leaf == deflt)
            defaultDepth = std::max(defaultDepth, depthOf(headBix, tree, range.first));
        for (const Cluster &c : d.clusters)
          before += (unsigned __int128)countOf(c.target) * depthOf(headBix, tree, c.lo);
        before += (unsigned __int128)countOf(deflt) * defaultDepth;
        // ... and the cascade testing the clusters hottest first (ties: in order).
        std::vector<Cluster> hot = d.clusters;
        std::stable_sort(hot.begin(), hot.end(), [&](const Cluster &a, const Cluster &b) {
          return countOf(a.target) > countOf(b.target);
        });
        for (size_t i = 0; i < hot.size(); ++i)
          after += (unsigned __int128)countOf(hot[i].target) * (i + 1);
        after += (unsigned __int128)countOf(deflt) * hot.size();
        if (after < before) {
          d.clusters = hot;
          d.how = Lowering::Cascade;
          ++counts.reordered;
          return d;
        }
      }
      ++counts.keptSmall;
      return std::nullopt;
    }
    if (opt.bitTests) {
      std::set<uint32_t> destinations;
      uint32_t compares = 0;
      for (const Cluster &c : d.clusters) {
        destinations.insert(c.target);
        compares += c.lo == c.hi ? 1 : 2;
      }
      const uint64_t span = uint64_t(uint32_t(d.clusters.back().hi - d.clusters.front().lo)) + 1;
      if (suitableForBitTests(span, uint32_t(destinations.size()), compares)) {
        // A tree that already tests bits (nvcc's) is what the lowering would make again.
        for (const auto &[b, nd] : tree)
          if (nd.bit) {
            ++counts.keptBitTests;
            return std::nullopt;
          }
        d.how = Lowering::BitTests;
        ++counts.bitTests;
        return d;
      }
    }
    if (d.clusters.size() <= kSwitchCascadeMaxClusters) {
      ++counts.keptSmall;
      return std::nullopt;
    }
    const uint64_t span = isSigned ? spanSigned : spanUnsigned;
    uint64_t tableLimit = kSwitchMaxTableEntries;
    if (opt.budget >= 0)
      tableLimit = std::min(tableLimit, uint64_t(opt.budget));
    if (span <= tableLimit && cases.size() * 100 >= span * kSwitchDensityPercent) {
      d.how = Lowering::JumpTable;
      ++counts.jumpTables;
      return d;
    }
    if (bstDepth(0, uint32_t(d.clusters.size() - 1)) >= longestPath(headBix, headBix, tree)) {
      ++counts.keptShallow;
      return std::nullopt;
    }
    ++counts.bsts;
    return d;
  }
};

} // namespace

SwitchOptCounts doSwitchOpt(Function &f, const SwitchOptOptions &options) {
  SwitchOptCounts counts;
  if (f.blocks.empty())
    return counts;
  // Every decision is made on the function as it came in.
  Recognizer r(f, options);
  std::vector<Decision> decisions;
  for (uint32_t b : r.cfg.rpo) {
    if (r.consumed.count(b))
      continue;
    if (std::optional<Node> h = r.head(b))
      if (std::optional<Decision> d = r.decide(b, *h, counts))
        decisions.push_back(*d);
  }
  if (decisions.empty())
    return counts;

  emitLowerings(f, decisions);
  counts.erasedBlocks = uint32_t(eraseUnreachableBlocks(f).size());
  if (options.mergeBlocks)
    mergeUnlabelledBlocks(f);
  dropEmptyUnlabelledBlocks(f);
  if (!options.mergeBlocks)
    labelFallThroughBlocks(f); // --dont-merge-basicblocks
  return counts;
}

} // namespace ori::reference
