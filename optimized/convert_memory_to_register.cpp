// ConvertMemoryToRegisterOrUniform, phase 37's promotion of local-memory slots
// (rules/convert_memory_to_register.h says what; docs/general-optimize.md "Phase 37"), in
// time linear in the function: registers indexed by number, local pointers
// resolved by a worklist (a definition waits for its one register source),
// both must-analyses as bitvector dataflow in RPO, slots by sorting accesses.
#include <algorithm>
#include <numeric>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "optimized/bitvector.h"
#include "optimized/fnv_map.h"
#include "optimized/optimized.h"
#include "rules/convert_memory_to_register.h"

namespace ori::optimized {
namespace {

constexpr int32_t kNone = -1;

struct Pointer {
  uint32_t var = 0; // index in f.variables
  int64_t offset = 0;
  bool generic = false;
  uint32_t item = 0; // bit in the "surely defined" dataflow
};

struct Access {
  uint32_t bix = 0;
  uint32_t index = 0;
  uint32_t var = 0;
  int64_t offset = 0;
  SlotAccessShape shape;
};

// Forward must-analysis over `items` bits: IN[b] = AND of OUT over reachable
// predecessors (empty at the entry and in unreachable blocks), OUT[b] = IN[b] | gen[b].
std::vector<BitVector> surelyBefore(const CfgFacts &cfg, const std::vector<BitVector> &gen,
                                    uint32_t items) {
  const size_t n = gen.size();
  BitVector ones(items);
  for (uint32_t i = 0; i < items; ++i)
    ones.setBit(i);
  std::vector<BitVector> in(n, BitVector(items)), out(n, BitVector(items));
  for (uint32_t b : cfg.rpo)
    out[b] = ones;
  BitVector now(items);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b : cfg.rpo) {
      bool first = true;
      now.clear();
      if (b != 0)
        for (uint32_t p : cfg.preds[b]) {
          if (cfg.rpoNumber[p] == kNoBlock)
            continue;
          if (first)
            now = out[p], first = false;
          else
            now.andIfChanged(out[p]);
        }
      in[b] = now;
      now.orIfChanged(gen[b]);
      if (!(now == out[b]))
        out[b] = now, changed = true;
    }
  }
  return in;
}

class Promotion {
public:
  Promotion(Function &f, const MemToRegOptions &opt) : f(f), opt(opt) {
    for (uint32_t v = 0; v < f.variables.size(); ++v)
      if (f.variables[v].space == Space::Local)
        localIndex.emplace(f.variables[v].name, v);
  }

  MemToRegCounts run() {
    if (localIndex.empty())
      return counts;
    cfg = computeCfg(f);
    // Registers of file R by a dense index: a vector by number when the numbers are dense
    // (as parsed and lowered code has them), else an FNV-1a map (numbers may be anything).
    uint32_t maxNum = 0;
    size_t operands = 0;
    for (const Block &blk : f.blocks)
      for (const Instr &in : blk.instrs) {
        auto see = [&](const Operand &o) {
          if ((o.isReg() || o.hasReg) && o.reg.file == RegFile::R && !o.reg.isConst())
            maxNum = std::max(maxNum, o.reg.num), ++operands;
        };
        for (const Operand &o : in.dsts)
          see(o);
        for (const Operand &o : in.srcs)
          see(o);
      }
    useDirect = maxNum < 8 * operands + 1024;
    if (useDirect)
      direct.assign(size_t(maxNum) + 1, kNone);
    uint32_t count = 0;
    for (const Block &blk : f.blocks)
      for (const Instr &in : blk.instrs) {
        auto see = [&](const Operand &o) {
          if (!((o.isReg() || o.hasReg) && o.reg.file == RegFile::R && !o.reg.isConst()))
            return;
          if (useDirect) {
            if (direct[o.reg.num] == kNone)
              direct[o.reg.num] = int32_t(count++);
          } else if (auto [slot, inserted] = dense.insertOrFind(o.reg.num); inserted) {
            *slot = count++;
          }
        };
        for (const Operand &o : in.dsts)
          see(o);
        for (const Operand &o : in.srcs)
          see(o);
      }
    const size_t nregs = count;
    defCount.assign(nregs, 0);
    pointerOf.assign(nregs, kNone);
    windowItem.assign(nregs, kNone);
    escaped.assign(f.variables.size(), 0);
    mentioned.assign(f.variables.size(), 0);
    findPointers();
    classify();
    promote();
    return counts;
  }

private:
  Function &f;
  const MemToRegOptions &opt;
  CfgFacts cfg;
  MemToRegCounts counts;
  std::unordered_map<std::string_view, uint32_t> localIndex;
  std::vector<uint32_t> defCount;  // per R register number
  std::vector<int32_t> pointerOf;  // per R register: index into pointers
  std::vector<int32_t> windowItem; // per R register: its item when a window base
  std::vector<Pointer> pointers;
  std::vector<std::pair<uint32_t, uint32_t>> itemPlace; // (bix, index) of each item's definition
  std::vector<std::vector<int32_t>> itemAt; // per block, per instruction: item defined, or kNone
  std::vector<uint8_t> escaped, mentioned;
  bool allEscape = false;
  std::vector<Access> accesses;

