// The verdicts of oriopt --verify: counts, the closing line, --json's part (pipeline/verdicts.h).
#include "pipeline/verdicts.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "verify/tv_category.h"

namespace ori {

using Verdict = verify::TvResult::Verdict;

bool VerdictRecord::refuted() const { return verdict == Verdict::Refuted || interpreterDiffers; }

std::string VerdictRecord::category() const {
  return unknown() ? std::string(verify::unknownCategory(reason)) : std::string();
}

size_t VerdictLog::proved() const {
  return std::ranges::count_if(records_, [](const VerdictRecord &r) {
    return !r.refuted() && r.verdict == Verdict::Proved;
  });
}
size_t VerdictLog::unknown() const {
  return std::ranges::count_if(records_, [](const VerdictRecord &r) { return r.unknown(); });
}
size_t VerdictLog::refuted() const {
  return std::ranges::count_if(records_, [](const VerdictRecord &r) { return r.refuted(); });
}

namespace {
// Unknown verdicts by category, most first, then by name.
std::vector<std::pair<std::string, size_t>> byCategory(const std::vector<VerdictRecord> &rs) {
  std::map<std::string, size_t> counts;
  for (const VerdictRecord &r : rs)
    if (r.unknown())
      ++counts[r.category()];
  std::vector<std::pair<std::string, size_t>> out(counts.begin(), counts.end());
  std::ranges::stable_sort(out, [](const auto &a, const auto &b) { return a.second > b.second; });
  return out;
}

const char *verdictName(const VerdictRecord &r) {
  return r.refuted() ? "refuted" : r.verdict == Verdict::Proved ? "proved" : "unknown";
}
} // namespace

std::string VerdictLog::closingLine(double seconds) const {
  std::string cats;
  for (const auto &[name, n] : byCategory(records_))
    cats += fmt::format("{}{} {}", cats.empty() ? "" : ", ", name, n);
  return fmt::format("verify: {} proved, {} unknown{}, {} refuted in {:.1f} s", proved(), unknown(),
                     cats.empty() ? "" : " (" + cats + ")", refuted(), seconds);
}

nlohmann::json VerdictLog::toJson(double seconds, bool strict) const {
  nlohmann::json cats = nlohmann::json::object();
  for (const auto &[name, n] : byCategory(records_))
    cats[name] = n;
  nlohmann::json verdicts = nlohmann::json::array();
  for (const VerdictRecord &r : records_) {
    nlohmann::json inputs = nlohmann::json::array();
    for (const auto &[name, value] : r.inputs)
      inputs.push_back({{"name", name}, {"value", value}});
    nlohmann::json v = {
        {"step", r.step},
        {"phase", r.phase ? nlohmann::json(*r.phase) : nlohmann::json()},
        {"function", r.function},
        {"kind", r.kind},
        {"verdict", verdictName(r)},
        {"reason", r.reason},
        {"category", r.unknown() ? nlohmann::json(r.category()) : nlohmann::json()},
        {"seconds", r.seconds},
        {"counterexample", inputs},
        {"replay", r.replayArgs.empty() ? nlohmann::json() : nlohmann::json(r.replayArgs)},
    };
    if (!r.what.empty())
      v["subject"] = r.what;
    if (!r.noReplay.empty() && r.refuted())
      v["noReplay"] = r.noReplay;
    if (!r.interpreter.empty())
      v["interpreter"] = r.interpreter;
    if (r.differsAtLine)
      v["differsAtLine"] = r.differsAtLine;
    verdicts.push_back(std::move(v));
  }
  return {{"proved", proved()},        {"unknown", unknown()}, {"refuted", refuted()},
          {"unknownByCategory", cats}, {"seconds", seconds},   {"strict", strict},
          {"verdicts", verdicts}};
}

int strictExitStatus(const VerdictLog &log) { return log.refuted() ? 4 : log.unknown() ? 3 : 0; }

} // namespace ori
