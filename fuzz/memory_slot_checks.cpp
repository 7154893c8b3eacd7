// Checks of phase 37 (fuzz/memory_slot_checks.h).
#include "fuzz/memory_slot_checks.h"

#include <fmt/format.h>

#include <functional>
#include <utility>

#include "fuzz/dce_checks.h"
#include "fuzz/kernel_gen.h"
#include "fuzz/tv_checks.h"
#include "interp/interp.h"
#include "ir/verify.h"
#include "optimized/optimized.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori::checks {
namespace {

std::string describe(const MemToRegCounts &c) {
  return fmt::format(
      "promoted {} ({} loads, {} stores), kept {} by cost, {} uninitialized, {} escaping, cost {}",
      c.slotsPromoted, c.loadsReplaced, c.storesReplaced, c.slotsKeptByCost, c.slotsUninitialized,
      c.variablesEscaping, c.cost);
}

// Loads and stores (LD/ST/LDL/STL) in f.
size_t memoryAccesses(const Function &f) {
  size_t n = 0;
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs)
      n += slotAccessShape(in).has_value();
  return n;
}

using Phase = std::pair<std::string, std::function<void(Function &)>>;
std::vector<Phase> phases() {
  std::vector<Phase> out;
  for (int v : {0, 1}) {
    const MemToRegOptions o = memToRegOptions(v);
    out.push_back({fmt::format("ConvertMemoryToRegister (variant {})", v),
                   [o](Function &g) { optimized::convertMemoryToRegister(g, o); }});
    out.push_back({fmt::format("phase 37 (variant {})", v),
                   [o](Function &g) { optimized::generalOptimizeMid(g, o); }});
  }
  return out;
}

} // namespace

MemToRegOptions memToRegOptions(int variant) {
  MemToRegOptions o;
  if (variant == 1)
    o.promotionThreshold = 1.5;
  if (variant == 2)
    o.convergenceOverride = 2, o.movWeight = 1.0;
  return o;
}

std::string memToRegDiff(const Function &f) {
  for (int v = 0; v < kMemToRegVariants; ++v) {
    const MemToRegOptions opt = memToRegOptions(v);
    {
      const std::string what = fmt::format("ConvertMemoryToRegister (variant {})", v);
      Function o = f;
      const MemToRegCounts co = optimized::convertMemoryToRegister(o, opt);
      if (std::string d = malformedAfter(o, what); !d.empty())
        return d;
      if (memoryAccesses(f) - memoryAccesses(o) != co.loadsReplaced + co.storesReplaced)
        return fmt::format("{}: {} accesses gone, but it says {}", what,
                           memoryAccesses(f) - memoryAccesses(o), describe(co));
#if defined(ORIOPT_HAVE_REFERENCE)
      Function r = f;
      const MemToRegCounts cr = reference::convertMemoryToRegister(r, opt);
      if (std::string d = halvesDiffer(r, o, what); !d.empty())
        return d;
      if (!(cr == co))
        return fmt::format("{}: reference {}; optimized {}", what, describe(cr), describe(co));
#endif
    }
    const std::string what = fmt::format("phase 37 (variant {})", v);
    Function o = f;
    const MidOptimizeResult ro = optimized::generalOptimizeMid(o, opt);
    if (std::string d = malformedAfter(o, what); !d.empty())
      return d;
    if (ro.rounds < kMidRounds) {
      Function again = o;
      const MemToRegCounts c2 = optimized::convertMemoryToRegister(again, opt);
      if (c2.slotsPromoted)
        return fmt::format("{} run again promotes: {}", what, describe(c2));
    }
#if defined(ORIOPT_HAVE_REFERENCE)
    Function r = f;
    const MidOptimizeResult rr = reference::generalOptimizeMid(r, opt);
    if (std::string d = halvesDiffer(r, o, what); !d.empty())
      return d;
    if (!(rr.memToReg == ro.memToReg))
      return fmt::format("{}: reference {}; optimized {}", what, describe(rr.memToReg),
                         describe(ro.memToReg));
    if (!(rr.suite == ro.suite) || rr.rounds != ro.rounds)
      return fmt::format("{}: the suite's counts, marks or rounds differ ({} and {} rounds)", what,
                         rr.rounds, ro.rounds);
#endif
  }
  return "";
}

std::string memToRegBehaviour(const Function &f, size_t *compared) {
  if (!f.isEntry || f.isDeclaration())
    return "";
  Module before;
  before.functions.push_back(f);
  const std::vector<RunConfig> inputs = inputsFor(f, 3, gen::kLaunchBufferBytes);
  for (const auto &[name, phase] : phases()) {
    Module after = before;
    phase(after.functions[0]);
    if (after.functions[0] == f)
      continue;
    for (size_t k = 0; k < inputs.size(); ++k) {
      bool c = false;
      if (std::string d =
              compareRuns(runKernel(before, inputs[k]), runKernel(after, inputs[k]), &c);
          !d.empty())
        return fmt::format("after {}, input {} (threads {}): {}", name, k,
                           formatDim3(inputs[k].threads), d);
      if (compared)
        *compared += c;
    }
  }
  return "";
}

std::string memToRegProof(const Function &f) {
  std::vector<NamedPhase> named;
  const std::vector<Phase> ps = phases();
  for (const Phase &p : ps)
    named.push_back({p.first.c_str(), p.second});
  return firstRefutation(f, named);
}

} // namespace ori::checks
