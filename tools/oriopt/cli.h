// oriopt's command line, shared by its source files: the options, and the helpers
// beside main.cpp (observe.cpp: --print-before/after/changed, --stats, --json's stats,
// progress; dumps.cpp: the analysis dumps as text or JSON).
#pragma once

#include <nlohmann/json.hpp>

namespace CLI {
class App;
}

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "interp/interp.h"
#include "ir/arch.h"
#include "pipeline/pipeline.h"
#include "verify/tv.h"

namespace oriopt_cli {

using ori::kDefaultArch;

struct Options {
  std::string input;
  std::string output;
  std::string emit = "ori";
  std::string phases;
  std::vector<std::string> knobs;
  int optLevel = 3;
  std::string arch = std::string(kDefaultArch);
  bool listPhases = false, listKnobs = false, summary = false;
  // Analysis dumps (issue 4): printed per function, after `// function NAME`.
  bool printEdges = false, dumpRpo = false, dumpDom = false, dumpLoops = false, dumpDot = false;
  bool dumpLiveness = false, dumpPressure = false; // issue 5
  bool dumpFoldMarks = false; // issue 15: phase 29's marks (0x100, 0x200, 0x400)
  bool dumpAnnotations = false; // AnalyzeControlFlow, phase 3
  // Issue 16: the pipeline (--pipeline=ptxas), opt's habits and progress.
  std::string pipeline = "default";
  std::vector<std::string> printAfter, printBefore; // phase numbers or names, comma lists, or "all"
  bool printChanged = false, stats = false, json = false, progress = false;
  std::string report; // --report=DIR: the HTML report (pipeline/report.h)
  double progressInterval = 1.0; // seconds between progress lines (hidden; tests set 0)
  // RPO order of the dumps, ptxas's raw RPO slot arrays, the unreachable-block
  // erase, and the testing aid that undoes the parser's split at control flow.
  std::string rpo = "dfs";
  bool dumpRpoSlots = false, eraseUnreachable = false, unsplitBlocks = false, switchBitTests = false;
  std::string reorderBlocks; // "0,2,1": testing aid, a block order to move to
  std::string fold = "ptxas"; // --fold=ptxas|evaluate (PassContext::foldEvaluate)
  std::string profile;       // --profile FILE
  std::string impl = "optimized";
  bool verify = false; // translation validation after every phase
  ori::verify::TvOptions verifyOpts; // its bounds
  std::string function;
  // --run
  bool run = false;
  bool autoParams = false, runStats = false;
  // X[xY[xZ]]; empty: 1, or with --auto-params autoLaunch's 128 threads x 2 CTAs
  std::string threads, ctas;
  std::optional<uint64_t> maxSteps; // default 10,000,000; with --auto-params autoLaunch's 20,000,000
  std::string entry;
  std::vector<std::string> params, buffers, dumpBuffers, regs;
  std::optional<uint32_t> onlyThread;
  bool strict = false;                  // the reader's warnings are errors
  std::optional<uint64_t> sharedDynamic; // --run: RunConfig::sharedDynamic
  bool dumpLayout = false;              // --run: where the variables live (layout.cpp)
};

// options.cpp: every option of `o` on `app`.
void addOptions(CLI::App& app, Options& o);

// layout.cpp: --dump-layout's lines for the launch of cfg.
std::string formatLayout(const ori::Module& m, const ori::RunConfig& cfg);

// "oriopt: error: MSG" on standard error, exit status 1.
[[noreturn]] void usageError(const std::string& msg);

// observe.cpp. The run's observers: --print-before, --print-after and --print-changed (the
// function's .ori text on standard error, after a `// *** IR Dump ... ***` line) and the
// progress lines; `after` (the --verify hook) runs after the prints.
class PhaseObserver {
public:
  PhaseObserver(const Options& o, const ori::PassContext& ctx); // a bad phase list is a usage error
  void install(ori::RunOptions& run, ori::AfterPhase after);
  // Before the first phase: with --print-changed, the module as it starts.
  void atStart(const ori::Module& m) const;
  // A progress line callback for --verify's per-function loop of the step named `step`.
  std::function<void(size_t, size_t)> verifyProgress(const std::string& step);
  // For ReportOptions::progress: "report: function i/n, drawing j/m".
  std::function<void(size_t, size_t, size_t, size_t)> reportProgress();

private:
  bool wanted(const std::vector<int>& set, int phase) const;
  void print(const ori::Module& m, const std::string& when, const ori::PipelineEntry& e,
             const ori::Module* onlyChangedFrom) const;
  void progressLine(const std::string& text);
  const Options& o_;
  const ori::PassContext& ctx_;
  std::vector<int> after_, before_; // phase numbers; -1: all
  bool progress_ = false;
  double lastProgress_ = 0; // seconds since the epoch of steady_clock
};

// --stats: LLVM's -time-passes table, on standard error.
std::string formatStatsTable(std::span<const ori::PhaseStats> stats);
// --json's "phases" array (docs/oriopt-output.schema.json).
nlohmann::json statsJson(std::span<const ori::PhaseStats> stats);

// dumps.cpp: the analysis dumps of the functions (--function: one). Text: appended to *text;
// JSON (json != nullptr): one object per function appended to *json. Returns false after
// printing an error.
bool writeDumps(const Options& o, const ori::Module& m, const ori::PassContext& ctx, const std::string& fileName,
                std::string* text, nlohmann::json* json);
bool wantsDumps(const Options& o);

} // namespace oriopt_cli
