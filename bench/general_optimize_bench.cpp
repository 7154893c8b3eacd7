// The GeneralOptimize phases 13, 29 and 58: the optimized half against the reference, and
// the optimized half's time per instruction as the function grows (it should stay flat:
// the passes are linear). The function is u units, one block each, every unit giving each
// phase work: a copy (29), a SEL on a predicate made constant at the entry and found by the
// backward scan through the chain of single predecessors (29, the first kPredicateScanDepth
// units), two moves of one immediate into registers read once (58), and an early exit
// tested again, equivalently, at the start of the next unit (13). The reference of phase 29 is
// timed on a 10k-block function (5000 units), as issue 15 asks; the references of 13 and 58,
// which recount or rescan the function at every step, at 300 units (at 10k blocks they take
// minutes). The optimized half from 300 to 300k units (3.6k to 3.6M instructions).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "bench/bench_timing.h"
#include "bench/units_kernel.h"
#include "ir/verify.h"
#include "optimized/optimized.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori {
namespace {

using bench::bestMs;
using bench::makeUnits;

void BM_GeneralOptimize(benchmark::State &state) {
  std::map<uint32_t, double> p29, p13, p58, r29, r13, r58;
  double r29at10k = 0, p29at10k = 0, r29at10kAfter = 0, p29at10kAfter = 0;
  std::map<uint32_t, size_t> instrs;
  const GeneralOptimizeOptions opt;
#if defined(ORIOPT_HAVE_REFERENCE)
  // Phase 29 on a 10k-block function, both halves, in interleaved rounds (one reference
  // call, seven optimized ones) so that a change of the shared machine's speed during the
  // run reaches both halves' best times. Taken twice: first on a fresh heap, and again after
  // the 3.6M-instruction functions, whose freed memory scatters the copies' instructions.
  auto tenKAfter = [&](double &ref, double &opt29) {
    const Function tenK = makeUnits(5000, false); // 2 blocks per unit
    if (tenK.blocks.size() < 10000)
      return false;
    Function a = tenK, b = tenK;
    if (!(reference::generalOptimize(a, opt) == optimized::generalOptimize(b, opt)) || a != b)
      return false;
    ref = opt29 = 1e300;
    for (int round = 0; round < 3; ++round) {
      ref = std::min(ref, bestMs(
                              tenK,
                              [&](Function &g) {
                                return reference::generalOptimize(g, opt).counts.usesReplaced;
                              },
                              1));
      opt29 = std::min(opt29, bestMs(
                                  tenK,
                                  [&](Function &g) {
                                    return optimized::generalOptimize(g, opt).counts.usesReplaced;
                                  },
                                  7));
    }
    return true;
  };
#endif
  for (auto _ : state) {
#if defined(ORIOPT_HAVE_REFERENCE)
    if (!tenKAfter(r29at10k, p29at10k))
      return state.SkipWithError("the halves disagree at 10k blocks");
#endif
    for (uint32_t units : {300u, 3000u, 30000u, 300000u}) {
      const Function f = makeUnits(units, units <= 300);
      if (!verifyFunction(f).empty())
        return state.SkipWithError("the generated function is malformed");
      instrs[units] = f.instrCount();
      const int calls = units <= 3000 ? 5 : 2;
      p29[units] = bestMs(
          f, [&](Function &g) { return optimized::generalOptimize(g, opt).counts.usesReplaced; },
          calls);
      p13[units] = bestMs(
          f, [](Function &g) { return optimized::generalOptimizeEarly(g, -1).iterations; }, calls);
      p58[units] = bestMs(
          f, [](Function &g) { return optimized::generalOptimizeLate(g, false).movesMerged; },
          calls);
#if defined(ORIOPT_HAVE_REFERENCE)
      if (units == 300) {
        Function a = f, b = f;
        if (!(reference::generalOptimize(a, opt) == optimized::generalOptimize(b, opt)) || a != b)
          return state.SkipWithError("the halves disagree on the benchmark function");
        r29[units] = bestMs(
            f, [&](Function &g) { return reference::generalOptimize(g, opt).counts.usesReplaced; },
            1);
        r13[units] = bestMs(
            f, [](Function &g) { return reference::generalOptimizeEarly(g, -1).iterations; }, 1);
        r58[units] = bestMs(
            f, [](Function &g) { return reference::generalOptimizeLate(g, false).movesMerged; }, 1);
      }
#endif
    }
#if defined(ORIOPT_HAVE_REFERENCE)
    if (!tenKAfter(r29at10kAfter, p29at10kAfter))
      return state.SkipWithError("the halves disagree at 10k blocks");
#endif
  }
  std::string table = "\nGeneralOptimize: optimized ms (ns per instruction)\n";
  for (const auto &[units, n] : instrs) {
    auto ns = [&](double ms) { return ms * 1e6 / double(n); };
    table += fmt::format(
        "  {} units, {} instructions: 29 {:.2f} ms ({:.0f} ns), 13 {:.2f} ms ({:.0f} ns), "
        "58 {:.2f} ms ({:.0f} ns)\n",
        units, n, p29[units], ns(p29[units]), p13[units], ns(p13[units]), p58[units],
        ns(p58[units]));
  }
  if (r29.count(300))
    table += fmt::format("  reference/optimized at 300 units: 29 {:.1f}x, 13 {:.1f}x, 58 {:.1f}x\n",
                         r29[300] / p29[300], r13[300] / p13[300], r58[300] / p58[300]);
  if (r29at10k > 0)
    table += fmt::format(
        "  reference/optimized at 10k blocks: 29 {:.1f}x ({:.1f} ms / {:.1f} ms) on a fresh heap, "
        "{:.1f}x ({:.1f} ms / {:.1f} ms) after the large functions\n",
        r29at10k / p29at10k, r29at10k, p29at10k, r29at10kAfter / p29at10kAfter, r29at10kAfter,
        p29at10kAfter);
  std::fputs(table.c_str(), stdout);
  if (r29at10k > 0) {
    state.counters["ref/opt_29_10k_blocks"] = r29at10k / p29at10k;
    state.counters["ref/opt_29_10k_blocks_after"] = r29at10kAfter / p29at10kAfter;
  }
  state.counters["ns_per_instr_29_300k_over_3k"] =
      (p29[300000] / double(instrs[300000])) / (p29[3000] / double(instrs[3000]));
}
BENCHMARK(BM_GeneralOptimize)->Iterations(1)->Unit(benchmark::kMillisecond);

// Phase 58 on one long block of u units in two shapes that once made it quadratic (each
// merge looked at every instruction up to the read, and erased its move on its own; a
// register whose reads a merge reduced to one was looked for in the whole function):
//   merges  MOV R5, 0x9, then u moves of 0x9 into fresh registers, then their u reads: every
//           move merges into R5 and is checked for writes of R5 up to its read, far away;
//   refound per unit, MOV Z, X; MOV Y, X; IADD3 W, Y, Z; MOV A, 0x5; MOV X, 0x5; STG W: Y
//           merges into Z, leaving X one read, and X's move then asks where that read is.
// The optimized half's ns per instruction at 8k and 64k units, and its growth.
Function lateShape(bool refound, uint32_t units) {
  Function f;
  f.name = refound ? "refound" : "merges";
  f.isEntry = true;
  f.blocks.emplace_back();
  auto &in = f.blocks[0].instrs;
  const Operand tid = Operand::reg_(R(0)), rz = Operand::reg_(RZ);
  in.push_back(makeInstr(Opcode::S2R, {tid}, {Operand::special(SpecialReg::TID_X)}));
  in.push_back(makeInstr(Opcode::IMAD, {Operand::reg_(R(2))},
                         {tid, Operand::immediate(4), Operand::cbank(0, 0x210)},
                         {Mod::WIDE, Mod::U32}));
  auto store = [&](uint32_t k, Reg v) {
    in.push_back(makeInstr(Opcode::STG, {},
                           {Operand::mem(R(2), int64_t(4 * (k % 1024))), Operand::reg_(v)},
                           {Mod::E}));
  };
  if (!refound) {
    in.push_back(makeInstr(Opcode::MOV, {Operand::reg_(R(5))}, {Operand::immediate(9)}));
    for (uint32_t k = 0; k < units; ++k)
      in.push_back(makeInstr(Opcode::MOV, {Operand::reg_(R(10 + k))}, {Operand::immediate(9)}));
    for (uint32_t k = 0; k < units; ++k)
      store(k, R(10 + k));
  } else {
    for (uint32_t k = 0; k < units; ++k) {
      const uint32_t x = 10 + 5 * k;
      const Operand X = Operand::reg_(R(x)), Z = Operand::reg_(R(x + 1)),
                    Y = Operand::reg_(R(x + 2)), W = Operand::reg_(R(x + 3)),
                    A = Operand::reg_(R(x + 4));
      in.push_back(makeInstr(Opcode::MOV, {Z}, {X}));
      in.push_back(makeInstr(Opcode::MOV, {Y}, {X}));
      in.push_back(makeInstr(Opcode::IADD3, {W}, {Y, Z, rz}));
      in.push_back(makeInstr(Opcode::MOV, {A}, {Operand::immediate(5)}));
      in.push_back(makeInstr(Opcode::MOV, {X}, {Operand::immediate(5)}));
      store(k, W.reg);
    }
  }
  in.push_back(makeInstr(Opcode::EXIT, {}, {}));
  f.recountRegs();
  return f;
}

void BM_GeneralOptimizeLateShapes(benchmark::State &state) {
  std::string table = "\nGeneralOptimizeLate (phase 58), the optimized half on one long block, ns "
                      "per instruction:\n";
  for (auto _ : state)
    for (const bool refound : {false, true}) {
      std::map<uint32_t, double> ns;
      uint32_t merged = 0;
      for (const uint32_t units : {8000u, 64000u}) {
        const Function f = lateShape(refound, units);
        if (!verifyFunction(f).empty())
          return state.SkipWithError("the generated function is malformed");
        ns[units] =
            bestMs(
                f,
                [&](Function &g) { return optimized::generalOptimizeLate(g, false).movesMerged; },
                3) *
            1e6 / double(f.instrCount());
        Function g = f;
        merged = optimized::generalOptimizeLate(g, false).movesMerged;
        if (merged != units)
          return state.SkipWithError("a move of the shape was not merged");
      }
      table +=
          fmt::format("  {:<8} 8k units: {:.1f}  64k units: {:.1f}  (64k/8k: {:.2f}x)\n",
                      refound ? "refound" : "merges", ns[8000], ns[64000], ns[64000] / ns[8000]);
      state.counters[fmt::format("{}_64k/8k", refound ? "refound" : "merges")] =
          ns[64000] / ns[8000];
    }
  std::fputs(table.c_str(), stdout);
}
BENCHMARK(BM_GeneralOptimizeLateShapes)->Iterations(1)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace ori
