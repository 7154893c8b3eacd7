// The GeneralOptimize rules (rules/general_optimize.h) on hand-made instructions, the
// counterexamples of their wrong variants (verify/obligations_spec002.cpp), and phases
// 13, 29 and 58 on every function of the PTX corpus: both halves agree, the PTX emitted
// from their output assembles where the original does, and every entry kernel runs the
// same under the interpreter before and after (random launches; runs that cannot be
// compared are counted, never passed).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/dce_checks.h"
#include "fuzz/general_optimize_checks.h"
#include "interp/interp.h"
#include "ir/ori.h"
#include "optimized/optimized.h"
#include "pipeline/verify_phases.h"
#include "ptx/ptx.h"
#include "rules/general_optimize.h"
#include "verify/obligations.h"

namespace ori {
namespace {

Instr parseInstr(const std::string &text) {
  ParseResult r = parseOri(".entry f()\n{\n  " + text + "\n  EXIT\n}\n", "t.ori");
  if (!r.module) {
    ADD_FAILURE() << text << ": " << r.error->message;
    return {};
  }
  return r.module->functions[0].blocks[0].instrs[0];
}

TEST(GeneralOptimizeRules, CopySource) {
  // A 32-bit register copy is full only when its source is known zero-extended.
  EXPECT_FALSE(copySource(parseInstr("MOV R1, R2"), false));
  EXPECT_EQ(copySource(parseInstr("MOV R1, R2"), true)->reg, R(2));
  EXPECT_EQ(copySource(parseInstr("MOV.64 R1, R2"), false)->reg, R(2));
  EXPECT_EQ(copySource(parseInstr("MOV R1, RZ"), false)->reg, RZ);
  // Immediates: 0 .. 2^31-1 at 32 bits, anything at 64.
  EXPECT_EQ(copySource(parseInstr("MOV R1, 0x7fffffff"), false)->imm, 0x7fffffff);
  EXPECT_FALSE(copySource(parseInstr("MOV R1, 0x80000000"), false));
  EXPECT_FALSE(copySource(parseInstr("MOV R1, -0x1"), false));
  EXPECT_EQ(copySource(parseInstr("MOV.64 R1, -0x1"), false)->imm, -1);
  // Banks only from a 64-bit MOV; never a guarded MOV, a self copy or another opcode.
  EXPECT_FALSE(copySource(parseInstr("MOV R1, c[0x0][0x210]"), true));
  EXPECT_TRUE(copySource(parseInstr("MOV.64 R1, c[0x0][0x210]"), true));
  EXPECT_FALSE(copySource(parseInstr("@P0 MOV R1, R2"), true));
  EXPECT_FALSE(copySource(parseInstr("MOV R1, R1"), true));
  EXPECT_FALSE(copySource(parseInstr("IADD3 R1, R2, RZ, RZ"), true));
}

TEST(GeneralOptimizeRules, ZeroExtendedWriters) {
  EXPECT_TRUE(writesZeroExtended32(parseInstr("IADD3 R1, R2, R3, RZ")));
  EXPECT_TRUE(writesZeroExtended32(parseInstr("S2R R1, SR_TID.X")));
  EXPECT_FALSE(writesZeroExtended32(parseInstr("S2R R1, SR_SWINBASE")));
  EXPECT_FALSE(writesZeroExtended32(parseInstr("IADD3.64 R1, R2, R3, RZ")));
  EXPECT_FALSE(writesZeroExtended32(parseInstr("IMAD.WIDE.U32 R1, R2, R3, RZ")));
  EXPECT_FALSE(writesZeroExtended32(parseInstr("@P0 IADD3 R1, R2, R3, RZ")));
  EXPECT_FALSE(writesZeroExtended32(parseInstr("I2F R1, R2"))); // not on the list: unknown
}

TEST(GeneralOptimizeRules, PredicateCopiesAndConstants) {
  // PTX's slots: a = 0xf0, b = 0xcc, c = 0xaa.
  auto copy = predicateCopySource(parseInstr("PLOP3.LUT P0, PT, P1, PT, PT, 0xf0, 0x0"));
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->reg, P(1));
  EXPECT_FALSE(copy->neg);
  copy = predicateCopySource(parseInstr("PLOP3.LUT P0, PT, PT, P2, PT, 0x33, 0x0"));
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->reg, P(2));
  EXPECT_TRUE(copy->neg);
  // a & b with a = PT is b; with two live inputs it is no copy; a second result is kept.
  EXPECT_EQ(predicateCopySource(parseInstr("PLOP3.LUT P0, PT, PT, P3, PT, 0xc0, 0x0"))->reg, P(3));
  EXPECT_FALSE(predicateCopySource(parseInstr("PLOP3.LUT P0, PT, P1, P2, PT, 0xc0, 0x0")));
  EXPECT_FALSE(predicateCopySource(parseInstr("PLOP3.LUT P0, P5, P1, PT, PT, 0xf0, 0x0")));
  EXPECT_FALSE(
      predicateCopySource(parseInstr("PLOP3.LUT P0, PT, P0, PT, PT, 0x0f, 0x0"))); // P0 = !P0
  // Constant results: 0xff, 0x00, and a LUT that only differs where a = PT is false.
  EXPECT_EQ(plop3ConstantResult(parseInstr("PLOP3.LUT P0, PT, P1, P2, PT, 0xff, 0x0")),
            std::optional<bool>(true));
  EXPECT_EQ(plop3ConstantResult(parseInstr("PLOP3.LUT P0, PT, P1, P2, PT, 0x0, 0x0")),
            std::optional<bool>(false));
  EXPECT_EQ(plop3ConstantResult(parseInstr("PLOP3.LUT P0, PT, PT, P2, P3, 0xf0, 0x0")),
            std::optional<bool>(true));
  EXPECT_FALSE(plop3ConstantResult(parseInstr("PLOP3.LUT P0, PT, P1, P2, PT, 0xf0, 0x0")));
}

