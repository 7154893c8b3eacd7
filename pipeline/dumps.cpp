// The analysis dumps (pipeline/dumps.h).
#include "pipeline/dumps.h"

#include <fmt/format.h>

namespace ori {

using nlohmann::json;

namespace {

json edgeList(const CfgFacts &cfg) {
  json out = json::array();
  for (size_t b = 0; b < cfg.succs.size(); ++b)
    for (uint32_t s : cfg.succs[b])
      out.push_back({b, s});
  return out;
}

json loopList(const LoopFacts &loops) {
  json out = json::array();
  for (const Loop &l : loops.loops)
    out.push_back({{"header", l.header},
                   {"depth", l.depth},
                   {"latches", l.latches},
                   {"body", l.body},
                   {"exits", l.exits},
                   {"preheader", l.preheader == kNoBlock ? json(nullptr) : json(l.preheader)}});
  return out;
}

} // namespace

DumpResult dumpModule(const Module &m, const DumpOptions &o) {
  DumpResult r;
  if (!o.function.empty() && !m.findFunction(o.function)) {
    r.error = fmt::format("--function {}: no such function", o.function);
    return r;
  }
  for (const Function &f : m.functions) {
    if (f.isDeclaration() || (!o.function.empty() && f.name != o.function))
      continue;
    auto facts = analyzeFunction(f, o.impl, o.order);
    if (auto *err = std::get_if<std::string>(&facts)) {
      r.error = *err;
      return r;
    }
    const FunctionFacts &ff = std::get<FunctionFacts>(facts);
    std::string out = fmt::format("// function {}\n", f.name);
    json j = {{"name", f.name}};
    if (o.edges) {
      out += printEdges(ff.cfg);
      j["edges"] = edgeList(ff.cfg);
    }
    if (o.dot) {
      const std::string d = dumpDot(f, ff.cfg);
      out += d;
      j["dot"] = d;
    }
    if (o.rpo) {
      out += dumpRpo(ff.cfg);
      json back = json::array();
      for (auto [s, d] : ff.cfg.backedges)
        back.push_back({s, d});
      j["rpo"] = {{"order", ff.cfg.rpo}, {"numbers", ff.cfg.rpoNumber}, {"backedges", back}};
    }
    if (o.dominators) {
      out += dumpDominators(ff.dom);
      j["dominators"] = ff.dom.idom;
    }
    if (o.loops) {
      out += dumpLoops(ff.loops);
      j["loops"] = loopList(ff.loops);
    }
    if (o.rpoSlots) {
      auto slots = analyzeRpoSlots(ff.cfg, o.impl);
      if (auto *err = std::get_if<std::string>(&slots)) {
        r.error = fmt::format("function {}: {}", f.name, *err);
        return r;
      }
      const std::string d = dumpRpoSlots(std::get<PtxasRpoSlots>(slots));
      out += d;
      j["rpoSlots"] = d;
    }
    if (o.annotations) {
      auto annotations =
          analyzeAnnotations(f, ff.cfg, o.impl, o.optLevel, o.disableAnalyzeControlFlow);
      if (auto *err = std::get_if<std::string>(&annotations)) {
        r.error = *err;
        return r;
      }
      const std::string d = dumpAnnotations(std::get<AnnotationResult>(annotations));
      out += d;
      j["annotations"] = d;
    }
    if (o.liveness || o.pressure) {
      auto live = analyzeLiveness(f, ff.cfg, o.impl);
      if (auto *err = std::get_if<std::string>(&live)) {
        r.error = *err;
        return r;
      }
      const LivenessFacts &lf = std::get<LivenessFacts>(live);
      if (std::string w = uninitializedWarning(lf, f.name); !w.empty())
        r.warnings.push_back(w); // spec/004
      if (o.liveness) {
        const std::string d = dumpLiveness(f, lf);
        out += d;
        j["liveness"] = d;
      }
      if (o.pressure) {
        const std::string d = dumpPressure(lf);
        out += d;
        j["pressure"] = d;
      }
    }
    r.text += out;
    r.functions.push_back(std::move(j));
  }
  return r;
}

} // namespace ori
