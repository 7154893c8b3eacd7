// Phase 37's ConvertMemoryToRegister: the optimized half against the reference on a 10k-block
// function, and the optimized half's time per instruction from about 10k to 1M instructions
// (it should stay flat: the pass is linear), with phase 37 as a whole (promotion and the
// phase-29 suite) beside it. The function is u units, one block each, ending in a
// conditional exit: each unit stores two values to slots of a 32-byte frame through nvcc's
// %SP (its generic address), stores through the buffer pointer, loads both slots back and
// stores their sum; every fourth unit also stores a slot only under a guard. Units share the
// frame's 8 slots, so each slot is read far more than 4 times: knob 136 is set to 1.5 so that
// the cost model promotes them all (at the default it keeps every one, after the same analysis).
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

Function makeSlotUnits(uint32_t units) {
  Function f;
  f.name = "slots";
  f.isEntry = true;
  f.variables.push_back(Variable{Space::Local, "b8", "frame", 1, 32, 8, {}});
  const Operand tid = Operand::reg_(R(0)), out = Operand::reg_(R(2)), sp = Operand::reg_(R(5));
  auto block = [&]() -> std::vector<Instr> & {
    f.blocks.emplace_back();
    f.blocks.back().labelId = 0x10u * uint32_t(f.blocks.size() - 1);
    return f.blocks.back().instrs;
  };
  auto &entry = block();
  entry.push_back(makeInstr(Opcode::S2R, {tid}, {Operand::special(SpecialReg::TID_X)}));
  entry.push_back(makeInstr(Opcode::IMAD, {out},
                            {tid, Operand::immediate(4), Operand::cbank(0, 0x210)},
                            {Mod::WIDE, Mod::U32}));
  entry.push_back(
      makeInstr(Opcode::MOV, {Operand::reg_(R(3))}, {Operand::symbol("frame")}, {Mod::W64}));
  entry.push_back(
      makeInstr(Opcode::S2R, {Operand::reg_(R(4))}, {Operand::special(SpecialReg::LWINBASE)}));
  entry.push_back(makeInstr(Opcode::IADD3, {sp},
                            {Operand::reg_(R(3)), Operand::reg_(R(4)), Operand::reg_(RZ)},
                            {Mod::W64}));
  for (uint32_t u = 0; u < units; ++u) {
    auto &in = u == 0 ? f.blocks[0].instrs : block();
    const uint32_t r = 10 + 4 * (u % 64);
    const Operand a = Operand::reg_(R(r)), b = Operand::reg_(R(r + 1)), c = Operand::reg_(R(r + 2)),
                  d = Operand::reg_(R(r + 3));
    const int64_t slot = 8 * (u % 4);
    in.push_back(
        makeInstr(Opcode::IADD3, {a}, {tid, Operand::immediate(int64_t(u)), Operand::reg_(RZ)}));
    in.push_back(makeInstr(Opcode::ST, {}, {Operand::mem(R(5), slot), a}));
    in.push_back(makeInstr(Opcode::ST, {}, {Operand::mem(R(5), slot + 4), tid}));
    in.push_back(
        makeInstr(Opcode::STG, {}, {Operand::mem(R(2), int64_t(4 * (u % 1024))), a}, {Mod::E}));
    if (u % 4 == 3) {
      Instr g = makeInstr(Opcode::ST, {}, {Operand::mem(R(5), slot), tid});
      g.guard = Operand::reg_(P(1));
      in.push_back(g);
    }
    in.push_back(makeInstr(Opcode::LD, {b}, {Operand::mem(R(5), slot)}));
    in.push_back(makeInstr(Opcode::LD, {c}, {Operand::mem(R(5), slot + 4)}));
    in.push_back(makeInstr(Opcode::IADD3, {d}, {b, c, Operand::reg_(RZ)}));
    in.push_back(
        makeInstr(Opcode::STG, {}, {Operand::mem(R(2), int64_t(4 * (u % 1024))), d}, {Mod::E}));
    in.push_back(makeInstr(Opcode::ISETP, {Operand::reg_(P(1)), Operand::reg_(PT)},
                           {tid, Operand::immediate(int64_t(u + 1000)), Operand::reg_(PT)},
                           {Mod::GT, Mod::U32, Mod::AND}));
    Instr exit = makeInstr(Opcode::EXIT, {}, {});
    exit.guard = Operand::reg_(P(1));
    in.push_back(exit);
  }
  block().push_back(makeInstr(Opcode::EXIT, {}, {}));
  f.recountRegs();
  return f;
}

using bench::bestMs;

void BM_ConvertMemoryToRegister(benchmark::State &state) {
  std::map<uint32_t, double> promote, mid;
  std::map<uint32_t, size_t> instrs;
  double reference10k = 0;
  MemToRegOptions opt;
  opt.promotionThreshold = 1.5;
  for (auto _ : state) {
    for (uint32_t units : {1000u, 10000u, 100000u}) {
      const Function f = makeSlotUnits(units);
      if (!verifyFunction(f).empty())
        return state.SkipWithError("the generated function is malformed");
      instrs[units] = f.instrCount();
      const int calls = units <= 10000 ? 3 : 1;
      Function probe = f;
      if (optimized::convertMemoryToRegister(probe, opt).slotsPromoted == 0)
        return state.SkipWithError("the benchmark function promotes nothing");
      promote[units] = bestMs(
          f, [&](Function &g) { return optimized::convertMemoryToRegister(g, opt).slotsPromoted; },
          calls);
      mid[units] = bestMs(
          f, [&](Function &g) { return optimized::generalOptimizeMid(g, opt).rounds; }, 1);
#if defined(ORIOPT_HAVE_REFERENCE)
      if (units == 10000) {
        Function a = f, b = f;
        if (!(reference::convertMemoryToRegister(a, opt) ==
              optimized::convertMemoryToRegister(b, opt)) ||
            a != b)
          return state.SkipWithError("the halves disagree on the benchmark function");
        reference10k = bestMs(
            f,
            [&](Function &g) { return reference::convertMemoryToRegister(g, opt).slotsPromoted; },
            1);
      }
#endif
    }
  }
  std::string table =
      "\nConvertMemoryToRegister (optimized) and phase 37: ms (ns per instruction)\n";
  for (const auto &[units, n] : instrs) {
    auto ns = [&](double ms) { return ms * 1e6 / double(n); };
    table += fmt::format("  {} blocks, {} instructions: promotion {:.2f} ms ({:.0f} ns), phase 37 "
                         "{:.2f} ms ({:.0f} ns)\n",
                         units, n, promote[units], ns(promote[units]), mid[units], ns(mid[units]));
  }
  if (reference10k > 0)
    table += fmt::format("  reference/optimized promotion at 10k blocks: {:.1f}x\n",
                         reference10k / promote[10000]);
  std::fputs(table.c_str(), stdout);
  if (reference10k > 0)
    state.counters["ref/opt_10k"] = reference10k / promote[10000];
  state.counters["ns_per_instr_100k_over_1k"] =
      (promote[100000] / double(instrs[100000])) / (promote[1000] / double(instrs[1000]));
  state.counters["mid_ns_per_instr_100k_over_1k"] =
      (mid[100000] / double(instrs[100000])) / (mid[1000] / double(instrs[1000]));
}
BENCHMARK(BM_ConvertMemoryToRegister)->Iterations(1)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace ori
