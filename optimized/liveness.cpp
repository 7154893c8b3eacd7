// Optimized liveness (spec/004 "Iterative Fixed-Point Solver", "Per-Register-
// File Liveness"; ir/facts.h LivenessFacts). Registers are numbered densely
// per file (R, UR, P, UP, B), and each block has one BitVector per file for
// gen, kill, LiveIn and LiveOut. gen/kill: one backward walk per block, an
// unguarded def clearing gen and setting kill, then the uses setting gen (the
// spec's pseudocode tests "r not in kill" while walking backwards, which is
// wrong: docs/spec-notes.md "Liveness (spec/004)").
//
// The solver walks the blocks in postorder, successors first: the spec's
// "for each block B in reverse RPO" (its prose says "in RPO", but a backward
// problem converges fastest against the edges), reachable blocks as the
// reversed CfgFacts::rpo, then the unreachable ones from the last bix down.
// Per block and file: LiveOut.orIfChanged(LiveIn(S)) for each successor S,
// then the fused transfer LiveIn.orWithAndNotIfChanged(gen, LiveOut, kill);
// rounds repeat until none changes a bit. Sets start empty and only grow, so
// this is the least fixed point, as in the reference half.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "optimized/bitvector.h"
#include "optimized/optimized.h"

namespace ori::optimized {
namespace {

// Dense bit numbers of one file's registers. Register numbers are used as
// they are when they are dense enough (the common case: virtual registers
// counted from 0); otherwise the sorted distinct numbers are searched.
struct FileNumbering {
  std::vector<uint32_t> nums; // sorted distinct register numbers (sparse case)
  bool identity = true;
  uint32_t bits = 0;

  uint32_t index(uint32_t num) const {
    if (identity) return num;
    return uint32_t(std::lower_bound(nums.begin(), nums.end(), num) - nums.begin());
  }
  uint32_t number(uint32_t bit) const { return identity ? bit : nums[bit]; }
};

std::vector<FileNumbering> numberRegisters(const Function& f) {
  std::vector<FileNumbering> files(kNumRegFiles);
  for (const Block& b : f.blocks)
    for (const Instr& i : b.instrs) {
      for (Reg r : i.defs()) files[size_t(r.file)].nums.push_back(r.num);
      for (Reg r : i.uses()) files[size_t(r.file)].nums.push_back(r.num);
    }
  for (FileNumbering& fn : files) {
    std::sort(fn.nums.begin(), fn.nums.end());
    fn.nums.erase(std::unique(fn.nums.begin(), fn.nums.end()), fn.nums.end());
    const uint64_t span = fn.nums.empty() ? 0 : uint64_t(fn.nums.back()) + 1;
    fn.identity = span <= 4 * uint64_t(fn.nums.size()) + 256;
    fn.bits = fn.identity ? uint32_t(span) : uint32_t(fn.nums.size());
    if (fn.identity) fn.nums.clear();
  }
  return files;
}

// The block's registers, walked from the lowest bit of each file upwards.
std::vector<Reg> toRegs(const std::vector<FileNumbering>& files, const std::vector<BitVector>* sets, size_t b) {
  std::vector<Reg> out;
  for (size_t file = 0; file < files.size(); ++file) {
    if (!files[file].bits) continue; // no registers of this file: no sets
    const BitVector& v = sets[file][b];
    for (uint32_t w = 0; w < v.wordCount(); ++w)
      for (uint32_t bits = v.words()[w]; bits; bits &= bits - 1)
        out.push_back(Reg{RegFile(file), files[file].number(w * 32 + uint32_t(std::countr_zero(bits)))});
  }
  return out;
}

} // namespace

LivenessFacts computeLiveness(const Function& f, const CfgFacts& cfg) {
  const size_t n = f.blocks.size();
  const std::vector<FileNumbering> files = numberRegisters(f);
  std::vector<size_t> active; // files with registers
  for (size_t file = 0; file < files.size(); ++file)
    if (files[file].bits) active.push_back(file);

  std::vector<BitVector> gen[kNumRegFiles], kill[kNumRegFiles], in[kNumRegFiles], out[kNumRegFiles];
  for (size_t file : active)
    for (auto* sets : {gen, kill, in, out}) sets[file].assign(n, BitVector(files[file].bits));

  auto bit = [&](Reg r) { return files[size_t(r.file)].index(r.num); };
  for (size_t b = 0; b < n; ++b) {
    const auto& instrs = f.blocks[b].instrs;
    for (auto it = instrs.rbegin(); it != instrs.rend(); ++it) {
      if (!it->isGuarded())
        for (Reg r : it->defs()) {
          gen[size_t(r.file)][b].clearBit(bit(r));
          kill[size_t(r.file)][b].setBit(bit(r));
        }
      for (Reg r : it->uses()) gen[size_t(r.file)][b].setBit(bit(r));
    }
  }

  // Postorder of the reachable blocks, then the unreachable ones.
  std::vector<uint32_t> order(cfg.rpo.rbegin(), cfg.rpo.rend());
  for (size_t b = n; b-- > 0;)
    if (cfg.rpoNumber[b] == kNoBlock) order.push_back(uint32_t(b));
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b : order)
      for (size_t file : active) {
        for (uint32_t s : cfg.succs[b]) changed |= out[file][b].orIfChanged(in[file][s]);
        changed |= in[file][b].orWithAndNotIfChanged(gen[file][b], out[file][b], kill[file][b]);
      }
  }

  LivenessFacts facts;
  facts.pressure.resize(n);
  BitVector live[kNumRegFiles];
  std::vector<Reg> added;
  for (size_t b = 0; b < n; ++b) {
    facts.liveIn.push_back(toRegs(files, in, b));
    facts.liveOut.push_back(toRegs(files, out, b));
    // Walk the block backwards with a live count per file: the points are
    // just after each instruction (its defs included) and the entry.
    RegCounts count{}, best{};
    for (size_t file : active) {
      live[file] = out[file][b];
      count[file] = live[file].popcount();
    }
    auto raise = [&] {
      for (size_t k = 0; k < best.size(); ++k) best[k] = std::max(best[k], count[k]);
    };
    const auto& instrs = f.blocks[b].instrs;
    for (auto it = instrs.rbegin(); it != instrs.rend(); ++it) {
      std::vector<Reg> defs = it->defs();
      added.clear();
      for (Reg r : defs)
        if (!live[size_t(r.file)].testBit(bit(r))) {
          live[size_t(r.file)].setBit(bit(r));
          ++count[size_t(r.file)];
          added.push_back(r);
        }
      raise();
      for (Reg r : added) {
        live[size_t(r.file)].clearBit(bit(r));
        --count[size_t(r.file)];
      }
      if (!it->isGuarded())
        for (Reg r : defs)
          if (live[size_t(r.file)].testBit(bit(r))) {
            live[size_t(r.file)].clearBit(bit(r));
            --count[size_t(r.file)];
          }
      for (Reg r : it->uses())
        if (!live[size_t(r.file)].testBit(bit(r))) {
          live[size_t(r.file)].setBit(bit(r));
          ++count[size_t(r.file)];
        }
    }
    raise();
    facts.pressure[b] = best;
    for (size_t k = 0; k < best.size(); ++k) facts.maxPressure[k] = std::max(facts.maxPressure[k], best[k]);
  }
  if (n) facts.uninitialized = facts.liveIn[0];
  return facts;
}

} // namespace ori::optimized
