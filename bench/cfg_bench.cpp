// CFG analyses on generated CFGs of 1k, 10k, 100k and 1M blocks (issue 4):
// the optimized half, the reference half, LLVM 14's DominatorTree on an
// equivalent llvm::Function (built once, outside the timing), and a bare
// CSR-array Cooper-Harvey-Kennedy as the floor. docs/performance.md ("CFG
// analyses") gives the command, the table and what each ratio compares.
//
// Shapes: "random", reducible-ish code (fall-throughs, forward conditional
// branches, backward conditional branches forming nested and overlapping
// loops, short switches, early exits), and "chain", n blocks falling through
// with one backward branch from the end to the entry (the deepest possible
// dominator tree). Both are deterministic.
//
// What each benchmark times, from a Function in memory:
//   OptimizedFull    optimized::computeCfg + computeDominators + computeLoops
//   OptimizedCfgDom  optimized::computeCfg + computeDominators: successors,
//                    predecessors, RPO, backedges and idoms from the IR, the
//                    work LLVM's DominatorTree::recalculate does from its IR
//   OptimizedDomOnly optimized::computeDominators alone on a ready CfgFacts
//   ReferenceFull / ReferenceCfgDom   the same through reference/
//   LlvmDomTree      DominatorTree::recalculate(F)
//   LlvmDomTreeLoops recalculate + LoopInfo (LLVM's natural loops)
//   CsrFloor         successor arrays from the IR, predecessor arrays,
//                    explicit-stack DFS, CHK: the least work that gives the
//                    idoms (compare with OptimizedCfgDom)
//   CsrFloorDomOnly  CHK alone on ready CSR arrays and RPO (compare with
//                    OptimizedDomOnly)
// BM_CfgRatios times them all in one run, interleaved, the best of several
// repetitions each (thread CPU time), and reports the ratios as counters.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ir/facts.h"
#include "ir/ir.h"
#include "optimized/optimized.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

#if defined(ORIOPT_HAVE_LLVM)
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#endif

namespace {

using namespace ori;

enum class Shape { Random, Chain };

Instr branchTo(uint32_t target, bool guarded) {
  Instr in;
  in.op = Opcode::BRA;
  if (guarded) in.guard = Operand::reg_(P(0));
  in.srcs.push_back(Operand::label(target));
  return in;
}

Instr exitInstr(bool guarded) {
  Instr in;
  in.op = Opcode::EXIT;
  if (guarded) in.guard = Operand::reg_(P(0));
  return in;
}

// A deterministic CFG of n >= 2 blocks. Fall-through blocks are empty (an
// empty block falls through), which keeps a 1M-block function small.
Function makeCfg(Shape shape, uint32_t n) {
  Function f;
  f.name = shape == Shape::Random ? "random" : "chain";
  f.isEntry = true;
  f.blocks.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    f.blocks[i].label = fmt::format("L{}", i);
    f.blocks[i].labelId = 0x10u * i;
  }
  f.blocks[n - 1].instrs.push_back(exitInstr(false));
  if (shape == Shape::Chain) {
    f.blocks[n - 2].instrs.push_back(branchTo(0, true));
    f.recountRegs();
    return f;
  }
  std::mt19937_64 rng(0x5eed0000u + n);
  auto below = [&](uint32_t k) { return uint32_t(rng() % k); }; // [0, k)
  // A block that does not fall through (an unconditional branch) leaves the
  // next one reachable only by a branch: the nearest of the eight blocks
  // before it that falls through gets a conditional branch to it, as an
  // if-else's condition branches to the else part or a while loop's header
  // to its exit. Without one, the branch is made conditional instead.
  auto reachNext = [&](uint32_t i) {
    for (uint32_t d = 1; d <= 8 && d <= i; ++d)
      if (f.blocks[i - d].instrs.empty()) {
        f.blocks[i - d].instrs.push_back(branchTo(i + 1, true));
        return true;
      }
    return false;
  };
  for (uint32_t i = 0; i + 1 < n; ++i) {
    const uint32_t r = below(100);
    const uint32_t ahead = n - 1 - i; // blocks after this one
    Instr in;
    if (r < 30) {
      continue; // fall-through
    } else if (r < 58) { // forward conditional branch (an if)
      in = branchTo(i + 1 + below(std::min(ahead, 16u)), true);
    } else if (r < 70) { // backward conditional branch: a do-while loop, or a self loop
      in = branchTo(i - below(std::min(i + 1, 48u)), true);
    } else if (r < 76) { // backward unconditional branch: a while loop's latch
      in = branchTo(i - below(std::min(i + 1, 48u)), !reachNext(i));
    } else if (r < 82) { // forward unconditional branch: the end of an if's then part
      in = branchTo(i + 1 + below(std::min(ahead, 8u)), !reachNext(i));
    } else if (r < 90) { // switch: the next block, then 2..5 targets, mostly forward
      JumpTable jt;
      jt.name = fmt::format("T{}", f.jumpTables.size());
      jt.targets.push_back(i + 1);
      for (uint32_t k = 2 + below(4); k > 0; --k)
        jt.targets.push_back(below(8) == 0 ? i - below(std::min(i + 1, 32u)) : i + 1 + below(std::min(ahead, 64u)));
      in.op = Opcode::BRX;
      in.srcs.push_back(Operand::reg_(R(0)));
      in.srcs.push_back(Operand::jumpTable(uint32_t(f.jumpTables.size())));
      f.jumpTables.push_back(std::move(jt));
    } else if (r < 94) {
      in = exitInstr(true); // early exit, else falls through
    } else {
      continue;
    }
    f.blocks[i].instrs.push_back(std::move(in));
  }
  f.recountRegs();
  return f;
}

