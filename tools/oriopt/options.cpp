// oriopt's options, as CLI11 declares them (tools/oriopt/cli.h Options). A closed choice is an
// enum whose names --help lists.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cli.h"

namespace oriopt_cli {

using namespace ori;

namespace {

// An option whose value is one of `names`: the variable gets its enum value; --help shows the
// names as {a|b|c}.
template <class T>
void choice(CLI::App &app, const std::string &flag, T &var,
            const std::vector<std::pair<std::string, T>> &names, const std::string &description) {
  std::map<std::string, T> map(names.begin(), names.end());
  std::vector<std::string> keys;
  std::string text;
  for (const auto &[name, value] : names) {
    keys.push_back(name);
    text += (text.empty() ? "{" : "|") + name;
  }
  app.add_option_function<std::string>(
         flag, [&var, map](const std::string &s) { var = map.at(s); }, description)
      ->check(CLI::IsMember(keys).description(""))
      ->option_text(text + "}");
}

} // namespace

void addOptions(CLI::App &app, Options &o) {
  app.add_option("input", o.input, "Input kernel: .ori or .ptx text, or - for standard input");
  app.add_option("-o", o.output, "Write the output to FILE instead of standard output")
      ->option_text("FILE");
  choice(app, "--emit", o.emit, {{"ori", EmitFormat::Ori}, {"ptx", EmitFormat::Ptx}},
         "Output format (default ori)");
  app.add_flag("--emit-lowered", o.emitLowered,
               "With --emit=ptx (and --check-roundtrip): print every instruction as the Ori "
               "instruction it was lowered to, not as the PTX instruction it was read from "
               "where no phase changed it (docs/ptx.md, \"Round trip\")");
  app.add_option("--phases", o.phases,
                 "Comma-separated phase numbers or names to run (default: the implemented "
                 "pipeline, without the code-changing phases 10, 16, 19, 33, 61, 84, which run "
                 "only when named; not with --pipeline=ptxas)");
  choice(app, "--pipeline", o.pipeline,
         {{"default", PipelineChoice::Default}, {"ptxas", PipelineChoice::Ptxas}},
         "default: the phases that keep every instruction (or those --phases names); ptxas: every "
         "implemented "
         "phase in ptxas's order, each under its gate (-O level, knobs, SM; --list-phases shows "
         "them)");
  app.add_option("--print-before", o.printBefore,
                 "Before the phase runs, print each function on standard error (phase numbers or "
                 "names, comma lists, "
                 "repeatable; all: every phase)")
      ->option_text("PHASE,...")
      ->allow_extra_args(false);
  app.add_option("--print-after", o.printAfter,
                 "After the phase, print each function on standard error (as --print-before)")
      ->option_text("PHASE,...")
      ->allow_extra_args(false);
  app.add_flag(
      "--print-changed", o.printChanged,
      "Print each function on standard error at the start and after every phase that changed it");
  app.add_flag(
      "--stats", o.stats,
      "Print a table on standard error: per phase the wall time, instructions and blocks after it, "
      "removed "
      "and added, rewrites applied, functions changed, or why its gate kept it from running");
  app.add_option(
         "--report", o.report,
         "Write an HTML report into DIR: index.html (the --stats table, a link per function) and a "
         "page per "
         "function with its CFG drawn by Graphviz's dot at the start and after each phase that "
         "changed it "
         "(loops shaded, changed blocks marked, register pressure per block; docs/report.md)")
      ->option_text("DIR");
  app.add_flag("--json", o.json,
               "Write the phase statistics and the analysis dumps asked for as one JSON object "
               "instead of the "
               "output (docs/oriopt-output.schema.json)");
  app.add_flag("--progress", o.progress,
               "Print progress lines (phase, function i/n, and --verify's) on standard error at "
               "most once a second; "
               "on by default when standard error is a terminal");
  app.add_option("--progress-interval", o.progressInterval,
                 "Seconds between progress lines (default 1)")
      ->group("")
      ->check(CLI::Range(0.0, 3600.0));
  app.add_option("--knob", o.knobs, "Set a ptxas knob by name or index, e.g. --knob 464=4")
      ->option_text("NAME=VALUE")
      ->allow_extra_args(false);
  app.add_flag_callback(
      "--dont-merge-basicblocks,--no-bb-merge",
      [&o] { o.knobs.push_back("dont-merge-basicblocks=true"); },
      "Never merge consecutive blocks (ptxas's flag for debuggable code, spec/000): phases 13, "
      "14, 15 and 30 leave blocks apart, phase 38 does not run");
  app.add_option("-O", o.optLevel, "Optimization level, -O0 to -O4 (default 3, as ptxas)")
      ->check(CLI::Range(0, 4));
  app.add_option("--arch", o.arch, "Target architecture (default sm_90)")->option_text("sm_XX");
  app.add_flag("--list-phases", o.listPhases, "List every ptxas phase the spec names and exit");
  app.add_flag("--list-knobs", o.listKnobs, "List every knob the spec names and exit");
  app.add_flag("--summary", o.summary, "Print a summary of each function instead of the .ori text");
  app.add_flag("--print-edges", o.printEdges, "Print each CFG edge as bix%d -> bix%d");
  app.add_flag("--dump-rpo", o.dumpRpo,
               "Print RPO numbers, the RPO order and backedges (ptxas's format)");
  app.add_flag("--dump-dom", o.dumpDom, "Print immediate dominators");
  app.add_flag("--dump-loops", o.dumpLoops,
               "Print natural loops: header, depth, latches, body, exits, preheader");
  app.add_flag("--dump-cfg-dot", o.dumpDot, "Print the CFG as Graphviz DOT (ptxas's format)");
  app.add_flag("--dump-fold-marks", o.dumpFoldMarks,
               "Print the marks phases 29/46/65 leave on destinations: 0x100 propagated, 0x200 "
               "deferred (SEL made a "
               "copy), 0x400 under predicate (predicate copy, resolved guard), at each "
               "instruction's place as the phase "
               "found it");
  app.add_flag(
      "--dump-liveness", o.dumpLiveness,
      "Print live-in and live-out registers of each block; warn of uninitialized registers");
  app.add_flag("--dump-annotations", o.dumpAnnotations,
               "Print AnalyzeControlFlow's (phase 3) RPONum, +280 flags and +152 latch-pred/exit "
               "field of each block; honours -O and --knob 235");
  app.add_flag(
      "--dump-pressure", o.dumpPressure,
      "Print the most registers live at once per block and file, and the function's maximum");
  choice(app, "--rpo", o.rpo,
         {{"dfs", RpoOrder::Dfs}, {"ptxas-iterative", RpoOrder::PtxasIterative}},
         "RPO order of the dumps: dfs (a true depth-first order, the default) or ptxas-iterative "
         "(sub_BDE150 as "
         "spec/000 documents it)");
  app.add_flag("--dump-rpo-slots", o.dumpRpoSlots,
               "Print the raw slot arrays of ptxas's RPO routines (sub_BDE150, sub_BDE6C0)");
  app.add_flag("--switch-bit-tests", o.switchBitTests,
               "Phases 14/30: lower switches LLVM would lower to bit tests that way (beyond ptxas; "
               "off by default)");
  choice(app, "--fold", o.foldEvaluate, {{"ptxas", false}, {"evaluate", true}},
         "Phases 29/46/65: ptxas (the default: copies and selects as ptxas folds them) or evaluate "
         "(beyond ptxas: "
         "also constant folding and algebraic identities, docs/general-optimize.md)");
  app.add_flag("--erase-unreachable", o.eraseUnreachable,
               "After the phases, delete the blocks bix0 does not reach (spec/003 OriBranchOpt)");
  app.add_option("--profile", o.profile,
                 "Block counts, lines of FUNCTION LABEL COUNT: phases 14/30 take ptxas's PGO exit "
                 "and test the clusters "
                 "of small switches hottest first (docs/branch-and-switch.md)")
      ->type_name("FILE");
  app.add_option("--reorder-blocks", o.reorderBlocks,
                 "Testing: move the blocks into this order (0 first), adding BRAs to keep "
                 "behaviour, before the phases; with --function, only there")
      ->option_text("0,BIX,...");
  app.add_flag("--unsplit-blocks", o.unsplitBlocks,
               "Testing: merge each unlabelled block into the one before it, so control flow sits "
               "inside blocks for phase 6 to split");
  // A flag (it never takes the next argument, the input file) with an optional =VALUE.
  app.add_flag(
         "--verify{plain}", o.verifyMode,
         "After every phase, prove with Z3 that each function it changed behaves the same "
         "(translation validation; where Z3 cannot decide, compare random runs in the "
         "interpreter); a difference stops with exit status 1. --verify=strict: exit status 4 "
         "when anything is refuted, else 3 when anything is unknown. A closing line on standard "
         "error counts the verdicts")
      ->check(CLI::IsMember({"plain", "strict"}).description(""))
      ->option_text("[=strict]");
  app.add_flag("--verify-plant-bug", o.verifyPlantBug,
               "Testing: check each step against its output with one guard negated (a planted "
               "bug, to test refutations end to end)")
      ->group("");
  app.add_option("--verify-deadline", o.verifyDeadline,
                 "--verify: seconds for the whole module; what is left after it is unknown "
                 "(deadline); 0: nothing is asked of Z3 (default: none)")
      ->check(CLI::Range(0.0, 1e7));
  app.add_option("--sarif", o.sarif,
                 "--verify: write the refuted (errors) and unknown (warnings) verdicts as a SARIF "
                 "2.1.0 log to FILE")
      ->type_name("FILE");
  app.add_flag("--check-roundtrip", o.checkRoundTrip,
               "Emit the module as PTX (after the phases --phases or --pipeline name; none by "
               "default), lower that "
               "again and compare each function up to register "
               "and label names; prove the ones that differ equivalent (both directions; the "
               "--verify-* bounds). One "
               "line per function, then a summary; exit status 1 when a function is neither equal "
               "nor proved "
               "(docs/ptx.md, \"Round trip\")");
  app.add_option("--roundtrip-prove", o.roundTripProve,
                 "--check-roundtrip: prove the functions that differ (all, the default) or only "
                 "compare (none: a "
                 "function that differs is reported unchecked)")
      ->check(CLI::IsMember({"all", "none"}));
  app.add_option("--verify-timeout", o.verifyOpts.timeoutSeconds,
                 "--verify: seconds per Z3 query (default: from the function's size, "
                 "docs/verifier.md; 60 when only --verify-budget is given)")
      ->check(CLI::Range(1u, 86400u));
  app.add_option("--verify-budget", o.verifyOpts.budgetSeconds,
                 "--verify: seconds per function and phase for all its queries (default: from the "
                 "function's size, docs/verifier.md; 300 when only --verify-timeout is given)")
      ->check(CLI::Range(1u, 86400u));
  app.add_option("--verify-unroll", o.verifyOpts.unroll,
                 "--verify: back edges a path may take before it counts as unknown (default 4)")
      ->check(CLI::Range(0u, 64u));
  app.add_option("--verify-inline-depth", o.verifyOpts.inlineDepth,
                 "--verify: nested calls to functions of the module inlined; deeper ones are "
                 "uninterpreted (default 3)")
      ->check(CLI::Range(0u, 16u));
  choice(app, "--impl", o.impl,
         {{"optimized", Impl::Optimized}, {"reference", Impl::Reference}, {"both", Impl::Both}},
         "Which half computes the analyses and runs the passes (default optimized); both: run the "
         "two and fail on "
         "the first difference");
  app.add_option("--function", o.function, "Dump only this function");
  app.add_flag("--run", o.run, "Run the kernel in the interpreter and print how it ended");
  app.add_option("--threads", o.launch.threads,
                 "Threads per CTA for --run: X, XxY or XxYxZ (at most 1024 in all; default 1, with "
                 "--auto-params 128)")
      ->option_text("X[xY[xZ]]");
  app.add_option("--ctas", o.launch.ctas,
                 "CTAs for --run: X, XxY or XxYxZ (default 1, with --auto-params 2)")
      ->option_text("X[xY[xZ]]");
  app.add_flag("--auto-params", o.launch.autoParams,
               "With --run: bind every parameter --param and --buffer do not, and the __constant__ "
               "data and __device__ "
               "pointers the host would set (pointers to 4 MiB buffers of small words, integers to "
               "the launch's thread "
               "count, floats to 1.0, structs field by field; docs/interpreter.md, \"Automatic "
               "launches\"), and print "
               "the bindings on standard error");
  app.add_flag(
      "--run-stats", o.runStats,
      "After --run's exit line, print \"steps: warp=N lane=M\" (instructions executed), "
      "\"branches: executed=N divergent=M\" (warp-level branch executions, and those whose lanes "
      "split), then \"work: real\" or "
      "\"work: left through its first block ...\" for an ok run, \"detail: ...\" for another");
  app.add_option("--entry", o.launch.entry, "Kernel to run (default: the only .entry)");
  app.add_option("--param", o.launch.params,
                 "Bind a scalar kernel parameter by name (integer, or float text for .f32/.f64)")
      ->option_text("NAME=INT")
      ->allow_extra_args(false);
  app.add_option("--buffer", o.launch.buffers,
                 "Bind a pointer parameter to a new buffer of SIZE zero bytes, the bytes of FILE, "
                 "or the BYTES given in hex")
      ->option_text("NAME=SIZE|NAME=@FILE|NAME=hex:BYTES")
      ->allow_extra_args(false);
  app.add_option("--arg", o.launch.args,
                 "Bind a kernel parameter by position (0, 1, ...) or name: a number (integer, or "
                 "float text for "
                 ".f32/.f64), or for a pointer a buffer: SIZE zero bytes as zeros:SIZE, @FILE, "
                 "hex:BYTES, or "
                 "TYPE:V,V,... (u8 i8 u16 i16 u32 i32 u64 i64 f32 f64, packed little-endian)")
      ->option_text("P=VALUE")
      ->allow_extra_args(false);
  app.add_option("--dump-buffer", o.dumpBuffers,
                 "After --run, print the buffer (P: a parameter's position or name): its bytes in "
                 "hex on one line, "
                 "or with :TYPE (hex u8 i8 u16 i16 u32 i32 u64 i64 f32 f64) its values, 8 a line "
                 "(hex: 16), and "
                 "with :COUNT only the first COUNT")
      ->option_text("P[:TYPE[:COUNT]]")
      ->allow_extra_args(false);
  app.add_option("--save-buffer", o.saveBuffers,
                 "After --run, write the buffer's final bytes to FILE")
      ->option_text("P=FILE")
      ->allow_extra_args(false);
  app.add_option("--reg", o.launch.regs,
                 "Start every thread with this value in a register (the others start at 0; a "
                 "predicate: 0, 1, true or false)")
      ->option_text("NAME=INT")
      ->allow_extra_args(false);
  app.add_option("--only-thread", o.launch.onlyThread,
                 "Run only this thread of the launch (CTA index * threads per CTA + thread index, "
                 "x fastest), alone: barriers pass at once")
      ->option_text("N");
  app.add_flag("--strict", o.strict,
               "Make the reader's warnings errors: an instruction kept as OPAQUE (not run, not "
               "proved, not optimized) "
               "stops with exit status 1");
  app.add_option("--shared-dynamic", o.launch.sharedDynamic,
                 "--run: the launch's dynamic shared memory in bytes, where the .extern .shared "
                 "arrays live "
                 "(default: the rest of the 228 KiB shared window); a shared access past it faults")
      ->option_text("BYTES");
  choice(app, "--clock", o.launch.clockFromSteps, {{"steps", true}, {"refuse", false}},
         "--run: what %clock, %clock64 and %globaltimer read: the warp instructions run so far "
         "(steps, the default: deterministic, only forward) or nothing (refuse: the run stops "
         "as unsupported)");
  app.add_flag("--dump-layout", o.dumpLayout,
               "After --run's exit line, print where each .global, .const and .shared variable "
               "lives and the "
               "shared memory's static and dynamic parts");
  app.add_option("--max-steps", o.launch.maxSteps,
                 "Warp instructions (all warps together) before --run reports a timeout (default "
                 "10000000, with --auto-params 20000000)")
      ->check(CLI::Range(uint64_t(1), uint64_t(1) << 40));
}

ori::DumpOptions dumpOptions(const Options &o, bool disableAnalyzeControlFlow) {
  return {o.printEdges,
          o.dumpDot,
          o.dumpRpo,
          o.dumpDom,
          o.dumpLoops,
          o.dumpRpoSlots,
          o.dumpAnnotations,
          o.dumpLiveness,
          o.dumpPressure,
          o.rpo,
          o.impl,
          o.optLevel,
          disableAnalyzeControlFlow,
          o.function};
}

} // namespace oriopt_cli
