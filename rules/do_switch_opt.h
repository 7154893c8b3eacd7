// Phases 14 DoSwitchOptFirst and 30 DoSwitchOptSecond (spec/003 "DoSwitchOpt";
// docs/branch-and-switch.md), and phase 80 ExpandJmxComputation: the contract of
// reference/do_switch_opt.cpp and optimized/do_switch_opt.cpp, and the instruction-level rules
// both apply (what a compare of the selector is, how nvcc's bit test reads, when an SGXT leaves
// the selector as it is, a bound on the selector).
//
// A switch is a tree of compare blocks on one selector register S, found from a head in RPO
// order:
//   head: any code, then ISETP.cmp.{U32,S32}.AND P, PT, S, c, PT (c an immediate or RZ, on
//         either side; selectorCompare) and @P BRA / @!P BRA as its last instruction (with
//         extendedPatternMatch, other instructions that do not write S or P may stand between
//         the two);
//   node: a block of exactly that ISETP and its @P BRA (not the head), or a trampoline holding
//         only an unconditional BRA;
// where every compare's predicate is read by its BRA only. The compared register may also be t,
// read once, made in the same block by IADD3 t, S, k, RZ (offsetOf: a range check on S) or by an
// SGXT t, S, k that leaves every value S can have as it is (sgxtIdentity, with S's bound from
// boundOf in the head block; docs "Narrow selectors"); the node then holds that instruction
// first. A node may also be nvcc's bit test (bitTestShape: [MOV one, 1; SHL bit, one, S;] LOP3
// x, bit, M; ISETP.NE x, 0; @P BRA: S < 32 and bit S of M) when `bit` holds 1 << S wherever it
// is read. A node's branch and fall-through lead to further nodes or to leaves (any other
// block; the head reached again is a leaf). A tree with a cycle of nodes, with more than
// kSwitchMaxTreeBlocks nodes, or whose selector values do not split into at most
// kSwitchMaxCaseValues case values is not a switch. The default is the leaf reached by the most
// selector values (ties: the lowest bix); the other values are the cases, grouped into clusters
// (runs of consecutive values with one target) in signed or unsigned order, whichever spans
// fewer values.
//
// Strategy: with options.blockCounts (`--profile`), the spec's PGO exit: a switch of at most
// kSwitchCascadeMaxClusters clusters (and kSwitchProfileMaxCompares compares) becomes a cascade
// testing its clusters hottest first if that executes fewer compares under the counts, anything
// else is kept. Else, with options.bitTests (`--switch-bit-tests`), a switch suitableForBitTests
// becomes bit tests behind a bounds check (1 << index against one mask per destination, the one
// with the most case values first; kept when the tree already tests bits). Else at most
// kSwitchCascadeMaxClusters clusters: kept; else a jump table when the span has at most min(budget,
// kSwitchMaxTableEntries) values and the cases fill at least kSwitchDensityPercent of it:
//   head: ..., IADD3 Rt, S, -min, RZ (omitted when min = 0),
//         ISETP.GT.U32.AND Pt, PT, Rt, span-1, PT, @Pt BRA default
//   new block: JMX Rt, table (gaps hold the default)
// else the spec's emit_bst over the clusters (a cluster [a, b] of more than one value is tested
// as IADD3 t, S, -a; ISETP.LE.U32 t, b-a), if its worst path tests fewer compares than the
// tree's longest path; else kept. The lowerings are proved on examples by switch.jump-table,
// switch.bst and switch.bit-test (and their refuted wrong-* variants), and each rewritten switch
// by oriopt --verify's dispatch check (verify/switch_extract.h). New blocks follow the head (in
// emission order; emit_bst places a left subtree after the right one) and take label ids past
// the function's highest, in creation order; jump tables are named $L__JT<n>; a block a new
// branch reaches gets the label $L__SW<label id in hex> if it has none (lowest bix first; _1, _2
// ... appended if that name is taken). Registers are numbered in the order the code is emitted,
// heads in RPO order. If anything was lowered, unreachable blocks are erased and
// mergeUnlabelledBlocks / dropEmptyUnlabelledBlocks tidy. Gates: -O2; phase 14 from sm_60 (the
// SM backend's slot is a no-op on Kepler and Maxwell); knobs SwitchOptBudget,
// SwitchOptExtendedPatternMatch. Both halves leave the same text and count the same switches in
// the same order.
//
// expandJmxComputation (phase 80, ungated): every JMX becomes the BRX it stands for. Returns how
// many. A rule with nothing to choose in it: written once, below, and run for both halves.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace ori {

