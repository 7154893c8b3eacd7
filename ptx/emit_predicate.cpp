// Ori -> PTX: predicate opcodes (emit_impl.h), each as the interpreter means it
// (interp/interp_alu.cpp, docs/interpreter.md): ISETP -> setp p|q; PLOP3 -> and/or/xor/not.pred
// chains (three inputs: a Shannon split). The integer opcodes: ptx/emit_alu.cpp.
#include <fmt/format.h>

#include <algorithm>

#include "ir/ori.h"
#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {

// ------------------------------------------------------------------ predicates

void FnEmitter::emitSetp(const Instr &in, const std::string &cmp, const std::string &type,
                         const std::string &a, const std::string &b) {
  const std::string setp = cmp + type;
  Pred c = predSrc(in, 2);
  Mod op = in.mods.inGroup(ModGroup::BoolOp).value_or(Mod::AND);
  if (in.dsts.size() < 2)
    fail(in.loc, fmt::format("{} needs two predicate destinations", in.info().name));
  for (size_t d = 0; d < 2; ++d)
    if (in.dsts[d].kind != Operand::Kind::Reg || !in.dsts[d].reg.isPredicate())
      fail(in.loc, fmt::format("{}: destination {} must be a predicate", in.info().name, d + 1));
  bool pPT = in.dsts[0].reg.isConst(), qPT = in.dsts[1].reg.isConst();
  if (pPT && qPT)
    return; // both results dropped
  // x = r, y = !r (swapped: x = !r, y = r), the SASS/PTX "p|q" pair.
  auto plain = [&](bool swap) {
    size_t x = swap ? 1 : 0, y = swap ? 0 : 1;
    bool yPT = in.dsts[y].reg.isConst();
    std::string xs = predDst(in, x);
    if (yPT)
      emit(fmt::format("{} {}, {}, {};", setp, xs, a, b));
    else
      emit(fmt::format("{} {}|{}, {}, {};", setp, xs, predDst(in, y), a, b));
  };
  if (c.isConst) {
    auto setBoth = [&](bool v) {
      for (size_t d = 0; d < 2; ++d)
        if (!in.dsts[d].reg.isConst())
          setPred(predDst(in, d), Pred{true, v, {}, false});
    };
    if (op == Mod::AND)
      c.value ? plain(false) : setBoth(false);
    else if (op == Mod::OR)
      c.value ? setBoth(true) : plain(false);
    else
      plain(c.value); // XOR with true negates r
    return;
  }
  const char *bop = op == Mod::OR ? "or" : op == Mod::XOR ? "xor" : "and";
  std::string p = predDst(in, 0);
  if (qPT)
    emit(fmt::format("{}.{}{} {}, {}, {}, {};", cmp, bop, type, p, a, b, predText(c)));
  else
    emit(fmt::format("{}.{}{} {}|{}, {}, {}, {};", cmp, bop, type, p, predDst(in, 1), a, b,
                     predText(c)));
}

void FnEmitter::emitConstCompare(const Instr &in, bool r) {
  Pred c = predSrc(in, 2);
  Mod op = in.mods.inGroup(ModGroup::BoolOp).value_or(Mod::AND);
  if (in.dsts.size() < 2)
    fail(in.loc, fmt::format("{} needs two predicate destinations", in.info().name));
  bool pPT = in.dsts[0].reg.isConst(), qPT = in.dsts[1].reg.isConst();
  if (!c.isConst && !pPT && !qPT &&
      in.dsts[0].reg == in.srcs[2].reg) { // p is written before q reads c
    std::string t = temp(1);
    emit(fmt::format("mov.pred {}, {};", t, c.name));
    c.name = t;
  }
  auto value = [&](bool rv) {
    Pred v = c;
    if (op == Mod::AND && !rv)
      v = Pred{true, false, {}, false};
    if (op == Mod::OR && rv)
      v = Pred{true, true, {}, false};
    if (op == Mod::XOR && rv) {
      if (v.isConst)
        v.value = !v.value;
      else
        v.neg = !v.neg;
    }
    return v;
  };
  if (!pPT)
    setPred(predDst(in, 0), value(r));
  if (!qPT)
    setPred(predDst(in, 1), value(!r));
}

