// PTX -> Ori: 128-bit values (docs/ptx.md, "128-bit values"). A .b128 register is two 64-bit
// Ori registers: its own holds the low half, a companion "<name>_hi" the high half.
//   mov.b128 d, {lo, hi} / mov.b128 {lo, hi}, s / mov.b128 d, s -> MOV.64 per half;
//   ld/st .b128 (weak) -> two 64-bit accesses (lower_mem.cpp, access128);
//   atom.{cas,exch}.b128 -> ATOM.128 (lower_atomic.cpp).
#include <fmt/format.h>

#include "ptx/lowering.h"

namespace ori::ptx {

bool FunctionLowerer::is128(ori::Reg r) const {
  if (high128_.count(r))
    return true;
  auto it = f_.regTypes.find(r);
  return it != f_.regTypes.end() && it->second == "b128";
}

ori::Reg FunctionLowerer::high128(ori::Reg lo) {
  if (auto it = high128_.find(lo); it != high128_.end())
    return it->second;
  ori::Reg hi = f_.newReg(ori::RegFile::R);
  f_.regNames[hi] = uniqueRegName(f_.regNames[lo] + "_hi");
  f_.regTypes[hi] = "b64";
  f_.regTypes[lo] = "b64";
  high128_[lo] = hi;
  return hi;
}

namespace lowering {

std::optional<std::pair<OOp, OOp>> Lowering::halves128(const Operand &o) {
  if (o.kind != Operand::Kind::Name)
    return std::nullopt;
  NameRef r = L.resolve(o.name);
  if (r.kind != NameRef::Register || !r.reg.isGeneral() || !L.is128(r.reg))
    return std::nullopt;
  return std::pair{reg(r.reg), reg(L.high128(r.reg))};
}

bool Lowering::mov128() {
  onlyMods(pi, {});
  need(2);
  if (lastType(pi).kind != PtxType::Bits)
    return false;
  const PtxType b64{PtxType::Bits, 64};
  auto pairOf =
      [&](const Operand &v) -> std::optional<std::pair<const Operand *, const Operand *>> {
    if (v.kind != Operand::Kind::Vector || v.elems.size() != 2)
      return std::nullopt;
    return std::pair{&v.elems[0], &v.elems[1]};
  };
  if (auto parts = pairOf(ops[1])) { // mov.b128 d, {lo, hi}
    if (parts->first->kind == Operand::Kind::Sink || parts->second->kind == Operand::Kind::Sink)
      return false;
    OOp lo = L.source(*parts->first, b64, ori::K_REG | ori::K_IMM),
        hi = L.source(*parts->second, b64, ori::K_REG | ori::K_IMM);
    auto d = halves128(ops[0]);
    if (!d)
      return false;
    emit(make(Opcode::MOV, {}, {d->first}, {lo}), true);
    emit(make(Opcode::MOV, {}, {d->second}, {hi}), true);
    return true;
  }
  auto s = halves128(ops[1]);
  if (!s)
    return false;
  if (auto parts = pairOf(ops[0])) { // mov.b128 {lo, hi}, s
    const Operand *dsts[2] = {parts->first, parts->second};
    std::vector<ori::Reg> regs;
    for (const Operand *e : dsts)
      regs.push_back(e->kind == Operand::Kind::Sink ? ori::RZ : L.destination(*e));
    for (ori::Reg r : regs)
      if (r != ori::RZ && L.regBits(r) != 64)
        return false;
    if (regs[0] != ori::RZ)
      emit(make(Opcode::MOV, {}, {reg(regs[0])}, {s->first}), true);
    if (regs[1] != ori::RZ)
      emit(make(Opcode::MOV, {}, {reg(regs[1])}, {s->second}), true);
    return true;
  }
  auto d = halves128(ops[0]); // mov.b128 d, s
  if (!d)
    return false;
  emit(make(Opcode::MOV, {}, {d->first}, {s->first}), true);
  emit(make(Opcode::MOV, {}, {d->second}, {s->second}), true);
  return true;
}

} // namespace lowering
} // namespace ori::ptx
