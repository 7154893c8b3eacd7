// oriopt's command line, shared by its source files: the options (options.cpp declares them),
// and the observers beside main.cpp (observe.cpp: --print-before/after/changed and progress
// lines). Everything else is the library's (pipeline/).
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/arch.h"
#include "pipeline/analyses.h"
#include "pipeline/driver.h"
#include "pipeline/dumps.h"
#include "pipeline/launch.h"
#include "pipeline/pipeline.h"
#include "pipeline/verify_phases.h"
#include "verify/tv.h"

namespace oriopt_cli {

using ori::kDefaultArch;

struct Options {
  std::string input;
  std::string output;
  ori::EmitFormat emit = ori::EmitFormat::Ori;
  std::string phases;
  std::vector<std::string> knobs;
  int optLevel = 3;
  std::string arch = std::string(kDefaultArch);
  bool listPhases = false, listKnobs = false, summary = false;
  // Analysis dumps: printed per function, after `// function NAME`.
  bool printEdges = false, dumpRpo = false, dumpDom = false, dumpLoops = false, dumpDot = false;
  bool dumpLiveness = false, dumpPressure = false;
  bool dumpFoldMarks = false;   // phase 29's marks (0x100, 0x200, 0x400)
  bool dumpAnnotations = false; // AnalyzeControlFlow, phase 3
  ori::PipelineChoice pipeline = ori::PipelineChoice::Default;
  std::vector<std::string> printAfter, printBefore; // phase numbers or names, comma lists, or "all"
  bool printChanged = false, stats = false, json = false, progress = false;
  bool emitLowered = false; // --emit-lowered: no instruction printed as the PTX it was read from
  std::string report;       // --report=DIR: the HTML report (pipeline/report.h)
  double progressInterval = 1.0; // seconds between progress lines (hidden; tests set 0)
  // RPO order of the dumps, ptxas's raw RPO slot arrays, the unreachable-block
  // erase, and the testing aid that undoes the parser's split at control flow.
  ori::RpoOrder rpo = ori::RpoOrder::Dfs;
  bool dumpRpoSlots = false, eraseUnreachable = false, unsplitBlocks = false,
       switchBitTests = false;
  std::string reorderBlocks; // "0,2,1": testing aid, a block order to move to
  bool foldEvaluate = false; // --fold=ptxas|evaluate (PassContext::foldEvaluate)
  std::string profile;       // --profile FILE
  ori::Impl impl = ori::Impl::Optimized;
  std::string verifyMode;             // --verify: "plain"; --verify=strict: "strict"
  bool verify = false;                // translation validation after every phase (--verify)
  bool verifyStrict = false;          // --verify=strict: exit 3 (unknown) or 4 (refuted)
  bool verifyPlantBug = false;        // hidden testing aid (RunChecksOptions::plantBug)
  double verifyDeadline = -1;         // --verify-deadline: module-wide seconds; < 0: none
  std::string sarif;                  // --sarif FILE
  std::string roundTripProve = "all"; // --roundtrip-prove=all|none
  bool checkRoundTrip =
      false; // --check-roundtrip: emit, lower again, compare, prove (pipeline/roundtrip_check.h)
  ori::verify::TvOptions verifyOpts; // its bounds
  std::string function;
  // --run
  bool run = false, runStats = false;
  ori::LaunchRequest launch;
  std::vector<std::string> dumpBuffers, saveBuffers;
  bool strict = false;     // the reader's warnings are errors
  bool dumpLayout = false; // --run: where the variables live (pipeline/run_output.h)
};

// Declares every option of `o` on `app` (options.cpp).
void addOptions(CLI::App &app, Options &o);
// The analysis dumps `o` asks for (options.cpp); knob 235's value is the context's.
ori::DumpOptions dumpOptions(const Options &o, bool disableAnalyzeControlFlow);

// "oriopt: error: MSG" on standard error, exit status 1.
[[noreturn]] void usageError(const std::string &msg);

// observe.cpp. The run's observers: --print-before, --print-after and --print-changed (the
// function's .ori text on standard error, after a `// *** IR Dump ... ***` line) and the
// progress lines; `after` (the --verify hook) runs after the prints.
class PhaseObserver {
public:
  PhaseObserver(const Options &o, const ori::PassContext &ctx); // a bad phase list is a usage error
  void install(ori::RunOptions &run, ori::AfterPhase after);
  // Before the first phase: with --print-changed, the module as it starts.
  void atStart(const ori::Module &m) const;
  // A progress line callback for --verify's per-function loop of the step named `step`.
  ori::VerifyProgress verifyProgress(const std::string &step);
  // For ReportOptions::progress: "report: function i/n, drawing j/m".
  std::function<void(size_t, size_t, size_t, size_t)> reportProgress();

private:
  bool wanted(const std::vector<int> &set, int phase) const;
  void print(const ori::Module &m, const std::string &when, const ori::PipelineEntry &e,
             const ori::Module *onlyChangedFrom) const;
  void progressLine(const std::string &text);
  const Options &o_;
  const ori::PassContext &ctx_;
  std::vector<int> after_, before_; // phase numbers; -1: all
  bool progress_ = false;
  double lastProgress_ = 0; // seconds since the epoch of steady_clock
};

} // namespace oriopt_cli
