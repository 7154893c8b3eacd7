// --fold=evaluate (rules/general_optimize_evaluate.h): the rules on hand-made
// instructions with hand-derived results, the evaluator (interp/evaluate.h) against
// the opcode models, and the counterexamples of the wrong variants of the go.evaluate.*
// obligations (verify/obligations_evaluate.cpp) replayed by the interpreter: each
// really makes the wrong rewrite write something else.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "interp/evaluate.h"
#include "ir/ori.h"
#include "rules/general_optimize_evaluate.h"
#include "verify/model_eval.h"
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

// The rewrite of `text` as text ("" when no rule applies); known: R<n> holds an immediate.
std::string rewrite(const std::string &text, const std::map<uint32_t, int64_t> &known = {}) {
  const Instr in = parseInstr(text);
  std::vector<std::optional<Operand>> k(in.srcs.size());
  for (size_t i = 0; i < in.srcs.size(); ++i)
    if (in.srcs[i].kind == Operand::Kind::Reg && in.srcs[i].reg.file == RegFile::R &&
        known.count(in.srcs[i].reg.num))
      k[i] = Operand::immediate(known.at(in.srcs[i].reg.num));
  const auto rw = evaluateRewrite(in, k);
  return rw ? printInstr(Function{}, rw->instr) : "";
}

TEST(GeneralOptimizeEvaluate, Folds) {
  EXPECT_EQ(rewrite("IADD3 R1, R2, R3, 0x5", {{2, 7}, {3, 3}}), "MOV R1, 0xf"); // 7+3+5
  EXPECT_EQ(rewrite("IADD3 R1, R2, -R3, RZ", {{2, 3}, {3, 7}}),
            "MOV R1, 0xfffffffc"); // 3-7 at 32 bits
  EXPECT_EQ(rewrite("IADD3.64 R1, R2, -R3, RZ", {{2, 3}, {3, 7}}), "MOV.64 R1, -0x4");
  EXPECT_EQ(rewrite("IMAD R1, R2, 0x3, R2", {{2, 7}}), "MOV R1, 0x1c");          // 7*3+7
  EXPECT_EQ(rewrite("IMAD.WIDE R1, R2, 0x2, RZ", {{2, -1}}), "MOV.64 R1, -0x2"); // sext(-1)*2
  EXPECT_EQ(rewrite("IMAD.WIDE.U32 R1, R2, 0x2, RZ", {{2, 0xffffffff}}), "MOV.64 R1, 0x1fffffffe");
  EXPECT_EQ(rewrite("LOP3.LUT R1, R2, 0x3, RZ, 0x3c", {{2, 7}}), "MOV R1, 0x4"); // 7^3
  EXPECT_EQ(rewrite("SHF.L.U32 R1, R2, 0x1d, RZ", {{2, 7}}), "MOV R1, 0xe0000000");
  EXPECT_EQ(rewrite("SHR.S32 R1, R2, 0x4", {{2, 0x80000000}}), "MOV R1, 0xf8000000");
  // A register without a known value, a guard: nothing.
  EXPECT_EQ(rewrite("IADD3 R1, R2, 0x1, 0x2"), "");
  EXPECT_EQ(rewrite("@P0 IADD3 R1, RZ, 0x1, 0x2"), "");
  EXPECT_EQ(rewrite("SHF.U32 R1, R2, 0x1, RZ", {{2, 1}}),
            ""); // no direction: the interpreter refuses it
}

