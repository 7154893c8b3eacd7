// DoSwitchOpt's emitter, the reference way (rules/do_switch_opt.h says what is emitted): one
// Emitter per switch builds its blocks aside, then they are inserted after their heads from the
// last head back, every label and table entry renumbered at each insertion.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "reference/do_switch_opt_impl.h"
#include "reference/reference.h"
#include "rules/do_switch_opt.h"

namespace ori::reference {
namespace {

// Emits the lowered dispatch of one switch: code appended to the head, and new
// blocks numbered from f.blocks.size() (placeholders until they are inserted).
struct Emitter {
  Function &f;
  const Decision &d;
  uint32_t &nextLabelId;
  std::vector<Block> created;   // by placeholder number - base
  std::vector<uint32_t> layout; // placeholders in layout order
  std::set<uint32_t> needLabel; // old blocks a new branch reaches
  uint32_t base;

  // Placeholders start at `first`, past every real block number.
  Emitter(Function &fn, const Decision &dec, uint32_t &labelId, uint32_t first)
      : f(fn), d(dec), nextLabelId(labelId), base(first) {}

  Block &block(uint32_t b) { return b < base ? f.blocks[b] : created[b - base]; }

  uint32_t newBlock(bool labelled, bool placeNow = true) {
    Block b;
    b.labelId = nextLabelId;
    nextLabelId += 0x10;
    if (labelled)
      b.label = "?"; // named once all labels are known (name() below)
    created.push_back(b);
    const uint32_t id = base + uint32_t(created.size() - 1);
    if (placeNow)
      layout.push_back(id);
    return id;
  }

  void append(uint32_t b, Instr in) { block(b).instrs.push_back(std::move(in)); }
  Instr isetp(Mod cmp, bool isSigned, Reg p, Reg a, uint32_t c) {
    Instr in;
    in.op = Opcode::ISETP;
    in.mods.set(cmp);
    in.mods.set(isSigned ? Mod::S32 : Mod::U32);
    in.mods.set(Mod::AND);
    in.dsts = {Operand::reg_(p), Operand::reg_(PT)};
    in.srcs = {Operand::reg_(a), Operand::immediate(int32_t(c)), Operand::reg_(PT)};
    return in;
  }
  Instr iadd3(Reg dst, Reg a, uint32_t minus) {
    Instr in;
    in.op = Opcode::IADD3;
    in.dsts = {Operand::reg_(dst)};
    in.srcs = {Operand::reg_(a), Operand::immediate(int32_t(0u - minus)), Operand::reg_(RZ)};
    return in;
  }
  Instr bra(uint32_t target, std::optional<Reg> guard = std::nullopt) {
    if (target < base)
      needLabel.insert(target);
    Instr in;
    in.op = Opcode::BRA;
    if (guard)
      in.guard = Operand::reg_(*guard);
    in.srcs = {Operand::label(target)};
    return in;
  }

  Instr mov(Reg dst, uint32_t value) {
    Instr in;
    in.op = Opcode::MOV;
    in.dsts = {Operand::reg_(dst)};
    in.srcs = {Operand::immediate(int32_t(value))};
    return in;
  }
  Instr shl(Reg dst, Reg a, Reg by) {
    Instr in;
    in.op = Opcode::SHL;
    in.dsts = {Operand::reg_(dst)};
    in.srcs = {Operand::reg_(a), Operand::reg_(by)};
    return in;
  }
  Instr andImmediate(Reg dst, Reg a, uint32_t mask) { // LOP3.LUT dst, a, mask, RZ, 0xc0: a & mask
    Instr in;
    in.op = Opcode::LOP3;
    in.mods.set(Mod::LUT);
    in.dsts = {Operand::reg_(dst)};
    in.srcs = {Operand::reg_(a), Operand::immediate(int32_t(mask)), Operand::reg_(RZ),
               Operand::immediate(0xc0)};
    return in;
  }

  Instr nonZero(Reg p, Reg x) { // ISETP.NE.U32.AND p, PT, x, RZ, PT
    Instr in = isetp(Mod::NE, false, p, x, 0);
    in.srcs[1] = Operand::reg_(RZ);
    return in;
  }

  void test(uint32_t at, const Cluster &c) {
    const Reg p = f.newReg(RegFile::P);
    if (c.lo == c.hi) {
      append(at, isetp(Mod::EQ, d.isSigned, p, d.selector, c.lo));
    } else {
      const Reg t = f.newReg(RegFile::R);
      append(at, iadd3(t, d.selector, c.lo));
      append(at, isetp(Mod::LE, false, p, t, c.hi - c.lo));
    }
    append(at, bra(c.target, p));
  }

