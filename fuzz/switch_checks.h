// Checks of the switch phases (14/30 DoSwitchOpt, 80 ExpandJmxComputation),
// shared by orifuzz (`switch-diff`, `switch-behaviour`, `switch-proof`) and
// the property tests. Each returns "" when it holds, else one line naming the
// first problem; `counts` (if given) receives what phase 30 did.
#pragma once

#include <string>

#include "ir/facts.h"
#include "ir/ir.h"
#include "rules/do_switch_opt.h"

namespace ori::checks {

// Phases 30 (unbounded; budget 3 without extended matching; with bit tests;
// with a made-up profile, where only reordering may happen) and 14, then 80,
// from both halves give the same function (text and label ids) and the
// same counts; the results pass verifyFunction; phase 80 leaves no JMX and
// turns exactly one per jump table into a BRX.
std::string switchDiff(const Function &f, SwitchOptCounts *counts = nullptr);
// The interpreter gives the same result before and after phase 30, 30+80,
// 30+15, and phase 30 with bit tests or with a profile, for every selector of
// gen::interestingSelectors (the kernel's own constants and their neighbours,
// 0 and the extremes).
std::string switchBehaviour(const Function &f);
// The switch-dispatch checker of verify/, fed from the IR before and after
// phase 30, plain, with bit tests and with a profile (verify/switch_extract.h):
// nothing refuted or unknown, and at least as many switches proved as
// lowered. `counts` gets phase 30's counts, bitTests and reordered from the
// runs with bit tests and with the profile.
std::string switchProof(const Function &f, SwitchOptCounts *counts = nullptr);
// Three wrong lowerings made from phase 30's real output, each refuted by the
// checker with a selector that the two programs really send apart: the bounds
// check one too loose (GT span instead of span - 1), signed (S32 for U32),
// and a gap of the table sent to a case instead of the default; and from
// every bit-test lowering (phase 30 with bit tests) two more: a mask missing
// its lowest case, the bounds check one too tight. *made counts the mutants
// built (a table without gaps has no third one; under a bound on a narrowed
// selector, a mutant whose change no possible selector reaches is not built).
std::string switchMutants(const Function &f, uint32_t *made = nullptr);

} // namespace ori::checks
