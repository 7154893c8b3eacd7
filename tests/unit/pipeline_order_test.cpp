// The phase table's ordering constraints (pipeline/pipeline.h checkPipelineOrder) and the
// library entry points of pipeline/oriopt.h.
#include <gtest/gtest.h>

#include "pipeline/oriopt.h"

namespace ori {
namespace {

HalfOutcome noop(Function &, PassContext &, bool) { return {}; }

TEST(PipelineOrder, TheTableKeepsPtxasOrder) {
  EXPECT_EQ(checkPipelineOrder(pipeline()), std::nullopt);
  EXPECT_FALSE(pipeline().empty());
}

TEST(PipelineOrder, MisorderedTableIsReported) {
  const PipelineEntry table[] = {
      {3, noop, noop}, {16, noop, noop, false}, {14, noop, noop, false}, {112, noop, noop}};
  std::optional<std::string> problem = checkPipelineOrder(table);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find(
                "entry 2: phase 14 DoSwitchOptFirst comes after phase 16 OriPerformLiveDeadFirst"),
            std::string::npos)
      << *problem;
}

TEST(PipelineOrder, RepeatedUnknownAndEmptyEntriesAreReported) {
  const PipelineEntry repeated[] = {{3, noop, noop}, {3, noop, noop}};
  ASSERT_TRUE(checkPipelineOrder(repeated).has_value());
  EXPECT_NE(checkPipelineOrder(repeated)->find("entry 1: phase 3"), std::string::npos);
  const PipelineEntry unknown[] = {{3, noop, noop}, {1000, noop, noop}};
  ASSERT_TRUE(checkPipelineOrder(unknown).has_value());
  EXPECT_NE(checkPipelineOrder(unknown)->find("phase 1000 is not in the phase registry"),
            std::string::npos);
  const PipelineEntry empty[] = {{3, nullptr}};
  ASSERT_TRUE(checkPipelineOrder(empty).has_value());
  EXPECT_NE(checkPipelineOrder(empty)->find("runs nothing"), std::string::npos);
}

// A dead IADD3 (its result is never read) is what phase 16 removes; the library reports it.
TEST(PipelineLibrary, ParseRunPhaseAndReadFacts) {
  const char *text = R"(.entry k()
{
  S2R R0, SR_TID.X
  IADD3 R1, R0, 0x1, RZ
  EXIT
}
)";
  ParseResult p = parseModule(text, "k.ori");
  ASSERT_FALSE(p.error) << p.error->str();
  PassContext ctx;
  PhaseRunResult r = runPhases(*p.module, "OriPerformLiveDeadFirst", ctx);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.stats.size(), 1u);
  EXPECT_EQ(r.stats[0].phase, 16);
  EXPECT_EQ(r.stats[0].before.instrs, 3u);
  EXPECT_EQ(r.stats[0].instrsRemoved(), 2);
  auto facts = computeFacts(p.module->functions[0], Impl::Both);
  ASSERT_TRUE(std::holds_alternative<AllFacts>(facts)) << std::get<std::string>(facts);
  EXPECT_EQ(std::get<AllFacts>(facts).cfg.rpo.size(), p.module->functions[0].blocks.size());

  EXPECT_NE(runPhases(*p.module, "OriLoopFusion", ctx).error.find("not implemented"),
            std::string::npos);
  ParseResult bad = parseModule(".version 8.0\n.target sm_90\n.entry k( {", "bad.ptx");
  ASSERT_TRUE(bad.error.has_value());
  EXPECT_EQ(bad.error->file, "bad.ptx");
  EXPECT_TRUE(parseModuleFile("/nonexistent/k.ptx").error.has_value());
}

// The table's gates agree with the registry's minimum -O level (ir/phases.cpp, from the spec),
// and a gate is data: the runner applies it, with a reason for every condition.
TEST(PipelineGates, MinOptLevelMatchesTheRegistry) {
  for (const PipelineEntry &e : pipeline()) {
    const PhaseInfo *info = findPhase(std::to_string(e.phase));
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(e.gate.minOptLevel, info->minOptLevel) << "phase " << e.phase << " " << info->name;
  }
}

