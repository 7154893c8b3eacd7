// The pass pipeline: the one table of implemented phases, in ptxas order
// (DESIGN.md, "Phases, pipeline, knobs"), and the runner that applies them to
// a module. Phases not in the table are listed by `--list-phases` as not
// implemented yet. A new phase is one more PipelineEntry row in the table in
// phase_table.cpp, at its place in allPhases() order (checkPipelineOrder says so
// at start-up otherwise).
#pragma once

#include <any>
#include <array>
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
#include "ir/ir.h"
#include "ir/knobs.h"
#include "ir/phases.h"
#include "ir/profile.h"
#include "rules/general_optimize.h"
#include "rules/optimize_nested_cond_branches.h"

namespace ori {

struct PassContext {
  KnobSet knobs;
  int optLevel = 3; // ptxas's default is -O3
  const ArchInfo *arch = nullptr;
  bool switchBitTests = false; // --switch-bit-tests: SwitchOptOptions::bitTests
  bool foldEvaluate = false;   // --fold=evaluate: GeneralOptimizeOptions::evaluate (beyond ptxas)
  const BlockProfile *profile = nullptr; // --profile: block counts (SwitchOptOptions::blockCounts)
  // Which half runs the transform phases (--impl). Both runs the reference on
  // a copy too and sets `error` on the first difference.
  enum class Half { Optimized, Reference, Both } half = Half::Optimized;
  std::string error; // set by a phase that failed; the driver stops with it
  // Phase 38 calls it after each combination (oriopt --verify proves each one there).
  NestedCondObserver nestedCondObserver;
  // Phases 29, 46 and 65 call it with the marks they made (oriopt --dump-fold-marks).
  std::function<void(const Function &, std::string_view phase, const std::vector<FoldMark> &)>
      foldMarksObserver;
  // The rewrites the running phase applied so far (PhaseStats::rewrites): runPhases resets it
  // before each phase; a phase with a rewrite counter of its own adds to it for every function
  // (addRewrites), one without leaves it unset (docs/library.md, "Rewrites").
  std::optional<size_t> rewrites;
};
inline void addRewrites(PassContext &ctx, size_t n) { ctx.rewrites = ctx.rewrites.value_or(0) + n; }

// When a phase runs, as the spec gives it (docs/phases-and-knobs.md): data the
// runner reads (gateBlocks) before it calls the phase, and --list-phases prints
// (describeGate). Every condition depends on the PassContext only, never on
// the function.
struct PhaseGate {
  // The -O level sub_7DDB50 reports must be at least this (0: no level gate);
  // knob 499 (OptBudget) spent caps that level at 1 (002:851).
  int minOptLevel = 0;
  std::array<std::string_view, 2>
      vetoKnobs{}; // Bool knobs (canonical names): set = the phase does nothing
  std::array<std::string_view, 1> requiredKnobs{}; // Bool knobs: unset = the phase does nothing
  // Per-SM dispatch: the backend's slot is a no-op before sm_<minSm>, or (needsPredicateMarking)
  // on the architectures without the predicate-aware GeneralOptimize suite (sub_8F29C0 false).
  int minSm = 0;
  bool needsPredicateMarking = false;
  // A named phase gate (sub_799250): the phase does nothing when the no-phase
  // knob (ptxas's --no-phase) names it; the knob takes a comma-separated list.
  std::string_view namedPhase = {};
  std::string_view spec; // where the spec gives the gate ("003:415")
  bool gated() const {
    return minOptLevel > 0 || !vetoKnobs[0].empty() || !requiredKnobs[0].empty() || minSm > 0 ||
           needsPredicateMarking || !namedPhase.empty();
  }
};

// What one half's run of a phase on one function reports to the runner: the rewrites its own
// counters give (unset: the phase has no rewrite counter; docs/library.md, "Rewrites"), its
// counts (compared between the halves under --impl=both), and the fold marks it made (phases
// 29/37/46/65; ctx.foldMarksObserver sees them).
struct HalfOutcome {
  std::optional<size_t> rewrites;
  std::any counts;
  bool (*sameCounts)(const std::any &, const std::any &) = nullptr; // counts' operator==
  std::optional<std::vector<FoldMark>> marks;
};
// One half's entry: runs the phase on f (a definition). `observed`: this run is the one on the
// module's own function (not the reference's copy under --impl=both), so it reports to ctx's
// observers (phase 38's nestedCondObserver).
using HalfEntry = HalfOutcome (*)(Function &f, PassContext &ctx, bool observed);

// A phase as data: its number, the two halves' entries, whether it runs without --phases, and
// its gate. pipeline/phase_table.cpp holds the table; the runner (runPhase) applies the gate,
// runs the half ctx.half names (both: the reference on a copy, compared with the optimized in
// text, label ids and counts), and adds the rewrites.
struct PipelineEntry {
  int phase; // number in allPhases()
  HalfEntry reference = nullptr, optimized = nullptr;
  // Whether it runs without --phases. The transforms that change the code of
  // well-formed input (dead-code elimination, live-range splitting) run only
  // when named, so that printing, running and dumping a kernel show it as written.
  bool byDefault = true;
  // Its gate. The runner (runPhase) checks it; the entries do not check it again.
  PhaseGate gate = {};
  // Whether the phase has a rewrite counter: a module of declarations only then reports 0.
  bool counted = false;
};

// Why the gate keeps the phase from running in ctx ("-O1 is below -O2",
// "knob 214 DisableMergeEquivalentConditionalFlow is set", ...), or nothing when it runs.
std::optional<std::string> gateBlocks(const PhaseGate &gate, const PassContext &ctx);
// The gate as text: "-O2+; knob 214 DisableMergeEquivalentConditionalFlow unset; knob 487
// GeneralOptimizationEnable set; knob 499 spent caps -O at 1 (003:415)"; "" when ungated.
std::string describeGate(const PhaseGate &gate);
// `oriopt --list-phases`: every phase of allPhases(), implemented or not, default or only
// when named, and its gate when the table gives one.
std::string formatPipelinePhaseTable();

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
ModuleSize moduleSize(const Module &m);

// What a phase changed, function by function (functions matched by position):
// instructions as multisets of their printed text (a rewritten one counts as
// removed and added), blocks as multisets of label ids.
struct ModuleChanges {
  size_t instrsRemoved = 0, instrsAdded = 0, blocksRemoved = 0, blocksAdded = 0,
         functionsChanged = 0;
};
ModuleChanges diffModules(const Module &before, const Module &after);

// What one phase did to a module: sizes before and after, wall time.
struct PhaseStats {
  int phase = 0;
  ModuleSize before, after;
  double seconds = 0;
  std::string gatedBy; // gateBlocks's reason when the gate kept the phase from running, else ""
  std::optional<ModuleChanges> changes; // with RunOptions::countChanges
  // Rewrites the phase applied, from its own result structs (PassContext::rewrites); unset for
  // a phase with no rewrite counter (3 AnalyzeControlFlow, 112 PlaceBlocksInSourceOrder) or one
  // its gate stopped.
  std::optional<size_t> rewrites;
  long long instrsRemoved() const { return (long long)before.instrs - (long long)after.instrs; }
};

// Called after each phase with the module as it was before (only when
// RunOptions::keepBefore or countChanges, else nullptr; a phase its gate
// stopped passes the module itself) and as it is now; returning false stops the run.
using AfterPhase =
    std::function<bool(const PipelineEntry &e, const Module *before, const Module &after)>;
// Called before each phase (also one its gate stops) with the module as it is.
using BeforePhase = std::function<void(const PipelineEntry &e, const Module &m)>;
// Called before the phase runs on function `index` (0-based) of `count`.
using PhaseProgress = std::function<void(const PipelineEntry &e, size_t index, size_t count)>;
struct RunOptions {
  bool keepBefore = false;   // copy the module before each phase for afterPhase (--verify)
  bool countChanges = false; // fill PhaseStats::changes (copies the module before each phase)
  BeforePhase beforePhase;
  AfterPhase afterPhase;
  PhaseProgress progress;
};

// Runs one phase over every function of m, unless its gate blocks it in ctx.
void runPhase(Module &m, const PipelineEntry &e, PassContext &ctx,
              const PhaseProgress &progress = {});
// Runs the phases in the order given; stops after the first that sets
// ctx.error or whose afterPhase returns false. One PhaseStats per phase run.
std::vector<PhaseStats> runPhases(Module &m, std::span<const PipelineEntry *const> phases,
                                  PassContext &ctx, const RunOptions &opts = {});
// The phases that run when none are named (PipelineEntry::byDefault).
std::vector<const PipelineEntry *> defaultPhases();
// `--pipeline=ptxas`: every implemented phase, in ptxas's order (each under its gate).
std::vector<const PipelineEntry *> ptxasPhases();

// Unreachable-block erase (spec/003 OriBranchOpt "Transformation 2"), not a
// phase of its own: `--erase-unreachable` runs it after the phases.
void eraseUnreachablePass(Function &f, PassContext &ctx);
// `--reorder-blocks`, a testing aid: moves the blocks into `order` keeping
// behaviour with BRAs, as a layout phase (108/109 hot/cold) may leave them.
void reorderBlocksPass(Function &f, PassContext &ctx, const std::vector<uint32_t> &order);
// `--unsplit-blocks`, a testing aid: appends every unlabelled block to the
// block before it (the parser starts one after each control-flow instruction;
// no label or table can name it), leaving control flow inside blocks as
// ptxas's lowering may, for phase 6 to split again.
void unsplitBlocks(Function &f);
bool isImplemented(int phase);

// "3,6,OriBranchOpt": every item a phase number or name that is implemented.
// Returns the phases in the order given, or an error message.
std::variant<std::vector<const PipelineEntry *>, std::string> parsePhaseList(std::string_view list);

} // namespace ori
