// Hints for walks over a function's blocks: start loading a block's
// instructions some time before the walk reads them.
//
// Each block's instructions are a heap array of their own. A walk that reads
// one instruction of each block (its last, for the block's successors), or
// visits blocks out of order, reads a line here and a line there, which the
// hardware prefetcher does not foresee; once a function no longer fits in the
// caches (1M instructions are about 220 MB), such a walk waits for memory at
// every block. Walks that read every instruction in block order gained
// nothing from hints in measurements, so they have none. A hint never changes
// what a walk computes (docs/performance.md, "Heap objects per block"). The
// reference half walks for clarity and takes none.
#pragma once

#include <algorithm>
#include <cstddef>

#include "ir/ir.h"

namespace ori::optimized {

// How many blocks ahead of the one being read to ask for.
constexpr size_t kPrefetchBlocksAhead = 8;

// Block b's last instruction, when f has a block b and it is not empty.
inline void prefetchLastInstr(const Function &f, size_t b) {
  if (b >= f.blocks.size() || f.blocks[b].instrs.empty())
    return;
  const char *p = reinterpret_cast<const char *>(&f.blocks[b].instrs.back());
  for (size_t at = 0; at < sizeof(Instr); at += 64)
    __builtin_prefetch(p + at);
}

// The first lines of block b's instructions (up to 4 KB), for a walk that
// will read the whole block a while later (a breadth-first walk: when it
// finds the block).
inline void prefetchBlock(const Function &f, size_t b) {
  if (b >= f.blocks.size())
    return;
  const auto &instrs = f.blocks[b].instrs;
  const char *p = reinterpret_cast<const char *>(instrs.data());
  const size_t bytes = std::min(instrs.size() * sizeof(Instr), size_t(4096));
  for (size_t at = 0; at < bytes; at += 64)
    __builtin_prefetch(p + at);
}

} // namespace ori::optimized
