// Internal to verify/switch_extract.cpp, verify/switch_selector.cpp and
// verify/switch_rewrites_check.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "ir/ir.h"
#include "verify/switch_dispatch.h"

namespace ori::verify {

// The selectors a block may dispatch on as a switch head: the register its ending @P BRA's
// ISETP compares with a constant, and what that register was made from (see the .cpp).
std::vector<Reg> switchHeadSelectors(const Block &b);

// The operand and instruction shapes the extractor reads (verify/switch_selector.cpp says what
// each accepts).
std::optional<uint32_t> constantOf(const Operand &o);
std::optional<Reg> plainReg(const Operand &o);
std::optional<std::pair<DispatchCmp, bool>> isetpKind(const Instr &in);
bool plainForm(const Instr &in, Opcode op, size_t nsrcs);

} // namespace ori::verify
