// verify::unknownCategory (verify/tv_category.h) on the reasons the validator and the switch
// and phase 38 checks give (copied from their messages in verify/tv*.cpp, with the values a run
// fills in), and the closing line oriopt --verify prints from them (pipeline/verdicts.h).
#include <gtest/gtest.h>

#include "pipeline/verdicts.h"
#include "verify/tv_category.h"

namespace {

using ori::verify::unknownCategory;

TEST(TvCategory, EachReasonHasItsCategory) {
  EXPECT_EQ(unknownCategory("deadline: the module's deadline passed before this function"),
            "deadline");
  EXPECT_EQ(unknownCategory("deadline: the module's deadline passed; timeout or Z3 gave up: "
                            "canceled"),
            "deadline");
  EXPECT_EQ(unknownCategory("budget: the function's 12 s were spent; timeout or Z3 gave up: "
                            "timeout; timeout in the inductive proof: timeout"),
            "budget");
  EXPECT_EQ(unknownCategory("timeout or Z3 gave up: timeout; timeout in the inductive proof: "
                            "timeout"),
            "timeout");
  EXPECT_EQ(unknownCategory("timeout deciding the unroll bound: timeout"), "timeout");
  // The first clause decides: the induction's failure after it is only the history.
  EXPECT_EQ(unknownCategory("unroll bound: some input takes more than 4 back edges, and the "
                            "inductive proof ran out of the 30 s it had"),
            "unroll bound");
  EXPECT_EQ(unknownCategory("source: unmodelled SUST at line 520 (surface and texture memory "
                            "are not modelled)"),
            "unmodelled");
  EXPECT_EQ(unknownCategory("target: unmodelled OPAQUE at line 12 (its meaning is unknown)"),
            "unmodelled");
  EXPECT_EQ(unknownCategory("source: the unrolled function exceeds 200000 instructions"), "size");
  EXPECT_EQ(unknownCategory("a difference that may come from the call to g at line 9 (beyond "
                            "the inline depth), an uninterpreted effect"),
            "calls");
  EXPECT_EQ(unknownCategory("a difference that may come from the indirect call at line 4, an "
                            "uninterpreted effect"),
            "calls");
  EXPECT_EQ(unknownCategory("a difference that may come from MMA at line 7 (a warp-level matrix "
                            "instruction), an uninterpreted effect"),
            "uninterpreted");
  EXPECT_EQ(unknownCategory("new function in the target"), "new function");
  EXPECT_EQ(unknownCategory("not in the source"), "new function");
  EXPECT_EQ(unknownCategory("the outer block is missing"), "other");
  EXPECT_EQ(unknownCategory(""), "other");
}

// The closing line counts what the records say: the interpreter's difference is a refutation,
// unknown categories most first.
TEST(TvCategory, ClosingLineCountsTheVerdicts) {
  using ori::VerdictRecord;
  using V = ori::verify::TvResult::Verdict;
  ori::VerdictLog log;
  EXPECT_EQ(log.closingLine(0), "verify: 0 proved, 0 unknown, 0 refuted in 0.0 s");
  auto add = [&](V v, std::string reason, bool interpreterDiffers = false) {
    VerdictRecord r;
    r.verdict = v;
    r.reason = std::move(reason);
    r.interpreterDiffers = interpreterDiffers;
    log.add(r);
  };
  add(V::Proved, "");
  add(V::Proved, "unchanged");
  add(V::Unknown, "timeout or Z3 gave up: timeout");
  add(V::Unknown, "source: unmodelled VOTE at line 3 (warp-level values are not modelled)");
  add(V::Unknown, "target: unmodelled VOTE at line 3 (warp-level values are not modelled)");
  add(V::Unknown, "timeout or Z3 gave up: timeout", /*interpreterDiffers=*/true);
  add(V::Refuted, "the target faults where the source does not: LDG at line 5");
  EXPECT_EQ(log.closingLine(12.34),
            "verify: 2 proved, 3 unknown (unmodelled 2, timeout 1), 2 refuted in 12.3 s");
  EXPECT_EQ(ori::strictExitStatus(log), 4);
  ori::VerdictLog unknownOnly;
  unknownOnly.add(log.records()[2]);
  EXPECT_EQ(ori::strictExitStatus(unknownOnly), 3);
  ori::VerdictLog provedOnly;
  provedOnly.add(log.records()[0]);
  EXPECT_EQ(ori::strictExitStatus(provedOnly), 0);
}

} // namespace
