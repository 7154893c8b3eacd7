#include "rules/general_optimize.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "ir/ori.h"

namespace ori {

namespace {

bool hasWidthOver32(const Instr &in) {
  return in.has(Mod::W64) || in.has(Mod::U64) || in.has(Mod::S64) || in.has(Mod::WIDE);
}

bool isImmOrBank(const Operand &o) {
  return o.kind == Operand::Kind::Imm || o.kind == Operand::Kind::FImm ||
         o.kind == Operand::Kind::CBank;
}

bool isFloatInstr(const Instr &in) {
  return in.info().is(FNEG) || in.op == Opcode::HADD2 || in.op == Opcode::HMUL2 ||
         in.op == Opcode::HFMA2;
}

// The first result of PLOP3 `in` as a function of the distinct non-constant
// predicate registers among its three inputs (at most 3): bit m of the
// returned table is the result when register j of `regs` holds bit j of m.
struct Plop3Function {
  std::vector<Reg> regs;
  uint32_t table = 0; // 2^regs.size() bits
};

std::optional<Plop3Function> plop3Function(const Instr &in) {
  if (in.op != Opcode::PLOP3 || in.isGuarded() || in.srcs.size() != 5 || in.dsts.size() != 2)
    return std::nullopt;
  if (in.srcs[3].kind != Operand::Kind::Imm)
    return std::nullopt;
  Plop3Function fn;
  for (int i = 0; i < 3; ++i) {
    const Operand &s = in.srcs[i];
    if (s.kind != Operand::Kind::Reg || !s.reg.isPredicate())
      return std::nullopt;
    if (s.reg.isConst())
      continue;
    bool seen = false;
    for (Reg r : fn.regs)
      seen = seen || r == s.reg;
    if (!seen)
      fn.regs.push_back(s.reg);
  }
  const uint64_t lut = uint64_t(in.srcs[3].imm);
  for (uint32_t m = 0; m < (1u << fn.regs.size()); ++m) {
    unsigned idx = 0;
    for (int i = 0; i < 3; ++i) {
      const Operand &s = in.srcs[i];
      bool v = true; // PT
      for (size_t j = 0; j < fn.regs.size(); ++j)
        if (!s.reg.isConst() && fn.regs[j] == s.reg)
          v = (m >> j) & 1;
      if (s.neg)
        v = !v;
      idx |= unsigned(v) << (2 - i);
    }
    if ((lut >> idx) & 1)
      fn.table |= 1u << m;
  }
  return fn;
}

} // namespace

bool writesRegister(const Instr &in, Reg r) {
  bool writes = false;
  forEachDef(in, [&](Reg d) { writes = writes || d == r; });
  return writes;
}

std::optional<size_t> lastWriteBefore(const std::vector<Instr> &instrs, size_t end, Reg r) {
  for (size_t j = end; j-- > 0;)
    if (writesRegister(instrs[j], r))
      return j;
  return std::nullopt;
}

void addRound(GeneralOptimizeResult &total, const GeneralOptimizeResult &one, uint32_t round) {
  total.counts.usesReplaced += one.counts.usesReplaced;
  total.counts.selectsToCopies += one.counts.selectsToCopies;
  total.counts.guardsResolved += one.counts.guardsResolved;
  total.counts.removed += one.counts.removed;
  total.counts.evaluated += one.counts.evaluated;
  total.counts.rounds = round;
  for (FoldMark m : one.marks) {
    m.round = round;
    total.marks.push_back(m);
  }
}

bool archAllowsPredicateMarking(uint32_t smEncoded) {
  const uint32_t generation = smEncoded >> 12;
  return generation == 4 || generation >= 7;
}

std::optional<Operand> copySource(const Instr &in, bool sourceZeroExtended) {
  if (in.op != Opcode::MOV || in.isGuarded() || in.dsts.size() != 1 || in.srcs.size() != 1)
    return std::nullopt;
  const Operand &d = in.dsts[0];
  if (d.kind != Operand::Kind::Reg || !d.reg.isGeneral() || d.reg.isConst())
    return std::nullopt;
  const Operand &s = in.srcs[0];
  const bool wide = in.has(Mod::W64);
  switch (s.kind) {
  case Operand::Kind::Reg:
    if (s.neg || s.abs || s.reg == d.reg || !s.reg.isGeneral())
      return std::nullopt;
    if (wide || sourceZeroExtended || s.reg.isConst())
      return s;
    return std::nullopt;
  case Operand::Kind::Imm:
    if (wide || (s.imm >= 0 && s.imm <= 0x7fffffff))
      return s;
    return std::nullopt;
  case Operand::Kind::CBank:
    if (wide && !(s.hasReg && s.reg == d.reg))
      return s;
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

bool writesZeroExtended32(const Instr &in, bool guardedToo) {
  if ((in.isGuarded() && !guardedToo) || hasWidthOver32(in) || in.dsts.empty())
    return false;
  switch (in.op) {
  case Opcode::MOV:
    return !in.srcs.empty() && in.srcs[0].kind != Operand::Kind::Symbol;
  case Opcode::S2R: // the window bases are 64-bit addresses
    return !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::SReg &&
           in.srcs[0].sreg != SpecialReg::SWINBASE && in.srcs[0].sreg != SpecialReg::LWINBASE &&
           in.srcs[0].sreg != SpecialReg::CWINBASE;
  case Opcode::IADD3:
  case Opcode::LOP3:
  case Opcode::SEL:
  case Opcode::SHL:
  case Opcode::SHR:
  case Opcode::IMNMX:
  case Opcode::IMAD:
  case Opcode::LEA:
  case Opcode::LDC:
  case Opcode::LDG:
  case Opcode::LDS:
  case Opcode::LDL:
  case Opcode::LD:
  case Opcode::FADD:
  case Opcode::FMUL:
  case Opcode::FFMA:
    return true;
  default:
    return false;
  }
}

std::vector<Reg> alwaysZeroExtended(const Function &f, const std::vector<Reg> &uninitialized) {
  std::vector<std::pair<Reg, bool>>
      writes; // every write of a general register: is it zero-extending
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs) {
      const bool zext = writesZeroExtended32(in, true);
      forEachDef(in, [&](Reg d) {
        if (d.isGeneral())
          writes.emplace_back(d, zext);
      });
    }
  std::sort(writes.begin(), writes.end()); // by register; false before true
  std::vector<Reg> out;
  for (size_t i = 0; i < writes.size(); ++i) {
    const bool first = i == 0 || writes[i - 1].first != writes[i].first;
    // A register's first entry is false if any of its writes is not zero-extending.
    if (first && writes[i].second &&
        !std::binary_search(uninitialized.begin(), uninitialized.end(), writes[i].first))
      out.push_back(writes[i].first);
  }
  return out;
}

std::optional<Operand> predicateCopySource(const Instr &in) {
  const auto fn = plop3Function(in);
  if (!fn || fn->regs.empty())
    return std::nullopt;
  const Operand &d0 = in.dsts[0];
  const Operand &d1 = in.dsts[1];
  if (d0.kind != Operand::Kind::Reg || !d0.reg.isPredicate() || d0.reg.isConst())
    return std::nullopt;
  if (d1.kind != Operand::Kind::Reg || !d1.reg.isConst())
    return std::nullopt;
  // Depends on exactly register j: the table equals x_j or !x_j.
  for (size_t j = 0; j < fn->regs.size(); ++j) {
    uint32_t identity = 0;
    for (uint32_t m = 0; m < (1u << fn->regs.size()); ++m)
      if ((m >> j) & 1)
        identity |= 1u << m;
    const uint32_t all = (1u << (1u << fn->regs.size())) - 1;
    if (fn->table != identity && fn->table != (~identity & all))
      continue;
    if (fn->regs[j] == d0.reg)
      return std::nullopt; // P = !P is no copy
    Operand src = Operand::reg_(fn->regs[j], fn->table != identity);
    return src;
  }
  return std::nullopt;
}

std::optional<bool> plop3ConstantResult(const Instr &in) {
  const auto fn = plop3Function(in);
  if (!fn)
    return std::nullopt;
  const uint32_t all = (1u << (1u << fn->regs.size())) - 1;
  if (fn->table == 0)
    return false;
  if (fn->table == all)
    return true;
  return std::nullopt;
}

std::optional<bool> predicateValueAfter(const Instr &def, const Operand &p) {
  if (def.dsts.empty() || def.dsts[0].kind != Operand::Kind::Reg || def.dsts[0].reg != p.reg)
    return std::nullopt;
  const auto c = plop3ConstantResult(def);
  if (!c)
    return std::nullopt;
  return *c != p.neg;
}

bool mayReplaceUse(const Instr &in, int k, Reg d, const Operand &value,
                   const GeneralOptimizeOptions &opt) {
  if (in.op == Opcode::OPAQUE || in.op == Opcode::CALL)
    return false;
  if (k < 0) {
    return in.guard && in.guard->kind == Operand::Kind::Reg && in.guard->reg == d &&
           value.kind == Operand::Kind::Reg && value.reg.isPredicate();
  }
  if (size_t(k) >= in.srcs.size())
    return false;
  const Operand &use = in.srcs[size_t(k)];
  if (use.kind != Operand::Kind::Reg || use.reg != d)
    return false;
  const OperandSlot *slot = OpInfo::slotAt(in.info().srcs, size_t(k));
  if (!slot || !(slot->kinds & value.kindBit()))
    return false;
  if (value.kind == Operand::Kind::Reg)
    return value.reg.isPredicate() == d.isPredicate();
  // An immediate or a bank: no flags to carry, one such operand per
  // instruction (SASS encodes one), never into a float instruction under
  // limit-fold-fp, never into a barrier or control flow.
  if (use.neg || use.abs)
    return false;
  // A 64-bit copy's immediate into a narrower source would be malformed (and
  // read more than the register's low half): only where it fits.
  if (value.kind == Operand::Kind::Imm && !immediateFits(in, size_t(k), value.imm))
    return false;
  if (in.info().is(CONTROL | BARRIER | CONVERGENCE))
    return false;
  if (opt.limitFoldFp && isFloatInstr(in))
    return false;
  for (size_t i = 0; i < in.srcs.size() && i < 3; ++i)
    if (i != size_t(k) && isImmOrBank(in.srcs[i]))
      return false;
  return true;
}

Operand replacedUse(const Operand &use, const Operand &value) {
  if (value.kind != Operand::Kind::Reg)
    return value;
  Operand r = value;
  if (value.reg.isPredicate()) {
    r.neg = use.neg != value.neg;
  } else {
    r.neg = use.neg;
    r.abs = use.abs;
  }
  return r;
}

bool selectEligible(const Instr &in, const GeneralOptimizeOptions &opt) {
  if (in.op != Opcode::SEL || in.isGuarded() || in.dsts.size() != 1 || in.srcs.size() != 3)
    return false;
  const Operand &d = in.dsts[0];
  if (d.kind != Operand::Kind::Reg || !d.reg.isGeneral() || d.reg.isConst())
    return false;
  return !in.has(Mod::W64) || opt.smEncoded <= 20479;
}

std::optional<Instr> selectAsCopy(const Instr &in, std::optional<bool> known) {
  const Operand *pick = nullptr;
  if (known)
    pick = *known ? &in.srcs[0] : &in.srcs[1];
  else if (in.srcs[0] == in.srcs[1])
    pick = &in.srcs[0];
  if (!pick)
    return std::nullopt;
  Instr mov = makeInstr(Opcode::MOV, {in.dsts[0]}, {*pick});
  if (in.has(Mod::W64))
    mov.mods.set(Mod::W64);
  mov.loc = in.loc;
  return mov;
}

std::string formatFoldMarks(const std::vector<FoldMark> &marks) {
  std::string out;
  for (const FoldMark &m : marks) {
    std::string names;
    auto add = [&](uint16_t bit, const char *name) {
      if (!(m.mask & bit))
        return;
      if (!names.empty())
        names += '|';
      names += name;
    };
    add(kFoldPropagated, "propagated");
    add(kFoldDeferred, "deferred");
    add(kFoldUnderPredicate, "under-predicate");
    const std::string round = m.round > 1 ? fmt::format("round {} ", m.round) : "";
    out += fmt::format("fold-marks: {}bix{} #{} dst{} 0x{:x} {} uses={}\n", round, m.bix, m.index,
                       m.dst, m.mask, names, m.uses);
  }
  return out;
}

} // namespace ori