TEST(GeneralOptimizeEvaluate, Identities) {
  EXPECT_EQ(rewrite("IADD3 R1, R2, 0x0, RZ"), "MOV R1, R2");
  EXPECT_EQ(rewrite("IADD3.64 R1, RZ, R3, R2", {{3, 0}}), "MOV.64 R1, R2");
  EXPECT_EQ(rewrite("IADD3 R1, R2, -R2, R3"), "MOV R1, R3");
  EXPECT_EQ(rewrite("IADD3 R1, R2, R2, R3"), ""); // x + x does not cancel
  EXPECT_EQ(rewrite("IADD3 R1, -R2, 0x0, R3"), "IADD3 R1, -R2, RZ, R3");
  EXPECT_EQ(rewrite("IMAD R1, R2, 0x1, RZ"), "MOV R1, R2");
  EXPECT_EQ(rewrite("IMAD R1, R2, 0x1, R3"), "IADD3 R1, R2, R3, RZ");
  EXPECT_EQ(rewrite("IMAD R1, R2, RZ, R3"), "MOV R1, R3");
  EXPECT_EQ(rewrite("IMAD.WIDE R1, R2, RZ, R4"), "MOV.64 R1, R4");
  EXPECT_EQ(rewrite("IMAD.WIDE R1, R2, 0x1, R4"), ""); // sign extension: not a plain add
  EXPECT_EQ(rewrite("IMAD R1, R2, R3, RZ", {{3, 0x100000001}}), "MOV R1, R2"); // 1 at 32 bits
  EXPECT_EQ(rewrite("IMAD.64 R1, R2, R3, RZ", {{3, 0x100000001}}), "");
  EXPECT_EQ(rewrite("SHL R1, R2, 0x0"), "MOV R1, R2");
  EXPECT_EQ(rewrite("SHL R1, R2, 0x20"), "MOV R1, 0x0");
  EXPECT_EQ(rewrite("SHL.64 R1, R2, 0x20"), "");
  EXPECT_EQ(rewrite("SHR.U32 R1, R2, 0x21"), "MOV R1, 0x0");
  EXPECT_EQ(rewrite("SHR.S32 R1, R2, 0x21"), "");                            // sign fill
  EXPECT_EQ(rewrite("LOP3.LUT R1, R2, RZ, RZ, 0xc0"), "MOV R1, 0x0");        // x & 0
  EXPECT_EQ(rewrite("LOP3.LUT R1, R2, 0xffffffff, RZ, 0xc0"), "MOV R1, R2"); // x & ~0
  EXPECT_EQ(rewrite("LOP3.LUT.64 R1, R2, 0xffffffff, RZ, 0xc0"), ""); // not all ones at 64 bits
  EXPECT_EQ(rewrite("LOP3.LUT.64 R1, R2, -0x1, RZ, 0xc0"), "MOV.64 R1, R2");
  EXPECT_EQ(rewrite("LOP3.LUT R1, R2, RZ, R3, 0x96"),
            ""); // RZ folds into the LUT, but nothing is dropped
  EXPECT_EQ(rewrite("LOP3.LUT R1, R2, RZ, RZ, 0xfc"), "MOV R1, R2");  // x | 0
  EXPECT_EQ(rewrite("LOP3.LUT R1, R2, R2, RZ, 0x3c"), "MOV R1, 0x0"); // x ^ x
  EXPECT_EQ(rewrite("LOP3.LUT R1, R2, RZ, R3, 0x3c"), "MOV R1, R2");  // x ^ 0
  EXPECT_EQ(rewrite("LOP3.LUT R1, R2, R3, R3, 0x78"),
            "LOP3.LUT R1, R2, R3, RZ, 0x3c");                        // a^(b&b) = a^b
  EXPECT_EQ(rewrite("LOP3.LUT R1, R2, R3, R4, 0xf0"), "MOV R1, R2"); // only a
  EXPECT_EQ(rewrite("LOP3.LUT R1, R2, R3, R4, 0x0f"),
            "LOP3.LUT R1, R2, RZ, RZ, 0xf"); // ~a stays a LOP3
  EXPECT_EQ(rewrite("LOP3.LUT R1, R2, R3, R4, 0x96"), "");
  EXPECT_EQ(rewrite("ISETP.GE.AND P0, PT, R2, R2, PT"), "PLOP3.LUT P0, PT, PT, PT, PT, 0xff, 0x0");
  EXPECT_EQ(rewrite("ISETP.LT.U32.AND P1, P2, R2, R2, P3"),
            "PLOP3.LUT P1, P2, P3, PT, PT, 0x0, 0xf0");
  EXPECT_EQ(rewrite("ISETP.LT.OR P1, PT, R2, R2, !P3"),
            "PLOP3.LUT P1, PT, !P3, PT, PT, 0xf0, 0xff");
  EXPECT_EQ(rewrite("ISETP.GT.U32.AND P1, PT, R2, 0x5, PT", {{2, 7}}),
            "PLOP3.LUT P1, PT, PT, PT, PT, 0xff, 0x0");
  EXPECT_EQ(rewrite("ISETP.GT.U32.AND P1, PT, R2, R3, PT"), "");
  EXPECT_EQ(rewrite("PLOP3.LUT P3, PT, P2, PT, P2, 0x88, 0x0"),
            "PLOP3.LUT P3, PT, P2, PT, PT, 0xf0, 0x0");
  EXPECT_EQ(rewrite("PLOP3.LUT P4, PT, !PT, P2, PT, 0xfe, 0x0"),
            "PLOP3.LUT P4, PT, PT, PT, PT, 0xff, 0x0");
  EXPECT_EQ(rewrite("PLOP3.LUT P4, PT, !P2, P3, PT, 0x80, 0x0"), ""); // nothing to drop
  EXPECT_EQ(rewrite("PLOP3.LUT P4, PT, !P2, P3, !PT, 0x40, 0x0"),
            "PLOP3.LUT P4, PT, !P2, P3, PT, 0xc0, 0x0");
  EXPECT_EQ(rewrite("PLOP3.LUT P4, PT, P2, P3, P1, 0xf0, 0x0"),
            "PLOP3.LUT P4, PT, P2, PT, PT, 0xf0, 0x0");
}