// Generated graphs, made once per (shape, size).
const Function& cfgOf(Shape shape, uint32_t n) {
  static std::map<std::pair<Shape, uint32_t>, std::unique_ptr<Function>> cache;
  auto& slot = cache[{shape, n}];
  if (!slot) slot = std::make_unique<Function>(makeCfg(shape, n));
  return *slot;
}

// ---------------------------------------------------------------------------
// The floor: flat arrays, no hashing, no per-block containers.
struct Csr {
  std::vector<uint32_t> succStart, succ, predStart, pred;
};

// Successors by the rules of optimized.h (duplicates kept: they do not change
// the RPO or the idoms).
Csr buildCsr(const Function& f) {
  const uint32_t n = uint32_t(f.blocks.size());
  Csr g;
  g.succStart.resize(n + 1);
  g.succ.reserve(size_t(n) * 2);
  for (uint32_t b = 0; b < n; ++b) {
    g.succStart[b] = uint32_t(g.succ.size());
    const bool hasNext = b + 1 < n;
    const std::vector<Instr>& is = f.blocks[b].instrs;
    if (is.empty()) {
      if (hasNext) g.succ.push_back(b + 1);
      continue;
    }
    const Instr& last = is.back();
    bool falls = last.isGuarded();
    switch (last.op) {
    case Opcode::EXIT:
    case Opcode::RET: break;
    case Opcode::BRA: g.succ.push_back(last.srcs[0].target); break;
    case Opcode::BRX:
      for (uint32_t t : f.jumpTables[last.srcs[1].target].targets) g.succ.push_back(t);
      break;
    default: falls = true;
    }
    if (falls && hasNext) g.succ.push_back(b + 1);
  }
  g.succStart[n] = uint32_t(g.succ.size());
  g.predStart.assign(n + 2, 0);
  for (uint32_t s : g.succ) ++g.predStart[s + 2];
  for (uint32_t b = 0; b < n; ++b) g.predStart[b + 2] += g.predStart[b + 1];
  g.pred.resize(g.succ.size());
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t e = g.succStart[b]; e < g.succStart[b + 1]; ++e) g.pred[g.predStart[g.succ[e] + 1]++] = b;
  g.predStart.pop_back();
  return g;
}

struct CsrOrder {
  std::vector<uint32_t> rpo;
  std::vector<int32_t> rpoNumber;
};

