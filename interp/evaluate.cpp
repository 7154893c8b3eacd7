// evaluateConstant (interp/evaluate.h): the instruction run by the interpreter's
// own integer semantics (Machine::execInteger) on a scratch thread whose
// registers are never read (every source is a constant).
#include "interp/evaluate.h"

#include "interp/interp_impl.h"

namespace ori {

bool evaluatedOpcode(Opcode op) {
  switch (op) {
  case Opcode::IADD3:
  case Opcode::IMAD:
  case Opcode::LOP3:
  case Opcode::PLOP3:
  case Opcode::SHF:
  case Opcode::SHL:
  case Opcode::SHR:
  case Opcode::IMNMX:
  case Opcode::LEA:
  case Opcode::ISETP:
  case Opcode::SGXT:
  case Opcode::PRMT:
  case Opcode::POPC:
  case Opcode::FLO:
  case Opcode::BREV:
    return true;
  default:
    return false;
  }
}

bool isConstantOperand(const Operand &o) {
  if (o.kind == Operand::Kind::Imm)
    return !o.abs;
  return o.kind == Operand::Kind::Reg && o.reg.isConst() && !o.abs;
}

std::optional<std::vector<uint64_t>> evaluateConstant(const Instr &in) {
  if (!evaluatedOpcode(in.op))
    return std::nullopt;
  if (in.isGuarded() || in.dsts.size() != dstCount(in.op, in.mods))
    return std::nullopt;
  for (const Operand &s : in.srcs)
    if (!isConstantOperand(s))
      return std::nullopt;
  for (const Operand &d : in.dsts)
    if (d.kind != Operand::Kind::Reg)
      return std::nullopt;
  interp_detail::Machine m;
  interp_detail::Thread t;
  m.th = &t;
  try {
    if (!m.execInteger(in))
      return std::nullopt;
  } catch (const interp_detail::Stop &) {
    return std::nullopt;
  }
  std::vector<uint64_t> out;
  for (const Operand &d : in.dsts)
    out.push_back(d.reg.isConst() ? 0 : t.regs.get(d.reg));
  return out;
}

} // namespace ori
