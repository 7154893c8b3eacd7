// CFG analyses on generated CFGs of 1k, 10k, 100k and 1M blocks (issue 4):
// the optimized half, the reference half, LLVM 14's DominatorTree on an
// equivalent llvm::Function (built once, outside the timing), and a bare
// CSR-array Cooper-Harvey-Kennedy as the floor. docs/performance.md ("CFG
// analyses") gives the command, the table and what each ratio compares.
//
// Shapes: "random", structured code with nested ifs, loops, switches and
// early exits and a rare goto (StructuredCfg below), and "chain", n blocks
// falling through with one backward branch from the end to the entry (the
// deepest possible dominator tree). Both are deterministic.
//
// What each benchmark times, from a Function in memory:
//   OptimizedFull    optimized::computeCfg + computeDominators + computeLoops
//   OptimizedCfgDom  optimized::computeCfg + computeDominators: successors,
//                    predecessors, RPO, backedges and idoms from the IR, the
//                    work LLVM's DominatorTree::recalculate does from its IR
//   OptimizedDomOnly optimized::computeDominators alone on a ready CfgFacts
//   ReferenceFull / ReferenceCfgDom   the same through reference/ (to 100k)
//   LlvmDomTree      a DominatorTree built for F (recalculate), and freed
//   LlvmDomTreeLoops recalculate + LoopInfo (LLVM's natural loops)
//   CsrFloor         successor arrays from the IR, predecessor arrays,
//                    explicit-stack DFS, CHK: the least work that gives the
//                    idoms (compare with OptimizedCfgDom)
//   CsrFloorDomOnly  CHK alone on ready CSR arrays and RPO (compare with
//                    OptimizedDomOnly)
// BM_CfgRatios times them all in one run, interleaved, the best of several
// calls each (thread CPU time), and prints the ratios (also as counters).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench_timing.h"
#include "ir/facts.h"
#include "ir/ir.h"
#include "ir/verify.h"
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
  if (guarded)
    in.guard = Operand::reg_(P(0));
  in.srcs.push_back(Operand::label(target));
  return in;
}

Instr exitInstr(bool guarded) {
  Instr in;
  in.op = Opcode::EXIT;
  if (guarded)
    in.guard = Operand::reg_(P(0));
  return in;
}

// Structured code as a compiler lays it out, emitted block by block: ifs
// (with and without else), do-while and while loops with breaks and
// continues, switches through jump tables (cases that end in a branch to the
// join or fall into the next case), and guarded early exits, nested up to six
// deep; one block in a thousand also branches up to 32 blocks ahead (a goto,
// which may enter a loop from the side: the graph is reducible only nearly).
// Blocks that just fall through are empty, which keeps 1M blocks small.
class StructuredCfg {
public:
  StructuredCfg(Function &f, uint32_t n) : f_(f), n_(n), rng_(0x5eed0000u + n) {}

  void build() {
    f_.blocks.reserve(n_);
    // Statements still open when `stop` is reached close with at most a few
    // blocks each (nothing opens any more); the rest is fall-through padding.
    const uint32_t stop = n_ > 512 ? n_ - 256 : 0;
    while (size() < stop)
      statement(0, nullptr);
    while (size() + 1 < n_)
      block();
    f_.blocks[block()].instrs.push_back(exitInstr(false));
  }

private:
  struct LoopCtx {
    uint32_t header;
    std::vector<uint32_t> breaks; // blocks whose branch goes to the loop's exit
  };

  uint32_t size() const { return uint32_t(f_.blocks.size()); }
  uint32_t below(uint32_t k) { return uint32_t(rng_() % k); } // [0, k)
  uint32_t block() {
    f_.blocks.emplace_back();
    return size() - 1;
  }
  void end(uint32_t b, Instr in) { f_.blocks[b].instrs.push_back(std::move(in)); }
  void retarget(uint32_t b, uint32_t target) { f_.blocks[b].instrs.back().srcs[0].target = target; }
  bool open(int depth) const { return depth < 6 && n_ > 512 && size() < n_ - 256; }

