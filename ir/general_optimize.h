// The GeneralOptimize bundles (spec/002; docs/general-optimize.md): what both
// halves share. The result types of phases 13, 29 (46, 65) and 58, their
// options, and the instruction-level rules the phases apply: which
// instruction is a copy, which use a copy may replace, which predicate value
// an instruction makes constant. The algorithms (walk order, bookkeeping)
// are each half's own; the rules are here once so that a rule means the same
// in both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace ori {

// Whether `in` writes r (one of its defs).
bool writesRegister(const Instr& in, Reg r);
// The index of the last instruction before `end` in `instrs` that writes r.
std::optional<size_t> lastWriteBefore(const std::vector<Instr>& instrs, size_t end, Reg r);

// ---------------------------------------------------------------- phase 29

// The spec's marks on a destination operand (spec/002 "Flag Bit Semantics").
inline constexpr uint16_t kFoldPropagated = 0x100;        // a copy whose uses were replaced by its source
inline constexpr uint16_t kFoldDeferred = 0x200;          // a SEL rewritten to the copy it is (type changed)
inline constexpr uint16_t kFoldUnderPredicate = 0x400;    // a predicate copy propagated, or a guard resolved

// One marked destination: the instruction's place in the function as the phase
// found it (bix, index in the block), the destination, the marks, and how many
// uses the copy replaced.
struct FoldMark {
  uint32_t bix = 0, index = 0, dst = 0;
  uint16_t mask = 0;
  uint32_t uses = 0;
  uint32_t round = 1; // the round (below) that made it; places are as that round found them
  friend bool operator==(const FoldMark&, const FoldMark&) = default;
};

struct GeneralOptimizeCounts {
  uint32_t usesReplaced = 0;    // register uses replaced by a copy's source
  uint32_t selectsToCopies = 0; // SELs with a known or irrelevant predicate made MOVs (0x200)
  uint32_t guardsResolved = 0;  // @P MOV with P known: guard dropped or the MOV deleted
  uint32_t removed = 0;         // instructions removed by the liveness-gated local DCE
  uint32_t rounds = 0;          // rounds run (see kGeneralOptimizeRounds)
  uint32_t evaluated = 0;       // --fold=evaluate: instructions folded or simplified (ir/general_optimize_evaluate.h)
  friend bool operator==(const GeneralOptimizeCounts&, const GeneralOptimizeCounts&) = default;
};

struct GeneralOptimizeResult {
  GeneralOptimizeCounts counts;
  std::vector<FoldMark> marks; // by bix, index, dst
  friend bool operator==(const GeneralOptimizeResult&, const GeneralOptimizeResult&) = default;
};

// Phase 29 runs in rounds: the walks of every block to their fixed point, then the
// DCE. A round changes what the next one sees (a copy the DCE removes may have been the
// write that ended another copy; a resolved guard makes a register written on every
// path, so alwaysZeroExtended may then hold), so rounds go on, at most this many in all
// (the spec's convergence loop), until one changes nothing.
inline constexpr uint32_t kGeneralOptimizeRounds = 4;
// Adds one round's counts and marks (numbered `round`) to the total.
void addRound(GeneralOptimizeResult& total, const GeneralOptimizeResult& one, uint32_t round);

struct GeneralOptimizeOptions {
  // sub_8F2E50's SM gate: at or below 20479 (0x4FFF) a SEL of any width is
  // eligible; above it only one without width constraint bits (no .64).
  uint32_t smEncoded = 0x8000;
  // sub_8F29C0 (the v21 flag): the architecture lets predicate copies be
  // marked 0x400 and propagated.
  bool predicateMarking = true;
  // limit-fold-fp: no immediate or constant-bank source is propagated into
  // a floating-point instruction.
  bool limitFoldFp = false;
  // --fold=evaluate (beyond ptxas; off by default): constant folding and algebraic
  // identities (ir/general_optimize_evaluate.h) in the walk.
  bool evaluate = false;
};

// sub_8F29C0 read against the spec's architecture classes: class 4 (sm_50,
// generation 4) and the NVLink class 11 (sm_70 and later, generation >= 7).
bool archAllowsPredicateMarking(uint32_t smEncoded);

// How many blocks of single predecessors the predicate simplifier's backward
// scan looks through (sub_908A60 direction 0) before it gives up.
inline constexpr uint32_t kPredicateScanDepth = 8;

// A copy phase 29 may propagate: `MOV d, s` unguarded, d a general register
// (not RZ) other than s. The value propagated is `source`. Full (64-bit equal
// containers) when the MOV is .64, or when it is 32-bit and s is a register
// known zero-extended where the MOV reads it (`sourceZeroExtended`), or an
// immediate in 0 .. 2^31-1. A constant bank propagates only from a .64 MOV.
// Returns nullopt for any other instruction.
std::optional<Operand> copySource(const Instr& in, bool sourceZeroExtended);

// Whether the instruction leaves its register result zero-extended from 32
// bits (a 32-bit integer, float or load result: the interpreter's writeInt
// with 32 bits). A conservative list; anything else is unknown. A guarded
// instruction may leave the old value: false, unless `guardedToo` (for
// registers every definition of which writes 32 bits).
bool writesZeroExtended32(const Instr& in, bool guardedToo = false);

