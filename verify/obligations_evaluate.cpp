// The --fold=evaluate rules (rules/general_optimize_evaluate.h;
// docs/general-optimize.md), one obligation per family, over the opcode models
// (verify/opcode_model.h): for each instruction shape the obligation lists, the
// rule is run (with the interpreter's evaluator, interp/evaluate.h, as the
// phases run it) and what it gives is proved to write what the original writes,
// for every value of the registers it keeps symbolic. The folds work on
// constants only, so their obligation covers a list of edge-case constants (the
// instruction's sources symbolic but pinned to each case in turn, so that a
// counterexample names the case). Each family has a deliberately wrong variant
// (*.wrong-*) that must be refuted.
#include <fmt/format.h>

#include <map>
#include <stdexcept>

#include "interp/evaluate.h"
#include "ir/ori.h"
#include "rules/general_optimize_evaluate.h"
#include "verify/obligation_defs.h"
#include "verify/opcode_model.h"

namespace ori::verify {
namespace {

ObligationDef def(std::string name, std::string statement, bool holds,
                  std::function<Claim(Smt &)> build) {
  return {{std::move(name), std::move(statement), holds}, std::move(build)};
}

Operand imm(int64_t v) { return Operand::immediate(v); }
Operand reg(uint32_t n, bool neg = false) { return Operand::reg_(R(n), neg); }
Operand pred(uint32_t n, bool neg = false) { return Operand::reg_(P(n), neg); }
Operand rz() { return Operand::reg_(RZ); }
Operand pt(bool neg = false) { return Operand::reg_(PT, neg); }

Instr instr(Opcode op, std::vector<Operand> dsts, std::vector<Operand> srcs,
            std::initializer_list<Mod> mods = {}) {
  return makeInstr(op, std::move(dsts), std::move(srcs), mods);
}

// Registers as symbolic values: R<n> a 64-bit container "r<n>", P<n> a Boolean "p<n>";
// a register with a known value (a copy of an immediate reaches it) is that constant.
class Registers {
public:
  explicit Registers(Smt &smt) : smt_(smt) {}
  z3::expr term(const Operand &o) {
    if (o.kind == Operand::Kind::Imm)
      return smt_.bv(uint64_t(o.imm), 64);
    if (o.reg.isConst())
      return o.reg.isPredicate() ? smt_.boolVal(true) : smt_.bv(0, 64);
    auto it = regs_.find(o.reg);
    if (it != regs_.end())
      return it->second;
    const std::string n = fmt::format("{}{}", o.reg.isPredicate() ? "p" : "r", o.reg.num);
    z3::expr v = o.reg.isPredicate() ? smt_.boolVar(n) : smt_.bvVar(n, 64);
    regs_.emplace(o.reg, v);
    shown_.emplace_back(n, v);
    return v;
  }
  void pin(Reg r, uint64_t v) { regs_.emplace(r, smt_.bv(v, 64)); }
  const Shown &shown() const { return shown_; }

private:
  Smt &smt_;
  std::map<Reg, z3::expr> regs_;
  Shown shown_;
};

// The destinations `in` writes, its sources bound to `regs` (or to `srcs` if given).
std::vector<z3::expr> outputs(Smt &smt, const Instr &in, Registers &regs, const std::string &prefix,
                              const std::vector<z3::expr> *srcs = nullptr) {
  ModelInputs x = freshInputs(smt, in, prefix);
  for (size_t k = 0; k < in.srcs.size(); ++k)
    x.srcs[k] = srcs && k < srcs->size() ? (*srcs)[k] : regs.term(in.srcs[k]);
  return modelInstr(smt, in, x).value().dsts;
}

// `before` and `after` write the same values to every destination that is not RZ/PT.
z3::expr sameResults(Smt &smt, const Instr &before, const std::vector<z3::expr> &a,
                     const std::vector<z3::expr> &b) {
  z3::expr all = smt.boolVal(a.size() == b.size());
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (!(before.dsts[i].kind == Operand::Kind::Reg && before.dsts[i].reg.isConst()))
      all = all && a[i] == b[i];
  return all;
}

// A case of an identity family: the instruction and the registers pinned to known values.
struct Case {
  Instr in;
  std::vector<std::pair<uint32_t, uint64_t>> known; // R<n> holds the immediate
};

// A deliberately wrong rewrite of a case (given what the rule made of it, if anything).
using Wrong = std::function<Instr(const Instr &in, const std::optional<EvaluateRewrite> &rule)>;

// For each case where the rule applies: the rewrite writes what the instruction writes,
// for all values of its other registers (pinned registers read as their constants in
// both). `minimum`: the rule must apply to at least this many cases (a rule that stops
// firing fails here). With `wrong`, every case's wrong rewrite is claimed instead.
Claim identities(Smt &smt, const std::vector<Case> &cases, size_t minimum,
                 const Wrong &wrong = {}) {
  Registers regs(smt);
  z3::expr all = smt.boolVal(true);
  size_t applied = 0;
  for (const Case &c : cases) {
    std::vector<std::optional<Operand>> known(c.in.srcs.size());
    for (auto [n, v] : c.known)
      for (size_t k = 0; k < c.in.srcs.size(); ++k)
        if (c.in.srcs[k].kind == Operand::Kind::Reg && c.in.srcs[k].reg == R(n))
          known[k] = imm(int64_t(v));
    const auto rw = evaluateRewrite(c.in, known);
    applied += rw.has_value();
    if (!rw && !wrong)
      continue;
    const Instr out = wrong ? wrong(c.in, rw) : rw->instr;
    auto terms = [&](const Instr &in) {
      std::vector<z3::expr> t;
      for (const Operand &s : in.srcs) {
        std::optional<uint64_t> pinned;
        for (auto [n, v] : c.known)
          if (s.kind == Operand::Kind::Reg && s.reg == R(n))
            pinned = v;
        t.push_back(pinned ? smt.bv(*pinned, 64) : regs.term(s));
      }
      return t;
    };
    const auto ta = terms(c.in), tb = terms(out);
    all = all && sameResults(smt, c.in, outputs(smt, c.in, regs, "in.", &ta),
                             outputs(smt, out, regs, "out.", &tb));
  }
  if (!wrong && applied < minimum)
    all = smt.boolVal(false);
  return {all, regs.shown()};
}

// ---------------------------------------------------------------- folds

const std::vector<uint64_t> kValues = {0,
                                       1,
                                       31,
                                       32,
                                       0x7fffffff,
                                       0x80000000,
                                       0xffffffff,
                                       0x100000000ull,
                                       0x8000000000000000ull,
                                       ~uint64_t(0)};
const std::vector<uint64_t> kThirds = {0, 1, 0xffffffff, ~uint64_t(0)};

// The shapes the fold obligation runs: the sources listed are replaced by the case's
// constants (a, b, c in order); the rest stay.
struct Shape {
  Instr in;
  std::vector<size_t> slots;
};

std::vector<Shape> foldShapes() {
  std::vector<Shape> s;
  const Operand d = reg(1);
  for (bool w : {false, true}) {
    Instr a = instr(Opcode::IADD3, {d}, {imm(0), imm(0), imm(0)});
    if (w)
      a.mods.set(Mod::W64);
    s.push_back({a, {0, 1, 2}});
    a.srcs[1].neg = true;
    s.push_back({a, {0, 1, 2}});
    Instr l = instr(Opcode::LOP3, {d}, {imm(0), imm(0), imm(0), imm(0x96)}, {Mod::LUT});
    if (w)
      l.mods.set(Mod::W64);
    s.push_back({l, {0, 1, 2}});
    l.srcs[3] = imm(0xE8);
    s.push_back({l, {0, 1, 2}});
    Instr m = instr(Opcode::IMAD, {d}, {rz(), imm(0), imm(0)});
    if (w)
      m.mods.set(Mod::W64);
    s.push_back({m, {0, 1, 2}});
    Instr sh = instr(Opcode::SHL, {d}, {rz(), imm(0)});
    if (w)
      sh.mods.set(Mod::W64);
    s.push_back({sh, {0, 1}});
  }
  for (auto mods : std::vector<std::vector<Mod>>{
           {Mod::WIDE}, {Mod::WIDE, Mod::U32}, {Mod::HI}, {Mod::HI, Mod::U32}}) {
    Instr m = instr(Opcode::IMAD, {d}, {rz(), imm(0), imm(0)});
    for (Mod x : mods)
      m.mods.set(x);
    s.push_back({m, {0, 1, 2}});
  }
  for (Mod t : {Mod::U32, Mod::S32, Mod::U64, Mod::S64}) {
    s.push_back({instr(Opcode::SHR, {d}, {rz(), imm(0)}, {t}), {0, 1}});
    for (Mod dir : {Mod::L, Mod::R}) {
      s.push_back({instr(Opcode::SHF, {d}, {rz(), imm(0), rz()}, {dir, t}), {0, 1, 2}});
      s.push_back({instr(Opcode::SHF, {d}, {rz(), imm(0), rz()}, {dir, t, Mod::HI}), {0, 1, 2}});
    }
    s.push_back({instr(Opcode::IMNMX, {d}, {imm(0), imm(0), pt()}, {t}), {0, 1}});
    s.push_back({instr(Opcode::IMNMX, {d}, {imm(0), imm(0), pt(true)}, {t}), {0, 1}});
  }
  s.push_back({instr(Opcode::LEA, {d}, {rz(), imm(0), imm(3)}), {0, 1}});
  s.push_back({instr(Opcode::SGXT, {d}, {rz(), imm(0)}), {0, 1}});
  s.push_back({instr(Opcode::PRMT, {d}, {rz(), imm(0x3210), rz()}), {0, 2}});
  s.push_back({instr(Opcode::POPC, {d}, {rz()}), {0}});
  s.push_back({instr(Opcode::BREV, {d}, {rz()}), {0}});
  s.push_back({instr(Opcode::FLO, {d}, {rz()}, {Mod::S32}), {0}});
  return s;
}

// The constant of a 32-bit-or-wider MOV made wrong: sign-extended from 32 bits.
std::optional<Instr> signExtended(const Instr &mov) {
  if (mov.op != Opcode::MOV || mov.srcs[0].kind != Operand::Kind::Imm)
    return mov;
  const int64_t v = int64_t(int32_t(uint32_t(uint64_t(mov.srcs[0].imm))));
  return materializeConstant(mov.dsts[0], uint64_t(v));
}

// Every fold of a shape at the constants of the list: what the rule gives writes what
// the instruction writes. The sources are symbols a, b, c pinned to each case in turn.
Claim folds(Smt &smt, bool wrong) {
  const z3::expr a = smt.bvVar("a", 64), b = smt.bvVar("b", 64), c = smt.bvVar("c", 64);
  const std::vector<z3::expr> vars = {a, b, c};
  z3::expr all = smt.boolVal(true);
  Registers regs(smt);
  size_t folded = 0;
  std::vector<Shape> shapes = foldShapes();
  if (wrong)
    shapes.resize(1); // IADD3 R1, a, b, c: a counterexample names its case
  for (const Shape &sh : shapes) {
    const auto &third = sh.slots.size() > 2 ? kThirds : std::vector<uint64_t>{0};
    for (uint64_t va : kValues)
      for (uint64_t vb : sh.slots.size() > 1 ? kValues : std::vector<uint64_t>{0})
        for (uint64_t vc : third) {
          Instr in = sh.in;
          const uint64_t vs[3] = {va, vb, vc};
          z3::expr pinned = smt.boolVal(true);
          for (size_t j = 0; j < sh.slots.size(); ++j) {
            in.srcs[sh.slots[j]] = imm(int64_t(vs[j]));
            in.srcs[sh.slots[j]].neg = sh.in.srcs[sh.slots[j]].neg;
            pinned = pinned && vars[j] == smt.bv(vs[j], 64);
          }
          const auto rw = evaluateRewrite(in, {});
          if (!rw)
            throw std::logic_error("go.evaluate.fold: a case of constants does not fold: " +
                                   printInstr(Function{}, in));
          ++folded;
          const auto out = wrong ? signExtended(rw->instr) : std::optional<Instr>(rw->instr);
          // Both sides are constants: the equality simplifies to true or false, and a
          // false one is the case the pinned symbols name.
          const z3::expr same =
              sameResults(smt, in, outputs(smt, in, regs, "in."), outputs(smt, *out, regs, "out."));
          all = all && z3::implies(pinned, same.simplify());
        }
  }
  Shown shown = {{"a", a}, {"b", b}, {"c", c}};
  return {folded > 0 ? all : smt.boolVal(false), shown};
}

// ---------------------------------------------------------------- identities

std::vector<Case> iadd3Cases() {
  std::vector<Case> v;
  for (bool w : {false, true}) {
    auto mk = [&](std::vector<Operand> s) {
      Instr in = instr(Opcode::IADD3, {reg(1)}, std::move(s));
      if (w)
        in.mods.set(Mod::W64);
      return in;
    };
    v.push_back({mk({reg(2), imm(0), rz()}), {}});
    v.push_back({mk({rz(), reg(2), rz()}), {}});
    v.push_back({mk({reg(2), reg(3), rz()}), {{3, 0}}});
    v.push_back({mk({reg(2), reg(2, true), reg(3)}), {}});
    v.push_back({mk({reg(2, true), reg(4), reg(2)}), {}});
    v.push_back({mk({reg(2), reg(3), reg(2, true)}), {{3, 5}}});
    v.push_back({mk({reg(2), reg(3, true), reg(4)}), {{3, 0}}});
    v.push_back({mk({reg(2, true), imm(0), rz()}), {}}); // -x: RZ only, no MOV
    v.push_back({mk({reg(2), reg(3), reg(4)}), {{3, 0xffffffff}, {4, 1}}});
  }
  return v;
}

std::vector<Case> imadCases() {
  std::vector<Case> v;
  for (std::vector<Mod> mods : std::vector<std::vector<Mod>>{{},
                                                             {Mod::W64},
                                                             {Mod::U32},
                                                             {Mod::WIDE},
                                                             {Mod::WIDE, Mod::U32},
                                                             {Mod::HI},
                                                             {Mod::HI, Mod::U32}}) {
    auto mk = [&](std::vector<Operand> s) {
      Instr in = instr(Opcode::IMAD, {reg(1)}, std::move(s));
      for (Mod m : mods)
        in.mods.set(m);
      return in;
    };
    v.push_back({mk({reg(2), imm(0), reg(3)}), {}});
    v.push_back({mk({reg(2), rz(), imm(7)}), {}});
    v.push_back({mk({reg(2), reg(3), reg(4)}), {{3, 0}}});
    v.push_back({mk({reg(2), imm(1), rz()}), {}});
    v.push_back({mk({reg(2), imm(1), reg(3)}), {}});
    v.push_back({mk({reg(2, true), reg(3), reg(4)}), {{3, 1}}});
    v.push_back(
        {mk({reg(2), reg(3, true), reg(4)}), {{3, 0xffffffff}}}); // -(2^32-1) is 1 at 32 bits
    v.push_back({mk({reg(2), reg(3, true), reg(4)}), {{3, ~uint64_t(0)}}});
  }
  return v;
}

std::vector<Case> shiftCases() {
  std::vector<Case> v;
  for (bool w : {false, true})
    for (int64_t n : {0, 1, 31, 32, 63, 64, 65}) {
      Instr in = instr(Opcode::SHL, {reg(1)}, {reg(2), imm(n)});
      if (w)
        in.mods.set(Mod::W64);
      v.push_back({in, {}});
    }
  for (Mod t : {Mod::U32, Mod::S32, Mod::U64, Mod::S64})
    for (int64_t n : {0, 1, 31, 32, 63, 64, 65}) {
      v.push_back({instr(Opcode::SHR, {reg(1)}, {reg(2), imm(n)}, {t}), {}});
      v.push_back({instr(Opcode::SHR, {reg(1)}, {reg(2), reg(3)}, {t}), {{3, uint64_t(n)}}});
    }
  return v;
}

std::vector<Case> lop3Cases(bool all) {
  std::vector<Case> v;
  const std::vector<std::vector<Operand>> patterns = {
      {reg(2), rz(), reg(3)},   {reg(2), imm(-1), reg(3)}, {reg(2), reg(2), reg(3)},
      {reg(2), reg(3), reg(2)}, {reg(2), reg(3), reg(4)},  {imm(0xffffffff), reg(2), reg(3)},
      {reg(2), reg(5), reg(3)},
  };
  for (bool w : {false, true})
    for (size_t p = 0; p < patterns.size(); ++p)
      for (unsigned lut = 0; lut < 256; lut += all || p < 3 ? 1 : 7) {
        std::vector<Operand> s = patterns[p];
        s.push_back(imm(lut));
        Instr in = instr(Opcode::LOP3, {reg(1)}, s, {Mod::LUT});
        if (w)
          in.mods.set(Mod::W64);
        v.push_back({in, p == 6 ? std::vector<std::pair<uint32_t, uint64_t>>{{5, w ? ~uint64_t(0)
                                                                                   : 0xffffffff}}
                                : std::vector<std::pair<uint32_t, uint64_t>>{}});
      }
  return v;
}

std::vector<Case> isetpCases() {
  std::vector<Case> v;
  for (Mod cmp : {Mod::LT, Mod::EQ, Mod::LE, Mod::GT, Mod::NE, Mod::GE})
    for (Mod t : {Mod::U32, Mod::S32, Mod::U64, Mod::S64})
      for (Mod op : {Mod::AND, Mod::OR, Mod::XOR})
        for (const Operand &c : {pred(3), pred(3, true), pt(), pt(true)}) {
          v.push_back(
              {instr(Opcode::ISETP, {pred(1), pred(2)}, {reg(2), reg(2), c}, {cmp, t, op}), {}});
          v.push_back(
              {instr(Opcode::ISETP, {pred(1), pt()}, {imm(-5), imm(7), c}, {cmp, t, op}), {}});
          v.push_back(
              {instr(Opcode::ISETP, {pred(1), pred(2)}, {reg(3), imm(0x80000000), c}, {cmp, t, op}),
               {{3, 0x7fffffff}}});
        }
  return v;
}

// PLOP3 cases: predicates are pinned through PT/!PT operands (a known predicate reaches
// the rule as one), repeated and negated inputs, both results kept or the second to PT.
std::vector<Case> plop3Cases() {
  std::vector<Case> v;
  const std::vector<std::vector<Operand>> patterns = {
      {pred(2), pt(), pred(3)},          {pt(true), pred(2), pred(3, true)},
      {pred(2), pred(2, true), pred(3)}, {pred(2), pred(3), pred(2)},
      {pred(2, true), pred(3), pred(4)}, {pt(), pt(true), pt()},
  };
  for (size_t p = 0; p < patterns.size(); ++p)
    for (unsigned lut = 0; lut < 256; ++lut)
      for (bool second : {false, true}) {
        std::vector<Operand> s = patterns[p];
        s.push_back(imm(lut));
        s.push_back(imm(0x5a));
        v.push_back({instr(Opcode::PLOP3, {pred(1), second ? pred(5) : pt()}, s, {Mod::LUT}), {}});
      }
  return v;
}

} // namespace

std::vector<ObligationDef> evaluateObligations() {
  return {
      def("go.evaluate.fold",
          "--fold=evaluate: every fold of an integer instruction of constants (IADD3, LOP3, IMAD "
          "and .WIDE/.HI, SHL, SHR, SHF, IMNMX, LEA, SGXT, PRMT, POPC, BREV, FLO at edge-case "
          "constants) writes what the instruction writes",
          true, [](Smt &s) { return folds(s, false); }),
      def("go.evaluate.fold.wrong-sign-extended",
          "a folded 32-bit IADD3 of constants is its sum sign-extended", false,
          [](Smt &s) { return folds(s, true); }),
      def("go.evaluate.iadd3", "IADD3: x+0 and x-x dropped, one plain term left a MOV", true,
          [](Smt &s) { return identities(s, iadd3Cases(), 14); }),
      def("go.evaluate.iadd3.wrong-same-sign-cancels", "IADD3 x + x + c cancels like x - x + c",
          false,
          [](Smt &s) {
            const std::vector<Case> c = {
                {instr(Opcode::IADD3, {reg(1)}, {reg(2), reg(2), reg(3)}), {}}};
            return identities(s, c, 0, [](const Instr &in, const auto &) {
              return instr(Opcode::MOV, {in.dsts[0]}, {in.srcs[2]});
            });
          }),
      def("go.evaluate.imad", "IMAD: x*0+c = c (.WIDE, .HI too), x*1+0 = x, x*1+c = IADD3 x, c",
          true, [](Smt &s) { return identities(s, imadCases(), 30); }),
      def("go.evaluate.imad.wrong-wide-one",
          "IMAD.WIDE x*1+c is IADD3.64 x, c (the 32-bit product's extension ignored)", false,
          [](Smt &s) {
            const std::vector<Case> c = {
                {instr(Opcode::IMAD, {reg(1)}, {reg(2), imm(1), reg(3)}, {Mod::WIDE}), {}}};
            return identities(s, c, 0, [](const Instr &in, const auto &) {
              return instr(Opcode::IADD3, {in.dsts[0]}, {in.srcs[0], in.srcs[2], rz()}, {Mod::W64});
            });
          }),
      def("go.evaluate.shift", "SHL/SHR by 0 is a MOV, by the width or more (logical) is 0", true,
          [](Smt &s) { return identities(s, shiftCases(), 20); }),
      def("go.evaluate.shift.wrong-arithmetic", "SHR.S32 by 32 or more is 0, like SHR.U32", false,
          [](Smt &s) {
            const std::vector<Case> c = {
                {instr(Opcode::SHR, {reg(1)}, {reg(2), imm(40)}, {Mod::S32}), {}}};
            return identities(s, c, 0, [](const Instr &in, const auto &) {
              return materializeConstant(in.dsts[0], 0);
            });
          }),
      def("go.evaluate.lop3",
          "LOP3: 0 / ~0 and repeated inputs folded into the LUT, ignored inputs dropped, a "
          "single input left a MOV (every LUT)",
          true, [](Smt &s) { return identities(s, lop3Cases(true), 1000); }),
      def("go.evaluate.lop3.wrong-polarity", "LOP3: RZ folded into the LUT as all ones", false,
          [](Smt &s) {
            std::vector<Case> c;
            for (const Case &x : lop3Cases(false))
              if (x.in.srcs[1] == rz() && !x.in.has(Mod::W64))
                c.push_back(x);
            return identities(s, c, 0, [](const Instr &in, const auto &) {
              Instr x = in; // LOP3 R1, R2, <all ones>, R3: what the rule makes of it
              x.srcs[1] = imm(0xffffffff);
              const auto rw = evaluateRewrite(x, {});
              return rw ? rw->instr : x;
            });
          }),
      def("go.evaluate.isetp",
          "ISETP of two constants, or of x against itself, is a PLOP3 of its third predicate", true,
          [](Smt &s) { return identities(s, isetpCases(), 200); }),
      def("go.evaluate.isetp.wrong-reflexive", "ISETP.LE of x against itself is false", false,
          [](Smt &s) {
            std::vector<Case> c = {
                {instr(Opcode::ISETP, {pred(1), pt()}, {reg(2), reg(2), pt()}, {Mod::LE, Mod::S32}),
                 {}}};
            return identities(s, c, 0, [](const Instr &in, const auto &) {
              return instr(Opcode::PLOP3, in.dsts, {pt(), pt(), pt(), imm(0), imm(0)}, {Mod::LUT});
            });
          }),
      def("go.evaluate.plop3",
          "PLOP3: PT/!PT and repeated inputs folded into the LUTs, ignored inputs dropped (every "
          "LUT; both results)",
          true, [](Smt &s) { return identities(s, plop3Cases(), 1000); }),
      def("go.evaluate.plop3.wrong-negation", "PLOP3: !PT folded as PT", false,
          [](Smt &s) {
            std::vector<Case> c;
            for (unsigned lut = 0; lut < 256; ++lut)
              c.push_back({instr(Opcode::PLOP3, {pred(1), pt()},
                                 {pt(true), pred(2), pred(3), imm(lut), imm(0)}, {Mod::LUT}),
                           {}});
            return identities(s, c, 0, [](const Instr &in, const auto &) {
              Instr x = in;
              x.srcs[0] = pt();
              const auto rw = evaluateRewrite(x, {});
              return rw ? rw->instr : x;
            });
          }),
  };
}

} // namespace ori::verify