  void body(int depth, LoopCtx *loop) {
    for (uint32_t k = 1 + below(3); k > 0; --k)
      statement(depth, loop);
  }

  void statement(int depth, LoopCtx *loop) {
    const uint32_t compound = 50 - 8 * uint32_t(depth); // percent
    if (!open(depth) || below(100) >= compound)
      return basic(loop);
    const uint32_t r = below(100);
    if (r < 55) { // if, 20 in 55 with an else
      const uint32_t cond = block();
      end(cond, branchTo(0, true));
      body(depth + 1, loop);
      if (r < 20) {
        const uint32_t thenEnd = block();
        end(thenEnd, branchTo(0, false));
        retarget(cond, size());
        body(depth + 1, loop);
        retarget(thenEnd, size());
      } else {
        retarget(cond, size());
      }
    } else if (r < 85) { // loops: do-while, or while (test at the top)
      LoopCtx ctx{size(), {}};
      const bool whileLoop = r >= 70;
      if (whileLoop) {
        const uint32_t test = block();
        end(test, branchTo(0, true));
        ctx.breaks.push_back(test);
      }
      body(depth + 1, &ctx);
      const uint32_t latch = block();
      end(latch, branchTo(ctx.header, !whileLoop));
      for (uint32_t b : ctx.breaks)
        retarget(b, size());
    } else { // switch
      const uint32_t sw = block();
      const uint32_t table = uint32_t(f_.jumpTables.size());
      f_.jumpTables.push_back(JumpTable{fmt::format("T{}", table), {}});
      Instr brx;
      brx.op = Opcode::BRX;
      brx.srcs.push_back(Operand::reg_(R(0)));
      brx.srcs.push_back(Operand::jumpTable(table));
      end(sw, std::move(brx));
      std::vector<uint32_t> caseEnds;
      for (uint32_t k = 2 + below(4); k > 0; --k) {
        f_.jumpTables[table].targets.push_back(size());
        body(depth + 1, loop);
        if (k == 1 || below(5) != 0) { // else: falls into the next case
          caseEnds.push_back(block());
          end(caseEnds.back(), branchTo(0, false));
        }
      }
      if (below(4) == 0)
        f_.jumpTables[table].targets.push_back(f_.jumpTables[table].targets[0]); // shared case
      for (uint32_t b : caseEnds)
        retarget(b, size());
    }
  }

  void basic(LoopCtx *loop) {
    const uint32_t b = block();
    const uint32_t r = below(1000);
    if (r < 30) {
      end(b, exitInstr(true)); // early exit
    } else if (loop && r < 70) {
      end(b, branchTo(0, true)); // break
      loop->breaks.push_back(b);
    } else if (loop && r < 100) {
      end(b, branchTo(loop->header, true)); // continue
    } else if (r == 999) {
      end(b, branchTo(std::min(b + 2 + below(32), n_ - 1), true)); // goto
    }
  }

  Function &f_;
  const uint32_t n_;
  std::mt19937_64 rng_;
};

// A deterministic CFG of n >= 2 blocks.
Function makeCfg(Shape shape, uint32_t n) {
  Function f;
  f.name = shape == Shape::Random ? "random" : "chain";
  f.isEntry = true;
  if (shape == Shape::Chain) {
    f.blocks.resize(n);
    f.blocks[n - 2].instrs.push_back(branchTo(0, true));
    f.blocks[n - 1].instrs.push_back(exitInstr(false));
  } else {
    StructuredCfg(f, n).build();
  }
  for (uint32_t i = 0; i < f.blocks.size(); ++i) {
    f.blocks[i].label = fmt::format("L{}", i);
    f.blocks[i].labelId = 0x10u * i;
  }
  f.recountRegs();
  return f;
}

// Generated graphs, made once per (shape, size).
const Function &cfgOf(Shape shape, uint32_t n) {
  static std::map<std::pair<Shape, uint32_t>, std::unique_ptr<Function>> cache;
  auto &slot = cache[{shape, n}];
  if (!slot)
    slot = std::make_unique<Function>(makeCfg(shape, n));
  return *slot;
}

