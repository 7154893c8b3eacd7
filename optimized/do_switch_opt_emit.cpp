// DoSwitchOpt's emitter, the optimized way (rules/do_switch_opt.h says what is emitted): the new
// blocks of every lowering built aside, then placed after their heads and every label and table
// entry renumbered in one pass.
#include <algorithm>
#include <span>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "optimized/do_switch_opt_impl.h"
#include "optimized/fnv_map.h"
#include "optimized/group_by_key.h"
#include "rules/do_switch_opt.h"

namespace ori::optimized {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

// Builds the new blocks of the lowerings and renumbers the function once.
struct Emitter {
  Function &f;
  uint32_t oldCount;
  std::vector<uint32_t> labelled; // old blocks that need a label
  uint32_t nextLabelId, nextTableName = 0;
  std::vector<Block> created;                           // new blocks, numbered oldCount + k
  std::vector<std::pair<uint32_t, uint32_t>> placement; // (old block, new block) in layout order
  std::unordered_set<std::string> labels; // labels named $L__SW..., once a fresh one is asked for
  bool labelsRead = false;
  uint32_t firstNewLabelId;    // label ids from here on are the new blocks'
  FnvMap<uint32_t> oldIdNames; // fresh names given so far per label id of an old block
  std::unordered_set<std::string> tableNames; // jump tables named $L__JT..., once a table is made
  bool tablesRead = false;

  explicit Emitter(Function &fn) : f(fn), oldCount(uint32_t(fn.blocks.size())) {
    uint32_t maxId = 0;
    for (const Block &b : fn.blocks)
      maxId = std::max(maxId, b.labelId);
    nextLabelId = firstNewLabelId = maxId + 0x10;
  }

  // $L__SW<label id in hex>, or with _1, _2 ... when a label of the function has that name.
  std::string freshLabel(uint32_t labelId) {
    if (!labelsRead) { // only a label with the prefix can collide with a fresh one
      for (const Block &b : f.blocks)
        if (b.label.starts_with("$L__SW"))
          labels.insert(b.label);
      labelsRead = true;
    }
    if (labels.empty()) {
      // No label of the function has the prefix, so a fresh name can only meet
      // another fresh one, and "$L__SW<hex>" and "$L__SW<hex>_<k>" of two ids
      // never meet: the k-th name asked for an id is the one with suffix k, as
      // the set below would find, without a set of every name (its hashing
      // and nodes cost cache misses on a big function). A new block's id is
      // asked for once.
      const uint32_t k =
          labelId >= firstNewLabelId ? 0 : (*oldIdNames.insertOrFind(labelId).first)++;
      return k == 0 ? fmt::format("$L__SW{:x}", labelId) : fmt::format("$L__SW{:x}_{}", labelId, k);
    }
    std::string name = fmt::format("$L__SW{:x}", labelId);
    for (uint32_t k = 1; !labels.insert(name).second; ++k)
      name = fmt::format("$L__SW{:x}_{}", labelId, k);
    return name;
  }
  // A new block; `place`: laid out now (after the head's earlier new blocks), else by place().
  uint32_t newBlock(uint32_t head, bool withLabel, bool placeNow = true) {
    Block b;
    b.labelId = nextLabelId;
    nextLabelId += 0x10;
    if (withLabel)
      b.label = freshLabel(b.labelId);
    created.push_back(std::move(b));
    const uint32_t id = oldCount + uint32_t(created.size() - 1);
    if (placeNow)
      place(head, id);
    return id;
  }
  void place(uint32_t head, uint32_t id) { placement.push_back({head, id}); }
  Block &block(uint32_t id) { return id < oldCount ? f.blocks[id] : created[id - oldCount]; }
  void needLabel(uint32_t bix) {
    if (bix < oldCount && f.blocks[bix].label.empty())
      labelled.push_back(bix);
  }

  static Instr isetp(Mod cmp, bool isSigned, Reg p, Reg a, int64_t c) {
    Instr in;
    in.op = Opcode::ISETP;
    in.mods.set(cmp);
    in.mods.set(isSigned ? Mod::S32 : Mod::U32);
    in.mods.set(Mod::AND);
    in.dsts = {Operand::reg_(p), Operand::reg_(PT)};
    in.srcs = {Operand::reg_(a), Operand::immediate(c), Operand::reg_(PT)};
    return in;
  }
  static Instr iadd3(Reg d, Reg a, uint32_t minus) {
    Instr in;
    in.op = Opcode::IADD3;
    in.dsts = {Operand::reg_(d)};
    in.srcs = {Operand::reg_(a), Operand::immediate(int64_t(int32_t(0u - minus))),
               Operand::reg_(RZ)};
    return in;
  }
  static Instr bra(uint32_t target, std::optional<Reg> guard) {
    Instr in;
    in.op = Opcode::BRA;
    if (guard)
      in.guard = Operand::reg_(*guard);
    in.srcs = {Operand::label(target)};
    return in;
  }
  static int64_t imm(uint32_t v) { return int64_t(int32_t(v)); }
  static Instr unary(Opcode op, Reg d, Operand a) {
    Instr in;
    in.op = op;
    in.dsts = {Operand::reg_(d)};
    in.srcs = {std::move(a)};
    return in;
  }
  static Instr binary(Opcode op, Reg d, Operand a, Operand b) {
    Instr in = unary(op, d, std::move(a));
    in.srcs.push_back(std::move(b));
    return in;
  }

