// The pass pipeline: the one table of implemented phases, in ptxas order
// (DESIGN.md, "Phases, pipeline, knobs"). Phases not in the table are listed
// by `--list-phases` as not implemented yet.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ir/arch.h"
#include "ir/ir.h"
#include "ir/knobs.h"
#include "ir/phases.h"

namespace ori {

struct PassContext {
  KnobSet knobs;
  int optLevel = 3; // ptxas's default is -O3
  const ArchInfo* arch = nullptr;
};

struct PipelineEntry {
  int phase; // number in allPhases()
  void (*run)(Function& f, PassContext& ctx);
};

std::span<const PipelineEntry> pipeline();
bool isImplemented(int phase);

// "3,6,OriBranchOpt": every item a phase number or name that is implemented.
// Returns the phases in the order given, or an error message.
std::variant<std::vector<const PipelineEntry*>, std::string> parsePhaseList(std::string_view list);

} // namespace ori