// The evaluator is the interpreter; the models of verify/ are cross-checked against it. Here
// the folds' opcodes at random constants once more, through the fold rule itself.
TEST(GeneralOptimizeEvaluate, FoldAgreesWithTheModels) {
  verify::ModelEvaluator models;
  std::mt19937_64 rng(15);
  const std::vector<std::string> shapes = {"IADD3 R1, R2, R3, R4",
                                           "IADD3.64 R1, R2, -R3, R4",
                                           "IMAD R1, R2, R3, R4",
                                           "IMAD.HI.U32 R1, R2, R3, R4",
                                           "IMAD.WIDE R1, R2, R3, R4",
                                           "LOP3.LUT R1, R2, R3, R4, 0xe8",
                                           "SHF.R.S64.HI R1, R2, R3, R4",
                                           "SHF.L.W.U32 R1, R2, R3, R4",
                                           "SHL R1, R2, R3",
                                           "SHR.S32 R1, R2, R3",
                                           "LEA R1, R2, R3, 0x5",
                                           "IMNMX.U32 R1, R2, R3, !PT",
                                           "PRMT R1, R2, R3, R4",
                                           "FLO.U32.SH R1, R2",
                                           "POPC.64 R1, R2",
                                           "BREV R1, R2"};
  int folded = 0;
  for (const std::string &s : shapes)
    for (int i = 0; i < 40; ++i) {
      const Instr in = parseInstr(s);
      std::map<uint32_t, int64_t> known;
      std::vector<uint64_t> raw;
      for (const Operand &o : in.srcs) {
        const uint64_t v = i % 4 == 0 ? uint64_t(i / 4) : i % 4 == 1 ? (rng() & 0xffffffff) : rng();
        if (o.kind == Operand::Kind::Reg && o.reg.file == RegFile::R)
          known[o.reg.num] = int64_t(v);
        raw.push_back(o.kind == Operand::Kind::Imm                          ? uint64_t(o.imm)
                      : o.kind == Operand::Kind::Reg && o.reg.isPredicate() ? 1
                                                                            : 0);
      }
      std::vector<std::optional<Operand>> k(in.srcs.size());
      for (size_t j = 0; j < in.srcs.size(); ++j)
        if (in.srcs[j].kind == Operand::Kind::Reg && in.srcs[j].reg.file == RegFile::R) {
          k[j] = Operand::immediate(known[in.srcs[j].reg.num]);
          raw[j] = uint64_t(known[in.srcs[j].reg.num]);
        }
      const auto rw = evaluateRewrite(in, k);
      ASSERT_TRUE(rw) << s;
      ASSERT_EQ(rw->instr.op, Opcode::MOV) << s;
      verify::ConcreteInputs x;
      x.srcs = raw;
      x.oldDsts = {0};
      const auto model = models.evaluate(in, x);
      ASSERT_TRUE(model) << s;
      const uint64_t folded64 = uint64_t(rw->instr.srcs[0].imm);
      EXPECT_EQ(model->dsts[0], rw->instr.has(Mod::W64) ? folded64 : folded64 & 0xffffffffu)
          << s << " case " << i;
      ++folded;
    }
  EXPECT_EQ(folded, int(shapes.size()) * 40);
}