// DoSwitchOpt, phases 14 and 30 (spec/003 "DoSwitchOpt"; docs/branch-and-switch.md):
// the knobs and the mode of one run.
struct SwitchOptOptions {
  // Phase 30 (sub_791F00(ctx, 1)): the second-pass mode, whose scanner ends a
  // chain at a block that starts with a convergence or barrier instruction.
  bool secondPass = true;
  // SwitchOptBudget: the most entries a jump table may have (-1: the hard cap
  // kSwitchMaxTableEntries); a switch that needs more becomes a BST.
  int64_t budget = -1;
  // SwitchOptExtendedPatternMatch: the head's compare may be followed by other
  // instructions before its branch (interleaved code), not only ISETP; @P BRA.
  bool extendedPatternMatch = true;
  // Beyond ptxas (`--switch-bit-tests`; off, so the model stays ptxas's): a
  // switch that LLVM's rule finds suitable (suitableForBitTests below) is
  // lowered to bit tests before any other strategy is tried.
  bool bitTests = false;
  // `--profile`: the function's block counts by label, or null. With a
  // profile the spec's PGO early exit holds (spec/003 "PGO Early-Exit
  // Guard": no jump table, BST or bit tests), and a switch of at most
  // kSwitchCascadeMaxClusters clusters becomes a cascade that tests the
  // clusters hottest first when that executes fewer compares under the counts
  // (docs/branch-and-switch.md, "Profile").
  const std::map<std::string, uint64_t> *blockCounts = nullptr;
  // false under --dont-merge-basicblocks (spec/000 "BB Merge Suppression"): after a lowering,
  // mergeUnlabelledBlocks does not run (unreachable blocks are still erased, empty unlabelled
  // ones still dropped).
  bool mergeBlocks = true;
};

// What one run did; both halves count the same switches in the same order.
struct SwitchOptCounts {
  uint32_t switches = 0;     // compare trees on one selector with at least one case
  uint32_t keptSmall = 0;    // at most kSwitchCascadeMaxClusters case clusters: left as they are
  uint32_t keptShallow = 0;  // sparse, and a BST would not test fewer compares: left
  uint32_t jumpTables = 0;   // lowered to a bounds check and a JMX
  uint32_t bsts = 0;         // lowered to the spec's emit_bst
  uint32_t bitTests = 0;     // lowered to a bounds check and bit tests (SwitchOptOptions::bitTests)
  uint32_t reordered = 0;    // with a profile: a cascade re-emitted hottest cluster first
  uint32_t keptBitTests = 0; // bit tests would be chosen, but the tree already tests bits: left
  uint32_t keptForProfile =
      0; // with a profile: more than kSwitchCascadeMaxClusters clusters, left (PGO exit)
  uint32_t erasedBlocks = 0; // blocks of the old trees (and any other unreachable block) erased
  uint32_t lowered() const { return jumpTables + bsts + bitTests + reordered; }
  friend bool operator==(const SwitchOptCounts &, const SwitchOptCounts &) = default;
};
// Strategy thresholds (docs/branch-and-switch.md, "Strategy"): a switch of at
// most 4 case clusters keeps its cascade (spec/003 "typically 4 or fewer
// cases"); a jump table when cases fill at least 40% of the table (LLVM's
// density for code size: the table lives in .text); tables of at most 65,536
// entries; trees of at most 4,096 compare and trampoline blocks.
inline constexpr uint32_t kSwitchCascadeMaxClusters = 4;
inline constexpr uint32_t kSwitchDensityPercent = 40;
inline constexpr uint64_t kSwitchMaxTableEntries = 65536;
inline constexpr uint64_t kSwitchMaxCaseValues = 65536;
inline constexpr uint32_t kSwitchMaxTreeBlocks = 4096;
// Bit tests (LLVM's isSuitableForBitTests, llvm/lib/CodeGen/TargetLoweringBase
// and SwitchLoweringUtils, for a 32-bit word): the cases span at most 32
// values, and with `destinations` distinct case targets there are enough
// compares to save, counting a cluster of one value as 1 compare and a run as 2:
// 1 destination and 3 compares, 2 and 5, or 3 and 6.
inline constexpr uint32_t kSwitchBitTestWidth = 32;
// With a profile, trees of at most this many compare blocks are weighed for a
// reordered cascade (each costs a walk of the tree per elementary interval).
inline constexpr uint32_t kSwitchProfileMaxCompares = 64;
inline constexpr bool suitableForBitTests(uint64_t span, uint32_t destinations, uint32_t compares) {
  return span <= kSwitchBitTestWidth &&
         ((destinations == 1 && compares >= 3) || (destinations == 2 && compares >= 5) ||
          (destinations == 3 && compares >= 6));
}

