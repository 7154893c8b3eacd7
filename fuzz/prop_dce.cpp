// Properties of dead-code elimination (phases 10 and 16/33/61/84) and of
// live-range splitting (phase 19), reference/ and optimized/
// {early_ori_simple_live_dead,ori_perform_live_dead,ori_split_live_ranges}.cpp,
// through fuzz/dce_checks.h:
//  - reference == optimized (same printed text, same counts) on random
//    terminating kernels, on random CFGs with register traffic (irreducible
//    loops, self loops, unreachable blocks) and on ori_gen's arbitrary
//    functions (every opcode, guarded code, huge register numbers);
//  - DCE only deletes instructions without effects, a second run deletes
//    nothing, no dead instruction is left; phase 19 only adds copies;
//  - DCE and splitting keep the interpreter's result on random inputs.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "fuzz/dce_checks.h"
#include "fuzz/kernel_gen.h"
#include "fuzz/ori_gen.h" // showValue(Function): counterexamples print as .ori
#include "interp/interp.h"
#include "optimized/optimized.h"

namespace ori {
namespace {

RC_GTEST_PROP(DceProps, HalvesAgreeAndShapeOnKernels, ()) {
  Function f = *gen::kernel();
  Function dce = f;
  RC_CLASSIFY(optimized::oriPerformLiveDead(dce) > 0, "phase 16 removed something");
  Function split = f;
  RC_CLASSIFY(optimized::oriSplitLiveRanges(split) > 0, "phase 19 split something");
  std::string d = checks::dceDiff(f);
  if (!d.empty())
    RC_FAIL(d);
}

RC_GTEST_PROP(DceProps, HalvesAgreeOnCfgsWithRegisters, ()) {
  Function f = *gen::cfgWithRegisters();
  std::string d = checks::dceDiff(f);
  if (!d.empty())
    RC_FAIL(d);
}

RC_GTEST_PROP(DceProps, HalvesAgreeOnArbitraryFunctions, ()) {
  Function f = *gen::function();
  for (int phase : {10, 16, 19}) {
    std::string d = checks::dcePhaseHalvesAgree(f, phase);
    if (!d.empty())
      RC_FAIL(d);
  }
}

RC_GTEST_PROP(DceProps, KeepsTheInterpretersResult, ()) {
  Module m = *gen::kernelModule();
  std::vector<RunConfig> inputs = {*gen::kernelInputs(), *gen::kernelInputs()};
  size_t compared = 0;
  std::string d = checks::dceKeepsBehaviour(m, inputs, &compared);
  if (!d.empty())
    RC_FAIL(d);
  RC_CLASSIFY(compared == 8, "all 8 runs compared");
  RC_ASSERT(compared > 0u); // the generator's kernels run to completion
}

} // namespace
} // namespace ori
