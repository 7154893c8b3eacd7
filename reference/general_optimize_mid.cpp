// Phase 37 GeneralOptimizeMid (rules/general_optimize_mid.h): the round loop over this half's
// promotion and suite.
#include "rules/general_optimize_mid.h"
#include "reference/reference.h"

namespace ori::reference {

MidOptimizeResult generalOptimizeMid(Function &f, const MemToRegOptions &opt) {
  return midRounds(f, opt, convertMemoryToRegister, generalOptimize);
}

} // namespace ori::reference
