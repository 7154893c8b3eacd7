// Modules compared up to register and label names (docs/ptx.md, "Round trip"): two lowerings
// of the same kernel number their registers and name their blocks as the text they came from
// happens to, so each function is first put in a canonical form, then compared structurally;
// the result names the first difference (function, block, instruction, both texts).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace ori {

// The canonical form of a function: in each register file, registers renumbered 0, 1, ... in
// order of first appearance (blocks in order, each instruction's guard, then destinations,
// then sources); register names and declared types dropped; block i labelled "B<i>" and jump
// table i named "T<i>" (statement directives follow their block); nextReg recounted. Only
// names change: the instructions, their order and the blocks they sit in stay.
Function canonicalFunction(const Function &f);
// Every function of the module in canonical form; the rest as it is.
Module canonicalModule(const Module &m);

// Where two functions (or modules) first differ. `left` and `right` are the two sides' texts
// there, in canonical names; leftLoc/rightLoc the source positions of differing
// instructions (line 0: none).
struct NameFreeDifference {
  std::string function; // empty: the module
  std::string where;    // "bix3 instruction 5", "signature", "block count", ...
  std::string left, right;
  SrcLoc leftLoc, rightLoc;
  // "function F, bix3 instruction 5:\n  left:  TEXT (line L)\n  right: TEXT (line L)"
  std::string str() const;
};

// The first difference of two functions up to register and label names (nullopt: equal).
// Compared: name, entry or not, parameters and return values, blocks (count, then instruction
// by instruction), jump tables (targets), function-scope variables, PTX directives, statement
// directives by block. Not compared: register names and types, block labels and label ids,
// table names, source positions.
std::optional<NameFreeDifference> firstDifferenceUpToNames(const Function &a, const Function &b);

// Two modules function by function, paired by name.
struct ModuleComparison {
  // Module level: the variables (their order too) and the PTX module directives.
  std::optional<NameFreeDifference> module;
  std::vector<std::string> equal; // functions of `a` equal up to names, in a's order
  // The first difference of each function of `a` that differs, in a's order; a function
  // missing from `b` ("missing on the right") or only in `b` ("missing on the left") too.
  std::vector<NameFreeDifference> differ;
  bool allEqual() const { return !module && differ.empty(); }
};
ModuleComparison compareModulesUpToNames(const Module &a, const Module &b);

} // namespace ori
