// The analysis dumps of the command line (--print-edges, --dump-rpo,
// --dump-dom, --dump-loops, --dump-cfg-dot) and --impl.
#pragma once

#include <string>
#include <variant>

#include "ir/facts.h"
#include "ir/ir.h"

namespace ori {

enum class Impl { Optimized, Reference, Both };

struct FunctionFacts {
  CfgFacts cfg;
  DomFacts dom;
  LoopFacts loops;
};

// The facts from the chosen half; Both runs the two and returns an error
// message naming the first difference.
std::variant<FunctionFacts, std::string> analyzeFunction(const Function& f, Impl impl);

std::string printEdges(const CfgFacts& cfg);
std::string dumpRpo(const CfgFacts& cfg);
std::string dumpDominators(const DomFacts& dom);
std::string dumpLoops(const LoopFacts& loops);
std::string dumpDot(const Function& f, const CfgFacts& cfg);

} // namespace ori
