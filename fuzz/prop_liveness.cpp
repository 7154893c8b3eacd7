// Properties of liveness (reference/ and optimized/ liveness.cpp) and of the
// kernel generator (fuzz/kernel_gen.h):
//  - every generated kernel parses back from its printed text and runs to
//    completion in the interpreter within the step budget, on random inputs;
//  - reference == optimized on generated kernels, on random CFGs with
//    register traffic (irreducible loops, self loops, unreachable blocks),
//    and on ori_gen's arbitrary functions (every opcode, huge register
//    numbers: the optimized half's sparse numbering);
//  - subset liveness (liveness of chosen registers): optimized/liveness_subset.h
//    (path exploration) == reference subsetLiveness (computeLiveness, kept to
//    them), on the same three families;
//  - the optimized half equals the definition, checked by an explicit path
//    search per register and point (fuzz/liveness_checks.h), on small
//    kernels and CFGs.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>

#include "fuzz/kernel_gen.h"
#include "fuzz/liveness_checks.h"
#include "fuzz/ori_gen.h" // showValue(Function): counterexamples print as .ori
#include "interp/interp.h"
#include "ir/ori.h"
#include "ir/verify.h"
#include "optimized/liveness_subset.h"
#include "optimized/optimized.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori {
namespace {

const char *kindName(RunResult::Kind k) {
  switch (k) {
  case RunResult::Kind::Ok:
    return "ok";
  case RunResult::Kind::Timeout:
    return "timeout";
  case RunResult::Kind::Fault:
    return "fault";
  case RunResult::Kind::Unsupported:
    return "unsupported";
  case RunResult::Kind::Deadlock:
    return "deadlock";
  case RunResult::Kind::Error:
    return "error";
  case RunResult::Kind::Trap:
    return "trap";
  }
  return "?";
}

// Small kernels for the brute-force checks.
constexpr gen::KernelOptions kSmall{4, 2, 3, 1};

RC_GTEST_PROP(KernelGen, KernelsAreWellFormedAndRoundTrip, ()) {
  Module m = *gen::kernelModule();
  auto problems = verifyModule(m);
  RC_ASSERT(problems.empty());
  ParseResult again = parseOri(printModule(m), "again.ori");
  RC_ASSERT(again.module.has_value());
  RC_ASSERT(*again.module == m);
}

// Every kernel ends ok within the budget (no timeout, fault, unsupported
// opcode or configuration error); RC_TAG shows the tally.
RC_GTEST_PROP(KernelGen, KernelsRunToCompletion, ()) {
  Module m = *gen::kernelModule();
  RunConfig cfg = *gen::kernelInputs();
  RunResult r = runKernel(m, cfg);
  const Function &f = m.functions.at(0);
  bool warpLevel = false;
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs)
      warpLevel = warpLevel || in.op == Opcode::BAR || in.op == Opcode::SHFL ||
                  in.op == Opcode::VOTE || in.op == Opcode::MATCH || in.op == Opcode::REDUX;
  RC_TAG(kindName(r.kind),
         f.blocks.size() < 10   ? "<10 blocks"
         : f.blocks.size() < 40 ? "10-39 blocks"
                                : ">=40 blocks",
         f.jumpTables.empty() ? "no BRX" : "BRX", warpLevel ? "warp-level" : "no warp-level",
         cfg.threads.x > 32    ? "2 warps"
         : cfg.threads.x == 32 ? "1 warp"
                               : "part of a warp");
  if (r.kind != RunResult::Kind::Ok)
    RC_FAIL(formatExit(r, "kernel.ori") + ": " + r.message);
  RC_ASSERT(r.threadsRun == cfg.threads);
  RC_ASSERT(r.buffers.at("buf").size() == size_t(gen::kLaunchBufferBytes));
}

RC_GTEST_PROP(LivenessProps, HalvesAgreeOnKernels, ()) {
  Function f = *gen::kernel();
  std::string d = checks::livenessHalvesAgree(f);
  if (!d.empty())
    RC_FAIL(d);
}

RC_GTEST_PROP(LivenessProps, HalvesAgreeOnCfgsWithRegisters, ()) {
  Function f = *gen::cfgWithRegisters();
  std::string d = checks::livenessHalvesAgree(f);
  if (!d.empty())
    RC_FAIL(d);
}

