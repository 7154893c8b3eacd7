// The unit kernel of the GeneralOptimize and pipeline benchmarks (bench/general_optimize_bench.cpp,
// bench/pipeline_bench.cpp): u units, one block each, every unit giving the GeneralOptimize
// phases work: a copy, a SEL on a predicate made constant at the entry, two moves of one
// immediate into registers read once, an early exit tested again, equivalently, at the start
// of the next unit, and a store.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/ir.h"

namespace ori::bench {

// `fresh`: every unit its own registers (phase 58 merges only moves into registers written
// once); else units reuse 64 sets of registers, as real code reuses them (the dense
// bitvector liveness that phase 29's DCE and zero-extension analysis solve takes blocks x
// registers bits, so a 100k-block function with a register per instruction would not fit).
inline Function makeUnits(uint32_t units, bool fresh) {
  Function f;
  f.name = "units";
  f.isEntry = true;
  const Operand tid = Operand::reg_(R(0)), out = Operand::reg_(R(2));
  auto block = [&]() -> std::vector<Instr> & {
    f.blocks.emplace_back();
    f.blocks.back().labelId = 0x10u * uint32_t(f.blocks.size() - 1);
    return f.blocks.back().instrs;
  };
  auto exitIf = [&](std::vector<Instr> &in, Reg p, uint32_t bound) {
    in.push_back(makeInstr(Opcode::ISETP, {Operand::reg_(p), Operand::reg_(PT)},
                           {tid, Operand::immediate(int64_t(bound)), Operand::reg_(PT)},
                           {Mod::GT, Mod::U32, Mod::AND}));
    Instr exit = makeInstr(Opcode::EXIT, {}, {});
    exit.guard = Operand::reg_(p);
    in.push_back(exit);
  };
  auto &entry = block();
  entry.push_back(makeInstr(Opcode::S2R, {tid}, {Operand::special(SpecialReg::TID_X)}));
  entry.push_back(makeInstr(Opcode::IMAD, {out},
                            {tid, Operand::immediate(4), Operand::cbank(0, 0x210)},
                            {Mod::WIDE, Mod::U32}));
  entry.push_back(makeInstr(Opcode::PLOP3, {Operand::reg_(P(0)), Operand::reg_(PT)},
                            {Operand::reg_(PT), Operand::reg_(PT), Operand::reg_(PT),
                             Operand::immediate(0xff), Operand::immediate(0)},
                            {Mod::LUT}));
  for (uint32_t u = 0; u < units; ++u) {
    if (u > 0)
      exitIf(block(), P(2), u + 1000); // the previous unit's test again (phase 13)
    auto &in = u == 0 ? f.blocks[0].instrs : block();
    const uint32_t r = 10 + 8 * (fresh ? u : u % 64);
    const Operand a = Operand::reg_(R(r)), b = Operand::reg_(R(r + 1)), c = Operand::reg_(R(r + 2)),
                  d = Operand::reg_(R(r + 3)), m1 = Operand::reg_(R(r + 4)),
                  m2 = Operand::reg_(R(r + 5)), e = Operand::reg_(R(r + 6));
    in.push_back(
        makeInstr(Opcode::IADD3, {a}, {tid, Operand::immediate(int64_t(u)), Operand::reg_(RZ)}));
    in.push_back(makeInstr(Opcode::MOV, {b}, {a}));
    in.push_back(makeInstr(Opcode::SEL, {c}, {b, Operand::immediate(5), Operand::reg_(P(0))}));
    in.push_back(makeInstr(Opcode::MOV, {m1}, {Operand::immediate(int64_t(u + 7))}));
    in.push_back(makeInstr(Opcode::MOV, {m2}, {Operand::immediate(int64_t(u + 7))}));
    in.push_back(makeInstr(Opcode::IADD3, {d}, {c, b, m1}));
    in.push_back(makeInstr(Opcode::IADD3, {e}, {d, m2, Operand::reg_(RZ)}));
    in.push_back(
        makeInstr(Opcode::STG, {}, {Operand::mem(R(2), int64_t(4 * (u % 1024))), e}, {Mod::E}));
    exitIf(in, P(1), u + 1000);
  }
  block().push_back(makeInstr(Opcode::EXIT, {}, {}));
  f.recountRegs();
  return f;
}

} // namespace ori::bench
