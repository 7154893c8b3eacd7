// Properties of phase 37 GeneralOptimizeMid and ConvertMemoryToRegisterOrUniform through
// fuzz/memory_slot_checks.h, on kernels with local-memory slots (fuzz/slot_kernel_gen.h): the
// halves agree, behaviour is kept, and the translation validator refutes nothing. The
// classifications show each outcome of the analysis in a good share of the runs.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "fuzz/memory_slot_checks.h"
#include "fuzz/ori_gen.h" // showValue(Function): counterexamples print as .ori
#include "fuzz/slot_kernel_gen.h"
#include "optimized/optimized.h"

namespace ori {
namespace {

RC_GTEST_PROP(ConvertMemoryToRegisterProps, HalvesAgree, ()) {
  const Function f = *gen::slotKernel();
  Function g = f;
  const MemToRegCounts c = optimized::convertMemoryToRegister(g, MemToRegOptions{});
  RC_CLASSIFY(c.slotsPromoted > 0, "promoted a slot");
  RC_CLASSIFY(c.slotsKeptByCost > 0, "kept a slot by cost");
  RC_CLASSIFY(c.slotsUninitialized > 0, "kept an uninitialized slot");
  RC_CLASSIFY(c.variablesEscaping > 0, "a variable escapes");
  if (std::string d = checks::memToRegDiff(f); !d.empty())
    RC_FAIL(d);
}

RC_GTEST_PROP(ConvertMemoryToRegisterProps, HalvesAgreeOnArbitraryFunctions, ()) {
  const Function f = *gen::function();
  if (std::string d = checks::memToRegDiff(f); !d.empty())
    RC_FAIL(d);
}

RC_GTEST_PROP(ConvertMemoryToRegisterProps, BehaviourUnchanged, ()) {
  const Function f = *gen::slotKernel();
  size_t compared = 0;
  if (std::string d = checks::memToRegBehaviour(f, &compared); !d.empty())
    RC_FAIL(d);
  RC_CLASSIFY(compared > 0, "a changed kernel's runs compared");
}

// Kernels with one much-read slot: the cost model keeps it by default (more than 4 loads);
// the checks' second variant (knob 136 = 1.5) promotes it.
RC_GTEST_PROP(ConvertMemoryToRegisterProps, CostModelOnHotSlots, ()) {
  gen::SlotKernelOptions o;
  o.hotSlotPercent = 100;
  const Function f = *gen::slotKernel(o);
  Function g = f;
  const MemToRegCounts c = optimized::convertMemoryToRegister(g, MemToRegOptions{});
  RC_CLASSIFY(c.slotsKeptByCost > 0, "kept a slot by cost");
  if (std::string d = checks::memToRegDiff(f); !d.empty())
    RC_FAIL(d);
  size_t compared = 0;
  if (std::string d = checks::memToRegBehaviour(f, &compared); !d.empty())
    RC_FAIL(d);
}

} // namespace
} // namespace ori
