// Phases 14/30 DoSwitchOpt (rules/do_switch_opt.h), the optimized way: the
// selector values that reach each block of a tree propagated as interval
// sets in one topological sweep (the reference evaluates one value of every
// elementary interval instead), and the case set kept as the spec's bitset
// red-black tree: a std::map (a red-black tree) from value >> 8 to a 256-bit
// leaf (spec/003 "Case Sort via BitsetRBTree"), which gives the case count,
// the hull and the clusters in order. All lowerings are applied in one
// renumbering of the blocks at the end.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "ir/inline_vector.h"
#include "optimized/do_switch_opt_impl.h"
#include "optimized/fnv_map.h"
#include "optimized/group_by_key.h"
#include "optimized/optimized.h"
#include "rules/block_merging.h"
#include "rules/do_switch_opt.h"

namespace ori::optimized {
namespace {

constexpr uint32_t kNone = UINT32_MAX;
constexpr uint32_t kSignFlip = 0x80000000u;

using SelectorCompare = SwitchCompare;

using Interval = std::pair<uint32_t, uint32_t>; // [lo, hi], unsigned order
// Sorted, disjoint. A compare leaves one or two intervals, so most sets fit inline:
// a decision allocates little, and on a big function every malloc and free pays
// cache misses in the heap's lists (docs/performance.md, "Work not done twice,
// and allocations per tree").
using ValueSet = InlineVector<Interval, 4>;

ValueSet intersect(const ValueSet &a, const ValueSet &b) {
  ValueSet out;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    const uint32_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (lo <= hi)
      out.push_back({lo, hi});
    (a[i].second < b[j].second ? i : j)++;
  }
  return out;
}

ValueSet complement(const ValueSet &a) {
  ValueSet out;
  uint64_t next = 0;
  for (const Interval &i : a) {
    if (i.first > next)
      out.push_back({uint32_t(next), i.first - 1});
    next = uint64_t(i.second) + 1;
  }
  if (next <= UINT32_MAX)
    out.push_back({uint32_t(next), UINT32_MAX});
  return out;
}

ValueSet unite(const ValueSet &a, const ValueSet &b) {
  return complement(intersect(complement(a), complement(b)));
}

// The selector values for which `S cmp c` holds.
ValueSet trueSet(Mod cmp, bool isSigned, uint32_t c) {
  const uint32_t k = isSigned ? c ^ kSignFlip : c; // in the order's own coordinates
  ValueSet s;
  switch (cmp) {
  case Mod::LT:
    if (k > 0)
      s = {{0, k - 1}};
    break;
  case Mod::LE:
    s = {{0, k}};
    break;
  case Mod::GT:
    if (k < UINT32_MAX)
      s = {{k + 1, UINT32_MAX}};
    break;
  case Mod::GE:
    s = {{k, UINT32_MAX}};
    break;
  case Mod::EQ:
    s = {{k, k}};
    break;
  default:
    s = complement({{k, k}});
    break; // NE
  }
  if (!isSigned)
    return s;
  ValueSet out; // back from signed coordinates: flipping the top bit swaps the halves
  for (auto [lo, hi] : s) {
    if (hi < kSignFlip || lo >= kSignFlip)
      out.push_back({lo ^ kSignFlip, hi ^ kSignFlip});
    else
      out.push_back({lo ^ kSignFlip, UINT32_MAX}), out.push_back({0, hi ^ kSignFlip});
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The values v with v - bias in `s` (the set moved up by bias, mod 2^32).
ValueSet shifted(ValueSet s, uint32_t bias) {
  if (bias == 0)
    return s;
  ValueSet out;
  for (auto [lo, hi] : s) {
    const uint32_t a = lo + bias, b = hi + bias;
    if (a <= b)
      out.push_back({a, b});
    else
      out.push_back({a, UINT32_MAX}), out.push_back({0, b});
  }
  std::sort(out.begin(), out.end());
  ValueSet merged; // neighbours that the move joined
  for (const Interval &i : out)
    if (!merged.empty() && uint64_t(merged.back().second) + 1 >= i.first)
      merged.back().second = std::max(merged.back().second, i.second);
    else
      merged.push_back(i);
  return merged;
}

bool writes(const Instr &in, Reg r) {
  for (const Operand &d : in.dsts)
    if (d.isReg() && d.reg == r)
      return true;
  return false;
}

// One block of a tree: its compare (compare blocks), where its branch and its
// fall-through go (a trampoline: `taken` only), as tree indices or leaves.
struct TreeBlock {
  uint32_t bix;
  bool isCompare;
  SelectorCompare cmp;
  bool negated;                // @!P BRA
  uint32_t taken, fallThrough; // bix
  uint32_t isetpIndex;         // compare blocks: where the ISETP stands
  uint32_t iaddIndex = kNone;  // the head: where the IADD3 of a biased compare (or the SGXT) stands
  uint32_t bound = UINT32_MAX; // the head: a bound on the selector (boundOf)
  bool hasBit = false;         // a bit test: reads `bit`, the register holding 1 << S
  Reg bit{};
  bool makesBit = false; // ... made in this block (MOV 1; SHL)
};

// The values v - bias in [0, 31] whose bit is set in `mask`.
ValueSet bitSet(uint32_t mask) {
  ValueSet s;
  for (uint32_t i = 0; i < 32;) {
    if (!((mask >> i) & 1)) {
      ++i;
      continue;
    }
    uint32_t j = i;
    while (j + 1 < 32 && ((mask >> (j + 1)) & 1))
      ++j;
    s.push_back({i, j});
    i = j + 1;
  }
  return s;
}

// The spec's case set: value >> 8 -> 256-bit leaf (spec/003 BitsetRBTree).
class CaseSet {
public:
  void insert(uint32_t lo, uint32_t hi) {
    for (uint64_t v = lo; v <= hi; ++v)
      leaves_[uint32_t(v) >> 8][(v >> 6) & 3] |= uint64_t(1) << (v & 63);
  }
  uint64_t count() const {
    uint64_t n = 0;
    for (const auto &[key, leaf] : leaves_)
      for (uint64_t w : leaf)
        n += uint64_t(std::popcount(w));
    return n;
  }
  // Lowest and highest member in signed or unsigned order (the set is not empty).
  std::pair<uint32_t, uint32_t> hull(bool isSigned) const {
    if (!isSigned)
      return {first(leaves_.begin()->first, leaves_.begin()->second),
              last(leaves_.rbegin()->first, leaves_.rbegin()->second)};
    // Signed order starts at the leaves of 0x80000000 and up, then 0 and up.
    auto negStart = leaves_.lower_bound(kSignFlip >> 8);
    auto lowest = negStart != leaves_.end() ? negStart : leaves_.begin();
    auto highest = negStart != leaves_.begin() ? std::prev(negStart) : std::prev(leaves_.end());
    return {first(lowest->first, lowest->second), last(highest->first, highest->second)};
  }
  // Members in ascending order of the chosen order, each passed to fn.
  template <typename Fn> void forEach(bool isSigned, Fn fn) const {
    auto visit = [&](auto begin, auto end) {
      for (auto it = begin; it != end; ++it)
        for (uint32_t w = 0; w < 4; ++w)
          for (uint64_t bits = it->second[w]; bits; bits &= bits - 1)
            fn((it->first << 8) | (w << 6) | uint32_t(std::countr_zero(bits)));
    };
    if (!isSigned)
      return visit(leaves_.begin(), leaves_.end());
    auto negStart = leaves_.lower_bound(kSignFlip >> 8);
    visit(negStart, leaves_.end());
    visit(leaves_.begin(), negStart);
  }

private:
  using Leaf = std::array<uint64_t, 4>;
  static uint32_t first(uint32_t key, const Leaf &l) {
    for (uint32_t w = 0; w < 4; ++w)
      if (l[w])
        return (key << 8) | (w << 6) | uint32_t(std::countr_zero(l[w]));
    return key << 8;
  }
  static uint32_t last(uint32_t key, const Leaf &l) {
    for (uint32_t w = 4; w-- > 0;)
      if (l[w])
        return (key << 8) | (w << 6) | uint32_t(63 - std::countl_zero(l[w]));
    return key << 8;
  }
  std::map<uint32_t, Leaf> leaves_;
};

struct SwitchOpt {
  Function &f;
  const SwitchOptOptions &opt;
  uint32_t n;
  std::vector<uint32_t> predReads; // reads of each P register
  std::vector<uint32_t> rReads;    // reads of each R register
  // Made on the first tree with a bit test (bitTestsSound), as most functions have none:
  std::vector<uint32_t> rDefs;     // writes of each R register
  std::vector<uint32_t> predCount; // distinct predecessors of each block
  std::vector<uint8_t> consumed;   // compare blocks of a tree already taken
  std::vector<uint32_t> treeIndex; // bix -> index in `tree` during one walk, kNone else
  std::vector<uint8_t> onPath;     // DFS state of the cycle check
  std::vector<uint32_t> leafSlot;  // bix -> index in leafValues_ during one decision, kNone else
  // decide's scratch, kept from one tree to the next: on a big function every
  // allocation pays cache misses in malloc's lists (docs/performance.md,
  // "Work not done twice, and allocations per tree").
  std::vector<TreeBlock> tree_;
  std::vector<uint32_t> topo_;
  std::vector<std::pair<uint32_t, uint32_t>> stack_;
  std::vector<ValueSet> reach_;
  std::vector<std::pair<uint32_t, ValueSet>>
      leafValues_; // leaf bix -> values, sorted by bix once complete
  std::vector<std::pair<Interval, uint32_t>> pieces_;

  SwitchOpt(Function &fn, const SwitchOptOptions &o)
      : f(fn), opt(o), n(uint32_t(fn.blocks.size())), predReads(fn.nextReg[int(RegFile::P)], 0),
        rReads(fn.nextReg[int(RegFile::R)], 0), consumed(n, 0), treeIndex(n, kNone), onPath(n, 0),
        leafSlot(n, kNone) {
    auto read = [&](const Operand &o) {
      if (o.isReg() && o.reg.file == RegFile::P && !o.reg.isConst() && o.reg.num < predReads.size())
        ++predReads[o.reg.num];
    };
    for (const Block &b : fn.blocks)
      for (const Instr &in : b.instrs) {
        if (in.guard)
          read(*in.guard);
        for (const Operand &s : in.srcs) {
          read(s);
          if (auto r = s.regRead();
              r && r->file == RegFile::R && !r->isConst() && r->num < rReads.size())
            ++rReads[r->num];
        }
      }
  }

  // nvcc's bit test on selector s (bitTestShape), with one, x and P read once.
  std::optional<TreeBlock> bitTestNode(uint32_t b, Reg s) const {
    if (b + 1 >= n)
      return std::nullopt;
    const auto &ins = f.blocks[b].instrs;
    const std::optional<BitTestShape> t = bitTestShape(ins, s);
    if (!t || (t->one && !rReadOnce(*t->one)) || !rReadOnce(t->x) || !readOnlyOnce(t->cmp.pred))
      return std::nullopt;
    const Instr &bra = ins.back();
    TreeBlock tb{b, true, t->cmp, bra.guard->neg, bra.srcs[0].target, b + 1, t->isetpIndex};
    tb.makesBit = t->one.has_value();
    tb.hasBit = true;
    tb.bit = t->bit;
    return tb;
  }

  // The bit registers of the tree hold 1 << S where read (reference: bitTestsSound).
  bool bitTestsSound(const std::vector<TreeBlock> &tree) {
    bool any = false;
    for (const TreeBlock &tb : tree)
      any = any || tb.hasBit;
    if (!any)
      return true;
    if (predCount.empty()) { // once per run
      predCount.assign(n, 0);
      rDefs.assign(rReads.size(), 0);
      std::vector<uint32_t> succs, seen(n, 0);
      for (uint32_t b = 0; b < n; ++b) {
        succs.clear();
        appendSuccessors(f, b, succs, seen);
        for (uint32_t t : succs)
          ++predCount[t];
        for (const Instr &in : f.blocks[b].instrs)
          for (const Operand &d : in.dsts)
            if (d.isReg() && d.reg.file == RegFile::R && !d.reg.isConst() &&
                d.reg.num < rDefs.size())
              ++rDefs[d.reg.num];
      }
    }
    for (const TreeBlock &tb : tree) {
      if (!tb.hasBit)
        continue;
      uint32_t users = 0, makers = 0;
      for (const TreeBlock &other : tree)
        if (other.hasBit && other.bit == tb.bit)
          ++users, makers += other.makesBit;
      if (tb.bit.num >= rReads.size() || rReads[tb.bit.num] != users || makers != 1 ||
          rDefs[tb.bit.num] != 1)
        return false;
      if (tb.makesBit)
        continue;
      // Entered only from tree nodes reading the same bit: count them among its predecessors.
      uint32_t fromBitNodes = 0;
      for (const TreeBlock &other : tree) {
        const bool toIt = other.taken == tb.bix || (other.isCompare && other.fallThrough == tb.bix);
        if (!toIt)
          continue;
        if (!other.hasBit || other.bit != tb.bit)
          return false;
        ++fromBitNodes;
      }
      if (fromBitNodes != predCount[tb.bix])
        return false;
    }
    return true;
  }
  bool rReadOnce(Reg r) const { return r.num < rReads.size() && rReads[r.num] == 1; }

  bool readOnlyOnce(Reg p) const { return p.num < predReads.size() && predReads[p.num] == 1; }

  // The head's tail: its ISETP on S and the @P BRA ending the block.
  std::optional<TreeBlock> headTail(uint32_t b) const {
    const auto &ins = f.blocks[b].instrs;
    if (ins.size() < 2 || b + 1 >= n)
      return std::nullopt;
    const Instr &bra = ins.back();
    if (bra.op != Opcode::BRA || !bra.isGuarded() || bra.guard->reg.isConst())
      return std::nullopt;
    const Reg p = bra.guard->reg;
    for (uint32_t i = uint32_t(ins.size() - 1); i-- > 0;) {
      const Instr &in = ins[i];
      if (auto c = selectorCompare(in); c && c->pred == p) {
        if (!readOnlyOnce(p))
          return std::nullopt;
        TreeBlock tb{b, true, *c, bra.guard->neg, bra.srcs[0].target, b + 1, i};
        tb.bound = boundOf(ins, c->selector, i);
        // A range check: the compared register is t = S + k from an IADD3 of this block read only
        // here; or an SGXT of S that changes no value S can have there: a compare of S.
        for (uint32_t j = i; j-- > 0;)
          if (writes(ins[j], c->selector)) {
            if (!rReadOnce(c->selector))
              break;
            if (auto off = offsetOf(ins[j])) {
              tb.cmp.selector = off->s;
              tb.cmp.bias = 0u - off->k;
              tb.iaddIndex = j;
              tb.bound = boundOf(ins, off->s, j);
            } else if (ins[j].op == Opcode::SGXT && ins[j].srcs.size() == 2 &&
                       ins[j].srcs[0].isReg()) {
              if (auto wide = sgxtIdentity(ins[j], boundOf(ins, ins[j].srcs[0].reg, j))) {
                tb.cmp.selector = *wide;
                tb.iaddIndex = j;
                tb.bound = boundOf(ins, *wide, j);
              }
            }
            break;
          }
        const uint32_t from = tb.iaddIndex != kNone ? tb.iaddIndex : i;
        for (uint32_t k = from + 1; k + 1 < ins.size(); ++k) // interleaved code must leave S alone
          if (writes(ins[k], tb.cmp.selector))
            return std::nullopt;
        return tb;
      }
      if (!opt.extendedPatternMatch || writes(in, p) || in.info().is(CONTROL))
        return std::nullopt;
    }
    return std::nullopt;
  }

  // A node of the tree on selector s other than the head, if b is one.
  std::optional<TreeBlock> node(uint32_t b, Reg s, uint32_t head, uint32_t bound) const {
    if (b == head || consumed[b])
      return std::nullopt;
    const auto &ins = f.blocks[b].instrs;
    if (opt.secondPass && !ins.empty() && ins[0].info().is(CONVERGENCE | BARRIER))
      return std::nullopt;
    if (auto bt = bitTestNode(b, s))
      return bt;
    if (ins.size() == 1 && ins[0].op == Opcode::BRA && !ins[0].isGuarded())
      return TreeBlock{b, false, {}, false, ins[0].srcs[0].target, kNone, 0};
    if ((ins.size() != 2 && ins.size() != 3) || b + 1 >= n)
      return std::nullopt;
    const Instr &bra = ins.back();
    if (bra.op != Opcode::BRA || !bra.isGuarded() || bra.guard->reg.isConst())
      return std::nullopt;
    auto c = selectorCompare(ins[ins.size() - 2]);
    if (!c || c->pred != bra.guard->reg || !readOnlyOnce(c->pred))
      return std::nullopt;
    if (ins.size() == 3) { // IADD3 t, S, k, RZ; ISETP on t; @P BRA: a range check
      if (!writes(ins[0], c->selector) || !rReadOnce(c->selector))
        return std::nullopt;
      if (auto off = offsetOf(ins[0])) {
        c->selector = off->s;
        c->bias = 0u - off->k;
      } else if (auto wide =
                     sgxtIdentity(ins[0], bound)) { // SGXT t, S, k: S itself under the head's bound
        c->selector = *wide;
      } else {
        return std::nullopt;
      }
    }
    if (c->selector != s)
      return std::nullopt;
    return TreeBlock{
        b, true, *c, bra.guard->neg, bra.srcs[0].target, b + 1, uint32_t(ins.size() - 2)};
  }

  // The tree from head h (tree[0]) in DFS preorder; false for a cycle of nodes or too many.
  bool collect(const TreeBlock &root, std::vector<TreeBlock> &tree, std::vector<uint32_t> &topo) {
    tree = {root};
    treeIndex[root.bix] = 0;
    // Iterative DFS with explicit exit events: the post-order gives a topological order.
    auto &stack = stack_; // (tree index, next successor)
    stack.assign(1, {0, 0});
    onPath[root.bix] = 1;
    bool ok = true;
    while (!stack.empty() && ok) {
      auto &[t, k] = stack.back();
      const uint32_t succ = k == 0                        ? tree[t].taken
                            : k == 1 && tree[t].isCompare ? tree[t].fallThrough
                                                          : kNone;
      if (succ == kNone) {
        onPath[tree[t].bix] = 0;
        topo.push_back(t);
        stack.pop_back();
        continue;
      }
      ++k;
      if (treeIndex[succ] != kNone) {
        if (onPath[succ] && succ != root.bix)
          ok = false; // a cycle of nodes (the head again is a leaf)
        continue;
      }
      auto nd = node(succ, root.cmp.selector, root.bix, root.bound);
      if (!nd)
        continue; // a leaf
      if (tree.size() >= kSwitchMaxTreeBlocks) {
        ok = false;
        break;
      }
      treeIndex[succ] = uint32_t(tree.size());
      tree.push_back(*nd);
      onPath[succ] = 1;
      stack.push_back({uint32_t(tree.size() - 1), 0});
    }
    for (const TreeBlock &tb : tree)
      onPath[tb.bix] = 0;
    std::reverse(topo.begin(), topo.end());
    return ok; // treeIndex still names the tree's blocks: the caller clears it
  }
  void forget(const std::vector<TreeBlock> &tree) {
    for (const TreeBlock &tb : tree)
      treeIndex[tb.bix] = kNone;
  }

  // Longest path from the head counted in compare blocks (treeIndex names the tree).
  uint32_t longestPath(const std::vector<TreeBlock> &tree,
                       const std::vector<uint32_t> &topo) const {
    std::vector<uint32_t> depth(tree.size(), 0);
    uint32_t best = 0;
    for (uint32_t t : topo) {
      const uint32_t d = depth[t] + (tree[t].isCompare ? 1 : 0);
      best = std::max(best, d);
      for (uint32_t s : {tree[t].taken, tree[t].fallThrough})
        if (inTree(s, tree))
          depth[treeIndex[s]] = std::max(depth[treeIndex[s]], d);
    }
    return best;
  }
  // Whether block b is a node of the tree (the head reached again is a leaf).
  bool inTree(uint32_t b, const std::vector<TreeBlock> &tree) const {
    return b != kNone && b != tree[0].bix && treeIndex[b] != kNone;
  }

  // The values reaching leaf `bix` so far (an entry made on first use).
  ValueSet &leafValuesOf(uint32_t bix) {
    if (leafSlot[bix] == kNone) {
      leafSlot[bix] = uint32_t(leafValues_.size());
      leafValues_.push_back({bix, {}});
    }
    return leafValues_[leafSlot[bix]].second;
  }

  // Decides what to do with the tree at `root`; counts it.
  std::optional<Lowering> decide(const TreeBlock &root, SwitchOptCounts &counts) {
    std::vector<TreeBlock> &tree = tree_;
    std::vector<uint32_t> &topo = topo_;
    topo.clear();
    const bool ok = collect(root, tree, topo) && bitTestsSound(tree);
    if (!ok) {
      forget(tree);
      return std::nullopt;
    }
    // The selector values reaching each node, in topological order.
    std::vector<ValueSet> &reach = reach_;
    reach.assign(tree.size(), ValueSet{});
    reach[0] = {{0, UINT32_MAX}};
    leafValues_.clear();
    auto send = [&](uint32_t to, ValueSet values) {
      if (values.empty())
        return;
      ValueSet &r = inTree(to, tree) ? reach[treeIndex[to]] : leafValuesOf(to);
      r = r.empty() ? std::move(values) : unite(r, values);
    };
    for (uint32_t t : topo) {
      const TreeBlock &tb = tree[t];
      if (!tb.isCompare) {
        send(tb.taken, reach[t]);
        continue;
      }
      const ValueSet yes =
          tb.cmp.isBitTest
              ? shifted(tb.cmp.cmp == Mod::NE ? bitSet(tb.cmp.mask)
                                              : complement(bitSet(tb.cmp.mask)),
                        tb.cmp.bias)
              : shifted(trueSet(tb.cmp.cmp, tb.cmp.isSigned, tb.cmp.constant), tb.cmp.bias);
      const ValueSet no = complement(yes);
      send(tb.taken, intersect(reach[t], tb.negated ? no : yes));
      send(tb.fallThrough, intersect(reach[t], tb.negated ? yes : no));
    }
    for (const auto &leaf : leafValues_)
      leafSlot[leaf.first] = kNone;
    std::sort(leafValues_.begin(), leafValues_.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    const uint32_t origDepth = longestPath(tree, topo);
    forget(tree);
    for (const TreeBlock &tb : tree)
      if (tb.isCompare)
        consumed[tb.bix] = 1;

    // The default: the leaf most values reach (ties: the lowest bix; the map is ordered).
    uint32_t deflt = kNone;
    uint64_t most = 0;
    for (const auto &[leaf, values] : leafValues_) {
      uint64_t c = 0;
      for (auto [lo, hi] : values)
        c += uint64_t(hi) - lo + 1;
      if (c > most)
        most = c, deflt = leaf;
    }
    if (deflt == kNone || (uint64_t(1) << 32) - most > kSwitchMaxCaseValues ||
        most == (uint64_t(1) << 32))
      return std::nullopt;
    ++counts.switches;
    CaseSet cases;
    auto &pieces = pieces_; // case intervals (unsigned order) -> leaf
    pieces.clear();
    for (const auto &[leaf, values] : leafValues_)
      if (leaf != deflt)
        for (const Interval &i : values)
          cases.insert(i.first, i.second), pieces.push_back({i, leaf});
    std::sort(pieces.begin(), pieces.end());
    const uint64_t caseCount = cases.count();
    auto span = [&](bool s) {
      auto [lo, hi] = cases.hull(s);
      return uint64_t(uint32_t(hi - lo)) + 1;
    };
    const bool isSigned = span(true) < span(false);
    const uint64_t range = span(isSigned);
    auto targetOf = [&](uint32_t v) {
      auto it = std::upper_bound(pieces.begin(), pieces.end(),
                                 std::pair<Interval, uint32_t>{{v, UINT32_MAX}, UINT32_MAX});
      return std::prev(it)->second;
    };
    Lowering low{root.bix, root.cmp.selector, root.isetpIndex,    root.iaddIndex,
                 deflt,    isSigned,          Lowering::How::Bst, {}};
    bool open = false;
    uint32_t prev = 0;
    cases.forEach(isSigned, [&](uint32_t v) {
      const uint32_t t = targetOf(v);
      if (open && v == prev + 1 && low.clusters.back().target == t)
        low.clusters.back().hi = v;
      else
        low.clusters.push_back({v, v, t});
      open = true;
      prev = v;
    });
    if (opt.blockCounts) { // the PGO early exit; cascades weighed under the counts
      if (low.clusters.size() > kSwitchCascadeMaxClusters) {
        ++counts.keptForProfile;
        return std::nullopt;
      }
      if (weighCascade(tree, low)) {
        low.how = Lowering::How::Cascade;
        ++counts.reordered;
        return low;
      }
      ++counts.keptSmall;
      return std::nullopt;
    }
    if (opt.bitTests && range <= kSwitchBitTestWidth && bitTestsPay(low.clusters)) {
      if (std::any_of(tree.begin(), tree.end(), [](const TreeBlock &tb) { return tb.hasBit; })) {
        ++counts.keptBitTests; // the tree already tests bits (nvcc's): the lowering would make it
                               // again
        return std::nullopt;
      }
      low.how = Lowering::How::BitTests;
      ++counts.bitTests;
      return low;
    }
    if (low.clusters.size() <= kSwitchCascadeMaxClusters) {
      ++counts.keptSmall;
      return std::nullopt;
    }
    const uint64_t tableLimit =
        opt.budget >= 0 ? std::min<uint64_t>(uint64_t(opt.budget), kSwitchMaxTableEntries)
                        : kSwitchMaxTableEntries;
    if (range <= tableLimit && caseCount * 100 >= range * kSwitchDensityPercent) {
      low.how = Lowering::How::JumpTable;
      ++counts.jumpTables;
      return low;
    }
    if (bstDepth(0, uint32_t(low.clusters.size()) - 1) >= origDepth) {
      ++counts.keptShallow;
      return std::nullopt;
    }
    ++counts.bsts;
    return low;
  }

  uint64_t countOf(uint32_t b) const {
    if (f.blocks[b].label.empty())
      return 0;
    auto it = opt.blockCounts->find(f.blocks[b].label);
    return it == opt.blockCounts->end() ? 0 : it->second;
  }

  // With a profile: whether the cascade testing low's clusters hottest first
  // executes fewer compares than the tree (each cluster weighed by its
  // target's count at its first value, the default by its own at its deepest
  // value; reference/do_switch_opt.cpp walks the same elementary intervals).
  // If so, low's clusters are put in that order.
  bool weighCascade(const std::vector<TreeBlock> &tree, Lowering &low) const {
    uint32_t compares = 0;
    for (const TreeBlock &tb : tree)
      compares += tb.isCompare;
    if (compares > kSwitchProfileMaxCompares)
      return false;
    std::unordered_map<uint32_t, uint32_t>
        index; // bix -> tree index (the head reached again is a leaf)
    for (uint32_t t = 1; t < tree.size(); ++t)
      index[tree[t].bix] = t;
    auto walk = [&](uint32_t v) { // (leaf, compares passed)
      uint32_t t = 0, depth = 0;
      for (;;) {
        const TreeBlock &tb = tree[t];
        depth += tb.isCompare;
        const uint32_t next =
            !tb.isCompare || compareHolds(tb.cmp, v) != tb.negated ? tb.taken : tb.fallThrough;
        auto it = index.find(next);
        if (it == index.end())
          return std::pair{next, depth};
        t = it->second;
      }
    };
    // Elementary intervals: every compare answers the same inside one.
    std::vector<uint32_t> cuts{0, kSignFlip};
    for (const TreeBlock &tb : tree)
      if (tb.isCompare && tb.cmp.isBitTest) {
        for (uint32_t i = 0; i < 32; ++i)
          if ((tb.cmp.mask >> i) & 1)
            cuts.push_back(i + tb.cmp.bias), cuts.push_back(i + 1 + tb.cmp.bias);
      } else if (tb.isCompare) {
        for (uint32_t at : {tb.cmp.constant, tb.cmp.constant + 1, 0u, kSignFlip})
          cuts.push_back(at + tb.cmp.bias);
      }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    uint32_t defaultDepth = 0;
    for (uint32_t cut : cuts)
      if (auto [leaf, depth] = walk(cut); leaf == low.deflt)
        defaultDepth = std::max(defaultDepth, depth);
    unsigned __int128 before = (unsigned __int128)countOf(low.deflt) * defaultDepth, after = 0;
    for (const Cluster &c : low.clusters)
      before += (unsigned __int128)countOf(c.target) * walk(c.lo).second;
    std::vector<Cluster> hot = low.clusters;
    std::stable_sort(hot.begin(), hot.end(), [&](const Cluster &a, const Cluster &b) {
      return countOf(a.target) > countOf(b.target);
    });
    for (size_t i = 0; i < hot.size(); ++i)
      after += (unsigned __int128)countOf(hot[i].target) * (i + 1);
    after += (unsigned __int128)countOf(low.deflt) * hot.size();
    if (after >= before)
      return false;
    low.clusters = std::move(hot);
    return true;
  }

  // LLVM's rule on the destinations and compares (suitableForBitTests), the span already checked.
  static bool bitTestsPay(const std::vector<Cluster> &clusters) {
    std::array<uint32_t, 4> seen{};
    uint32_t destinations = 0, compares = 0;
    for (const Cluster &c : clusters) {
      if (std::find(seen.begin(), seen.begin() + destinations, c.target) ==
          seen.begin() + destinations) {
        if (destinations == 3)
          return false;
        seen[destinations++] = c.target;
      }
      compares += c.lo == c.hi ? 1 : 2;
    }
    return suitableForBitTests(0, destinations, compares);
  }

  // Compares on the worst path of emit_bst over clusters [lo, hi].
  static uint32_t bstDepth(uint32_t lo, uint32_t hi) {
    if (lo == hi)
      return 1;
    const uint32_t mid = lo + (hi - lo) / 2;
    return 2 + std::max(bstDepth(mid + 1, hi), mid > lo ? bstDepth(lo, mid - 1) : 0u);
  }
};

} // namespace

SwitchOptCounts doSwitchOpt(Function &f, const SwitchOptOptions &options) {
  SwitchOptCounts counts;
  if (f.blocks.empty())
    return counts;
  SwitchOpt s(f, options);
  std::vector<Lowering> lowerings;
  for (uint32_t b : computeRpo(f)) {
    if (s.consumed[b])
      continue;
    auto tail = s.headTail(b);
    if (!tail)
      continue;
    if (auto low = s.decide(*tail, counts))
      lowerings.push_back(std::move(*low));
  }
  if (lowerings.empty())
    return counts;
  emitLowerings(f, lowerings);
  counts.erasedBlocks = uint32_t(eraseUnreachableBlocks(f).size());
  if (options.mergeBlocks)
    mergeUnlabelledBlocks(f);
  dropEmptyUnlabelledBlocks(f);
  if (!options.mergeBlocks)
    labelFallThroughBlocks(f); // --dont-merge-basicblocks
  return counts;
}

} // namespace ori::optimized
