// The LOP3 claims of spec/003 (OptimizeNestedCondBranches, "LOP3 Truth Table
// Composition", lines 341-357), one obligation each. Claims the spec gets
// wrong are expected to be refuted; docs/spec-notes.md ("LOP3 claims
// (spec/003)") gives the counterexamples.
#include "verify/obligation_defs.h"
#include "verify/opcode_model.h"

namespace ori::verify {
namespace {

ObligationDef def(std::string name, std::string statement, bool holds,
                  std::function<Claim(Smt &)> build) {
  return {{std::move(name), std::move(statement), holds}, std::move(build)};
}

// "LOP3 Ptmp, P0, P1, lut" computes op: on registers (LOP3, the third input
// unused) and on predicates (PLOP3, which is what a predicate needs).
template <class Op> Claim namedLut(Smt &smt, uint8_t lut, Op op) {
  z3::expr a = smt.bvVar("a", 32), b = smt.bvVar("b", 32), c = smt.bvVar("c", 32);
  z3::expr p = smt.boolVar("p"), q = smt.boolVar("q"), r = smt.boolVar("r");
  auto bit = [&](const z3::expr &x) { return z3::ite(x, smt.bv(1, 1), smt.bv(0, 1)); };
  z3::expr onRegs = lop3Term(smt, a, b, c, smt.bv(lut, 8)) == op(a, b);
  z3::expr onPreds = bit(plop3Term(smt, p, q, r, smt.bv(lut, 8))) == op(bit(p), bit(q));
  return {onRegs && onPreds, {{"a", a}, {"b", b}, {"c", c}, {"p", p}, {"q", q}, {"r", r}}};
}

// "TT_combined = TT_outer & TT_inner" (| for OR-chains): the LUT of the
// conjunction of two LOP3s of the same inputs is the AND of their LUTs.
Claim chain(Smt &smt, bool isAnd) {
  z3::expr a = smt.bvVar("a", 32), b = smt.bvVar("b", 32), c = smt.bvVar("c", 32);
  z3::expr l1 = smt.bvVar("l1", 8), l2 = smt.bvVar("l2", 8);
  z3::expr x = lop3Term(smt, a, b, c, l1), y = lop3Term(smt, a, b, c, l2);
  z3::expr lhs = lop3Term(smt, a, b, c, isAnd ? (l1 & l2) : (l1 | l2));
  return bitwiseEqual(lhs, isAnd ? (x & y) : (x | y),
                      {{"a", a}, {"b", b}, {"c", c}, {"l1", l1}, {"l2", l2}});
}

// FSETP.cmp.AND P, _, x, y, PT on binary32 bit patterns.
z3::expr fsetp(Smt &smt, Mod cmp, const z3::expr &x, const z3::expr &y) {
  Instr in;
  in.op = Opcode::FSETP;
  in.mods.set(cmp);
  in.dsts = {Operand::reg_(P(4)), Operand::reg_(P(5))};
  in.srcs = {Operand::reg_(R(10)), Operand::reg_(R(11)), Operand::reg_(PT)};
  ModelInputs m = freshInputs(smt, in, "fsetp.");
  m.srcs = {Smt::zext(x, 64), Smt::zext(y, 64), smt.boolVal(true)};
  return modelInstr(smt, in, m).value().dsts[0];
}

// A comparison row read as the 4-bit SASS comparison code, an outcome mask:
// bit 0 less, bit 1 equal, bit 2 greater, bit 3 unordered (LE = 3, GE = 6,
// NUM = 7, NAN = 8, ..., as FSETP's .LT .. .GEU encode). Claim: for all x, y,
// FSETP.cmp(x, y) is the index's bit of the outcome of comparing x with y.
Claim comparisonRow(Smt &smt, uint8_t index, Mod cmp) {
  z3::expr xb = smt.bvVar("x", 32), yb = smt.bvVar("y", 32);
  z3::expr x = smt.fromBits(xb), y = smt.fromBits(yb);
  z3::expr outcome = z3::ite(
      x.mk_is_nan() || y.mk_is_nan(), smt.bv(3, 8),
      z3::ite(smt.fpLt(x, y), smt.bv(0, 8), z3::ite(smt.fpEq(x, y), smt.bv(1, 8), smt.bv(2, 8))));
  z3::expr maskBit = z3::lshr(smt.bv(index, 8), outcome).extract(0, 0) == smt.bv(1, 1);
  z3::expr r = fsetp(smt, cmp, xb, yb);
  return {r == maskBit, {{"x", xb}, {"y", yb}, {"outcome", outcome}, {"setp", r}}};
}

// A Boolean row read as a two-input truth table in the LOP3 convention: bit
// (p << 1 | q) of the index is op(p, q) (AND = 8, NAND = 7, TRUE = 15 fit it).
template <class Op> Claim booleanRow(Smt &smt, unsigned index, Op op) {
  z3::expr p = smt.boolVar("p"), q = smt.boolVar("q");
  z3::expr idx = Smt::zext(z3::concat(smt.bit(p), smt.bit(q)), 8);
  z3::expr tableBit = z3::lshr(smt.bv(index, 8), idx).extract(0, 0) == smt.bv(1, 1);
  return {tableBit == op(p, q), {{"p", p}, {"q", q}, {"table-bit", tableBit}}};
}

// No way of giving the four outcomes distinct bit positions 0..3 makes every
// comparison row's index the mask of its outcomes.
Claim noEncoding(Smt &smt) {
  z3::expr lt = smt.bvVar("pos_lt", 8), eq = smt.bvVar("pos_eq", 8), gt = smt.bvVar("pos_gt", 8),
           un = smt.bvVar("pos_un", 8);
  z3::expr one = smt.bv(1, 8);
  auto bitAt = [&](const z3::expr &pos) { return z3::shl(one, pos); };
  z3::expr valid = z3::ult(lt, smt.bv(4, 8)) && z3::ult(eq, smt.bv(4, 8)) &&
                   z3::ult(gt, smt.bv(4, 8)) && z3::ult(un, smt.bv(4, 8)) && lt != eq && lt != gt &&
                   lt != un && eq != gt && eq != un && gt != un;
  z3::expr L = bitAt(lt), E = bitAt(eq), G = bitAt(gt), U = bitAt(un);
  z3::expr rows = smt.bv(16, 8) == G && smt.bv(12, 8) == L && smt.bv(1, 8) == E &&
                  smt.bv(3, 8) == (L | E) && smt.bv(11, 8) == (G | E) && smt.bv(2, 8) == (L | G) &&
                  smt.bv(6, 8) == (L | E | G) && smt.bv(5, 8) == U;
  return {!(valid && rows), {{"pos_lt", lt}, {"pos_eq", eq}, {"pos_gt", gt}, {"pos_un", un}}};
}

} // namespace

std::vector<ObligationDef> spec003Obligations() {
  using E = const z3::expr &;
  std::vector<ObligationDef> v;
  v.push_back(def("spec003.lut.and-0xC0", "LOP3/PLOP3 with LUT 0xC0 computes a & b", true,
                  [](Smt &s) { return namedLut(s, 0xC0, [](E a, E b) { return a & b; }); }));
  v.push_back(def("spec003.lut.or-0xFC", "LUT 0xFC computes a | b", true,
                  [](Smt &s) { return namedLut(s, 0xFC, [](E a, E b) { return a | b; }); }));
  v.push_back(def("spec003.lut.xor-0x3C", "LUT 0x3C computes a ^ b", true,
                  [](Smt &s) { return namedLut(s, 0x3C, [](E a, E b) { return a ^ b; }); }));
  v.push_back(def("spec003.lut.nand-0x3F", "LUT 0x3F computes ~(a & b)", true,
                  [](Smt &s) { return namedLut(s, 0x3F, [](E a, E b) { return ~(a & b); }); }));
  v.push_back(def("spec003.lut.nor-0x03", "LUT 0x03 computes ~(a | b)", true,
                  [](Smt &s) { return namedLut(s, 0x03, [](E a, E b) { return ~(a | b); }); }));
  v.push_back(def("spec003.lut.mixed-0xE0",
                  "a && (b || c) in two rounds: LUT 0xF0 & (0xCC | 0xAA) = 0xE0", true, [](Smt &s) {
                    z3::expr a = s.bvVar("a", 32), b = s.bvVar("b", 32), c = s.bvVar("c", 32);
                    return Claim{lop3Term(s, a, b, c, s.bv(0xE0, 8)) == (a & (b | c)),
                                 {{"a", a}, {"b", b}, {"c", c}}};
                  }));
  v.push_back(def("spec003.lut.and-chain",
                  "TT_combined = TT_outer & TT_inner gives the LUT of the conjunction", true,
                  [](Smt &s) { return chain(s, true); }));
  v.push_back(def("spec003.lut.or-chain",
                  "TT_combined = TT_outer | TT_inner gives the LUT of the disjunction", true,
                  [](Smt &s) { return chain(s, false); }));
  // sub_91C840's table (spec/003 line 345): comparison rows as outcome masks.
  struct Row {
    const char *name;
    uint8_t index;
    Mod cmp;
    bool holds;
  };
  const Row rows[] = {{"gt", 16, Mod::GT, false},      {"lt", 12, Mod::LT, false},
                      {"eq", 1, Mod::EQ, false},       {"le", 3, Mod::LE, true},
                      {"ge", 11, Mod::GE, false},      {"ne", 2, Mod::NE, false},
                      {"ordered", 6, Mod::NUM, false}, {"unordered", 5, Mod::NAN_, false}};
  for (const Row &r : rows)
    v.push_back(def(std::string("spec003.cmp-table.") + r.name,
                    std::string("sub_91C840 index ") + std::to_string(r.index) +
                        " is the SASS comparison code of ." + std::string(modText(r.cmp)) +
                        " (outcome 0 lt, 1 eq, 2 gt, 3 unordered selects its bit)",
                    r.holds, [r](Smt &s) { return comparisonRow(s, r.index, r.cmp); }));
  v.push_back(def("spec003.cmp-table.no-outcome-encoding",
                  "no assignment of bits 0..3 to the outcomes lt, eq, gt, unordered makes the "
                  "comparison rows outcome masks",
                  true, noEncoding));
  v.push_back(
      def("spec003.cmp-table.false", "index 0 is the truth table of FALSE", true,
          [](Smt &s) { return booleanRow(s, 0, [&s](E, E) { return s.boolVal(false); }); }));
  v.push_back(def("spec003.cmp-table.and", "index 8 is the truth table of AND", true,
                  [](Smt &s) { return booleanRow(s, 8, [](E p, E q) { return p && q; }); }));
  v.push_back(def("spec003.cmp-table.nand", "index 7 is the truth table of NAND", true,
                  [](Smt &s) { return booleanRow(s, 7, [](E p, E q) { return !(p && q); }); }));
  v.push_back(
      def("spec003.cmp-table.true", "index 15 is the truth table of TRUE", true,
          [](Smt &s) { return booleanRow(s, 15, [&s](E, E) { return s.boolVal(true); }); }));
  v.push_back(def("spec003.cmp-table.xor", "index 4 is the truth table of XOR", false,
                  [](Smt &s) { return booleanRow(s, 4, [](E p, E q) { return p != q; }); }));
  v.push_back(def("spec003.cmp-table.xnor", "index 17 is the truth table of XNOR", false,
                  [](Smt &s) { return booleanRow(s, 17, [](E p, E q) { return p == q; }); }));
  return v;
}

} // namespace ori::verify
