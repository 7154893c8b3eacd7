// The phase statistics as a table and as JSON (pipeline/stats.h).
#include "pipeline/stats.h"

#include <fmt/format.h>

#include "ir/phases.h"

namespace ori {

using nlohmann::json;

namespace {

std::string_view phaseName(int phase) {
  const PhaseInfo *info = findPhase(std::to_string(phase));
  return info ? info->name : std::string_view("?");
}

} // namespace

std::string formatStatsTable(std::span<const PhaseStats> stats) {
  const std::string rule = "===" + std::string(73, '-') + "===\n";
  std::string out = rule + std::string(28, ' ') + "oriopt phase statistics\n" + rule;
  double total = 0;
  ModuleChanges sum;
  size_t rewrites = 0;
  for (const PhaseStats &s : stats) {
    total += s.seconds;
    rewrites += s.rewrites.value_or(0);
    if (!s.changes)
      continue;
    sum.instrsRemoved += s.changes->instrsRemoved;
    sum.instrsAdded += s.changes->instrsAdded;
    sum.blocksRemoved += s.changes->blocksRemoved;
    sum.blocksAdded += s.changes->blocksAdded;
  }
  out += fmt::format("  Total: {} phases, {:.4f} seconds\n\n", stats.size(), total);
  out += fmt::format("  {:>9}  {:>7}  {:>7}  {:>7}  {:>6}  {:>7}  {:>7}  {:>8}  {:>9}  {}\n",
                     "Time (ms)", "Instrs", "-Instrs", "+Instrs", "Blocks", "-Blocks", "+Blocks",
                     "Rewrites", "Functions", "Phase");
  auto n = [](const std::optional<ModuleChanges> &c, size_t ModuleChanges::*field) {
    return c ? std::to_string((*c).*field) : std::string("?");
  };
  for (const PhaseStats &s : stats) {
    const std::string name = fmt::format("{} {}", s.phase, phaseName(s.phase));
    if (!s.gatedBy.empty()) {
      out += fmt::format(
          "  {:>9}  {:>7}  {:>7}  {:>7}  {:>6}  {:>7}  {:>7}  {:>8}  {:>9}  {} (gated: {})\n", "-",
          s.after.instrs, "-", "-", s.after.blocks, "-", "-", "-", "-", name, s.gatedBy);
      continue;
    }
    out += fmt::format(
        "  {:>9.3f}  {:>7}  {:>7}  {:>7}  {:>6}  {:>7}  {:>7}  {:>8}  {:>9}  {}\n",
        s.seconds * 1000, s.after.instrs, n(s.changes, &ModuleChanges::instrsRemoved),
        n(s.changes, &ModuleChanges::instrsAdded), s.after.blocks,
        n(s.changes, &ModuleChanges::blocksRemoved), n(s.changes, &ModuleChanges::blocksAdded),
        s.rewrites ? std::to_string(*s.rewrites) : "-",
        n(s.changes, &ModuleChanges::functionsChanged), name);
  }
  if (!stats.empty())
    out += fmt::format("  {:>9.3f}  {:>7}  {:>7}  {:>7}  {:>6}  {:>7}  {:>7}  {:>8}  {:>9}  {}\n",
                       total * 1000, stats.back().after.instrs, sum.instrsRemoved, sum.instrsAdded,
                       stats.back().after.blocks, sum.blocksRemoved, sum.blocksAdded, rewrites, "",
                       "Total");
  return out;
}

json statsJson(std::span<const PhaseStats> stats) {
  json out = json::array();
  for (const PhaseStats &s : stats) {
    const ModuleChanges c = s.changes.value_or(ModuleChanges{});
    json j = {{"phase", s.phase},
              {"name", std::string(phaseName(s.phase))},
              {"ran", s.gatedBy.empty()},
              {"seconds", s.seconds},
              {"instrs",
               {{"before", s.before.instrs},
                {"after", s.after.instrs},
                {"removed", c.instrsRemoved},
                {"added", c.instrsAdded}}},
              {"blocks",
               {{"before", s.before.blocks},
                {"after", s.after.blocks},
                {"removed", c.blocksRemoved},
                {"added", c.blocksAdded}}},
              {"functionsChanged", c.functionsChanged},
              {"rewrites", s.rewrites ? json(*s.rewrites) : json(nullptr)}};
    if (!s.gatedBy.empty())
      j["gatedBy"] = s.gatedBy;
    out.push_back(std::move(j));
  }
  return out;
}

} // namespace ori
