// The GeneralOptimize phases 13, 29 and 58: the optimized half against the reference, and
// the optimized half's time per instruction as the function grows (it should stay flat:
// the passes are linear). The function is u units, one block each, every unit giving each
// phase work: a copy (29), a SEL on a predicate made constant at the entry and found by the
// backward scan through the chain of single predecessors (29, the first kPredicateScanDepth
// units), two moves of one immediate into registers read once (58), and an early exit
// tested again, equivalently, at the start of the next unit (13). The reference is timed at
// 300 units; the optimized half from 3k to 300k units (about 30k to 3.3M instructions).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <vector>

#include "bench/bench_timing.h"
#include "ir/verify.h"
#include "optimized/optimized.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori {
namespace {

// `fresh`: every unit its own registers (phase 58 merges only moves into registers written
// once); else units reuse 64 sets of registers, as real code reuses them (the dense
// bitvector liveness that phase 29's DCE and zero-extension analysis solve takes blocks x
// registers bits, so a 100k-block function with a register per instruction would not fit).
Function makeUnits(uint32_t units, bool fresh) {
  Function f;
  f.name = "units";
  f.isEntry = true;
  const Operand tid = Operand::reg_(R(0)), out = Operand::reg_(R(2));
  auto block = [&]() -> std::vector<Instr>& {
    f.blocks.emplace_back();
    f.blocks.back().labelId = 0x10u * uint32_t(f.blocks.size() - 1);
    return f.blocks.back().instrs;
  };
  auto exitIf = [&](std::vector<Instr>& in, Reg p, uint32_t bound) {
    in.push_back(makeInstr(Opcode::ISETP, {Operand::reg_(p), Operand::reg_(PT)},
                           {tid, Operand::immediate(int64_t(bound)), Operand::reg_(PT)}, {Mod::GT, Mod::U32, Mod::AND}));
    Instr exit = makeInstr(Opcode::EXIT, {}, {});
    exit.guard = Operand::reg_(p);
    in.push_back(exit);
  };
  auto& entry = block();
  entry.push_back(makeInstr(Opcode::S2R, {tid}, {Operand::special(SpecialReg::TID_X)}));
  entry.push_back(makeInstr(Opcode::IMAD, {out}, {tid, Operand::immediate(4), Operand::cbank(0, 0x210)}, {Mod::WIDE, Mod::U32}));
  entry.push_back(makeInstr(Opcode::PLOP3, {Operand::reg_(P(0)), Operand::reg_(PT)},
                            {Operand::reg_(PT), Operand::reg_(PT), Operand::reg_(PT), Operand::immediate(0xff),
                             Operand::immediate(0)},
                            {Mod::LUT}));
  for (uint32_t u = 0; u < units; ++u) {
    if (u > 0) exitIf(block(), P(2), u + 1000); // the previous unit's test again (phase 13)
    auto& in = u == 0 ? f.blocks[0].instrs : block();
    const uint32_t r = 10 + 8 * (fresh ? u : u % 64);
    const Operand a = Operand::reg_(R(r)), b = Operand::reg_(R(r + 1)), c = Operand::reg_(R(r + 2)),
                  d = Operand::reg_(R(r + 3)), m1 = Operand::reg_(R(r + 4)), m2 = Operand::reg_(R(r + 5)),
                  e = Operand::reg_(R(r + 6));
    in.push_back(makeInstr(Opcode::IADD3, {a}, {tid, Operand::immediate(int64_t(u)), Operand::reg_(RZ)}));
    in.push_back(makeInstr(Opcode::MOV, {b}, {a}));
    in.push_back(makeInstr(Opcode::SEL, {c}, {b, Operand::immediate(5), Operand::reg_(P(0))}));
    in.push_back(makeInstr(Opcode::MOV, {m1}, {Operand::immediate(int64_t(u + 7))}));
    in.push_back(makeInstr(Opcode::MOV, {m2}, {Operand::immediate(int64_t(u + 7))}));
    in.push_back(makeInstr(Opcode::IADD3, {d}, {c, b, m1}));
    in.push_back(makeInstr(Opcode::IADD3, {e}, {d, m2, Operand::reg_(RZ)}));
    in.push_back(makeInstr(Opcode::STG, {}, {Operand::mem(R(2), int64_t(4 * (u % 1024))), e}, {Mod::E}));
    exitIf(in, P(1), u + 1000);
  }
  block().push_back(makeInstr(Opcode::EXIT, {}, {}));
  f.recountRegs();
  return f;
}

using bench::bestMs;

void BM_GeneralOptimize(benchmark::State& state) {
  std::map<uint32_t, double> p29, p13, p58, r29, r13, r58;
  std::map<uint32_t, size_t> instrs;
  const GeneralOptimizeOptions opt;
  for (auto _ : state) {
    for (uint32_t units : {300u, 3000u, 30000u, 300000u}) {
      const Function f = makeUnits(units, units <= 300);
      if (!verifyFunction(f).empty()) return state.SkipWithError("the generated function is malformed");
      instrs[units] = f.instrCount();
      const int calls = units <= 3000 ? 5 : 2;
      p29[units] = bestMs(f, [&](Function& g) { return optimized::generalOptimize(g, opt).counts.usesReplaced; }, calls);
      p13[units] = bestMs(f, [](Function& g) { return optimized::generalOptimizeEarly(g, -1).iterations; }, calls);
      p58[units] = bestMs(f, [](Function& g) { return optimized::generalOptimizeLate(g, false).movesMerged; }, calls);
#if defined(ORIOPT_HAVE_REFERENCE)
      if (units == 300) {
        Function a = f, b = f;
        if (!(reference::generalOptimize(a, opt) == optimized::generalOptimize(b, opt)) || a != b)
          return state.SkipWithError("the halves disagree on the benchmark function");
        r29[units] = bestMs(f, [&](Function& g) { return reference::generalOptimize(g, opt).counts.usesReplaced; }, 1);
        r13[units] = bestMs(f, [](Function& g) { return reference::generalOptimizeEarly(g, -1).iterations; }, 1);
        r58[units] = bestMs(f, [](Function& g) { return reference::generalOptimizeLate(g, false).movesMerged; }, 1);
      }
#endif
    }
  }
  std::string table = "\nGeneralOptimize: optimized ms (ns per instruction)\n";
  for (const auto& [units, n] : instrs) {
    auto ns = [&](double ms) { return ms * 1e6 / double(n); };
    table += fmt::format("  {} units, {} instructions: 29 {:.2f} ms ({:.0f} ns), 13 {:.2f} ms ({:.0f} ns), "
                         "58 {:.2f} ms ({:.0f} ns)\n", units, n, p29[units], ns(p29[units]), p13[units],
                         ns(p13[units]), p58[units], ns(p58[units]));
  }
  if (r29.count(300))
    table += fmt::format("  reference/optimized at 300 units: 29 {:.1f}x, 13 {:.1f}x, 58 {:.1f}x\n",
                         r29[300] / p29[300], r13[300] / p13[300], r58[300] / p58[300]);
  std::fputs(table.c_str(), stdout);
  if (r29.count(300)) state.counters["ref/opt_29"] = r29[300] / p29[300];
  state.counters["ns_per_instr_29_300k_over_3k"] =
      (p29[300000] / double(instrs[300000])) / (p29[3000] / double(instrs[3000]));
}
BENCHMARK(BM_GeneralOptimize)->Iterations(1)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace ori
