// Named proof obligations (docs/verifier.md, "Obligations"): the LOP3/PLOP3
// truth-table algebra, the spec's LOP3 claims (spec/003) and the
// switch-dispatch examples. Each claims something for all inputs; Z3 proves
// it or gives a counterexample. Some are expected to fail: the deliberately
// wrong variants (named *.wrong-*) that show a proof can fail, and spec
// claims we found wrong (docs/spec-notes.md). No Z3 types here.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ori::verify {

struct ObligationInfo {
  std::string name;      // "lop3.compose", "lop3.compose.wrong-operand-order"
  std::string statement; // what is claimed, in one line
  bool expectHolds = true;
};

struct ObligationResult {
  enum class Status { Proved, Refuted, Unknown };
  Status status = Status::Unknown;
  // Refuted: the inputs (and relevant values) of a counterexample, name -> "0x1f" / "true".
  std::vector<std::pair<std::string, std::string>> counterexample;
  std::string reason; // Unknown: why (timeout, Z3 error)
  double seconds = 0;
  bool asExpected(const ObligationInfo &o) const {
    return o.expectHolds ? status == Status::Proved : status == Status::Refuted;
  }
};

// Every obligation, in a fixed order.
std::vector<ObligationInfo> listObligations();
// Proves one by name; throws std::invalid_argument for an unknown name.
ObligationResult checkObligation(const std::string &name);
// "proved NAME", "refuted NAME: counterexample a=0x1 b=0x2", "unknown NAME: reason".
std::string formatResult(const ObligationInfo &o, const ObligationResult &r);
// `pattern` selects a name: a glob (with * ? [) or else a substring; "" selects all.
bool nameMatches(const std::string &pattern, const std::string &name);

} // namespace ori::verify
