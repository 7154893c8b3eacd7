// The analyses from the chosen half (--impl; Both compares the two) and their
// dumps in ptxas's formats, as the command line prints them (--print-edges,
// --dump-rpo, --dump-dom, --dump-loops, --dump-cfg-dot, --dump-liveness,
// --dump-pressure, --dump-annotations).
#pragma once

#include <string>
#include <variant>

#include "ir/facts.h"
#include "ir/ir.h"
#include "rules/analyze_control_flow.h"

namespace ori {

enum class Impl { Optimized, Reference, Both };

struct FunctionFacts {
  CfgFacts cfg;
  DomFacts dom;
  LoopFacts loops;
};

// --rpo: a true depth-first RPO, or ptxas's iterative walk (sub_BDE150).
enum class RpoOrder { Dfs, PtxasIterative };

// The facts from the chosen half; Both runs the two and returns an error
// message naming the first difference. With RpoOrder::PtxasIterative the
// rpo, rpoNumber and backedges come from ptxas's walk, and the dominators and
// loops are computed over that order.
std::variant<FunctionFacts, std::string> analyzeFunction(const Function &f, Impl impl,
                                                         RpoOrder rpo = RpoOrder::Dfs);

// --dump-rpo-slots: the raw arrays of ptxas's RPO routines (ir/facts.h RpoSlots).
struct PtxasRpoSlots {
  RpoSlots iterative;      // sub_BDE150 (spec/000)
  RpoSlots erasePredCount; // sub_BDE6C0, marks = predecessor counts (spec/003)
  RpoSlots eraseUnvisited; // sub_BDE6C0, marks = 1 ("unvisited", spec/000's recursive DFS)
};
std::variant<PtxasRpoSlots, std::string> analyzeRpoSlots(const CfgFacts &cfg, Impl impl);
// Per routine a heading, then "\t rpo_number: [..]" (per bix, -1: never
// numbered), "\t rpo_array: [..]" (per slot, -1: never written) and
// "\t returned counter: N".
std::string dumpRpoSlots(const PtxasRpoSlots &slots);

std::string printEdges(const CfgFacts &cfg);
std::string dumpRpo(const CfgFacts &cfg);
std::string dumpDominators(const DomFacts &dom);
std::string dumpLoops(const LoopFacts &loops);
std::string dumpDot(const Function &f, const CfgFacts &cfg);

// AnalyzeControlFlow as phase 3 runs it (the wrapper's gate, force=0, no
// previous state) from the chosen half (Both: the two, or the first
// difference). facts is empty when the gate did not let it run.
struct AnnotationResult {
  Phase3Outcome outcome = Phase3Outcome::Ran;
  AnnotationFacts facts;
};
std::variant<AnnotationResult, std::string>
analyzeAnnotations(const Function &f, const CfgFacts &cfg, Impl impl, int optLevel, bool knob235);
// "AnalyzeControlFlow: ran", then one line a block:
// "bix1 RPONum: 2 flags: 0x00800030 [LOOP_HEADER HAS_PRED IN_LOOP] latchPred/exit: 3",
// then "ctx: RPO violation 0, early exit 0, re-entrancy guard 0"; or
// "AnalyzeControlFlow: vetoed by knob 235 (...); annotations not computed".
std::string dumpAnnotations(const AnnotationResult &r);

// Liveness from the chosen half (Both: the two, or the first difference).
std::variant<LivenessFacts, std::string> analyzeLiveness(const Function &f, const CfgFacts &cfg,
                                                         Impl impl);
// One line a block: "bix0 live-in: {R1 P0} live-out: {}", registers as the
// .ori printer names them, sorted by file (R, UR, P, UP, B), then number.
std::string dumpLiveness(const Function &f, const LivenessFacts &live);
// "bix0 pressure: R 2 UR 0 P 1 UP 0 B 0" a block, then "max pressure: ..."
// (ir/facts.h LivenessFacts::pressure says what is counted).
std::string dumpPressure(const LivenessFacts &live);

} // namespace ori
