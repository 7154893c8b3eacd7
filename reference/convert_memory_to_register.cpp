// ConvertMemoryToRegisterOrUniform, phase 37's promotion of local-memory slots to registers
// (rules/convert_memory_to_register.h says what), the reference way: sets and maps, each
// question answered by a plain walk, the "surely happened before" facts (pointer definitions,
// stores) as sets intersected over predecessors until nothing changes.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "reference/reference.h"
#include "rules/convert_memory_to_register.h"

namespace ori::reference {
namespace {

struct Pointer {
  std::string var;
  int64_t offset = 0;
  bool generic = false;
};

using Place = std::pair<uint32_t, size_t>; // (bix, index)

// Items that surely happened before each block starts, on every path from the
// entry: IN[b] is the intersection of OUT over b's reachable predecessors, the
// empty set at the entry and in unreachable blocks; OUT[b] is IN[b] plus what
// b's instructions make happen (`made`).
std::vector<std::set<int>> surelyBefore(const Function &f, const CfgFacts &cfg,
                                        const std::map<Place, int> &made,
                                        const std::set<int> &all) {
  const size_t n = f.blocks.size();
  std::vector<std::set<int>> in(n), out(n, all);
  auto reachable = [&](uint32_t b) { return cfg.rpoNumber[b] != kNoBlock; };
  for (uint32_t b = 0; b < n; ++b)
    if (!reachable(b))
      out[b].clear();
  bool changed = true;
  while (changed) {
    changed = false;
    for (uint32_t b : cfg.rpo) {
      std::set<int> now;
      if (b != 0) {
        bool first = true;
        for (uint32_t p : cfg.preds[b]) {
          if (!reachable(p))
            continue;
          if (first)
            now = out[p], first = false;
          else {
            std::set<int> both;
            for (int x : now)
              if (out[p].count(x))
                both.insert(x);
            now = both;
          }
        }
      }
      in[b] = now;
      for (size_t i = 0; i < f.blocks[b].instrs.size(); ++i)
        if (auto it = made.find({b, i}); it != made.end())
          now.insert(it->second);
      if (now != out[b])
        out[b] = now, changed = true;
    }
  }
  return in;
}

struct Access {
  Place at;
  std::string var;
  int64_t offset = 0;
  SlotAccessShape shape;
};

class Promotion {
public:
  Promotion(Function &f, const MemToRegOptions &opt) : f(f), opt(opt), cfg(computeCfg(f)) {
    for (const Variable &v : f.variables)
      if (v.space == Space::Local)
        locals.insert(v.name);
  }

