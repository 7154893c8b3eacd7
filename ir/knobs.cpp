// The knob registry. Spec references are "spec/NNN" for /work/shared/spec/NNN_*.txt;
// "NNN:L" in comments is line L of that file (cat -n numbering).
//
// Index space: the spec's option/knob indices and options-manager offsets agree on a 72-byte
// stride (offset = 72 * index): #20 at +1440 (000:345), #24 at +1728 (000:244), 31 at +2232
// (002:77), 135 at +9720 (002:475), 214 at +15408 (002:29), 235 at +16920 (001:338),
// 461 at +33192 (002:786). Knobs 614/615 are derived from offsets 44208/44280 (003:68).
#include "ir/knobs.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>

#include <fmt/format.h>

namespace ori {
namespace {

using KT = KnobType;

constexpr std::array kKnobs = {
    // 000:273 "The choice is gated by a knob query at CodeObject vtable slot +72 with argument
    // 7" (slot +72 is the bool query, 001:335). Name and default derived: the iterative
    // sub_BDE150 is the documented RPO (000:195).
    KnobInfo{7, "RPOUseRecursiveDFS", KT::Bool, "false", "spec/000 Dominance",
             "Compute RPO with the recursive DFS sub_BDE6C0 instead of iterative sub_BDE150."},
    // 000:345 "option flag #20 is enabled (offset +1440 from the options manager)".
    KnobInfo{20, "DumpCFGDot", KT::Bool, "false", "spec/000 CFG Visualization",
             "Option flag #20: dump the CFG in Graphviz DOT format (sub_BE21D0)."},
    // 000:244 "gated by option flag #24 at offset +1728".
    KnobInfo{24, "DumpRPOAndBackedges", KT::Bool, "false", "spec/000 RPO Debug Dump",
             "Option flag #24: dump RPO numbers and backedges (sub_BDEA50)."},
    // 002:843 "31 | AllowReassociateCSE | OKT_INT | unset | Phase 58".
    KnobInfo{31, "AllowReassociateCSE", KT::Int, "0", "spec/002 Knobs and Options",
             "Phase 58 fold-eligibility gate with extended-value semantics (unset = 0)."},
    // 002:844 "135 | ConvertMemoryToRegIndexedSizeLimit | OKT_INT | unset".
    KnobInfo{135, "ConvertMemoryToRegIndexedSizeLimit", KT::Int, "0", "spec/002 Knobs and Options",
             "Phase 37 convergence-threshold override and indexed-access size limit (unset = 0)."},
    // 002:881 "Register promotion (Mid) | ... threshold-based (default 0.93, knob 136)".
    // No name in the spec: descriptive name.
    KnobInfo{136, "ConvertMemoryToRegPromotionThreshold", KT::Float, "0.93",
             "spec/002 Function Map",
             "Threshold of phase 37's memory-to-register promotion sub_90EF70."},
    // 002:845 "214 | DisableMergeEquivalentConditionalFlow | OKT_NONE | false".
    // 003:443 calls it "OriBranchOpt disable" (see docs).
    KnobInfo{214, "DisableMergeEquivalentConditionalFlow", KT::Bool, "false",
             "spec/002 Knobs and Options",
             "When set, the sub_7917F0 body (phase 13; spec/003: phase 15) returns at once."},
    // 002:846 "231 | DisableRedundantBarrierRemoval | OKT_NONE | false | Phase 29 only".
    KnobInfo{231, "DisableRedundantBarrierRemoval", KT::Bool, "false", "spec/002 Knobs and Options",
             "When set, phase 29 GeneralOptimize is skipped."},
    // 003:54 "Queries knob 232 for disable". No name: descriptive; default derived (runs).
    KnobInfo{232, "DisableSyncPatternRestructuring", KT::Bool, "false",
             "spec/003 Phase 14 Vtable Slot 17",
             "Disables sync-pattern restructuring in phase 14's handler sub_849110."},
    // 001:24 "Knob 235 (wrapper veto, sub_C60870)"; 001:300 set = skip. No name: descriptive;
    // default derived (phase 3 runs at O1+ unless vetoed).
    KnobInfo{235, "DisableAnalyzeControlFlow", KT::Bool, "false", "spec/001 Wrapper Gate",
             "Vetoes the canonical phase-3 AnalyzeControlFlow run (inverted polarity)."},
    // 003:55 "Knob 351 limits iteration count". No name, no default: descriptive, unbounded.
    KnobInfo{351, "BranchTargetScanBudget", KT::Int, "-1", "spec/003 Phase 14 Vtable Slot 17",
             "Iteration limit of phase 14's branch-target scan (negative = unbounded)."},
    // 004:253 "sub_BF33D0 (knob-gated entry, reads register budget from ctx+1624 and knob
    // 456)". No name, type or default: descriptive, derived (phase 19 runs).
    KnobInfo{456, "DisableOriSplitLiveRanges", KT::Bool, "false", "spec/004 Phase 19",
             "Gate of phase 19's entry sub_BF33D0."},
    // 002:847 "461 | MembarFlowControl | OKT_INT | unset | Phase 29".
    KnobInfo{461, "MembarFlowControl", KT::Int, "0", "spec/002 Knobs and Options",
             "Phase 29 secondary gate: memory-barrier flow analysis (unset = 0)."},
    // 002:848 "464 | MergeEquivalentConditionalFlowBudget | OKT_BDGT | unset (= unbounded)".
    // 003:445 calls it a bool "Convergence loop" gate, enabled by default (003:313).
    KnobInfo{464, "MergeEquivalentConditionalFlowBudget", KT::Int, "-1",
             "spec/002 Knobs and Options",
             "Budget of the per-block fixed-point loop of sub_7917F0 (negative = unbounded)."},
    // 002:849 "474 | MovWeightForConvertMemToReg | OKT_DBL | 0.25 | Phase 37".
    KnobInfo{474, "MovWeightForConvertMemToReg", KT::Float, "0.25", "spec/002 Knobs and Options",
             "Phase 37 cost convergence threshold and per-fold weight of cost-exempt opcodes."},
    // 002:850 "487 | (not yet decoded) | -- | enabled"; 003:444 "General optimization | 487 |
    // bool". No name: descriptive.
    KnobInfo{487, "GeneralOptimizationEnable", KT::Bool, "true", "spec/002 Knobs and Options",
             "Master enable of GeneralOptimize (13/29/37), OriBranchOpt and LoopMakeSingleEntry."},
    // 002:851 "499 | OptBudget | OKT_BDGT | enabled (pass-through) | sub_7DDB50".
    // 003:442 names it "ConvertUnsupportedOps" (bool) instead (see docs).
    KnobInfo{499, "OptBudget", KT::Int, "-1", "spec/002 Knobs and Options",
             "Guard of the opt-level accessor: 0 caps opt-level-gated behaviour at O1 "
             "(negative = pass-through)."},
    // 002:852 "605 | ReassociateCSEWindow | OKT_NONE | false | Phase 58".
    KnobInfo{605, "ReassociateCSEWindow", KT::Bool, "false", "spec/002 Knobs and Options",
             "Phase 58: restrict the 6-slot buffer to existing entries (no insertions)."},
    // 003:68 "distance thresholds read from knob offsets 44280 and 44208": index = offset / 72.
    // No names, types or defaults: descriptive; 0 is a placeholder.
    KnobInfo{614, "BranchDistanceThresholdA", KT::Int, "0", "spec/003 Phase 14 Vtable Slot 17",
             "Branch-distance threshold (offset 44208) of phase 14's sm_80/sm_89 handler."},
    KnobInfo{615, "BranchDistanceThresholdB", KT::Int, "0", "spec/003 Phase 14 Vtable Slot 17",
             "Branch-distance threshold (offset 44280) of phase 14's sm_80/sm_89 handler."},
    // 003:120 "SwitchOptBudget | FjvgpuBcgOhqtrg | 0x21B7CE0 | integer (03)"; 003:122 the
    // default is not visible. Derived: unbounded.
    KnobInfo{-1, "SwitchOptBudget", KT::Int, "-1", "spec/003 Decision: Strategy Selection",
             "Effort budget of switch optimization before falling back to BST (negative = "
             "unbounded)."},
    // 003:121 "SwitchOptExtendedPatternMatch | ... | boolean (02)". Default derived: the
    // scanner tolerates interleaved instructions (003:106-107).
    KnobInfo{-1, "SwitchOptExtendedPatternMatch", KT::Bool, "true",
             "spec/003 Decision: Strategy Selection",
             "Switch recognizer accepts interleaved instructions beyond plain ISETP+BRA pairs."},
    // 002:449-456 "limit-fold-fp", Boolean, Default "false", config+340.
    KnobInfo{-1, "limit-fold-fp", KT::Bool, "false", "spec/002 The limit-fold-fp Knob",
             "When true, float operands take the conservative fold path (no FP folds)."},
    // 000:15, 000:293 "--dont-merge-basicblocks (alias -no-bb-merge) CLI flag".
    KnobInfo{-1, "dont-merge-basicblocks", KT::Bool, "false", "spec/000 BB Merge Suppression",
             "CLI flag: never merge consecutive basic blocks (debuggable code)."},
    // 002:854 "--no-phase command-line option"; 004:24 NamedPhases "OriPerformLiveDead".
    KnobInfo{-1, "no-phase", KT::String, "", "spec/002 Knobs and Options",
             "CLI option: named phase to disable, e.g. ConvertMemoryToRegisterOrUniform."},
};

std::string quoted(std::string_view s) { return fmt::format("'{}'", s); }

std::string describe(const KnobInfo &k) {
  if (k.index < 0)
    return fmt::format("knob '{}'", k.name);
  return fmt::format("knob '{}' ({})", k.name, k.index);
}

const KnobInfo *findByName(std::string_view name) {
  for (const KnobInfo &k : kKnobs)
    if (k.name == name)
      return &k;
  return nullptr;
}

bool parseBool(std::string_view text, bool &out) {
  if (text == "1" || text == "true")
    return out = true, true;
  if (text == "0" || text == "false")
    return out = false, true;
  return false;
}

bool parseInt(std::string_view text, int64_t &out) {
  bool negative = false;
  if (!text.empty() && text.front() == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  // from_chars accepts neither a sign nor a prefix here, so "--1" and "0x-1" fail.
  if (text.empty() || text.front() == '-' || text.front() == '+')
    return false;
  uint64_t magnitude = 0;
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, magnitude, base);
  if (ec != std::errc() || ptr != end)
    return false;
  constexpr uint64_t kMaxPos = uint64_t(std::numeric_limits<int64_t>::max());
  if (negative) {
    if (magnitude > kMaxPos + 1)
      return false;
    out = magnitude == kMaxPos + 1 ? std::numeric_limits<int64_t>::min()
                                   : -static_cast<int64_t>(magnitude);
  } else {
    if (magnitude > kMaxPos)
      return false;
    out = static_cast<int64_t>(magnitude);
  }
  return true;
}

bool parseFloat(std::string_view text, double &out) {
  // strtod skips leading white space; we want the whole text to be the number.
  if (text.empty() || text.front() == ' ' || text.front() == '\t' || text.front() == '\n' ||
      text.front() == '\r' || text.front() == '\f' || text.front() == '\v')
    return false;
  const std::string copy(text); // strtod needs a terminator
  char *end = nullptr;
  const double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size())
    return false;
  if (!std::isfinite(v))
    return false; // nan, inf, overflow
  out = v;
  return true;
}

// Parses `text` as `k`'s type; returns an error message or nullopt.
std::optional<std::string> parseValue(const KnobInfo &k, std::string_view text,
                                      std::variant<bool, int64_t, double, std::string> &out) {
  switch (k.type) {
  case KnobType::Bool: {
    bool b = false;
    if (!parseBool(text, b))
      return fmt::format("{} expects a bool (0, 1, true, false), got {}", describe(k),
                         quoted(text));
    out = b;
    return std::nullopt;
  }
  case KnobType::Int: {
    int64_t i = 0;
    if (!parseInt(text, i))
      return fmt::format("{} expects an integer (decimal or 0x hex, within int64), got {}",
                         describe(k), quoted(text));
    out = i;
    return std::nullopt;
  }
  case KnobType::Float: {
    double d = 0;
    if (!parseFloat(text, d))
      return fmt::format("{} expects a finite floating-point number, got {}", describe(k),
                         quoted(text));
    out = d;
    return std::nullopt;
  }
  case KnobType::String:
    out = std::string(text);
    return std::nullopt;
  }
  return fmt::format("{} has an invalid type", describe(k));
}

[[noreturn]] void programmingError(const std::string &message) {
  std::fprintf(stderr, "oriopt: internal error: %s\n", message.c_str());
  std::abort();
}

} // namespace

