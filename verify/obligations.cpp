// The obligation registry and runner (verify/obligations.h).
#include "verify/obligations.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <chrono>
#include <stdexcept>

#include "verify/obligation_defs.h"

namespace ori::verify {
namespace {

const std::vector<ObligationDef> &registry() {
  static const std::vector<ObligationDef> all = [] {
    std::vector<ObligationDef> v;
    for (auto family : {lop3Obligations, spec002Obligations, evaluateObligations,
                        spec003Obligations, switchObligations})
      for (ObligationDef &d : family())
        v.push_back(std::move(d));
    return v;
  }();
  return all;
}

} // namespace

Claim bitwiseEqual(const z3::expr &lhs, const z3::expr &rhs, Shown shown) {
  Claim c{lhs == rhs, std::move(shown)};
  for (unsigned j = 0; j < lhs.get_sort().bv_size(); ++j)
    c.parts.push_back(lhs.extract(j, j) == rhs.extract(j, j));
  return c;
}

std::vector<ObligationInfo> listObligations() {
  std::vector<ObligationInfo> out;
  for (const ObligationDef &d : registry())
    out.push_back(d.info);
  return out;
}

ObligationResult checkObligation(const std::string &name) {
  for (const ObligationDef &d : registry()) {
    if (d.info.name != name)
      continue;
    auto start = std::chrono::steady_clock::now();
    ObligationResult r;
    try {
      Smt smt;
      Claim c = d.build(smt);
      Validity v;
      if (c.parts.empty()) {
        v = smt.prove(c.holds, c.shown);
      } else {
        for (const z3::expr &part : c.parts) // stops at the first part that fails
          if (v = smt.prove(part, c.shown); v.kind != Validity::Kind::Valid)
            break;
      }
      r.status = v.kind == Validity::Kind::Valid     ? ObligationResult::Status::Proved
                 : v.kind == Validity::Kind::Invalid ? ObligationResult::Status::Refuted
                                                     : ObligationResult::Status::Unknown;
      r.counterexample = std::move(v.counterexample);
      r.reason = std::move(v.reason);
    } catch (const z3::exception &e) {
      r.reason = std::string("Z3: ") + e.msg();
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  }
  throw std::invalid_argument("no obligation named '" + name + "'");
}

std::string formatResult(const ObligationInfo &o, const ObligationResult &r) {
  switch (r.status) {
  case ObligationResult::Status::Proved:
    return "proved " + o.name;
  case ObligationResult::Status::Refuted: {
    std::string s = "refuted " + o.name + ": counterexample";
    for (const auto &[k, v] : r.counterexample)
      s += fmt::format(" {}={}", k, v);
    return s;
  }
  case ObligationResult::Status::Unknown:
    break;
  }
  return "unknown " + o.name + ": " + r.reason;
}

bool nameMatches(const std::string &pattern, const std::string &name) {
  if (pattern.empty())
    return true;
  if (pattern.find_first_of("*?[") == std::string::npos)
    return name.find(pattern) != std::string::npos;
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

} // namespace ori::verify