  MemToRegCounts run() {
    if (locals.empty())
      return counts;
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
  std::set<std::string> locals;
  std::map<Reg, int> defCount;
  std::set<Reg> windowBases; // written once, by an unguarded S2R SR_LWINBASE
  std::map<Reg, Pointer> pointers;
  std::map<Reg, Place> defPlace; // of pointers and window bases
  std::set<Place> pointerDefs;
  std::set<std::string> escaping;
  bool allEscape = false;
  std::vector<Access> accesses;

  const Instr &at(Place p) const { return f.blocks[p.first].instrs[p.second]; }

  // The pointer `in` makes from pointers and window bases already known, if any.
  std::optional<Pointer> pointerMade(const Instr &in) const {
    if (in.isGuarded() || in.dsts.size() != 1 || !in.dsts[0].isReg() ||
        in.dsts[0].reg.file != RegFile::R || in.dsts[0].reg.isConst())
      return std::nullopt;
    if (in.mods.list() != std::vector<Mod>{Mod::W64})
      return std::nullopt;
    if (in.op == Opcode::MOV && in.srcs.size() == 1) {
      const Operand &s = in.srcs[0];
      if (s.kind == Operand::Kind::Symbol && locals.count(s.sym))
        return Pointer{s.sym, 0, false};
      if (s.isReg() && !s.neg && !s.abs && pointers.count(s.reg))
        return pointers.at(s.reg);
      return std::nullopt;
    }
    if (in.op != Opcode::IADD3 || in.srcs.size() != 3)
      return std::nullopt;
    std::optional<Pointer> base;
    int64_t add = 0;
    int window = 0; // +1: plus SR_LWINBASE, -1: minus it
    for (const Operand &s : in.srcs) {
      if (s.kind == Operand::Kind::Imm)
        add += s.imm;
      else if (s.isReg() && s.reg.isConst() && !s.neg)
        continue;
      else if (s.isReg() && !s.abs && windowBases.count(s.reg) && window == 0)
        window = s.neg ? -1 : 1;
      else if (s.isReg() && !s.neg && !s.abs && pointers.count(s.reg) && !base)
        base = pointers.at(s.reg);
      else
        return std::nullopt;
    }
    if (!base)
      return std::nullopt;
    if (window == 1) {
      if (base->generic)
        return std::nullopt;
      base->generic = true;
    } else if (window == -1) {
      if (!base->generic)
        return std::nullopt;
      base->generic = false;
    }
    base->offset += add;
    return base;
  }

  void findPointers() {
    for (uint32_t b = 0; b < f.blocks.size(); ++b)
      for (const Instr &in : f.blocks[b].instrs)
        for (Reg d : in.defs())
          ++defCount[d];
    for (uint32_t b = 0; b < f.blocks.size(); ++b)
      for (size_t i = 0; i < f.blocks[b].instrs.size(); ++i) {
        const Instr &in = f.blocks[b].instrs[i];
        if (in.op == Opcode::S2R && !in.isGuarded() && in.dsts.size() == 1 && in.dsts[0].isReg() &&
            in.srcs.size() == 1 && in.srcs[0].kind == Operand::Kind::SReg &&
            in.srcs[0].sreg == SpecialReg::LWINBASE && defCount[in.dsts[0].reg] == 1) {
          windowBases.insert(in.dsts[0].reg);
          defPlace[in.dsts[0].reg] = {b, i};
        }
      }
    // Pointers of pointers: until no definition adds one.
    bool grew = true;
    while (grew) {
      grew = false;
      for (uint32_t b = 0; b < f.blocks.size(); ++b)
        for (size_t i = 0; i < f.blocks[b].instrs.size(); ++i) {
          const Instr &in = f.blocks[b].instrs[i];
          if (in.dsts.size() != 1 || !in.dsts[0].isReg())
            continue;
          const Reg d = in.dsts[0].reg;
          if (pointers.count(d) || defCount[d] != 1)
            continue;
          if (auto p = pointerMade(in)) {
            pointers[d] = *p;
            defPlace[d] = {b, i};
            pointerDefs.insert({b, i});
            grew = true;
          }
        }
    }
  }

  void escape(const std::string &var) { escaping.insert(var); }

  // Every mention of a local variable, a pointer or a window base, instruction by instruction.
  void classify() {
    std::map<Place, int> made;
    std::map<Reg, int> item;
    std::set<int> all;
    for (const auto &[r, p] : defPlace) {
      const int id = int(item.size());
      item[r] = id;
      made[p] = id;
      all.insert(id);
    }
    const auto in = surelyBefore(f, cfg, made, all);
    for (uint32_t b = 0; b < f.blocks.size(); ++b) {
      std::set<int> defined = in[b];
      for (size_t i = 0; i < f.blocks[b].instrs.size(); ++i) {
        classifyInstr({b, i}, [&](Reg r) { return defined.count(item.at(r)) > 0; });
        if (auto it = made.find({b, i}); it != made.end())
          defined.insert(it->second);
      }
    }
  }

  // visitLocalMentions's questions and records, from this half's sets and maps.
  template <class Defined> struct Mentions {
    Promotion &m;
    Place p;
    Defined isDefined;
    bool windowBase(Reg r) const { return m.windowBases.count(r) > 0; }
    const Pointer *pointer(Reg r) const {
      auto it = m.pointers.find(r);
      return it == m.pointers.end() ? nullptr : &it->second;
    }
    std::optional<std::string> local(const std::string &sym) const {
      return m.locals.count(sym) ? std::optional<std::string>(sym) : std::nullopt;
    }
    bool defined(Reg r) const { return isDefined(r); }
    void access(const std::string &var, int64_t offset, const SlotAccessShape &shape) {
      m.accesses.push_back({p, var, offset, shape});
    }
    void escape(const std::string &var) { m.escape(var); }
    void escapeAll() { m.allEscape = true; }
  };

  template <class Defined> void classifyInstr(Place p, Defined defined) {
    Mentions<Defined> h{*this, p, defined};
    visitLocalMentions(at(p), pointerDefs.count(p) > 0, h);
  }

  void promote() {
    // Slots per variable: (offset, bytes) of whole accesses; every access's byte range.
    struct Slot {
      std::vector<size_t> loads, stores; // indices into accesses
    };
    std::map<std::tuple<size_t, int64_t, uint32_t>, Slot> slots; // (variable index, offset, bytes)
    std::map<std::string, size_t> varIndex;
    for (size_t v = 0; v < f.variables.size(); ++v)
      if (f.variables[v].space == Space::Local)
        varIndex[f.variables[v].name] = v;
    std::set<std::string> mentioned;
    for (const Access &a : accesses)
      mentioned.insert(a.var);
    for (const std::string &v : escaping)
      mentioned.insert(v);
    for (const std::string &v : mentioned)
      if (allEscape || escaping.count(v))
        ++counts.variablesEscaping;
    if (allEscape)
      return;
    for (size_t k = 0; k < accesses.size(); ++k) {
      const Access &a = accesses[k];
      if (escaping.count(a.var) || !a.shape.whole)
        continue;
      Slot &s = slots[{varIndex.at(a.var), a.offset, a.shape.bytes}];
      (a.shape.load ? s.loads : s.stores).push_back(k);
    }
    // In bounds, aligned, and no other access overlaps.
    std::vector<std::tuple<size_t, int64_t, uint32_t>> candidates;
    for (const auto &[key, slot] : slots) {
      const auto &[v, off, bytes] = key;
      const Variable &var = f.variables[v];
      bool ok = off >= 0 && off + int64_t(bytes) <= int64_t(var.size()) && off % bytes == 0 &&
                std::max<uint32_t>(var.align, 1) % bytes == 0;
      for (const Access &a : accesses) {
        if (a.var != var.name)
          continue;
        const bool same = a.shape.whole && a.offset == off && a.shape.bytes == bytes;
        if (!same && a.offset < off + int64_t(bytes) && off < a.offset + int64_t(a.shape.bytes))
          ok = false;
      }
      if (ok)
        candidates.push_back(key);
    }
    // Which candidate slots are surely stored before each block, by unguarded stores.
    std::map<Place, int> made;
    std::set<int> all;
    for (size_t c = 0; c < candidates.size(); ++c) {
      all.insert(int(c));
      for (size_t k : slots.at(candidates[c]).stores)
        if (!at(accesses[k].at).isGuarded())
          made[accesses[k].at] = int(c);
    }
    const auto in = surelyBefore(f, cfg, made, all);
    std::set<size_t> uninitialized;
    for (size_t c = 0; c < candidates.size(); ++c)
      for (size_t k : slots.at(candidates[c]).loads) {
        const auto [b, i] = accesses[k].at;
        bool stored = in[b].count(int(c)) > 0;
        for (size_t j = 0; j < i && !stored; ++j)
          if (auto it = made.find({b, j}); it != made.end() && it->second == int(c))
            stored = true;
        if (!stored)
          uninitialized.insert(c);
      }
    for (size_t c = 0; c < candidates.size(); ++c) {
      const Slot &s = slots.at(candidates[c]);
      if (uninitialized.count(c)) {
        ++counts.slotsUninitialized;
        continue;
      }
      const uint32_t loads = uint32_t(s.loads.size()), stores = uint32_t(s.stores.size());
      if (!promoteSlot(loads, stores, opt)) {
        ++counts.slotsKeptByCost;
        continue;
      }
      const uint32_t bytes = std::get<2>(candidates[c]);
      const Reg r = f.newReg(RegFile::R);
      f.regTypes[r] = bytes == 8 ? "b64" : "b32";
      for (size_t k : s.loads) {
        Instr &ld = f.blocks[accesses[k].at.first].instrs[accesses[k].at.second];
        ld = slotAccessAsMove(ld, accesses[k].shape, r);
      }
      for (size_t k : s.stores) {
        Instr &st = f.blocks[accesses[k].at.first].instrs[accesses[k].at.second];
        st = slotAccessAsMove(st, accesses[k].shape, r);
      }
      ++counts.slotsPromoted;
      counts.loadsReplaced += loads;
      counts.storesReplaced += stores;
      counts.cost += slotPromotionCost(loads, stores, opt);
    }
  }
};

} // namespace

MemToRegCounts convertMemoryToRegister(Function &f, const MemToRegOptions &opt) {
  if (f.blocks.empty())
    return {};
  return Promotion(f, opt).run();
}

} // namespace ori::reference