RC_GTEST_PROP(LivenessProps, HalvesAgreeOnArbitraryFunctions, ()) {
  Function f = *gen::function();
  std::string d = checks::livenessHalvesAgree(f);
  if (!d.empty())
    RC_FAIL(d);
}

RC_GTEST_PROP(LivenessProps, KernelsMatchTheDefinition, ()) {
  Function f = *gen::kernel(kSmall);
  std::string d = checks::livenessMatchesDefinition(f);
  if (!d.empty())
    RC_FAIL(d);
}

RC_GTEST_PROP(LivenessProps, CfgsMatchTheDefinition, ()) {
  Function f = *gen::cfgWithRegisters(gen::CfgOptions{16, 40});
  RC_CLASSIFY(!f.blocks.empty() &&
                  !optimized::computeLiveness(f, optimized::computeCfg(f)).uninitialized.empty(),
              "uninitialized registers");
  std::string d = checks::livenessMatchesDefinition(f);
  if (!d.empty())
    RC_FAIL(d);
}

// The two halves of subset liveness (optimized/liveness_subset.h, reference
// subsetLiveness) on a random half of the registers the function mentions: the
// live-out sets of every block and the registers live into the entry; and the
// optimized half asked about the entry only (entryOnly) gives the same entry
// answers and no live-out sets.
void checkSubsetLiveness([[maybe_unused]] const Function &f) {
#if defined(ORIOPT_HAVE_REFERENCE) // as livenessHalvesAgree: nothing to compare without reference/
  const optimized::FunctionRegs all = optimized::functionRegs(f);
  std::vector<uint32_t> numbers;
  std::vector<Reg> asked;
  for (uint32_t i = 0; i < all.index.size(); ++i)
    if (*rc::gen::arbitrary<bool>())
      numbers.push_back(i), asked.push_back(all.index.reg(i));
  RC_CLASSIFY(asked.size() > 8, "more than 8 registers asked about");
  const CfgFacts cfg = optimized::computeCfg(f);
  const optimized::SubsetLiveness subset(all, cfg, numbers);
  const optimized::SubsetLiveness entryOnly(all, cfg, numbers, /*entryOnly=*/true);
  const reference::SubsetLivenessFacts ref = reference::subsetLiveness(f, cfg, asked);
  RC_ASSERT(subset.size() == ref.regs.size());
  RC_ASSERT(entryOnly.size() == ref.regs.size());
  bool someLive = false, someEntry = false;
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    std::vector<Reg> got;
    for (uint32_t i : subset.liveOut(b))
      got.push_back(subset.reg(i));
    if (got != ref.liveOut[b])
      RC_FAIL("live-out of bix" + std::to_string(b) + " differs");
    someLive = someLive || !got.empty();
    RC_ASSERT(entryOnly.liveOut(b).empty());
  }
  RC_CLASSIFY(someLive, "some asked register live out of a block");
  for (uint32_t i = 0; i < subset.size(); ++i) {
    RC_ASSERT(subset.reg(i) == ref.regs[i]);
    const bool entry =
        std::binary_search(ref.liveIntoEntry.begin(), ref.liveIntoEntry.end(), subset.reg(i));
    RC_ASSERT(subset.liveIntoEntry(i) == entry);
    RC_ASSERT(entryOnly.liveIntoEntry(i) == entry);
    RC_ASSERT(subset.index(subset.reg(i)) == int32_t(i));
    RC_ASSERT(subset.indexOfNumbered(numbers[i]) == int32_t(i));
    someEntry = someEntry || entry;
  }
  RC_CLASSIFY(someEntry, "some asked register live into the entry");
#endif
}

RC_GTEST_PROP(LivenessProps, SubsetEqualsRestrictedLivenessOnKernels, ()) {
  checkSubsetLiveness(*gen::kernel());
}

RC_GTEST_PROP(LivenessProps, SubsetEqualsRestrictedLivenessOnCfgs, ()) {
  checkSubsetLiveness(*gen::cfgWithRegisters(gen::CfgOptions{16, 40}));
}

RC_GTEST_PROP(LivenessProps, SubsetEqualsRestrictedLivenessOnArbitraryFunctions, ()) {
  checkSubsetLiveness(*gen::function());
}

} // namespace
} // namespace ori
