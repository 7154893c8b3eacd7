// Properties of the .ori format on random well-formed functions and modules
// (fuzz/ori_gen.h): the generator only makes what verifyFunction accepts;
// parse(print(m)) == m; print(parse(print(m))) == print(m). On failure
// RapidCheck shrinks the input and prints it as .ori text.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <set>
#include <span>
#include <string>

#include "fuzz/ori_gen.h"
#include "ir/ori.h"
#include "ir/verify.h"

namespace ori {
namespace {

std::string firstProblem(const std::vector<std::string> &problems) {
  return problems.empty() ? std::string() : problems.front();
}

RC_GTEST_PROP(OriGenProps, GeneratedFunctionsVerify, ()) {
  Function f = *gen::function();
  RC_ASSERT(firstProblem(verifyFunction(f)) == "");
}

RC_GTEST_PROP(OriGenProps, GeneratedModulesVerify, ()) {
  Module m = *gen::module();
  RC_ASSERT(firstProblem(verifyModule(m)) == "");
}

RC_GTEST_PROP(OriGenProps, FunctionParsePrintIsIdentity, ()) {
  Module m;
  m.functions.push_back(*gen::function());
  std::string text = printModule(m);
  ParseResult r = parseOri(text, "gen.ori");
  if (r.error)
    RC_FAIL("the printed text does not parse: " + r.error->str());
  RC_ASSERT(*r.module == m);
}

RC_GTEST_PROP(OriGenProps, ModuleParsePrintIsIdentity, ()) {
  Module m = *gen::module();
  std::string text = printModule(m);
  ParseResult r = parseOri(text, "gen.ori");
  if (r.error)
    RC_FAIL("the printed text does not parse: " + r.error->str());
  RC_ASSERT(*r.module == m);
  RC_ASSERT(firstProblem(verifyModule(*r.module)) == "");
}

RC_GTEST_PROP(OriGenProps, PrintIsStable, ()) {
  Module m = *gen::module();
  std::string text = printModule(m);
  ParseResult r = parseOri(text, "gen.ori");
  RC_ASSERT(r.module.has_value());
  RC_ASSERT(printModule(*r.module) == text);
}

// Generators that never produce some construct would make the properties
// above vacuous for it: over a fixed sample, every opcode, every operand kind,
// every modifier, guards, OPAQUE text, empty blocks, named registers, jump
// tables and variables must appear.
TEST(OriGenCoverage, SampleCoversTheFormat) {
  std::set<Opcode> ops;
  std::set<uint16_t> kinds;
  std::set<Mod> mods;
  bool guarded = false, negGuard = false, emptyBlock = false, unlabelled = false, named = false,
       typed = false, tables = false, fvars = false, mvars = false, nan = false, negZero = false,
       memSym = false, cbankReg = false, returns = false, arrays = false, declaration = false,
       ptx = false, callLists = false, movSym = false;
  for (int seed = 0; seed < 1500; ++seed) {
    Module m = gen::module()(rc::Random(uint64_t(seed) * 7919 + 1), 20 + seed % 81).value();
    mvars |= !m.variables.empty();
    ptx |= !m.ptxDirectives.empty();
    for (const Function &f : m.functions) {
      declaration |= f.isDeclaration();
      ptx |= !f.ptxDirectives.empty();
      named |= !f.regNames.empty();
      typed |= !f.regTypes.empty();
      tables |= !f.jumpTables.empty();
      fvars |= !f.variables.empty();
      returns |= !f.returns.empty();
      for (const Param &p : f.params)
        arrays |= p.count > 0;
      for (size_t b = 0; b < f.blocks.size(); ++b) {
        const Block &blk = f.blocks[b];
        emptyBlock |= blk.instrs.empty();
        unlabelled |= b > 0 && blk.label.empty();
        for (const Instr &in : blk.instrs) {
          ops.insert(in.op);
          for (Mod md : in.mods.list())
            mods.insert(md);
          guarded |= in.guard.has_value();
          callLists |= in.op == Opcode::CALL && !in.dsts.empty() && in.srcs.size() > 1;
          movSym |= in.op == Opcode::MOV && in.srcs[0].kind == Operand::Kind::Symbol;
          negGuard |= in.guard && in.guard->neg;
          for (std::span<const Operand> list :
               {std::span<const Operand>(in.dsts), std::span<const Operand>(in.srcs)})
            for (const Operand &o : list) {
              kinds.insert(o.kindBit());
              nan |= o.kind == Operand::Kind::FImm && std::isnan(o.fimm);
              negZero |= o.kind == Operand::Kind::FImm && o.fimm == 0 && std::signbit(o.fimm);
              memSym |= o.kind == Operand::Kind::Mem && !o.sym.empty();
              cbankReg |= o.kind == Operand::Kind::CBank && o.hasReg;
            }
        }
      }
    }
  }
  EXPECT_EQ(ops.size(), size_t(kNumOpcodes));
  EXPECT_EQ(kinds.size(), 11u);
  size_t usedMods = 0;
  for (int m = 0; m < kNumMods; ++m) {
    bool allowedSomewhere = false;
    for (int o = 0; o < kNumOpcodes; ++o)
      allowedSomewhere |= opInfo(Opcode(o)).allowedMods.test(Mod(m));
    if (allowedSomewhere) {
      ++usedMods;
      EXPECT_TRUE(mods.count(Mod(m))) << "modifier ." << modText(Mod(m)) << " never generated";
    }
  }
  EXPECT_GT(usedMods, 50u);
  EXPECT_TRUE(guarded && negGuard && emptyBlock && unlabelled && named && typed && tables &&
              fvars && mvars && nan && negZero && memSym && cbankReg && returns && arrays &&
              declaration && ptx && callLists && movSym);
}

} // namespace
} // namespace ori
