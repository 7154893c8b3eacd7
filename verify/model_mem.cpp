// Models of the memory opcodes at the level of one memory word: a load
// extends the bytes it reads, a store replaces the low bytes of the word, an
// atomic computes the new word from the old one (PTX ld/st with .u8 .s8 .u16
// .s16 .b64; atom/red .add .min .max .inc .dec .exch .cas .and .or .xor).
// Addresses are not modelled: the word is what the address reaches.
#include "verify/opcode_model.h"

namespace ori::verify {
namespace models {
namespace {

struct Access {
  unsigned bytes;
  bool isSigned;
};
Access accessOf(const ModelContext& m) {
  if (m.has(Mod::U8)) return {1, false};
  if (m.has(Mod::S8)) return {1, true};
  if (m.has(Mod::U16)) return {2, false};
  if (m.has(Mod::S16)) return {2, true};
  if (m.has(Mod::W64)) return {8, false};
  return {4, false};
}

} // namespace

// 8/16-bit values are sign- or zero-extended to 32 bits; 32-bit results are
// zero-extended into the container like every 32-bit result.
std::optional<ModelOutputs> load(ModelContext& m) {
  Access a = accessOf(m);
  z3::expr v = Smt::low(m.x.memory, 8 * a.bytes);
  if (a.bytes == 8) return ModelOutputs{{v}, std::nullopt};
  z3::expr v32 = a.isSigned ? Smt::sext(v, 32) : Smt::zext(v, 32);
  return ModelOutputs{{m.wide(v32)}, std::nullopt};
}

std::optional<ModelOutputs> store(ModelContext& m) {
  Access a = accessOf(m);
  unsigned bits = 8 * a.bytes;
  z3::expr v = m.intSrc(1, bits);
  z3::expr word = bits == 64 ? v : z3::concat(m.x.memory.extract(63, bits), v);
  return ModelOutputs{{}, word};
}

// ATOM d = old, memory = op(old, b); RED only the memory. 32-bit unless .64;
// MIN/MAX signed with .S32, otherwise unsigned; INC: old >= b ? 0 : old + 1;
// DEC: (old == 0 || old > b) ? b : old - 1; CAS: old == b ? c : old.
std::optional<ModelOutputs> atomic(ModelContext& m) {
  auto op = m.mod(ModGroup::AtomOp);
  if (!op) return std::nullopt;
  unsigned bits = m.has(Mod::W64) ? 64 : 32;
  bool isSigned = m.has(Mod::S32);
  z3::expr old = Smt::low(m.x.memory, bits);
  z3::expr b = m.intSrc(1, bits);
  auto lt = [&](const z3::expr& x, const z3::expr& y) { return isSigned ? z3::slt(x, y) : z3::ult(x, y); };
  z3::expr zero = m.smt.bv(0, bits), oneV = m.smt.bv(1, bits);
  std::optional<z3::expr> nv;
  switch (*op) {
  case Mod::ADD: nv = old + b; break;
  case Mod::MIN: nv = z3::ite(lt(b, old), b, old); break;
  case Mod::MAX: nv = z3::ite(lt(old, b), b, old); break;
  case Mod::INC: nv = z3::ite(z3::uge(old, b), zero, old + oneV); break;
  case Mod::DEC: nv = z3::ite(old == zero || z3::ugt(old, b), b, old - oneV); break;
  case Mod::EXCH: nv = b; break;
  case Mod::CAS:
    if (m.in.srcs.size() < 3) return std::nullopt;
    nv = z3::ite(old == b, m.intSrc(2, bits), old);
    break;
  case Mod::ATOM_AND: nv = old & b; break;
  case Mod::ATOM_OR: nv = old | b; break;
  case Mod::ATOM_XOR: nv = old ^ b; break;
  default: return std::nullopt;
  }
  z3::expr word = bits == 64 ? *nv : z3::concat(m.x.memory.extract(63, 32), *nv);
  ModelOutputs out{{}, word};
  if (m.in.op == Opcode::ATOM) out.dsts.push_back(m.wide(old));
  return out;
}

} // namespace models
} // namespace ori::verify
