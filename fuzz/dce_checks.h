// Checks of the dead-code elimination phases (10 EarlyOriSimpleLiveDead,
// 16/33/61/84 OriPerformLiveDead) and of phase 19 OriSplitLiveRanges on one
// function, shared by the RapidCheck properties (fuzz/prop_dce.cpp), the
// orifuzz checks `dce-diff` and `dce-behaviour` (fuzz/orifuzz.cpp) and the
// corpus test (tests/unit/dce_corpus_test.cpp). Each returns "" when the
// check holds, else one line naming the first problem.
#pragma once

#include <string>
#include <vector>

#include "interp/interp.h"
#include "ir/ir.h"

namespace ori::checks {

// "" when a and b print the same, else the first differing line, naming the
// two as nameA and nameB.
std::string firstTextDifference(const Function &a, const Function &b, const char *nameA,
                                const char *nameB);

// "<what> leaves a malformed function: <first problem>" when verifyFunction finds one, else "".
std::string malformedAfter(const Function &g, const std::string &what);

// A pass's results from the two halves, as the diff checks want them: the same printed text,
// the same label id on every block and the same register types; else "<what>: ..." saying
// what differs first.
std::string halvesDiffer(const Function &reference, const Function &optimized,
                         const std::string &what);

// The phase's two halves, each on its own copy of f, print the same text and
// report the same count ("" as well when reference/ is not built). Phase is
// 10, 16 or 19 (33, 61, 84 are phase 16 again).
std::string dcePhaseHalvesAgree(const Function &f, int phase);

// Phases 10 and 16 (optimized) only delete instructions that keptWhenDead
// lets go (the output's instructions are a subsequence of the input's), and
// a second run deletes nothing more; after phase 16 the optimized liveness
// finds no dead instruction; phase 19's output is the input, block by block,
// with MOV.64 register copies added. (Phase 19 run twice may split the
// copies' ranges again, so it is not checked for idempotence.)
std::string dceShapeAndIdempotence(const Function &f);

// Halves agree for 10, 16 and 19, plus dceShapeAndIdempotence: `dce-diff`.
std::string dceDiff(const Function &f);

// How a run after a phase compares with the run before it: "" when they
// agree, else the difference. Ok: same exit, threads, buffers and .global
// variables. Fault: same thread, address and memory. Unsupported, Timeout
// and Error (a bad configuration) before the phase are not compared (*compared is set false): an
// unsupported instruction may be a dead one the phase removed, and a phase that removes or adds
// instructions moves where the step budget runs out.
std::string compareRuns(const RunResult &before, const RunResult &after, bool *compared = nullptr);

// Runs m (whose entry is f, replaced by each phase's output) on each input
// before and after phases 10, 16 (both halves' outputs are the same text, so
// the optimized one is run) and 19, and after 16 then 19.
// *compared (if given) counts the runs compared (compareRuns).
std::string dceKeepsBehaviour(const Module &m, const std::vector<RunConfig> &inputs,
                              size_t *compared = nullptr);

// Random launch inputs for f derived from its printed text (so a run of
// orifuzz is repeatable): pointer parameters (64-bit scalars) get a buffer
// of `bufferBytes` random bytes, others a random value, below 64 in every
// other input (values that bound loops).
std::vector<RunConfig> inputsFor(const Function &f, int count, uint32_t bufferBytes);
// The same launches with one thread each: for comparisons of one thread's semantics (what
// the translation validator proves), which a race between lanes must not disturb.
std::vector<RunConfig> oneThreadInputs(std::vector<RunConfig> inputs);

// `dce-behaviour`: dceKeepsBehaviour on a module holding f alone, on three
// inputsFor(f).
std::string dceBehaviour(const Function &f);

} // namespace ori::checks
