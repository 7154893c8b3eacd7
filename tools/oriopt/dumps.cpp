// CFG dumps in ptxas's formats (spec/000 "RPO Debug Dump", "CFG
// Visualization"; DESIGN.md "The command line").
#include "tools/oriopt/dumps.h"

#include <fmt/format.h>

#include "optimized/optimized.h"
#include "reference/reference.h"

namespace ori {

std::variant<FunctionFacts, std::string> analyzeFunction(const Function& f, Impl impl) {
  auto run = [&](auto computeCfg, auto computeDominators, auto computeLoops) {
    FunctionFacts facts;
    facts.cfg = computeCfg(f);
    facts.dom = computeDominators(f, facts.cfg);
    facts.loops = computeLoops(f, facts.cfg, facts.dom);
    return facts;
  };
  FunctionFacts opt = run(optimized::computeCfg, optimized::computeDominators, optimized::computeLoops);
  if (impl == Impl::Optimized) return opt;
  FunctionFacts ref = run(reference::computeCfg, reference::computeDominators, reference::computeLoops);
  if (impl == Impl::Reference) return ref;
  for (std::string d : {firstDifference(ref.cfg, opt.cfg), firstDifference(ref.dom, opt.dom),
                        firstDifference(ref.loops, opt.loops)})
    if (!d.empty()) return fmt::format("function {}: reference and optimized differ: {}", f.name, d);
  return opt;
}

std::string printEdges(const CfgFacts& cfg) {
  std::string out;
  for (size_t b = 0; b < cfg.succs.size(); ++b)
    for (uint32_t s : cfg.succs[b]) out += fmt::format("bix{} -> bix{}\n", b, s);
  return out;
}

std::string dumpRpo(const CfgFacts& cfg) {
  std::string out = "Showing RPO state for each basic block:\n";
  for (size_t b = 0; b < cfg.rpoNumber.size(); ++b) out += fmt::format("\t bix{} -> RPONum: {} \n", b, cfg.rpoNumber[b]);
  out += "RPO traversal order: [";
  for (size_t i = 0; i < cfg.rpo.size(); ++i) out += fmt::format("{}{}", i ? ", " : "", cfg.rpo[i]);
  out += "]\nShowing backedge info:\n";
  for (auto [src, dst] : cfg.backedges) out += fmt::format("\t bix{} -> backedge's successor BB: {} \n", src, dst);
  return out;
}

std::string dumpDominators(const DomFacts& dom) {
  std::string out = "Showing immediate dominators:\n";
  for (size_t b = 0; b < dom.idom.size(); ++b)
    if (dom.idom[b] != kNoBlock) out += fmt::format("\t bix{} -> idom: bix{}\n", b, dom.idom[b]);
  return out;
}

std::string dumpLoops(const LoopFacts& loops) {
  auto list = [](const std::vector<uint32_t>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += fmt::format("{}bix{}", i ? " " : "", v[i]);
    return s;
  };
  std::string out;
  for (const Loop& l : loops.loops) {
    out += fmt::format("loop header bix{} depth {} latches {{{}}} body {{{}}} exits {{{}}} preheader ", l.header,
                       l.depth, list(l.latches), list(l.body), list(l.exits));
    out += l.preheader == kNoBlock ? "none\n" : fmt::format("bix{}\n", l.preheader);
  }
  return out;
}

std::string dumpDot(const Function& f, const CfgFacts& cfg) {
  std::string out = "digraph f {\nnode [fontname=\"Courier\",fontsize=10,shape=Mrecord];\n";
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    out += fmt::format("\"bix{}\"\n[label=\"bix{}(L{:x})\"]\n", b, b, f.blocks[b].labelId);
    for (uint32_t s : cfg.succs[b]) out += fmt::format("bix{} -> bix{}\n", b, s);
  }
  return out + "}\n";
}

} // namespace ori
