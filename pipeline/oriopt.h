// oriopt as a library: the one header a program includes to read a module
// (PTX or .ori text), run ptxas phases on it with either half, and read the
// facts (docs/library.md). Link oriopt::pipeline (CMake: find_package(oriopt))
// or `pkg-config --cflags --libs oriopt`.
//
//   ori::ParseResult p = ori::parseModuleFile("k.ptx");
//   if (p.error) { std::cerr << p.error->str() << "\n"; return 1; }
//   ori::PassContext ctx;                       // -O3, optimized half, default knobs
//   ori::PhaseRunResult r = ori::runPhases(*p.module, "OriPerformLiveDeadFirst", ctx);
//   if (!r.error.empty()) ...
//   std::cout << r.stats[0].instrsRemoved() << "\n";
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ir/diag.h"           // Diagnostic: file:line:col: error: message
#include "ir/facts.h"          // CfgFacts, DomFacts, LoopFacts, LivenessFacts, AnnotationFacts
#include "ir/ir.h"             // Module, Function, Block, Instr
#include "ir/knobs.h"          // KnobSet (PassContext::knobs)
#include "ir/ori.h"            // ParseResult, printModule, printFunction
#include "ir/phases.h"         // allPhases, findPhase
#include "pipeline/analyses.h" // analyzeFunction, analyzeLiveness and the dumps
#include "pipeline/driver.h" // what oriopt does, as calls: configureContext, selectPhases, emitModule ...
#include "pipeline/dumps.h"    // dumpModule: the analysis dumps as text and JSON
#include "pipeline/launch.h"   // planLaunch, parseBufferDump: --run's arguments
#include "pipeline/pipeline.h" // PassContext, PipelineEntry, pipeline(), runPhases
#include "pipeline/stats.h"    // formatStatsTable, statsJson
#include "pipeline/summary.h"  // summarizeModule
#include "ptx/ptx.h"           // ptx::emit

namespace ori {

// What the text is. Auto: PTX when the file name ends in ".ptx" or the text's
// first directive is .version, else .ori.
enum class InputKind { Auto, Ori, Ptx };

// Reads a module from text; on bad input `error` says where and why (never throws).
ParseResult parseModule(std::string_view text, std::string_view fileName,
                        InputKind kind = InputKind::Auto);
// The same from a file ("-": standard input); a file that cannot be read is a Diagnostic too.
ParseResult parseModuleFile(const std::string &path, InputKind kind = InputKind::Auto);

// Runs phases over every function, in the order given.
struct PhaseRunResult {
  std::vector<PhaseStats> stats; // one per phase run
  std::string error;             // a bad phase list, or a phase that failed (ctx.error)
  bool ok() const { return error.empty(); }
};
// `phases`: "16", "3,6,OriBranchOpt", ... (numbers or names of implemented
// phases); empty: the default phases. ctx.half picks the half.
PhaseRunResult runPhases(Module &m, std::string_view phases, PassContext &ctx);

// Every fact of a function from the half `impl` names (Both: the two, or an
// error naming their first difference).
struct AllFacts {
  CfgFacts cfg;
  DomFacts dom;
  LoopFacts loops;
  LivenessFacts liveness;
};
std::variant<AllFacts, std::string> computeFacts(const Function &f, Impl impl = Impl::Optimized);

} // namespace ori
