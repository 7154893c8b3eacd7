#include "rules/analyze_control_flow.h"

namespace ori {

Phase3Outcome analyzeControlFlowGate(int optLevel, bool knob235, const AnnotationFacts *previous) {
  // sub_C60870 tests `ptx_opt_level(ctx) != 1`; the prose says O1+, which we
  // follow (docs/phases-and-knobs.md, docs/spec-notes.md).
  if (optLevel < 1)
    return Phase3Outcome::SkippedBelowO1;
  if (knob235)
    return Phase3Outcome::VetoedByKnob235; // inverted polarity: set = skip
  if (previous && previous->reentrancyGuard)
    return Phase3Outcome::SkippedReentrant;
  return Phase3Outcome::Ran;
}

std::string_view describe(Phase3Outcome outcome) {
  switch (outcome) {
  case Phase3Outcome::Ran:
    return "ran";
  case Phase3Outcome::SkippedBelowO1:
    return "skipped below -O1";
  case Phase3Outcome::VetoedByKnob235:
    return "vetoed by knob 235 (DisableAnalyzeControlFlow)";
  case Phase3Outcome::SkippedReentrant:
    return "skipped: re-entrancy guard set";
  }
  return "?";
}

} // namespace ori
