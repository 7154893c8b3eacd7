// The round trip: compare, then prove what differs (pipeline/roundtrip_check.h).
#include "pipeline/roundtrip_check.h"

#include <fmt/format.h>

#include <map>

#include "ptx/roundtrip.h"

namespace ori {

std::string RoundTripFunction::str() const {
  std::string head;
  switch (status) {
  case Status::Equal: return "equal " + name;
  case Status::Proved: head = fmt::format("proved {} ({:.1f} s)", name, seconds); break;
  case Status::Unproved:
    head = fmt::format("unproved {}: {} {}", name, direction, tv ? tv->line() : std::string("not validated"));
    break;
  case Status::Unchecked: head = fmt::format("unchecked {} (differs; not proved in this run)", name); break;
  }
  if (difference) head += "\n  " + difference->str();
  return head;
}

size_t RoundTripReport::count(RoundTripFunction::Status s) const {
  size_t n = 0;
  for (const RoundTripFunction& f : functions) n += f.status == s;
  return n;
}

bool RoundTripReport::ok() const {
  return !error && !moduleDifference && count(RoundTripFunction::Status::Unproved) == 0;
}

std::string RoundTripReport::summary() const {
  using S = RoundTripFunction::Status;
  return fmt::format("{} functions: {} equal, {} differ but proved, {} unproved, {} unchecked", functions.size(),
                     count(S::Equal), count(S::Proved), count(S::Unproved), count(S::Unchecked));
}

RoundTripReport checkRoundTrip(const Module& first, const RoundTripOptions& opts) {
  RoundTripReport rep;
  ptx::RoundTrip rt = ptx::roundTrip(first);
  if (rt.error) {
    rep.error = rt.error;
    rep.stage = rt.stage;
    return rep;
  }
  rep.moduleDifference = rt.comparison.module;
  std::map<std::string, const NameFreeDifference*> differs;
  for (const NameFreeDifference& d : rt.comparison.differ) differs[d.function] = &d;
  // The validator pairs registers by number: canonical numbering lines up the registers
  // each side reads before writing them.
  std::optional<Module> a, b;
  auto validate = [&](const Module& src, const Module& tgt, const std::string& name) {
    return verify::validateFunction(src, tgt, name, opts.tv);
  };
  auto addFunction = [&](const std::string& name) {
    RoundTripFunction r;
    r.name = name;
    auto it = differs.find(name);
    if (it == differs.end()) {
      rep.functions.push_back(std::move(r));
      return;
    }
    r.difference = *it->second;
    if (!opts.prove || (opts.proveOnly && !opts.proveOnly(name)) || r.difference->where == "function") {
      // a function missing on one side cannot be proved equal to anything
      r.status = r.difference->where == "function" ? RoundTripFunction::Status::Unproved
                                                   : RoundTripFunction::Status::Unchecked;
      rep.functions.push_back(std::move(r));
      return;
    }
    if (!a) {
      a = canonicalModule(first);
      b = canonicalModule(rt.second);
    }
    r.status = RoundTripFunction::Status::Unproved;
    verify::TvResult fwd = validate(*a, *b, name);
    r.seconds = fwd.seconds;
    if (fwd.verdict != verify::TvResult::Verdict::Proved) {
      r.direction = "forward";
      r.tv = std::move(fwd);
    } else {
      verify::TvResult back = validate(*b, *a, name);
      r.seconds += back.seconds;
      if (back.verdict == verify::TvResult::Verdict::Proved)
        r.status = RoundTripFunction::Status::Proved;
      r.direction = "backward";
      r.tv = std::move(back);
    }
    rep.functions.push_back(std::move(r));
  };
  for (const Function& f : first.functions) addFunction(f.name);
  for (const Function& g : rt.second.functions)
    if (!first.findFunction(g.name)) addFunction(g.name);
  return rep;
}

} // namespace ori
