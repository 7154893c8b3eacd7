// Checks of the translation validator (fuzz/tv_checks.h).
#include "fuzz/tv_checks.h"

#include <fmt/format.h>

#include <functional>

#include "fuzz/dce_checks.h"
#include "fuzz/kernel_gen.h"
#include "ir/ori.h"
#include "optimized/optimized.h"

namespace ori::checks {
namespace {

Function afterPhase(const Function &f, WrongVariant v) {
  Function g = f;
  switch (v) {
  case WrongVariant::DceDropsLive:
    optimized::oriPerformLiveDead(g);
    break;
  case WrongVariant::SplitForgetsCopy:
    optimized::oriSplitLiveRanges(g);
    break;
  case WrongVariant::LayoutDropsBranch:
    optimized::placeBlocksInSourceOrder(g);
    break;
  case WrongVariant::EraseDropsReachable:
    optimized::eraseUnreachableBlocks(g);
    break;
  case WrongVariant::BranchOptWrongTarget:
    optimized::oriBranchOpt(g, -1);
    break;
  }
  return g;
}

struct Place {
  size_t block, instr;
};

// Where v's bug can go in g, the phase's output for f.
std::vector<Place> places(const Function &f, const Function &g, WrongVariant v) {
  std::vector<Place> out;
  for (size_t b = 0; b < g.blocks.size(); ++b) {
    const auto &instrs = g.blocks[b].instrs;
    switch (v) {
    case WrongVariant::DceDropsLive:
      for (size_t i = 0; i < instrs.size(); ++i)
        if (!instrs[i].info().is(CONTROL) && instrs[i].op != Opcode::NOP)
          out.push_back({b, i});
      break;
    case WrongVariant::SplitForgetsCopy: {
      // phase 19 keeps the blocks and adds copies (dce_checks.h, onlyCopiesAdded)
      const auto &before = f.blocks[b].instrs;
      size_t k = 0;
      for (size_t i = 0; i < instrs.size(); ++i) {
        if (k < before.size() && instrs[i] == before[k])
          ++k;
        else
          out.push_back({b, i});
      }
      break;
    }
    case WrongVariant::LayoutDropsBranch:
      for (size_t i = 0; i < instrs.size(); ++i)
        if (instrs[i].op == Opcode::BRA && !instrs[i].isGuarded() && b + 1 < g.blocks.size() &&
            !instrs[i].srcs.empty() && instrs[i].srcs[0].kind == Operand::Kind::Label &&
            instrs[i].srcs[0].target != b + 1)
          out.push_back({b, i});
      break;
    case WrongVariant::EraseDropsReachable:
      if (b > 0 && b + 1 < g.blocks.size() && !instrs.empty())
        out.push_back({b, 0});
      break;
    case WrongVariant::BranchOptWrongTarget:
      if (g.blocks.size() > 1 && !instrs.empty() && instrs.back().op == Opcode::BRA &&
          !instrs.back().srcs.empty() && instrs.back().srcs[0].kind == Operand::Kind::Label)
        out.push_back({b, instrs.size() - 1});
      break;
    }
  }
  return out;
}

} // namespace

const char *variantName(WrongVariant v) {
  switch (v) {
  case WrongVariant::DceDropsLive:
    return "phase 16 dropping a live instruction";
  case WrongVariant::SplitForgetsCopy:
    return "phase 19 forgetting a copy";
  case WrongVariant::LayoutDropsBranch:
    return "phase 112 dropping a needed BRA";
  case WrongVariant::EraseDropsReachable:
    return "--erase-unreachable emptying a reachable block";
  case WrongVariant::BranchOptWrongTarget:
    return "phase 15 threading a BRA to the wrong block";
  }
  return "?";
}

size_t wrongVariantPlaces(const Function &f, WrongVariant v) {
  return places(f, afterPhase(f, v), v).size();
}

Function wrongVariant(const Function &f, WrongVariant v, size_t pick) {
  Function g = afterPhase(f, v);
  const Place p = places(f, g, v).at(pick);
  auto &instrs = g.blocks[p.block].instrs;
  if (v == WrongVariant::EraseDropsReachable) {
    instrs.clear(); // its label now names the next block
  } else if (v == WrongVariant::BranchOptWrongTarget) {
    uint32_t &t = instrs[p.instr].srcs[0].target;
    t = (t + 1) % uint32_t(g.blocks.size());
  } else {
    instrs.erase(instrs.begin() + long(p.instr));
  }
  return g;
}

std::string tvMutantCheck(const Module &m, size_t fi, WrongVariant v, size_t pick,
                          const std::vector<RunConfig> &inputs, const verify::TvOptions &opts,
                          MutantOutcome *out) {
  MutantOutcome o;
  const Function &f = m.functions.at(fi);
  Module tgt = m;
  tgt.functions[fi] = wrongVariant(f, v, pick);
  o.tv = verify::validateFunction(m, tgt, f.name, opts);
  std::string differs;
  if (f.isEntry)
    for (const RunConfig &in : inputs) {
      RunConfig cfg = in;
      cfg.entry = f.name;
      if (std::string d = compareRuns(runKernel(m, cfg), runKernel(tgt, cfg)); !d.empty()) {
        differs = d;
        break;
      }
    }
  if (o.tv.verdict == verify::TvResult::Verdict::Refuted && o.tv.replay) {
    RunResult a = runKernel(m, *o.tv.replay), b = runKernel(tgt, *o.tv.replay);
    bool compared = false;
    std::string d = compareRuns(a, b, &compared);
    if (!compared || d.empty())
      return fmt::format("{} at place {}: the replay does not tell the two apart ({} / {}): {}",
                         variantName(v), pick, a.message, b.message, o.tv.line());
    o.replayConfirmed = true;
    if (differs.empty())
      differs = d;
  }
  o.interpreterDiffers = !differs.empty();
  if (out)
    *out = o;
  if (o.tv.verdict == verify::TvResult::Verdict::Proved && o.interpreterDiffers)
    return fmt::format("{} at place {}: proved, but the interpreter tells them apart: {}",
                       variantName(v), pick, differs);
  return "";
}

std::string tvMutants(const Function &f) {
  Module m;
  m.functions.push_back(f);
  const std::vector<RunConfig> inputs = oneThreadInputs(inputsFor(f, 3, gen::kLaunchBufferBytes));
  verify::TvOptions opts;
  opts.timeoutSeconds = 10;
  opts.budgetSeconds = 30;
  const size_t seed = std::hash<std::string>{}(printFunction(f));
  for (WrongVariant v : kWrongVariants)
    if (size_t n = wrongVariantPlaces(f, v); n > 0)
      if (std::string d = tvMutantCheck(m, 0, v, seed % n, inputs, opts); !d.empty())
        return d;
  return "";
}

std::string firstRefutation(const Function &f, std::span<const NamedPhase> phases) {
  Module m;
  m.functions.push_back(f);
  verify::TvOptions opts;
  opts.timeoutSeconds = 5;
  opts.budgetSeconds = 10;
  for (const auto &[name, phase] : phases) {
    Module tgt = m;
    phase(tgt.functions[0]);
    if (tgt.functions[0] == f)
      continue;
    verify::TvResult r = verify::validateFunction(m, tgt, f.name, opts);
    if (r.verdict == verify::TvResult::Verdict::Refuted)
      return fmt::format("after {}: {}", name, r.line());
  }
  return "";
}

std::string tvPasses(const Function &f) {
  const NamedPhase phases[] = {
      {"phase 10", [](Function &g) { optimized::earlyOriSimpleLiveDead(g); }},
      {"phase 13", [](Function &g) { optimized::generalOptimizeEarly(g, -1); }},
      {"phase 15", [](Function &g) { optimized::oriBranchOpt(g, -1); }},
      {"phase 16", [](Function &g) { optimized::oriPerformLiveDead(g); }},
      {"phase 19", [](Function &g) { optimized::oriSplitLiveRanges(g); }},
      {"phase 29", [](Function &g) { optimized::generalOptimize(g, GeneralOptimizeOptions{}); }},
      {"phase 38", [](Function &g) { optimized::optimizeNestedCondBranches(g); }},
      {"phase 58", [](Function &g) { optimized::generalOptimizeLate(g, false); }},
      {"phase 112", [](Function &g) { optimized::placeBlocksInSourceOrder(g); }},
      {"--erase-unreachable", [](Function &g) { optimized::eraseUnreachableBlocks(g); }},
  };
  return firstRefutation(f, phases);
}

} // namespace ori::checks
