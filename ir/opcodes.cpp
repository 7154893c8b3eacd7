#include "ir/opcodes.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ir/mma.h"

namespace ori {
namespace {

struct ModRow {
  std::string_view enumName, text;
  ModGroup group;
};

constexpr ModRow kMods[] = {
#define MOD(Enum, Text, Group) {#Enum, Text, ModGroup::Group},
#include "ir/modifiers.def"
};

uint16_t kindBit(char c) {
  switch (c) {
  case 'R':
    return K_REG;
  case 'P':
    return K_PRED;
  case 'B':
    return K_BAR;
  case 'I':
    return K_IMM;
  case 'F':
    return K_FIMM;
  case 'C':
    return K_CBANK;
  case 'S':
    return K_SREG;
  case 'M':
    return K_MEM;
  case 'L':
    return K_LABEL;
  case 'J':
    return K_JTAB;
  case 'Y':
    return K_SYM;
  }
  std::fprintf(stderr, "opcodes.def: unknown operand kind '%c'\n", c);
  std::abort();
}

std::vector<OperandSlot> parseSlots(std::string_view spec) {
  std::vector<OperandSlot> slots;
  size_t i = 0;
  while (i < spec.size()) {
    if (spec[i] == ' ') {
      ++i;
      continue;
    }
    OperandSlot s;
    for (; i < spec.size() && spec[i] != ' '; ++i) {
      if (spec[i] == '?')
        s.optional = true;
      else if (spec[i] == '*')
        s.optional = s.repeat = true;
      else
        s.kinds |= kindBit(spec[i]);
    }
    slots.push_back(s);
  }
  return slots;
}

ModSet parseMods(std::string_view list, std::string_view opName) {
  ModSet set;
  size_t i = 0;
  while (i < list.size()) {
    size_t end = list.find(' ', i);
    if (end == std::string_view::npos)
      end = list.size();
    std::string_view word = list.substr(i, end - i);
    i = end + 1;
    if (word.empty())
      continue;
    bool found = false;
    for (size_t m = 0; m < std::size(kMods); ++m)
      if (kMods[m].enumName == word) {
        set.set(Mod(m));
        found = true;
      }
    if (!found) {
      std::fprintf(stderr, "opcodes.def: %.*s lists unknown modifier %.*s\n", int(opName.size()),
                   opName.data(), int(word.size()), word.data());
      std::abort();
    }
  }
  return set;
}

std::array<OpInfo, kNumOpcodes> buildTable() {
  std::array<OpInfo, kNumOpcodes> t{};
  size_t i = 0;
#define OP(Name, Dsts, Srcs, Flags, Mods)                                                          \
  t[i] = OpInfo{Opcode::Name,          #Name, Flags, parseSlots(Dsts), parseSlots(Srcs),           \
                parseMods(Mods, #Name)};                                                           \
  ++i;
#include "ir/opcodes.def"
  return t;
}

const std::array<OpInfo, kNumOpcodes> &table() {
  static const std::array<OpInfo, kNumOpcodes> t = buildTable();
  return t;
}

} // namespace

std::string_view modText(Mod m) { return kMods[size_t(m)].text; }
ModGroup modGroup(Mod m) { return kMods[size_t(m)].group; }

std::optional<Mod> ModSet::inGroup(ModGroup g) const {
  for (size_t m = 0; m < size_t(kNumMods); ++m)
    if (bits_.test(m) && kMods[m].group == g)
      return Mod(m);
  return std::nullopt;
}

std::vector<Mod> ModSet::list() const {
  std::vector<Mod> out;
  for (size_t m = 0; m < size_t(kNumMods); ++m)
    if (bits_.test(m))
      out.push_back(Mod(m));
  return out;
}

size_t OpInfo::minSrcs() const {
  size_t n = 0;
  for (const OperandSlot &s : srcs)
    n += s.optional ? 0 : 1;
  return n;
}

const OperandSlot *OpInfo::slotAt(const std::vector<OperandSlot> &slots, size_t k) {
  if (k < slots.size())
    return &slots[k];
  if (!slots.empty() && slots.back().repeat)
    return &slots.back();
  return nullptr;
}

const OpInfo &opInfo(Opcode op) { return table()[size_t(op)]; }

size_t dstCount(Opcode op, const ModSet &mods) {
  const OpInfo &info = opInfo(op);
  size_t n = 0;
  for (const OperandSlot &s : info.dsts)
    n += s.optional ? 0 : 1;
  if (op == Opcode::BAR && mods.test(Mod::RED))
    n = info.dsts.size();
  if (op == Opcode::SULD)
    n = mods.test(Mod::V4) ? 4 : mods.test(Mod::V2) ? 2 : 1;
  if (isMma(op)) { // D's registers (at least one when the modifiers name no form)
    const auto form = mmaForm(op, mods);
    if (const MmaForm *f = std::get_if<MmaForm>(&form))
      n = f->dRegs;
  }
  if (op == Opcode::LDSM)
    n = matrixCount(mods);
  if ((op == Opcode::ATOM || op == Opcode::ATOMG || op == Opcode::ATOMS) && mods.test(Mod::W128))
    n = 2;
  return n;
}

std::optional<Opcode> opcodeFromName(std::string_view name) {
  for (const OpInfo &info : table())
    if (info.name == name)
      return info.op;
  return std::nullopt;
}

std::string describeKinds(uint16_t kinds) {
  static constexpr std::pair<uint16_t, const char *> kNames[] = {
      {K_REG, "a register"},          {K_PRED, "a predicate"},     {K_BAR, "a barrier register"},
      {K_IMM, "an integer"},          {K_FIMM, "a float"},         {K_CBANK, "a constant bank"},
      {K_SREG, "a special register"}, {K_MEM, "a memory address"}, {K_LABEL, "a label"},
      {K_JTAB, "a jump table"},       {K_SYM, "a symbol"},
  };
  std::vector<const char *> names;
  for (auto [bit, name] : kNames)
    if (kinds & bit)
      names.push_back(name);
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0)
      out += (i + 1 == names.size()) ? " or " : ", ";
    out += names[i];
  }
  return out;
}

} // namespace ori
