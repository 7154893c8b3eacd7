// The ptxas phase registry. Spec references are "spec/NNN" for
// /work/shared/spec/NNN_*.txt; "NNN:L" in comments is line L of that file (cat -n numbering).
//
// Only phases the spec names *with* a number are listed. Numbers the spec mentions without a
// name (12, 21, 22, 23, 24, 41, 49, 50, 64, 83, 90, 99, 100, 101, 110) and names whose number
// is contradicted out of the table are discussed in docs/phases-and-knobs.md.
//
// minOptLevel: sub_7DDB50 is the opt-level accessor (001:21, 001:348, 002:851, 003:415,
// 003:500); spec/002 also calls it a "function count" (002:11, 002:100), which we do not follow.
#include "ir/phases.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <iterator>

#include <fmt/format.h>

namespace ori {
namespace {

constexpr std::array kPhases = {
    // 001:399-408 "Pipeline Position" lists phases 0-8 (PTX-to-Ori bridge).
    PhaseInfo{0, "OriCheckInitialProgram", "spec/001 Pipeline Position",
              "Checks the initial Ori program (PTX-to-Ori bridge).", 0},
    PhaseInfo{1, "ApplyNvOptRecipes", "spec/001 Pipeline Position",
              "Applies NvOpt recipes (PTX-to-Ori bridge).", 0},
    PhaseInfo{2, "PromoteFP16", "spec/001 Pipeline Position", "FP16 promotion (PTX-to-Ori bridge).",
              0},
    // 001:15 "gated on O1+ and knob 235"; 001:19 "O1+ gate via sub_7DDB50".
    PhaseInfo{3, "AnalyzeControlFlow", "spec/001 AnalyzeControlFlow",
              "Builds the CFG: successor edges, RPO, backedges, loop-header and in-loop flags.", 1},
    PhaseInfo{4, "AdvancedPhaseBeforeConvUnSup", "spec/001 Pipeline Position",
              "Architecture hook run before ConvertUnsupportedOps.", 0},
    PhaseInfo{5, "ConvertUnsupportedOps", "spec/001 Pipeline Position",
              "Converts operations the target does not support.", 0},
    // 000:191-193.
    PhaseInfo{6, "SetControlFlowOpLastInBB", "spec/000 Phase 6",
              "Splits blocks so that a control-flow op is always the last instruction.", 0},
    PhaseInfo{7, "AdvancedPhaseAfterConvUnSup", "spec/001 Pipeline Position",
              "Architecture hook run after ConvertUnsupportedOps.", 0},
    PhaseInfo{8, "OriCreateMacroInsts", "spec/001 Pipeline Position", "Creates macro instructions.",
              0},
    // 004:202 "after ReportInitialRepresentation at phase 9".
    PhaseInfo{9, "ReportInitialRepresentation", "spec/004 Phase 10",
              "Reports the initial IR representation.", 0},
    // 004:31, 004:200-206.
    PhaseInfo{10, "EarlyOriSimpleLiveDead", "spec/004 Phase 10",
              "Simple liveness + dead code removal on the freshly lowered IR.", 0},
    // 002:16; gate: 002:11 "All variants check sub_7DDB50(ctx) > 1" -> O2.
    PhaseInfo{13, "GeneralOptimizeEarly", "spec/002 Instance Map",
              "GeneralOptimize variant A: per-block structural-equivalence cleanup to a fixed "
              "point.",
              2},
    // 003:5-8; gate: 003:415 "The guard is opt_level > 1, so these phases execute at -O2".
    PhaseInfo{14, "DoSwitchOptFirst", "spec/003 DoSwitchOpt",
              "Switch optimization, first pass (SM-backend vtable slot 17 dispatch).", 2},
    PhaseInfo{15, "OriBranchOpt", "spec/003 OriBranchOpt",
              "Branch simplification: folding, unreachable blocks, constant conditions, "
              "threading.",
              2},
    // 004:32, 003:21.
    PhaseInfo{16, "OriPerformLiveDeadFirst", "spec/004 OriPerformLiveDead",
              "Global liveness + DCE after branch and switch optimization.", 0},
    // 004:249 "OriLoopSimplification (phase 18)"; 003:3 "loop canonicalization (phase 18)".
    // 001:409 says OriLoopMakeSingleEntry instead (see docs).
    PhaseInfo{18, "OriLoopSimplification", "spec/004 Phase 19",
              "Loop canonicalization (runs before OriSplitLiveRanges).", 0},
    // 004:33, 004:247-253.
    PhaseInfo{19, "OriSplitLiveRanges", "spec/004 Phase 19",
              "Splits live ranges at loop boundaries and phi/copy chains to cut register "
              "pressure.",
              0},
    // 002:680 and 002:913 say phase 26; 003:38 says strength reduction is phase 21.
    PhaseInfo{26, "StrengthReduction", "spec/002 Algebraic Pattern Location Map",
              "Standalone strength reduction (x*2 -> x<<1, x/1 -> x).", 0},
    // 003:393.
    PhaseInfo{27, "AnalyzeUniformsForSpeculation", "spec/003 Uniform Branches",
              "Detects uniform branches.", 0},
    // 002:17; gate: 002:859 "Checks count > 1" (sub_7DDB50) -> O2.
    PhaseInfo{29, "GeneralOptimize", "spec/002 Instance Map",
              "GeneralOptimize: forward copy propagation with operand flag marking.", 2},
    PhaseInfo{30, "DoSwitchOptSecond", "spec/003 DoSwitchOpt",
              "Switch optimization, second pass (generic sub_77CF40).", 2},
    // 003:25, 003:454-455.
    PhaseInfo{31, "OriLinearReplacement", "spec/003 Pipeline Placement",
              "Replaces branch-heavy patterns with branchless SEL / predicated MOV.", 0},
    PhaseInfo{33, "OriPerformLiveDeadSecond", "spec/004 OriPerformLiveDead",
              "Global liveness + DCE after loop transforms and GeneralOptimize.", 0},
    // 002:18; gate: 002:860 "Checks count > 1" -> O2.
    PhaseInfo{37, "GeneralOptimizeMid", "spec/002 Instance Map",
              "Heavy cleanup with cost-driven convergence and memory-to-register promotion.", 2},
    PhaseInfo{38, "OptimizeNestedCondBranches", "spec/003 OptimizeNestedCondBranches",
              "Flattens nested conditional branches by combining predicates with LOP3.", 2},
    // 002:19; 002:89-96 show no opt-level check, only the no-op-sentinel test (see docs).
    PhaseInfo{46, "GeneralOptimizeMid2", "spec/002 Instance Map",
              "Architecture-dependent cleanup through the backend vtable (may be a no-op).", 0},
    // 001:413; 003:393 "OriPropagateVarying passes (phases 53, 70)".
    PhaseInfo{53, "OriPropagateVaryingFirst", "spec/001 Pipeline Position",
              "Divergence (varying) propagation, first run.", 0},
    // 002:20; gate: 002:75-76 "function count > 2 via sub_7DDB50" -> O3.
    PhaseInfo{58, "GeneralOptimizeLate", "spec/002 Instance Map",
              "Single-pass MOV pattern cleanup with a 6-slot circular buffer.", 3},
    // 001:414; 002:837 "Phase 59-64: Loop fusion, predication, late commoning".
    PhaseInfo{59, "OriLoopFusion", "spec/001 Pipeline Position", "Loop fusion.", 0},
    PhaseInfo{61, "OriPerformLiveDeadThird", "spec/004 OriPerformLiveDead",
              "Global liveness + DCE after loop fusion and late expansion.", 0},
    // 001:415, 003:30.
    PhaseInfo{63, "OriDoPredication", "spec/003 Relationship to Predication",
              "If-conversion of short branches into predicated code.", 0},
    // 002:21; gate: 002:100-101 "if ((int)result > 1)" on sub_7DDB50 -> O2.
    PhaseInfo{65, "GeneralOptimizeLate2", "spec/002 Instance Map",
              "Architecture-dependent final cleanup before register work.", 2},
    // 001:416.
    PhaseInfo{66, "OriHoistInvariantsLate", "spec/001 Pipeline Position",
              "Late loop-invariant code motion.", 0},
    // 001:417.
    PhaseInfo{70, "OriPropagateVaryingSecond", "spec/001 Pipeline Position",
              "Divergence (varying) propagation, second run.", 0},
    // 001:302 "internal control-flow markers that survive until phase 73 (ConvertAllMovPhiToMov)".
    PhaseInfo{73, "ConvertAllMovPhiToMov", "spec/001 QUIRK opcodes 93 and 95",
              "Converts MovPhi pseudo-moves into plain moves.", 0},
    // 001:418.
    PhaseInfo{74, "ConvertToUniformReg", "spec/001 Pipeline Position",
              "Promotes values to uniform registers.", 0},
    // 003:32, 003:448-453.
    PhaseInfo{80, "ExpandJmxComputation", "spec/003 Interaction with ExpandJmxComputation",
              "Expands the jump-table index pseudo-instruction into LEA + BRX.", 0},
    PhaseInfo{84, "OriPerformLiveDeadFourth", "spec/004 OriPerformLiveDead",
              "Global liveness + DCE after backward copy propagation (legalization).", 0},
    // 001:420.
    PhaseInfo{96, "ReportBeforeScheduling", "spec/001 Pipeline Position",
              "Reports loop-aware metrics before scheduling.", 0},
    // 000:286-290 "Hot/Cold Block Layout".
    PhaseInfo{108, "OptimizeHotColdInLoop", "spec/000 Hot/Cold Block Layout",
              "Moves cold blocks out of loop bodies.", 0},
    PhaseInfo{109, "OptimizeHotColdFlow", "spec/000 Hot/Cold Block Layout",
              "Global hot/cold block separation.", 0},
    // 000:14, 000:282-283, 000:343 say 112; 001:423 says 119 (see docs).
    PhaseInfo{112, "PlaceBlocksInSourceOrder", "spec/000 Block Layout",
              "Reorders the block array back to source order after register allocation.", 0},
    // 003:34-35, 003:456-457.
    PhaseInfo{133, "MergeEquivalentConditionalFlow",
              "spec/003 Interaction with MergeEquivalentConditionalFlow",
              "Tail merging of blocks with identical code and targets.", 0},
    PhaseInfo{136, "LateMergeEquivalentConditionalFlow",
              "spec/003 Interaction with MergeEquivalentConditionalFlow",
              "Late tail merging of blocks with identical code and targets.", 0},
    // 004:38, 004:355-357.
    PhaseInfo{138, "OriSplitHighPressureLiveRanges", "spec/004 Relationship to Phase 138",
              "Late, aggressive splitting of live ranges under high register pressure.", 0},
};

constexpr bool strictlyIncreasing() {
  for (size_t i = 1; i < kPhases.size(); ++i)
    if (kPhases[i - 1].number >= kPhases[i].number)
      return false;
  return true;
}
static_assert(strictlyIncreasing(), "kPhases must be in strictly increasing number order");

} // namespace

std::span<const PhaseInfo> allPhases() { return kPhases; }

const PhaseInfo *findPhase(std::string_view numberOrName) {
  if (numberOrName.empty())
    return nullptr;
  const bool allDigits = std::all_of(numberOrName.begin(), numberOrName.end(),
                                     [](char c) { return c >= '0' && c <= '9'; });
  if (allDigits) {
    int number = 0;
    const char *end = numberOrName.data() + numberOrName.size();
    auto [ptr, ec] = std::from_chars(numberOrName.data(), end, number);
    if (ec != std::errc() || ptr != end)
      return nullptr; // e.g. out of int range
    for (const PhaseInfo &p : kPhases)
      if (p.number == number)
        return &p;
    return nullptr;
  }
  for (const PhaseInfo &p : kPhases)
    if (p.name == numberOrName)
      return &p;
  return nullptr;
}

std::string formatPhaseTable(const std::function<bool(int)> &isImplemented) {
  size_t nameWidth = 0;
  for (const PhaseInfo &p : kPhases)
    nameWidth = std::max(nameWidth, p.name.size());
  std::string out;
  for (const PhaseInfo &p : kPhases) {
    const bool implemented = isImplemented && isImplemented(p.number);
    fmt::format_to(std::back_inserter(out), "{:>3} {:<{}}  {:<19}  {}\n", p.number, p.name,
                   nameWidth, implemented ? "implemented" : "not implemented yet", p.spec);
  }
  return out;
}

} // namespace ori
