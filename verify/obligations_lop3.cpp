// The LOP3/PLOP3 truth-table algebra (rules/lut.h), proven for all inputs
// and all LUTs (symbolic 8-bit LUTs, symbolic 32-bit operands) against the
// opcode models. Each identity has a deliberately wrong variant that Z3 must
// refute with a counterexample (docs/verifier.md lists them).
#include <array>

#include "verify/obligation_defs.h"
#include "verify/opcode_model.h"
#include "verify/z3_lut_ops.h"

namespace ori::verify {

z3::expr lop3Term(Smt &smt, const z3::expr &a, const z3::expr &b, const z3::expr &c,
                  const z3::expr &lut) {
  Instr in;
  in.op = Opcode::LOP3;
  in.mods.set(Mod::LUT);
  in.dsts = {Operand::reg_(R(20))};
  in.srcs = {Operand::reg_(R(10)), Operand::reg_(R(11)), Operand::reg_(R(12)),
             Operand::immediate(0)};
  ModelInputs x = freshInputs(smt, in, "lop3.");
  x.srcs = {Smt::zext(a, 64), Smt::zext(b, 64), Smt::zext(c, 64), Smt::zext(lut, 64)};
  return Smt::low(modelInstr(smt, in, x).value().dsts[0], 32);
}

z3::expr plop3Term(Smt &smt, const z3::expr &p, const z3::expr &q, const z3::expr &r,
                   const z3::expr &lut, bool notP, bool notQ, bool notR) {
  Instr in;
  in.op = Opcode::PLOP3;
  in.mods.set(Mod::LUT);
  in.dsts = {Operand::reg_(P(4)), Operand::reg_(P(5))};
  in.srcs = {Operand::reg_(P(1), notP), Operand::reg_(P(2), notQ), Operand::reg_(P(3), notR),
             Operand::immediate(0), Operand::immediate(0)};
  ModelInputs x = freshInputs(smt, in, "plop3.");
  x.srcs = {p, q, r, Smt::zext(lut, 64), Smt::zext(lut, 64)};
  return modelInstr(smt, in, x).value().dsts[0];
}

namespace {

using Bits = z3::expr;

struct Vars {
  z3::expr a, b, c, lut;
  Shown shown() const { return {{"a", a}, {"b", b}, {"c", c}, {"lut", lut}}; }
};
Vars vars(Smt &smt) {
  return {smt.bvVar("a", 32), smt.bvVar("b", 32), smt.bvVar("c", 32), smt.bvVar("lut", 8)};
}

// bit j of LOP3(a, b, c, lut) is bit (a_j << 2 | b_j << 1 | c_j) of lut; `order`
// gives which operand supplies index bits 2, 1, 0.
Claim lookup(Smt &smt, std::array<int, 3> order) {
  Vars v = vars(smt);
  z3::expr ops[3] = {v.a, v.b, v.c};
  z3::expr r = lop3Term(smt, v.a, v.b, v.c, v.lut);
  z3::expr all = smt.boolVal(true);
  for (unsigned j = 0; j < 32; ++j) {
    z3::expr idx = z3::concat(z3::concat(ops[order[0]].extract(j, j), ops[order[1]].extract(j, j)),
                              ops[order[2]].extract(j, j));
    all = all && r.extract(j, j) == z3::lshr(v.lut, Smt::zext(idx, 8)).extract(0, 0);
  }
  return {all, v.shown()};
}

// LOP3 applied to the canonical tables returns the LUT itself.
Claim canonical(Smt &smt, uint8_t ta, uint8_t tb, uint8_t tc) {
  z3::expr lut = smt.bvVar("lut", 8);
  z3::expr r = lop3Term(smt, smt.bv(ta, 32), smt.bv(tb, 32), smt.bv(tc, 32), lut);
  return {r.extract(7, 0) == lut, {{"lut", lut}, {"result", r}}};
}

// outer(LOP3(a,b,c,l1), LOP3(a,b,c,l2), LOP3(a,b,c,l3)) == LOP3(a, b, c, lutOf(outer, l1, l2, l3)).
template <class LutOf> Claim composition(Smt &smt, LutOf lutOf) {
  Vars v = vars(smt);
  z3::expr l1 = smt.bvVar("l1", 8), l2 = smt.bvVar("l2", 8), l3 = smt.bvVar("l3", 8);
  z3::expr lhs = lop3Term(smt, lop3Term(smt, v.a, v.b, v.c, l1), lop3Term(smt, v.a, v.b, v.c, l2),
                          lop3Term(smt, v.a, v.b, v.c, l3), v.lut);
  z3::expr rhs = lop3Term(smt, v.a, v.b, v.c, lutOf(v.lut, l1, l2, l3));
  Shown s = v.shown();
  s.insert(s.end(), {{"l1", l1}, {"l2", l2}, {"l3", l3}, {"lhs", lhs}, {"rhs", rhs}});
  return bitwiseEqual(lhs, rhs, s);
}

// outer(LOP3(a,b,c,l1), b, a): the direct inputs enter as their canonical tables.
Claim directInputs(Smt &smt, uint8_t tb, uint8_t ta) {
  Vars v = vars(smt);
  z3::expr l1 = smt.bvVar("l1", 8);
  z3::expr lhs = lop3Term(smt, lop3Term(smt, v.a, v.b, v.c, l1), v.b, v.a, v.lut);
  z3::expr rhs =
      lop3Term(smt, v.a, v.b, v.c, lut::compose(v.lut, l1, smt.bv(tb, 8), smt.bv(ta, 8)));
  Shown s = v.shown();
  s.insert(s.end(), {{"l1", l1}, {"lhs", lhs}, {"rhs", rhs}});
  return bitwiseEqual(lhs, rhs, s);
}

Claim withResults(Vars v, const z3::expr &lhs, const z3::expr &rhs) {
  Shown s = v.shown();
  s.insert(s.end(), {{"lhs", lhs}, {"rhs", rhs}});
  return bitwiseEqual(lhs, rhs, s);
}

// LOP3 with input k complemented == LOP3 with negateInput(lut, slot).
Claim negatedInput(Smt &smt, unsigned k, unsigned slot) {
  Vars v = vars(smt);
  z3::expr in[3] = {v.a, v.b, v.c};
  in[k] = ~in[k];
  return withResults(v, lop3Term(smt, in[0], in[1], in[2], v.lut),
                     lop3Term(smt, v.a, v.b, v.c, lut::negateInput(v.lut, slot)));
}

// For each permutation p: LOP3(in[p0], in[p1], in[p2], lut) == LOP3(a, b, c, permute(lut, q)),
// with q = p for the correct rule (q = p's inverse for the wrong variant).
Claim permutation(Smt &smt, bool useInverse) {
  Vars v = vars(smt);
  z3::expr in[3] = {v.a, v.b, v.c};
  const std::array<std::array<unsigned, 3>, 6> perms = {
      {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}};
  z3::expr all = smt.boolVal(true);
  for (const auto &p : perms) {
    std::array<unsigned, 3> q = p;
    if (useInverse)
      for (unsigned k = 0; k < 3; ++k)
        q[p[k]] = k;
    all = all && lop3Term(smt, in[p[0]], in[p[1]], in[p[2]], v.lut) ==
                     lop3Term(smt, v.a, v.b, v.c, lut::permute(v.lut, q));
  }
  return {all, v.shown()};
}

// Input k fixed to RZ (0) or all-ones folds into the LUT; the LUT then
// ignores slot k, so the folded LOP3 may read anything there (here: x).
Claim folding(Smt &smt, bool constantOnes, bool foldAsOnes) {
  Vars v = vars(smt);
  z3::expr x = smt.bvVar("x", 32);
  z3::expr all = smt.boolVal(true);
  for (unsigned k = 0; k < 3; ++k) {
    z3::expr in[3] = {v.a, v.b, v.c}, other[3] = {v.a, v.b, v.c};
    in[k] = smt.bv(constantOnes ? 0xffffffffu : 0, 32);
    other[k] = x;
    all = all &&
          lop3Term(smt, in[0], in[1], in[2], v.lut) ==
              lop3Term(smt, other[0], other[1], other[2], lut::foldConstant(v.lut, k, foldAsOnes));
  }
  Shown s = v.shown();
  s.push_back({"x", x});
  return {all, s};
}

// PLOP3: the same algebra on predicates, `!` source flags and PT/!PT.
struct PVars {
  z3::expr p, q, r, lut;
  Shown shown() const { return {{"p", p}, {"q", q}, {"r", r}, {"lut", lut}}; }
};
PVars pvars(Smt &smt) {
  return {smt.boolVar("p"), smt.boolVar("q"), smt.boolVar("r"), smt.bvVar("lut", 8)};
}

// PLOP3 with `!` on source k == PLOP3 with negateInput(lut, slot).
Claim plopNot(Smt &smt, unsigned slotFor[3]) {
  PVars v = pvars(smt);
  z3::expr all = smt.boolVal(true);
  for (unsigned k = 0; k < 3; ++k)
    all = all && plop3Term(smt, v.p, v.q, v.r, v.lut, k == 0, k == 1, k == 2) ==
                     plop3Term(smt, v.p, v.q, v.r, lut::negateInput(v.lut, slotFor[k]));
  return {all, v.shown()};
}

// PLOP3 with PT (true) or !PT in each slot in turn == the folded LUT.
Claim plopFold(Smt &smt, bool swapConstants) {
  PVars v = pvars(smt);
  z3::expr all = smt.boolVal(true);
  for (unsigned k = 0; k < 3; ++k)
    for (bool value : {false, true}) {
      z3::expr in[3] = {v.p, v.q, v.r};
      in[k] = smt.boolVal(value);
      all = all &&
            plop3Term(smt, in[0], in[1], in[2], v.lut) ==
                plop3Term(smt, v.p, v.q, v.r, lut::foldConstant(v.lut, k, value != swapConstants));
    }
  return {all, v.shown()};
}

Claim plopCompose(Smt &smt, bool swapOuter) {
  PVars v = pvars(smt);
  z3::expr l1 = smt.bvVar("l1", 8), l2 = smt.bvVar("l2", 8), l3 = smt.bvVar("l3", 8);
  z3::expr lhs =
      plop3Term(smt, plop3Term(smt, v.p, v.q, v.r, l1), plop3Term(smt, v.p, v.q, v.r, l2),
                plop3Term(smt, v.p, v.q, v.r, l3), v.lut);
  z3::expr composed = swapOuter ? lut::compose(l1, v.lut, l2, l3) : lut::compose(v.lut, l1, l2, l3);
  Shown s = v.shown();
  s.insert(s.end(), {{"l1", l1}, {"l2", l2}, {"l3", l3}});
  return {lhs == plop3Term(smt, v.p, v.q, v.r, composed), s};
}

// PLOP3 is LOP3 on one bit: each destination is bit 0 of the LOP3 of 0/1 values.
Claim plopIsLop(Smt &smt) {
  PVars v = pvars(smt);
  auto one = [&](const z3::expr &b) { return z3::ite(b, smt.bv(1, 32), smt.bv(0, 32)); };
  z3::expr lop = lop3Term(smt, one(v.p), one(v.q), one(v.r), v.lut);
  return {plop3Term(smt, v.p, v.q, v.r, v.lut) == (lop.extract(0, 0) == smt.bv(1, 1)), v.shown()};
}

ObligationDef def(std::string name, std::string statement, bool holds,
                  std::function<Claim(Smt &)> build) {
  return {{std::move(name), std::move(statement), holds}, std::move(build)};
}

} // namespace

std::vector<ObligationDef> lop3Obligations() {
  using lut::kA, lut::kB, lut::kC;
  std::vector<ObligationDef> v;
  v.push_back(def("lop3.eval.lookup",
                  "bit j of LOP3(a,b,c,lut) is bit (a_j<<2 | b_j<<1 | c_j) of lut", true,
                  [](Smt &s) {
                    return lookup(s, {0, 1, 2});
                  }));
  v.push_back(def("lop3.eval.lookup.wrong-index-order", "the index read as (c_j<<2 | b_j<<1 | a_j)",
                  false, [](Smt &s) {
                    return lookup(s, {2, 1, 0});
                  }));
  v.push_back(def("lop3.eval.canonical",
                  "LOP3(0xF0, 0xCC, 0xAA, lut) == lut: the LUT of F is F(0xF0, 0xCC, 0xAA)", true,
                  [](Smt &s) { return canonical(s, kA, kB, kC); }));
  v.push_back(def("lop3.eval.canonical.wrong-tables", "LOP3(0xAA, 0xCC, 0xF0, lut) == lut", false,
                  [](Smt &s) { return canonical(s, kC, kB, kA); }));
  v.push_back(def("lop3.compose",
                  "LOP3(LOP3(a,b,c,l1), LOP3(a,b,c,l2), LOP3(a,b,c,l3), lut) == LOP3(a,b,c, "
                  "compose(lut,l1,l2,l3))",
                  true, [](Smt &s) {
                    return composition(s, [](const Bits &o, const Bits &x, const Bits &y,
                                             const Bits &z) { return lut::compose(o, x, y, z); });
                  }));
  v.push_back(def("lop3.compose.wrong-operand-order", "the same with compose(l1, lut, l2, l3)",
                  false, [](Smt &s) {
                    return composition(s, [](const Bits &o, const Bits &x, const Bits &y,
                                             const Bits &z) { return lut::compose(x, o, y, z); });
                  }));
  v.push_back(def("lop3.compose.direct-inputs",
                  "LOP3(LOP3(a,b,c,l1), b, a, lut) == LOP3(a,b,c, compose(lut, l1, 0xCC, 0xF0))",
                  true, [](Smt &s) { return directInputs(s, kB, kA); }));
  v.push_back(def("lop3.compose.direct-inputs.wrong-tables",
                  "the same with compose(lut, l1, 0xF0, 0xCC) (slots, not inputs)", false,
                  [](Smt &s) { return directInputs(s, kA, kB); }));
  v.push_back(def("lop3.negate-output", "~LOP3(a,b,c,lut) == LOP3(a,b,c, ~lut)", true, [](Smt &s) {
    Vars x = vars(s);
    return withResults(x, ~lop3Term(s, x.a, x.b, x.c, x.lut),
                       lop3Term(s, x.a, x.b, x.c, lut::negateOutput(x.lut)));
  }));
  v.push_back(def(
      "lop3.negate-output.wrong-dual",
      "~LOP3(a,b,c,lut) == LOP3(a,b,c, compose(lut, ~0xF0, ~0xCC, ~0xAA)) (inputs negated instead)",
      false, [](Smt &s) {
        Vars x = vars(s);
        z3::expr dual = lut::compose(x.lut, s.bv(uint8_t(~kA), 8), s.bv(uint8_t(~kB), 8),
                                     s.bv(uint8_t(~kC), 8));
        return withResults(x, ~lop3Term(s, x.a, x.b, x.c, x.lut), lop3Term(s, x.a, x.b, x.c, dual));
      }));
  for (unsigned k = 0; k < 3; ++k)
    v.push_back(def(std::string("lop3.negate-input.") + "abc"[k],
                    "LOP3 with input complemented == LOP3 with negateInput(lut, k)", true,
                    [k](Smt &s) { return negatedInput(s, k, k); }));
  v.push_back(def("lop3.negate-input.wrong-slot",
                  "LOP3(~a,b,c,lut) == LOP3(a,b,c, negateInput(lut, 2))", false,
                  [](Smt &s) { return negatedInput(s, 0, 2); }));
  v.push_back(def(
      "lop3.permute",
      "for all 6 permutations p: LOP3(in[p0], in[p1], in[p2], lut) == LOP3(a,b,c, permute(lut, p))",
      true, [](Smt &s) { return permutation(s, false); }));
  v.push_back(def("lop3.permute.wrong-inverse", "the same with permute(lut, p^-1)", false,
                  [](Smt &s) { return permutation(s, true); }));
  v.push_back(
      def("lop3.fold.rz",
          "an RZ input folds: LOP3 == LOP3 with foldConstant(lut, k, zero), any value in slot k",
          true, [](Smt &s) { return folding(s, false, false); }));
  v.push_back(def("lop3.fold.ones", "an all-ones input folds: foldConstant(lut, k, ones)", true,
                  [](Smt &s) { return folding(s, true, true); }));
  v.push_back(def("lop3.fold.rz.wrong-constant", "an RZ input folded as all-ones", false,
                  [](Smt &s) { return folding(s, false, true); }));
  v.push_back(
      def("plop3.is-lop3", "PLOP3(p,q,r,lut) is bit 0 of LOP3 on 0/1 values", true, plopIsLop));
  v.push_back(def("plop3.negate-input", "PLOP3 with !P in slot k == PLOP3 with negateInput(lut, k)",
                  true, [](Smt &s) {
                    unsigned slots[3] = {0, 1, 2};
                    return plopNot(s, slots);
                  }));
  v.push_back(def("plop3.negate-input.wrong-slot", "the same with slots a and c exchanged", false,
                  [](Smt &s) {
                    unsigned slots[3] = {2, 1, 0};
                    return plopNot(s, slots);
                  }));
  v.push_back(def("plop3.fold.pt", "PT / !PT in slot k == foldConstant(lut, k, true / false)", true,
                  [](Smt &s) { return plopFold(s, false); }));
  v.push_back(def("plop3.fold.pt.wrong-constant", "PT folded as !PT and !PT as PT", false,
                  [](Smt &s) { return plopFold(s, true); }));
  v.push_back(def("plop3.compose",
                  "PLOP3 fed by three PLOP3s of p, q, r == one PLOP3 with compose(lut, l1, l2, l3)",
                  true, [](Smt &s) { return plopCompose(s, false); }));
  v.push_back(def("plop3.compose.wrong-operand-order", "the same with compose(l1, lut, l2, l3)",
                  false, [](Smt &s) { return plopCompose(s, true); }));
  return v;
}

} // namespace ori::verify
