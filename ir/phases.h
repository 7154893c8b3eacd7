// The ptxas phase registry: every phase the spec pages name with a number.
//
// The table is data extracted from /work/shared/spec/*.txt (see docs/phases-and-knobs.md for
// the sources of every row and the contradictions between spec pages). It is the pipeline
// order: a driver runs the phases it implements in allPhases() order.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace ori {

struct PhaseInfo {
  int number;               // ptxas phase number (0..158 in the 159-phase pipeline)
  std::string_view name;    // ptxas phase name, e.g. "OptimizeNestedCondBranches"
  std::string_view spec;    // spec file (short form) and section, e.g. "spec/003 DoSwitchOpt"
  std::string_view summary; // one line
  int minOptLevel;          // the -O level from which the phase runs; 0 if always/unspecified
};

// Every phase, in strictly increasing number order.
std::span<const PhaseInfo> allPhases();

// "38" (decimal number) or "OptimizeNestedCondBranches" (exact, case-sensitive name).
// Returns nullptr if no phase matches.
const PhaseInfo *findPhase(std::string_view numberOrName);

// One line per phase: number right-aligned in 3 columns, name, "implemented" or
// "not implemented yet", spec reference. Backs `oriopt --list-phases`.
std::string formatPhaseTable(const std::function<bool(int)> &isImplemented);

} // namespace ori
