#include "ir/ir.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace ori {

std::string_view regFilePrefix(RegFile f) {
  switch (f) {
  case RegFile::R:
    return "R";
  case RegFile::UR:
    return "UR";
  case RegFile::P:
    return "P";
  case RegFile::UP:
    return "UP";
  case RegFile::B:
    return "B";
  }
  return "?";
}

std::string_view spaceName(Space s) {
  switch (s) {
  case Space::Global:
    return "global";
  case Space::Shared:
    return "shared";
  case Space::Const:
    return "const";
  case Space::Local:
    return "local";
  case Space::Param:
    return "param";
  }
  return "?";
}

namespace {
constexpr std::string_view kSpecialRegNames[kNumSpecialRegs] = {
    "SR_TID.X",         "SR_TID.Y",         "SR_TID.Z",       "SR_CTAID.X",     "SR_CTAID.Y",
    "SR_CTAID.Z",       "SR_NTID.X",        "SR_NTID.Y",      "SR_NTID.Z",      "SR_NCTAID.X",
    "SR_NCTAID.Y",      "SR_NCTAID.Z",      "SR_LANEID",      "SR_WARPID",      "SR_NWARPID",
    "SR_SMID",          "SR_NSMID",         "SR_GRIDID",      "SR_CLOCKLO",     "SR_CLOCKHI",
    "SR_GLOBALTIMERLO", "SR_GLOBALTIMERHI", "SR_LANEMASK_EQ", "SR_LANEMASK_LT", "SR_LANEMASK_LE",
    "SR_LANEMASK_GT",   "SR_LANEMASK_GE",   "SR_SWINBASE",    "SR_LWINBASE",    "SR_CWINBASE",
};
} // namespace

std::string_view specialRegName(SpecialReg s) { return kSpecialRegNames[size_t(s)]; }

std::optional<SpecialReg> specialRegFromName(std::string_view name) {
  for (int i = 0; i < kNumSpecialRegs; ++i)
    if (kSpecialRegNames[i] == name)
      return SpecialReg(i);
  return std::nullopt;
}

Operand Operand::reg_(Reg r, bool negated) {
  Operand o;
  o.kind = Kind::Reg;
  o.reg = r;
  o.neg = negated;
  return o;
}
Operand Operand::immediate(int64_t v) {
  Operand o;
  o.kind = Kind::Imm;
  o.imm = v;
  return o;
}
Operand Operand::floatImm(double v) {
  Operand o;
  o.kind = Kind::FImm;
  o.fimm = v;
  return o;
}
Operand Operand::cbank(uint32_t bank, int64_t offset) {
  Operand o;
  o.kind = Kind::CBank;
  o.bank = bank;
  o.imm = offset;
  return o;
}
Operand Operand::special(SpecialReg s) {
  Operand o;
  o.kind = Kind::SReg;
  o.sreg = s;
  return o;
}
Operand Operand::mem(std::optional<Reg> base, int64_t offset, Symbol symbol) {
  Operand o;
  o.kind = Kind::Mem;
  o.hasReg = base.has_value();
  if (base)
    o.reg = *base;
  o.imm = offset;
  o.sym = symbol;
  return o;
}
Operand Operand::label(uint32_t bix) {
  Operand o;
  o.kind = Kind::Label;
  o.target = bix;
  return o;
}
Operand Operand::jumpTable(uint32_t index) {
  Operand o;
  o.kind = Kind::JumpTable;
  o.target = index;
  return o;
}
Operand Operand::symbol(Symbol name) {
  Operand o;
  o.kind = Kind::Symbol;
  o.sym = name;
  return o;
}

uint16_t Operand::kindBit() const {
  switch (kind) {
  case Kind::Reg:
    return reg.isPredicate() ? K_PRED : reg.isGeneral() ? K_REG : K_BAR;
  case Kind::Imm:
    return K_IMM;
  case Kind::FImm:
    return K_FIMM;
  case Kind::CBank:
    return K_CBANK;
  case Kind::SReg:
    return K_SREG;
  case Kind::Mem:
    return K_MEM;
  case Kind::Label:
    return K_LABEL;
  case Kind::JumpTable:
    return K_JTAB;
  case Kind::Symbol:
    return K_SYM;
  }
  return 0;
}

std::optional<Reg> Operand::regRead() const {
  if (kind == Kind::Reg)
    return reg;
  if ((kind == Kind::CBank || kind == Kind::Mem) && hasReg)
    return reg;
  return std::nullopt;
}

