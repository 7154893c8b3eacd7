// Index expressions of automatic launches (interp/auto_launch.cpp; docs/interpreter.md,
// "Automatic launches"): where a kernel addresses a module variable at an index that an
// integer parameter gives, `&var + scale * param + disp`, found by following each register's
// value as a linear form over one parameter slot. Internal to oriopt_interp.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/ir.h"

namespace ori::auto_detail {

struct IndexUse {
  const Variable* var = nullptr; // the module variable addressed
  uint64_t paramOffset = 0;      // the parameter slot (its offset in constant bank 0) that indexes it
  int64_t scale = 0, disp = 0;   // the access is at var + scale * value + disp
  unsigned width = 4;            // bytes accessed
  bool bound = false;            // a load whose value is compared (an ISETP source): a count
};

// Every access of the kernel (not its callees) at such an address, with scale > 0.
std::vector<IndexUse> indexUses(const Module& m, const Function& kernel);

} // namespace ori::auto_detail
