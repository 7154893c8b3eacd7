// --sarif: oriopt --verify's verdicts as a SARIF 2.1.0 log (pipeline/verdicts.h; the format:
// OASIS SARIF 2.1.0, the schema tests/schemas/sarif-schema-2.1.0.Json). One run; a result per
// refuted (level "error", rule tv.refuted) or unknown (level "warning", rule tv.unknown)
// verdict; proved verdicts are counted in the run's properties, not listed.
#include <fmt/format.h>

#include "pipeline/verdicts.h"

namespace ori {

namespace {

using Json = nlohmann::json;

// The input path as a URI reference: relative paths stay relative (SARIF resolves them against
// the run's working directory), absolute ones become file:// URIs; bytes outside the
// unreserved set and '/' are percent-encoded.
std::string fileUri(const std::string &path) {
  std::string out = path.starts_with("/") ? "file://" : "";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~')
      out += char(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

Json physical(const std::string &uri, uint32_t line) {
  Json loc = {{"artifactLocation", {{"uri", uri}, {"index", 0}}}};
  if (line)
    loc["region"] = {{"startLine", line}};
  return loc;
}

} // namespace

Json VerdictLog::sarif(const std::string &inputUri, const std::string &toolVersion,
                       double seconds) const {
  const std::string uri = fileUri(inputUri);
  Json rules = Json::array(
      {{{"id", "tv.refuted"},
        {"name", "Refuted"},
        {"shortDescription", {{"text", "A step changed the behaviour of a function."}}},
        {"fullDescription",
         {{"text", "Translation validation found an input on which the function after the step "
                   "does not refine the function before it (docs/verifier.md)."}}},
        {"defaultConfiguration", {{"level", "error"}}}},
       {{"id", "tv.unknown"},
        {"name", "Unknown"},
        {"shortDescription",
         {{"text", "A step's change to a function was neither proved nor "
                   "refuted."}}},
        {"fullDescription",
         {{"text", "Translation validation could not decide; properties.category says why "
                   "(docs/verifier.md, \"Verdicts for CI\")."}}},
        {"defaultConfiguration", {{"level", "warning"}}}}});
  Json results = Json::array();
  for (const VerdictRecord &r : records_) {
    if (!r.refuted() && !r.unknown())
      continue;
    const bool refuted = r.refuted();
    Json location = {{"physicalLocation", physical(uri, r.functionLine)},
                     {"logicalLocations", Json::array({{{"name", r.function},
                                                        {"fullyQualifiedName", r.function},
                                                        {"kind", "function"}}})}};
    Json result = {
        {"ruleId", refuted ? "tv.refuted" : "tv.unknown"},
        {"ruleIndex", refuted ? 0 : 1},
        {"level", refuted ? "error" : "warning"},
        {"message", {{"text", fmt::format("{}: {}", r.step, r.line)}}},
        {"locations", Json::array({location})},
    };
    if (r.differsAtLine)
      result["relatedLocations"] = Json::array(
          {{{"id", 0},
            {"physicalLocation", physical(uri, r.differsAtLine)},
            {"message", {{"text", "the instruction where the two sides first differ"}}}}});
    Json props = {{"step", r.step}, {"kind", r.kind}, {"reason", r.reason}, {"seconds", r.seconds}};
    if (r.phase)
      props["phase"] = *r.phase;
    if (!refuted)
      props["category"] = r.category();
    if (!r.inputs.empty()) {
      Json inputs = Json::array();
      for (const auto &[name, value] : r.inputs)
        inputs.push_back({{"name", name}, {"value", value}});
      props["counterexample"] = inputs;
    }
    if (!r.replayArgs.empty())
      props["replay"] = fmt::format("oriopt --run {} FILE", r.replayArgs);
    if (!r.interpreter.empty())
      props["interpreter"] = r.interpreter;
    result["properties"] = props;
    results.push_back(std::move(result));
  }
  Json run = {
      {"tool",
       {{"driver",
         {{"name", "oriopt"},
          {"version", toolVersion},
          {"informationUri", "https://oriopt.invalid/docs/verifier.md"},
          {"rules", rules}}}}},
      {"artifacts", Json::array({{{"location", {{"uri", uri}}}}})},
      {"invocations", Json::array({{{"executionSuccessful", true}}})},
      {"results", results},
      {"properties",
       {{"proved", proved()},
        {"unknown", unknown()},
        {"refuted", refuted()},
        {"seconds", seconds}}},
  };
  return {{"$schema", "https://Json.schemastore.org/sarif-2.1.0.Json"},
          {"version", "2.1.0"},
          {"runs", Json::array({run})}};
}

} // namespace ori