  // R register number -> index into the per-register vectors (see run()).
  bool useDirect = true;
  std::vector<int32_t> direct;
  FnvMap<uint32_t> dense;
  int32_t indexOf(Reg r) const {
    if (r.file != RegFile::R || r.isConst())
      return kNone;
    if (useDirect)
      return r.num < direct.size() ? direct[r.num] : kNone;
    const uint32_t *i = dense.find(r.num);
    return i ? int32_t(*i) : kNone;
  }
  bool isR(Reg r) const { return indexOf(r) != kNone; }
  uint32_t ix(Reg r) const { return uint32_t(indexOf(r)); } // for isR(r) registers
  int32_t localOf(const std::string &name) const {
    if (name.empty())
      return kNone;
    auto it = localIndex.find(name);
    return it == localIndex.end() ? kNone : int32_t(it->second);
  }

  // A pointer definition's shape before its register source is known: the
  // variable (MOV.64 of a symbol), or the one register it waits for, plus the
  // immediates and the window base's sign. nullopt: it can never make a pointer.
  struct Pending {
    int32_t var = kNone;
    Reg source{};
    int64_t add = 0;
    int window = 0;
  };
  std::optional<Pending> pending(const Instr &in) const {
    if (in.isGuarded() || in.dsts.size() != 1 || !in.dsts[0].isReg() || !isR(in.dsts[0].reg))
      return std::nullopt;
    ModSet others = in.mods; // exactly .64
    others.reset(Mod::W64);
    if (!in.has(Mod::W64) || !others.empty())
      return std::nullopt;
    Pending p;
    if (in.op == Opcode::MOV && in.srcs.size() == 1) {
      const Operand &s = in.srcs[0];
      if (s.kind == Operand::Kind::Symbol) {
        p.var = localOf(s.sym);
        if (p.var == kNone)
          return std::nullopt;
        return p;
      }
      if (s.isReg() && !s.neg && !s.abs && isR(s.reg)) {
        p.source = s.reg;
        return p;
      }
      return std::nullopt;
    }
    if (in.op != Opcode::IADD3 || in.srcs.size() != 3)
      return std::nullopt;
    bool haveSource = false;
    for (const Operand &s : in.srcs) {
      if (s.kind == Operand::Kind::Imm)
        p.add += s.imm;
      else if (s.isReg() && s.reg.isConst() && !s.neg)
        continue;
      else if (s.isReg() && !s.abs && isR(s.reg) && windowItem[ix(s.reg)] != kNone && p.window == 0)
        p.window = s.neg ? -1 : 1;
      else if (s.isReg() && !s.neg && !s.abs && isR(s.reg) && !haveSource)
        p.source = s.reg, haveSource = true;
      else
        return std::nullopt;
    }
    if (!haveSource)
      return std::nullopt;
    return p;
  }

  void addItem(uint32_t b, uint32_t i) {
    itemAt[b][i] = int32_t(itemPlace.size());
    itemPlace.emplace_back(b, i);
  }

