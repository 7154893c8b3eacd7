// Inputs for the model/interpreter cross-check: random values and the edge
// cases of each source domain (0, 1, -1, INT_MIN, INT_MAX at 32 and 64 bits;
// shifts by 0/31/32/63/64; NaNs, infinities, denormals, -0.0, rounding ties).
// Internal to verify/.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "verify/opcode_model.h"

namespace ori::verify {

using Rng = std::mt19937_64;

// The edge cases of a domain (raw 64-bit source values).
std::span<const uint64_t> edgeCases(Domain d);
// One value: an edge case with probability 3/10, otherwise random with the
// domain's shape (for floats: random sign, exponents across the whole range,
// near 1.0, near the integer limits and in the denormal range; ties).
uint64_t drawValue(Domain d, Rng &rng);

} // namespace ori::verify
