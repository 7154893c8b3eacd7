// CFG dumps in ptxas's formats (spec/000 "RPO Debug Dump", "CFG
// Visualization"; DESIGN.md "The command line").
#include "pipeline/analyses.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <tuple>

#include "ir/ori.h"
#include "optimized/optimized.h"
#include "reference/reference.h"

namespace ori {

std::variant<FunctionFacts, std::string> analyzeFunction(const Function &f, Impl impl,
                                                         RpoOrder rpo) {
  auto run = [&](auto computeCfg, auto computeDominators, auto computeLoops) {
    FunctionFacts facts;
    facts.cfg = computeCfg(f);
    facts.dom = computeDominators(f, facts.cfg);
    facts.loops = computeLoops(f, facts.cfg, facts.dom);
    return facts;
  };
  const bool iterative = rpo == RpoOrder::PtxasIterative;
  FunctionFacts opt = run(iterative ? optimized::computeCfgIterative : optimized::computeCfg,
                          optimized::computeDominators, optimized::computeLoops);
  if (impl == Impl::Optimized)
    return opt;
  FunctionFacts ref = run(iterative ? reference::computeCfgIterative : reference::computeCfg,
                          reference::computeDominators, reference::computeLoops);
  if (impl == Impl::Reference)
    return ref;
  for (std::string d : {firstDifference(ref.cfg, opt.cfg), firstDifference(ref.dom, opt.dom),
                        firstDifference(ref.loops, opt.loops)})
    if (!d.empty())
      return fmt::format("function {}: reference and optimized differ: {}", f.name, d);
  return opt;
}

std::variant<PtxasRpoSlots, std::string> analyzeRpoSlots(const CfgFacts &cfg, Impl impl) {
  auto run = [&](auto iterative, auto erase) {
    return PtxasRpoSlots{iterative(cfg), erase(cfg, EraseMarks::PredCount),
                         erase(cfg, EraseMarks::Unvisited)};
  };
  if (impl == Impl::Reference)
    return run(reference::computeRpoIterativeSlots, reference::computeEraseSlots);
  PtxasRpoSlots opt = run(optimized::computeRpoIterativeSlots, optimized::computeEraseSlots);
  if (impl == Impl::Both) {
    PtxasRpoSlots ref = run(reference::computeRpoIterativeSlots, reference::computeEraseSlots);
    for (auto [what, r, o] :
         {std::tuple{"sub_BDE150", &ref.iterative, &opt.iterative},
          std::tuple{"sub_BDE6C0 pred_count", &ref.erasePredCount, &opt.erasePredCount},
          std::tuple{"sub_BDE6C0 unvisited", &ref.eraseUnvisited, &opt.eraseUnvisited}})
      if (std::string d = firstDifference(*r, *o); !d.empty())
        return fmt::format("{} slots: reference and optimized differ: {}", what, d);
  }
  return opt;
}

std::string dumpRpoSlots(const PtxasRpoSlots &slots) {
  std::string out;
  for (auto [title, s] :
       {std::pair{"sub_BDE150 iterative (spec/000)", &slots.iterative},
        std::pair{"sub_BDE6C0 with pred_count marks (spec/003)", &slots.erasePredCount},
        std::pair{"sub_BDE6C0 with unvisited marks (spec/000)", &slots.eraseUnvisited}})
    out += fmt::format(
        "RPO slots, {}:\n\t rpo_number: [{}]\n\t rpo_array: [{}]\n\t returned counter: {}\n", title,
        fmt::join(s->rpoNumber, ", "), fmt::join(s->rpoArray, ", "), s->counter);
  return out;
}

std::string printEdges(const CfgFacts &cfg) {
  std::string out;
  for (size_t b = 0; b < cfg.succs.size(); ++b)
    for (uint32_t s : cfg.succs[b])
      out += fmt::format("bix{} -> bix{}\n", b, s);
  return out;
}

std::string dumpRpo(const CfgFacts &cfg) {
  std::string out = "Showing RPO state for each basic block:\n";
  for (size_t b = 0; b < cfg.rpoNumber.size(); ++b)
    out += fmt::format("\t bix{} -> RPONum: {} \n", b, cfg.rpoNumber[b]);
  out += "RPO traversal order: [";
  for (size_t i = 0; i < cfg.rpo.size(); ++i)
    out += fmt::format("{}{}", i ? ", " : "", cfg.rpo[i]);
  out += "]\nShowing backedge info:\n";
  for (auto [src, dst] : cfg.backedges)
    out += fmt::format("\t bix{} -> backedge's successor BB: {} \n", src, dst);
  return out;
}

std::string dumpDominators(const DomFacts &dom) {
  std::string out = "Showing immediate dominators:\n";
  for (size_t b = 0; b < dom.idom.size(); ++b)
    if (dom.idom[b] != kNoBlock)
      out += fmt::format("\t bix{} -> idom: bix{}\n", b, dom.idom[b]);
  return out;
}

std::string dumpLoops(const LoopFacts &loops) {
  auto list = [](const std::vector<uint32_t> &v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i)
      s += fmt::format("{}bix{}", i ? " " : "", v[i]);
    return s;
  };
  std::string out;
  for (const Loop &l : loops.loops) {
    out +=
        fmt::format("loop header bix{} depth {} latches {{{}}} body {{{}}} exits {{{}}} preheader ",
                    l.header, l.depth, list(l.latches), list(l.body), list(l.exits));
    out += l.preheader == kNoBlock ? "none\n" : fmt::format("bix{}\n", l.preheader);
  }
  return out;
}