// A compare of the selector S, or (bias != 0) of t = S - bias made by an IADD3 (a range check).
struct SwitchCompare {
  Reg selector, pred;
  Mod cmp; // LT, LE, GT, GE, EQ or NE
  bool isSigned;
  uint32_t constant;
  uint32_t bias = 0;
  // A bit test (nvcc's: LOP3 x, 1 << S, M; ISETP.NE x, 0): holds when S - bias < 32 and bit
  // S - bias of mask is set (cmp NE; EQ: the opposite).
  bool isBitTest = false;
  uint32_t mask = 0;
};
// Whether the compare holds for selector value v (SHL gives 0 for a shift of 32 or more).
bool compareHolds(const SwitchCompare &c, uint32_t v);

// ISETP.cmp.{U32,S32}.AND P, PT, S, c, PT with c an immediate or RZ on either side (c cmp S is
// read as the mirrored comparison of S).
std::optional<SwitchCompare> selectorCompare(const Instr &in);

// IADD3 t, S, k, RZ, unguarded and 32-bit: t = S + k.
struct SwitchOffset {
  Reg t, s;
  uint32_t k;
};
std::optional<SwitchOffset> offsetOf(const Instr &in);

// An unsigned bound on register r just before ins[at], from the instruction that last wrote it
// in the same block (following MOVs, at most 8): LOP3.LUT whose result has no bit outside an
// immediate M (M; for x AND M, the smaller of M and x's bound), SHR.U32 x, k (x's bound >> k),
// MOV of an immediate or RZ, a load of .U8 or .U16 (0xff, 0xffff); else none (0xffffffff).
// Through at most 8 ANDs and shifts. Z3 proves the two steps (switch.bound-and,
// switch.bound-shr).
uint32_t boundOf(const std::vector<Instr> &ins, Reg r, size_t at);

// SGXT t, S, k (k an immediate) that leaves S as it is for every S <= bound: S. SGXT of k >= 32
// bits is S itself; .U32 keeps the low k bits (S < 2^k), the signed form extends bit k-1
// (S < 2^(k-1)); k = 0 gives 0.
std::optional<Reg> sgxtIdentity(const Instr &in, uint32_t bound);

// nvcc's bit test on selector S, a whole block `ins` ending with @P BRA: [MOV one, 0x1; SHL
// bit, one, S;] LOP3.LUT x, bit, M, RZ, lut; ISETP.{NE,EQ} P, PT, x, 0|RZ, PT; @P BRA. The LUT
// must give 0 where bit's bit is 0; where it is 1 it gives the mask. The caller still checks
// that one (when made), x and P are read once, and (on the whole tree) that `bit` really is
// 1 << S wherever it is read.
struct BitTestShape {
  SwitchCompare cmp;      // isBitTest, with the mask; pred is P
  std::optional<Reg> one; // the MOV's register, when the block makes `bit`
  Reg bit, x;
  uint32_t isetpIndex; // where the ISETP stands
};
std::optional<BitTestShape> bitTestShape(const std::vector<Instr> &ins, Reg selector);

// The two halves' entries (the contract above).
namespace reference {
SwitchOptCounts doSwitchOpt(Function &f, const SwitchOptOptions &options);
}
namespace optimized {
SwitchOptCounts doSwitchOpt(Function &f, const SwitchOptOptions &options);
}

// Phase 80 (above), the same for both halves.
uint32_t expandJmxComputation(Function &f);

} // namespace ori
