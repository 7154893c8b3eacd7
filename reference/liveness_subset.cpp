// Liveness of chosen registers (reference/reference.h subsetLiveness): the
// whole function's liveness, then every set kept to the chosen registers.
#include <algorithm>
#include <iterator>

#include "reference/reference.h"

namespace ori::reference {

SubsetLivenessFacts subsetLiveness(const Function &f, const CfgFacts &cfg, std::vector<Reg> regs) {
  SubsetLivenessFacts out;
  std::erase_if(regs, [](Reg r) { return r.isConst(); });
  std::sort(regs.begin(), regs.end());
  regs.erase(std::unique(regs.begin(), regs.end()), regs.end());
  const LivenessFacts live = computeLiveness(f, cfg);
  auto keep = [&](const std::vector<Reg> &set) {
    std::vector<Reg> kept;
    std::set_intersection(set.begin(), set.end(), regs.begin(), regs.end(),
                          std::back_inserter(kept));
    return kept;
  };
  for (const std::vector<Reg> &set : live.liveOut)
    out.liveOut.push_back(keep(set));
  out.liveIntoEntry = keep(live.uninitialized);
  out.regs = std::move(regs);
  return out;
}

} // namespace ori::reference