  void findPointers() {
    itemAt.resize(f.blocks.size());
    for (uint32_t b = 0; b < f.blocks.size(); ++b) {
      itemAt[b].assign(f.blocks[b].instrs.size(), kNone);
    }
    for (const Block &blk : f.blocks)
      for (const Instr &in : blk.instrs)
        for (const Operand &d : in.dsts)
          if (d.isReg() && isR(d.reg))
            ++defCount[ix(d.reg)];
    for (uint32_t b = 0; b < f.blocks.size(); ++b)
      for (uint32_t i = 0; i < f.blocks[b].instrs.size(); ++i) {
        const Instr &in = f.blocks[b].instrs[i];
        if (in.op == Opcode::S2R && !in.isGuarded() && in.dsts.size() == 1 && in.dsts[0].isReg() &&
            isR(in.dsts[0].reg) && in.srcs.size() == 1 && in.srcs[0].kind == Operand::Kind::SReg &&
            in.srcs[0].sreg == SpecialReg::LWINBASE && defCount[ix(in.dsts[0].reg)] == 1) {
          windowItem[ix(in.dsts[0].reg)] = int32_t(itemPlace.size());
          addItem(b, i);
        }
      }
    // Definitions waiting for their source register to become a pointer.
    struct Waiting {
      uint32_t bix, index;
      Pending p;
    };
    std::vector<std::vector<Waiting>> waiters(defCount.size());
    std::vector<Waiting> ready;
    for (uint32_t b = 0; b < f.blocks.size(); ++b)
      for (uint32_t i = 0; i < f.blocks[b].instrs.size(); ++i) {
        const Instr &in = f.blocks[b].instrs[i];
        if (in.dsts.size() != 1 || !in.dsts[0].isReg() || !isR(in.dsts[0].reg) ||
            defCount[ix(in.dsts[0].reg)] != 1)
          continue;
        auto p = pending(in);
        if (!p)
          continue;
        if (p->var != kNone)
          ready.push_back({b, i, *p});
        else
          waiters[ix(p->source)].push_back({b, i, *p});
      }
    while (!ready.empty()) {
      const Waiting w = ready.back();
      ready.pop_back();
      const Instr &in = f.blocks[w.bix].instrs[w.index];
      const Reg d = in.dsts[0].reg;
      if (pointerOf[ix(d)] != kNone)
        continue;
      Pointer ptr;
      if (w.p.var != kNone)
        ptr.var = uint32_t(w.p.var);
      else {
        ptr = pointers[pointerOf[ix(w.p.source)]];
        if (w.p.window == 1) {
          if (ptr.generic)
            continue;
          ptr.generic = true;
        } else if (w.p.window == -1) {
          if (!ptr.generic)
            continue;
          ptr.generic = false;
        }
        ptr.offset += w.p.add;
      }
      ptr.item = uint32_t(itemPlace.size());
      addItem(w.bix, w.index);
      pointerOf[ix(d)] = int32_t(pointers.size());
      pointers.push_back(ptr);
      for (const Waiting &next : waiters[ix(d)])
        ready.push_back(next);
      waiters[ix(d)].clear();
    }
  }

  void escape(uint32_t var) { escaped[var] = mentioned[var] = 1; }

  void classify() {
    const uint32_t items = uint32_t(itemPlace.size());
    std::vector<BitVector> gen(f.blocks.size(), BitVector(items));
    for (uint32_t k = 0; k < items; ++k)
      gen[itemPlace[k].first].setBit(k);
    const std::vector<BitVector> in = surelyBefore(cfg, gen, items);
    BitVector defined(items);
    for (uint32_t b = 0; b < f.blocks.size(); ++b) {
      defined = in[b];
      for (uint32_t i = 0; i < f.blocks[b].instrs.size(); ++i) {
        classifyInstr(b, i, defined);
        if (itemAt[b][i] != kNone)
          defined.setBit(uint32_t(itemAt[b][i]));
      }
    }
  }

  bool isPointerDefAt(uint32_t b, uint32_t i) const {
    const int32_t k = itemAt[b][i];
    if (k == kNone)
      return false;
    const Instr &in = f.blocks[b].instrs[i];
    return in.op != Opcode::S2R; // items are window bases (S2R) and pointer definitions
  }

  // visitLocalMentions's questions and records, from this half's register-indexed tables.
  struct Mentions {
    Promotion &m;
    uint32_t b, i;
    const BitVector &definedItems;
    bool windowBase(Reg r) const { return m.isR(r) && m.windowItem[m.ix(r)] != kNone; }
    const Pointer *pointer(Reg r) const {
      if (!m.isR(r))
        return nullptr;
      const int32_t p = m.pointerOf[m.ix(r)];
      return p == kNone ? nullptr : &m.pointers[size_t(p)];
    }
    std::optional<uint32_t> local(const std::string &sym) const {
      const int32_t v = m.localOf(sym);
      return v == kNone ? std::nullopt : std::optional<uint32_t>(uint32_t(v));
    }
    bool
    defined(Reg r) const { // r is a window base or a pointer (visitLocalMentions asks only then)
      const int32_t w = m.windowItem[m.ix(r)];
      return definedItems.testBit(w != kNone ? uint32_t(w)
                                             : m.pointers[size_t(m.pointerOf[m.ix(r)])].item);
    }
    void access(uint32_t var, int64_t offset, const SlotAccessShape &shape) {
      m.accesses.push_back({b, i, var, offset, shape});
      m.mentioned[var] = 1;
    }
    void escape(uint32_t var) { m.escape(var); }
    void escapeAll() { m.allEscape = true; }
  };

  void classifyInstr(uint32_t b, uint32_t i, const BitVector &defined) {
    Mentions h{*this, b, i, defined};
    visitLocalMentions(f.blocks[b].instrs[i], isPointerDefAt(b, i), h);
  }