TEST(PipelineGates, EveryConditionStopsWithAReason) {
  const PhaseGate g{.minOptLevel = 2,
                    .vetoKnobs = {"DisableMergeEquivalentConditionalFlow"},
                    .requiredKnobs = {"GeneralOptimizationEnable"},
                    .minSm = 60,
                    .spec = "003:415"};
  PassContext ctx;
  ctx.arch = findArch("sm_90");
  EXPECT_EQ(gateBlocks(g, ctx), std::nullopt);
  ctx.optLevel = 1;
  EXPECT_EQ(gateBlocks(g, ctx), "-O1 is below -O2");
  ctx.optLevel = 3;
  ASSERT_FALSE(ctx.knobs.set("OptBudget", "0"));
  EXPECT_EQ(gateBlocks(g, ctx), "knob 499 OptBudget spent caps -O3 at -O1, below -O2");
  ASSERT_FALSE(ctx.knobs.set("OptBudget", "-1"));
  ASSERT_FALSE(ctx.knobs.set("214", "true"));
  EXPECT_EQ(gateBlocks(g, ctx), "knob 214 DisableMergeEquivalentConditionalFlow is set");
  ASSERT_FALSE(ctx.knobs.set("214", "false"));
  ASSERT_FALSE(ctx.knobs.set("487", "false"));
  EXPECT_EQ(gateBlocks(g, ctx), "knob 487 GeneralOptimizationEnable is unset");
  ASSERT_FALSE(ctx.knobs.set("487", "true"));
  ctx.arch = findArch("sm_50");
  ASSERT_NE(ctx.arch, nullptr);
  EXPECT_NE(gateBlocks(g, ctx).value_or("").find("sm_50 is before sm_60"), std::string::npos);
  EXPECT_EQ(describeGate(g), "-O2+; knob 214 DisableMergeEquivalentConditionalFlow unset; knob 487 "
                             "GeneralOptimizationEnable set; sm_60+ (003:415)");
  EXPECT_EQ(describeGate(PhaseGate{}), "");
  EXPECT_FALSE(PhaseGate{}.gated());
}

// The named gate (sub_799250, ptxas's --no-phase): a comma-separated list, names matched whole.
TEST(PipelineGates, NamedPhaseGateMatchesWholeNames) {
  const PhaseGate g{.namedPhase = "ConvertMemoryToRegisterOrUniform", .spec = ""};
  EXPECT_TRUE(g.gated());
  PassContext ctx;
  EXPECT_EQ(gateBlocks(g, ctx), std::nullopt);
  ASSERT_FALSE(ctx.knobs.set("no-phase", "ConvertMemoryToRegister"));
  EXPECT_EQ(gateBlocks(g, ctx), std::nullopt);
  ASSERT_FALSE(ctx.knobs.set("no-phase", "OriPerformLiveDead,ConvertMemoryToRegisterOrUniform"));
  EXPECT_EQ(gateBlocks(g, ctx), "no-phase names ConvertMemoryToRegisterOrUniform");
  EXPECT_EQ(describeGate(g), "no-phase does not name ConvertMemoryToRegisterOrUniform");
}

// A gated phase does not run, and says so in its PhaseStats; --stats' counts come from diffModules.
TEST(PipelineGates, RunnerSkipsAGatedPhaseAndCountsChanges) {
  const char *text = R"(.entry k()
{
  S2R R0, SR_TID.X
  ISETP.EQ.U32.AND P0, PT, R0, RZ, PT
A:
  @P0 BRA B
B:
  EXIT
}
)";
  for (int level : {1, 2}) {
    ParseResult p = parseModule(text, "k.ori");
    ASSERT_FALSE(p.error);
    PassContext ctx;
    ctx.optLevel = level;
    auto phases = std::get<0>(parsePhaseList("15,16"));
    RunOptions opts;
    opts.countChanges = true;
    int progressCalls = 0;
    opts.progress = [&](const PipelineEntry &, size_t i, size_t n) {
      EXPECT_LT(i, n);
      ++progressCalls;
    };
    std::vector<PhaseStats> st = runPhases(*p.module, phases, ctx, opts);
    ASSERT_EQ(st.size(), 2u);
    ASSERT_TRUE(st[0].changes && st[1].changes);
    if (level == 1) {
      EXPECT_EQ(st[0].gatedBy, "-O1 is below -O2");
      EXPECT_EQ(st[0].changes->functionsChanged, 0u);
      EXPECT_EQ(st[1].changes->instrsRemoved, 0u); // the BRA keeps P0 and R0 live
      EXPECT_EQ(progressCalls, 1);
    } else {
      EXPECT_EQ(st[0].gatedBy, "");
      EXPECT_EQ(st[0].changes->instrsRemoved, 1u); // the BRA to the next block
      EXPECT_EQ(st[1].changes->instrsRemoved, 2u); // ISETP and S2R, now dead
      EXPECT_EQ(st[1].changes->blocksRemoved, 1u); // and the entry block they leave empty
      EXPECT_EQ(st[1].changes->instrsAdded, 0u);
      EXPECT_EQ(st[1].changes->functionsChanged, 1u);
      EXPECT_EQ(progressCalls, 2);
    }
  }
  EXPECT_EQ(ptxasPhases().size(), pipeline().size());
}

} // namespace
} // namespace ori
