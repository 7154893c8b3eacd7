// oriopt's analysis dumps (--print-edges, --dump-*), as ptxas's text or, with --json, as the
// "functions" array of docs/oriopt-output.schema.json.
#include <fmt/format.h>

#include <iostream>

#include "cli.h"
#include "pipeline/analyses.h"

namespace oriopt_cli {

using namespace ori;
using nlohmann::json;

bool wantsDumps(const Options& o) {
  return o.printEdges || o.dumpRpo || o.dumpDom || o.dumpLoops || o.dumpDot || o.dumpLiveness || o.dumpPressure ||
         o.dumpAnnotations || o.dumpRpoSlots;
}

namespace {

json edgeList(const CfgFacts& cfg) {
  json out = json::array();
  for (size_t b = 0; b < cfg.succs.size(); ++b)
    for (uint32_t s : cfg.succs[b]) out.push_back({b, s});
  return out;
}

json loopList(const LoopFacts& loops) {
  json out = json::array();
  for (const Loop& l : loops.loops)
    out.push_back({{"header", l.header},
                   {"depth", l.depth},
                   {"latches", l.latches},
                   {"body", l.body},
                   {"exits", l.exits},
                   {"preheader", l.preheader == kNoBlock ? json(nullptr) : json(l.preheader)}});
  return out;
}

bool fail(const std::string& message) {
  std::cerr << "oriopt: error: " << message << "\n";
  return false;
}

} // namespace

bool writeDumps(const Options& o, const Module& m, const PassContext& ctx, const std::string& fileName,
                std::string* text, json* jsonOut) {
  Impl impl = o.impl == "reference" ? Impl::Reference : o.impl == "both" ? Impl::Both : Impl::Optimized;
  if (!o.function.empty() && !m.findFunction(o.function))
    usageError(fmt::format("--function {}: no such function in {}", o.function, fileName));
  for (const Function& f : m.functions) {
    if (f.isDeclaration() || (!o.function.empty() && f.name != o.function)) continue;
    auto facts = analyzeFunction(f, impl, o.rpo == "ptxas-iterative" ? RpoOrder::PtxasIterative : RpoOrder::Dfs);
    if (auto* err = std::get_if<std::string>(&facts)) return fail(*err);
    const FunctionFacts& ff = std::get<FunctionFacts>(facts);
    std::string out = fmt::format("// function {}\n", f.name);
    json j = {{"name", f.name}};
    if (o.printEdges) {
      out += printEdges(ff.cfg);
      j["edges"] = edgeList(ff.cfg);
    }
    if (o.dumpDot) {
      const std::string d = dumpDot(f, ff.cfg);
      out += d;
      j["dot"] = d;
    }
    if (o.dumpRpo) {
      out += dumpRpo(ff.cfg);
      json back = json::array();
      for (auto [s, d] : ff.cfg.backedges) back.push_back({s, d});
      j["rpo"] = {{"order", ff.cfg.rpo}, {"numbers", ff.cfg.rpoNumber}, {"backedges", back}};
    }
    if (o.dumpDom) {
      out += dumpDominators(ff.dom);
      j["dominators"] = ff.dom.idom;
    }
    if (o.dumpLoops) {
      out += dumpLoops(ff.loops);
      j["loops"] = loopList(ff.loops);
    }
    if (o.dumpRpoSlots) {
      auto slots = analyzeRpoSlots(ff.cfg, impl);
      if (auto* err = std::get_if<std::string>(&slots)) return fail(fmt::format("function {}: {}", f.name, *err));
      const std::string d = dumpRpoSlots(std::get<PtxasRpoSlots>(slots));
      out += d;
      j["rpoSlots"] = d;
    }
    if (o.dumpAnnotations) {
      auto annotations = analyzeAnnotations(f, ff.cfg, impl, o.optLevel, ctx.knobs.getBool("DisableAnalyzeControlFlow"));
      if (auto* err = std::get_if<std::string>(&annotations)) return fail(*err);
      const std::string d = dumpAnnotations(std::get<AnnotationResult>(annotations));
      out += d;
      j["annotations"] = d;
    }
    if (o.dumpLiveness || o.dumpPressure) {
      auto live = analyzeLiveness(f, ff.cfg, impl);
      if (auto* err = std::get_if<std::string>(&live)) return fail(*err);
      const LivenessFacts& lf = std::get<LivenessFacts>(live);
      // ptxas's uninitialized-register warning (spec/004), on standard error.
      if (std::string w = uninitializedWarning(lf, f.name); !w.empty()) std::cerr << "oriopt: warning: " << w << "\n";
      if (o.dumpLiveness) {
        const std::string d = dumpLiveness(f, lf);
        out += d;
        j["liveness"] = d;
      }
      if (o.dumpPressure) {
        const std::string d = dumpPressure(lf);
        out += d;
        j["pressure"] = d;
      }
    }
    if (jsonOut) jsonOut->push_back(std::move(j));
    else *text += out;
  }
  return true;
}

} // namespace oriopt_cli
