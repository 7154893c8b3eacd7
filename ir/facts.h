// Analysis results shared by the two halves (DESIGN.md, "The two halves and
// their contract"): plain values in canonical form, compared with ==, and a
// printer that names the first difference.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/ir.h"

namespace ori {

inline constexpr int32_t kNoBlock = -1;

// One list of block indices per block, stored flat (compressed sparse rows):
// row b is targets[offsets[b], offsets[b + 1]). Two allocations for the whole
// graph instead of one per block, which at 100k blocks cost as much as the
// analyses themselves (docs/performance.md, "CFG analyses (issue 4)").
class AdjacencyLists {
public:
  AdjacencyLists() = default;
  AdjacencyLists(std::initializer_list<std::initializer_list<uint32_t>> rows);
  // Implicit, so that tests compare with a std::vector<std::vector<uint32_t>>.
  AdjacencyLists(const std::vector<std::vector<uint32_t>>& rows); // NOLINT(google-explicit-constructor)
  // Takes a finished CSR: offsets.size() == rows + 1, offsets[0] == 0,
  // ascending, offsets.back() == targets.size().
  static AdjacencyLists fromOffsets(std::vector<uint32_t> offsets, std::vector<uint32_t> targets);

  // Building row by row: appendRow() starts the next (empty) row, push()
  // appends to the last one.
  void reserve(size_t rows, size_t edges);
  void appendRow();
  void push(uint32_t target);

  size_t size() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }
  bool empty() const { return size() == 0; }
  size_t edgeCount() const { return targets_.size(); }
  std::span<const uint32_t> operator[](size_t b) const {
    return {targets_.data() + offsets_[b], targets_.data() + offsets_[b + 1]};
  }
  // Entries may be rewritten in place (a row's length stays).
  std::span<uint32_t> operator[](size_t b) {
    return {targets_.data() + offsets_[b], targets_.data() + offsets_[b + 1]};
  }

  // Equal when they have the same rows (the representation is canonical).
  friend bool operator==(const AdjacencyLists& a, const AdjacencyLists& b) {
    return a.size() == b.size() &&
           (a.empty() || (a.offsets_ == b.offsets_ && a.targets_ == b.targets_));
  }

private:
  std::vector<uint32_t> offsets_; // empty, or rows + 1 entries starting at 0
  std::vector<uint32_t> targets_;
};

// The control-flow graph of one function (spec/000).
struct CfgFacts {
  // Successors of each block in successor-list order (conditional BRA: taken
  // target, then fall-through; BRX: table order), each block once, in first
  // occurrence order.
  AdjacencyLists succs;
  // Predecessors of each block, ascending.
  AdjacencyLists preds;
  // Reverse postorder of the blocks reachable from bix 0 (a depth-first
  // search visiting successors in successor-list order).
  std::vector<uint32_t> rpo;
  // RPO number of each block (its index in rpo), kNoBlock when unreachable.
  std::vector<int32_t> rpoNumber;
  // Backedges src -> dst with RPO(dst) <= RPO(src), ordered by src, then by
  // successor order.
  std::vector<std::pair<uint32_t, uint32_t>> backedges;
  friend bool operator==(const CfgFacts&, const CfgFacts&) = default;
};

// Immediate dominators: idom[b] for each reachable block but the entry,
// kNoBlock for the entry and for unreachable blocks.
struct DomFacts {
  std::vector<int32_t> idom;
  friend bool operator==(const DomFacts&, const DomFacts&) = default;
};

// Natural loops (spec/000 "Natural Loop Detection"), one per header, ordered
// by header bix.
struct Loop {
  uint32_t header = 0;
  std::vector<uint32_t> latches; // sources of backedges to the header, ascending
  std::vector<uint32_t> body;    // blocks that reach a latch without passing the header, plus the header; ascending
  uint32_t depth = 1;            // 1 for an outermost loop
  int32_t preheader = kNoBlock;  // the single outside predecessor of the header, if there is exactly one
  std::vector<uint32_t> exits;   // blocks outside the body with a predecessor inside, ascending
  friend bool operator==(const Loop&, const Loop&) = default;
};

struct LoopFacts {
  std::vector<Loop> loops;
  friend bool operator==(const LoopFacts&, const LoopFacts&) = default;
};

// The arrays ptxas's RPO numbering routines leave behind, raw: CFG::computeRPO
// (spec/000 sub_BDE150) and sub_BDE6C0 (spec/003 "CFGHashMap::erase", spec/000
// "computeRPO_recursive"). A counter starts at the highest bix and counts down
// once per numbered block (docs/spec-notes.md, "ptxas-iterative RPO vs DFS").
struct RpoSlots {
  std::vector<int32_t> rpoNumber; // per bix: its slot, kNoBlock if never numbered
  std::vector<int32_t> rpoArray;  // per slot 0 .. highest bix: the block written there, kNoBlock if none
  int32_t counter = -1;           // after the walk (sub_BDE150 returns it): -1 iff every slot was written
  friend bool operator==(const RpoSlots&, const RpoSlots&) = default;
};

