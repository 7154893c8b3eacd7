// Random CFGs as Ori functions (fuzz/cfg_gen.h). Every choice is drawn inside
// rc::gen::exec, so RapidCheck shrinks a failing graph choice by choice.
#include "fuzz/cfg_gen.h"

#include <string>
#include <vector>

namespace ori::gen {
namespace {

int pick(int lo, int hi) { // [lo, hi), not scaled by the generation size
  if (hi - lo <= 1)
    return lo;
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(lo, hi));
}
// True with the given probability; shrinks towards false (pick shrinks towards
// 0), so a shrunk case loses its optional features, e.g. the long chain.
bool chance(int percent) { return pick(0, 100) >= 100 - percent; }

enum class Term { FallThrough, Bra, CondBra, Brx, Exit, GuardedExit, Ret, GuardedRet };

// A branch target for block i of n: forward, backward (loops), self, or any.
uint32_t target(int i, int n) {
  int r = pick(0, 100);
  if (r < 45 && i + 1 < n)
    return uint32_t(pick(i + 1, n));
  if (r < 75 && i > 0)
    return uint32_t(pick(0, i));
  if (r < 85)
    return uint32_t(i);
  return uint32_t(pick(0, n));
}

Instr guardedBy(Instr in) {
  in.guard = Operand::reg_(P(0), chance(40));
  return in;
}

} // namespace

rc::Gen<Function> cfgFunction(CfgOptions opts) {
  return rc::gen::exec([opts] {
    Function f;
    f.name = "cfg";
    f.isEntry = true;
    const bool chain = chance(5);
    const int n = chain ? *rc::gen::inRange(opts.maxChainBlocks / 2, opts.maxChainBlocks + 1)
                        : *rc::gen::inRange(1, opts.maxBlocks + 1);
    f.blocks.resize(size_t(n));
    for (int i = 0; i < n; ++i) {
      Block &b = f.blocks[size_t(i)];
      b.label = "L" + std::to_string(i);
      b.labelId = 0x10u * uint32_t(i);
    }
    for (int i = 0; i < n; ++i) {
      Block &b = f.blocks[size_t(i)];
      const bool last = i + 1 == n;
      Term t;
      if (last) {
        static const Term kLast[] = {Term::Bra, Term::Brx, Term::Exit, Term::Ret};
        t = kLast[pick(0, 4)];
        if (t != Term::Exit && chance(50))
          t = Term::Exit;
      } else if (chain) {
        t = chance(90) ? Term::FallThrough : chance(50) ? Term::CondBra : Term::Bra;
      } else {
        static const Term kAny[] = {Term::FallThrough, Term::Bra, Term::CondBra,
                                    Term::CondBra,     Term::Brx, Term::Exit,
                                    Term::GuardedExit, Term::Ret, Term::GuardedRet};
        t = kAny[pick(0, 9)];
      }
      const int nops = t == Term::FallThrough ? pick(0, 3) : pick(0, 2);
      for (int k = 0; k < nops; ++k)
        b.instrs.push_back(Instr{});
      Instr in;
      switch (t) {
      case Term::FallThrough:
        continue;
      case Term::Bra:
      case Term::CondBra:
        in.op = Opcode::BRA;
        in.srcs.push_back(Operand::label(target(i, n)));
        if (t == Term::CondBra)
          in = guardedBy(std::move(in));
        break;
      case Term::Brx: {
        JumpTable jt;
        jt.name = "T" + std::to_string(f.jumpTables.size());
        const int size = pick(1, 7);
        for (int k = 0; k < size; ++k) {
          if (k > 0 && chance(30))
            jt.targets.push_back(jt.targets[size_t(pick(0, k))]); // duplicate
          else
            jt.targets.push_back(target(i, n));
        }
        in.op = Opcode::BRX;
        in.srcs.push_back(Operand::reg_(R(0)));
        in.srcs.push_back(Operand::jumpTable(uint32_t(f.jumpTables.size())));
        f.jumpTables.push_back(std::move(jt));
        if (!last && chance(15))
          in = guardedBy(std::move(in));
        break;
      }
      case Term::Exit:
      case Term::GuardedExit:
        in.op = Opcode::EXIT;
        break;
      case Term::Ret:
      case Term::GuardedRet:
        in.op = Opcode::RET;
        break;
      }
      if (t == Term::GuardedExit || t == Term::GuardedRet)
        in = guardedBy(std::move(in));
      b.instrs.push_back(std::move(in));
    }
    f.recountRegs();
    return f;
  });
}

} // namespace ori::gen
