// Translation validation (docs/verifier.md, "Translation validation"): a function before
// (source) and after (target) a phase, each encoded symbolically with the opcode models of
// verify/model_*.cpp, and a Z3 check that the target refines the source: for every input on
// which the source does not fault, the target does not fault and leaves the same observable
// state (memory other threads and the caller can see, at the end of the function). Verdicts:
// proved, refuted with a counterexample, or unknown with a reason; unknown is never proved.
//
// No Z3 types here: tools and tests include this header.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "interp/interp.h"
#include "ir/ir.h"

namespace ori::verify {

struct TvOptions {
  unsigned unroll = 4;          // back edges any path may take; a path needing more: unknown
  unsigned timeoutSeconds = 60; // per Z3 query
  unsigned budgetSeconds =
      300; // per function, all queries together (the inductive proof makes many)
  // Calls to functions of the module inlined up to this depth; deeper calls, indirect calls
  // and calls to declarations are uninterpreted effects. A function with calls is validated
  // first with every call uninterpreted (half the budget), then, unless that proved it, inlined.
  unsigned inlineDepth = 3;
  // Module-wide: past this instant nothing more is asked of Z3; what is left of a function
  // becomes unknown with a reason starting "deadline" (oriopt --verify-deadline).
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // Neither bound given by the user: timeoutSeconds and budgetSeconds are replaced, per
  // function, by sizedBounds() of the larger side (docs/verifier.md, "Bounds from the size").
  bool sizedBounds = false;
  // Where the validator is inside one function ("induction", "unrolled encoding", "query:
  // refinement", ...), for progress lines; called at each stage, may be empty.
  std::function<void(const std::string &)> progress;
};

// The per-query timeout and per-function budget for a function of `instrs` instructions when
// the user gives none (TvOptions::sizedBounds; docs/verifier.md, "Bounds from the size").
struct SizedBounds {
  unsigned timeoutSeconds, budgetSeconds;
};
SizedBounds sizedBounds(size_t instrs);

struct TvResult {
  enum class Verdict { Proved, Refuted, Unknown };
  Verdict verdict = Verdict::Unknown;
  std::string function;
  // Unknown: why ("unroll bound", "unmodelled instruction OPAQUE at line 7", "timeout").
  // Refuted: where the two differ ("target faults", "memory at 0x... differs: 0x5 vs 0x0").
  std::string reason;
  // Refuted: the inputs that tell the two apart (name, value), e.g. ("param n", "0x3"),
  // ("tid.x", "0x0"), ("initial R4", "0x7"), ("memory 0x10000000", "0x2a").
  std::vector<std::pair<std::string, std::string>> inputs;
  // Refuted, for a kernel whose counterexample the interpreter can run: the launch that
  // replays it (one thread, registers zero, parameters by value or as buffers with the
  // counterexample's bytes), and the same as oriopt --run arguments (without the file).
  // The two runs end differently or leave different bytes in a dumped buffer.
  std::optional<RunConfig> replay;
  std::string replayArgs;
  std::string noReplay; // Refuted without a replay: why none was found
  double seconds = 0;

  // "proved F", "refuted F: REASON; inputs ...", "unknown F: REASON".
  std::string line() const;
  // Refuted: the source line (the input file's, as Instr::loc) of the instruction where the
  // two sides first differ, when the validator can say (a target fault at an instruction);
  // 0 when it cannot (a memory or barrier difference is seen only at the end or a barrier).
  uint32_t differsAtLine = 0;
};

// Validates function `name` of `src` against the function of the same name in `tgt`.
TvResult validateFunction(const Module &src, const Module &tgt, const std::string &name,
                          const TvOptions &opts = {});

// Every function of `src` that `tgt` also has and that differs (or only `only`): one result
// each, in module order. A function present in one module only is refuted ("missing in the
// target") or, when only the target has it, reported as unknown ("new function").
std::vector<TvResult> validateModule(const Module &src, const Module &tgt,
                                     const TvOptions &opts = {},
                                     const std::optional<std::string> &only = std::nullopt);

} // namespace ori::verify
