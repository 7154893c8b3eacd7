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
#include "ir/facts.h"
#include "ir/ir.h"
#include "ir/knobs.h"
#include "ir/phases.h"
#include "ir/profile.h"

namespace ori {

struct PassContext {
  KnobSet knobs;
  int optLevel = 3; // ptxas's default is -O3
  const ArchInfo* arch = nullptr;
  bool switchBitTests = false; // --switch-bit-tests: SwitchOptOptions::bitTests
  const BlockProfile* profile = nullptr; // --profile: block counts (SwitchOptOptions::blockCounts)
  // Which half runs the transform phases (--impl). Both runs the reference on
  // a copy too and sets `error` on the first difference.
  enum class Half { Optimized, Reference, Both } half = Half::Optimized;
  std::string error; // set by a phase that failed; the driver stops with it
  // Phase 38 calls it after each combination (oriopt --verify proves each one there).
  NestedCondObserver nestedCondObserver;
};

struct PipelineEntry {
  int phase; // number in allPhases()
  void (*run)(Function& f, PassContext& ctx);
  // Whether it runs without --phases. The transforms that change the code of
  // well-formed input (dead-code elimination, live-range splitting) run only
  // when named, so that printing, running and dumping a kernel show it as written.
  bool byDefault = true;
};

std::span<const PipelineEntry> pipeline();

// Unreachable-block erase (spec/003 OriBranchOpt "Transformation 2"), not a
// phase of its own: `--erase-unreachable` runs it after the phases.
void eraseUnreachablePass(Function& f, PassContext& ctx);
// `--reorder-blocks`, a testing aid: moves the blocks into `order` keeping
// behaviour with BRAs, as a layout phase (108/109 hot/cold) may leave them.
void reorderBlocksPass(Function& f, PassContext& ctx, const std::vector<uint32_t>& order);
bool isImplemented(int phase);

// "3,6,OriBranchOpt": every item a phase number or name that is implemented.
// Returns the phases in the order given, or an error message.
std::variant<std::vector<const PipelineEntry*>, std::string> parsePhaseList(std::string_view list);

} // namespace ori