// A function of at most two predicate literals (`t` indexed by (a << 1) | b) as one operand: a
// constant or a literal as it is, else one and/or/xor.pred into `into`.
FnEmitter::Pred FnEmitter::predOfTwo(const std::vector<bool> &t, const Pred &a, const Pred &b,
                                     const std::string &into) {
  auto lit = [](Pred p, bool positive) {
    p.neg = p.neg != !positive;
    return p;
  };
  int ones = int(t[0]) + t[1] + t[2] + t[3];
  if (ones == 0 || ones == 4)
    return Pred{true, ones == 4, {}, false};
  if (t[0] == t[1] && t[2] == t[3])
    return lit(a, t[2]);
  if (t[0] == t[2] && t[1] == t[3])
    return lit(b, t[1]);
  if (ones == 1 || ones == 3) {
    size_t at = 0;
    while (bool(t[at]) != (ones == 1))
      ++at;
    bool a0 = (at >> 1) & 1, b0 = at & 1;
    if (ones == 1)
      emit(fmt::format("and.pred {}, {}, {};", into, predText(lit(a, a0)), predText(lit(b, b0))));
    else
      emit(fmt::format("or.pred {}, {}, {};", into, predText(lit(a, !a0)), predText(lit(b, !b0))));
  } else { // a ^ b or its complement
    emit(fmt::format("xor.pred {}, {}, {};", into, predText(a), predText(lit(b, !t[0]))));
  }
  return Pred{false, false, into, false};
}

