// What the oriopt command does, as calls a program can make (docs/library.md, "A run as oriopt
// makes it"): the context and the phase list from oriopt's choices, the checks a run makes
// (--verify of phase 38's combinations, the module's validity), the fold marks, and the output
// (.ori, PTX, or the one JSON document of docs/oriopt-output.schema.json).
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ir/diag.h"
#include "ir/ir.h"
#include "pipeline/analyses.h"
#include "pipeline/pipeline.h"
#include "pipeline/verdicts.h"
#include "verify/tv.h"

namespace ori {

// --pipeline: the default phases (or those --phases names), or ptxas's whole pipeline.
enum class PipelineChoice { Default, Ptxas };
// The phases a run takes: with Ptxas every implemented phase in ptxas's order (`list` must be
// empty), else the phases `list` names ("3,6,OriBranchOpt"), else the default ones. Or an error.
std::variant<std::vector<const PipelineEntry *>, std::string> selectPhases(PipelineChoice pipeline,
                                                                           std::string_view list);

// The choices of a run that the phases read (PassContext).
struct ContextOptions {
  int optLevel = 3;                             // -O
  std::string arch = std::string(kDefaultArch); // --arch sm_XX
  std::vector<std::string> knobs;               // --knob NAME=VALUE or INDEX=VALUE
  Impl impl = Impl::Optimized;                  // --impl
  bool foldEvaluate = false;                    // --fold=evaluate
  bool switchBitTests = false;                  // --switch-bit-tests
};
// Sets ctx from `o`; an unknown architecture or a bad knob is an error message.
std::optional<std::string> configureContext(PassContext &ctx, const ContextOptions &o);

// The testing aids that move a module's blocks before the phases (error messages name the option).
// --reorder-blocks LIST ("0,2,1": bix0 first, then every other bix once): each function (or
// only `function`, when given) moved into that order, keeping behaviour (reorderBlocksPass).
std::optional<std::string> reorderModuleBlocks(Module &m, PassContext &ctx,
                                               const std::string &order,
                                               const std::string &function);
// --unsplit-blocks: every function's blocks unsplit (unsplitBlocks); an error, and nothing
// done, when `phases` has no phase 6 to split them again.
std::optional<std::string> unsplitModuleBlocks(Module &m,
                                               std::span<const PipelineEntry *const> phases);

// The output of a module.
enum class EmitFormat { Ori, Ptx };
// Its text, or the emitter's diagnostic (a construct PTX cannot say).
std::variant<std::string, Diagnostic> emitModule(const Module &m, EmitFormat format);

// The marks phases 29/37/46/65 leave (--dump-fold-marks), as they are made: install() sets
// ctx.foldMarksObserver; each event also goes to `echo` (its text) when one is given.
class FoldMarksLog {
public:
  void install(PassContext &ctx, std::function<void(const std::string &)> echo = {});
  // "fold-marks: function F phase P: N marked" then formatFoldMarks's lines, per event.
  std::string text() const;
  // [{"function", "phase", "marks": [{"bix", "index", "dst", "mask", "uses", "round"}]}]
  nlohmann::json json() const;

private:
  struct Event {
    std::string function, phase;
    std::vector<FoldMark> marks;
  };
  std::vector<Event> events_;
  std::function<void(const std::string &)> echo_;
};
std::string formatFoldMarksEvent(const std::string &function, std::string_view phase,
                                 const std::vector<FoldMark> &marks);

// --verify for phase 38: each combination proved when it is made (verify/nested_cond_check.h),
// each verdict line given to `line`; refuted() once any is refuted.
class NestedCondProver {
public:
  // `record`, if given, gets each verdict too (pipeline/verdicts.h).
  void install(PassContext &ctx, const Module &m, const verify::TvOptions &opts,
               std::function<void(const std::string &)> line,
               std::function<void(VerdictRecord)> record = {});
  bool refuted() const { return refuted_; }

private:
  bool refuted_ = false;
};

// The JSON document of a run (docs/oriopt-output.schema.json).
struct RunDescription {
  std::string input; // the input file as given (<stdin> for -)
  int optLevel = 3;
  std::string arch;
  Impl impl = Impl::Optimized;
  std::string pipeline; // "default", "phases" or "ptxas": pipelineName
};
// "ptxas" for the Ptxas choice, else "phases" when `phases` names some, else "default".
std::string_view pipelineName(PipelineChoice pipeline, std::string_view phases);
nlohmann::json runDocument(const RunDescription &run, std::span<const PhaseStats> stats,
                           nlohmann::json functions, const FoldMarksLog *foldMarks);

std::string_view implName(Impl impl); // "optimized", "reference", "both"

} // namespace ori