// The general registers always zero-extended in f: every instruction that writes
// one is writesZeroExtended32 (guarded or not) and none is in `uninitialized`
// (LivenessFacts::uninitialized: read before any write on some path). A 32-bit
// copy of such a register anywhere in f is a full copy (PTX's .b32 registers,
// as nvcc writes them, are all of this kind). Sorted.
std::vector<Reg> alwaysZeroExtended(const Function& f, const std::vector<Reg>& uninitialized);

// A predicate copy: unguarded PLOP3 Pd, PT, a, b, c, LUT, imm whose first
// result depends on exactly one of a, b, c and is not constant. Returns the
// predicate operand the result equals (neg set when it is the complement).
std::optional<Operand> predicateCopySource(const Instr& in);

// The constant first result of an unguarded PLOP3 whose result is the same
// for every value of its non-constant inputs (PT/!PT inputs fixed).
std::optional<bool> plop3ConstantResult(const Instr& in);

// Whether use k of `in` (k = -1: the guard; else source k) reading `d` may be
// replaced by `value`: the operand is exactly a register operand of d (not
// an address or bank index), the instruction is not OPAQUE or CALL, and the
// slot accepts the value's kind; an immediate or bank replaces a use without
// `-`/`|..|` only, and (limitFoldFp) not one of a floating-point instruction.
bool mayReplaceUse(const Instr& in, int k, Reg d, const Operand& value, const GeneralOptimizeOptions& opt);

// The operand after replacing use k by `value` (predicates: the negations
// combine; registers: the use keeps its own `-`/`|..|`).
Operand replacedUse(const Operand& use, const Operand& value);

// A SEL phase 29 may rewrite (sub_8F2E50 opcode 124): unguarded, its
// destination a general register, and .64 only at or below SM 20479.
bool selectEligible(const Instr& in, const GeneralOptimizeOptions& opt);

// The MOV a SEL becomes when its predicate is `known` (true: the first
// source) or its two sources are equal (known unset). nullopt otherwise.
std::optional<Instr> selectAsCopy(const Instr& in, std::optional<bool> known);

// --------------------------------------------------------------- phase 13

struct EarlyOptimizeCounts {
  uint32_t branchesDeleted = 0;     // a branch or exit that can never be taken, deleted
  uint32_t branchesUnconditional = 0; // one that is always taken, its guard dropped
  uint32_t removed = 0;             // chain instructions left dead and removed
  uint32_t iterations = 0;          // successful fixed-point iterations (knob 464 spends one each)
  friend bool operator==(const EarlyOptimizeCounts&, const EarlyOptimizeCounts&) = default;
};

// The depth of sub_1245740's sub-DAG compare (its fourth argument).
inline constexpr uint32_t kEquivalenceDepth = 2;

// An instruction whose result depends on its register and immediate inputs only
// (no memory, side effect, control flow, barrier, convergence, call, OPAQUE;
// no S2R of a clock or timer), unguarded: two of them with equal inputs compute
// equal results.
bool isPureComputation(const Instr& in);

// The first parts of sub_753600's structural equivalence: same opcode and
// modifiers, both unguarded and pure, the same number of operands, equal
// destinations' shape, and each source pair of the same kind with equal
// flags and, unless both are registers, equal value. Registers are left to
// the caller (equal and unchanged, or defined by equivalent instructions).
bool sameShape(const Instr& a, const Instr& b);

// MergeEquivalentConditionalFlow's match (sub_753600), the rule both halves
// apply: block C (not bix 0) whose only predecessor is A ends with a guarded
// BRA, EXIT or RET of the same opcode, modifiers (and target) as A's last
// instruction, and C's guard Q holds the value A's guard P held: the last
// definitions of P in A and of Q in C are equivalent, source by source (a
// register unchanged from one to the other, or defined before each by
// equivalent instructions, kEquivalenceDepth levels down; sameShape for the
// rest). Since C runs only when A's branch went C's way, C's condition is
// then known: `taken` says it is always true (else never). `chain` lists the
// instructions of C the match used (dead once C's branch is rewritten, unless
// read elsewhere).
struct ConditionMatch {
  bool taken = false;
  std::vector<size_t> chain;
};
std::optional<ConditionMatch> matchEquivalentCondition(const Function& f, uint32_t a, uint32_t c);

// --------------------------------------------------------------- phase 58

inline constexpr uint32_t kLateWindowSlots = 6; // sub_8F6530's circular buffer

struct LateOptimizeCounts {
  uint32_t movesMerged = 0; // MOVs of a value a window entry already holds, their one use renamed
  uint32_t inserted = 0;    // window insertions
  uint32_t evicted = 0;     // entries the circular buffer overwrote
  friend bool operator==(const LateOptimizeCounts&, const LateOptimizeCounts&) = default;
};

// A window candidate: unguarded MOV (32-bit or .64) of a register or an
// immediate into a register of file R (the spec's class check).
bool lateWindowCandidate(const Instr& in);

// "fold-marks: bix1 #3 dst0 0x300 propagated|deferred uses=2" lines.
std::string formatFoldMarks(const std::vector<FoldMark>& marks);

} // namespace ori