  // Appends to the head `IADD3 Rt, S, -min, RZ` (none when min = 0: Rt is S),
  // `ISETP.GT.U32 P, Rt, last` and `@P BRA default`; returns Rt.
  Reg boundsCheck(const Lowering &low, uint32_t min, uint32_t last) {
    std::vector<Instr> &head = f.blocks[low.head].instrs;
    Reg index = low.selector;
    if (min != 0) {
      index = f.newReg(RegFile::R);
      head.push_back(iadd3(index, low.selector, min));
    }
    const Reg p = f.newReg(RegFile::P);
    head.push_back(isetp(Mod::GT, false, p, index, imm(last)));
    head.push_back(bra(low.deflt, p));
    return index;
  }

  // Appends `[IADD3] ISETP; @P BRA target` testing cluster c to block `at`.
  void test(uint32_t at, const Lowering &low, const Cluster &c) {
    const Reg p = f.newReg(RegFile::P);
    if (c.lo == c.hi) {
      block(at).instrs.push_back(isetp(Mod::EQ, low.isSigned, p, low.selector, imm(c.lo)));
    } else {
      const Reg t = f.newReg(RegFile::R);
      block(at).instrs.push_back(iadd3(t, low.selector, c.lo));
      block(at).instrs.push_back(isetp(Mod::LE, false, p, t, imm(c.hi - c.lo)));
    }
    block(at).instrs.push_back(bra(c.target, p));
    needLabel(c.target);
  }

  // emit_bst (spec/003) of clusters [lo, hi] starting in block `at`.
  void bst(uint32_t at, const Lowering &low, uint32_t lo, uint32_t hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (lo == hi) {
      test(at, low, low.clusters[mid]);
      const uint32_t next = newBlock(low.head, false);
      block(next).instrs.push_back(bra(low.deflt, std::nullopt));
      return;
    }
    // An empty left subtree is the default itself (the spec's "BRA default" block, threaded).
    const uint32_t left = mid > lo ? newBlock(low.head, true, false) : low.deflt;
    const Reg p = f.newReg(RegFile::P);
    block(at).instrs.push_back(
        isetp(Mod::LT, low.isSigned, p, low.selector, imm(low.clusters[mid].lo)));
    block(at).instrs.push_back(bra(left, p));
    test(newBlock(low.head, false), low, low.clusters[mid]);
    bst(newBlock(low.head, false), low, mid + 1, hi);
    if (mid > lo) { // the left subtree after the right one, as emit_bst lays them out
      place(low.head, left);
      bst(left, low, lo, mid - 1);
    }
  }

  // Bit tests (reference/do_switch_opt.cpp has the rule in words): bounds check,
  // MOV 1 and SHL, then LOP3 & mask, ISETP.NE, @P BRA per destination, most
  // case values first; a plain BRA for the last when the masks cover the range.
  void bitTests(const Lowering &low) {
    const uint32_t max = low.clusters.back().hi;
    const uint32_t min = !low.isSigned && max < kSwitchBitTestWidth ? 0 : low.clusters.front().lo;
    std::array<std::pair<uint32_t, uint32_t>, 3>
        masks{}; // (target, mask) in order of first cluster
    size_t count = 0;
    for (const Cluster &c : low.clusters) {
      size_t k = 0;
      while (k < count && masks[k].first != c.target)
        ++k;
      if (k == count)
        masks[count++] = {c.target, 0};
      const uint32_t from = c.lo - min, to = c.hi - min; // to <= 31
      masks[k].second |= (to == 31 ? ~0u : (1u << (to + 1)) - 1) & ~((1u << from) - 1);
    }
    std::stable_sort(masks.begin(), masks.begin() + count, [](const auto &a, const auto &b) {
      return std::popcount(a.second) > std::popcount(b.second);
    });
    const uint32_t last = max - min;
    uint32_t covered = 0;
    for (size_t k = 0; k < count; ++k)
      covered |= masks[k].second;
    const bool full = covered == (last == 31 ? ~0u : (1u << (last + 1)) - 1);

    const Reg index = boundsCheck(low, min, last);
    uint32_t at = newBlock(low.head, false);
    const Reg one = f.newReg(RegFile::R), bit = f.newReg(RegFile::R);
    block(at).instrs.push_back(unary(Opcode::MOV, one, Operand::immediate(1)));
    block(at).instrs.push_back(binary(Opcode::SHL, bit, Operand::reg_(one), Operand::reg_(index)));
    for (size_t k = 0; k < count; ++k) {
      needLabel(masks[k].first);
      if (full && k + 1 == count) {
        block(at).instrs.push_back(bra(masks[k].first, std::nullopt));
        return;
      }
      const Reg x = f.newReg(RegFile::R), q = f.newReg(RegFile::P);
      Instr lop =
          binary(Opcode::LOP3, x, Operand::reg_(bit), Operand::immediate(imm(masks[k].second)));
      lop.mods.set(Mod::LUT);
      lop.srcs.push_back(Operand::reg_(RZ));
      lop.srcs.push_back(Operand::immediate(0xc0)); // bit & mask
      block(at).instrs.push_back(std::move(lop));
      Instr ne = isetp(Mod::NE, false, q, x, 0);
      ne.srcs[1] = Operand::reg_(RZ);
      block(at).instrs.push_back(std::move(ne));
      block(at).instrs.push_back(bra(masks[k].first, q));
      at = newBlock(low.head, false);
    }
    block(at).instrs.push_back(bra(low.deflt, std::nullopt));
  }

