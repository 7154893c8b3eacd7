// Tests of the phase registry (ir/phases) and the knob registry (ir/knobs).
// Expected values are literals from /work/shared/spec/*.txt; "NNN:L" cites line L of
// spec/NNN_*.txt (cat -n numbering).
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ir/knobs.h"
#include "ir/phases.h"

namespace ori {
namespace {

// ---------------------------------------------------------------- phases

TEST(PhaseRegistry, StrictlyIncreasingNumbersWithinThePipeline) {
  auto phases = allPhases();
  ASSERT_FALSE(phases.empty());
  for (size_t i = 1; i < phases.size(); ++i)
    EXPECT_LT(phases[i - 1].number, phases[i].number) << "at " << phases[i].name;
  // 000:140 "phase 3 in the 159-phase optimizer pipeline": numbers are 0..158.
  EXPECT_GE(phases.front().number, 0);
  EXPECT_LE(phases.back().number, 158);
}

TEST(PhaseRegistry, NamesAreUniqueAndEntriesComplete) {
  std::set<std::string_view> names;
  for (const PhaseInfo &p : allPhases()) {
    EXPECT_TRUE(names.insert(p.name).second) << "duplicate name " << p.name;
    EXPECT_FALSE(p.name.empty());
    EXPECT_FALSE(p.summary.empty()) << p.name;
    EXPECT_EQ(p.spec.substr(0, 5), "spec/") << p.name;
    EXPECT_GE(p.minOptLevel, 0) << p.name;
    EXPECT_LE(p.minOptLevel, 4) << p.name;
  }
}

TEST(PhaseRegistry, FindRoundTripsByNumberAndName) {
  for (const PhaseInfo &p : allPhases()) {
    EXPECT_EQ(findPhase(std::to_string(p.number)), &p) << p.name;
    EXPECT_EQ(findPhase(p.name), &p) << p.name;
  }
}

TEST(PhaseRegistry, UnknownReturnsNull) {
  EXPECT_EQ(findPhase(""), nullptr);
  EXPECT_EQ(findPhase("159"), nullptr);
  EXPECT_EQ(findPhase("99999999999999999999"), nullptr);
  EXPECT_EQ(findPhase("-3"), nullptr);
  EXPECT_EQ(findPhase(" 38"), nullptr);
  EXPECT_EQ(findPhase("38x"), nullptr);
  EXPECT_EQ(findPhase("optimizenestedcondbranches"), nullptr); // names are case-sensitive
  EXPECT_EQ(findPhase("NoSuchPhase"), nullptr);
  // 004:24 "OriPerformLiveDead" is a NamedPhases group name, not a phase.
  EXPECT_EQ(findPhase("OriPerformLiveDead"), nullptr);
  // 002:111 "OriCopyProp" is only said to be at phase-name-table "index 22"; 22 is contested.
  EXPECT_EQ(findPhase("22"), nullptr);
}

TEST(PhaseRegistry, SpecNamedPhasesHaveTheSpecNames) {
  struct Expect {
    int number;
    const char *name;
  };
  const Expect expected[] = {
      {0, "OriCheckInitialProgram"},               // 001:399
      {3, "AnalyzeControlFlow"},                   // 000:13, 001:17
      {5, "ConvertUnsupportedOps"},                // 001:404
      {6, "SetControlFlowOpLastInBB"},             // 000:191
      {9, "ReportInitialRepresentation"},          // 004:202
      {10, "EarlyOriSimpleLiveDead"},              // 004:31
      {13, "GeneralOptimizeEarly"},                // 002:16
      {14, "DoSwitchOptFirst"},                    // 003:5
      {15, "OriBranchOpt"},                        // 003:6
      {16, "OriPerformLiveDeadFirst"},             // 004:32
      {18, "OriLoopSimplification"},               // 004:249
      {19, "OriSplitLiveRanges"},                  // 004:33
      {29, "GeneralOptimize"},                     // 002:17
      {30, "DoSwitchOptSecond"},                   // 003:7
      {31, "OriLinearReplacement"},                // 003:25
      {33, "OriPerformLiveDeadSecond"},            // 004:34
      {37, "GeneralOptimizeMid"},                  // 002:18
      {38, "OptimizeNestedCondBranches"},          // 003:8
      {46, "GeneralOptimizeMid2"},                 // 002:19
      {58, "GeneralOptimizeLate"},                 // 002:20
      {61, "OriPerformLiveDeadThird"},             // 004:35
      {63, "OriDoPredication"},                    // 003:30
      {65, "GeneralOptimizeLate2"},                // 002:21
      {73, "ConvertAllMovPhiToMov"},               // 001:302
      {80, "ExpandJmxComputation"},                // 003:32
      {84, "OriPerformLiveDeadFourth"},            // 004:36
      {108, "OptimizeHotColdInLoop"},              // 000:289
      {109, "OptimizeHotColdFlow"},                // 000:290
      {112, "PlaceBlocksInSourceOrder"},           // 000:14
      {133, "MergeEquivalentConditionalFlow"},     // 003:34
      {136, "LateMergeEquivalentConditionalFlow"}, // 003:35
      {138, "OriSplitHighPressureLiveRanges"},     // 004:38
  };
  for (const Expect &e : expected) {
    const PhaseInfo *p = findPhase(std::to_string(e.number));
    ASSERT_NE(p, nullptr) << "phase " << e.number;
    EXPECT_EQ(p->name, e.name) << "phase " << e.number;
  }
  // 001:423 puts PlaceBlocksInSourceOrder at 119; we follow spec/000 (112).
  EXPECT_EQ(findPhase("119"), nullptr);
}

TEST(PhaseRegistry, OptLevelGatesFollowTheSpec) {
  // 001:15 "gated on O1+ and knob 235".
  EXPECT_EQ(findPhase("AnalyzeControlFlow")->minOptLevel, 1);
  // 003:415 "The guard is opt_level > 1, so these phases execute at -O2 and above."
  for (const char *n : {"14", "15", "30", "38"})
    EXPECT_EQ(findPhase(n)->minOptLevel, 2) << n;
  // 002:11 "All variants check sub_7DDB50(ctx) > 1"; 002:859-860, 002:100-101.
  for (const char *n : {"13", "29", "37", "65"})
    EXPECT_EQ(findPhase(n)->minOptLevel, 2) << n;
  // 002:75-76 "Checks function count > 2 via sub_7DDB50 (stricter ...)".
  EXPECT_EQ(findPhase("58")->minOptLevel, 3);
  // 002:89-96: phase 46 only tests the no-op sentinel.
  EXPECT_EQ(findPhase("46")->minOptLevel, 0);
  // The liveness phases have no documented opt-level gate (spec/004).
  for (const char *n : {"10", "16", "19", "33", "61", "84"})
    EXPECT_EQ(findPhase(n)->minOptLevel, 0) << n;
}

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

TEST(PhaseRegistry, FormatPhaseTable) {
  const std::string table = formatPhaseTable([](int n) { return n == 38; });
  const auto rows = lines(table);
  ASSERT_EQ(rows.size(), allPhases().size());
  EXPECT_EQ(rows.front().substr(0, 26), "  0 OriCheckInitialProgram");
  int implemented = 0;
  for (const std::string &row : rows) {
    if (row.find("not implemented yet") == std::string::npos) {
      ++implemented;
      EXPECT_EQ(row.substr(0, 30), " 38 OptimizeNestedCondBranches");
      EXPECT_NE(row.find("  implemented  "), std::string::npos) << row;
      EXPECT_NE(row.find("spec/003 OptimizeNestedCondBranches"), std::string::npos) << row;
    }
  }
  EXPECT_EQ(implemented, 1);
  EXPECT_NE(table.find("112 PlaceBlocksInSourceOrder"), std::string::npos);
  // A null predicate means nothing is implemented.
  for (const std::string &row : lines(formatPhaseTable(nullptr)))
    EXPECT_NE(row.find("not implemented yet"), std::string::npos) << row;
}

// ---------------------------------------------------------------- knobs

TEST(KnobRegistry, NamesAndIndicesAreUniqueAndOrdered) {
  std::set<std::string_view> names;
  std::set<int> indices;
  int lastIndex = -1;
  bool seenUnindexed = false;
  for (const KnobInfo &k : allKnobs()) {
    EXPECT_TRUE(names.insert(k.name).second) << "duplicate name " << k.name;
    EXPECT_FALSE(k.summary.empty()) << k.name;
    EXPECT_EQ(k.spec.substr(0, 5), "spec/") << k.name;
    if (k.index < 0) {
      EXPECT_EQ(k.index, -1) << k.name;
      seenUnindexed = true;
      continue;
    }
    EXPECT_FALSE(seenUnindexed) << "indexed knob after unindexed ones: " << k.name;
    EXPECT_GT(k.index, lastIndex) << k.name;
    lastIndex = k.index;
    EXPECT_TRUE(indices.insert(k.index).second);
  }
}

TEST(KnobRegistry, EveryDefaultParsesAsItsOwnType) {
  KnobSet knobs;
  for (const KnobInfo &k : allKnobs()) {
    EXPECT_EQ(knobs.set(k.name, k.defaultValue), std::nullopt) << k.name;
    EXPECT_EQ(knobs.text(k.name), k.defaultValue) << k.name;
  }
}

TEST(KnobRegistry, SpecKnobsHaveTheSpecIndexNameTypeDefault) {
  struct Expect {
    const char *key; // what we look up: index or name
    int index;
    const char *name;
    KnobType type;
    const char *def;
  };
  const Expect expected[] = {
      // 002:843 "31 | AllowReassociateCSE | OKT_INT | unset"
      {"31", 31, "AllowReassociateCSE", KnobType::Int, "0"},
      // 002:844 "135 | ConvertMemoryToRegIndexedSizeLimit | OKT_INT"
      {"135", 135, "ConvertMemoryToRegIndexedSizeLimit", KnobType::Int, "0"},
      // 002:881 "threshold-based (default 0.93, knob 136)"
      {"136", 136, "ConvertMemoryToRegPromotionThreshold", KnobType::Float, "0.93"},
      // 002:845 "214 | DisableMergeEquivalentConditionalFlow | OKT_NONE | false"
      {"214", 214, "DisableMergeEquivalentConditionalFlow", KnobType::Bool, "false"},
      // 002:846 "231 | DisableRedundantBarrierRemoval | OKT_NONE | false"
      {"231", 231, "DisableRedundantBarrierRemoval", KnobType::Bool, "false"},
      // 001:24 "Knob 235 (wrapper veto, sub_C60870)"
      {"235", 235, "DisableAnalyzeControlFlow", KnobType::Bool, "false"},
      // 002:847 "461 | MembarFlowControl | OKT_INT | unset"
      {"461", 461, "MembarFlowControl", KnobType::Int, "0"},
      // 002:848 "464 | MergeEquivalentConditionalFlowBudget | OKT_BDGT | unset (= unbounded)"
      {"464", 464, "MergeEquivalentConditionalFlowBudget", KnobType::Int, "-1"},
      // 002:849 "474 | MovWeightForConvertMemToReg | OKT_DBL | 0.25"
      {"474", 474, "MovWeightForConvertMemToReg", KnobType::Float, "0.25"},
      // 002:850 "487 | (not yet decoded) | -- | enabled"; 003:444 "bool"
      {"487", 487, "GeneralOptimizationEnable", KnobType::Bool, "true"},
      // 002:851 "499 | OptBudget | OKT_BDGT | enabled (pass-through)"
      {"499", 499, "OptBudget", KnobType::Int, "-1"},
      // 002:852 "605 | ReassociateCSEWindow | OKT_NONE | false"
      {"605", 605, "ReassociateCSEWindow", KnobType::Bool, "false"},
      // 003:120 "SwitchOptBudget | ... | integer (03)"; 003:446 index "--"
      {"SwitchOptBudget", -1, "SwitchOptBudget", KnobType::Int, "-1"},
      // 003:121 "SwitchOptExtendedPatternMatch | ... | boolean (02)"
      {"SwitchOptExtendedPatternMatch", -1, "SwitchOptExtendedPatternMatch", KnobType::Bool,
       "true"},
      // 002:452-453 "Type | Boolean", "Default | "false""
      {"limit-fold-fp", -1, "limit-fold-fp", KnobType::Bool, "false"},
      // 000:15 "--dont-merge-basicblocks / -no-bb-merge CLI flag"
      {"dont-merge-basicblocks", -1, "dont-merge-basicblocks", KnobType::Bool, "false"},
  };
  for (const Expect &e : expected) {
    const KnobInfo *k = findKnob(e.key);
    ASSERT_NE(k, nullptr) << e.key;
    EXPECT_EQ(k->index, e.index) << e.key;
    EXPECT_EQ(k->name, e.name) << e.key;
    EXPECT_EQ(k->type, e.type) << e.key;
    EXPECT_EQ(k->defaultValue, e.def) << e.key;
  }
}

TEST(KnobRegistry, IndicesMatchTheSpecOptionOffsets) {
  // The spec gives options-manager byte offsets for some knobs; they are 72 * index.
  struct Expect {
    const char *name;
    int offset;
  };
  const Expect expected[] = {
      {"DumpCFGDot", 1440},                             // 000:345 "flag #20 ... +1440"
      {"DumpRPOAndBackedges", 1728},                    // 000:244 "flag #24 at offset +1728"
      {"AllowReassociateCSE", 2232},                    // 002:77 "config+2232"
      {"ConvertMemoryToRegIndexedSizeLimit", 9720},     // 002:475 "*(config+9720)"
      {"DisableMergeEquivalentConditionalFlow", 15408}, // 002:29 "*(config + 15408)"
      {"DisableAnalyzeControlFlow", 16920},             // 001:338 "bytes[16920]"
      {"MembarFlowControl", 33192},                     // 002:786 "*(config+33192)"
      {"BranchDistanceThresholdA", 44208},              // 003:68 "knob offsets ... 44208"
      {"BranchDistanceThresholdB", 44280},              // 003:68 "knob offsets 44280"
  };
  for (const Expect &e : expected) {
    const KnobInfo *k = findKnob(e.name);
    ASSERT_NE(k, nullptr) << e.name;
    EXPECT_EQ(k->index * 72, e.offset) << e.name;
  }
}

std::string rot13(std::string_view s) {
  std::string out(s);
  for (char &c : out) {
    if (c >= 'a' && c <= 'z')
      c = char('a' + (c - 'a' + 13) % 26);
    else if (c >= 'A' && c <= 'Z')
      c = char('A' + (c - 'A' + 13) % 26);
  }
  return out;
}

TEST(KnobRegistry, SwitchKnobNamesMatchTheirRot13Strings) {
  // 003:120-121: the binary stores the names ROT13-encoded.
  EXPECT_EQ(rot13(findKnob("SwitchOptBudget")->name), "FjvgpuBcgOhqtrg");
  EXPECT_EQ(rot13(findKnob("SwitchOptExtendedPatternMatch")->name),
            "FjvgpuBcgRkgraqrqCnggreaZngpu");
}

TEST(KnobRegistry, IndexLookupFindsTheSameKnobAsName) {
  EXPECT_EQ(findKnob("464"), findKnob("MergeEquivalentConditionalFlowBudget"));
  EXPECT_NE(findKnob("464"), nullptr);
  for (const KnobInfo &k : allKnobs()) {
    EXPECT_EQ(findKnob(k.name), &k) << k.name;
    if (k.index >= 0) {
      EXPECT_EQ(findKnob(std::to_string(k.index)), &k) << k.name;
    }
  }
  EXPECT_EQ(findKnob("-1"), nullptr); // "no index" is not an index
  EXPECT_EQ(findKnob(""), nullptr);
  EXPECT_EQ(findKnob("464x"), nullptr);
  EXPECT_EQ(findKnob("1000"), nullptr);
  EXPECT_EQ(findKnob("optbudget"), nullptr); // case-sensitive
}

TEST(KnobSet, StartsAtDefaults) {
  KnobSet knobs;
  EXPECT_FALSE(knobs.getBool("DisableAnalyzeControlFlow"));
  EXPECT_TRUE(knobs.getBool("GeneralOptimizationEnable"));
  EXPECT_EQ(knobs.getInt("MergeEquivalentConditionalFlowBudget"), -1);
  EXPECT_DOUBLE_EQ(knobs.getFloat("MovWeightForConvertMemToReg"), 0.25);
  EXPECT_EQ(knobs.getString("no-phase"), "");
}

TEST(KnobSet, SetAndGetEachType) {
  KnobSet knobs;
  EXPECT_EQ(knobs.set("limit-fold-fp", "true"), std::nullopt);
  EXPECT_TRUE(knobs.getBool("limit-fold-fp"));
  EXPECT_EQ(knobs.set("limit-fold-fp", "0"), std::nullopt);
  EXPECT_FALSE(knobs.getBool("limit-fold-fp"));
  EXPECT_EQ(knobs.set("235", "1"), std::nullopt);
  EXPECT_TRUE(knobs.getBool("DisableAnalyzeControlFlow"));

  EXPECT_EQ(knobs.set("464", "0x10"), std::nullopt);
  EXPECT_EQ(knobs.getInt("MergeEquivalentConditionalFlowBudget"), 16);
  EXPECT_EQ(knobs.text("MergeEquivalentConditionalFlowBudget"), "0x10");
  EXPECT_EQ(knobs.set("SwitchOptBudget", "-7"), std::nullopt);
  EXPECT_EQ(knobs.getInt("SwitchOptBudget"), -7);
  EXPECT_EQ(knobs.set("OptBudget", "9223372036854775807"), std::nullopt);
  EXPECT_EQ(knobs.getInt("OptBudget"), INT64_MAX);
  EXPECT_EQ(knobs.set("OptBudget", "-9223372036854775808"), std::nullopt);
  EXPECT_EQ(knobs.getInt("OptBudget"), INT64_MIN);
  EXPECT_EQ(knobs.set("OptBudget", "0x7fffffffffffffff"), std::nullopt);
  EXPECT_EQ(knobs.getInt("OptBudget"), INT64_MAX);

  EXPECT_EQ(knobs.set("474", "0.5"), std::nullopt);
  EXPECT_DOUBLE_EQ(knobs.getFloat("MovWeightForConvertMemToReg"), 0.5);
  EXPECT_EQ(knobs.set("474", "1e-3"), std::nullopt);
  EXPECT_DOUBLE_EQ(knobs.getFloat("MovWeightForConvertMemToReg"), 0.001);
  EXPECT_EQ(knobs.set("474", "2"), std::nullopt);
  EXPECT_DOUBLE_EQ(knobs.getFloat("MovWeightForConvertMemToReg"), 2.0);

  EXPECT_EQ(knobs.set("no-phase", "ConvertMemoryToRegisterOrUniform"), std::nullopt);
  EXPECT_EQ(knobs.getString("no-phase"), "ConvertMemoryToRegisterOrUniform");
}

// The error names the knob (by its canonical name, and index if it has one).
void expectRejected(KnobSet &knobs, const char *key, const char *value, const char *mention) {
  auto err = knobs.set(key, value);
  ASSERT_TRUE(err.has_value()) << key << "=" << value;
  EXPECT_NE(err->find(mention), std::string::npos) << *err;
}

TEST(KnobSet, BadValuesAreRejectedWithAMessageNamingTheKnob) {
  KnobSet knobs;
  for (const char *v : {"", "yes", "2", "TRUE", " 1", "1 "})
    expectRejected(knobs, "limit-fold-fp", v, "'limit-fold-fp'");
  for (const char *v :
       {"", "abc", "12abc", "1.5", "0x", "0xg", "--1", "+1", "-", " 3", "9223372036854775808",
        "-9223372036854775809", "0x8000000000000000", "true"})
    expectRejected(knobs, "464", v, "'MergeEquivalentConditionalFlowBudget' (464)");
  for (const char *v : {"", "abc", "1.0x", " 1.0", "nan", "inf", "1e999"})
    expectRejected(knobs, "MovWeightForConvertMemToReg", v, "'MovWeightForConvertMemToReg'");
  // A rejected value leaves the knob unchanged.
  EXPECT_EQ(knobs.getInt("MergeEquivalentConditionalFlowBudget"), -1);
  EXPECT_DOUBLE_EQ(knobs.getFloat("MovWeightForConvertMemToReg"), 0.25);
  EXPECT_FALSE(knobs.getBool("limit-fold-fp"));
}

TEST(KnobSet, UnknownKnobsAreRejected) {
  KnobSet knobs;
  expectRejected(knobs, "NoSuchKnob", "1", "unknown knob 'NoSuchKnob'");
  expectRejected(knobs, "9999", "1", "unknown knob '9999'");
}

TEST(KnobSet, SetFromAssignment) {
  KnobSet knobs;
  EXPECT_EQ(knobs.setFromAssignment("464=3"), std::nullopt);
  EXPECT_EQ(knobs.getInt("MergeEquivalentConditionalFlowBudget"), 3);
  EXPECT_EQ(knobs.setFromAssignment("limit-fold-fp=true"), std::nullopt);
  EXPECT_TRUE(knobs.getBool("limit-fold-fp"));
  EXPECT_EQ(knobs.setFromAssignment("no-phase=a=b"), std::nullopt); // first '=' splits
  EXPECT_EQ(knobs.getString("no-phase"), "a=b");

  auto noEq = knobs.setFromAssignment("limit-fold-fp");
  ASSERT_TRUE(noEq.has_value());
  EXPECT_NE(noEq->find("NAME=VALUE"), std::string::npos) << *noEq;
  auto noName = knobs.setFromAssignment("=1");
  ASSERT_TRUE(noName.has_value());
  EXPECT_NE(noName->find("unknown knob"), std::string::npos) << *noName;
  auto bad = knobs.setFromAssignment("OptBudget=lots");
  ASSERT_TRUE(bad.has_value());
  EXPECT_NE(bad->find("'OptBudget' (499)"), std::string::npos) << *bad;
}

TEST(KnobSetDeathTest, WrongTypeOrUnknownNameAborts) {
  KnobSet knobs;
  EXPECT_DEATH((void)knobs.getBool("OptBudget"),
               "getBool: knob 'OptBudget' \\(499\\) has type int");
  EXPECT_DEATH((void)knobs.getInt("NoSuchKnob"), "unknown knob name 'NoSuchKnob'");
  EXPECT_DEATH((void)knobs.getInt("499"), "unknown knob name '499'"); // canonical names only
  EXPECT_DEATH((void)knobs.getString("limit-fold-fp"), "has type bool");
}

TEST(KnobRegistry, FormatKnobTable) {
  const std::string table = formatKnobTable();
  const auto rows = lines(table);
  ASSERT_EQ(rows.size(), allKnobs().size());
  bool saw464 = false, sawLimitFoldFp = false;
  for (const std::string &row : rows) {
    if (row.rfind("464 MergeEquivalentConditionalFlowBudget ", 0) == 0) {
      saw464 = true;
      EXPECT_NE(row.find(" int "), std::string::npos) << row;
      EXPECT_NE(row.find(" -1 "), std::string::npos) << row;
      EXPECT_NE(row.find("spec/002 Knobs and Options"), std::string::npos) << row;
    }
    if (row.rfind("  - limit-fold-fp ", 0) == 0) {
      sawLimitFoldFp = true;
      EXPECT_NE(row.find(" bool "), std::string::npos) << row;
      EXPECT_NE(row.find(" false "), std::string::npos) << row;
    }
  }
  EXPECT_TRUE(saw464) << table;
  EXPECT_TRUE(sawLimitFoldFp) << table;
}

} // namespace
} // namespace ori
