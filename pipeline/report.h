// The HTML report of a run (oriopt --report=DIR; docs/report.md): DIR/index.html with the
// phase statistics and a link per function, and one self-contained page per function with its
// CFG drawn (SVG from Graphviz's dot, inlined) as it started and after each phase that changed
// it: loops shaded, the blocks the phase changed marked, register pressure per block.
//
// A library user records a run with ReportRecorder from RunOptions::afterPhase and writes the
// pages with writeReport:
//
//   ori::ReportRecorder rec(module);
//   ori::RunOptions run;
//   run.countChanges = true; // the statistics' removed/added columns
//   run.afterPhase = [&](const ori::PipelineEntry& e, const ori::Module*, const ori::Module& after)
//   {
//     rec.afterPhase(e, after);
//     return true;
//   };
//   auto stats = ori::runPhases(module, ori::ptxasPhases(), ctx, run);
//   ori::ReportResult r = ori::writeReport("out", rec, stats, {});
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"
#include "pipeline/oriopt.h"

namespace ori {

struct ReportOptions {
  std::string title = "oriopt report";   // every page's heading (oriopt: the input file)
  std::string run;                       // a line on the index saying how the run was made
  Impl impl = Impl::Optimized;           // the half whose loops and liveness the drawings show
  std::string dot = "dot";               // Graphviz's dot: a path, or a name looked up on PATH
  double dotSeconds = 30;                // wall time one graph may take, then dot is killed
  size_t maxSvgBytes = size_t(32) << 20; // the most SVG text one graph may make
  size_t maxBlocks = 2000;               // a function with more blocks is listed, not drawn
  size_t maxLinesPerBlock = 40;          // instruction lines in a block's box, then "... N more"
  // If set, called before each drawing: the function's position among the recorded ones
  // (0-based) and their count, the drawing's among the function's and their count (oriopt's
  // progress lines: dot takes seconds on a big function).
  std::function<void(size_t function, size_t functions, size_t drawing, size_t drawings)> progress;
};

// A run as the report needs it: each function (with a body) as it started, then after each
// phase that changed it (Function::operator== against the module before the phase).
class ReportRecorder {
public:
  // `only`: record only the function of that name (empty: every function with a body).
  explicit ReportRecorder(const Module &start, std::string only = {});
  // From RunOptions::afterPhase, with the module after the phase: each recorded function that
  // differs from its last snapshot (the function as the phase found it) gets a new one.
  void afterPhase(const PipelineEntry &e, const Module &after);

  struct Snapshot {
    int phase = -1; // the phase that made it; -1: the function as it started
    Function f;
  };
  struct FunctionRun {
    size_t index = 0; // in Module::functions
    std::vector<Snapshot> snapshots;
  };
  const std::vector<FunctionRun> &functions() const { return functions_; }

private:
  std::vector<FunctionRun> functions_;
};

struct ReportResult {
  std::string error;                 // set: nothing usable was written
  std::vector<std::string> warnings; // graphs not drawn (too big, dot timed out), per page
  std::vector<std::string> pages;    // the function pages written, file names in DIR
  bool ok() const { return error.empty(); }
};

// Before the run: finds dot (a clear error when it is missing) and creates DIR (an error
// when that fails), so a bad --report stops before any phase runs.
std::optional<std::string> prepareReport(const std::string &dir, const ReportOptions &opts);
// Writes DIR/index.html and one page per recorded function.
ReportResult writeReport(const std::string &dir, const ReportRecorder &run,
                         std::span<const PhaseStats> stats, const ReportOptions &opts);

// The pieces, for tests and other front ends.

// &, <, >, " and ' as character references.
std::string htmlEscape(std::string_view text);
// The page file name of function `index` named `name`: "f<index>-<name>.html", every byte of
// the name outside [A-Za-z0-9_-] made '_', at most 64 of them.
std::string reportPageName(size_t index, std::string_view name);

// How `after` differs from `before`, block by block. Blocks correspond by label id (the k-th
// block with an id in one to the k-th with it in the other); a block of `after` is new when
// nothing corresponds, changed when its instructions print differently.
struct BlockChanges {
  std::vector<bool> changed, added; // per bix of `after`
  std::vector<uint32_t> removed;    // bixes of `before` with no block in `after`
};
BlockChanges diffBlocks(const Function &before, const Function &after);

// The DOT of one snapshot, after --dump-cfg-dot's: nodes "bix<n>" whose box starts
// "bix<n>(L<id>)" and holds the block's label, its pressure (LivenessFacts::pressure, files
// with any register live) and its instructions; each natural loop a shaded cluster (nested
// loops darker); changed blocks with a red border and class "changed", new ones also "new".
// `changes` may be null (the first snapshot).
std::string reportDot(const Function &f, const AllFacts &facts, const BlockChanges *changes,
                      const ReportOptions &opts);

// The path of dot (opts.dot itself if it holds a '/', else the first executable of that name
// on PATH), or nothing.
std::optional<std::string> findDot(const std::string &dot);
// `dot -Tsvg` on the text, in a child process under opts.dotSeconds and opts.maxSvgBytes.
// Returns the <svg> element (the XML prologue and comments before it dropped).
struct SvgResult {
  std::string svg;
  std::string error;  // set when there is no SVG: why
  bool limit = false; // the error is a bound (time, size), not a failure of dot
};
SvgResult renderSvg(const std::string &dotPath, const std::string &dotText,
                    const ReportOptions &opts);

} // namespace ori
