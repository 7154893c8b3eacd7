// Liveness of a chosen set of registers only, for passes that ask about a few
// registers of a big function (the cleanup passes' DCE asks about the copies
// it made dead, the zero-extension analysis about registers live into the
// entry), where computeLiveness's blocks x registers bit sets cost more than
// the pass itself.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ir/facts.h"
#include "ir/ir.h"
#include "optimized/reg_index.h"

namespace ori::optimized {

// Path exploration (Appel, "Modern Compiler Implementation", 10.1; Brandner et
// al., "Computing Liveness Sets for SSA-Form Programs", INRIA RR-7503, 2011):
// from each block where a register is read before any unguarded write of it
// there (upward-exposed), backwards over predecessors until a block that
// writes it unguarded. The equations are computeLiveness's and so is the
// answer, restricted to the registers asked about; the time is the
// instructions plus, per register, the blocks it is live in.
class SubsetLiveness {
public:
  // The function's registers already numbered (functionRegs, which reads
  // the instructions once for every question); `asked` holds numbers of
  // all.index, ascending and distinct. With `entryOnly` only liveIntoEntry is
  // answered (every liveOut is empty), which is cheaper.
  SubsetLiveness(const FunctionRegs &all, const CfgFacts &cfg, const std::vector<uint32_t> &asked,
                 bool entryOnly = false);

  size_t size() const { return regs_.size(); }
  Reg reg(uint32_t i) const { return regs_.reg(i); }
  // The index of r among the registers asked about (ascending Reg order), or -1.
  int32_t index(Reg r) const { return regs_.index(r); }
  // The same for register number `i` of the FunctionRegs this was built from.
  int32_t indexOfNumbered(uint32_t i) const { return i < which_.size() ? which_[i] : -1; }
  // The indices of the registers live at the end of block b, ascending.
  std::span<const uint32_t> liveOut(uint32_t b) const {
    return {out_.data() + outStart_[b], out_.data() + outStart_[b + 1]};
  }
  // Whether register i is live into block 0 (read before written on some path
  // from the entry: computeLiveness's `uninitialized`).
  bool liveIntoEntry(uint32_t i) const { return entry_[i] != 0; }

private:
  using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;
  // From the (register, block) pairs where a register is upward-exposed and
  // where it is written unguarded, each in block order.
  void solve(uint32_t blocks, const CfgFacts &cfg, const Pairs &exposed, const Pairs &written,
             bool entryOnly);

  RegIndex regs_;
  std::vector<int32_t> which_;           // FunctionRegs number -> index, or -1
  std::vector<uint32_t> outStart_, out_; // live-out sets, CSR by block
  std::vector<uint8_t> entry_;
};

} // namespace ori::optimized
