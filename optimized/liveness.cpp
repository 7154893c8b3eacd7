// Optimized liveness (spec/004 "Iterative Fixed-Point Solver", "Per-Register-
// File Liveness"; ir/facts.h LivenessFacts). Registers are numbered densely
// per file (R, UR, P, UP, B); each file has one arena of bit sets, gen, kill,
// LiveIn and LiveOut per block (optimized/liveness_solver.h). Every
// instruction's defs and uses are read once, into flat arrays of bit numbers,
// and both the gen/kill walk and the pressure walk run on those.
//
// gen/kill: one backward walk per block, an unguarded def clearing gen and
// setting kill, then the uses setting gen (the spec's pseudocode tests "r not
// in kill" while walking backwards, which is wrong: docs/spec-notes.md
// "Liveness (spec/004)").
//
// The solver walks the blocks in postorder, successors first: the spec's
// "for each block B in reverse RPO" (its prose says "in RPO", but a backward
// problem converges fastest against the edges), reachable blocks as the
// reversed CfgFacts::rpo, then the unreachable ones from the last bix down.
// Per block: LiveOut.orIfChanged(LiveIn(S)) for each successor S, then the
// fused transfer LiveIn.orWithAndNotIfChanged(gen, LiveOut, kill); rounds
// repeat until no LiveIn grows. Two differences from the spec's loop, neither
// changing the result: the files are solved one after the other (they are
// independent problems), and a step whose inputs did not grow since the block
// last read them is skipped (a successor's LiveIn is ORed in only when it grew
// after that; the transfer runs only when LiveOut grew, or on the first
// visit). Sets start empty and only grow, so this is the least fixed point,
// as in the reference half.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <vector>

#include <sys/mman.h>

#include "optimized/liveness_solver.h"
#include "optimized/optimized.h"

namespace ori::optimized {

// ---- the solver ---------------------------------------------------------------

LivenessSets::LivenessSets(uint32_t blocks, uint32_t bits)
    : blocks_(blocks), bits_(bits), words_(uint32_t((uint64_t(bits) + 31) / 32)) {
  if (words_ >= 8)
    words_ = (words_ + 7) & ~7u;
  // A large arena is mapped directly (zero pages from the OS) with
  // transparent huge pages asked for: 64k registers x 10k blocks take 1.3 GB,
  // and faulting that in 4 KB pages took longer than the whole analysis
  // (docs/performance.md "Liveness"). A small one comes from calloc.
  constexpr size_t kAlign = 64, kHuge = size_t(2) << 20;
  if (bytes() >= 2 * kHuge) {
    mapped_ = (bytes() + kHuge - 1) & ~(kHuge - 1);
    storage_ = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (storage_ == MAP_FAILED)
      throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
    madvise(storage_, mapped_, MADV_HUGEPAGE); // advice only: no huge pages is fine
#endif
    arena_ = static_cast<uint32_t *>(storage_);
    return;
  }
  storage_ = std::calloc(bytes() + kAlign, 1);
  if (!storage_)
    throw std::bad_alloc();
  arena_ = reinterpret_cast<uint32_t *>((reinterpret_cast<uintptr_t>(storage_) + kAlign - 1) &
                                        ~uintptr_t(kAlign - 1));
}

LivenessSets::~LivenessSets() {
  if (mapped_)
    munmap(storage_, mapped_);
  else
    std::free(storage_);
}

void LivenessSets::clearSolution() {
  for (uint32_t b = 0; b < blocks_; ++b)
    std::memset(in(b), 0, 2 * size_t(words_) * sizeof(uint32_t));
}

std::vector<uint32_t> solverOrder(const CfgFacts &cfg) {
  std::vector<uint32_t> order(cfg.rpo.rbegin(), cfg.rpo.rend());
  for (size_t b = cfg.rpoNumber.size(); b-- > 0;)
    if (cfg.rpoNumber[b] == kNoBlock)
      order.push_back(uint32_t(b));
  return order;
}

uint32_t solveLiveness(LivenessSets &sets, const CfgFacts &cfg, const std::vector<uint32_t> &order,
                       const BitKernels &k) {
  const uint32_t n = sets.words();
  // Steps count block visits from 1. grewAt[b]: the step at which LiveIn(b)
  // last grew (0: never); readAt[b]: the step at which b last read its
  // successors (0: never). A successor that grew at or after that step
  // (itself included: it reads its own LiveIn before growing it) is reread.
  std::vector<uint64_t> grewAt(sets.blocks(), 0), readAt(sets.blocks(), 0);
  uint64_t step = 0;
  uint32_t rounds = 0;
  for (bool grew = true; grew; ++rounds) {
    grew = false;
    for (uint32_t b : order) {
      const uint64_t lastRead = readAt[b];
      readAt[b] = ++step;
      bool outGrew = lastRead == 0;
      for (uint32_t s : cfg.succs[b])
        if (grewAt[s] != 0 && grewAt[s] >= lastRead)
          outGrew |= k.orIfChanged(sets.out(b), sets.in(s), n);
      if (outGrew &&
          k.orWithAndNotIfChanged(sets.in(b), sets.gen(b), sets.out(b), sets.kill(b), n)) {
        grewAt[b] = step;
        grew = true;
      }
    }
  }
  return rounds;
}

namespace {

// ---- registers as bit numbers ------------------------------------------------

// One operand's register: its file and bit number (its register number until
// numberRegisters replaces it).
struct RegBit {
  uint8_t file;
  uint32_t bit;
};

// Every instruction's defs, then its uses, in one array.
struct InstrRegs {
  std::vector<RegBit> regs;
  std::vector<uint32_t> start;    // instruction i: regs[start[i], start[i+1])
  std::vector<uint32_t> defCount; // of which the first defCount[i] are defs
  std::vector<uint8_t> guarded;
  std::vector<uint32_t> blockStart; // block b: instructions [blockStart[b], blockStart[b+1])
};

InstrRegs readRegs(const Function &f) {
  InstrRegs r;
  r.blockStart.push_back(0);
  for (const Block &b : f.blocks) {
    for (const Instr &i : b.instrs) {
      r.start.push_back(uint32_t(r.regs.size()));
      const size_t first = r.regs.size();
      forEachDef(i, [&](Reg d) { r.regs.push_back({uint8_t(d.file), d.num}); });
      r.defCount.push_back(uint32_t(r.regs.size() - first));
      forEachUse(i, [&](Reg u) { r.regs.push_back({uint8_t(u.file), u.num}); });
      r.guarded.push_back(i.isGuarded());
    }
    r.blockStart.push_back(uint32_t(r.start.size()));
  }
  r.start.push_back(uint32_t(r.regs.size()));
  return r;
}

// Dense bit numbers of one file's registers. Register numbers are used as
// they are when they are dense enough (the common case: virtual registers
// counted from 0); otherwise the sorted distinct numbers are searched.
struct FileNumbering {
  std::vector<uint32_t> nums; // sorted distinct register numbers (sparse case)
  bool identity = true;
  uint32_t bits = 0;