// What sub_BDE6C0's pred_count[] array starts as: the predecessor counts, as
// spec/003 names it, or 1 for every block ("not yet visited", the reading
// under which it is spec/000's recursive DFS).
enum class EraseMarks { PredCount, Unvisited };

// Register liveness of one function (spec/004 "Dataflow Algorithm").
// A register is live at a point when some path from there reaches a use of it
// before any definition that surely overwrites it. Definitions: Instr::defs(),
// uses: Instr::uses() (the guard included). A guarded definition (@P, @!P)
// does not kill: when the guard is false the old value survives. RZ, URZ, PT,
// UPT are constants and never live. Every file is tracked, B included: a
// barrier register carries ordering, not data (BSSY defines it, BSYNC uses
// it), and appears in the sets and counts like the others, listed last.
// Every block gets its sets, unreachable ones included (by the same
// path definition); they cannot change a reachable block's sets.
using RegCounts = std::array<uint32_t, kNumRegFiles>; // indexed by RegFile

struct LivenessFacts {
  // Per block, sorted by file (R, UR, P, UP, B), then number.
  std::vector<std::vector<Reg>> liveIn, liveOut;
  // Per block and file: the most registers of the file live at one point of
  // the block, the points being its entry and just after each instruction,
  // where an instruction's defs count as live just after it even when dead
  // (a dead result still takes a register when the instruction runs).
  std::vector<RegCounts> pressure;
  RegCounts maxPressure{}; // per file, the maximum over all blocks
  // Potentially uninitialized registers: live-in at the entry block (some
  // path from the function's start reaches a use without a def); sorted.
  std::vector<Reg> uninitialized;
  friend bool operator==(const LivenessFacts&, const LivenessFacts&) = default;
};

// ptxas's warning (spec/004 "Uninitialized Register Detector", sub_A0B5E0):
// "Found N potentially uninitialized register(s) in function NAME", or ""
// when there are none.
std::string uninitializedWarning(const LivenessFacts& live, std::string_view function);

// AnalyzeControlFlow (phase 3, spec/001): the fields ptxas's sub_781F80
// writes into each BasicBlock record, and its Code Object flag bits. Every
// block of the function has an entry; docs/spec-notes.md "AnalyzeControlFlow
// (spec/001)" gives the readings chosen where the spec contradicts itself.
struct BlockAnnotation {
  // The +280 flag bits the analysis sets (spec/001 "Storage Layout").
  static constexpr uint32_t kLoopHeader = 0x10;      // bit 4: target of a backedge
  static constexpr uint32_t kHasPred = 0x20;         // bit 5: a predecessor with a smaller RPO number
  static constexpr uint32_t kAnalysisOk = 0x40000;   // bit 18: source of a backedge (latch tail)
  static constexpr uint32_t kInLoop = 0x800000;      // bit 23: in some [header, exit] RPO interval
  static constexpr uint32_t kEarlyExit = 0x1;        // bit 0: read (into earlyExitObserved), never written
  // On entry flags &= kResetMask: clears bits 4-6, 9-10, 16-18 and 23, keeps
  // every other bit of the previous state (sub_781F80:343).
  static constexpr uint32_t kResetMask = 0xFF78F98Fu;

  // +144: 1 + the block's index in CfgFacts::rpo; 0 when the walk never
  // numbers it (unreachable), as ptxas tests `rpo_144 != 0`.
  uint32_t rpoNumber = 0;
  uint32_t flags = 0; // +280
  // +152, dual use (spec/001 QUIRK): on a LOOP_HEADER the loop-exit RPO
  // marker, the largest RPO number of a block branching back to it (the end
  // of its IN_LOOP interval); on any other block the latch-pred RPO, the
  // smallest RPO number of a block it branches back to; else 0.
  uint32_t latchPredOrExit = 0;
  friend bool operator==(const BlockAnnotation&, const BlockAnnotation&) = default;
};

struct AnnotationFacts {
  std::vector<BlockAnnotation> blocks; // index = bix
  bool earlyExitObserved = false; // CO +1369 bit 7: a numbered block has +280 bit 0 set
  bool reentrancyGuard = false;   // CO +1370 bit 0x10: set while running, clear once done
  // CO +1377 bit 5, the RPO-violation latch: some edge enters an IN_LOOP
  // interval [header, exit] elsewhere than at its header (a side entry, as an
  // irreducible loop has), so consumers must not trust the intervals.
  bool rpoViolation = false;
  friend bool operator==(const AnnotationFacts&, const AnnotationFacts&) = default;
};

