// The optimized half's CFG analyses (spec/000; DESIGN.md, "The two halves").
// Same signatures in reference/reference.h and optimized/optimized.h; the
// results (ir/facts.h) must be equal.
#pragma once

#include "ir/convert_memory_to_register.h"
#include "ir/facts.h"
#include "ir/general_optimize.h"
#include "ir/ir.h"

namespace ori::optimized {

// Successors by terminator (spec/000 "Successor Edge Population"): EXIT/RET
// none; unconditional BRA its target; conditional BRA taken target then
// fall-through; BRX its table in order (a guarded BRX: then the
// fall-through); CALL and anything else the fall-through; a guarded EXIT or
// RET the fall-through only; the last block no fall-through; each successor
// once, in first-occurrence order. Then predecessors, RPO (a depth-first
// search from bix 0 in successor order) and backedges (RPO(dst) <= RPO(src),
// reachable blocks only).
// Loops: one per header, for backedges whose header dominates their source
// (irreducible backedges form none); unreachable blocks are in no loop and
// are not outside predecessors when the preheader is chosen.
CfgFacts computeCfg(const Function& f);
// computeCfg(f).rpo alone, without the edge maps, predecessors and backedges.
std::vector<uint32_t> computeRpo(const Function& f);
// Appends block b's successors (the rules above) to `out`, each once: `seen`
// has one slot per block, and a slot holding b + 1 means already appended.
void appendSuccessors(const Function& f, uint32_t b, std::vector<uint32_t>& out, std::vector<uint32_t>& seen);
DomFacts computeDominators(const Function& f, const CfgFacts& cfg);
LoopFacts computeLoops(const Function& f, const CfgFacts& cfg, const DomFacts& dom);

// ptxas's iterative RPO, CFG::computeRPO (spec/000 sub_BDE150), as the spec's
// pseudocode writes it: its raw slots, and computeCfg's facts with rpo,
// rpoNumber (slot minus the lowest slot written) and backedges taken from that
// walk (`--rpo=ptxas-iterative`). It pushes all successors at once, so the last
// one is expanded first, and never pushes a block twice, which makes its order
// differ from every DFS order (docs/spec-notes.md, "ptxas-iterative RPO vs DFS").
RpoSlots computeRpoIterativeSlots(const CfgFacts& cfg);
CfgFacts computeCfgIterative(const Function& f);

// sub_BDE6C0 (spec/003 "Transformation 2") called for bix 0 .. highest with one
// counter, as sub_BDFB10 calls it: a block whose mark is not 0 gets mark 0,
// each successor whose mark is 1 is processed first (the "cascade"), then the
// block takes slot counter--. With EraseMarks::Unvisited that is a depth-first
// RPO forest; with PredCount (spec/003's reading) it numbers every block that
// has a predecessor, reachable or not.
RpoSlots computeEraseSlots(const CfgFacts& cfg, EraseMarks marks);

// Deletes the blocks bix 0 does not reach along CFG edges and label operands,
// drops the jump tables that named one, renumbers the rest. Returns the deleted
// bixes, ascending. Never needs to add a BRA (see the .cpp).
std::vector<uint32_t> eraseUnreachableBlocks(Function& f);

// Phase 6 SetControlFlowOpLastInBB (spec/000): splits each block after every
// control-flow instruction (CONTROL in the opcode table) that is not last; the
// new blocks get fresh labels L_split<k> and the label id of their first
// instruction. Returns the number of splits.
uint32_t setControlFlowOpLastInBB(Function& f);

// Moves the blocks into `order` (a permutation with order[0] == 0), adding and
// removing BRAs so that every block continues where it did. Returns false,
// changing nothing, for the identity or an invalid order.
bool reorderBlocks(Function& f, const std::vector<uint32_t>& order);
// Phase 112 PlaceBlocksInSourceOrder (spec/000): bix 0, then the other blocks
// stably by label id, through reorderBlocks. Returns whether anything moved.
bool placeBlocksInSourceOrder(Function& f);

// AnalyzeControlFlow, phase 3's body sub_781F80 (spec/001; ir/facts.h
// AnnotationFacts): resets every block's +280 flags with the 0xFF78F98F mask
// (bits outside it survive from `previous`, which may be null: all zero),
// numbers the reachable blocks in RPO from 1, and sets LOOP_HEADER,
// HAS_PRED, ANALYSIS_OK, IN_LOOP, the +152 latch-pred / loop-exit field and
// the RPO-violation latch. forceFullRebuild (ptxas's force=1 callers) also
// sets HAS_PRED on every numbered block (the |= 0x30 of the block-start case).
AnnotationFacts analyzeControlFlow(const Function& f, const CfgFacts& cfg, const AnnotationFacts* previous,
                                   bool forceFullRebuild);

// Register liveness (spec/004; ir/facts.h LivenessFacts): gen/kill per block,
// then the backward dataflow equations solved to their least fixed point.
LivenessFacts computeLiveness(const Function& f, const CfgFacts& cfg);

// Dead-code elimination (spec/004; docs/liveness.md). An instruction is dead
// when no register it defines is live just after it and keptWhenDead
// (ir/facts.h) does not hold; removals go on until no dead instruction is
// left, and unlabelled blocks left empty are dropped (dropEmptyUnlabelledBlocks).
// Phase 10 EarlyOriSimpleLiveDead: block-local, taking every register some
// instruction reads as live at each block's end. Phases 16/33/61/84
// OriPerformLiveDead: by global liveness. Both return how many instructions
// they removed.
uint32_t earlyOriSimpleLiveDead(Function& f);
uint32_t oriPerformLiveDead(Function& f);
// Drops every empty block without a label (only fall-through reaches it)
// unless it is the only block, renumbering labels and tables. Returns how many.
uint32_t dropEmptyUnlabelledBlocks(Function& f);
// Appends each block without a label to the block before it when that one
// does not end in control flow (only fall-through reaches it, and a block
// boundary there cannot be written in .ori or PTX), as a rewrite that deletes
// a block's last BRA leaves them. Renumbers labels and tables. Returns how many.
uint32_t mergeUnlabelledBlocks(Function& f);

// Phase 19 OriSplitLiveRanges (spec/004; docs/liveness.md): for a value live
// through a natural loop and neither read nor written in it, a copy into a
// fresh register at the end of the preheader and back at the loop's exits.
// Returns the number of splits.
uint32_t oriSplitLiveRanges(Function& f);

// Phase 15 OriBranchOpt (spec/003 "OriBranchOpt"; docs/branch-and-switch.md).
// Erases unreachable blocks, then walks the RPO computed at that point once,
// skipping RPO index 0 (the entry), and re-tries each block until no rule
// matches. The first rule that matches the BRA ending the block is applied:
//   1. constant condition: @PT BRA X becomes BRA X; @!PT BRA X is deleted;
//   2. identical targets: @P BRA X where X is the next block becomes BRA X;
//   3. threading: BRA X (guarded or not) where X holds only an unconditional
//      BRA becomes BRA Y, Y the end of that chain (at most kBranchThreadDepth
//      blocks; a chain that cycles is left alone);
//   4. folding: an unconditional BRA to the next block is deleted.
// Each rewrite spends one unit of `budget` (knob 464; negative = unbounded);
// once it is spent nothing more is rewritten. If anything was rewritten,
// blocks left unreachable are erased, then mergeUnlabelledBlocks and
// dropEmptyUnlabelledBlocks tidy what the deleted BRAs left.
BranchOptCounts oriBranchOpt(Function& f, int64_t budget);

// Phase 38 OptimizeNestedCondBranches: the same rules and result as
// reference/reference.h optimizeNestedCondBranches.
NestedCondCounts optimizeNestedCondBranches(Function& f, const NestedCondObserver& observer = {});

// Phases 14/30 DoSwitchOpt (spec/003 "DoSwitchOpt"; docs/branch-and-switch.md).
// A switch is a tree of compare blocks on one selector register S, found from
// a head in RPO order:
//   head: any code, then ISETP.cmp.{U32,S32}.AND P, PT, S, c, PT (c an
//         immediate or RZ, on either side) and @P BRA / @!P BRA as its last
//         instruction (with extendedPatternMatch, other instructions that do
//         not write S or P may stand between the two);
//   node: a block of exactly that ISETP and its @P BRA (not the head), or a
//         trampoline holding only an unconditional BRA;
// where every compare's predicate is read by its BRA only. A node's branch and
// fall-through lead to further nodes or to leaves (any other block; the head
// reached again is a leaf). A tree with a cycle of nodes, with more than
// kSwitchMaxTreeBlocks nodes, or whose selector values do not split into at
// most kSwitchMaxCaseValues case values is not a switch. The default is the
// leaf reached by the most selector values (ties: the lowest bix); the other
// values are the cases, grouped into clusters (runs of consecutive values
// with one target) in signed or unsigned order, whichever spans fewer values.
// Strategy: at most kSwitchCascadeMaxClusters clusters: kept; else a jump
// table when the span has at most min(budget, kSwitchMaxTableEntries) values
// and the cases fill at least kSwitchDensityPercent of it:
//   head: ..., IADD3 Rt, S, -min, RZ (omitted when min = 0),
//         ISETP.GT.U32.AND Pt, PT, Rt, span-1, PT, @Pt BRA default
//   new block: JMX Rt, table (gaps hold the default)
// else the spec's emit_bst over the clusters (a cluster [a, b] of more than
// one value is tested as IADD3 t, S, -a; ISETP.LE.U32 t, b-a), if its worst
// path tests fewer compares than the tree's longest path; else kept. New
// blocks follow the head (in emission order; emit_bst places a left subtree
// after the right one) and take label ids past the function's highest, in
// creation order; jump tables are named $L__JT<n>; a block a new branch
// reaches gets the label $L__SW<label id in hex> if it has none (lowest bix
// first; _1, _2 ... appended if that name is taken). Registers are numbered in
// the order the code is emitted, heads in RPO order. If anything was lowered, unreachable
// blocks are erased and mergeUnlabelledBlocks / dropEmptyUnlabelledBlocks tidy.
SwitchOptCounts doSwitchOpt(Function& f, const SwitchOptOptions& options);

// Phase 80 ExpandJmxComputation: every JMX becomes the BRX it stands for.
// Returns how many.
uint32_t expandJmxComputation(Function& f);

// Phase 13 GeneralOptimizeEarly, MergeEquivalentConditionalFlow (spec/002
// "Algorithm A"; docs/general-optimize.md). For each block C in the RPO computed
// at entry, while knob 464's `budget` lasts (negative: unbounded; it is asked
// before each rewrite): when matchEquivalentCondition (ir/general_optimize.h)
// holds for C and its only predecessor, C's branch is deleted (never taken)
// or made unconditional (always taken). The instructions of C the match used
// are then removed where nothing they write is live (removeDeadCandidates),
// and mergeUnlabelledBlocks / dropEmptyUnlabelledBlocks tidy.
EarlyOptimizeCounts generalOptimizeEarly(Function& f, int64_t budget);
// Phase 29 GeneralOptimize (spec/002 "Algorithm B"; docs/general-optimize.md),
// also the suite phases 46 and 65 dispatch to. For each block in the RPO
// computed at entry, until a look at the block changes nothing, instruction by
// instruction: (1) each use (the guard, then the sources) reached in the block
// by a copy (ir/general_optimize.h copySource, predicateCopySource) takes the
// copy's value where mayReplaceUse allows, the copy marked 0x100 (0x400 for a
// predicate copy); (2) the predicate simplifier: an eligible SEL whose predicate
// is known, or whose sources are equal, becomes a MOV (0x200); @P MOV with P
// known loses its guard or becomes a NOP (0x400). A predicate is known from its
// last definition in the block, else in the chain of single predecessors
// (kPredicateScanDepth), when that is a PLOP3 with a constant result. Then
// removeDeadCandidates removes the copies that replaced a use and the NOPs.
GeneralOptimizeResult generalOptimize(Function& f, const GeneralOptimizeOptions& opt);
// Phase 58 GeneralOptimizeLate (spec/002 sub_8F6530; docs/general-optimize.md):
// each block once in RPO with a circular window of kLateWindowSlots moves
// (lateWindowCandidate). A move of the value an entry holds (same operand and
// width, its register and the value's register unwritten since), whose
// destination is written once and read once, as a plain source later in the
// block with the entry's register unwritten until then, gives that read the
// entry's register and is removed. Other candidates are inserted at the
// buffer's pointer (evicting), or with `existingEntriesOnly` (knob 605) only
// into an empty slot.
LateOptimizeCounts generalOptimizeLate(Function& f, bool existingEntriesOnly);
// ConvertMemoryToRegisterOrUniform, phase 37's promotion of local-memory slots
// (spec/002 "Phase 37"; docs/general-optimize.md "Phase 37"). A register
// written once, unguarded, by MOV.64 of a function-scope .local variable, or by
// MOV.64 / IADD3.64 of such a pointer plus immediates (+SR_LWINBASE: a generic
// address; -SR_LWINBASE: back to a window offset), is a local pointer. LD/ST
// through a generic pointer and LDL/STL through a window pointer or at
// [variable+offset] are the variable's accesses, if the pointer's definition
// surely ran before (on every path). Any other mention of the variable or a
// pointer to it makes the variable escape; an LDL/STL at an unknown offset, an
// OPAQUE instruction, or SR_LWINBASE read outside a pointer's definition makes
// every local variable escape. A slot is an (offset, size) of whole accesses
// (slotAccessShape) of a variable that does not escape, in bounds, aligned and
// overlapped by no other access; it is promoted when each of its loads surely
// follows an unguarded store and promoteSlot allows it. Each promoted slot, in
// variable then offset order, gets a new register; its accesses become MOVs.
MemToRegCounts convertMemoryToRegister(Function& f, const MemToRegOptions& opt);
// Phase 37 GeneralOptimizeMid: rounds of convertMemoryToRegister then
// generalOptimize (opt.suite), while a round's midRoundCost is at least
// opt.convergenceThreshold(), at most kMidRounds rounds.
MidOptimizeResult generalOptimizeMid(Function& f, const MemToRegOptions& opt);
// The same, in rounds of one backward pass per block with the liveness of the
// registers the candidates write (optimized/liveness_subset.h) computed once
// per round, until a round removes nothing or no kept candidate writes a
// register that a removed instruction read (only those stay candidates for
// the next round). `candidates` holds one flag per instruction of the function,
// in function order (block 0's instructions, then block 1's, ...); missing
// flags are 0. `cfgNow`, when given, is the function's CFG as it is now;
// `regsNow`, when given, the function's registers as they are now
// (optimized/reg_index.h functionRegs), and they are kept so.
// `readsRemovedWrite`, when given, gets a flag per block of f as it was
// given: whether an instruction kept in the block reads a register that an
// instruction removed from the block wrote (generalOptimize's
// confirmationNeedless asks it).
struct FunctionRegs;
uint32_t removeDeadCandidates(Function& f, std::vector<uint8_t> candidates, const CfgFacts* cfgNow = nullptr,
                              FunctionRegs* regsNow = nullptr, std::vector<uint8_t>* readsRemovedWrite = nullptr);

} // namespace ori::optimized
