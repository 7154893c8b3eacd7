// Phase 29 GeneralOptimize (spec/002 "Algorithm B"; docs/general-optimize.md), also the suite
// phases 46 GeneralOptimizeMid2 and 65 GeneralOptimizeLate2 dispatch to and phase 37 runs after
// each promotion: the contract of reference/general_optimize.cpp and
// optimized/general_optimize.cpp, and the instruction-level rules both apply (which instruction
// is a copy, which use a copy may replace, which predicate value an instruction makes
// constant), each proved by the Z3 obligation named at it (oriverify --only NAME). The walk
// order and bookkeeping are each half's own.
//
// The pass: for each block in the RPO computed at entry, until a look at the block changes
// nothing, instruction by instruction: (1) each use (the guard, then the sources) reached in the
// block by a copy (copySource, predicateCopySource) takes the copy's value where mayReplaceUse
// allows, the copy marked 0x100 (0x400 for a predicate copy); (2) the predicate simplifier: an
// eligible SEL whose predicate is known, or whose sources are equal, becomes a MOV (0x200); @P
// MOV with P known loses its guard or becomes a NOP (0x400). A predicate is known from its last
// definition in the block, else in the chain of single predecessors (kPredicateScanDepth), when
// that is a PLOP3 with a constant result. With GeneralOptimizeOptions::evaluate, an instruction
// the walk reaches is also folded or simplified by evaluateRewrite
// (rules/general_optimize_evaluate.h). Then removeDeadCandidates removes the copies that
// replaced a use and the NOPs, where nothing they write is live. Rounds of that go on
// (kGeneralOptimizeRounds). Gates: -O2, knob 487 GeneralOptimizationEnable on, knob 231 off
// (pipeline/pipeline.cpp); knobs: limit-fold-fp; the SM (selectEligible, predicate marking).
// Guarantees: the function behaves the same (oriopt --verify proves it per function); both
// halves leave the same text, counts and marks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace ori {

// Whether `in` writes r (one of its defs).
bool writesRegister(const Instr &in, Reg r);
// The index of the last instruction before `end` in `instrs` that writes r.
std::optional<size_t> lastWriteBefore(const std::vector<Instr> &instrs, size_t end, Reg r);

// ---------------------------------------------------------------- phase 29

// The spec's marks on a destination operand (spec/002 "Flag Bit Semantics").
inline constexpr uint16_t kFoldPropagated = 0x100; // a copy whose uses were replaced by its source
inline constexpr uint16_t kFoldDeferred = 0x200; // a SEL rewritten to the copy it is (type changed)
inline constexpr uint16_t kFoldUnderPredicate =
    0x400; // a predicate copy propagated, or a guard resolved

// One marked destination: the instruction's place in the function as the phase
// found it (bix, index in the block), the destination, the marks, and how many
// uses the copy replaced.
struct FoldMark {
  uint32_t bix = 0, index = 0, dst = 0;
  uint16_t mask = 0;
  uint32_t uses = 0;
  uint32_t round = 1; // the round (below) that made it; places are as that round found them
  friend bool operator==(const FoldMark &, const FoldMark &) = default;
};

struct GeneralOptimizeCounts {
  uint32_t usesReplaced = 0;    // register uses replaced by a copy's source
  uint32_t selectsToCopies = 0; // SELs with a known or irrelevant predicate made MOVs (0x200)
  uint32_t guardsResolved = 0;  // @P MOV with P known: guard dropped or the MOV deleted
  uint32_t removed = 0;         // instructions removed by the liveness-gated local DCE
  uint32_t rounds = 0;          // rounds run (see kGeneralOptimizeRounds)
  uint32_t evaluated =
      0; // --fold=evaluate: instructions folded or simplified (rules/general_optimize_evaluate.h)
  friend bool operator==(const GeneralOptimizeCounts &, const GeneralOptimizeCounts &) = default;
};

struct GeneralOptimizeResult {
  GeneralOptimizeCounts counts;
  std::vector<FoldMark> marks; // by bix, index, dst
  friend bool operator==(const GeneralOptimizeResult &, const GeneralOptimizeResult &) = default;
};