std::map<std::string, uint64_t> counterexample(const std::string &name) {
  const verify::ObligationResult r = verify::checkObligation(name);
  EXPECT_EQ(r.status, verify::ObligationResult::Status::Refuted) << name;
  std::map<std::string, uint64_t> m;
  for (const auto &[k, v] : r.counterexample)
    m[k] = v == "true" ? 1 : v == "false" ? 0 : std::stoull(v, nullptr, 16);
  return m;
}

// What the interpreter writes to the first destination of `text` with R<n>/P<n> replaced
// by the counterexample's r<n>/p<n> (as immediates, PT/!PT).
uint64_t run(const std::string &text, const std::map<std::string, uint64_t> &cex) {
  Instr in = parseInstr(text);
  for (Operand &o : in.srcs)
    if (o.kind == Operand::Kind::Reg && !o.reg.isConst()) {
      const std::string n = fmt::format("{}{}", o.reg.isPredicate() ? "p" : "r", o.reg.num);
      const uint64_t v = cex.count(n) ? cex.at(n) : 0;
      const bool neg = o.neg;
      if (o.reg.isPredicate())
        o = Operand::reg_(PT, (v == 0) != neg);
      else {
        o = Operand::immediate(int64_t(v));
        o.neg = neg;
      }
    }
  const auto v = evaluateConstant(in);
  EXPECT_TRUE(v) << text;
  return v ? (*v)[0] : 0;
}

TEST(GeneralOptimizeEvaluate, ObligationsHoldAndWrongVariantsAreRefutedForReal) {
  for (const auto &o : verify::listObligations())
    if (o.name.starts_with("go.evaluate.")) {
      const auto r = verify::checkObligation(o.name);
      EXPECT_TRUE(r.asExpected(o)) << verify::formatResult(o, r);
    }
  auto m = counterexample("go.evaluate.fold.wrong-sign-extended");
  const uint64_t sum = (m.at("a") + m.at("b") + m.at("c")) & 0xffffffffu;
  EXPECT_NE(sum & 0x80000000u, 0u); // where sign extension changes the container
  EXPECT_EQ(run(fmt::format("IADD3 R1, {:#x}, {:#x}, {:#x}", m.at("a") & 0xffffffff,
                            m.at("b") & 0xffffffff, m.at("c") & 0xffffffff),
                {}),
            sum);
  m = counterexample("go.evaluate.iadd3.wrong-same-sign-cancels");
  EXPECT_NE(run("IADD3 R1, R2, R2, R3", m), run("IADD3 R1, R3, RZ, RZ", m));
  m = counterexample("go.evaluate.imad.wrong-wide-one");
  EXPECT_NE(run("IMAD.WIDE R1, R2, 0x1, R3", m), run("IADD3.64 R1, R2, R3, RZ", m));
  m = counterexample("go.evaluate.shift.wrong-arithmetic");
  EXPECT_NE(run("SHR.S32 R1, R2, 0x28", m), 0u);
  m = counterexample("go.evaluate.isetp.wrong-reflexive");
  EXPECT_EQ(run("ISETP.LE.S32.AND P1, PT, R2, R2, PT", m), 1u); // the wrong rewrite says 0
  m = counterexample("go.evaluate.lop3.wrong-polarity");
  EXPECT_FALSE(m.empty());
  m = counterexample("go.evaluate.plop3.wrong-negation");
  EXPECT_FALSE(m.empty());
}

} // namespace
} // namespace ori