std::string dumpDot(const Function &f, const CfgFacts &cfg) {
  std::string out = "digraph f {\nnode [fontname=\"Courier\",fontsize=10,shape=Mrecord];\n";
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    out += fmt::format("\"bix{}\"\n[label=\"bix{}(L{:x})\"]\n", b, b, f.blocks[b].labelId);
    for (uint32_t s : cfg.succs[b])
      out += fmt::format("bix{} -> bix{}\n", b, s);
  }
  return out + "}\n";
}

std::variant<AnnotationResult, std::string>
analyzeAnnotations(const Function &f, const CfgFacts &cfg, Impl impl, int optLevel, bool knob235) {
  AnnotationResult r;
  r.outcome = analyzeControlFlowGate(optLevel, knob235, nullptr);
  if (r.outcome != Phase3Outcome::Ran)
    return r;
  if (impl == Impl::Reference) {
    r.facts = reference::analyzeControlFlow(f, cfg, nullptr, false);
    return r;
  }
  r.facts = optimized::analyzeControlFlow(f, cfg, nullptr, false);
  if (impl == Impl::Both) {
    std::string d = firstDifference(reference::analyzeControlFlow(f, cfg, nullptr, false), r.facts);
    if (!d.empty())
      return fmt::format("function {}: reference and optimized differ: {}", f.name, d);
  }
  return r;
}

std::string dumpAnnotations(const AnnotationResult &r) {
  if (r.outcome != Phase3Outcome::Ran)
    return fmt::format("AnalyzeControlFlow: {}; annotations not computed\n", describe(r.outcome));
  std::string out = "AnalyzeControlFlow: ran\n";
  for (size_t b = 0; b < r.facts.blocks.size(); ++b) {
    const BlockAnnotation &a = r.facts.blocks[b];
    std::string names;
    for (auto [bit, name] : {std::pair{BlockAnnotation::kLoopHeader, "LOOP_HEADER"},
                             std::pair{BlockAnnotation::kHasPred, "HAS_PRED"},
                             std::pair{BlockAnnotation::kAnalysisOk, "ANALYSIS_OK"},
                             std::pair{BlockAnnotation::kInLoop, "IN_LOOP"}})
      if (a.flags & bit) {
        if (!names.empty())
          names += ' ';
        names += name;
      }
    out += fmt::format("bix{} RPONum: {} flags: {:#010x} [{}] latchPred/exit: {}\n", b, a.rpoNumber,
                       a.flags, names, a.latchPredOrExit);
  }
  return out + fmt::format("ctx: RPO violation {}, early exit {}, re-entrancy guard {}\n",
                           int(r.facts.rpoViolation), int(r.facts.earlyExitObserved),
                           int(r.facts.reentrancyGuard));
}

std::variant<LivenessFacts, std::string> analyzeLiveness(const Function &f, const CfgFacts &cfg,
                                                         Impl impl) {
  if (impl == Impl::Reference)
    return reference::computeLiveness(f, cfg);
  LivenessFacts opt = optimized::computeLiveness(f, cfg);
  if (impl == Impl::Optimized)
    return opt;
  std::string d = firstDifference(reference::computeLiveness(f, cfg), opt);
  if (!d.empty())
    return fmt::format("function {}: reference and optimized differ: {}", f.name, d);
  return opt;
}

std::string dumpLiveness(const Function &f, const LivenessFacts &live) {
  auto set = [&](const std::vector<Reg> &regs) {
    std::string s = "{";
    for (Reg r : regs) {
      if (s.size() > 1)
        s += ' ';
      s += printReg(f, r);
    }
    return s + "}";
  };
  std::string out;
  for (size_t b = 0; b < live.liveIn.size(); ++b)
    out += fmt::format("bix{} live-in: {} live-out: {}\n", b, set(live.liveIn[b]),
                       set(live.liveOut[b]));
  return out;
}

std::string dumpPressure(const LivenessFacts &live) {
  auto counts = [](const RegCounts &c) {
    std::string s;
    for (size_t k = 0; k < c.size(); ++k)
      s += fmt::format(" {} {}", regFilePrefix(RegFile(k)), c[k]);
    return s;
  };
  std::string out;
  for (size_t b = 0; b < live.pressure.size(); ++b)
    out += fmt::format("bix{} pressure:{}\n", b, counts(live.pressure[b]));
  return out + fmt::format("max pressure:{}\n", counts(live.maxPressure));
}

} // namespace ori