std::string_view knobTypeName(KnobType type) {
  switch (type) {
  case KnobType::Bool:
    return "bool";
  case KnobType::Int:
    return "int";
  case KnobType::Float:
    return "float";
  case KnobType::String:
    return "string";
  }
  return "?";
}

std::span<const KnobInfo> allKnobs() { return kKnobs; }

const KnobInfo *findKnob(std::string_view nameOrIndex) {
  if (nameOrIndex.empty())
    return nullptr;
  const char first = nameOrIndex.front();
  if (first >= '0' && first <= '9') {
    int index = 0;
    const char *end = nameOrIndex.data() + nameOrIndex.size();
    auto [ptr, ec] = std::from_chars(nameOrIndex.data(), end, index);
    if (ec != std::errc() || ptr != end)
      return nullptr;
    for (const KnobInfo &k : kKnobs)
      if (k.index == index)
        return &k;
    return nullptr;
  }
  return findByName(nameOrIndex);
}

KnobSet::KnobSet() {
  values_.resize(kKnobs.size());
  text_.resize(kKnobs.size());
  for (size_t i = 0; i < kKnobs.size(); ++i) {
    if (auto err = parseValue(kKnobs[i], kKnobs[i].defaultValue, values_[i]))
      programmingError("bad registry default: " + *err);
    text_[i] = std::string(kKnobs[i].defaultValue);
  }
}

