// Block execution counts from a profile (`oriopt --profile FILE`,
// docs/branch-and-switch.md "Profile"). The file is text, one entry a line:
//   FUNCTION LABEL COUNT
// separated by spaces or tabs: a function of the module, a label of one of
// its blocks, and how many times the block ran (a decimal integer below
// 2^64). `#` starts a comment; blank lines are ignored. A function or label
// the module does not have, a label given twice, or anything else is an error
// at its line and column.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>

#include "ir/diag.h"
#include "ir/ir.h"

namespace ori {

// Function name -> block label -> count.
using BlockProfile = std::map<std::string, std::map<std::string, uint64_t>, std::less<>>;

std::variant<BlockProfile, Diagnostic> parseProfile(std::string_view text, std::string_view file,
                                                    const Module &m);

} // namespace ori
