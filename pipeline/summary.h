// oriopt --summary: a module at a glance.
#pragma once

#include <string>

#include "ir/ir.h"

namespace ori {

// "FILE: N functions, M instructions, K OPAQUE (P% native)", then per function its blocks,
// instructions, parameters (and where each lives), registers, blocks (label id, size, last
// instruction) and an opcode histogram.
std::string summarizeModule(const Module &m, const std::string &file);

} // namespace ori
