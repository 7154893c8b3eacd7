#include "rules/general_optimize_evaluate.h"

#include <array>

#include "interp/evaluate.h"

namespace ori {

namespace {

constexpr std::array<uint8_t, 3> kInputs = {0xF0, 0xCC, 0xAA}; // the LUTs of a, b, c (rules/lut.h)

uint64_t maskBits(uint64_t v, unsigned bits) {
  return bits >= 64 ? v : v & ((uint64_t(1) << bits) - 1);
}

// The value an integer source reads at `bits` bits (its `-` applied), when it is a constant.
std::optional<uint64_t> constValue(const Operand &o, unsigned bits) {
  if (o.abs)
    return std::nullopt;
  uint64_t v;
  if (o.kind == Operand::Kind::Imm)
    v = uint64_t(o.imm);
  else if (o.kind == Operand::Kind::Reg && o.reg.isConst() && o.reg.isGeneral())
    v = 0;
  else
    return std::nullopt;
  if (o.neg)
    v = uint64_t(0) - v;
  return maskBits(v, bits);
}

// The value of a predicate source (its `!` applied), when it is PT or !PT.
std::optional<bool> constPred(const Operand &o) {
  if (o.kind != Operand::Kind::Reg || !o.reg.isPredicate() || !o.reg.isConst())
    return std::nullopt;
  return !o.neg;
}

bool isConstant(const Operand &o) {
  if (o.abs)
    return false;
  return o.kind == Operand::Kind::Imm || (o.kind == Operand::Kind::Reg && o.reg.isConst());
}

// A source a MOV can take in its place: a register of file R, an immediate or a
// constant bank, without `-` or `|..|` (MOV reads it as the instruction did).
bool plainValue(const Operand &o) {
  if (o.neg || o.abs)
    return false;
  if (o.kind == Operand::Kind::Reg)
    return o.reg.file == RegFile::R;
  return o.kind == Operand::Kind::Imm || o.kind == Operand::Kind::CBank;
}

Instr movOf(const Operand &d, const Operand &s, bool wide) {
  Instr m = makeInstr(Opcode::MOV, {d}, {s});
  if (wide)
    m.mods.set(Mod::W64);
  return m;
}

// Whether the evaluator runs this opcode with these modifiers: the instruction
// with every non-immediate source made RZ or PT.
bool modelled(const Instr &in) {
  Instr probe = in;
  probe.guard.reset();
  for (Operand &s : probe.srcs)
    if (s.kind != Operand::Kind::Imm)
      s = Operand::reg_(s.kind == Operand::Kind::Reg && s.reg.isPredicate() ? PT : RZ);
  for (Operand &d : probe.dsts)
    if (d.kind == Operand::Kind::Reg && !d.reg.isConst())
      d = Operand::reg_(d.reg.isPredicate() ? P(0) : R(0));
  return evaluateConstant(probe).has_value();
}

// ---------------------------------------------------------------- the LUT reducer

struct LutReduction {
  std::vector<uint8_t> luts;
  std::array<bool, 3> dropped{};
};

// Each LUT of `luts` is a function of slots 0..2. constant[k]: slot k's value is
// known (all zeros / false, all ones / true); same[k] = j < k: slot k holds what
// slot j holds. Constant and repeated slots are folded into every LUT, then slots
// no LUT depends on are dropped. Every LUT stays the same function of the slots
// left.
std::optional<LutReduction> reduceLuts(std::vector<uint8_t> luts,
                                       const std::array<std::optional<bool>, 3> &constant,
                                       const std::array<int, 3> &same) {
  LutReduction r;
  auto substitute = [&](size_t k, uint8_t table) -> bool {
    for (uint8_t &l : luts) {
      std::array<uint8_t, 3> in = kInputs;
      in[k] = table;
      const auto v = lutApply(l, in[0], in[1], in[2]);
      if (!v)
        return false;
      l = *v;
    }
    return true;
  };
  for (size_t k = 0; k < 3; ++k)
    if (constant[k]) {
      if (!substitute(k, *constant[k] ? 0xFF : 0x00))
        return std::nullopt;
      r.dropped[k] = true;
    }
  for (size_t k = 0; k < 3; ++k)
    if (!r.dropped[k] && same[k] >= 0 && !r.dropped[size_t(same[k])]) {
      if (!substitute(k, kInputs[size_t(same[k])]))
        return std::nullopt;
      r.dropped[k] = true;
    }
  for (size_t k = 0; k < 3; ++k) {
    if (r.dropped[k])
      continue;
    bool ignored = true;
    for (uint8_t l : luts) {
      std::array<uint8_t, 3> zero = kInputs, ones = kInputs;
      zero[k] = 0x00;
      ones[k] = 0xFF;
      const auto a = lutApply(l, zero[0], zero[1], zero[2]),
                 b = lutApply(l, ones[0], ones[1], ones[2]);
      if (!a || !b)
        return std::nullopt;
      ignored = ignored && *a == *b;
    }
    r.dropped[k] = ignored;
  }
  r.luts = std::move(luts);
  return r;
}

std::optional<uint8_t> lutImmediate(const Operand &o) {
  if (o.kind != Operand::Kind::Imm || o.imm < 0 || o.imm > 0xff || o.neg || o.abs)
    return std::nullopt;
  return uint8_t(o.imm);
}

// ---------------------------------------------------------------- the rules

std::optional<Instr> iadd3Rule(const Instr &in, const Instr &view) {
  const unsigned w = in.has(Mod::W64) ? 64 : 32;
  std::array<bool, 3> drop{};
  for (size_t k = 0; k < 3; ++k) {
    const auto c = constValue(view.srcs[k], w);
    drop[k] = c && *c == 0;
  }
  for (size_t j = 0; j < 3; ++j) // x - x
    for (size_t k = j + 1; k < 3; ++k) {
      const Operand &x = in.srcs[j], &y = in.srcs[k];
      if (drop[j] || drop[k] || x.kind != Operand::Kind::Reg || y.kind != Operand::Kind::Reg)
        continue;
      if (x.reg == y.reg && !x.reg.isConst() && x.reg.isGeneral() && x.neg != y.neg && !x.abs &&
          !y.abs)
        drop[j] = drop[k] = true;
    }
  std::vector<size_t> left;
  uint64_t sum = 0;
  bool allConstant = true;
  for (size_t k = 0; k < 3; ++k)
    if (!drop[k]) {
      left.push_back(k);
      const auto c = constValue(view.srcs[k], w);
      allConstant = allConstant && c;
      if (c)
        sum += *c;
    }
  if (allConstant)
    return materializeConstant(in.dsts[0], maskBits(sum, w));
  if (left.size() == 1 && plainValue(in.srcs[left[0]]))
    return movOf(in.dsts[0], in.srcs[left[0]], w == 64);
  Instr r = in;
  for (size_t k = 0; k < 3; ++k)
    if (drop[k])
      r.srcs[k] = Operand::reg_(RZ);
  return r;
}

std::optional<Instr> imadRule(const Instr &in, const Instr &view) {
  const bool wide = in.has(Mod::WIDE), hi = in.has(Mod::HI);
  const unsigned wab = wide || hi ? 32 : in.has(Mod::W64) ? 64 : 32;
  const unsigned wc = wide ? 64 : wab;
  const auto a = constValue(view.srcs[0], wab), b = constValue(view.srcs[1], wab),
             c = constValue(view.srcs[2], wc);
  if ((a && *a == 0) ||
      (b && *b == 0)) { // x*0 + c = c (.WIDE: c's 64 bits; .HI: the high half of 0, plus c)
    if (c)
      return materializeConstant(in.dsts[0], *c);
    if (plainValue(in.srcs[2]))
      return movOf(in.dsts[0], in.srcs[2], wc == 64);
    return std::nullopt;
  }
  if (wide || hi)
    return std::nullopt;
  for (size_t one = 0; one < 2; ++one) {
    const auto &v = one == 0 ? a : b;
    if (!v || *v != 1)
      continue;
    const size_t other = 1 - one;
    if (c && *c == 0) {
      if (plainValue(in.srcs[other]))
        return movOf(in.dsts[0], in.srcs[other], wab == 64);
      return std::nullopt;
    }
    Instr r =
        makeInstr(Opcode::IADD3, {in.dsts[0]}, {in.srcs[other], in.srcs[2], Operand::reg_(RZ)});
    if (wab == 64)
      r.mods.set(Mod::W64);
    return r;
  }
  return std::nullopt;
}

std::optional<Instr> shiftRule(const Instr &in, const Instr &view) {
  unsigned w;
  bool arithmetic = false;
  if (in.op == Opcode::SHL) {
    w = in.has(Mod::W64) ? 64 : 32;
  } else {
    w = in.has(Mod::U64) || in.has(Mod::S64) ? 64 : 32;
    arithmetic = in.has(Mod::S32) || in.has(Mod::S64);
  }
  const auto amount = constValue(view.srcs[1], 32); // the interpreter reads the amount at 32 bits
  if (!amount)
    return std::nullopt;
  if (*amount == 0 && plainValue(in.srcs[0]))
    return movOf(in.dsts[0], in.srcs[0], w == 64);
  if (*amount >= w && !arithmetic)
    return materializeConstant(in.dsts[0], 0);
  return std::nullopt;
}

std::optional<Instr> lop3Rule(const Instr &in, const Instr &view) {
  const unsigned w = in.has(Mod::W64) ? 64 : 32;
  const auto lut = lutImmediate(in.srcs[3]);
  if (!lut)
    return std::nullopt;
  std::array<std::optional<bool>, 3> constant;
  std::array<int, 3> same = {-1, -1, -1};
  for (size_t k = 0; k < 3; ++k) {
    if (const auto c = constValue(view.srcs[k], w)) {
      if (*c == 0)
        constant[k] = false;
      else if (*c == maskBits(~uint64_t(0), w))
        constant[k] = true;
    }
    for (size_t j = 0; j < k && same[k] < 0; ++j)
      if (in.srcs[j] == in.srcs[k] &&
          !(in.srcs[k].kind == Operand::Kind::CBank && in.srcs[k].hasReg))
        same[k] = int(j);
  }
  const auto red = reduceLuts({*lut}, constant, same);
  if (!red)
    return std::nullopt;
  const uint8_t l = red->luts[0];
  std::vector<size_t> left;
  for (size_t k = 0; k < 3; ++k)
    if (!red->dropped[k])
      left.push_back(k);
  if (left.empty())
    return materializeConstant(in.dsts[0], l ? maskBits(~uint64_t(0), w) : 0);
  if (left.size() == 1 && l == kInputs[left[0]] && plainValue(in.srcs[left[0]]))
    return movOf(in.dsts[0], in.srcs[left[0]], w == 64);
  Instr r = in;
  bool dropped = false; // an input read before and not now (a new LUT alone is no gain)
  for (size_t k = 0; k < 3; ++k)
    if (red->dropped[k] && !(in.srcs[k] == Operand::reg_(RZ))) {
      r.srcs[k] = Operand::reg_(RZ);
      dropped = true;
    }
  if (!dropped)
    return std::nullopt;
  r.srcs[3] = Operand::immediate(l);
  return r;
}

std::optional<Instr> plop3Rule(const Instr &in, const Instr &view) {
  const auto l0 = lutImmediate(in.srcs[3]), l1 = lutImmediate(in.srcs[4]);
  if (!l0 || !l1)
    return std::nullopt;
  for (size_t k = 0; k < 3; ++k)
    if (in.srcs[k].kind != Operand::Kind::Reg || !in.srcs[k].reg.isPredicate() || in.srcs[k].abs)
      return std::nullopt;
  // The second result matters unless it goes to PT.
  const bool second = !(in.dsts[1].kind == Operand::Kind::Reg && in.dsts[1].reg.isConst());
  std::vector<uint8_t> luts = {*l0};
  if (second)
    luts.push_back(*l1);
  // The `!` of a variable slot is absorbed into the LUTs, and put back for the slots kept.
  std::array<std::optional<bool>, 3> constant;
  std::array<int, 3> same = {-1, -1, -1};
  auto negate = [&](size_t k) -> bool {
    for (uint8_t &l : luts) {
      std::array<uint8_t, 3> t = kInputs;
      t[k] = uint8_t(~kInputs[k]);
      const auto v = lutApply(l, t[0], t[1], t[2]);
      if (!v)
        return false;
      l = *v;
    }
    return true;
  };
  for (size_t k = 0; k < 3; ++k) {
    constant[k] = constPred(view.srcs[k]);
    if (constant[k])
      continue;
    if (in.srcs[k].neg && !negate(k))
      return std::nullopt;
    for (size_t j = 0; j < k && same[k] < 0; ++j)
      if (!constant[j] && in.srcs[j].reg == in.srcs[k].reg)
        same[k] = int(j);
  }
  auto red = reduceLuts(luts, constant, same);
  if (!red)
    return std::nullopt;
  luts = red->luts;
  for (size_t k = 0; k < 3; ++k)
    if (!red->dropped[k] && in.srcs[k].neg && !negate(k))
      return std::nullopt;
  Instr r = in;
  bool dropped = false; // an input read before and not now (a new LUT alone is no gain)
  for (size_t k = 0; k < 3; ++k)
    if (red->dropped[k] && !(in.srcs[k] == Operand::reg_(PT))) {
      r.srcs[k] = Operand::reg_(PT);
      dropped = true;
    }
  if (!dropped)
    return std::nullopt;
  r.srcs[3] = Operand::immediate(luts[0]);
  if (second)
    r.srcs[4] = Operand::immediate(luts[1]);
  return r;
}

std::optional<Instr> isetpRule(const Instr &in, const Instr &view) {
  const auto cmp = in.mods.inGroup(ModGroup::Cmp);
  if (!cmp)
    return std::nullopt;
  const Mod boolOp = in.mods.inGroup(ModGroup::BoolOp).value_or(Mod::AND);
  std::optional<bool> r;
  if (isConstant(view.srcs[0]) && isConstant(view.srcs[1])) {
    // The comparison alone, as the evaluator makes it: r AND PT.
    Instr probe = view;
    probe.srcs[2] = Operand::reg_(PT);
    probe.mods.reset(Mod::OR);
    probe.mods.reset(Mod::XOR);
    if (const auto v = evaluateConstant(probe))
      r = (*v)[0] != 0;
  } else if (in.srcs[0] == in.srcs[1] && in.srcs[0].kind == Operand::Kind::Reg) {
    switch (*cmp) { // x against itself
    case Mod::EQ:
    case Mod::LE:
    case Mod::GE:
      r = true;
      break;
    case Mod::LT:
    case Mod::NE:
    case Mod::GT:
      r = false;
      break;
    default:
      break;
    }
  }
  if (!r)
    return std::nullopt;
  auto combine = [&](bool x, bool c) {
    return boolOp == Mod::OR ? x || c : boolOp == Mod::XOR ? x != c : x && c;
  };
  const auto c = constPred(view.srcs[2]);
  if (view.srcs[2].kind != Operand::Kind::Reg || !view.srcs[2].reg.isPredicate())
    return std::nullopt;
  std::vector<Operand> srcs;
  uint8_t lut[2];
  for (int d = 0; d < 2; ++d) {
    const bool x = d == 0 ? *r : !*r;
    if (c)
      lut[d] = combine(x, *c) ? 0xFF : 0x00;
    else
      lut[d] = uint8_t((combine(x, true) ? 0xF0 : 0) |
                       (combine(x, false) ? 0x0F : 0)); // a function of slot 0
  }
  srcs.push_back(c ? Operand::reg_(PT) : in.srcs[2]);
  srcs.push_back(Operand::reg_(PT));
  srcs.push_back(Operand::reg_(PT));
  srcs.push_back(Operand::immediate(lut[0]));
  srcs.push_back(Operand::immediate(lut[1]));
  return makeInstr(Opcode::PLOP3, in.dsts, srcs, {Mod::LUT});
}

} // namespace

const char *evaluateRuleName(EvaluateRule r) {
  switch (r) {
  case EvaluateRule::Fold:
    return "fold";
  case EvaluateRule::Iadd3:
    return "iadd3";
  case EvaluateRule::Imad:
    return "imad";
  case EvaluateRule::Shift:
    return "shift";
  case EvaluateRule::Lop3:
    return "lop3";
  case EvaluateRule::Isetp:
    return "isetp";
  case EvaluateRule::Plop3:
    return "plop3";
  }
  return "?";
}

Instr materializeConstant(const Operand &d, uint64_t container) {
  return movOf(d, Operand::immediate(int64_t(container)), container > 0xffffffffu);
}

std::optional<uint8_t> lutApply(uint8_t lut, uint8_t x, uint8_t y, uint8_t z) {
  const Instr in = makeInstr(Opcode::LOP3, {Operand::reg_(R(0))},
                             {Operand::immediate(x), Operand::immediate(y), Operand::immediate(z),
                              Operand::immediate(lut)},
                             {Mod::LUT});
  const auto v = evaluateConstant(in);
  if (!v)
    return std::nullopt;
  return uint8_t((*v)[0] & 0xff);
}

std::optional<EvaluateRewrite> evaluateRewrite(const Instr &in,
                                               const std::vector<std::optional<Operand>> &known) {
  if (in.isGuarded() || (!known.empty() && known.size() != in.srcs.size()))
    return std::nullopt;
  const bool predicates = in.op == Opcode::ISETP || in.op == Opcode::PLOP3;
  if (!evaluatedOpcode(in.op))
    return std::nullopt;
  if (in.dsts.size() != dstCount(in.op, in.mods) || in.srcs.size() != in.info().srcs.size())
    return std::nullopt;
  for (Mod m : in.mods.list()) // a modifier the opcode does not take is one nothing models
    if (!in.info().allowedMods.test(m))
      return std::nullopt;
  for (size_t i = 0; i < in.dsts.size(); ++i) {
    const Operand &d = in.dsts[i];
    if (d.kind != Operand::Kind::Reg)
      return std::nullopt;
    if (predicates ? d.reg.file != RegFile::P : (d.reg.file != RegFile::R || d.reg.isConst()))
      return std::nullopt;
  }
  // The instruction as the rules see it: sources whose register holds a known constant replaced by
  // it.
  Instr view = in;
  for (size_t k = 0; k < known.size(); ++k) {
    const Operand &s = in.srcs[k];
    if (!known[k] || s.kind != Operand::Kind::Reg || s.reg.isConst() || s.abs)
      continue;
    const Operand &v = *known[k];
    if (s.reg.isPredicate()) {
      if (v.kind == Operand::Kind::Reg && v.reg.isPredicate() && v.reg.isConst())
        view.srcs[k] = Operand::reg_(PT, s.neg != v.neg);
    } else if (v.kind == Operand::Kind::Imm) {
      view.srcs[k] = Operand::immediate(v.imm);
      view.srcs[k].neg = s.neg;
    } else if (v.kind == Operand::Kind::Reg && v.reg.isConst() && v.reg.isGeneral() && !v.neg) {
      view.srcs[k] = Operand::reg_(RZ, s.neg);
    }
  }
  if (!modelled(in))
    return std::nullopt;
  bool allConstant = true;
  for (const Operand &s : view.srcs)
    allConstant = allConstant && isConstant(s);
  std::optional<Instr> out;
  EvaluateRule rule = EvaluateRule::Fold;
  if (allConstant && !predicates) {
    if (const auto v = evaluateConstant(view))
      out = materializeConstant(in.dsts[0], (*v)[0]);
  } else {
    switch (in.op) {
    case Opcode::IADD3:
      rule = EvaluateRule::Iadd3;
      out = iadd3Rule(in, view);
      break;
    case Opcode::IMAD:
      rule = EvaluateRule::Imad;
      out = imadRule(in, view);
      break;
    case Opcode::SHL:
    case Opcode::SHR:
      rule = EvaluateRule::Shift;
      out = shiftRule(in, view);
      break;
    case Opcode::LOP3:
      rule = EvaluateRule::Lop3;
      out = lop3Rule(in, view);
      break;
    case Opcode::ISETP:
      rule = EvaluateRule::Isetp;
      out = isetpRule(in, view);
      break;
    case Opcode::PLOP3:
      rule = EvaluateRule::Plop3;
      out = plop3Rule(in, view);
      break;
    default:
      break;
    }
  }
  if (!out || *out == in)
    return std::nullopt;
  out->loc = in.loc;
  EvaluateRewrite rw{std::move(*out), rule, {}};
  const std::vector<Reg> reads = rw.instr.uses();
  for (size_t k = 0; k < in.srcs.size(); ++k) {
    if (view.srcs[k] == in.srcs[k])
      continue;
    bool read = false;
    for (Reg u : reads)
      read = read || u == in.srcs[k].reg;
    if (!read)
      rw.consumed.push_back(k);
  }
  return rw;
}

} // namespace ori