CsrOrder csrRpo(const Csr& g) {
  const uint32_t n = uint32_t(g.succStart.size() - 1);
  CsrOrder o;
  o.rpoNumber.assign(n, -1);
  std::vector<uint32_t> post;
  post.reserve(n);
  std::vector<std::pair<uint32_t, uint32_t>> stack{{0u, g.succStart[0]}};
  std::vector<uint8_t> seen(n, 0);
  seen[0] = 1;
  while (!stack.empty()) {
    auto& [b, e] = stack.back();
    if (e < g.succStart[b + 1]) {
      uint32_t s = g.succ[e++];
      if (!seen[s]) {
        seen[s] = 1;
        stack.emplace_back(s, g.succStart[s]);
      }
      continue;
    }
    post.push_back(b);
    stack.pop_back();
  }
  o.rpo.assign(post.rbegin(), post.rend());
  for (uint32_t i = 0; i < o.rpo.size(); ++i) o.rpoNumber[o.rpo[i]] = int32_t(i);
  return o;
}

// CHK in RPO-number space; returns idom by RPO number.
std::vector<int32_t> csrChk(const Csr& g, const CsrOrder& o) {
  const uint32_t m = uint32_t(o.rpo.size());
  std::vector<int32_t> doms(m, -1);
  if (m == 0) return doms;
  doms[0] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = 1; i < m; ++i) {
      const uint32_t b = o.rpo[i];
      int32_t d = -1;
      for (uint32_t e = g.predStart[b]; e < g.predStart[b + 1]; ++e) {
        int32_t p = o.rpoNumber[g.pred[e]];
        if (p < 0 || doms[size_t(p)] < 0) continue;
        if (d < 0) {
          d = p;
          continue;
        }
        while (p != d) {
          while (p > d) p = doms[size_t(p)];
          while (d > p) d = doms[size_t(d)];
        }
      }
      if (doms[i] != d) {
        doms[i] = d;
        changed = true;
      }
    }
  }
  return doms;
}

// ---------------------------------------------------------------------------
#if defined(ORIOPT_HAVE_LLVM)
// An llvm::Function with the same CFG: one basic block per block, terminated
// by ret (no successors), br, a conditional br or a switch; an extra entry
// block branches to bix 0 (LLVM's entry may have no predecessors).
struct LlvmPeer {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module;
  llvm::Function* function = nullptr;
  std::vector<llvm::BasicBlock*> blocks; // by bix
};

std::unique_ptr<LlvmPeer> makeLlvmPeer(const CfgFacts& cfg) {
  auto peer = std::make_unique<LlvmPeer>();
  llvm::LLVMContext& c = peer->context;
  peer->module = std::make_unique<llvm::Module>("cfg", c);
  auto* i1 = llvm::Type::getInt1Ty(c);
  auto* i32 = llvm::Type::getInt32Ty(c);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(c), {i1, i32}, false);
  llvm::Function* f = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "cfg", peer->module.get());
  llvm::Value* cond = f->getArg(0);
  llvm::Value* sel = f->getArg(1);
  llvm::BasicBlock* entry = llvm::BasicBlock::Create(c, "entry", f);
  std::vector<llvm::BasicBlock*> bbs(cfg.succs.size());
  for (auto& bb : bbs) bb = llvm::BasicBlock::Create(c, "", f);
  llvm::BranchInst::Create(bbs[0], entry);
  for (size_t b = 0; b < bbs.size(); ++b) {
    const std::vector<uint32_t>& s = cfg.succs[b];
    if (s.empty()) {
      llvm::ReturnInst::Create(c, bbs[b]);
    } else if (s.size() == 1) {
      llvm::BranchInst::Create(bbs[s[0]], bbs[b]);
    } else if (s.size() == 2) {
      llvm::BranchInst::Create(bbs[s[0]], bbs[s[1]], cond, bbs[b]);
    } else {
      auto* sw = llvm::SwitchInst::Create(sel, bbs[s[0]], unsigned(s.size() - 1), bbs[b]);
      for (size_t k = 1; k < s.size(); ++k) sw->addCase(llvm::ConstantInt::get(llvm::cast<llvm::IntegerType>(i32), k), bbs[s[k]]);
    }
  }
  peer->function = f;
  peer->blocks = std::move(bbs);
  return peer;
}

