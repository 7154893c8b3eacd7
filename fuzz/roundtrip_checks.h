// The PTX round trip on random kernels (docs/ptx.md, "Round trip"), for orifuzz's
// `roundtrip-proof` check and its bounded ctest.
#pragma once

#include <string>

#include "ir/ir.h"

namespace ori::checks {

// f alone in a module, emitted as PTX and lowered again (pipeline/roundtrip_check.h): "" when
// it comes back equal up to register and label names, or differs and the translation validator
// refutes neither direction (unknown is allowed: the validator's bounds); else one line with the
// refutation and the first difference. The emitter refusing f, or its text not lowering, fails.
std::string roundTripProof(const Function &f);

} // namespace ori::checks