std::optional<std::string> KnobSet::set(std::string_view nameOrIndex, std::string_view value) {
  const KnobInfo *k = findKnob(nameOrIndex);
  if (!k)
    return fmt::format("unknown knob {}", quoted(nameOrIndex));
  const size_t i = static_cast<size_t>(k - kKnobs.data());
  Value parsed;
  if (auto err = parseValue(*k, value, parsed))
    return err;
  values_[i] = std::move(parsed);
  text_[i] = std::string(value);
  return std::nullopt;
}

std::optional<std::string> KnobSet::setFromAssignment(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos)
    return fmt::format("expected NAME=VALUE for --knob, got {}", quoted(text));
  return set(text.substr(0, eq), text.substr(eq + 1));
}

size_t KnobSet::slot(std::string_view name, std::optional<KnobType> expected,
                     const char *getter) const {
  const KnobInfo *k = findByName(name);
  if (!k)
    programmingError(fmt::format("KnobSet::{}: unknown knob name {}", getter, quoted(name)));
  if (expected && k->type != *expected)
    programmingError(
        fmt::format("KnobSet::{}: {} has type {}", getter, describe(*k), knobTypeName(k->type)));
  return static_cast<size_t>(k - kKnobs.data());
}

bool KnobSet::getBool(std::string_view name) const {
  return std::get<bool>(values_[slot(name, KnobType::Bool, "getBool")]);
}

