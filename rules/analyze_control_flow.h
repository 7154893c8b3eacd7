// Phase 3 AnalyzeControlFlow, its body sub_781F80 (spec/001; ir/facts.h AnnotationFacts): the
// contract of reference/analyze_control_flow.cpp and optimized/analyze_control_flow.cpp, and the
// wrapper's gate both obey.
//
// analyzeControlFlow: resets every block's +280 flags with the 0xFF78F98F mask (bits outside it
// survive from `previous`, which may be null: all zero), numbers the reachable blocks in RPO
// from 1, and sets LOOP_HEADER, HAS_PRED, ANALYSIS_OK, IN_LOOP, the +152 latch-pred / loop-exit
// field and the RPO-violation latch. forceFullRebuild (ptxas's force=1 callers) also sets
// HAS_PRED on every numbered block (the |= 0x30 of the block-start case). The phase leaves the
// IR as it is; the pipeline checks the annotations against the natural loops (every loop header
// is a LOOP_HEADER, every body block IN_LOOP). Both halves' facts are equal.
#pragma once

#include "ir/facts.h"
#include "ir/ir.h"
#include <string_view>

namespace ori {

// The phase-3 wrapper sub_C60870 (spec/001 "Wrapper Gate"), pure policy
// shared by both halves: runs the analysis at -O1 and above unless knob 235
// (DisableAnalyzeControlFlow) vetoes it or a run is already under way (the
// previous state's re-entrancy guard is set). When it does not run, the
// annotations stay as they were.
enum class Phase3Outcome { Ran, SkippedBelowO1, VetoedByKnob235, SkippedReentrant };
Phase3Outcome analyzeControlFlowGate(int optLevel, bool knob235, const AnnotationFacts *previous);
std::string_view
describe(Phase3Outcome outcome); // "ran", "vetoed by knob 235 (DisableAnalyzeControlFlow)", ...

// The two halves' entries (the contract above).
namespace reference {
AnnotationFacts analyzeControlFlow(const Function &f, const CfgFacts &cfg,
                                   const AnnotationFacts *previous, bool forceFullRebuild);
}
namespace optimized {
AnnotationFacts analyzeControlFlow(const Function &f, const CfgFacts &cfg,
                                   const AnnotationFacts *previous, bool forceFullRebuild);
}

} // namespace ori