  // The spec's emit_bst; an empty left subtree branches to the default directly.
  void bst(uint32_t at, uint32_t lo, uint32_t hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (lo == hi) {
      test(at, d.clusters[mid]);
      append(newBlock(false), bra(d.deflt));
      return;
    }
    const uint32_t left = mid > lo ? newBlock(true, false) : d.deflt;
    const Reg p = f.newReg(RegFile::P);
    append(at, isetp(Mod::LT, d.isSigned, p, d.selector, d.clusters[mid].lo));
    append(at, bra(left, p));
    test(newBlock(false), d.clusters[mid]);
    bst(newBlock(false), mid + 1, hi);
    if (mid > lo) {
      layout.push_back(left);
      bst(left, lo, mid - 1);
    }
  }

  // Appends to the head `IADD3 Rt, S, -min, RZ` (none when min = 0: Rt is S),
  // `ISETP.GT.U32 P, Rt, last` and `@P BRA default`; returns Rt.
  Reg boundsCheck(uint32_t min, uint32_t last) {
    Reg index = d.selector;
    if (min != 0) {
      index = f.newReg(RegFile::R);
      append(d.head, iadd3(index, d.selector, min));
    }
    const Reg p = f.newReg(RegFile::P);
    append(d.head, isetp(Mod::GT, false, p, index, last));
    append(d.head, bra(d.deflt, p));
    return index;
  }

  // A cascade: the clusters tested in their order, then BRA default.
  void cascade() {
    uint32_t at = d.head;
    for (const Cluster &c : d.clusters) {
      test(at, c);
      at = newBlock(false);
    }
    append(at, bra(d.deflt));
  }

  // LLVM's bit-test lowering: one bounds check, then the bit 1 << index tested
  // against one mask per destination, the destination with the most case values
  // first (ties: the one whose first cluster comes first). The index is
  // S - min, or S itself when every case lies in [0, 31] (the order taken is
  // unsigned then, so min >= 0), as LLVM does to save the subtraction. When
  // the masks cover every index up to the bound, the last test is a plain BRA.
  void bitTests() {
    uint32_t min = d.clusters.front().lo;
    const uint32_t max = d.clusters.back().hi;
    if (!d.isSigned && max < kSwitchBitTestWidth)
      min = 0;
    std::vector<std::pair<uint32_t, uint32_t>> masks; // (target, mask) in order of first cluster
    for (const Cluster &c : d.clusters) {
      auto it = std::find_if(masks.begin(), masks.end(),
                             [&](const auto &m) { return m.first == c.target; });
      if (it == masks.end())
        it = masks.insert(masks.end(), {c.target, 0u});
      for (uint64_t v = uint32_t(c.lo - min); v <= uint32_t(c.hi - min); ++v)
        it->second |= 1u << v;
    }
    std::stable_sort(masks.begin(), masks.end(), [](const auto &a, const auto &b) {
      return std::popcount(a.second) > std::popcount(b.second);
    });
    const uint32_t last = max - min;
    uint32_t covered = 0;
    for (const auto &m : masks)
      covered |= m.second;
    const bool full = covered == (last == 31 ? ~0u : (1u << (last + 1)) - 1);

    const Reg index = boundsCheck(min, last);
    uint32_t at = newBlock(false);
    const Reg one = f.newReg(RegFile::R), bit = f.newReg(RegFile::R);
    append(at, mov(one, 1));
    append(at, shl(bit, one, index));
    for (size_t k = 0; k < masks.size(); ++k) {
      if (full && k + 1 == masks.size()) {
        append(at, bra(masks[k].first));
        return;
      }
      const Reg x = f.newReg(RegFile::R), q = f.newReg(RegFile::P);
      append(at, andImmediate(x, bit, masks[k].second));
      append(at, nonZero(q, x));
      append(at, bra(masks[k].first, q));
      at = newBlock(false);
    }
    append(at, bra(d.deflt));
  }

