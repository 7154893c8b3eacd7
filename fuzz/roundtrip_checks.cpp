// The round trip on random kernels (fuzz/roundtrip_checks.h).
#include "fuzz/roundtrip_checks.h"

#include <fmt/format.h>

#include "pipeline/roundtrip_check.h"

namespace ori::checks {

std::string roundTripProof(const Function &f) {
  Module m;
  m.fileName = "random";
  m.functions.push_back(f);
  RoundTripOptions opts;
  opts.tv.timeoutSeconds = 5;
  opts.tv.budgetSeconds = 10;
  RoundTripReport rep = checkRoundTrip(m, opts);
  if (rep.error)
    return fmt::format("the round trip stopped ({}): {}", rep.stage, rep.error->str());
  if (rep.moduleDifference)
    return "the module differs: " + rep.moduleDifference->str();
  for (const RoundTripFunction &r : rep.functions)
    if (r.tv && r.tv->verdict == verify::TvResult::Verdict::Refuted)
      return fmt::format("{} refutes the round trip: {}", r.direction, r.str());
  return "";
}

} // namespace ori::checks