// Phase 29 runs in rounds: the walks of every block to their fixed point, then the
// DCE. A round changes what the next one sees (a copy the DCE removes may have been the
// write that ended another copy; a resolved guard makes a register written on every
// path, so alwaysZeroExtended may then hold), so rounds go on, at most this many in all
// (the spec's convergence loop), until one changes nothing.
inline constexpr uint32_t kGeneralOptimizeRounds = 4;
// Adds one round's counts and marks (numbered `round`) to the total.
void addRound(GeneralOptimizeResult &total, const GeneralOptimizeResult &one, uint32_t round);

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
  // identities (rules/general_optimize_evaluate.h) in the walk.
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
// Proved by go.copy32-zext and go.copy32-immediate.
std::optional<Operand> copySource(const Instr &in, bool sourceZeroExtended);

// Whether the instruction leaves its register result zero-extended from 32
// bits (a 32-bit integer, float or load result: the interpreter's writeInt
// with 32 bits). A conservative list; anything else is unknown. A guarded
// instruction may leave the old value: false, unless `guardedToo` (for
// registers every definition of which writes 32 bits).
bool writesZeroExtended32(const Instr &in, bool guardedToo = false);

// The general registers always zero-extended in f: every instruction that writes
// one is writesZeroExtended32 (guarded or not) and none is in `uninitialized`
// (LivenessFacts::uninitialized: read before any write on some path). A 32-bit
// copy of such a register anywhere in f is a full copy (PTX's .b32 registers,
// as nvcc writes them, are all of this kind). Sorted.
std::vector<Reg> alwaysZeroExtended(const Function &f, const std::vector<Reg> &uninitialized);

// A predicate copy: unguarded PLOP3 Pd, PT, a, b, c, LUT, imm whose first
// result depends on exactly one of a, b, c and is not constant. Returns the
// predicate operand the result equals (neg set when it is the complement).
// Proved by go.predicate-copy.
std::optional<Operand> predicateCopySource(const Instr &in);

// The constant first result of an unguarded PLOP3 whose result is the same
// for every value of its non-constant inputs (PT/!PT inputs fixed).
// Proved by go.plop3-constant.
std::optional<bool> plop3ConstantResult(const Instr &in);

// The value predicate operand p (its `!` applied) reads after `def`, p's last definition: known
// when def writes p as its first result and is a PLOP3 with a constant result
// (plop3ConstantResult); nullopt otherwise.
std::optional<bool> predicateValueAfter(const Instr &def, const Operand &p);

// Whether use k of `in` (k = -1: the guard; else source k) reading `d` may be
// replaced by `value`: the operand is exactly a register operand of d (not
// an address or bank index), the instruction is not OPAQUE or CALL, and the
// slot accepts the value's kind; an immediate or bank replaces a use without
// `-`/`|..|` only, and (limitFoldFp) not one of a floating-point instruction.
bool mayReplaceUse(const Instr &in, int k, Reg d, const Operand &value,
                   const GeneralOptimizeOptions &opt);

// The operand after replacing use k by `value` (predicates: the negations
// combine; registers: the use keeps its own `-`/`|..|`).
Operand replacedUse(const Operand &use, const Operand &value);

// A SEL phase 29 may rewrite (sub_8F2E50 opcode 124): unguarded, its
// destination a general register, and .64 only at or below SM 20479.
bool selectEligible(const Instr &in, const GeneralOptimizeOptions &opt);

// The MOV a SEL becomes when its predicate is `known` (true: the first
// source) or its two sources are equal (known unset). nullopt otherwise.
// Proved by go.sel-known and go.sel-equal; the resolved guard of @P MOV by go.guarded-move.
std::optional<Instr> selectAsCopy(const Instr &in, std::optional<bool> known);

// "fold-marks: bix1 #3 dst0 0x300 propagated|deferred uses=2" lines.
std::string formatFoldMarks(const std::vector<FoldMark> &marks);

// The two halves' entries (the pass above).
namespace reference {
GeneralOptimizeResult generalOptimize(Function &f, const GeneralOptimizeOptions &opt);
}
namespace optimized {
GeneralOptimizeResult generalOptimize(Function &f, const GeneralOptimizeOptions &opt);
}

} // namespace ori
