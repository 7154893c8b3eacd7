// The category of an `unknown` verdict's reason (TvResult::reason, and the reasons of the
// switch and phase 38 checks): a short word a CI system can count, as oriopt --verify's
// closing line, --json and --sarif give it. The one mapping (docs/verifier.md, "Verdicts for
// CI"); tests/unit/tv_category_test.cpp checks it on the reasons the validator gives.
#pragma once

#include <string_view>

namespace ori::verify {

// Read from the reason's start (its first clause decides: "unroll bound: ..., and the
// inductive proof ran out ..." is "unroll bound"):
//   "deadline..."                                  deadline
//   "budget..."                                    budget
//   "timeout..." (a Z3 query's own timeout)        timeout
//   "unroll bound..."                              unroll bound
//   "source: the unrolled function exceeds ..."    size (likewise "target: ...")
//   "source: unmodelled ..." / "...: unmodelled"   unmodelled
//   "a difference that may come from the call..."  calls
//   "a difference that may come from ..."          uninterpreted (another uninterpreted effect)
//   "new function..." / "not in the source"        new function
//   anything else                                  other
std::string_view unknownCategory(std::string_view reason);

} // namespace ori::verify