// dst = the function `table` of the literals `lits` (at most three, each one the function
// depends on; index bit 2 - k is lits[k] when there are three), printed as and/or/xor/not.pred:
// ptxas reads such a chain into one PLOP3 (a 3-input PLOP3 printed as selp words, lop3 and setp
// made ptxas emit the SEL/LOP3/ISETP it says: +128 bytes of SASS in unstructured_complex).
// Three inputs: a Shannon split on the input that gives the fewest instructions,
// f = x ? A : B, where A or B is a constant or A = !B makes one operation of it.
void FnEmitter::emitPredFunction(const std::string &dst, const std::vector<bool> &table,
                                 const std::vector<Pred> &lits) {
  if (lits.size() < 3) {
    std::vector<bool> t(4);
    for (size_t v = 0; v < 4; ++v)
      t[v] = lits.empty() ? table[0] : lits.size() == 1 ? table[v >> 1] : table[v];
    Pred a = lits.empty() ? Pred{} : lits[0];
    Pred b = lits.size() < 2 ? a : lits[1];
    Pred r = lits.size() == 2 ? predOfTwo(t, a, b, dst) : predOfTwo(t, a, a, dst);
    if (r.isConst || r.name != dst || r.neg)
      setPred(dst, r);
    return;
  }
  auto neg = [](Pred p) {
    p.neg = !p.neg;
    return p;
  };
  auto cost = [](const std::vector<bool> &t) { // operations predOfTwo needs
    bool onlyA = t[0] == t[1] && t[2] == t[3], onlyB = t[0] == t[2] && t[1] == t[3];
    return onlyA || onlyB ? 0 : 1;
  };
  auto isConst = [](const std::vector<bool> &t, bool v) {
    return std::all_of(t.begin(), t.end(), [&](bool e) { return e == v; });
  };
  struct Split {
    int cost = 1 << 20;
    size_t k = 0;
    // 'a': x ? A : 0, 'o': x ? 1 : B, 'A': x ? 0 : B, 'O': x ? A : 1, 'x': A = !B, 'p': B implies
    // A, 'q': A implies B, 'm': any
    char form = 0;
  } best;
  // The cofactors of `table` on input k: A where lits[k] is true, B where it is false, each
  // over v = (first other input << 1) | second other (k's bit is 2 - k of the table index).
  auto cofactors = [&](size_t k, std::vector<bool> &A, std::vector<bool> &B) {
    A.assign(4, false);
    B.assign(4, false);
    for (size_t v = 0; v < 4; ++v) {
      unsigned hi = (v >> 1) & 1, lo = v & 1, idx = 0, j = 0;
      for (size_t m = 0; m < 3; ++m)
        if (m != k)
          idx |= (j++ == 0 ? hi : lo) << (2 - m);
      A[v] = table[idx | (1u << (2 - k))];
      B[v] = table[idx];
    }
  };
  for (size_t k = 0; k < 3; ++k) {
    std::vector<bool> A, B;
    cofactors(k, A, B);
    auto consider = [&](int c, char form) {
      if (c < best.cost)
        best = Split{c, k, form};
    };
    if (isConst(B, false))
      consider(1 + cost(A), 'a');
    if (isConst(A, true))
      consider(1 + cost(B), 'o');
    if (isConst(A, false))
      consider(1 + cost(B), 'A');
    if (isConst(B, true))
      consider(1 + cost(A), 'O');
    bool complement = true;
    for (size_t v = 0; v < 4; ++v)
      complement &= A[v] != B[v];
    if (complement)
      consider(1 + cost(A), 'x');
    bool bInA = true, aInB = true;
    for (size_t v = 0; v < 4; ++v) {
      bInA &= !B[v] || A[v];
      aInB &= !A[v] || B[v];
    }
    if (bInA)
      consider(2 + cost(A) + cost(B), 'p'); // (x & A) | B
    if (aInB)
      consider(2 + cost(A) + cost(B), 'q'); // (!x & B) | A
    consider(3 + cost(A) + cost(B), 'm');
  }
  size_t k = best.k;
  std::vector<bool> A, B;
  std::vector<Pred> rest;
  for (size_t m = 0; m < 3; ++m)
    if (m != k)
      rest.push_back(lits[m]);
  cofactors(k, A, B);
  Pred xk = lits[k];
  auto two = [&](const std::vector<bool> &t) { return predOfTwo(t, rest[0], rest[1], temp(1)); };
  auto op = [&](const char *name, const Pred &p, const Pred &q) {
    emit(fmt::format("{}.pred {}, {}, {};", name, dst, predText(p), predText(q)));
  };
  switch (best.form) {
  case 'a':
    op("and", xk, two(A));
    break;
  case 'o':
    op("or", xk, two(B));
    break;
  case 'A':
    op("and", neg(xk), two(B));
    break;
  case 'O':
    op("or", neg(xk), two(A));
    break;
  case 'x':
    op("xor", neg(xk), two(A));
    break; // x ? A : !A = !(x ^ A)
  case 'p':
  case 'q': {
    bool p = best.form == 'p';
    std::string t1 = temp(1);
    Pred in = two(p ? A : B);
    emit(fmt::format("and.pred {}, {}, {};", t1, predText(p ? xk : neg(xk)), predText(in)));
    Pred other = two(p ? B : A);
    emit(fmt::format("or.pred {}, {}, {};", dst, t1, predText(other)));
    break;
  }
  default: { // (x & A) | (!x & B)
    std::string t1 = temp(1), t2 = temp(1);
    emit(fmt::format("and.pred {}, {}, {};", t1, predText(xk), predText(two(A))));
    emit(fmt::format("and.pred {}, {}, {};", t2, predText(neg(xk)), predText(two(B))));
    emit(fmt::format("or.pred {}, {}, {};", dst, t1, t2));
  }
  }
}

