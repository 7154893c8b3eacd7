#include "rules/convert_memory_to_register.h"

namespace ori {

std::optional<SlotAccessShape> slotAccessShape(const Instr &in) {
  SlotAccessShape s;
  switch (in.op) {
  case Opcode::LD:
    s.load = true, s.generic = true;
    break;
  case Opcode::ST:
    s.generic = true;
    break;
  case Opcode::LDL:
    s.load = true;
    break;
  case Opcode::STL:
    break;
  default:
    return std::nullopt;
  }
  // Both read their address as source 0; a store's value is source 1.
  if (in.srcs.empty() || in.srcs[0].kind != Operand::Kind::Mem)
    return std::nullopt;
  if (s.load ? in.dsts.size() != 1 : in.srcs.size() != 2)
    return std::nullopt;
  s.bytes = in.has(Mod::W64) ? 8 : 4;
  ModSet others = in.mods; // sub-word, volatile, constant cache: not whole
  others.reset(Mod::W64);
  others.reset(Mod::E);
  if (!others.empty())
    s.whole = false;
  if (s.load && !(in.dsts[0].isReg() && in.dsts[0].reg.isGeneral()))
    s.whole = false;
  if (!s.load &&
      !(in.srcs[1].isReg() && in.srcs[1].reg.isGeneral() && !in.srcs[1].neg && !in.srcs[1].abs))
    s.whole = false;
  if (s.bytes < 4 || !s.whole) {
    // A sub-word access covers 1 or 2 bytes; count what it may touch.
    if (in.has(Mod::U8) || in.has(Mod::S8))
      s.bytes = 1;
    else if (in.has(Mod::U16) || in.has(Mod::S16))
      s.bytes = 2;
  }
  return s;
}

double slotPromotionCost(uint32_t loads, uint32_t stores, const MemToRegOptions &opt) {
  const double weight = loads > 4 ? 1.0 : opt.movWeight;
  return weight * double(loads + stores);
}

bool promoteSlot(uint32_t loads, uint32_t stores, const MemToRegOptions &opt) {
  if (loads + stores == 0)
    return false;
  return slotPromotionCost(loads, stores, opt) / double(loads + stores) < opt.promotionThreshold;
}

Instr slotAccessAsMove(const Instr &access, const SlotAccessShape &shape, Reg slot) {
  Instr mov = shape.load ? makeInstr(Opcode::MOV, {access.dsts[0]}, {Operand::reg_(slot)})
                         : makeInstr(Opcode::MOV, {Operand::reg_(slot)}, {access.srcs[1]});
  if (shape.bytes == 8)
    mov.mods.set(Mod::W64);
  mov.guard = access.guard;
  mov.loc = access.loc;
  return mov;
}

} // namespace ori
