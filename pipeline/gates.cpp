// The phase table's gates as data (PhaseGate: gateBlocks, describeGate), the
// table `oriopt --list-phases` prints, and what a phase changed (diffModules).
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <unordered_map>

#include "ir/arch.h"
#include "ir/ori.h"
#include "pipeline/pipeline.h"
#include "rules/general_optimize.h"

namespace ori {
namespace {

// "214 DisableMergeEquivalentConditionalFlow", or the name alone for a knob without an index.
std::string knobLabel(std::string_view name) {
  const KnobInfo *k = findKnob(name);
  return k && k->index >= 0 ? fmt::format("{} {}", k->index, name) : std::string(name);
}

const ArchInfo &targetArch(const PassContext &ctx) {
  return ctx.arch ? *ctx.arch : *findArch(kDefaultArch);
}

// The SM number of the target ("sm_90" -> 90).
int smNumber(const PassContext &ctx) {
  std::string_view n = targetArch(ctx).name;
  int v = 0;
  for (char c : n.substr(n.find('_') + 1))
    if (c >= '0' && c <= '9')
      v = v * 10 + (c - '0');
    else
      break;
  return v;
}

} // namespace

std::optional<std::string> gateBlocks(const PhaseGate &g, const PassContext &ctx) {
  if (g.minOptLevel > 0) {
    // The opt level sub_7DDB50 reports: knob 499 (OptBudget) spent caps it at O1 (002:851).
    const bool spent = ctx.knobs.getInt("OptBudget") == 0;
    const int level = spent ? std::min(ctx.optLevel, 1) : ctx.optLevel;
    if (level < g.minOptLevel) {
      if (ctx.optLevel >= g.minOptLevel)
        return fmt::format("knob {} spent caps -O{} at -O1, below -O{}", knobLabel("OptBudget"),
                           ctx.optLevel, g.minOptLevel);
      return fmt::format("-O{} is below -O{}", ctx.optLevel, g.minOptLevel);
    }
  }
  for (std::string_view k : g.vetoKnobs)
    if (!k.empty() && ctx.knobs.getBool(k))
      return fmt::format("knob {} is set", knobLabel(k));
  for (std::string_view k : g.requiredKnobs)
    if (!k.empty() && !ctx.knobs.getBool(k))
      return fmt::format("knob {} is unset", knobLabel(k));
  if (g.minSm > 0 && smNumber(ctx) < g.minSm)
    return fmt::format("{} is before sm_{} (the backend's slot is a no-op)", targetArch(ctx).name,
                       g.minSm);
  if (!g.namedPhase.empty()) {
    std::string_view list = ctx.knobs.getString("no-phase");
    while (!list.empty()) {
      const size_t comma = list.find(',');
      if (list.substr(0, comma) == g.namedPhase)
        return fmt::format("no-phase names {}", g.namedPhase);
      list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    }
  }
  if (g.needsPredicateMarking && !archAllowsPredicateMarking(targetArch(ctx).encoded))
    return fmt::format(
        "{} has no predicate-aware GeneralOptimize suite (the backend's slot is a no-op)",
        targetArch(ctx).name);
  return std::nullopt;
}

std::string describeGate(const PhaseGate &g) {
  std::vector<std::string> parts;
  if (g.minOptLevel > 0)
    parts.push_back(fmt::format("-O{}+", g.minOptLevel));
  for (std::string_view k : g.vetoKnobs)
    if (!k.empty())
      parts.push_back(fmt::format("knob {} unset", knobLabel(k)));
  for (std::string_view k : g.requiredKnobs)
    if (!k.empty())
      parts.push_back(fmt::format("knob {} set", knobLabel(k)));
  if (g.minSm > 0)
    parts.push_back(fmt::format("sm_{}+", g.minSm));
  if (g.needsPredicateMarking) {
    std::string without;
    for (const ArchInfo &a : allArchs())
      if (!archAllowsPredicateMarking(a.encoded))
        without += (without.empty() ? "" : ", ") + std::string(a.name);
    parts.push_back(fmt::format("an SM with the predicate-aware suite (not {})", without));
  }
  if (!g.namedPhase.empty())
    parts.push_back(fmt::format("no-phase does not name {}", g.namedPhase));
  if (parts.empty())
    return "";
  std::string out;
  for (const std::string &part : parts)
    out += (out.empty() ? "" : "; ") + part;
  if (!g.spec.empty())
    out += fmt::format(" ({})", g.spec);
  return out;
}

std::string formatPipelinePhaseTable() {
  size_t nameWidth = 0, specWidth = 0;
  for (const PhaseInfo &p : allPhases()) {
    nameWidth = std::max(nameWidth, p.name.size());
    specWidth = std::max(specWidth, p.spec.size());
  }
  std::string out;
  for (const PhaseInfo &p : allPhases()) {
    const PipelineEntry *e = nullptr;
    for (const PipelineEntry &q : pipeline())
      if (q.phase == p.number)
        e = &q;
    std::string tail;
    if (e)
      tail = e->gate.gated() ? "gated: " + describeGate(e->gate) : "ungated";
    const std::string_view when = !e ? "" : e->byDefault ? "default" : "named";
    std::string line =
        fmt::format("{:>3} {:<{}}  {:<19}  {:<7}  {:<{}}  {}", p.number, p.name, nameWidth,
                    e ? "implemented" : "not implemented yet", when, p.spec, specWidth, tail);
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  }
  return out;
}

ModuleChanges diffModules(const Module &before, const Module &after) {
  ModuleChanges c;
  const size_t n = std::max(before.functions.size(), after.functions.size());
  for (size_t i = 0; i < n; ++i) {
    const Function *a = i < before.functions.size() ? &before.functions[i] : nullptr;
    const Function *b = i < after.functions.size() ? &after.functions[i] : nullptr;
    if (a && b && *a == *b && a->blocks.size() == b->blocks.size() &&
        std::equal(a->blocks.begin(), a->blocks.end(), b->blocks.begin(),
                   [](const Block &x, const Block &y) { return x.labelId == y.labelId; }))
      continue;
    ++c.functionsChanged;
    std::unordered_map<std::string, long long> instrs;
    std::unordered_map<uint32_t, long long> blocks;
    auto count = [&](const Function &f, long long sign) {
      for (const Block &blk : f.blocks) {
        blocks[blk.labelId] += sign;
        for (const Instr &in : blk.instrs)
          instrs[printInstr(f, in)] += sign;
      }
    };
    if (a)
      count(*a, 1);
    if (b)
      count(*b, -1);
    for (const auto &[text, d] : instrs)
      (d > 0 ? c.instrsRemoved : c.instrsAdded) += size_t(d > 0 ? d : -d);
    for (const auto &[id, d] : blocks)
      (d > 0 ? c.blocksRemoved : c.blocksAdded) += size_t(d > 0 ? d : -d);
  }
  return c;
}

} // namespace ori
