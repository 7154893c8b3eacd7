// Checks of the liveness analyses on one function, shared by the RapidCheck
// properties (fuzz/prop_liveness.cpp) and the orifuzz campaign tool
// (fuzz/orifuzz.cpp, check `liveness-diff`). Each returns "" when the check
// holds, else one line naming the first problem.
#pragma once

#include <string>

#include "ir/facts.h"
#include "ir/ir.h"

namespace ori::checks {

// The reference and optimized halves give equal LivenessFacts ("" as well
// when reference/ is not built).
std::string livenessHalvesAgree(const Function &f);

// The optimized half against the definition, by brute force: a register is
// live at a point iff some path from there (through the CFG's successors)
// reaches a use of it before an unguarded def; sets, pressure (ir/facts.h)
// and the uninitialized list follow from that. A path search per register
// and point: for fuzzer-sized functions only.
std::string livenessMatchesDefinition(const Function &f);

// Both: the `liveness-diff` check of orifuzz.
std::string livenessDiff(const Function &f);

} // namespace ori::checks
