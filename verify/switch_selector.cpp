// The selector of a switch head (verify/switch_extract_impl.h): the operand and instruction
// shapes the extractor reads, the registers a head may dispatch on (switchHeadSelectors) and
// the bound the head block puts on its selector (selectorBound).
#include "verify/switch_extract.h"
#include "verify/switch_extract_impl.h"

#include <algorithm>
#include <string>

#include "ir/ori.h"
#include "rules/lut.h"

namespace ori::verify {

// The 32-bit value of an immediate or RZ source as the interpreter reads it
// (a negated immediate is negated); nullopt for anything else.
std::optional<uint32_t> constantOf(const Operand &o) {
  if (o.abs)
    return std::nullopt;
  if (o.kind == Operand::Kind::Imm)
    return o.neg ? 0u - uint32_t(o.imm) : uint32_t(o.imm);
  if (o.isReg() && o.reg.isGeneral() && o.reg.isConst())
    return 0u; // RZ, URZ (-RZ is 0 too)
  return std::nullopt;
}

// A plain (not negated, no |..|) general register source.
std::optional<Reg> plainReg(const Operand &o) {
  if (!o.isReg() || o.neg || o.abs || o.reg.isConst() || !o.reg.isGeneral())
    return std::nullopt;
  return o.reg;
}

// The comparison and signedness of an ISETP that compares 32-bit values and
// combines with nothing (no third source, or AND with PT); nullopt otherwise.
std::optional<std::pair<DispatchCmp, bool>> isetpKind(const Instr &in) {
  if (in.op != Opcode::ISETP || in.dsts.size() != 2 || in.srcs.size() < 2 || in.srcs.size() > 3)
    return std::nullopt;
  std::optional<DispatchCmp> cmp;
  switch (in.mods.inGroup(ModGroup::Cmp).value_or(Mod::F)) {
  case Mod::LT:
    cmp = DispatchCmp::LT;
    break;
  case Mod::EQ:
    cmp = DispatchCmp::EQ;
    break;
  case Mod::LE:
    cmp = DispatchCmp::LE;
    break;
  case Mod::GT:
    cmp = DispatchCmp::GT;
    break;
  case Mod::NE:
    cmp = DispatchCmp::NE;
    break;
  case Mod::GE:
    cmp = DispatchCmp::GE;
    break;
  default:
    return std::nullopt;
  }
  // No type is S32, as the interpreter reads it; 64-bit compares are not a
  // 32-bit selector's.
  if (in.has(Mod::U64) || in.has(Mod::S64) || in.has(Mod::W64))
    return std::nullopt;
  bool isSigned = !in.has(Mod::U32);
  if (in.srcs.size() == 3) {
    const Operand &c = in.srcs[2];
    if (!c.isReg() || !c.reg.isPredicate() || !c.reg.isConst() || c.neg)
      return std::nullopt;
  }
  if (in.mods.inGroup(ModGroup::BoolOp).value_or(Mod::AND) != Mod::AND)
    return std::nullopt;
  return std::pair{*cmp, isSigned};
}

// Whether `in` is an unguarded 32-bit `op` with `nsrcs` sources and one plain
// general register destination.
bool plainForm(const Instr &in, Opcode op, size_t nsrcs) {
  return in.op == op && !in.isGuarded() && !in.has(Mod::W64) && in.dsts.size() == 1 &&
         in.srcs.size() == nsrcs && plainReg(in.dsts[0]).has_value();
}

// A switch head: a block ending in @P BRA, P last set in the block by an ISETP
// of a register with a constant. That register is the selector, followed back
// through IADD3s with constants; where the chain meets an SGXT (nvcc's
// SGXT(S, 16) range splits) it goes on to the SGXT's source S. The
// candidates, best first: S, then the register the SGXT wrote (when S does
// not extract, e.g. without a bound, the SGXT result is the selector).
std::vector<Reg> switchHeadSelectors(const Block &b) {
  if (b.instrs.empty())
    return {};
  const Instr &t = b.instrs.back();
  if (t.op != Opcode::BRA || !t.isGuarded() || t.guard->reg.isConst())
    return {};
  Reg p = t.guard->reg;
  for (size_t i = b.instrs.size() - 1; i-- > 0;) {
    const Instr &in = b.instrs[i];
    std::vector<Reg> defs = in.defs();
    if (std::find(defs.begin(), defs.end(), p) == defs.end())
      continue;
    if (in.isGuarded() || !isetpKind(in))
      return {};
    std::optional<Reg> x;
    std::vector<Reg> found; // the registers SGXTs wrote, first met first
    if (constantOf(in.srcs[1]))
      x = plainReg(in.srcs[0]);
    else if (constantOf(in.srcs[0]))
      x = plainReg(in.srcs[1]);
    // A range check compares x = S + k made by an IADD3 earlier in the block: the
    // selector is S (the extractor follows the IADD3), and so on down the chain.
    for (size_t j = i; x && j-- > 0;) {
      const Instr &def = b.instrs[j];
      std::vector<Reg> written = def.defs();
      if (std::find(written.begin(), written.end(), *x) == written.end())
        continue;
      if (def.op == Opcode::SGXT && !def.isGuarded() && def.srcs.size() == 2 &&
          !def.has(Mod::W64) && def.srcs[1].kind == Operand::Kind::Imm) {
        std::optional<Reg> from = plainReg(def.srcs[0]);
        if (!from || *from == *x)
          break;
        found.push_back(*x);
        x = from;
        continue;
      }
      if (def.op != Opcode::IADD3 || def.isGuarded() || def.srcs.size() != 3 || !def.mods.empty())
        break;
      std::optional<Reg> from;
      int others = 0;
      for (const Operand &o : def.srcs)
        if (constantOf(o))
          ++others;
        else if (!from)
          from = plainReg(o);
      if (!from || others != 2 || *from == *x)
        break;
      x = from;
    }
    if (x)
      found.push_back(*x);
    std::reverse(found.begin(), found.end());
    return found;
  }
  return {};
}

namespace {

// ---------------------------------------------------------------- the head's bound

// LOP3.LUT S, a, b, c, lut (32-bit, unguarded) whose sources are one register
// x, one immediate M and RZ in any order: M when the LUT, evaluated on those
// operands, gives 0 where x's bit is 0 (x all zeros) and where M's bit is 0
// (x all ones, outside M). LOP3 works bit by bit, so the result is then a
// subset of M, at most M, for every x.
std::optional<uint32_t> lop3Bound(const Instr &in) {
  if (!plainForm(in, Opcode::LOP3, 4))
    return std::nullopt;
  const Operand &l = in.srcs[3];
  if (l.kind != Operand::Kind::Imm || l.neg || l.abs || l.imm < 0 || l.imm > 0xff)
    return std::nullopt;
  std::optional<size_t> regAt, immAt, zeroAt;
  uint32_t v[3] = {0, 0, 0};
  for (size_t k = 0; k < 3; ++k) {
    const Operand &o = in.srcs[k];
    std::optional<uint32_t> c = constantOf(o);
    if (o.kind == Operand::Kind::Imm) { // M
      if (immAt || !c)
        return std::nullopt;
      immAt = k, v[k] = *c;
    } else if (c) { // RZ
      if (zeroAt)
        return std::nullopt;
      zeroAt = k;
    } else if (plainReg(o)) { // x
      if (regAt)
        return std::nullopt;
      regAt = k;
    } else {
      return std::nullopt;
    }
  }
  if (!regAt || !immAt || !zeroAt)
    return std::nullopt;
  const uint32_t m = v[*immAt];
  auto eval = [&](uint32_t x) {
    uint32_t w[3] = {v[0], v[1], v[2]};
    w[*regAt] = x;
    return lut::apply<uint32_t>(uint32_t(l.imm), w[0], w[1], w[2]);
  };
  if (eval(0) != 0 || (eval(0xffffffffu) & ~m) != 0)
    return std::nullopt; // e.g. an OR (0xfc)
  return m;
}

// The register x of a LOP3 lop3Bound accepts when the LUT computes x AND M exactly: the
// result is 0 for x all zeros and M for x all ones, and LOP3 works bit by bit, so every bit
// is x's bit where M's is 1 and 0 elsewhere.
std::optional<Reg> lop3AndOf(const Instr &in) {
  std::optional<uint32_t> m = lop3Bound(in);
  if (!m)
    return std::nullopt;
  std::optional<size_t> regAt;
  uint32_t v[3] = {0, 0, 0};
  for (size_t k = 0; k < 3; ++k) {
    if (std::optional<uint32_t> c = constantOf(in.srcs[k]))
      v[k] = *c;
    else
      regAt = k;
  }
  if (!regAt)
    return std::nullopt;
  uint32_t w[3] = {v[0], v[1], v[2]};
  w[*regAt] = 0xffffffffu;
  if (lut::apply<uint32_t>(uint32_t(in.srcs[3].imm), w[0], w[1], w[2]) != *m)
    return std::nullopt;
  return plainReg(in.srcs[*regAt]);
}

// LD, LDG, LDS, LDL or LDC with .U8 or .U16 (not .64, unguarded) into one
// register: the interpreter zero-extends the 1 or 2 bytes it loads (accessOf
// and extendLoaded, interp/interp_mem.cpp; .U8 wins over the other sizes, .S8
// over .U16), so the register is at most 0xFF or 0xFFFF.
std::optional<SelectorBound> loadBound(const Instr &in) {
  switch (in.op) {
  case Opcode::LD:
  case Opcode::LDG:
  case Opcode::LDS:
  case Opcode::LDL:
  case Opcode::LDC:
    break;
  default:
    return std::nullopt;
  }
  if (in.isGuarded() || in.has(Mod::W64) || in.dsts.size() != 1 || !plainReg(in.dsts[0]))
    return std::nullopt;
  const std::string name(in.info().name);
  if (in.has(Mod::U8))
    return SelectorBound{0xffu, name + ".U8"};
  if (in.has(Mod::U16) && !in.has(Mod::S8))
    return SelectorBound{0xffffu, name + ".U16"};
  return std::nullopt;
}

} // namespace

namespace {
// The bound of `want` from its last writer among b.instrs[0, end), by the rules in
// switch_extract.h; `depth` counts the ANDs and shifts followed (at most 8).
SelectorBound boundBefore(const Block &b, Reg want, size_t end, int depth) {
  // The last writer of `want` before `end`; a MOV from a register moves the
  // search to that register before the MOV (at most 8 times).
  for (int movs = 0; movs <= 8; ++movs) {
    std::optional<size_t> at;
    for (size_t i = end; i-- > 0 && !at;) {
      std::vector<Reg> defs = b.instrs[i].defs();
      if (std::find(defs.begin(), defs.end(), want) != defs.end())
        at = i;
    }
    if (!at)
      return {}; // not written in the head block
    const Instr &in = b.instrs[*at];
    if (in.isGuarded())
      return {}; // may keep the old value
    if (plainForm(in, Opcode::MOV, 1)) {
      if (std::optional<uint32_t> k = constantOf(in.srcs[0]))
        return {*k, "MOV"};
      std::optional<Reg> y = plainReg(in.srcs[0]);
      if (!y)
        return {};
      want = *y;
      end = *at;
      continue;
    }
    if (std::optional<uint32_t> m = lop3Bound(in)) {
      // x AND M exactly (lop3AndOf): also at most x, so x's own bound may be smaller.
      if (std::optional<Reg> x = lop3AndOf(in); x && depth < 8) {
        SelectorBound bx = boundBefore(b, *x, *at, depth + 1);
        if (bx.max < *m)
          return {bx.max, "LOP3 of " + bx.by};
      }
      return {*m, "LOP3"};
    }
    // SHR.U32 S, x, k (k < 32, 32-bit, unguarded): a logical shift right, at most x's bound
    // shifted (the interpreter's SHR, interp/interp_alu.cpp: amounts below the width shift).
    if (plainForm(in, Opcode::SHR, 2) && in.has(Mod::U32) && !in.has(Mod::W64) &&
        in.srcs[1].kind == Operand::Kind::Imm && in.srcs[1].imm >= 0 && in.srcs[1].imm < 32 &&
        depth < 8) {
      if (std::optional<Reg> x = plainReg(in.srcs[0])) {
        SelectorBound bx = boundBefore(b, *x, *at, depth + 1);
        return {bx.max >> uint32_t(in.srcs[1].imm),
                "SHR of " + (bx.by.empty() ? "anything" : bx.by)};
      }
    }
    if (std::optional<SelectorBound> l = loadBound(in))
      return *l;
    return {};
  }
  return {}; // a longer MOV chain
}
} // namespace

SelectorBound selectorBound(const Function &f, uint32_t head, Reg selector) {
  if (head >= f.blocks.size())
    return {};
  const Block &b = f.blocks[head];
  size_t end = b.instrs.size(); // the instructions before `end` are searched
  if (end > 0 && b.instrs.back().info().is(CONTROL))
    --end;
  return boundBefore(b, selector, end, 0);
}

} // namespace ori::verify