TEST(GeneralOptimizeRules, WhichUsesMayBeReplaced) {
  const GeneralOptimizeOptions opt;
  GeneralOptimizeOptions limit;
  limit.limitFoldFp = true;
  const Operand imm = Operand::immediate(5), bank = Operand::cbank(0, 0x210),
                r9 = Operand::reg_(R(9));
  EXPECT_TRUE(mayReplaceUse(parseInstr("IADD3 R1, R2, R3, RZ"), 0, R(2), imm, opt));
  // One immediate or bank per instruction (SASS encodes one).
  EXPECT_FALSE(mayReplaceUse(parseInstr("IADD3 R1, R2, 0x1, RZ"), 0, R(2), imm, opt));
  EXPECT_TRUE(mayReplaceUse(parseInstr("IADD3 R1, R2, 0x1, RZ"), 0, R(2), r9, opt));
  // STG's value slot takes registers only; an address base is not a plain source.
  EXPECT_FALSE(mayReplaceUse(parseInstr("STG.E [R4], R2"), 1, R(2), imm, opt));
  EXPECT_FALSE(mayReplaceUse(parseInstr("STG.E [R2], R5"), 0, R(2), r9, opt));
  // Negated uses take registers only; float instructions no constants under limit-fold-fp.
  EXPECT_FALSE(mayReplaceUse(parseInstr("IADD3 R1, -R2, R3, RZ"), 0, R(2), imm, opt));
  EXPECT_TRUE(mayReplaceUse(parseInstr("FADD R1, R2, R3"), 1, R(3), bank, opt));
  EXPECT_FALSE(mayReplaceUse(parseInstr("FADD R1, R2, R3"), 1, R(3), bank, limit));
  // Guards take predicates; negations combine.
  EXPECT_TRUE(
      mayReplaceUse(parseInstr("@!P0 MOV R1, R2"), -1, P(0), Operand::reg_(P(3), true), opt));
  EXPECT_FALSE(replacedUse(Operand::reg_(P(0), true), Operand::reg_(P(3), true)).neg);
  EXPECT_FALSE(mayReplaceUse(parseInstr("@P0 MOV R1, R2"), -1, P(0), imm, opt));
}

TEST(GeneralOptimizeRules, SelectEligibilityFollowsTheSmBoundary) {
  GeneralOptimizeOptions sm90, sm50;
  sm50.smEncoded = 0x4001;
  EXPECT_TRUE(selectEligible(parseInstr("SEL R1, R2, R3, P0"), sm90));
  EXPECT_FALSE(selectEligible(parseInstr("SEL.64 R2, R4, R6, P0"), sm90));
  EXPECT_TRUE(selectEligible(parseInstr("SEL.64 R2, R4, R6, P0"), sm50));
  EXPECT_FALSE(selectEligible(parseInstr("@P1 SEL R1, R2, R3, P0"), sm90));
  EXPECT_EQ(selectAsCopy(parseInstr("SEL R1, R2, 0x5, P0"), false)->srcs[0].imm, 5);
  EXPECT_FALSE(selectAsCopy(parseInstr("SEL R1, R2, R3, P0"), std::nullopt));
  EXPECT_EQ(selectAsCopy(parseInstr("SEL R1, R2, R2, P0"), std::nullopt)->srcs[0].reg, R(2));
  EXPECT_TRUE(archAllowsPredicateMarking(0x8000));
  EXPECT_TRUE(archAllowsPredicateMarking(0x4001));
  EXPECT_FALSE(archAllowsPredicateMarking(0x6000));
}