const LlvmPeer& llvmOf(Shape shape, uint32_t n) {
  static std::map<std::pair<Shape, uint32_t>, std::unique_ptr<LlvmPeer>> cache;
  auto& slot = cache[{shape, n}];
  if (!slot) slot = makeLlvmPeer(optimized::computeCfg(cfgOf(shape, n)));
  return *slot;
}
#endif

// ---------------------------------------------------------------------------
// The timed bodies. Each returns something that depends on its whole result.
using Body = std::function<size_t()>;

Body optimizedFull(const Function& f) {
  return [&f] {
    CfgFacts cfg = optimized::computeCfg(f);
    DomFacts dom = optimized::computeDominators(f, cfg);
    LoopFacts loops = optimized::computeLoops(f, cfg, dom);
    return cfg.rpo.size() + dom.idom.size() + loops.loops.size();
  };
}
Body optimizedCfgDom(const Function& f) {
  return [&f] {
    CfgFacts cfg = optimized::computeCfg(f);
    return optimized::computeDominators(f, cfg).idom.size() + cfg.rpo.size();
  };
}
Body optimizedDomOnly(const Function& f, std::shared_ptr<const CfgFacts> cfg) {
  return [&f, cfg] { return optimized::computeDominators(f, *cfg).idom.size(); };
}
#if defined(ORIOPT_HAVE_REFERENCE)
Body referenceFull(const Function& f) {
  return [&f] {
    CfgFacts cfg = reference::computeCfg(f);
    DomFacts dom = reference::computeDominators(f, cfg);
    return cfg.rpo.size() + dom.idom.size() + reference::computeLoops(f, cfg, dom).loops.size();
  };
}
Body referenceCfgDom(const Function& f) {
  return [&f] {
    CfgFacts cfg = reference::computeCfg(f);
    return reference::computeDominators(f, cfg).idom.size() + cfg.rpo.size();
  };
}
#endif
Body csrFloor(const Function& f) {
  return [&f] {
    Csr g = buildCsr(f);
    CsrOrder o = csrRpo(g);
    return csrChk(g, o).size();
  };
}
Body csrFloorDomOnly(std::shared_ptr<const std::pair<Csr, CsrOrder>> ready) {
  return [ready] { return csrChk(ready->first, ready->second).size(); };
}
#if defined(ORIOPT_HAVE_LLVM)
Body llvmDomTree(const LlvmPeer& peer) {
  return [&peer] {
    llvm::DominatorTree dt(*peer.function);
    return size_t(dt.getRootNode() != nullptr);
  };
}
Body llvmDomTreeLoops(const LlvmPeer& peer) {
  return [&peer] {
    llvm::DominatorTree dt(*peer.function);
    llvm::LoopInfo li(dt);
    return size_t(li.getTopLevelLoops().size());
  };
}
#endif

Shape shapeOf(const benchmark::State& state) { return state.range(1) == 0 ? Shape::Random : Shape::Chain; }

void runBody(benchmark::State& state, const Body& body) {
  for (auto _ : state) benchmark::DoNotOptimize(body());
  state.counters["ns/block"] =
      benchmark::Counter(double(state.range(0)), benchmark::Counter::kIsIterationInvariantRate |
                                                     benchmark::Counter::kInvert);
}

