// Phase 10 EarlyOriSimpleLiveDead (spec/004 "Phase 10"; docs/liveness.md),
// the reference way. Block-local: no CFG and no global dataflow. At the end
// of every block it takes as live every register that some instruction of
// the function reads (a bound of any block's live-out that needs no CFG),
// walks the block backwards as OriPerformLiveDead does, and removes the
// first dead instruction it finds; then recomputes everything and starts
// again, until none is left. So a def that is overwritten later in its own
// block before any read goes, as does a def of a register nothing reads;
// a def that only global liveness shows dead (say, overwritten in the next
// block) stays for phase 16.
#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "reference/reference.h"

namespace ori::reference {
namespace {

std::set<Reg> registersRead(const Function &f) {
  std::set<Reg> out;
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs)
      for (Reg r : in.uses())
        out.insert(r);
  return out;
}

std::optional<std::pair<uint32_t, size_t>> firstLocallyDeadInstr(const Function &f) {
  const std::set<Reg> read = registersRead(f);
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    std::set<Reg> liveNow = read;
    const auto &instrs = f.blocks[b].instrs;
    for (size_t i = instrs.size(); i-- > 0;) {
      const Instr &in = instrs[i];
      bool anyDefLive = false;
      for (Reg r : in.defs())
        anyDefLive = anyDefLive || liveNow.count(r);
      if (!anyDefLive && !keptWhenDead(in))
        return std::make_pair(b, i);
      if (!in.isGuarded())
        for (Reg r : in.defs())
          liveNow.erase(r);
      for (Reg r : in.uses())
        liveNow.insert(r);
    }
  }
  return std::nullopt;
}

} // namespace

uint32_t earlyOriSimpleLiveDead(Function &f) {
  uint32_t removed = 0;
  while (const auto dead = firstLocallyDeadInstr(f)) {
    auto &instrs = f.blocks[dead->first].instrs;
    instrs.erase(instrs.begin() + std::ptrdiff_t(dead->second));
    ++removed;
  }
  dropEmptyUnlabelledBlocks(f);
  return removed;
}

} // namespace ori::reference