bool operator==(const Operand &a, const Operand &b) {
  if (a.kind != b.kind || a.neg != b.neg || a.abs != b.abs)
    return false;
  switch (a.kind) {
  case Operand::Kind::Reg:
    return a.reg == b.reg;
  case Operand::Kind::Imm:
    return a.imm == b.imm;
  // Bitwise, so that NaN immediates compare equal to themselves.
  case Operand::Kind::FImm:
    return std::bit_cast<uint64_t>(a.fimm) == std::bit_cast<uint64_t>(b.fimm);
  case Operand::Kind::CBank:
    return a.bank == b.bank && a.imm == b.imm && a.hasReg == b.hasReg &&
           (!a.hasReg || a.reg == b.reg);
  case Operand::Kind::SReg:
    return a.sreg == b.sreg;
  case Operand::Kind::Mem:
    return a.imm == b.imm && a.sym == b.sym && a.hasReg == b.hasReg &&
           (!a.hasReg || a.reg == b.reg);
  case Operand::Kind::Label:
  case Operand::Kind::JumpTable:
    return a.target == b.target;
  case Operand::Kind::Symbol:
    return a.sym == b.sym;
  }
  return false;
}

std::vector<Reg> Instr::defs() const {
  std::vector<Reg> out;
  forEachDef(*this, [&](Reg r) { out.push_back(r); });
  return out;
}

std::vector<Reg> Instr::uses() const {
  std::vector<Reg> out;
  forEachUse(*this, [&](Reg r) { out.push_back(r); });
  return out;
}

bool operator==(const Instr &a, const Instr &b) {
  return a.op == b.op && a.mods == b.mods && a.guard == b.guard && a.dsts == b.dsts &&
         a.srcs == b.srcs && a.opaqueText == b.opaqueText;
}

void Function::recountRegs() {
  std::fill(std::begin(nextReg), std::end(nextReg), 0);
  auto note = [&](Reg r) {
    if (!r.isConst())
      nextReg[int(r.file)] = std::max(nextReg[int(r.file)], r.num + 1);
  };
  for (const Block &b : blocks)
    for (const Instr &in : b.instrs) {
      for (Reg r : in.defs())
        note(r);
      for (Reg r : in.uses())
        note(r);
    }
  for (const auto &[r, name] : regNames)
    note(r);
}

std::optional<uint32_t> Function::findBlock(std::string_view label) const {
  for (size_t i = 0; i < blocks.size(); ++i)
    if (!blocks[i].label.empty() && blocks[i].label == label)
      return uint32_t(i);
  return std::nullopt;
}

size_t Function::instrCount() const {
  size_t n = 0;
  for (const Block &b : blocks)
    n += b.instrs.size();
  return n;
}

bool operator==(const Function &a, const Function &b) {
  return a.name == b.name && a.isEntry == b.isEntry && a.linkage == b.linkage &&
         a.params == b.params && a.returns == b.returns && a.blocks == b.blocks &&
         a.jumpTables == b.jumpTables && a.variables == b.variables && a.regNames == b.regNames &&
         a.regTypes == b.regTypes && a.ptxDirectives == b.ptxDirectives &&
         a.blockDirectives == b.blockDirectives;
}

const Function *Module::findFunction(std::string_view name) const {
  for (const Function &f : functions)
    if (f.name == name)
      return &f;
  return nullptr;
}

const Variable *findVariable(const Module &m, const Function &f, std::string_view name,
                             const Param **param) {
  if (param)
    *param = nullptr;
  for (const Variable &v : f.variables)
    if (v.name == name)
      return &v;
  if (!f.isEntry)
    for (const auto *list : {&f.params, &f.returns})
      for (const Param &p : *list)
        if (p.name == name) {
          if (param)
            *param = &p;
          return nullptr;
        }
  for (const Variable &v : m.variables)
    if (v.name == name)
      return &v;
  return nullptr;
}

void layoutParams(std::vector<Param> &params, uint32_t base) {
  uint32_t offset = base;
  for (Param &p : params) {
    uint32_t align = std::max<uint32_t>(p.align, 1);
    offset = (offset + align - 1) / align * align;
    p.offset = offset;
    offset += p.size;
  }
}

Instr makeInstr(Opcode op, DstList dsts, SrcList srcs, std::initializer_list<Mod> mods) {
  Instr in;
  in.op = op;
  in.dsts = std::move(dsts);
  in.srcs = std::move(srcs);
  for (Mod m : mods)
    in.mods.set(m);
  return in;
}

} // namespace ori