// ---------------------------------------------------------------------------
// The floor: flat arrays, no hashing, no per-block containers.
struct Csr {
  std::vector<uint32_t> succStart, succ, predStart, pred;
};

// Successors by the rules of rules/cfg.h (duplicates kept: they do not change
// the RPO or the idoms).
Csr buildCsr(const Function &f) {
  const uint32_t n = uint32_t(f.blocks.size());
  Csr g;
  g.succStart.resize(n + 1);
  g.succ.reserve(size_t(n) * 2);
  for (uint32_t b = 0; b < n; ++b) {
    g.succStart[b] = uint32_t(g.succ.size());
    const bool hasNext = b + 1 < n;
    const std::vector<Instr> &is = f.blocks[b].instrs;
    if (is.empty()) {
      if (hasNext)
        g.succ.push_back(b + 1);
      continue;
    }
    const Instr &last = is.back();
    bool falls = last.isGuarded();
    switch (last.op) {
    case Opcode::EXIT:
    case Opcode::RET:
      break;
    case Opcode::BRA:
      g.succ.push_back(last.srcs[0].target);
      break;
    case Opcode::BRX:
    case Opcode::JMX:
      for (uint32_t t : f.jumpTables[last.srcs[1].target].targets)
        g.succ.push_back(t);
      break;
    default:
      falls = true;
    }
    if (falls && hasNext)
      g.succ.push_back(b + 1);
  }
  g.succStart[n] = uint32_t(g.succ.size());
  g.predStart.assign(n + 2, 0);
  for (uint32_t s : g.succ)
    ++g.predStart[s + 2];
  for (uint32_t b = 0; b < n; ++b)
    g.predStart[b + 2] += g.predStart[b + 1];
  g.pred.resize(g.succ.size());
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t e = g.succStart[b]; e < g.succStart[b + 1]; ++e)
      g.pred[g.predStart[g.succ[e] + 1]++] = b;
  g.predStart.pop_back();
  return g;
}

struct CsrOrder {
  std::vector<uint32_t> rpo;
  std::vector<int32_t> rpoNumber;
};

