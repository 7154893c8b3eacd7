// The round trip checked (docs/ptx.md, "Round trip"): a module is emitted as PTX and lowered
// again (ptx/roundtrip.h); each function must come back equal up to register and label names
// (ir/canonical.h) or, where it does not, be proved equivalent by translation validation
// (verify/tv.h) in both directions: the re-lowered function refines the first and the first
// refines the re-lowered one.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/canonical.h"
#include "ir/diag.h"
#include "ir/ir.h"
#include "verify/tv.h"

namespace ori {

struct RoundTripOptions {
  verify::TvOptions tv;
  bool prove = true; // false: compare only; a function that differs is left unchecked
  // When set, only the differing functions it accepts are proved (the rest: unchecked).
  std::function<bool(const std::string &function)> proveOnly;
};

struct RoundTripFunction {
  enum class Status { Equal, Proved, Unproved, Unchecked };
  std::string name;
  Status status = Status::Equal;
  std::optional<NameFreeDifference> difference; // all but Equal
  // Proved: both directions; Unproved: the direction that was not proved (forward: the
  // re-lowered function refines the first; backward: the first refines the re-lowered one).
  std::optional<verify::TvResult> tv;
  std::string direction; // "forward" or "backward": the direction `tv` is about
  double seconds = 0;    // the proofs' time
  // All but Equal: 16 hex digits naming the pair (an FNV-1a hash of the two canonical functions'
  // text), so a list of earlier verdicts (tests/roundtrip/expected.txt) can tell the same pair
  // from one a change to the lowering or the emitter made.
  std::string pair;
  // "equal F", "proved F (...)", "unproved F: ...", "unchecked F (...)", then the difference
  // and "  pair HASH".
  std::string str() const;
};

struct RoundTripReport {
  // The round trip did not get as far as a comparison: emit refused the module or the emitted
  // PTX did not lower (stage says which).
  std::optional<Diagnostic> error;
  std::string stage;
  std::optional<NameFreeDifference> moduleDifference; // module variables or directives
  std::vector<RoundTripFunction> functions;           // in the first module's order
  size_t count(RoundTripFunction::Status s) const;
  // No error, no module difference, every function equal or proved (unchecked ones allowed).
  bool ok() const;
  std::string
  summary() const; // "N functions: E equal, P differ but proved, U unproved, C unchecked"
};

RoundTripReport checkRoundTrip(const Module &first, const RoundTripOptions &opts = {});

// What `oriopt --check-roundtrip` prints of a report that got to a comparison: "differs: ..."
// for a module difference, a line per function (RoundTripFunction::str; only `function`'s when
// given), and without `function` "FILE: " and the summary. ok: no module difference and no
// listed function unproved.
struct RoundTripListing {
  std::string text;
  bool ok = true;
};
RoundTripListing listRoundTrip(const RoundTripReport &rep, const std::string &fileName,
                               const std::string &function = "");

} // namespace ori