  void lower(const Lowering &low) {
    Block &head = f.blocks[low.head];
    head.instrs.pop_back();                                  // the @P BRA
    head.instrs.erase(head.instrs.begin() + low.isetpIndex); // its ISETP
    if (low.iaddIndex != kNone)
      head.instrs.erase(head.instrs.begin() + low.iaddIndex); // and its IADD3
    needLabel(low.deflt);
    if (low.how == Lowering::How::BitTests) {
      bitTests(low);
      return;
    }
    if (low.how == Lowering::How::Cascade) {
      uint32_t at = low.head;
      for (const Cluster &c : low.clusters) {
        test(at, low, c);
        at = newBlock(low.head, false);
      }
      block(at).instrs.push_back(bra(low.deflt, std::nullopt));
      return;
    }
    if (low.how == Lowering::How::JumpTable) {
      const Cluster &first = low.clusters.front(), &last = low.clusters.back();
      const uint32_t min = first.lo, span = last.hi - min; // entries - 1
      const Reg index = boundsCheck(low, min, span);
      JumpTable jt;
      if (!tablesRead) { // only a table with the prefix can collide with a fresh name
        for (const JumpTable &t : f.jumpTables)
          if (t.name.starts_with("$L__JT"))
            tableNames.insert(t.name);
        tablesRead = true;
      }
      do
        jt.name = fmt::format("$L__JT{}", nextTableName++);
      while (!tableNames.insert(jt.name).second);
      jt.targets.assign(size_t(span) + 1, low.deflt);
      for (const Cluster &c : low.clusters) {
        for (uint32_t v = c.lo;; ++v) {
          jt.targets[uint32_t(v - min)] = c.target;
          if (v == c.hi)
            break;
        }
        needLabel(c.target);
      }
      Instr jmx;
      jmx.op = Opcode::JMX;
      jmx.srcs = {Operand::reg_(index), Operand::jumpTable(uint32_t(f.jumpTables.size()))};
      f.jumpTables.push_back(std::move(jt));
      const uint32_t j = newBlock(low.head, false);
      block(j).instrs.push_back(std::move(jmx));
      return;
    }
    bst(low.head, low, 0, uint32_t(low.clusters.size()) - 1);
  }

  // Places the new blocks after their heads (in creation order) and renumbers every
  // label and jump-table entry; gives the labels the new branches need.
  void finish() {
    std::sort(labelled.begin(), labelled.end());
    for (uint32_t b : labelled)
      if (f.blocks[b].label.empty())
        f.blocks[b].label = freshLabel(f.blocks[b].labelId);
    // The new blocks placed after each old block, in placement order.
    std::vector<uint32_t> placedStart, placed;
    groupByKey(placement, oldCount, placedStart, placed);
    auto placedAfter = [&](uint32_t b) {
      return std::span<const uint32_t>(placed.data() + placedStart[b],
                                       placed.data() + placedStart[b + 1]);
    };
    std::vector<uint32_t> newIndex(oldCount + created.size());
    uint32_t next = 0;
    for (uint32_t b = 0; b < oldCount; ++b) {
      newIndex[b] = next++;
      for (uint32_t id : placedAfter(b))
        newIndex[id] = next++;
    }
    std::vector<Block> blocks;
    blocks.reserve(next);
    for (uint32_t b = 0; b < oldCount; ++b) {
      blocks.push_back(std::move(f.blocks[b]));
      for (uint32_t id : placedAfter(b))
        blocks.push_back(std::move(created[id - oldCount]));
    }
    for (Block &b : blocks)
      for (Instr &in : b.instrs)
        for (Operand &o : in.srcs)
          if (o.kind == Operand::Kind::Label && o.target < newIndex.size())
            o.target = newIndex[o.target];
    for (JumpTable &jt : f.jumpTables)
      for (uint32_t &t : jt.targets)
        if (t < newIndex.size())
          t = newIndex[t];
    f.blocks = std::move(blocks);
  }
};

} // namespace

void emitLowerings(Function &f, const std::vector<Lowering> &lowerings) {
  Emitter e(f);
  for (const Lowering &low : lowerings)
    e.lower(low);
  e.finish();
}

} // namespace ori::optimized
