// oriopt's options (cli.h, Options): what each one means, for --help.
#include <CLI/CLI.hpp>

#include "cli.h"

namespace oriopt_cli {

void addOptions(CLI::App& app, Options& o) {
  app.add_option("input", o.input, "Input kernel: .ori or .ptx text, or - for standard input");
  app.add_option("-o", o.output, "Write the output to FILE instead of standard output")->option_text("FILE");
  app.add_option("--emit", o.emit, "Output format")->check(CLI::IsMember({"ori", "ptx"}))->option_text("ori");
  app.add_option("--phases", o.phases, "Comma-separated phase numbers or names to run (default: the implemented pipeline, without the code-changing phases 10, 16, 19, 33, 61, 84, which run only when named; not with --pipeline=ptxas)");
  app.add_option("--pipeline", o.pipeline,
                 "default: the phases that keep every instruction (or those --phases names); ptxas: every implemented "
                 "phase in ptxas's order, each under its gate (-O level, knobs, SM; --list-phases shows them)")
      ->check(CLI::IsMember({"default", "ptxas"}));
  app.add_option("--print-before", o.printBefore,
                 "Before the phase runs, print each function on standard error (phase numbers or names, comma lists, "
                 "repeatable; all: every phase)")
      ->option_text("PHASE,...")->allow_extra_args(false);
  app.add_option("--print-after", o.printAfter, "After the phase, print each function on standard error (as --print-before)")
      ->option_text("PHASE,...")->allow_extra_args(false);
  app.add_flag("--print-changed", o.printChanged,
               "Print each function on standard error at the start and after every phase that changed it");
  app.add_flag("--stats", o.stats,
               "Print a table on standard error: per phase the wall time, instructions and blocks after it, removed "
               "and added, rewrites applied, functions changed, or why its gate kept it from running");
  app.add_option("--report", o.report,
                 "Write an HTML report into DIR: index.html (the --stats table, a link per function) and a page per "
                 "function with its CFG drawn by Graphviz's dot at the start and after each phase that changed it "
                 "(loops shaded, changed blocks marked, register pressure per block; docs/report.md)")
      ->option_text("DIR");
  app.add_flag("--json", o.json,
               "Write the phase statistics and the analysis dumps asked for as one JSON object instead of the "
               "output (docs/oriopt-output.schema.json)");
  app.add_flag("--progress", o.progress,
               "Print progress lines (phase, function i/n, and --verify's) on standard error at most once a second; "
               "on by default when standard error is a terminal");
  app.add_option("--progress-interval", o.progressInterval, "Seconds between progress lines (default 1)")
      ->group("")->check(CLI::Range(0.0, 3600.0));
  app.add_option("--knob", o.knobs, "Set a ptxas knob by name or index, e.g. --knob 464=4")->option_text("NAME=VALUE")->allow_extra_args(false);
  app.add_option("-O", o.optLevel, "Optimization level, -O0 to -O4 (default 3, as ptxas)")->check(CLI::Range(0, 4));
  app.add_option("--arch", o.arch, "Target architecture (default sm_90)")->option_text("sm_XX");
  app.add_flag("--list-phases", o.listPhases, "List every ptxas phase the spec names and exit");
  app.add_flag("--list-knobs", o.listKnobs, "List every knob the spec names and exit");
  app.add_flag("--summary", o.summary, "Print a summary of each function instead of the .ori text");
  app.add_flag("--print-edges", o.printEdges, "Print each CFG edge as bix%d -> bix%d");
  app.add_flag("--dump-rpo", o.dumpRpo, "Print RPO numbers, the RPO order and backedges (ptxas's format)");
  app.add_flag("--dump-dom", o.dumpDom, "Print immediate dominators");
  app.add_flag("--dump-loops", o.dumpLoops, "Print natural loops: header, depth, latches, body, exits, preheader");
  app.add_flag("--dump-cfg-dot", o.dumpDot, "Print the CFG as Graphviz DOT (ptxas's format)");
  app.add_flag("--dump-fold-marks", o.dumpFoldMarks,
               "Print the marks phases 29/46/65 leave on destinations: 0x100 propagated, 0x200 deferred (SEL made a "
               "copy), 0x400 under predicate (predicate copy, resolved guard), at each instruction's place as the phase "
               "found it");
  app.add_flag("--dump-liveness", o.dumpLiveness, "Print live-in and live-out registers of each block; warn of uninitialized registers");
  app.add_flag("--dump-annotations", o.dumpAnnotations,
               "Print AnalyzeControlFlow's (phase 3) RPONum, +280 flags and +152 latch-pred/exit field of each block; honours -O and --knob 235");
  app.add_flag("--dump-pressure", o.dumpPressure, "Print the most registers live at once per block and file, and the function's maximum");
  app.add_option("--rpo", o.rpo, "RPO order of the dumps: dfs (a true depth-first order) or ptxas-iterative (sub_BDE150 as spec/000 documents it)")
      ->check(CLI::IsMember({"dfs", "ptxas-iterative"}));
  app.add_flag("--dump-rpo-slots", o.dumpRpoSlots, "Print the raw slot arrays of ptxas's RPO routines (sub_BDE150, sub_BDE6C0)");
  app.add_flag("--switch-bit-tests", o.switchBitTests,
               "Phases 14/30: lower switches LLVM would lower to bit tests that way (beyond ptxas; off by default)");
  app.add_option("--fold", o.fold,
                 "Phases 29/46/65: ptxas (the default: copies and selects as ptxas folds them) or evaluate (beyond "
                 "ptxas: also constant folding and algebraic identities, docs/general-optimize.md)")
      ->check(CLI::IsMember({"ptxas", "evaluate"}));
  app.add_flag("--erase-unreachable", o.eraseUnreachable, "After the phases, delete the blocks bix0 does not reach (spec/003 OriBranchOpt)");
  app.add_option("--profile", o.profile,
                 "Block counts, lines of FUNCTION LABEL COUNT: phases 14/30 take ptxas's PGO exit and test the clusters "
                 "of small switches hottest first (docs/branch-and-switch.md)")
      ->type_name("FILE");
  app.add_option("--reorder-blocks", o.reorderBlocks,
                 "Testing: move the blocks into this order (0 first), adding BRAs to keep behaviour, before the phases; with --function, only there")
      ->option_text("0,BIX,...");
  app.add_flag("--unsplit-blocks", o.unsplitBlocks,
               "Testing: merge each unlabelled block into the one before it, so control flow sits inside blocks for phase 6 to split");
  app.add_flag("--verify", o.verify,
               "After every phase, prove with Z3 that each function it changed behaves the same (translation "
               "validation; where Z3 cannot decide, compare random runs in the interpreter); a difference stops with exit status 1");
  app.add_option("--verify-timeout", o.verifyOpts.timeoutSeconds, "--verify: seconds per Z3 query (default 60)")
      ->check(CLI::Range(1u, 86400u));
  app.add_option("--verify-budget", o.verifyOpts.budgetSeconds,
                 "--verify: seconds per function and phase for all its queries (default 300)")
      ->check(CLI::Range(1u, 86400u));
  app.add_option("--verify-unroll", o.verifyOpts.unroll, "--verify: back edges a path may take before it counts as unknown (default 4)")
      ->check(CLI::Range(0u, 64u));
  app.add_option("--verify-inline-depth", o.verifyOpts.inlineDepth,
                 "--verify: nested calls to functions of the module inlined; deeper ones are uninterpreted (default 3)")
      ->check(CLI::Range(0u, 16u));
  app.add_option("--impl", o.impl, "Which half computes the analyses and runs the passes; both: run the two and fail on the first difference")
      ->check(CLI::IsMember({"optimized", "reference", "both"}));
  app.add_option("--function", o.function, "Dump only this function");
  app.add_flag("--run", o.run, "Run the kernel in the interpreter and print how it ended");
  app.add_option("--threads", o.threads,
                 "Threads per CTA for --run: X, XxY or XxYxZ (at most 1024 in all; default 1, with --auto-params 128)")
      ->option_text("X[xY[xZ]]");
  app.add_option("--ctas", o.ctas, "CTAs for --run: X, XxY or XxYxZ (default 1, with --auto-params 2)")->option_text("X[xY[xZ]]");
  app.add_flag("--auto-params", o.autoParams,
               "With --run: bind every parameter --param and --buffer do not, and the __constant__ data and __device__ "
               "pointers the host would set (pointers to 4 MiB buffers of small words, integers to the launch's thread "
               "count, floats to 1.0, structs field by field; docs/interpreter.md, \"Automatic launches\"), and print "
               "the bindings on standard error");
  app.add_flag("--run-stats", o.runStats, "After --run's exit line, print \"steps: warp=N lane=M\" (instructions executed), \"branches: executed=N divergent=M\" (warp-level branch executions, and those whose lanes split), then \"work: real\" or "
               "\"work: left through its first block ...\" for an ok run, \"detail: ...\" for another");
  app.add_option("--entry", o.entry, "Kernel to run (default: the only .entry)");
  app.add_option("--param", o.params, "Bind a scalar kernel parameter (integer, or float text for .f32/.f64)")->option_text("NAME=INT")->allow_extra_args(false);
  app.add_option("--buffer", o.buffers, "Bind a pointer parameter to a new buffer of SIZE zero bytes, the bytes of FILE, or the BYTES given in hex")->option_text("NAME=SIZE|NAME=@FILE|NAME=hex:BYTES")->allow_extra_args(false);
  app.add_option("--dump-buffer", o.dumpBuffers, "After --run, print the buffer's bytes in hex")->option_text("NAME")->allow_extra_args(false);
  app.add_option("--reg", o.regs, "Start every thread with this value in a register (the others start at 0; a predicate: 0, 1, true or false)")
      ->option_text("NAME=INT")->allow_extra_args(false);
  app.add_option("--only-thread", o.onlyThread, "Run only this thread of the launch (CTA index * threads per CTA + thread index, x fastest), alone: barriers pass at once")
      ->option_text("N");
  app.add_option("--max-steps", o.maxSteps,
                 "Warp instructions (all warps together) before --run reports a timeout (default 10000000, with --auto-params 20000000)")->check(CLI::Range(uint64_t(1), uint64_t(1) << 40));
  app.add_flag("--strict", o.strict,
               "Make the reader's warnings errors: an instruction kept as OPAQUE (not run, not proved, not optimized) "
               "stops with exit status 1");
  app.add_option("--shared-dynamic", o.sharedDynamic,
                 "--run: the launch's dynamic shared memory in bytes, where the .extern .shared arrays live "
                 "(default: the rest of the 228 KiB shared window); a shared access past it faults")
      ->option_text("BYTES");
  app.add_flag("--dump-layout", o.dumpLayout,
               "After --run's exit line, print where each .global, .const and .shared variable lives and the "
               "shared memory's static and dynamic parts");
}

} // namespace oriopt_cli
