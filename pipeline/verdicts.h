// What oriopt --verify decided, kept for the readers a CI system has (docs/verifier.md,
// "Verdicts for CI"): the closing line on standard error, the exit status of --verify=strict,
// the "verify" part of --json (docs/oriopt-output.schema.json) and --sarif's SARIF 2.1.0 log.
// One record per verdict: a function a step changed (verify/tv.h), a switch a switch phase
// rewrote (verify/switch_extract.h), a combination phase 38 made (verify/nested_cond_check.h).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "verify/tv.h"

namespace ori {

struct VerdictRecord {
  std::string step;              // "phase 10 EarlyOriSimpleLiveDead", "--erase-unreachable"
  std::optional<int> phase;      // the step's phase number
  std::string function;          // the module's function
  std::string kind = "function"; // "function", "switch" or "combination"
  std::string what;              // a switch or combination: the line's subject; else empty
  verify::TvResult::Verdict verdict = verify::TvResult::Verdict::Unknown;
  std::string reason;
  double seconds = 0;
  std::vector<std::pair<std::string, std::string>> inputs; // refuted: the counterexample
  std::string replayArgs; // refuted: oriopt --run arguments (without the file), or empty
  std::string noReplay;   // refuted without a replay: why
  // Z3 said unknown and the kernel ran in the interpreter: what it saw (verify_phases.cpp).
  std::string interpreter;
  bool interpreterDiffers = false; // that run told the two apart: counted as refuted
  uint32_t functionLine = 0;       // the function's line in the input file (0: not known)
  uint32_t differsAtLine = 0;      // TvResult::differsAtLine
  std::string line;                // the text line printed for it (without "verify STEP: ")

  // Refuted by Z3 or by the interpreter.
  bool refuted() const;
  bool unknown() const { return !refuted() && verdict == verify::TvResult::Verdict::Unknown; }
  // Unknown: verify::unknownCategory(reason); else empty.
  std::string category() const;
};

class VerdictLog {
public:
  void add(VerdictRecord r) { records_.push_back(std::move(r)); }
  const std::vector<VerdictRecord> &records() const { return records_; }
  size_t proved() const, unknown() const, refuted() const;
  // "verify: N proved, N unknown (timeout 2, unmodelled 1), N refuted in S s" (categories
  // by count, most first, then by name; the parenthesis only when something is unknown).
  std::string closingLine(double seconds) const;
  // The "verify" object of --json (docs/oriopt-output.schema.json, $defs/verify).
  nlohmann::json toJson(double seconds, bool strict) const;
  // The SARIF 2.1.0 log of --sarif: refuted as errors, unknown as warnings, located at the
  // function's line of `inputUri` and, when the validator says where the two sides first
  // differ, also at that instruction's line.
  nlohmann::json sarif(const std::string &inputUri, const std::string &toolVersion,
                       double seconds) const;

private:
  std::vector<VerdictRecord> records_;
};

// --verify=strict's exit status: 4 when anything is refuted, else 3 when anything is unknown,
// else 0.
int strictExitStatus(const VerdictLog &log);

} // namespace ori
