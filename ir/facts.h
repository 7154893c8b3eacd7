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
  AdjacencyLists(
      const std::vector<std::vector<uint32_t>> &rows); // NOLINT(google-explicit-constructor)
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
  friend bool operator==(const AdjacencyLists &a, const AdjacencyLists &b) {
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
  friend bool operator==(const CfgFacts &, const CfgFacts &) = default;
};

// Immediate dominators: idom[b] for each reachable block but the entry,
// kNoBlock for the entry and for unreachable blocks.
struct DomFacts {
  std::vector<int32_t> idom;
  friend bool operator==(const DomFacts &, const DomFacts &) = default;
};

// Natural loops (spec/000 "Natural Loop Detection"), one per header, ordered
// by header bix.
struct Loop {
  uint32_t header = 0;
  std::vector<uint32_t> latches; // sources of backedges to the header, ascending
  std::vector<uint32_t>
      body; // blocks that reach a latch without passing the header, plus the header; ascending
  uint32_t depth = 1; // 1 for an outermost loop
  int32_t preheader =
      kNoBlock; // the single outside predecessor of the header, if there is exactly one
  std::vector<uint32_t> exits; // blocks outside the body with a predecessor inside, ascending
  friend bool operator==(const Loop &, const Loop &) = default;
};

struct LoopFacts {
  std::vector<Loop> loops;
  friend bool operator==(const LoopFacts &, const LoopFacts &) = default;
};

// The arrays ptxas's RPO numbering routines leave behind, raw: CFG::computeRPO
// (spec/000 sub_BDE150) and sub_BDE6C0 (spec/003 "CFGHashMap::erase", spec/000
// "computeRPO_recursive"). A counter starts at the highest bix and counts down
// once per numbered block (docs/spec-notes.md, "ptxas-iterative RPO vs DFS").
struct RpoSlots {
  std::vector<int32_t> rpoNumber; // per bix: its slot, kNoBlock if never numbered
  std::vector<int32_t>
      rpoArray;         // per slot 0 .. highest bix: the block written there, kNoBlock if none
  int32_t counter = -1; // after the walk (sub_BDE150 returns it): -1 iff every slot was written
  friend bool operator==(const RpoSlots &, const RpoSlots &) = default;
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
  friend bool operator==(const LivenessFacts &, const LivenessFacts &) = default;
};

// ptxas's warning (spec/004 "Uninitialized Register Detector", sub_A0B5E0):
// "Found N potentially uninitialized register(s) in function NAME", or ""
// when there are none.
std::string uninitializedWarning(const LivenessFacts &live, std::string_view function);

// AnalyzeControlFlow (phase 3, spec/001): the fields ptxas's sub_781F80
// writes into each BasicBlock record, and its Code Object flag bits. Every
// block of the function has an entry; docs/spec-notes.md "AnalyzeControlFlow
// (spec/001)" gives the readings chosen where the spec contradicts itself.
struct BlockAnnotation {
  // The +280 flag bits the analysis sets (spec/001 "Storage Layout").
  static constexpr uint32_t kLoopHeader = 0x10;    // bit 4: target of a backedge
  static constexpr uint32_t kHasPred = 0x20;       // bit 5: a predecessor with a smaller RPO number
  static constexpr uint32_t kAnalysisOk = 0x40000; // bit 18: source of a backedge (latch tail)
  static constexpr uint32_t kInLoop = 0x800000;    // bit 23: in some [header, exit] RPO interval
  static constexpr uint32_t kEarlyExit = 0x1; // bit 0: read (into earlyExitObserved), never written
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
  friend bool operator==(const BlockAnnotation &, const BlockAnnotation &) = default;
};

struct AnnotationFacts {
  std::vector<BlockAnnotation> blocks; // index = bix
  bool earlyExitObserved = false;      // CO +1369 bit 7: a numbered block has +280 bit 0 set
  bool reentrancyGuard = false;        // CO +1370 bit 0x10: set while running, clear once done
  // CO +1377 bit 5, the RPO-violation latch: some edge enters an IN_LOOP
  // interval [header, exit] elsewhere than at its header (a side entry, as an
  // irreducible loop has), so consumers must not trust the intervals.
  bool rpoViolation = false;
  friend bool operator==(const AnnotationFacts &, const AnnotationFacts &) = default;
};

// "" when equal, else a line naming the first difference, e.g.
// "succs of bix3: reference [4, 5], optimized [5, 4]".
std::string firstDifference(const CfgFacts &reference, const CfgFacts &optimized);
std::string firstDifference(const DomFacts &reference, const DomFacts &optimized);
std::string firstDifference(const LoopFacts &reference, const LoopFacts &optimized);
std::string firstDifference(const RpoSlots &reference, const RpoSlots &optimized);
std::string firstDifference(const LivenessFacts &reference, const LivenessFacts &optimized);
std::string firstDifference(const AnnotationFacts &reference, const AnnotationFacts &optimized);

} // namespace ori