bool FnEmitter::emitPredicate(const Instr &in) {
  switch (in.op) {
  case Opcode::ISETP: {
    auto cmp = in.mods.inGroup(ModGroup::Cmp);
    const char *name = cmp ? compareName(*cmp) : nullptr;
    if (!name || *cmp == Mod::NUM || *cmp == Mod::NAN_ || int(*cmp) > int(Mod::GE))
      fail(in.loc,
           fmt::format("{}: ISETP needs one of .LT .EQ .LE .GT .NE .GE", printInstr(f, in)));
    auto t = intType(in, true);
    // An unsigned comparison of 16-bit registers and 16-bit immediates compares them as .u16
    // (what setp.cmp.u16 lowers to), not through 32-bit copies.
    auto narrow = [&](const Operand &o) {
      if (o.kind == Operand::Kind::Imm)
        return !o.neg && o.imm >= 0 && o.imm <= 0xffff;
      return o.kind == Operand::Kind::Reg && !o.neg && !o.abs && !o.reg.isConst() &&
             o.reg.isGeneral() && regBits(o.reg) == 16;
    };
    if (t == std::pair<unsigned, bool>{32, false} && in.srcs.size() >= 2 && narrow(in.srcs[0]) &&
        narrow(in.srcs[1]) &&
        (in.srcs[0].kind == Operand::Kind::Reg || in.srcs[1].kind == Operand::Kind::Reg))
      t.first = 16;
    std::string a = intSrc(in, 0, t.first), b = intSrc(in, 1, t.first);
    emitSetp(in, fmt::format("setp.{}", name), fmt::format(".{}", typeName(t)), a, b);
    return true;
  }
  case Opcode::PLOP3: {
    Pred x[3] = {predSrc(in, 0), predSrc(in, 1), predSrc(in, 2)};
    uint32_t luts[2] = {uint32_t(immOf(in, 3)) & 0xff, uint32_t(immOf(in, 4)) & 0xff};
    if (in.dsts.size() < 2)
      fail(in.loc, "PLOP3 needs two predicate destinations");
    for (size_t d = 0; d < 2; ++d)
      if (in.dsts[d].kind != Operand::Kind::Reg || !in.dsts[d].reg.isPredicate())
        fail(in.loc, fmt::format("PLOP3: destination {} must be a predicate", d + 1));
    // p is written first: an input it overwrites is copied for q.
    if (!in.dsts[0].reg.isConst() && !in.dsts[1].reg.isConst())
      for (Pred &p : x)
        if (!p.isConst && p.name == regName(in.dsts[0].reg)) {
          std::string t = temp(1);
          emit(fmt::format("mov.pred {}, {};", t, p.name));
          p.name = t;
        }
    for (size_t d = 0; d < 2; ++d) {
      if (in.dsts[d].reg.isConst())
        continue;
      // The function of the non-constant inputs' register values.
      std::vector<size_t> vars;
      for (size_t k = 0; k < 3; ++k)
        if (!x[k].isConst)
          vars.push_back(k);
      std::vector<bool> table(size_t(1) << vars.size());
      for (size_t v = 0; v < table.size(); ++v) {
        unsigned idx = 0;
        for (size_t k = 0; k < 3; ++k) {
          bool bit;
          if (x[k].isConst)
            bit = x[k].value;
          else {
            size_t j = std::find(vars.begin(), vars.end(), k) - vars.begin();
            bit = ((v >> (vars.size() - 1 - j)) & 1) != x[k].neg;
          }
          idx |= unsigned(bit) << (2 - k);
        }
        table[v] = (luts[d] >> idx) & 1;
      }
      // Drop inputs the function does not depend on.
      for (size_t j = vars.size(); j-- > 0;) {
        size_t bit = vars.size() - 1 - j;
        bool depends = false;
        for (size_t v = 0; v < table.size(); ++v)
          depends |= table[v] != table[v ^ (size_t(1) << bit)];
        if (depends)
          continue;
        // Re-pack: remove `bit` from the index.
        std::vector<bool> packed(table.size() / 2);
        for (size_t v = 0; v < table.size(); ++v) {
          if ((v >> bit) & 1)
            continue;
          size_t low = v & ((size_t(1) << bit) - 1), high = v >> (bit + 1);
          packed[(high << bit) | low] = table[v];
        }
        table = std::move(packed);
        vars.erase(vars.begin() + long(j));
      }
      std::vector<Pred> lits;
      for (size_t k : vars) // the table is of the registers' values: their `!` is in it
        lits.push_back(Pred{false, false, x[k].name, false});
      emitPredFunction(predDst(in, d), table, lits);
    }
    return true;
  }
  default:
    return false;
  }
}

} // namespace ori::ptx::emit_detail