int64_t KnobSet::getInt(std::string_view name) const {
  return std::get<int64_t>(values_[slot(name, KnobType::Int, "getInt")]);
}

double KnobSet::getFloat(std::string_view name) const {
  return std::get<double>(values_[slot(name, KnobType::Float, "getFloat")]);
}

std::string_view KnobSet::getString(std::string_view name) const {
  return std::get<std::string>(values_[slot(name, KnobType::String, "getString")]);
}

std::string_view KnobSet::text(std::string_view name) const {
  return text_[slot(name, std::nullopt, "text")];
}

std::string formatKnobTable() {
  size_t nameWidth = 0, defaultWidth = 0;
  for (const KnobInfo &k : kKnobs) {
    nameWidth = std::max(nameWidth, k.name.size());
    defaultWidth = std::max(defaultWidth, k.defaultValue.size());
  }
  std::string out;
  for (const KnobInfo &k : kKnobs) {
    const std::string index = k.index < 0 ? "-" : std::to_string(k.index);
    const std::string_view def = k.defaultValue.empty() ? "\"\"" : k.defaultValue;
    fmt::format_to(std::back_inserter(out), "{:>3} {:<{}}  {:<6}  {:<{}}  {}\n", index, k.name,
                   nameWidth, knobTypeName(k.type), def, std::max<size_t>(defaultWidth, 2), k.spec);
  }
  return out;
}

} // namespace ori
