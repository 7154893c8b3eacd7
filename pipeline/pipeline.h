// The pass pipeline: the one table of implemented phases, in ptxas order
// (DESIGN.md, "Phases, pipeline, knobs"), and the runner that applies them to
// a module. Phases not in the table are listed by `--list-phases` as not
// implemented yet. A new phase is one more PipelineEntry line in the table in
// pipeline.cpp, at its place in allPhases() order (checkPipelineOrder says so
// at start-up otherwise).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ir/arch.h"
#include "ir/facts.h"
#include "ir/general_optimize.h"
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
  // Phases 29, 46 and 65 call it with the marks they made (oriopt --dump-fold-marks).
  std::function<void(const Function&, std::string_view phase, const std::vector<FoldMark>&)> foldMarksObserver;
};

struct PipelineEntry {
  int phase; // number in allPhases()
  void (*run)(Function& f, PassContext& ctx);
  // Whether it runs without --phases. The transforms that change the code of
  // well-formed input (dead-code elimination, live-range splitting) run only
  // when named, so that printing, running and dumping a kernel show it as written.
  bool byDefault = true;
};

// The table, checked by checkPipelineOrder the first time it is asked for (a
// mis-ordered table is an internal error: the message goes to standard error
// and the program aborts).
std::span<const PipelineEntry> pipeline();

// The ordering constraints of a phase table, as Go's SSA pass list checks its
// own: every entry runs something, its phase is one of allPhases(), and the
// entries appear in allPhases() order, each phase once. Returns a message
// naming the first entry that breaks one, or nothing.
std::optional<std::string> checkPipelineOrder(std::span<const PipelineEntry> table);

// The size of a module, for PhaseStats.
struct ModuleSize {
  size_t instrs = 0, blocks = 0;
};
ModuleSize moduleSize(const Module& m);

// What one phase did to a module: sizes before and after, wall time.
struct PhaseStats {
  int phase = 0;
  ModuleSize before, after;
  double seconds = 0;
  long long instrsRemoved() const { return (long long)before.instrs - (long long)after.instrs; }
};

// Called after each phase with the module as it was before (only when
// RunOptions::keepBefore, else nullptr) and as it is now; returning false stops the run.
using AfterPhase = std::function<bool(const PipelineEntry& e, const Module* before, const Module& after)>;
struct RunOptions {
  bool keepBefore = false; // copy the module before each phase for afterPhase (--verify)
  AfterPhase afterPhase;
};

// Runs one phase over every function of m.
void runPhase(Module& m, const PipelineEntry& e, PassContext& ctx);
// Runs the phases in the order given; stops after the first that sets
// ctx.error or whose afterPhase returns false. One PhaseStats per phase run.
std::vector<PhaseStats> runPhases(Module& m, std::span<const PipelineEntry* const> phases, PassContext& ctx,
                                  const RunOptions& opts = {});
// The phases that run when none are named (PipelineEntry::byDefault).
std::vector<const PipelineEntry*> defaultPhases();

// Unreachable-block erase (spec/003 OriBranchOpt "Transformation 2"), not a
// phase of its own: `--erase-unreachable` runs it after the phases.
void eraseUnreachablePass(Function& f, PassContext& ctx);
// `--reorder-blocks`, a testing aid: moves the blocks into `order` keeping
// behaviour with BRAs, as a layout phase (108/109 hot/cold) may leave them.
void reorderBlocksPass(Function& f, PassContext& ctx, const std::vector<uint32_t>& order);
// `--unsplit-blocks`, a testing aid: appends every unlabelled block to the
// block before it (the parser starts one after each control-flow instruction;
// no label or table can name it), leaving control flow inside blocks as
// ptxas's lowering may, for phase 6 to split again.
void unsplitBlocks(Function& f);
bool isImplemented(int phase);

// "3,6,OriBranchOpt": every item a phase number or name that is implemented.
// Returns the phases in the order given, or an error message.
std::variant<std::vector<const PipelineEntry*>, std::string> parsePhaseList(std::string_view list);

} // namespace ori
