// Models of the warp-level matrix instructions and ELECT (verify/opcode_model.h).
//
// HMMA, IMMA, DMMA, BMMA and MOVM: a lane's results depend on every lane's sources, which a
// model of one thread cannot see. Each destination is an uninterpreted function, one per
// opcode, modifiers and destination, of the thread's lane (tid) and all the instruction's
// sources: two instructions with the same modifiers on the same inputs give the same
// values, anything else may differ. Since every thread runs the same code, a phase that
// leaves an MMA's inputs the same in every thread (as a function of tid) leaves its outputs
// the same, which is what the translation validator proves; a phase that changes them is
// not proved (the functions can differ).
//
// ELECT Rd, Pd, a (docs/interpreter.md): Rd = the lowest set bit of a (0xffffffff for 0),
// Pd = (Rd == lane), exact: it needs only the thread's own lane and mask.
#include <fmt/format.h>

#include "verify/opcode_model.h"

namespace ori::verify::models {

std::optional<ModelOutputs> uninterpretedWarp(ModelContext &m) {
  z3::context &c = m.smt.ctx();
  z3::sort_vector domain(c);
  z3::expr_vector args(c);
  domain.push_back(c.bv_sort(32));
  args.push_back(m.x.tid);
  for (size_t i = 0; i < m.x.srcs.size(); ++i) {
    // A predicate or an immediate source (none of these opcodes has one) enters as its value.
    z3::expr s = m.x.srcs[i].is_bool() ? z3::ite(m.x.srcs[i], m.smt.bv(1, 64), m.smt.bv(0, 64))
                                       : m.x.srcs[i];
    domain.push_back(c.bv_sort(64));
    args.push_back(s);
  }
  std::string name(m.in.info().name);
  for (Mod mod : m.in.mods.list())
    name += fmt::format(".{}", modText(mod));
  ModelOutputs out;
  for (size_t d = 0; d < m.in.dsts.size(); ++d) {
    z3::func_decl f = c.function(fmt::format("{} d{}", name, d).c_str(), domain, c.bv_sort(64));
    out.dsts.push_back(f(args));
  }
  return out;
}

std::optional<ModelOutputs> elect(ModelContext &m) {
  Smt &smt = m.smt;
  z3::expr a = m.intSrc(0, 32);
  z3::expr leader = smt.bv(0xffffffffu, 32);
  for (unsigned k = 32; k-- > 0;) // the lowest set bit wins: built from the top down
    leader = z3::ite(a.extract(k, k) == smt.bv(1, 1), smt.bv(k, 32), leader);
  z3::expr lane = m.x.tid & smt.bv(31, 32);
  return ModelOutputs{{m.wide(leader), leader == lane}, std::nullopt};
}

} // namespace ori::verify::models