std::map<std::string, std::string> counterexample(const std::string &name) {
  const verify::ObligationResult r = verify::checkObligation(name);
  EXPECT_EQ(r.status, verify::ObligationResult::Status::Refuted) << name;
  return {r.counterexample.begin(), r.counterexample.end()};
}

// The wrong variants' counterexamples really break them.
TEST(GeneralOptimizeRules, WrongVariantCounterexamplesAreReal) {
  for (const auto &o : verify::listObligations()) {
    if (o.name.starts_with("go.") && o.expectHolds) {
      EXPECT_EQ(verify::checkObligation(o.name).status, verify::ObligationResult::Status::Proved)
          << o.name;
    }
  }
  auto m = counterexample("go.copy32.wrong-any-register");
  const uint64_t s = std::stoull(m.at("s"), nullptr, 16), d = std::stoull(m.at("d"), nullptr, 16);
  EXPECT_NE(s >> 32, 0u); // the high half is what a 32-bit MOV drops
  EXPECT_EQ(d, s & 0xffffffffu);
  m = counterexample("go.copy32-immediate.wrong-negative");
  const uint64_t k = std::stoull(m.at("k"), nullptr, 16), dk = std::stoull(m.at("d"), nullptr, 16);
  EXPECT_TRUE(int64_t(k) < 0);
  EXPECT_EQ(dk, k & 0xffffffffu);
}

// ------------------------------------------------------------------ the corpus

namespace fs = std::filesystem;

std::string corpusDir() {
  if (const char *env = std::getenv("ORIOPT_CORPUS_DIR"))
    return env;
  return ORIOPT_CORPUS_DIR;
}

TEST(GeneralOptimizeCorpus, HalvesAgreeAndBehaviourIsKept) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(fs::path(corpusDir()) / "ptx", ec))
    if (e.path().extension() == ".ptx")
      files.push_back(e.path());
  if (files.empty())
    GTEST_SKIP() << "no corpus at " << corpusDir();
  std::sort(files.begin(), files.end());
  int functions = 0, changed = 0, runs = 0, compared = 0;
  for (const fs::path &p : files) {
    SCOPED_TRACE(p.filename().string());
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    ParseResult parsed = ptx::parseAndLower(ss.str(), p.filename().string());
    ASSERT_TRUE(parsed.module) << parsed.error->str();
    Module before = *parsed.module;
    uint32_t line = 0; // one line per instruction: a run's stop names the very instruction
    for (Function &f : before.functions)
      for (Block &b : f.blocks)
        for (Instr &i : b.instrs)
          i.loc.line = ++line;
    Module after = before;
    for (Function &f : after.functions) {
      if (f.isDeclaration())
        continue;
      ++functions;
      const Function original = f;
      optimized::generalOptimizeEarly(f, -1);
      optimized::generalOptimize(f, GeneralOptimizeOptions{});
      optimized::generalOptimizeLate(f, false);
      changed += !(f == original);
      // The smaller functions through the full diff (both halves, every option; the lit test
      // general-optimize/corpus_both.test runs the halves on every function at the defaults).
      if (original.instrCount() < 1000) {
        EXPECT_EQ(checks::generalOptimizeDiff(original), "") << f.name;
      }
    }
    ptx::EmitResult e = ptx::emit(after);
    EXPECT_FALSE(e.error) << (e.error ? e.error->str() : "");
    for (const Function &k : before.functions) {
      if (!k.isEntry || k.isDeclaration())
        continue;
      const RunConfig cfg = randomLaunches(k, 2)[1]; // a full warp
      bool c = false;
      ++runs;
      EXPECT_EQ(checks::compareRuns(runKernel(before, cfg), runKernel(after, cfg), &c), "")
          << k.name;
      compared += c;
    }
  }
  std::printf("general-optimize corpus: %d functions, %d changed by phases 13+29+58; interpreter: "
              "%d runs, %d "
              "compared\n",
              functions, changed, runs, compared);
  EXPECT_GT(changed, 50);
  EXPECT_GE(compared, 100);
}

} // namespace
} // namespace ori
