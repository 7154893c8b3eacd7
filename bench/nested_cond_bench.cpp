// Phase 38 OptimizeNestedCondBranches: the optimized half against the reference, on
// functions made of u units `if (a && b) { store }` (O, I, body: 3 blocks each), so that u
// combinations are made, one per round, each round over the whole function: the pass is
// quadratic in the number of combinations by design (docs/branch-and-switch.md, "Phase 38").
// Also the optimized half alone on u units `if (a) { store }` (2 blocks each), where nothing
// combines: one round, which finds no pair by shape and solves no liveness.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdio>
#include <map>

#include "bench/bench_timing.h"
#include "ir/verify.h"
#include "optimized/optimized.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori {
namespace {

// u units (O: ISETP P; @!P BRA next unit) (I: ISETP; @!P BRA next) (body: STG), or without
// `combinable` (ISETP; @!P BRA next) (STG), then EXIT.
Function makeChains(uint32_t units, bool combinable) {
  Function f;
  f.name = "chains";
  f.isEntry = true;
  const uint32_t per = combinable ? 3 : 2, n = units * per + 1;
  f.blocks.resize(n);
  for (uint32_t b = 0; b < n; ++b) {
    f.blocks[b].label = fmt::format("L{}", b);
    f.blocks[b].labelId = 0x10u * b;
  }
  const Operand tid = Operand::reg_(R(0));
  f.blocks[0].instrs.push_back(
      makeInstr(Opcode::S2R, {tid}, {Operand::special(SpecialReg::TID_X)}));
  for (uint32_t u = 0; u < units; ++u) {
    const uint32_t first = u * per, next = first + per;
    for (uint32_t k = 0; k + 1 < per; ++k) {
      const Reg p = P(2 * u + k);
      f.blocks[first + k].instrs.push_back(
          makeInstr(Opcode::ISETP, {Operand::reg_(p), Operand::reg_(PT)},
                    {tid, Operand::immediate(int64_t(u + k)), Operand::reg_(PT)},
                    {Mod::GT, Mod::U32, Mod::AND}));
      Instr bra = makeInstr(Opcode::BRA, {}, {Operand::label(next)});
      bra.guard = Operand::reg_(p, true);
      f.blocks[first + k].instrs.push_back(bra);
    }
    f.blocks[next - 1].instrs.push_back(
        makeInstr(Opcode::STG, {}, {Operand::mem(R(1), int64_t(4 * u)), tid}, {Mod::E}));
  }
  f.blocks[n - 1].instrs.push_back(makeInstr(Opcode::EXIT, {}, {}));
  f.recountRegs();
  return f;
}

using bench::bestMs;

void BM_NestedCondRatios(benchmark::State &state) {
  std::map<uint32_t, double> opt, ref, none;
  std::map<uint32_t, uint32_t> combined;
  for (auto _ : state) {
    for (uint32_t units : {100u, 300u, 1000u}) {
      const Function f = makeChains(units, true), g = makeChains(units, false);
      if (!verifyFunction(f).empty() || !verifyFunction(g).empty())
        return state.SkipWithError("the generated function is malformed");
      Function check = f;
      combined[units] = optimized::optimizeNestedCondBranches(check).combined;
      opt[units] = bestMs(
          f, [](Function &h) { return optimized::optimizeNestedCondBranches(h).combined; }, 3);
      none[units] = bestMs(
          g, [](Function &h) { return optimized::optimizeNestedCondBranches(h).combined; }, 5);
#if defined(ORIOPT_HAVE_REFERENCE)
      Function r = f;
      if (reference::optimizeNestedCondBranches(r).combined != combined[units] || r != check)
        return state.SkipWithError("the halves disagree on the benchmark function");
      if (units <= 300)
        ref[units] = bestMs(
            f, [](Function &h) { return reference::optimizeNestedCondBranches(h).combined; }, 1);
#endif
    }
  }
  std::string table =
      "\nOptimizeNestedCondBranches (phase 38): units of if (a && b) store, one combination each\n";
  for (const auto &[units, ms] : opt) {
    table += fmt::format("  {} units ({} blocks, {} combined): optimized {:.2f} ms", units,
                         units * 3 + 1, combined[units], ms);
    if (ref.count(units))
      table += fmt::format(", reference {:.1f} ms, reference/optimized {:.1f}x", ref[units],
                           ref[units] / ms);
    table +=
        fmt::format("; nothing to combine ({} blocks): {:.3f} ms\n", units * 2 + 1, none[units]);
  }
  std::fputs(table.c_str(), stdout);
  if (ref.count(300))
    state.counters["ref/opt_300"] = ref[300] / opt[300];
  state.counters["opt_ms_1000"] = opt[1000];
}
BENCHMARK(BM_NestedCondRatios)->Iterations(1)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace ori