  uint32_t index(uint32_t num) const {
    if (identity)
      return num;
    return uint32_t(std::lower_bound(nums.begin(), nums.end(), num) - nums.begin());
  }
  uint32_t number(uint32_t bit) const { return identity ? bit : nums[bit]; }
};

// Numbers every file and turns the register numbers of `r` into bit numbers.
std::vector<FileNumbering> numberRegisters(InstrRegs &r) {
  std::vector<FileNumbering> files(kNumRegFiles);
  std::vector<uint64_t> mentions(kNumRegFiles, 0), span(kNumRegFiles, 0);
  for (const RegBit &x : r.regs) {
    ++mentions[x.file];
    span[x.file] = std::max(span[x.file], uint64_t(x.bit) + 1);
  }
  for (size_t file = 0; file < files.size(); ++file) {
    FileNumbering &fn = files[file];
    // Identity when the numbers span at most 4 bits per distinct register
    // (+256); distinct registers are counted with a flag array when the span is
    // small enough for that to be cheap, else sorted.
    if (span[file] <= 4 * mentions[file] + 256) {
      std::vector<uint8_t> seen(span[file], 0);
      uint64_t distinct = 0;
      for (const RegBit &x : r.regs)
        if (x.file == file && !seen[x.bit])
          seen[x.bit] = 1, ++distinct;
      fn.identity = span[file] <= 4 * distinct + 256;
      if (fn.identity) {
        fn.bits = uint32_t(span[file]);
        continue;
      }
    }
    fn.identity = false;
    for (const RegBit &x : r.regs)
      if (x.file == file)
        fn.nums.push_back(x.bit);
    std::sort(fn.nums.begin(), fn.nums.end());
    fn.nums.erase(std::unique(fn.nums.begin(), fn.nums.end()), fn.nums.end());
    fn.bits = uint32_t(fn.nums.size());
  }
  for (RegBit &x : r.regs)
    x.bit = files[x.file].index(x.bit);
  return files;
}

// Appends the registers of a set, from the lowest bit upwards.
void appendRegs(std::vector<Reg> &out, RegFile file, const FileNumbering &fn, const uint32_t *words,
                uint32_t n) {
  for (uint32_t w = 0; w < n; ++w)
    for (uint32_t bits = words[w]; bits; bits &= bits - 1)
      out.push_back(Reg{file, fn.number(w * 32 + uint32_t(std::countr_zero(bits)))});
}

} // namespace

LivenessFacts computeLiveness(const Function &f, const CfgFacts &cfg) {
  const uint32_t n = uint32_t(f.blocks.size());
  InstrRegs regs = readRegs(f);
  const std::vector<FileNumbering> files = numberRegisters(regs);
  std::optional<LivenessSets> sets[kNumRegFiles]; // files with registers only
  for (size_t file = 0; file < files.size(); ++file)
    if (files[file].bits)
      sets[file].emplace(n, files[file].bits);

  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t i = regs.blockStart[b + 1]; i-- > regs.blockStart[b];) {
      const RegBit *r = regs.regs.data() + regs.start[i];
      const RegBit *uses = r + regs.defCount[i];
      if (!regs.guarded[i])
        for (const RegBit *d = r; d != uses; ++d) {
          clearBit(sets[d->file]->gen(b), d->bit);
          setBit(sets[d->file]->kill(b), d->bit);
        }
      for (const RegBit *u = uses; u != regs.regs.data() + regs.start[i + 1]; ++u)
        setBit(sets[u->file]->gen(b), u->bit);
    }