// The phase-3 wrapper sub_C60870 (spec/001 "Wrapper Gate"), pure policy
// shared by both halves: runs the analysis at -O1 and above unless knob 235
// (DisableAnalyzeControlFlow) vetoes it or a run is already under way (the
// previous state's re-entrancy guard is set). When it does not run, the
// annotations stay as they were.
enum class Phase3Outcome { Ran, SkippedBelowO1, VetoedByKnob235, SkippedReentrant };
Phase3Outcome analyzeControlFlowGate(int optLevel, bool knob235, const AnnotationFacts* previous);
std::string_view describe(Phase3Outcome outcome); // "ran", "vetoed by knob 235 (DisableAnalyzeControlFlow)", ...

// Dead-code elimination (spec/004 "Side-Effect Preservation"; phases 10,
// 16/33/61/84): whether an instruction stays even when every register it
// defines is dead. From the opcode table's flags: SIDE_EFFECT (stores,
// atomics, BAR, VOTE/SHFL, OPAQUE), CONTROL/BRANCH/TERMINATOR/CALL_,
// BARRIER, CONVERGENCE, VARIADIC; and any ordered access (.VOLATILE, .ACQUIRE, .MMIO ...:
// isOrderedAccess). A plain or .RELAXED load (MEMORY without SIDE_EFFECT) may go:
// docs/liveness.md "Loads".
bool keptWhenDead(const Instr& i);

// OriBranchOpt, phase 15 (spec/003 "OriBranchOpt"): what one run did. Both
// halves count the same rewrites in the same order, so the counts are equal.
struct BranchOptCounts {
  uint32_t constantConditions = 0; // @PT BRA -> BRA, @!PT BRA deleted
  uint32_t identicalTargets = 0;   // @P BRA to the fall-through block -> BRA
  uint32_t threaded = 0;           // BRA to a block holding only a BRA -> its target
  uint32_t folded = 0;             // BRA to the next block deleted
  uint32_t erasedBlocks = 0;       // unreachable blocks erased (at entry and at the end)
  uint32_t rewrites() const { return constantConditions + identicalTargets + threaded + folded; }
  friend bool operator==(const BranchOptCounts&, const BranchOptCounts&) = default;
};
// Phase 38 OptimizeNestedCondBranches (spec/003; docs/branch-and-switch.md "Phase 38").
struct NestedCondCounts {
  uint32_t combined = 0;      // pairs of conditional branches made one (one intermediate block erased each)
  uint32_t absorbedPlop3 = 0; // PLOP3s that defined a branch predicate, folded into the combined one
  uint32_t rounds = 0;        // rounds of the fixed-point loop, the last one (combining nothing) included
  friend bool operator==(const NestedCondCounts&, const NestedCondCounts&) = default;
};
// The combined predicate reads at most this many predicates (PLOP3's three sources): a
// combination that would need more is not made (spec/003 "No already-folded setp").
inline constexpr uint32_t kNestedCondMaxInputs = 3;
// Called after each combination with the function just before and just after it and the
// label id of the outer block (which keeps it): oriopt --verify proves each one there.
using NestedCondObserver = std::function<void(const Function& before, const Function& after, uint32_t outerLabelId)>;

// Threading follows at most this many blocks that hold only a BRA in one
// rewrite (spec/003 "A depth limit prevents infinite loops on pathological
// CFGs with cycles of empty blocks"; the spec gives no value). A chain that
// comes back to a block it passed is a cycle and is not threaded at all.
inline constexpr uint32_t kBranchThreadDepth = 64;

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
  const std::map<std::string, uint64_t>* blockCounts = nullptr;
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
  uint32_t keptForProfile = 0; // with a profile: more than kSwitchCascadeMaxClusters clusters, left (PGO exit)
  uint32_t erasedBlocks = 0; // blocks of the old trees (and any other unreachable block) erased
  uint32_t lowered() const { return jumpTables + bsts + bitTests + reordered; }
  friend bool operator==(const SwitchOptCounts&, const SwitchOptCounts&) = default;
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
  return span <= kSwitchBitTestWidth && ((destinations == 1 && compares >= 3) ||
                                         (destinations == 2 && compares >= 5) ||
                                         (destinations == 3 && compares >= 6));
}

// "" when equal, else a line naming the first difference, e.g.
// "succs of bix3: reference [4, 5], optimized [5, 4]".
std::string firstDifference(const CfgFacts& reference, const CfgFacts& optimized);
std::string firstDifference(const DomFacts& reference, const DomFacts& optimized);
std::string firstDifference(const LoopFacts& reference, const LoopFacts& optimized);
std::string firstDifference(const RpoSlots& reference, const RpoSlots& optimized);
std::string firstDifference(const LivenessFacts& reference, const LivenessFacts& optimized);
std::string firstDifference(const AnnotationFacts& reference, const AnnotationFacts& optimized);

} // namespace ori
