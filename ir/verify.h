// verifyFunction: the structural checker run between phases in tests. It
// checks what every pass must keep true; it does not check semantics.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace ori {

// Returns one message per problem found (empty when the function is well
// formed), e.g. "bix2 instr 0 (BRA L9): target bix 9 does not exist".
std::vector<std::string> verifyFunction(const Function &f);
std::vector<std::string> verifyModule(const Module &m);

} // namespace ori