  void jumpTable(uint32_t &nextTable) {
    const uint32_t min = d.clusters.front().lo, last = d.clusters.back().hi - min;
    const Reg index = boundsCheck(min, last);
    JumpTable jt;
    do
      jt.name = fmt::format("$L__JT{}", nextTable++);
    while (std::any_of(f.jumpTables.begin(), f.jumpTables.end(),
                       [&](const JumpTable &t) { return t.name == jt.name; }));
    jt.targets.assign(uint64_t(last) + 1, d.deflt);
    for (const Cluster &c : d.clusters)
      for (uint64_t k = uint32_t(c.lo - min); k <= uint32_t(c.hi - min); ++k)
        jt.targets[k] = c.target;
    for (uint32_t t : jt.targets)
      needLabel.insert(t);
    Instr jmx;
    jmx.op = Opcode::JMX;
    jmx.srcs = {Operand::reg_(index), Operand::jumpTable(uint32_t(f.jumpTables.size()))};
    f.jumpTables.push_back(jt);
    append(newBlock(false), jmx);
  }
};

// Inserts `blocks` after block `after`, renumbering every label and table entry
// of the function, of `blocks` and of the blocks still `pending`; placeholders
// (numbers from `base`) in `blocks` become the numbers of its blocks.
void insertAfter(Function &f, uint32_t after, std::vector<Block> blocks, uint32_t base,
                 std::vector<std::vector<Block> *> &pending) {
  const uint32_t count = uint32_t(blocks.size());
  auto renumber = [&](uint32_t t, bool own) {
    if (t >= base)
      return own ? after + 1 + (t - base) : t;
    return t > after ? t + count : t;
  };
  auto renumberAll = [&](std::vector<Block> &list, bool own) {
    for (Block &b : list)
      for (Instr &in : b.instrs)
        for (Operand &o : in.srcs)
          if (o.kind == Operand::Kind::Label)
            o.target = renumber(o.target, own);
  };
  renumberAll(f.blocks, false);
  for (Instr &in : f.blocks[after].instrs) // the head: its new code names its own blocks
    for (Operand &o : in.srcs)
      if (o.kind == Operand::Kind::Label && o.target >= base)
        o.target = after + 1 + (o.target - base);
  renumberAll(blocks, true);
  for (std::vector<Block> *other : pending)
    renumberAll(*other, false);
  for (JumpTable &jt : f.jumpTables)
    for (uint32_t &t : jt.targets)
      t = renumber(t, false);
  f.blocks.insert(f.blocks.begin() + after + 1, blocks.begin(), blocks.end());
}

std::string labelFor(const Function &f, const Block &b) {
  std::string name = fmt::format("$L__SW{:x}", b.labelId);
  for (uint32_t k = 1; f.findBlock(name); ++k)
    name = fmt::format("$L__SW{:x}_{}", b.labelId, k);
  return name;
}

} // namespace

void emitLowerings(Function &f, const std::vector<Decision> &decisions) {
  uint32_t nextLabelId = 0;
  for (const Block &b : f.blocks)
    nextLabelId = std::max(nextLabelId, b.labelId);
  nextLabelId += 0x10;
  uint32_t nextTable = 0;
  // Heads keep their block numbers until the end: blocks are inserted from the last head back.
  std::vector<std::pair<uint32_t, Emitter>> emitted;
  std::set<uint32_t> needLabel;
  for (const Decision &d : decisions) {
    Block &head = f.blocks[d.head];
    head.instrs.pop_back();
    head.instrs.erase(head.instrs.begin() + long(d.isetpIndex));
    if (d.iaddIndex)
      head.instrs.erase(head.instrs.begin() + long(*d.iaddIndex));
    Emitter e(f, d, nextLabelId, uint32_t(f.blocks.size()) + 0x10000000u);
    if (d.how == Lowering::JumpTable)
      e.jumpTable(nextTable);
    else if (d.how == Lowering::BitTests)
      e.bitTests();
    else if (d.how == Lowering::Cascade)
      e.cascade();
    else
      e.bst(d.head, 0, uint32_t(d.clusters.size() - 1));
    e.needLabel.insert(d.deflt);
    needLabel.insert(e.needLabel.begin(), e.needLabel.end());
    emitted.push_back({d.head, std::move(e)});
  }
  // Name the labels: old blocks by bix, then the new ones in creation order.
  for (uint32_t b : needLabel)
    if (f.blocks[b].label.empty())
      f.blocks[b].label = labelFor(f, f.blocks[b]);
  for (auto &[head, e] : emitted)
    for (Block &b : e.created)
      if (b.label == "?")
        b.label = labelFor(f, b);
  // Each head's blocks in layout order, placeholders renumbered to base + place.
  std::vector<std::vector<Block>> laidOut(emitted.size());
  for (size_t k = 0; k < emitted.size(); ++k) {
    Emitter &e = emitted[k].second;
    std::map<uint32_t, uint32_t> position; // placeholder -> place
    for (uint32_t id : e.layout)
      position[id] = uint32_t(laidOut[k].size()), laidOut[k].push_back(e.created[id - e.base]);
    auto toPlace = [&](std::vector<Instr> &instrs) {
      for (Instr &in : instrs)
        for (Operand &o : in.srcs)
          if (o.kind == Operand::Kind::Label && o.target >= e.base)
            o.target = e.base + position.at(o.target);
    };
    for (Block &b : laidOut[k])
      toPlace(b.instrs);
    toPlace(f.blocks[emitted[k].first].instrs);
  }
  // From the last head back, so that the heads not yet done keep their numbers.
  std::vector<size_t> byHead(emitted.size());
  for (size_t k = 0; k < byHead.size(); ++k)
    byHead[k] = k;
  std::sort(byHead.begin(), byHead.end(),
            [&](size_t a, size_t b) { return emitted[a].first > emitted[b].first; });
  for (size_t i = 0; i < byHead.size(); ++i) {
    std::vector<std::vector<Block> *> pending;
    for (size_t j = i + 1; j < byHead.size(); ++j)
      pending.push_back(&laidOut[byHead[j]]);
    const size_t k = byHead[i];
    insertAfter(f, emitted[k].first, laidOut[k], emitted[k].second.base, pending);
  }
}

} // namespace ori::reference
