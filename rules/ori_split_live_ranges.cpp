#include "rules/ori_split_live_ranges.h"

namespace ori {

Instr splitCopy(Reg to, Reg from) {
  Instr in;
  in.op = Opcode::MOV;
  in.mods.set(Mod::W64);
  in.dsts = {Operand::reg_(to)};
  in.srcs = {Operand::reg_(from)};
  return in;
}

} // namespace ori
