// The proof obligations (verify/obligations.h, docs/verifier.md): selected
// proofs hold, and the counterexamples Z3 prints for the wrong variants and
// the wrong spec claims are real: each is re-evaluated here with the plain
// integer LUT functions or checked against a hand derivation. (oriverify's
// ctest runs every obligation.)
#include <gtest/gtest.h>

#include <bit>
#include <map>
#include <set>
#include <stdexcept>

#include "rules/lut.h"
#include "verify/obligations.h"

namespace ori {
namespace {

using verify::ObligationResult;

ObligationResult check(const std::string &name) { return verify::checkObligation(name); }

std::map<std::string, std::string> asMap(const ObligationResult &r) {
  return {r.counterexample.begin(), r.counterexample.end()};
}

uint64_t value(const std::map<std::string, std::string> &m, const std::string &k) {
  auto it = m.find(k);
  if (it == m.end())
    throw std::runtime_error("counterexample lacks " + k);
  return std::stoull(it->second, nullptr, 16);
}

TEST(Z3Obligations, NamesAreUniqueAndWrongVariantsExpectRefutation) {
  std::set<std::string> names;
  for (const auto &o : verify::listObligations()) {
    EXPECT_TRUE(names.insert(o.name).second) << o.name;
    if (o.name.find(".wrong-") != std::string::npos) {
      EXPECT_FALSE(o.expectHolds) << o.name;
    }
  }
  for (const char *n :
       {"lop3.compose", "lop3.negate-output", "lop3.permute", "lop3.fold.rz", "plop3.fold.pt",
        "spec003.lut.and-0xC0", "switch.jump-table", "switch.bst", "switch.bit-test"})
    EXPECT_TRUE(names.count(n)) << n;
  EXPECT_THROW(check("no.such.obligation"), std::invalid_argument);
}

TEST(Z3Obligations, AlgebraProofsHold) {
  for (const char *n :
       {"lop3.eval.lookup", "lop3.eval.canonical", "lop3.negate-output", "lop3.negate-input.b",
        "lop3.permute", "lop3.fold.ones", "plop3.compose", "plop3.negate-input"}) {
    ObligationResult r = check(n);
    EXPECT_EQ(r.status, ObligationResult::Status::Proved) << n << ": " << r.reason;
  }
}

// negateInput(lut, 2) used for input a: the printed a, b, c, lut really break it.
TEST(Z3Obligations, WrongSlotCounterexampleIsReal) {
  ObligationResult r = check("lop3.negate-input.wrong-slot");
  ASSERT_EQ(r.status, ObligationResult::Status::Refuted);
  auto m = asMap(r);
  uint32_t a = uint32_t(value(m, "a")), b = uint32_t(value(m, "b")), c = uint32_t(value(m, "c"));
  uint32_t l = uint32_t(value(m, "lut"));
  EXPECT_NE(lut::apply<uint32_t>(l, ~a, b, c),
            lut::apply<uint32_t>(lut::negateInput<uint8_t>(uint8_t(l), 2), a, b, c));
  // ... while the right slot agrees on the same values.
  EXPECT_EQ(lut::apply<uint32_t>(l, ~a, b, c),
            lut::apply<uint32_t>(lut::negateInput<uint8_t>(uint8_t(l), 0), a, b, c));
}

TEST(Z3Obligations, WrongCompositionCounterexampleIsReal) {
  ObligationResult r = check("lop3.compose.wrong-operand-order");
  ASSERT_EQ(r.status, ObligationResult::Status::Refuted);
  auto m = asMap(r);
  uint32_t a = uint32_t(value(m, "a")), b = uint32_t(value(m, "b")), c = uint32_t(value(m, "c"));
  uint8_t l = uint8_t(value(m, "lut")), l1 = uint8_t(value(m, "l1")), l2 = uint8_t(value(m, "l2")),
          l3 = uint8_t(value(m, "l3"));
  auto op = [&](uint8_t t) { return lut::apply<uint32_t>(t, a, b, c); };
  uint32_t nested = lut::apply<uint32_t>(l, op(l1), op(l2), op(l3));
  EXPECT_NE(nested, op(lut::compose<uint8_t>(l1, l, l2, l3)));
  EXPECT_EQ(nested, op(lut::compose<uint8_t>(l, l1, l2, l3)));
}

TEST(Z3Obligations, WrongFoldCounterexampleIsReal) {
  ObligationResult r = check("lop3.fold.rz.wrong-constant");
  ASSERT_EQ(r.status, ObligationResult::Status::Refuted);
  auto m = asMap(r);
  uint32_t a = uint32_t(value(m, "a")), b = uint32_t(value(m, "b")), c = uint32_t(value(m, "c"));
  uint32_t x = uint32_t(value(m, "x"));
  uint8_t l = uint8_t(value(m, "lut"));
  // Some slot k with RZ there differs from the LUT folded as all-ones.
  bool differs = false;
  for (unsigned k = 0; k < 3; ++k) {
    uint32_t in[3] = {a, b, c}, other[3] = {a, b, c};
    in[k] = 0;
    other[k] = x;
    differs |=
        lut::apply<uint32_t>(l, in[0], in[1], in[2]) !=
        lut::apply<uint32_t>(lut::foldConstant<uint8_t>(l, k, true), other[0], other[1], other[2]);
  }
  EXPECT_TRUE(differs);
}

// spec/003's sub_91C840 rows: hand-derived counterexamples. Index 4 =
// 0b0100 has only bit (p=1, q=0): XOR is also true at (p=0, q=1), the only
// input where they differ. Index 17 = 0b10001 has bit 0 only among bits
// 0..3: XNOR is also true at (1, 1), the only difference.
TEST(Z3Obligations, SpecTableBooleanRowsAreRefutedWhereHandDerived) {
  ObligationResult x = check("spec003.cmp-table.xor");
  ASSERT_EQ(x.status, ObligationResult::Status::Refuted);
  EXPECT_EQ(asMap(x).at("p"), "false");
  EXPECT_EQ(asMap(x).at("q"), "true");
  ObligationResult n = check("spec003.cmp-table.xnor");
  ASSERT_EQ(n.status, ObligationResult::Status::Refuted);
  EXPECT_EQ(asMap(n).at("p"), "true");
  EXPECT_EQ(asMap(n).at("q"), "true");
  EXPECT_EQ(check("spec003.cmp-table.and").status,
            ObligationResult::Status::Proved); // 8 = 0b1000: (1, 1) only
  EXPECT_EQ(check("spec003.cmp-table.le").status, ObligationResult::Status::Proved); // 3 = lt | eq
}

// Index 16 for GT: as an outcome mask bit 2 (greater) is clear, so any x > y
// is a counterexample; the printed pair really is ordered that way.
TEST(Z3Obligations, SpecTableGtCounterexampleIsAGreaterPair) {
  ObligationResult r = check("spec003.cmp-table.gt");
  ASSERT_EQ(r.status, ObligationResult::Status::Refuted);
  auto m = asMap(r);
  float x = std::bit_cast<float>(uint32_t(value(m, "x"))),
        y = std::bit_cast<float>(uint32_t(value(m, "y")));
  EXPECT_GT(x, y);
  EXPECT_EQ(m.at("setp"), "true");
}

TEST(Z3Obligations, SpecNamedLutsHold) {
  for (const char *n : {"spec003.lut.and-0xC0", "spec003.lut.or-0xFC", "spec003.lut.xor-0x3C",
                        "spec003.lut.nand-0x3F", "spec003.lut.nor-0x03"})
    EXPECT_EQ(check(n).status, ObligationResult::Status::Proved) << n;
}

TEST(Z3Obligations, ResultLines) {
  verify::ObligationInfo o{"x.y", "", true};
  ObligationResult p;
  p.status = ObligationResult::Status::Proved;
  EXPECT_EQ(verify::formatResult(o, p), "proved x.y");
  EXPECT_TRUE(p.asExpected(o));
  ObligationResult f;
  f.status = ObligationResult::Status::Refuted;
  f.counterexample = {{"a", "0x1"}, {"p", "true"}};
  EXPECT_EQ(verify::formatResult(o, f), "refuted x.y: counterexample a=0x1 p=true");
  EXPECT_FALSE(f.asExpected(o));
  EXPECT_TRUE(verify::nameMatches("lop3.fold*", "lop3.fold.rz"));
  EXPECT_TRUE(verify::nameMatches("fold", "lop3.fold.rz"));
  EXPECT_FALSE(verify::nameMatches("lop3.fold", "plop3.compose"));
}

} // namespace
} // namespace ori
