#include "rules/general_optimize_early.h"

#include "rules/general_optimize.h"

namespace ori {

bool isPureComputation(const Instr &in) {
  if (in.isGuarded() || in.op == Opcode::OPAQUE)
    return false;
  if (in.info().is(CONTROL | SIDE_EFFECT | MEMORY | BARRIER | CONVERGENCE | CALL_ | VARIADIC))
    return false;
  if (in.op == Opcode::S2R && !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::SReg) {
    switch (in.srcs[0].sreg) {
    case SpecialReg::CLOCKLO:
    case SpecialReg::CLOCKHI:
    case SpecialReg::GLOBALTIMERLO:
    case SpecialReg::GLOBALTIMERHI:
      return false;
    default:
      break;
    }
  }
  return true;
}

bool sameShape(const Instr &a, const Instr &b) {
  if (a.op != b.op || !(a.mods == b.mods) || !isPureComputation(a) || !isPureComputation(b))
    return false;
  if (a.dsts.size() != b.dsts.size() || a.srcs.size() != b.srcs.size())
    return false;
  for (size_t i = 0; i < a.dsts.size(); ++i)
    if (a.dsts[i].kind != b.dsts[i].kind || a.dsts[i].reg.isConst() != b.dsts[i].reg.isConst())
      return false;
  for (size_t i = 0; i < a.srcs.size(); ++i) {
    const Operand &x = a.srcs[i], &y = b.srcs[i];
    if (x.kind != y.kind || x.neg != y.neg || x.abs != y.abs)
      return false;
    if (x.kind == Operand::Kind::Reg) {
      if (x.reg.isConst() != y.reg.isConst() || x.reg.file != y.reg.file)
        return false;
      if (x.reg.isConst() && x.reg != y.reg)
        return false;
    } else if (!(x == y)) {
      return false;
    }
  }
  return true;
}

namespace {

std::optional<size_t> dstIndex(const Instr &in, Reg r) {
  for (size_t k = 0; k < in.dsts.size(); ++k)
    if (in.dsts[k].kind == Operand::Kind::Reg && in.dsts[k].reg == r)
      return k;
  return std::nullopt;
}

struct Matcher {
  const Function &f;
  uint32_t a, c; // the first block (A) and its successor (C)

  // Register x read at position pa of A and y at position pc of C hold equal
  // values: the same register written neither in A after pa nor in C before
  // pc, or (depth left) both the result, at the same place, of equivalent
  // instructions.
  bool equalValues(Reg x, size_t pa, Reg y, size_t pc, uint32_t depth,
                   std::vector<size_t> &chain) const {
    const auto &ia = f.blocks[a].instrs;
    const auto &ic = f.blocks[c].instrs;
    if (x == y) {
      bool unchanged = true;
      for (size_t k = pa + 1; k < ia.size(); ++k)
        unchanged = unchanged && !writesRegister(ia[k], x);
      for (size_t k = 0; k < pc; ++k)
        unchanged = unchanged && !writesRegister(ic[k], y);
      if (unchanged)
        return true;
    }
    if (depth == 0)
      return false;
    const auto da = lastWriteBefore(ia, pa, x), dc = lastWriteBefore(ic, pc, y);
    if (!da || !dc)
      return false;
    return equivalent(*da, x, *dc, y, depth - 1, chain);
  }

  // Instruction da of A writing x and dc of C writing y compute equal values
  // (sub_753600's shape and modifier checks, sub_1245740 below them).
  bool equivalent(size_t da, Reg x, size_t dc, Reg y, uint32_t depth,
                  std::vector<size_t> &chain) const {
    const Instr &p = f.blocks[a].instrs[da];
    const Instr &q = f.blocks[c].instrs[dc];
    if (!sameShape(p, q) || dstIndex(p, x) != dstIndex(q, y))
      return false;
    for (size_t k = 0; k < p.srcs.size(); ++k) {
      const Operand &s = p.srcs[k], &t = q.srcs[k];
      if (s.kind == Operand::Kind::Reg && !s.reg.isConst() &&
          !equalValues(s.reg, da, t.reg, dc, depth, chain))
        return false;
      const auto sa = s.regRead(), ta = t.regRead();
      if (s.kind != Operand::Kind::Reg && sa && !equalValues(*sa, da, *ta, dc, 0, chain))
        return false;
    }
    chain.push_back(dc);
    return true;
  }
};

} // namespace

std::optional<ConditionMatch> matchEquivalentCondition(const Function &f, uint32_t a, uint32_t c) {
  if (c == 0 || a == c || a >= f.blocks.size() || c >= f.blocks.size())
    return std::nullopt; // the entry is also entered from outside
  const auto &ia = f.blocks[a].instrs;
  const auto &ic = f.blocks[c].instrs;
  if (ia.empty() || ic.empty())
    return std::nullopt;
  const Instr &xa = ia.back();
  const Instr &xc = ic.back();
  const bool kind = xa.op == Opcode::BRA || xa.op == Opcode::EXIT || xa.op == Opcode::RET;
  if (!kind || xc.op != xa.op || !(xc.mods == xa.mods) || !xa.isGuarded() || !xc.isGuarded())
    return std::nullopt;
  if (xa.guard->reg.isConst() || xc.guard->reg.isConst())
    return std::nullopt;
  if (xa.op == Opcode::BRA && !(xa.srcs == xc.srcs))
    return std::nullopt;
  // The value of A's condition when C runs.
  bool conditionA;
  if (xa.op == Opcode::BRA) {
    const uint32_t target = xa.srcs[0].target;
    if (target == a + 1)
      return std::nullopt;
    if (c == target)
      conditionA = true;
    else if (c == a + 1)
      conditionA = false;
    else
      return std::nullopt;
  } else {
    if (c != a + 1)
      return std::nullopt;
    conditionA = false;
  }
  const Reg p = xa.guard->reg, q = xc.guard->reg;
  const auto dp = lastWriteBefore(ia, ia.size() - 1, p), dq = lastWriteBefore(ic, ic.size() - 1, q);
  if (!dp || !dq)
    return std::nullopt;
  ConditionMatch m;
  const Matcher matcher{f, a, c};
  if (!matcher.equivalent(*dp, p, *dq, q, kEquivalenceDepth, m.chain))
    return std::nullopt;
  // P = conditionA xor nA; C's condition = Q xor nC with Q = P.
  m.taken = (conditionA != xa.guard->neg) != xc.guard->neg;
  return m;
}

} // namespace ori
