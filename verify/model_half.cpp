// Models of HMNMX2, HSETP2 and HSET2 (interp/interp_half.cpp): lane 0 is bits 15..0 of the
// sources, lane 1 bits 31..16; .FTZ flushes the lanes first (and HMNMX2's result).
#include "verify/model_float_impl.h"

namespace ori::verify {
namespace models {
namespace {

z3::expr laneOf(const z3::expr &v, unsigned i) { return v.extract(16 * i + 15, 16 * i); }

} // namespace

std::optional<ModelOutputs> hmnmx2(ModelContext &m) {
  Smt &smt = m.smt;
  FloatFormat f = formatOf(smt, m.has(Mod::BF16) ? Mod::BF16 : Mod::F16);
  bool ftz = m.has(Mod::FTZ);
  z3::expr a = m.intSrc(0, 32), b = m.intSrc(1, 32);
  std::optional<z3::expr> out;
  for (unsigned i = 0; i < 2; ++i) {
    z3::expr x = laneOf(a, i), y = laneOf(b, i);
    if (ftz) {
      x = flush16(smt, x, f.expBits);
      y = flush16(smt, y, f.expBits);
    }
    z3::expr r = minMaxExpr(smt, x, y, m.predSrc(2), m.has(Mod::NANMM), m.has(Mod::XORSIGN), f.sort,
                            16, kNaN16);
    if (ftz)
      r = flush16(smt, r, f.expBits);
    out = out ? z3::concat(r, *out) : r;
  }
  return one(m.wide(*out));
}

// HSETP2: p and q from lanes 0 and 1, each combined with c; HSET2: the lanes of d.
std::optional<ModelOutputs> hsetp2(ModelContext &m) {
  Smt &smt = m.smt;
  auto cmp = m.mod(ModGroup::Cmp);
  if (!cmp)
    return std::nullopt;
  FloatFormat f = formatOf(smt, m.has(Mod::BF16) ? Mod::BF16 : Mod::F16);
  bool ftz = m.has(Mod::FTZ);
  z3::expr a = m.intSrc(0, 32), b = m.intSrc(1, 32), c = m.predSrc(2);
  Mod op = m.mod(ModGroup::BoolOp).value_or(Mod::AND);
  std::vector<z3::expr> r;
  for (unsigned i = 0; i < 2; ++i) {
    z3::expr x = laneOf(a, i), y = laneOf(b, i);
    if (ftz) {
      x = flush16(smt, x, f.expBits);
      y = flush16(smt, y, f.expBits);
    }
    std::optional<z3::expr> t =
        compareExpr(smt, *cmp, smt.fromBits(x, f.sort), smt.fromBits(y, f.sort));
    if (!t)
      return std::nullopt;
    r.push_back(op == Mod::OR ? (*t || c) : op == Mod::XOR ? (*t != c) : (*t && c));
  }
  if (m.in.op == Opcode::HSETP2)
    return ModelOutputs{{r[0], r[1]}, std::nullopt};
  uint64_t trueLane = !m.has(Mod::BFV) ? 0xffff : m.has(Mod::BF16) ? 0x3f80 : 0x3c00; // 1.0
  auto laneValue = [&](const z3::expr &t) {
    return z3::ite(t, smt.bv(trueLane, 16), smt.bv(0, 16));
  };
  return one(m.wide(z3::concat(laneValue(r[1]), laneValue(r[0]))));
}

} // namespace models
} // namespace ori::verify
