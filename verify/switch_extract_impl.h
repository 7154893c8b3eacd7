// Internal to verify/switch_extract.cpp and verify/switch_rewrites_check.cpp.
#pragma once

#include <vector>

#include "ir/ir.h"

namespace ori::verify {

// The selectors a block may dispatch on as a switch head: the register its ending @P BRA's
// ISETP compares with a constant, and what that register was made from (see the .cpp).
std::vector<Reg> switchHeadSelectors(const Block &b);

} // namespace ori::verify