void BM_CfgOptimizedFull(benchmark::State& s) { runBody(s, optimizedFull(cfgOf(shapeOf(s), uint32_t(s.range(0))))); }
void BM_CfgOptimizedCfgDom(benchmark::State& s) { runBody(s, optimizedCfgDom(cfgOf(shapeOf(s), uint32_t(s.range(0))))); }
void BM_CfgOptimizedDomOnly(benchmark::State& s) {
  const Function& f = cfgOf(shapeOf(s), uint32_t(s.range(0)));
  runBody(s, optimizedDomOnly(f, std::make_shared<const CfgFacts>(optimized::computeCfg(f))));
}
void BM_CfgCsrFloor(benchmark::State& s) { runBody(s, csrFloor(cfgOf(shapeOf(s), uint32_t(s.range(0))))); }
void BM_CfgCsrFloorDomOnly(benchmark::State& s) {
  Csr g = buildCsr(cfgOf(shapeOf(s), uint32_t(s.range(0))));
  CsrOrder o = csrRpo(g);
  runBody(s, csrFloorDomOnly(std::make_shared<const std::pair<Csr, CsrOrder>>(std::move(g), std::move(o))));
}
#if defined(ORIOPT_HAVE_REFERENCE)
void BM_CfgReferenceFull(benchmark::State& s) { runBody(s, referenceFull(cfgOf(shapeOf(s), uint32_t(s.range(0))))); }
void BM_CfgReferenceCfgDom(benchmark::State& s) { runBody(s, referenceCfgDom(cfgOf(shapeOf(s), uint32_t(s.range(0))))); }
#endif
#if defined(ORIOPT_HAVE_LLVM)
void BM_CfgLlvmDomTree(benchmark::State& s) { runBody(s, llvmDomTree(llvmOf(shapeOf(s), uint32_t(s.range(0))))); }
void BM_CfgLlvmDomTreeLoops(benchmark::State& s) {
  runBody(s, llvmDomTreeLoops(llvmOf(shapeOf(s), uint32_t(s.range(0)))));
}
#endif

// Sizes x shapes (0 random, 1 chain).
void sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"blocks", "chain"});
  for (int64_t shape : {0, 1})
    for (int64_t n : {1000, 10000, 100000, 1000000}) b->Args({n, shape});
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_CfgOptimizedFull)->Apply(sizes);
BENCHMARK(BM_CfgOptimizedCfgDom)->Apply(sizes);
BENCHMARK(BM_CfgOptimizedDomOnly)->Apply(sizes);
BENCHMARK(BM_CfgCsrFloor)->Apply(sizes);
BENCHMARK(BM_CfgCsrFloorDomOnly)->Apply(sizes);
#if defined(ORIOPT_HAVE_REFERENCE)
BENCHMARK(BM_CfgReferenceFull)->Apply(sizes);
BENCHMARK(BM_CfgReferenceCfgDom)->Apply(sizes);
#endif
#if defined(ORIOPT_HAVE_LLVM)
BENCHMARK(BM_CfgLlvmDomTree)->Apply(sizes);
BENCHMARK(BM_CfgLlvmDomTreeLoops)->Apply(sizes);
#endif

// CPU time of this thread: other processes on the machine do not count.
double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

