// The analysis dumps of a module's functions (oriopt's --print-edges, --dump-*), as ptxas's
// text or as the "functions" array of docs/oriopt-output.schema.json.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "ir/ir.h"
#include "pipeline/analyses.h"

namespace ori {

struct DumpOptions {
  bool edges = false, dot = false, rpo = false, dominators = false, loops = false, rpoSlots = false;
  bool annotations = false, liveness = false, pressure = false;
  RpoOrder order = RpoOrder::Dfs; // --rpo
  Impl impl = Impl::Optimized;    // the half that computes the facts (Both: the two, compared)
  int optLevel = 3;               // --dump-annotations honours -O and knob 235
  bool disableAnalyzeControlFlow = false;
  std::string function; // only this function ("": every definition)
  bool any() const {
    return edges || dot || rpo || dominators || loops || rpoSlots || annotations || liveness ||
           pressure;
  }
};

struct DumpResult {
  std::string text; // per function "// function NAME" then each dump asked for
  nlohmann::json functions = nlohmann::json::array(); // one object per function
  std::vector<std::string> warnings; // ptxas's uninitialized-register warning, per function
  std::string error;                 // the halves differ, or --function names no function
  bool ok() const { return error.empty(); }
};
// Both the text and the JSON of the dumps asked for.
DumpResult dumpModule(const Module &m, const DumpOptions &o);

} // namespace ori
