// The knob registry: every ptxas knob / option the spec pages name, with index, type and
// default, plus KnobSet, the current values of one compilation (`--knob NAME=VALUE`).
//
// Sources, derived names/defaults and spec contradictions: docs/phases-and-knobs.md.
//
// Budget knobs (ptxas type OKT_BDGT, and SwitchOptBudget) are Int: a negative value means
// "unbounded" (the spec's "unset (= unbounded)"), N >= 0 allows N more iterations.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ori {

enum class KnobType { Bool, Int, Float, String };

// "bool", "int", "float", "string".
std::string_view knobTypeName(KnobType type);

struct KnobInfo {
  int index;             // ptxas knob index, -1 if the spec gives none
  std::string_view name; // canonical name, e.g. "MergeEquivalentConditionalFlowBudget"
  KnobType type;
  std::string_view defaultValue; // as text, e.g. "0", "true", "0.25"
  std::string_view spec;         // spec file (short form) and section
  std::string_view summary;      // one line
};

// Every knob: indexed knobs in increasing index order, then the ones without an index.
std::span<const KnobInfo> allKnobs();

// "464" (decimal index) or a canonical name (exact, case-sensitive). nullptr if unknown.
const KnobInfo *findKnob(std::string_view nameOrIndex);

// One line per knob: index (or "-"), name, type, default, spec reference.
// Backs `oriopt --list-knobs`.
std::string formatKnobTable();

// The current value of every knob, starting at the registry defaults.
class KnobSet {
public:
  KnobSet();

  // Sets a knob from text. Returns an error message naming the knob (unknown knob, or a
  // value not of the knob's type), or nullopt on success. Accepted text:
  //   Bool: 0, 1, true, false.  Int: decimal or 0x hex, optional leading '-', within int64.
  //   Float: complete strtod text with a finite value.  String: anything.
  std::optional<std::string> set(std::string_view nameOrIndex, std::string_view value);

  // `--knob NAME=VALUE` (NAME may be an index): error if there is no '='.
  std::optional<std::string> setFromAssignment(std::string_view text);

  // Typed getters take the canonical name. An unknown name or a wrong type is a programming
  // error: they print a message and abort.
  bool getBool(std::string_view name) const;
  int64_t getInt(std::string_view name) const;
  double getFloat(std::string_view name) const;
  std::string_view getString(std::string_view name) const;

  // The current value as text, as last set (or the default). Same rules as the getters.
  std::string_view text(std::string_view name) const;

private:
  using Value = std::variant<bool, int64_t, double, std::string>;
  size_t slot(std::string_view name, std::optional<KnobType> expected, const char *getter) const;

  std::vector<Value> values_;     // parallel to allKnobs()
  std::vector<std::string> text_; // parallel to allKnobs()
};

} // namespace ori
