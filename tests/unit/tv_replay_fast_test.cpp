// Refutations in seconds, with a replay (issue 42): examples/maxabs.ori with one negation
// dropped (the |b| branch's IADD3 R7, -R7 becomes IADD3 R7, R7). Before the replay query
// compared the buffers byte by byte (verify/tv_replay.cpp), it took 2 min 5 s and ended "no
// replay: no counterexample fits the interpreter's launch" (the query with a symbolic
// differing address timed out each time); now well under a second.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "ir/ori.h"
#include "verify/tv.h"

namespace {

using ori::verify::TvResult;

TEST(TvReplayFast, MaxabsWithANegationDroppedIsRefutedWithAReplay) {
  std::ifstream in(std::string(ORIOPT_SOURCE_DIR) + "/examples/maxabs.ori");
  ASSERT_TRUE(in) << "examples/maxabs.ori";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string src = ss.str();
  std::string tgt = src;
  const std::string neg = "IADD3 R7, -R7, RZ, RZ";
  ASSERT_NE(tgt.find(neg), std::string::npos);
  tgt.replace(tgt.find(neg), neg.size(), "IADD3 R7, R7, RZ, RZ");
  ori::ParseResult ps = ori::parseOri(src, "maxabs.ori"), pt = ori::parseOri(tgt, "bug.ori");
  ASSERT_FALSE(ps.error);
  ASSERT_FALSE(pt.error);
  ori::verify::TvOptions o;
  o.timeoutSeconds = 10;
  o.budgetSeconds = 20; // bounded: a regression is a failure, not a two-minute run
  TvResult r = ori::verify::validateFunction(*ps.module, *pt.module, "maxabs", o);
  ASSERT_EQ(r.verdict, TvResult::Verdict::Refuted) << r.line();
  ASSERT_TRUE(r.replay) << r.line();
  // The replay tells the two apart in the interpreter: out[0] = max(|a|, |b|) for b < 0.
  ori::RunResult a = ori::runKernel(*ps.module, *r.replay),
                 b = ori::runKernel(*pt.module, *r.replay);
  EXPECT_EQ(a.kind, ori::RunResult::Kind::Ok) << a.message;
  EXPECT_TRUE(a.kind != b.kind || a.buffers != b.buffers) << r.line();
  std::printf("maxabs, one negation dropped: refuted in %.2f s\n", r.seconds);
}

} // namespace
