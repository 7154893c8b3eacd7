// The rules of the GeneralOptimize phases (spec/002; rules/general_optimize.h), one
// obligation each, over the opcode models (verify/opcode_model.h): what phase 29
// replaces an instruction or a use by computes the same value. Each family has a
// deliberately wrong variant (*.wrong-*) that must be refuted.
#include "rules/general_optimize.h"
#include "verify/obligation_defs.h"
#include "verify/opcode_model.h"

namespace ori::verify {
namespace {

ObligationDef def(std::string name, std::string statement, bool holds,
                  std::function<Claim(Smt &)> build) {
  return {{std::move(name), std::move(statement), holds}, std::move(build)};
}

// The 64-bit container instruction `in` writes to its first destination, the
// sources given raw (registers as 64-bit containers, predicates as Booleans).
z3::expr result(Smt &smt, const Instr &in, std::vector<z3::expr> srcs, const std::string &prefix) {
  ModelInputs x = freshInputs(smt, in, prefix);
  x.srcs = std::move(srcs);
  return modelInstr(smt, in, x).value().dsts[0];
}

Instr sel(bool wide, bool negP) {
  Instr in = makeInstr(Opcode::SEL, {Operand::reg_(R(1))},
                       {Operand::reg_(R(2)), Operand::reg_(R(3)), Operand::reg_(P(0), negP)});
  if (wide)
    in.mods.set(Mod::W64);
  return in;
}

Instr mov(bool wide, Operand src) {
  Instr in = makeInstr(Opcode::MOV, {Operand::reg_(R(1))}, {std::move(src)});
  if (wide)
    in.mods.set(Mod::W64);
  return in;
}

// selectAsCopy: a SEL whose predicate is known (PT, !PT after the operand's own `!`)
// writes what the MOV of the picked source writes, at 32 and 64 bits. `wrongPick`
// claims the other source.
Claim selectKnown(Smt &smt, bool wrongPick) {
  const z3::expr a = smt.bvVar("a", 64), b = smt.bvVar("b", 64);
  std::vector<z3::expr> parts;
  for (bool wide : {false, true})
    for (bool negP : {false, true})
      for (bool known : {false, true}) {
        const Instr s = sel(wide, negP);
        const auto copy = selectAsCopy(s, known); // MOV of srcs[0] when known, else srcs[1]
        const z3::expr picked = (known != wrongPick) ? a : b;
        const z3::expr raw = smt.boolVal(known != negP); // the register, before the operand's `!`
        parts.push_back(result(smt, s, {a, b, raw}, "sel.") ==
                        result(smt, *copy, {picked}, "mov."));
      }
  z3::expr all = smt.boolVal(true);
  for (const z3::expr &e : parts)
    all = all && e;
  return {all, {{"a", a}, {"b", b}}, parts};
}

// A SEL of two equal sources is their MOV, whatever the predicate.
Claim selectEqual(Smt &smt) {
  const z3::expr a = smt.bvVar("a", 64), p = smt.boolVar("p");
  std::vector<z3::expr> parts;
  for (bool wide : {false, true}) {
    Instr s = sel(wide, false);
    s.srcs[1] = s.srcs[0];
    const auto copy = selectAsCopy(s, std::nullopt);
    parts.push_back(result(smt, s, {a, a, p}, "sel.") == result(smt, *copy, {a}, "mov."));
  }
  return {parts[0] && parts[1], {{"a", a}, {"p", p}}, parts};
}

// copySource on a 32-bit MOV of a register: the destination equals the source as a
// 64-bit container when the source is zero-extended (its high half 0), so any use
// may read the source instead. `assumeZext` false is the wrong variant.
Claim copy32(Smt &smt, bool assumeZext) {
  const z3::expr s = smt.bvVar("s", 64);
  const z3::expr d = result(smt, mov(false, Operand::reg_(R(2))), {s}, "mov.");
  const z3::expr zext = Smt::zext(Smt::low(s, 32), 64) == s;
  return {assumeZext ? z3::implies(zext, d == s) : d == s, {{"s", s}, {"d", d}}};
}

// A 32-bit MOV of an immediate k in 0 .. 2^31-1 leaves k itself (an immediate
// operand reads as its int64 value at either width); `anyInt32` (k may be
// negative) is the wrong variant.
Claim copyImmediate(Smt &smt, bool anyInt32) {
  const z3::expr k = smt.bvVar("k", 64);
  const z3::expr d = result(smt, mov(false, Operand::immediate(0)), {k}, "mov.");
  const z3::expr inRange =
      anyInt32 ? (Smt::sext(Smt::low(k, 32), 64) == k) : z3::ule(k, smt.bv(0x7fffffff, 64));
  return {z3::implies(inRange, d == k), {{"k", k}, {"d", d}}};
}

// predicateCopySource and replacedUse: for every LUT and input pattern where the rule
// finds a predicate copy Pd = x (or !x), PLOP3's model gives that value, and a use
// `!Pd` reads the combined negation. `flip` (the wrong variant) claims the opposite
// polarity.
Claim predicateCopy(Smt &smt, bool flip) {
  const z3::expr p1 = smt.boolVar("p1"), p2 = smt.boolVar("p2");
  std::vector<z3::expr> parts;
  const std::vector<std::vector<Operand>> patterns = {
      {Operand::reg_(P(1)), Operand::reg_(PT), Operand::reg_(PT)},
      {Operand::reg_(PT), Operand::reg_(P(1), true), Operand::reg_(PT)},
      {Operand::reg_(PT), Operand::reg_(PT), Operand::reg_(P(1))},
      {Operand::reg_(P(1)), Operand::reg_(P(1)), Operand::reg_(PT, true)},
      {Operand::reg_(P(1)), Operand::reg_(P(2)), Operand::reg_(PT)},
  };
  for (size_t k = 0; k < patterns.size(); ++k)
    for (unsigned lut = 0; lut < 256; ++lut) {
      std::vector<Operand> srcs = patterns[k];
      srcs.push_back(Operand::immediate(lut));
      srcs.push_back(Operand::immediate(0));
      Instr in =
          makeInstr(Opcode::PLOP3, {Operand::reg_(P(4)), Operand::reg_(PT)}, srcs, {Mod::LUT});
      const auto copy = predicateCopySource(in);
      if (!copy)
        continue;
      std::vector<z3::expr> raw;
      for (int i = 0; i < 3; ++i)
        raw.push_back(srcs[size_t(i)].reg.isConst() ? smt.boolVal(true)
                      : srcs[size_t(i)].reg == P(1) ? p1
                                                    : p2);
      raw.push_back(Smt::zext(smt.bv(lut, 8), 64));
      raw.push_back(smt.bv(0, 64));
      const z3::expr pd = result(smt, in, raw, "plop3.");
      const z3::expr x = copy->reg == P(1) ? p1 : p2;
      const bool neg = copy->neg != flip;
      parts.push_back(pd == (neg ? !x : x));
      // A use !Pd replaced by the copy reads !(x ^ neg).
      const Operand use = replacedUse(Operand::reg_(P(4), true), *copy);
      parts.push_back((!pd) == ((use.neg != flip) ? !x : x));
    }
  z3::expr all = smt.boolVal(true);
  for (const z3::expr &e : parts)
    all = all && e;
  return {all, {{"p1", p1}, {"p2", p2}}}; // one query: hundreds of tiny parts cost more
}

// plop3ConstantResult: where the rule says a PLOP3's result is constant, the model
// agrees for every input.
Claim plop3Constant(Smt &smt) {
  const z3::expr p1 = smt.boolVar("p1"), p2 = smt.boolVar("p2");
  std::vector<z3::expr> parts;
  for (unsigned lut = 0; lut < 256; ++lut)
    for (bool notB : {false, true}) {
      std::vector<Operand> srcs = {Operand::reg_(P(1)), Operand::reg_(P(2), notB),
                                   Operand::reg_(PT), Operand::immediate(lut),
                                   Operand::immediate(0)};
      Instr in =
          makeInstr(Opcode::PLOP3, {Operand::reg_(P(4)), Operand::reg_(PT)}, srcs, {Mod::LUT});
      const auto c = plop3ConstantResult(in);
      if (!c)
        continue;
      const z3::expr pd =
          result(smt, in, {p1, p2, smt.boolVal(true), Smt::zext(smt.bv(lut, 8), 64), smt.bv(0, 64)},
                 "plop3.");
      parts.push_back(pd == smt.boolVal(*c));
    }
  z3::expr all = smt.boolVal(true);
  for (const z3::expr &e : parts)
    all = all && e;
  return {all, {{"p1", p1}, {"p2", p2}}};
}

// A MOV guarded by a known predicate: true, it is the unguarded MOV; false, it
// leaves the old destination (a NOP). `wrong` claims the false guard still moves.
Claim guardedMove(Smt &smt, bool wrong) {
  const z3::expr s = smt.bvVar("s", 64), old = smt.bvVar("old", 64);
  std::vector<z3::expr> parts;
  for (bool wide : {false, true}) {
    Instr g = mov(wide, Operand::reg_(R(2)));
    g.guard = Operand::reg_(P(0));
    const Instr plain = mov(wide, Operand::reg_(R(2)));
    for (bool known : {true, false}) {
      ModelInputs x = freshInputs(smt, g, "g.");
      x.srcs = {s};
      x.guard = smt.boolVal(known);
      x.oldDsts = {old};
      const z3::expr after = modelInstr(smt, g, x).value().dsts[0];
      const z3::expr expected = known || wrong ? result(smt, plain, {s}, "m.") : old;
      parts.push_back(after == expected);
    }
  }
  z3::expr all = smt.boolVal(true);
  for (const z3::expr &e : parts)
    all = all && e;
  return {all, {{"s", s}, {"old", old}}, parts};
}

} // namespace

std::vector<ObligationDef> spec002Obligations() {
  return {
      def("go.sel-known",
          "SEL with a known predicate writes what MOV of the picked source writes (32, 64 bits)",
          true, [](Smt &s) { return selectKnown(s, false); }),
      def("go.sel-known.wrong-source", "SEL with a known predicate is MOV of the other source",
          false, [](Smt &s) { return selectKnown(s, true); }),
      def("go.sel-equal", "SEL of two equal sources is their MOV, whatever the predicate", true,
          selectEqual),
      def("go.copy32-zext",
          "a 32-bit MOV of a zero-extended register leaves an equal 64-bit container", true,
          [](Smt &s) { return copy32(s, true); }),
      def("go.copy32.wrong-any-register",
          "a 32-bit MOV of any register leaves an equal 64-bit container", false,
          [](Smt &s) { return copy32(s, false); }),
      def("go.copy32-immediate",
          "a 32-bit MOV of an immediate in 0..2^31-1 leaves the immediate's 64-bit value", true,
          [](Smt &s) { return copyImmediate(s, false); }),
      def("go.copy32-immediate.wrong-negative",
          "a 32-bit MOV of any int32 immediate leaves its 64-bit value", false,
          [](Smt &s) { return copyImmediate(s, true); }),
      def("go.predicate-copy",
          "where predicateCopySource finds Pd = x or !x, PLOP3 computes it, and !Pd reads the "
          "combined negation",
          true, [](Smt &s) { return predicateCopy(s, false); }),
      def("go.predicate-copy.wrong-polarity", "predicate copies have the opposite polarity", false,
          [](Smt &s) { return predicateCopy(s, true); }),
      def("go.plop3-constant",
          "where plop3ConstantResult says constant, PLOP3 computes that constant", true,
          plop3Constant),
      def("go.guarded-move",
          "@P MOV with P known true is MOV; with P known false it keeps the destination", true,
          [](Smt &s) { return guardedMove(s, false); }),
      def("go.guarded-move.wrong-false-moves", "@P MOV with P known false still moves", false,
          [](Smt &s) { return guardedMove(s, true); }),
  };
}

} // namespace ori::verify
