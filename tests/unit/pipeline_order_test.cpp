// The phase table's ordering constraints (pipeline/pipeline.h checkPipelineOrder) and the
// library entry points of pipeline/oriopt.h.
#include <gtest/gtest.h>

#include "pipeline/oriopt.h"

namespace ori {
namespace {

void noop(Function&, PassContext&) {}

TEST(PipelineOrder, TheTableKeepsPtxasOrder) {
  EXPECT_EQ(checkPipelineOrder(pipeline()), std::nullopt);
  EXPECT_FALSE(pipeline().empty());
}

TEST(PipelineOrder, MisorderedTableIsReported) {
  const PipelineEntry table[] = {{3, noop}, {16, noop, false}, {14, noop, false}, {112, noop}};
  std::optional<std::string> problem = checkPipelineOrder(table);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("entry 2: phase 14 DoSwitchOptFirst comes after phase 16 OriPerformLiveDeadFirst"),
            std::string::npos)
      << *problem;
}

TEST(PipelineOrder, RepeatedUnknownAndEmptyEntriesAreReported) {
  const PipelineEntry repeated[] = {{3, noop}, {3, noop}};
  ASSERT_TRUE(checkPipelineOrder(repeated).has_value());
  EXPECT_NE(checkPipelineOrder(repeated)->find("entry 1: phase 3"), std::string::npos);
  const PipelineEntry unknown[] = {{3, noop}, {1000, noop}};
  ASSERT_TRUE(checkPipelineOrder(unknown).has_value());
  EXPECT_NE(checkPipelineOrder(unknown)->find("phase 1000 is not in the phase registry"), std::string::npos);
  const PipelineEntry empty[] = {{3, nullptr}};
  ASSERT_TRUE(checkPipelineOrder(empty).has_value());
  EXPECT_NE(checkPipelineOrder(empty)->find("runs nothing"), std::string::npos);
}

// A dead IADD3 (its result is never read) is what phase 16 removes; the library reports it.
TEST(PipelineLibrary, ParseRunPhaseAndReadFacts) {
  const char* text = R"(.entry k()
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

  EXPECT_NE(runPhases(*p.module, "OriLoopFusion", ctx).error.find("not implemented"), std::string::npos);
  ParseResult bad = parseModule(".version 8.0\n.target sm_90\n.entry k( {", "bad.ptx");
  ASSERT_TRUE(bad.error.has_value());
  EXPECT_EQ(bad.error->file, "bad.ptx");
  EXPECT_TRUE(parseModuleFile("/nonexistent/k.ptx").error.has_value());
}

} // namespace
} // namespace ori
