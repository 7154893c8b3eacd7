#include "rules/ori_perform_live_dead.h"

namespace ori {

bool keptWhenDead(const Instr &i) {
  constexpr uint32_t kEffects =
      SIDE_EFFECT | CONTROL | BRANCH | TERMINATOR | CALL_ | BARRIER | CONVERGENCE | VARIADIC;
  return i.info().is(kEffects) || isOrderedAccess(i.mods);
}

} // namespace ori