// ---------------------------------------------------------------------------
// Every variant in one run: rounds of one call each, interleaved so that load
// from elsewhere on the machine hits all of them alike; the best time of each
// is kept (thread CPU time). factsCopy copies a ready CfgFacts: the cost of
// allocating the result alone, which any implementation of computeCfg pays.
// Counters: the ratios (how many times faster the optimized half is,
// or, for the floor, how many times slower) and the best times in ms.
void BM_CfgRatios(benchmark::State& state) {
  const Shape shape = shapeOf(state);
  const uint32_t n = uint32_t(state.range(0));
  const Function& f = cfgOf(shape, n);
  auto readyCfg = std::make_shared<const CfgFacts>(optimized::computeCfg(f));
  Csr g = buildCsr(f);
  CsrOrder o = csrRpo(g);
  auto readyCsr = std::make_shared<const std::pair<Csr, CsrOrder>>(std::move(g), std::move(o));
  struct Variant {
    const char* name;
    Body body;
    double best = 1e300;
  };
  std::vector<Variant> vs = {{"optFull", optimizedFull(f)},         {"optCfgDom", optimizedCfgDom(f)},
                             {"optDomOnly", optimizedDomOnly(f, readyCfg)}, {"floor", csrFloor(f)},
                             {"floorDomOnly", csrFloorDomOnly(readyCsr)},
                             {"factsCopy", [readyCfg] { return CfgFacts(*readyCfg).rpo.size(); }}};
#if defined(ORIOPT_HAVE_REFERENCE)
  vs.push_back({"refFull", referenceFull(f)});
#endif
#if defined(ORIOPT_HAVE_LLVM)
  const LlvmPeer& peer = llvmOf(shape, n);
  vs.push_back({"llvmDom", llvmDomTree(peer)});
  vs.push_back({"llvmDomLoops", llvmDomTreeLoops(peer)});
#endif
  // The peers must compute the same idoms, or the comparison means nothing.
  {
    DomFacts dom = optimized::computeDominators(f, *readyCfg);
    std::vector<int32_t> floor = csrChk(readyCsr->first, readyCsr->second);
    const std::vector<uint32_t>& rpo = readyCsr->second.rpo;
    for (uint32_t i = 1; i < rpo.size(); ++i)
      if (dom.idom[rpo[i]] != int32_t(rpo[size_t(floor[i])]))
        return state.SkipWithError("the CSR floor's idoms differ from the optimized half's");
#if defined(ORIOPT_HAVE_LLVM)
    llvm::DominatorTree dt(*peer.function);
    std::map<const llvm::BasicBlock*, int32_t> bixOf;
    for (size_t b = 0; b < peer.blocks.size(); ++b) bixOf[peer.blocks[b]] = int32_t(b);
    for (size_t b = 1; b < peer.blocks.size(); ++b) {
      const llvm::DomTreeNode* node = dt.getNode(peer.blocks[b]);
      int32_t idom = node && node->getIDom() ? bixOf[node->getIDom()->getBlock()] : kNoBlock;
      if (idom != dom.idom[b]) return state.SkipWithError("LLVM's idoms differ from the optimized half's");
    }
#endif
  }
  {
    DomFacts dom = optimized::computeDominators(f, *readyCfg);
    state.counters["reachable"] = double(readyCfg->rpo.size());
    state.counters["edges"] = double(readyCsr->first.succ.size());
    state.counters["loops"] = double(optimized::computeLoops(f, *readyCfg, dom).loops.size());
  }
  const int rounds = n >= 1000000 ? 3 : n >= 100000 ? 7 : 25;
  for (auto _ : state) {
    for (int r = 0; r < rounds; ++r)
      for (Variant& v : vs) {
        const double t0 = threadCpuMs();
        benchmark::DoNotOptimize(v.body());
        const double ms = threadCpuMs() - t0;
        v.best = std::min(v.best, ms);
      }
  }
  std::map<std::string, double> best;
  for (const Variant& v : vs) {
    best[v.name] = v.best;
    state.counters[std::string(v.name) + "_ms"] = v.best;
  }
  state.counters["refFull/optFull"] = best.count("refFull") ? best["refFull"] / best["optFull"] : 0;
  state.counters["llvmDom/optCfgDom"] = best.count("llvmDom") ? best["llvmDom"] / best["optCfgDom"] : 0;
  state.counters["llvmDom/optFull"] = best.count("llvmDom") ? best["llvmDom"] / best["optFull"] : 0;
  state.counters["llvmDomLoops/optFull"] = best.count("llvmDomLoops") ? best["llvmDomLoops"] / best["optFull"] : 0;
  state.counters["optCfgDom/floor"] = best["optCfgDom"] / best["floor"];
  state.counters["optFull/floor"] = best["optFull"] / best["floor"];
  state.counters["optDomOnly/floorDomOnly"] = best["optDomOnly"] / best["floorDomOnly"];
}
BENCHMARK(BM_CfgRatios)
    ->ArgNames({"blocks", "chain"})
    ->Args({1000, 0})
    ->Args({10000, 0})
    ->Args({100000, 0})
    ->Args({100000, 1})
    ->Args({1000000, 0})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

} // namespace