  void promote() {
    for (uint32_t v = 0; v < f.variables.size(); ++v)
      if (mentioned[v] && (allEscape || escaped[v]))
        ++counts.variablesEscaping;
    if (allEscape)
      return;
    // Byte ranges of each variable's accesses, sorted: (var, offset, bytes, whole).
    std::vector<uint32_t> order(accesses.size());
    std::iota(order.begin(), order.end(), 0u);
    auto key = [&](uint32_t k) {
      const Access &a = accesses[k];
      return std::make_tuple(a.var, a.offset, a.shape.bytes, !a.shape.whole);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t x, uint32_t y) { return key(x) < key(y); });
    // Distinct ranges; a whole one is a candidate slot unless another range overlaps it.
    struct Range {
      uint32_t var;
      int64_t offset;
      uint32_t bytes;
      bool whole;
      size_t first, last; // in order
    };
    std::vector<Range> ranges;
    for (size_t k = 0; k < order.size(); ++k) {
      const Access &a = accesses[order[k]];
      if (escaped[a.var])
        continue;
      if (!ranges.empty() && key(order[ranges.back().first]) == key(order[k]))
        ranges.back().last = k;
      else
        ranges.push_back({a.var, a.offset, a.shape.bytes, a.shape.whole, k, k});
    }
    struct Candidate {
      uint32_t var, bytes;
      int64_t offset;
      size_t first, last;
      uint32_t loads = 0, stores = 0;
    };
    std::vector<Candidate> candidates;
    int64_t reach = INT64_MIN; // the highest end of the variable's ranges so far
    for (size_t r = 0; r < ranges.size(); ++r) {
      const Range &g = ranges[r];
      if (r == 0 || ranges[r - 1].var != g.var)
        reach = INT64_MIN;
      const int64_t end = g.offset + int64_t(g.bytes);
      const bool overlappedBefore = reach > g.offset;
      const bool overlappedAfter =
          r + 1 < ranges.size() && ranges[r + 1].var == g.var && ranges[r + 1].offset < end;
      reach = std::max(reach, end);
      if (!g.whole || overlappedBefore || overlappedAfter)
        continue;
      const Variable &var = f.variables[g.var];
      if (g.offset < 0 || end > int64_t(var.size()) || g.offset % g.bytes != 0 ||
          std::max<uint32_t>(var.align, 1) % g.bytes != 0)
        continue;
      candidates.push_back({g.var, g.bytes, g.offset, g.first, g.last});
    }
    // candidateOf: per access (in accesses order), its candidate or kNone.
    std::vector<int32_t> candidateOf(accesses.size(), kNone);
    for (uint32_t c = 0; c < candidates.size(); ++c)
      for (size_t k = candidates[c].first; k <= candidates[c].last; ++k) {
        candidateOf[order[k]] = int32_t(c);
        (accesses[order[k]].shape.load ? candidates[c].loads : candidates[c].stores)++;
      }
    const uint32_t items = uint32_t(candidates.size());
    std::vector<BitVector> gen(f.blocks.size(), BitVector(items));
    auto surelyStores = [&](const Access &a) {
      return !a.shape.load && !f.blocks[a.bix].instrs[a.index].isGuarded();
    };
    for (size_t k = 0; k < accesses.size(); ++k)
      if (candidateOf[k] != kNone && surelyStores(accesses[k]))
        gen[accesses[k].bix].setBit(uint32_t(candidateOf[k]));
    const std::vector<BitVector> in = surelyBefore(cfg, gen, items);
    std::vector<uint8_t> uninitialized(items, 0);
    BitVector stored(items);
    for (size_t k = 0; k < accesses.size(); ++k) { // in (bix, index) order
      const Access &a = accesses[k];
      if (k == 0 || accesses[k - 1].bix != a.bix)
        stored = in[a.bix];
      const int32_t c = candidateOf[k];
      if (c == kNone)
        continue;
      if (a.shape.load && !stored.testBit(uint32_t(c)))
        uninitialized[c] = 1;
      if (surelyStores(a))
        stored.setBit(uint32_t(c));
    }
    for (uint32_t c = 0; c < items; ++c) {
      const Candidate &s = candidates[c];
      if (uninitialized[c]) {
        ++counts.slotsUninitialized;
        continue;
      }
      if (!promoteSlot(s.loads, s.stores, opt)) {
        ++counts.slotsKeptByCost;
        continue;
      }
      const Reg r = f.newReg(RegFile::R);
      f.regTypes[r] = s.bytes == 8 ? "b64" : "b32";
      for (size_t k = s.first; k <= s.last; ++k) {
        const Access &a = accesses[order[k]];
        Instr &access = f.blocks[a.bix].instrs[a.index];
        access = slotAccessAsMove(access, a.shape, r);
      }
      ++counts.slotsPromoted;
      counts.loadsReplaced += s.loads;
      counts.storesReplaced += s.stores;
      counts.cost += slotPromotionCost(s.loads, s.stores, opt);
    }
  }
};

} // namespace

MemToRegCounts convertMemoryToRegister(Function &f, const MemToRegOptions &opt) {
  if (f.blocks.empty())
    return {};
  return Promotion(f, opt).run();
}

} // namespace ori::optimized
