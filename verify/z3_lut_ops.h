// The LUT algebra of rules/lut.h on Z3 bit-vectors, so the obligations prove
// the very functions the passes call. Internal to verify/.
#pragma once

#include <z3++.h>

#include "rules/lut.h"

namespace ori::lut {

template <> struct LutOps<z3::expr> {
  static z3::expr complement(const z3::expr &x) { return ~x; }
  // Bit i of the LUT repeated to the width of `like`.
  static z3::expr spread(const z3::expr &lut, unsigned i, const z3::expr &like) {
    return lut.extract(i, i).repeat(like.get_sort().bv_size());
  }
  static z3::expr constant(uint8_t v, const z3::expr &like) {
    return like.ctx().bv_val(unsigned(v), like.get_sort().bv_size());
  }
};

} // namespace ori::lut