CsrOrder csrRpo(const Csr &g) {
  const uint32_t n = uint32_t(g.succStart.size() - 1);
  CsrOrder o;
  o.rpoNumber.assign(n, -1);
  std::vector<uint32_t> post;
  post.reserve(n);
  std::vector<std::pair<uint32_t, uint32_t>> stack{{0u, g.succStart[0]}};
  std::vector<uint8_t> seen(n, 0);
  seen[0] = 1;
  while (!stack.empty()) {
    auto &[b, e] = stack.back();
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
  for (uint32_t i = 0; i < o.rpo.size(); ++i)
    o.rpoNumber[o.rpo[i]] = int32_t(i);
  return o;
}

// CHK in RPO-number space; returns idom by RPO number.
std::vector<int32_t> csrChk(const Csr &g, const CsrOrder &o) {
  const uint32_t m = uint32_t(o.rpo.size());
  std::vector<int32_t> doms(m, -1);
  if (m == 0)
    return doms;
  doms[0] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = 1; i < m; ++i) {
      const uint32_t b = o.rpo[i];
      int32_t d = -1;
      for (uint32_t e = g.predStart[b]; e < g.predStart[b + 1]; ++e) {
        int32_t p = o.rpoNumber[g.pred[e]];
        if (p < 0 || doms[size_t(p)] < 0)
          continue;
        if (d < 0) {
          d = p;
          continue;
        }
        while (p != d) {
          while (p > d)
            p = doms[size_t(p)];
          while (d > p)
            d = doms[size_t(d)];
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
  llvm::Function *function = nullptr;
  std::vector<llvm::BasicBlock *> blocks; // by bix
};

std::unique_ptr<LlvmPeer> makeLlvmPeer(const CfgFacts &cfg) {
  auto peer = std::make_unique<LlvmPeer>();
  llvm::LLVMContext &c = peer->context;
  peer->module = std::make_unique<llvm::Module>("cfg", c);
  auto *i1 = llvm::Type::getInt1Ty(c);
  auto *i32 = llvm::Type::getInt32Ty(c);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(c), {i1, i32}, false);
  llvm::Function *f =
      llvm::Function::Create(type, llvm::Function::ExternalLinkage, "cfg", peer->module.get());
  llvm::Value *cond = f->getArg(0);
  llvm::Value *sel = f->getArg(1);
  llvm::BasicBlock *entry = llvm::BasicBlock::Create(c, "entry", f);
  std::vector<llvm::BasicBlock *> bbs(cfg.succs.size());
  for (auto &bb : bbs)
    bb = llvm::BasicBlock::Create(c, "", f);
  llvm::BranchInst::Create(bbs[0], entry);
  for (size_t b = 0; b < bbs.size(); ++b) {
    const std::span<const uint32_t> s = cfg.succs[b];
    if (s.empty()) {
      llvm::ReturnInst::Create(c, bbs[b]);
    } else if (s.size() == 1) {
      llvm::BranchInst::Create(bbs[s[0]], bbs[b]);
    } else if (s.size() == 2) {
      llvm::BranchInst::Create(bbs[s[0]], bbs[s[1]], cond, bbs[b]);
    } else {
      auto *sw = llvm::SwitchInst::Create(sel, bbs[s[0]], unsigned(s.size() - 1), bbs[b]);
      for (size_t k = 1; k < s.size(); ++k)
        sw->addCase(llvm::ConstantInt::get(llvm::cast<llvm::IntegerType>(i32), k), bbs[s[k]]);
    }
  }
  peer->function = f;
  peer->blocks = std::move(bbs);
  return peer;
}

const LlvmPeer &llvmOf(Shape shape, uint32_t n) {
  static std::map<std::pair<Shape, uint32_t>, std::unique_ptr<LlvmPeer>> cache;
  auto &slot = cache[{shape, n}];
  if (!slot)
    slot = makeLlvmPeer(optimized::computeCfg(cfgOf(shape, n)));
  return *slot;
}
#endif

// ---------------------------------------------------------------------------
// The timed bodies. Each returns something that depends on its whole result.
using Body = std::function<size_t()>;

Body optimizedFull(const Function &f) {
  return [&f] {
    CfgFacts cfg = optimized::computeCfg(f);
    DomFacts dom = optimized::computeDominators(f, cfg);
    LoopFacts loops = optimized::computeLoops(f, cfg, dom);
    return cfg.rpo.size() + dom.idom.size() + loops.loops.size();
  };
}
Body optimizedCfgDom(const Function &f) {
  return [&f] {
    CfgFacts cfg = optimized::computeCfg(f);
    return optimized::computeDominators(f, cfg).idom.size() + cfg.rpo.size();
  };
}
Body optimizedDomOnly(const Function &f, std::shared_ptr<const CfgFacts> cfg) {
  return [&f, cfg] { return optimized::computeDominators(f, *cfg).idom.size(); };
}
#if defined(ORIOPT_HAVE_REFERENCE)
Body referenceFull(const Function &f) {
  return [&f] {
    CfgFacts cfg = reference::computeCfg(f);
    DomFacts dom = reference::computeDominators(f, cfg);
    return cfg.rpo.size() + dom.idom.size() + reference::computeLoops(f, cfg, dom).loops.size();
  };
}
Body referenceCfgDom(const Function &f) {
  return [&f] {
    CfgFacts cfg = reference::computeCfg(f);
    return reference::computeDominators(f, cfg).idom.size() + cfg.rpo.size();
  };
}
#endif
Body csrFloor(const Function &f) {
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
Body llvmDomTree(const LlvmPeer &peer) {
  return [&peer] {
    llvm::DominatorTree dt(*peer.function);
    return size_t(dt.getRootNode() != nullptr);
  };
}
Body llvmDomTreeLoops(const LlvmPeer &peer) {
  return [&peer] {
    llvm::DominatorTree dt(*peer.function);
    llvm::LoopInfo li(dt);
    return size_t(li.getTopLevelLoops().size());
  };
}
#endif

Shape shapeOf(const benchmark::State &state) {
  return state.range(1) == 0 ? Shape::Random : Shape::Chain;
}

void runBody(benchmark::State &state, const Body &body) {
  for (auto _ : state)
    benchmark::DoNotOptimize(body());
  state.counters["ns/block"] =
      benchmark::Counter(double(state.range(0)), benchmark::Counter::kIsIterationInvariantRate |
                                                     benchmark::Counter::kInvert);
}

void BM_CfgOptimizedFull(benchmark::State &s) {
  runBody(s, optimizedFull(cfgOf(shapeOf(s), uint32_t(s.range(0)))));
}
void BM_CfgOptimizedCfgDom(benchmark::State &s) {
  runBody(s, optimizedCfgDom(cfgOf(shapeOf(s), uint32_t(s.range(0)))));
}
void BM_CfgOptimizedDomOnly(benchmark::State &s) {
  const Function &f = cfgOf(shapeOf(s), uint32_t(s.range(0)));
  runBody(s, optimizedDomOnly(f, std::make_shared<const CfgFacts>(optimized::computeCfg(f))));
}
void BM_CfgCsrFloor(benchmark::State &s) {
  runBody(s, csrFloor(cfgOf(shapeOf(s), uint32_t(s.range(0)))));
}
void BM_CfgCsrFloorDomOnly(benchmark::State &s) {
  Csr g = buildCsr(cfgOf(shapeOf(s), uint32_t(s.range(0))));
  CsrOrder o = csrRpo(g);
  runBody(s, csrFloorDomOnly(
                 std::make_shared<const std::pair<Csr, CsrOrder>>(std::move(g), std::move(o))));
}
#if defined(ORIOPT_HAVE_REFERENCE)
void BM_CfgReferenceFull(benchmark::State &s) {
  runBody(s, referenceFull(cfgOf(shapeOf(s), uint32_t(s.range(0)))));
}
void BM_CfgReferenceCfgDom(benchmark::State &s) {
  runBody(s, referenceCfgDom(cfgOf(shapeOf(s), uint32_t(s.range(0)))));
}
#endif
#if defined(ORIOPT_HAVE_LLVM)
void BM_CfgLlvmDomTree(benchmark::State &s) {
  runBody(s, llvmDomTree(llvmOf(shapeOf(s), uint32_t(s.range(0)))));
}
void BM_CfgLlvmDomTreeLoops(benchmark::State &s) {
  runBody(s, llvmDomTreeLoops(llvmOf(shapeOf(s), uint32_t(s.range(0)))));
}
#endif

// Sizes x shapes (0 random, 1 chain). The reference stops at 100k blocks:
// at 1M its loops alone take minutes (a depth count over all bodies for
// each loop: quadratic in the 67k loops of the random shape).
constexpr int64_t kLargestReference = 100000;

void sizesUpTo(benchmark::internal::Benchmark *b, int64_t largest) {
  b->ArgNames({"blocks", "chain"});
  for (int64_t shape : {0, 1})
    for (int64_t n : {1000, 10000, 100000, 1000000})
      if (n <= largest)
        b->Args({n, shape});
  b->Unit(benchmark::kMillisecond);
}
void sizes(benchmark::internal::Benchmark *b) { sizesUpTo(b, 1000000); }
void referenceSizes(benchmark::internal::Benchmark *b) { sizesUpTo(b, kLargestReference); }

BENCHMARK(BM_CfgOptimizedFull)->Apply(sizes);
BENCHMARK(BM_CfgOptimizedCfgDom)->Apply(sizes);
BENCHMARK(BM_CfgOptimizedDomOnly)->Apply(sizes);
BENCHMARK(BM_CfgCsrFloor)->Apply(sizes);
BENCHMARK(BM_CfgCsrFloorDomOnly)->Apply(sizes);
#if defined(ORIOPT_HAVE_REFERENCE)
BENCHMARK(BM_CfgReferenceFull)->Apply(referenceSizes);
BENCHMARK(BM_CfgReferenceCfgDom)->Apply(referenceSizes);
#endif
#if defined(ORIOPT_HAVE_LLVM)
BENCHMARK(BM_CfgLlvmDomTree)->Apply(sizes);
BENCHMARK(BM_CfgLlvmDomTreeLoops)->Apply(sizes);
#endif

using bench::threadCpuMs;

// ---------------------------------------------------------------------------
// Every variant in one run, in rounds of one call each, interleaved (in a
// shuffled order) so that load from elsewhere on the machine hits all of them
// alike; the best thread CPU time of each is kept. A variant drops out of the rounds once it has
// used its time budget (the reference at 1M blocks runs once or twice). factsCopy copies a ready
// CfgFacts: the cost of allocating the result alone, which every computeCfg returning CfgFacts
// pays. Prints a table; the counters hold the same figures for --benchmark_format=json.
struct Variant {
  std::string name;
  Body body;
  double best = 1e300, spent = 0;
  int calls = 0;
};

void BM_CfgRatios(benchmark::State &state) {
  const Shape shape = shapeOf(state);
  const uint32_t n = uint32_t(state.range(0));
  const Function &f = cfgOf(shape, n);
  auto readyCfg = std::make_shared<const CfgFacts>(optimized::computeCfg(f));
  Csr g = buildCsr(f);
  CsrOrder o = csrRpo(g);
  auto readyCsr = std::make_shared<const std::pair<Csr, CsrOrder>>(std::move(g), std::move(o));
  std::vector<Variant> vs;
  vs.push_back({"optDomOnly", optimizedDomOnly(f, readyCfg)});
  vs.push_back({"optCfgDom", optimizedCfgDom(f)});
  vs.push_back({"optFull", optimizedFull(f)});
  vs.push_back({"floorDomOnly", csrFloorDomOnly(readyCsr)});
  vs.push_back({"floor", csrFloor(f)});
  vs.push_back({"factsCopy", [readyCfg] { return CfgFacts(*readyCfg).rpo.size(); }});
#if defined(ORIOPT_HAVE_REFERENCE)
  if (n <= kLargestReference) {
    vs.push_back({"refDomOnly", [&f, readyCfg] {
                    return reference::computeDominators(f, *readyCfg).idom.size();
                  }});
    vs.push_back({"refCfgDom", referenceCfgDom(f)});
    vs.push_back({"refFull", referenceFull(f)});
  }
#endif
#if defined(ORIOPT_HAVE_LLVM)
  const LlvmPeer &peer = llvmOf(shape, n);
  vs.push_back({"llvmDom", llvmDomTree(peer)});
  vs.push_back({"llvmDomLoops", llvmDomTreeLoops(peer)});
#endif

  // The peers must compute the same idoms, or the comparison means nothing.
  if (f.blocks.size() != n || !verifyFunction(f).empty())
    return state.SkipWithError("the generated function is malformed");
  const DomFacts dom = optimized::computeDominators(f, *readyCfg);
  {
    std::vector<int32_t> floor = csrChk(readyCsr->first, readyCsr->second);
    const std::vector<uint32_t> &rpo = readyCsr->second.rpo;
    for (uint32_t i = 1; i < rpo.size(); ++i)
      if (dom.idom[rpo[i]] != int32_t(rpo[size_t(floor[i])]))
        return state.SkipWithError("the CSR floor's idoms differ from the optimized half's");
#if defined(ORIOPT_HAVE_LLVM)
    llvm::DominatorTree dt(*peer.function);
    std::map<const llvm::BasicBlock *, int32_t> bixOf;
    for (size_t b = 0; b < peer.blocks.size(); ++b)
      bixOf[peer.blocks[b]] = int32_t(b);
    for (size_t b = 1; b < peer.blocks.size(); ++b) {
      const llvm::DomTreeNode *node = dt.getNode(peer.blocks[b]);
      int32_t idom = node && node->getIDom() ? bixOf[node->getIDom()->getBlock()] : kNoBlock;
      if (idom != dom.idom[b])
        return state.SkipWithError("LLVM's idoms differ from the optimized half's");
    }
#endif
  }

  const int maxRounds = n >= 1000000 ? 5 : 15;
  const double budgetMs = n >= 1000000 ? 8000 : 2000;
  // Each round in another order, so that no variant always runs on the heap
  // its neighbour left (at 1M blocks that alone can double a time).
  std::vector<size_t> order(vs.size());
  for (size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  std::mt19937 shuffle(42);
  for (auto _ : state)
    for (int r = 0; r < maxRounds; ++r) {
      std::shuffle(order.begin(), order.end(), shuffle);
      for (size_t k : order) {
        Variant &v = vs[k];
        if (v.calls > 0 && v.spent >= budgetMs)
          continue;
        const double t0 = threadCpuMs();
        benchmark::DoNotOptimize(v.body());
        const double ms = threadCpuMs() - t0;
        v.best = std::min(v.best, ms);
        v.spent += ms;
        ++v.calls;
      }
    }

  std::map<std::string, double> t;
  for (const Variant &v : vs) {
    t[v.name] = v.best;
    state.counters[v.name + "_ms"] = v.best;
  }
  auto ratio = [&](const std::string &a, const std::string &b) {
    return t.count(a) && t.count(b) ? t[a] / t[b] : 0.0;
  };
  auto cell = [](double v, const char *unit) {
    return v > 0 ? fmt::format("{:.2f}{}", v, unit) : std::string("-");
  };
  std::string table = fmt::format("\nCFG analyses, {} shape, {} blocks ({} reachable, {} edges, {} "
                                  "loops); best thread CPU ms of up to {} calls\n"
                                  "{:<18} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9}\n",
                                  shape == Shape::Random ? "random" : "chain", n,
                                  readyCfg->rpo.size(), readyCsr->first.succ.size(),
                                  optimized::computeLoops(f, *readyCfg, dom).loops.size(),
                                  maxRounds, "", "optimized", "reference", "LLVM 14", "CSR floor",
                                  "ref/opt", "LLVM/opt", "opt/floor");
  const struct {
    const char *row;
    std::string opt, ref, llvm, floor;
  } rows[] = {{"dominators only", "optDomOnly", "refDomOnly", "llvmDom", "floorDomOnly"},
              {"CFG + dominators", "optCfgDom", "refCfgDom", "llvmDom", "floor"},
              {"CFG + dom + loops", "optFull", "refFull", "llvmDomLoops", "floor"}};
  for (const auto &r : rows) {
    table += fmt::format("{:<18} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9}\n", r.row,
                         cell(t[r.opt], ""), cell(t.count(r.ref) ? t[r.ref] : 0, ""),
                         cell(t.count(r.llvm) ? t[r.llvm] : 0, ""), cell(t[r.floor], ""),
                         cell(ratio(r.ref, r.opt), "x"), cell(ratio(r.llvm, r.opt), "x"),
                         cell(ratio(r.opt, r.floor), "x"));
    state.counters[std::string(r.opt) + ":ref/opt"] = ratio(r.ref, r.opt);
    state.counters[std::string(r.opt) + ":llvm/opt"] = ratio(r.llvm, r.opt);
    state.counters[std::string(r.opt) + ":opt/floor"] = ratio(r.opt, r.floor);
  }
  table +=
      fmt::format("{:<18} {:>10}   (copying a ready CfgFacts: the cost of allocating the result)\n",
                  "CfgFacts copy", cell(t["factsCopy"], ""));
  std::fputs(table.c_str(), stdout);
  std::fflush(stdout);
}
BENCHMARK(BM_CfgRatios)
    ->ArgNames({"blocks", "chain"})
    ->Args({1000, 0})
    ->Args({10000, 0})
    ->Args({100000, 0})
    ->Args({100000, 1})
    ->Args({1000000, 0})
    ->Args({1000000, 1})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

} // namespace
