// Checks of the branch and switch phases (fuzz/branch_checks.h).
#include "fuzz/branch_checks.h"

#include <fmt/format.h>

#include "fuzz/dce_checks.h"
#include "fuzz/kernel_gen.h"
#include "interp/interp.h"
#include "ir/ori.h"
#include "ir/verify.h"
#include "optimized/optimized.h"
#include "verify/nested_cond_check.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori::checks {

std::string branchDiff(const Function &f) {
  for (int64_t budget : {int64_t(-1), int64_t(2)}) {
    Function o = f;
    const BranchOptCounts co = optimized::oriBranchOpt(o, budget);
    if (std::vector<std::string> problems = verifyFunction(o); !problems.empty())
      return fmt::format("phase 15 (budget {}) leaves a malformed function: {}", budget,
                         problems.front());
    if (budget >= 0 && co.rewrites() > budget)
      return fmt::format("phase 15 made {} rewrites on a budget of {}", co.rewrites(), budget);
#if defined(ORIOPT_HAVE_REFERENCE)
    Function r = f;
    const BranchOptCounts cr = reference::oriBranchOpt(r, budget);
    if (std::string d = firstTextDifference(r, o, "reference", "optimized"); !d.empty())
      return fmt::format("phase 15 (budget {}): halves differ: {}", budget, d);
    for (size_t b = 0; b < r.blocks.size(); ++b)
      if (r.blocks[b].labelId != o.blocks[b].labelId)
        return fmt::format("phase 15 (budget {}): label id of bix{} differs", budget, b);
    if (!(cr == co))
      return fmt::format("phase 15 (budget {}): reference made {} rewrites and erased {} blocks, "
                         "optimized {} and {}",
                         budget, cr.rewrites(), cr.erasedBlocks, co.rewrites(), co.erasedBlocks);
#endif
  }
  return "";
}

std::string branchBehaviour(const Function &f) {
  if (!f.isEntry || f.isDeclaration())
    return "";
  Module before;
  before.functions.push_back(f);
  Module after = before;
  optimized::oriBranchOpt(after.functions[0], -1);
  const std::vector<RunConfig> inputs = inputsFor(f, 3, gen::kLaunchBufferBytes);
  for (size_t k = 0; k < inputs.size(); ++k)
    if (std::string d = compareRuns(runKernel(before, inputs[k]), runKernel(after, inputs[k]));
        !d.empty())
      return fmt::format("after phase 15, input {} (threads {}): {}", k,
                         formatDim3(inputs[k].threads), d);
  return "";
}

namespace {
size_t braCount(const Function &f) {
  size_t n = 0;
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs)
      n += in.op == Opcode::BRA;
  return n;
}
} // namespace

std::string nestedCondDiff(const Function &f) {
  Function o = f;
  const NestedCondCounts co = optimized::optimizeNestedCondBranches(o);
  if (std::vector<std::string> problems = verifyFunction(o); !problems.empty())
    return fmt::format("phase 38 leaves a malformed function: {}", problems.front());
  if (o.blocks.size() + co.combined != f.blocks.size() || braCount(o) + co.combined != braCount(f))
    return fmt::format("phase 38 made {} combinations but blocks went {} -> {} and BRAs {} -> {}",
                       co.combined, f.blocks.size(), o.blocks.size(), braCount(f), braCount(o));
  Function again = o;
  if (const NestedCondCounts c2 = optimized::optimizeNestedCondBranches(again); c2.combined != 0)
    return fmt::format("phase 38 run twice combines {} more pairs the second time", c2.combined);
#if defined(ORIOPT_HAVE_REFERENCE)
  Function r = f;
  const NestedCondCounts cr = reference::optimizeNestedCondBranches(r);
  if (std::string d = firstTextDifference(r, o, "reference", "optimized"); !d.empty())
    return fmt::format("phase 38: halves differ: {}", d);
  for (size_t b = 0; b < r.blocks.size(); ++b)
    if (r.blocks[b].labelId != o.blocks[b].labelId)
      return fmt::format("phase 38: label id of bix{} differs", b);
  if (!(cr == co))
    return fmt::format("phase 38: reference made {} combinations in {} rounds, optimized {} in {}",
                       cr.combined, cr.rounds, co.combined, co.rounds);
#endif
  return "";
}

std::string nestedCondBehaviour(const Function &f) {
  if (!f.isEntry || f.isDeclaration())
    return "";
  Module before;
  before.functions.push_back(f);
  Module after = before;
  if (optimized::optimizeNestedCondBranches(after.functions[0]).combined == 0)
    return "";
  const std::vector<RunConfig> inputs = inputsFor(f, 3, gen::kLaunchBufferBytes);
  for (size_t k = 0; k < inputs.size(); ++k)
    if (std::string d = compareRuns(runKernel(before, inputs[k]), runKernel(after, inputs[k]));
        !d.empty())
      return fmt::format("after phase 38, input {} (threads {}): {}", k,
                         formatDim3(inputs[k].threads), d);
  return "";
}

std::string nestedCondProof(const Function &f) {
  Function g = f;
  std::string problem;
  const Module context;
  verify::TvOptions opts;
  opts.timeoutSeconds = 10;
  opts.budgetSeconds = 20;
  optimized::optimizeNestedCondBranches(g, [&](const Function &before, const Function &after,
                                               uint32_t id) {
    if (!problem.empty())
      return;
    const LivenessFacts live = optimized::computeLiveness(before, optimized::computeCfg(before));
    const verify::NestedCondCheck c =
        verify::checkNestedCondCombination(context, before, after, id, live, opts);
    if (c.verdict != verify::TvResult::Verdict::Proved)
      problem = "phase 38: " + c.line;
  });
  return problem;
}

} // namespace ori::checks