  const std::vector<uint32_t> order = solverOrder(cfg);
  for (auto &s : sets)
    if (s)
      solveLiveness(*s, cfg, order);

  const BitKernels &kernels = bestKernels();
  LivenessFacts facts;
  facts.liveIn.resize(n);
  facts.liveOut.resize(n);
  facts.pressure.resize(n);
  std::vector<uint32_t> live[kNumRegFiles]; // the pressure walk's live set per file
  std::vector<const RegBit *> added;        // defs live only just after their instruction
  for (size_t file = 0; file < files.size(); ++file)
    if (sets[file])
      live[file].resize(sets[file]->words());
  for (uint32_t b = 0; b < n; ++b) {
    // Sized first: growing 2 x 100k vectors by doubling kept malloc busier
    // than everything else together.
    size_t inSize = 0, outSize = 0;
    for (const auto &s : sets)
      if (s) {
        inSize += kernels.popcount(s->in(b), s->words());
        outSize += kernels.popcount(s->out(b), s->words());
      }
    facts.liveIn[b].reserve(inSize);
    facts.liveOut[b].reserve(outSize);
    for (size_t file = 0; file < files.size(); ++file) {
      if (!sets[file])
        continue;
      const LivenessSets &s = *sets[file];
      appendRegs(facts.liveIn[b], RegFile(file), files[file], s.in(b), s.words());
      appendRegs(facts.liveOut[b], RegFile(file), files[file], s.out(b), s.words());
    }
    // Walk the block backwards with a live count per file: the points are
    // just after each instruction (its defs included) and the entry.
    RegCounts count{}, best{};
    for (size_t file = 0; file < files.size(); ++file)
      if (sets[file]) {
        std::memcpy(live[file].data(), sets[file]->out(b), live[file].size() * sizeof(uint32_t));
        count[file] = kernels.popcount(live[file].data(), uint32_t(live[file].size()));
      }
    auto raise = [&] {
      for (size_t k = 0; k < best.size(); ++k)
        best[k] = std::max(best[k], count[k]);
    };
    for (uint32_t i = regs.blockStart[b + 1]; i-- > regs.blockStart[b];) {
      const RegBit *r = regs.regs.data() + regs.start[i];
      const RegBit *uses = r + regs.defCount[i];
      const RegBit *end = regs.regs.data() + regs.start[i + 1];
      added.clear();
      for (const RegBit *d = r; d != uses; ++d)
        if (!testBit(live[d->file].data(), d->bit)) {
          setBit(live[d->file].data(), d->bit);
          ++count[d->file];
          added.push_back(d);
        }
      raise();
      for (const RegBit *d : added) {
        clearBit(live[d->file].data(), d->bit);
        --count[d->file];
      }
      if (!regs.guarded[i])
        for (const RegBit *d = r; d != uses; ++d)
          if (testBit(live[d->file].data(), d->bit)) {
            clearBit(live[d->file].data(), d->bit);
            --count[d->file];
          }
      for (const RegBit *u = uses; u != end; ++u)
        if (!testBit(live[u->file].data(), u->bit)) {
          setBit(live[u->file].data(), u->bit);
          ++count[u->file];
        }
    }
    raise();
    facts.pressure[b] = best;
    for (size_t k = 0; k < best.size(); ++k)
      facts.maxPressure[k] = std::max(facts.maxPressure[k], best[k]);
  }
  if (n)
    facts.uninitialized = facts.liveIn[0];
  return facts;
}

} // namespace ori::optimized
