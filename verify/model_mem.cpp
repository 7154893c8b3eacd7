// Models of the memory opcodes at the level of one memory word: a load
// extends the bytes it reads, a store replaces the low bytes of the word, an
// atomic computes the new word from the old one (PTX ld/st with .u8 .s8 .u16
// .s16 .b64; atom/red .add .min .max .inc .dec .exch .cas .and .or .xor, float .add);
// the ordering, cache and eviction qualifiers change nothing a thread sees. Also the
// memory-system instructions: fences, NANOSLEEP and CCTL (no effect), QSPC, CREATEPOLICY.
// Addresses are not modelled: the word is what the address reaches.
#include <bit>

#include "verify/opcode_model.h"

namespace ori::verify {
namespace models {
namespace {

struct Access {
  unsigned bytes;
  bool isSigned;
};
Access accessOf(const ModelContext &m) {
  if (m.has(Mod::U8))
    return {1, false};
  if (m.has(Mod::S8))
    return {1, true};
  if (m.has(Mod::U16))
    return {2, false};
  if (m.has(Mod::S16))
    return {2, true};
  if (m.has(Mod::W64))
    return {8, false};
  return {4, false};
}

} // namespace

// 8/16-bit values are sign- or zero-extended to 32 bits; 32-bit results are
// zero-extended into the container like every 32-bit result.
std::optional<ModelOutputs> load(ModelContext &m) {
  Access a = accessOf(m);
  z3::expr v = Smt::low(m.x.memory, 8 * a.bytes);
  if (a.bytes == 8)
    return ModelOutputs{{v}, std::nullopt};
  z3::expr v32 = a.isSigned ? Smt::sext(v, 32) : Smt::zext(v, 32);
  return ModelOutputs{{m.wide(v32)}, std::nullopt};
}

std::optional<ModelOutputs> store(ModelContext &m) {
  Access a = accessOf(m);
  unsigned bits = 8 * a.bytes;
  z3::expr v = m.intSrc(1, bits);
  z3::expr word = bits == 64 ? v : z3::concat(m.x.memory.extract(63, bits), v);
  return ModelOutputs{{}, word};
}

namespace {
// PTX atom.add on floats: rounded to nearest even (Z3's IEEE addition), NaN results
// canonical (binary32 0x7fffffff, binary64 0xfff8000000000000, 16-bit 0x7fff); .FTZ
// (binary32 only) flushes the inputs and the result to zeros of their sign.
z3::expr floatAddBits(Smt &smt, Mod type, bool ftz, const z3::expr &old, const z3::expr &b) {
  auto add = [&](const z3::expr &x, const z3::expr &y, const z3::sort &s, uint64_t nan,
                 unsigned w) {
    z3::expr r = smt.fpAdd(Rounding::NearestEven, smt.fromBits(x, s), smt.fromBits(y, s));
    return z3::ite(r.mk_is_nan(), smt.bv(nan, w), Smt::toBits(r));
  };
  auto flush = [&](const z3::expr &v) {
    return z3::ite(v.extract(30, 23) == smt.bv(0, 8), v & smt.bv(0x80000000u, 32), v);
  };
  switch (type) {
  case Mod::AF32: {
    z3::expr r =
        add(ftz ? flush(old) : old, ftz ? flush(b) : b, smt.floatSort(8, 24), 0x7fffffff, 32);
    return ftz ? flush(r) : r;
  }
  case Mod::AF64:
    return add(old, b, smt.floatSort(11, 53), 0xfff8000000000000ull, 64);
  default:
    break;
  }
  const bool bf = type == Mod::ABF16 || type == Mod::ABF16X2;
  z3::sort s = bf ? smt.floatSort(8, 8) : smt.floatSort(5, 11);
  z3::expr lo = add(old.extract(15, 0), b.extract(15, 0), s, 0x7fff, 16);
  if (type == Mod::AF16 || type == Mod::ABF16)
    return lo;
  return z3::concat(add(old.extract(31, 16), b.extract(31, 16), s, 0x7fff, 16), lo);
}
} // namespace

// ATOM/ATOMG/ATOMS d = old, memory = op(old, b); RED/REDG only the memory. 32-bit unless
// .64/.S64 (.U16: 16 bits, CAS only); MIN/MAX signed with .S32/.S64, otherwise unsigned;
// INC: old >= b ? 0 : old + 1; DEC: (old == 0 || old > b) ? b : old - 1; CAS: old == b ? c :
// old; .ADD on .F32 .F64 .F16 .BF16 .F16x2 .BF16x2 as floatAddBits. .128 is not modelled (the
// memory word is 64 bits).
std::optional<ModelOutputs> atomic(ModelContext &m) {
  auto op = m.mod(ModGroup::AtomOp);
  if (!op)
    return std::nullopt;
  const unsigned bytes = atomicBytes(m.in.mods);
  if (bytes > 8)
    return std::nullopt;
  const unsigned bits = 8 * bytes;
  bool isSigned = m.has(Mod::S32) || m.has(Mod::S64);
  const std::optional<Mod> ftype = m.mod(ModGroup::AtomFType);
  if (ftype && *op != Mod::ADD)
    return std::nullopt;
  z3::expr old = Smt::low(m.x.memory, bits);
  z3::expr b = m.intSrc(1, bits);
  auto lt = [&](const z3::expr &x, const z3::expr &y) {
    return isSigned ? z3::slt(x, y) : z3::ult(x, y);
  };
  z3::expr zero = m.smt.bv(0, bits), oneV = m.smt.bv(1, bits);
  std::optional<z3::expr> nv;
  switch (*op) {
  case Mod::ADD:
    nv = ftype ? floatAddBits(m.smt, *ftype, m.has(Mod::FTZ), old, b) : old + b;
    break;
  case Mod::MIN:
    nv = z3::ite(lt(b, old), b, old);
    break;
  case Mod::MAX:
    nv = z3::ite(lt(old, b), b, old);
    break;
  case Mod::INC:
    nv = z3::ite(z3::uge(old, b), zero, old + oneV);
    break;
  case Mod::DEC:
    nv = z3::ite(old == zero || z3::ugt(old, b), b, old - oneV);
    break;
  case Mod::EXCH:
    nv = b;
    break;
  case Mod::CAS:
    if (m.in.srcs.size() < 3)
      return std::nullopt;
    nv = z3::ite(old == b, m.intSrc(2, bits), old);
    break;
  case Mod::ATOM_AND:
    nv = old & b;
    break;
  case Mod::ATOM_OR:
    nv = old | b;
    break;
  case Mod::ATOM_XOR:
    nv = old ^ b;
    break;
  default:
    return std::nullopt;
  }
  z3::expr word = bits == 64 ? *nv : z3::concat(m.x.memory.extract(63, bits), *nv);
  ModelOutputs out{{}, word};
  if (m.in.op == Opcode::ATOM || m.in.op == Opcode::ATOMG || m.in.op == Opcode::ATOMS)
    out.dsts.push_back(m.wide(old));
  return out;
}

// MEMBAR, FENCE, NANOSLEEP, CCTL: no register or memory effect on one thread's view.
std::optional<ModelOutputs> noEffect(ModelContext &) { return ModelOutputs{}; }

// QSPC: generic address a in the window of the space (docs/interpreter.md, "Memory": shared
// [0x7e0000000000, +0x38000), local [0x7f0000000000, +0x80000), const [0x7c0000000000,
// +64 MiB), the kernel's parameters [0x7c8000000000, +0x8000); .GLOBAL: none of the four).
// Without .64, a is 32 bits.
std::optional<ModelOutputs> qspc(ModelContext &m) {
  Smt &smt = m.smt;
  z3::expr a = m.has(Mod::W64) ? m.intSrc(0, 64) : Smt::zext(m.intSrc(0, 32), 64);
  auto in = [&](uint64_t base, uint64_t size) {
    return z3::ult(a - smt.bv(base, 64), smt.bv(size, 64));
  };
  z3::expr shared = in(0x7e0000000000, 0x38000), local = in(0x7f0000000000, 0x80000),
           constant = in(0x7c0000000000, uint64_t(64) << 20), param = in(0x7c8000000000, 0x8000);
  z3::expr r = m.has(Mod::SP_SHARED) || m.has(Mod::SP_SHARED_CLUSTER) ? shared
               : m.has(Mod::SP_LOCAL)                                 ? local
               : m.has(Mod::SP_CONST)                                 ? constant
               : m.has(Mod::SP_PARAM)                                 ? param
                                      : !shared && !local && !constant && !param;
  return ModelOutputs{{r}, std::nullopt};
}

// CREATEPOLICY: the encoding docs/interpreter.md gives ("Cache policies").
std::optional<ModelOutputs> createpolicy(ModelContext &m) {
  Smt &smt = m.smt;
  if (m.has(Mod::CVT))
    return ModelOutputs{{m.intSrc(0, 64)}, std::nullopt};
  const bool range = m.has(Mod::RANGE);
  const uint64_t primary = m.has(Mod::L2_EF)   ? 1
                           : m.has(Mod::L2_EL) ? 2
                           : m.has(Mod::L2_EU) ? 3
                                               : 0;
  const uint64_t header = (range ? 2 : 1) | primary << 2 | (m.has(Mod::L2_SEF) ? 1 : 0) << 4;
  if (!range) {
    z3::expr frac = smt.bv(0x3f800000, 32);
    if (!m.in.srcs.empty()) {
      const Operand &o = m.in.srcs[0];
      frac = o.kind == Operand::Kind::FImm ? smt.bv(std::bit_cast<uint32_t>(float(o.fimm)), 32)
                                           : m.intSrc(0, 32);
    }
    return ModelOutputs{{z3::concat(frac, smt.bv(header, 32))}, std::nullopt};
  }
  z3::expr a = m.intSrc(0, 64), b = Smt::zext(m.intSrc(1, 32), 64),
           c = Smt::zext(m.intSrc(2, 32), 64);
  z3::expr payload = (a ^ z3::shl(b, 24) ^ z3::shl(c, 40)) & smt.bv((uint64_t(1) << 56) - 1, 64);
  return ModelOutputs{{z3::shl(payload, 8) | smt.bv(header, 64)}, std::nullopt};
}

} // namespace models
} // namespace ori::verify
