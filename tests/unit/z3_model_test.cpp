// The Z3 opcode models (verify/model_eval.h) and the interpreter on
// hand-derived cases, and the cross-check of the two (verify/crosscheck.h;
// docs/verifier.md). Float constants are IEEE bit patterns: 0x3f800000 = 1.0f,
// 0x80000000 = -0.0f, 0x7fc00000 = a quiet NaN, 0x33800000 = 2^-24.
#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>

#include "verify/crosscheck.h"

namespace ori {
namespace {

using verify::ConcreteInputs;

struct Case {
  Opcode op;
  std::initializer_list<Mod> mods;
  unsigned pattern; // operand flags, as makeSubject reads them
  ConcreteInputs x;
  std::vector<uint64_t> dsts;
  std::optional<uint64_t> memory = std::nullopt;
};

ConcreteInputs in(std::vector<uint64_t> srcs, std::vector<uint64_t> old = {0}, uint64_t memory = 0,
                  bool guard = true) {
  ConcreteInputs x;
  x.srcs = std::move(srcs);
  x.oldDsts = std::move(old);
  x.memory = memory;
  x.guard = guard;
  return x;
}

// Both the model and the interpreter give the hand-derived result.
void expectBoth(verify::ModelEvaluator &model, const Case &c) {
  ModSet mods;
  for (Mod m : c.mods)
    mods.set(m);
  Instr instr = verify::makeSubject(c.op, mods, c.pattern, c.x);
  std::optional<verify::ConcreteOutputs> m = model.evaluate(instr, c.x);
  ASSERT_TRUE(m) << "no model for " << opInfo(c.op).name;
  std::string error;
  std::optional<verify::ConcreteOutputs> i = verify::interpretOne(instr, c.x, &error);
  ASSERT_TRUE(i) << error;
  EXPECT_EQ(m->dsts, c.dsts) << "model of " << opInfo(c.op).name;
  EXPECT_EQ(i->dsts, c.dsts) << "interpreter on " << opInfo(c.op).name;
  if (c.memory) {
    EXPECT_EQ(m->memory, c.memory) << "model of " << opInfo(c.op).name;
    EXPECT_EQ(i->memory, c.memory) << "interpreter on " << opInfo(c.op).name;
  }
}

// The opcodes of PTX's carry chains, dot products, packs, masks and fns (ir/opcodes.def),
// values worked by hand from the PTX ISA's definitions.
TEST(Z3Model, IntegerExtended) {
  verify::ModelEvaluator model;
  const Case cases[] = {
      // IADDC d, co, a, b, ci: {co, d} = a + b + ci; .SUB a + ~b + ci (P3 is ci, true here).
      {Opcode::IADDC, {}, 0, in({0xffffffff, 1, 0}, {0, 0}), {0, 1}}, // carry out of 2^32
      {Opcode::IADDC, {}, 0, in({0xfffffffe, 1, 1}, {0, 0}), {0, 1}}, // -2 + 1 + 1 carries
      {Opcode::IADDC, {}, 0, in({5, 3, 0}, {0, 0}), {8, 0}},
      {Opcode::IADDC, {Mod::SUB}, 0, in({5, 3, 1}, {0, 0}), {2, 1}},          // sub.cc: no borrow
      {Opcode::IADDC, {Mod::SUB}, 0, in({3, 5, 1}, {0, 0}), {0xfffffffe, 0}}, // borrow: carry 0
      {Opcode::IADDC,
       {Mod::SUB},
       0,
       in({7, 7, 0}, {0, 0}),
       {0xffffffff, 0}},                                                 // subc, carry 0: 7 - 7 - 1
      {Opcode::IADDC, {Mod::W64}, 0, in({~0ull, 0, 1}, {0, 0}), {0, 1}}, // 64-bit carry
      // IDP: 0x80 * 0x80 twice + 1: unsigned 2 * 16384 + 1; signed (-128)(-128) * 2 + 1.
      {Opcode::IDP,
       {Mod::A4, Mod::U8, Mod::IDP_B_U8},
       0,
       in({0x80800000, 0x80800000, 1}),
       {0x8001}},
      {Opcode::IDP,
       {Mod::A4, Mod::S8, Mod::IDP_B_S8},
       0,
       in({0x80800000, 0x80800000, 1}),
       {0x8001}},
      {Opcode::IDP,
       {Mod::A4, Mod::S8, Mod::IDP_B_U8},
       0,
       in({0x000000ff, 0x00000002, 0}),
       {0xfffffffe}}, // -1 * 2
      // 2A.HI: a's halves (-1, 2) with b's bytes 2, 3 (3, -4 signed): -3 - 8 = -11.
      {Opcode::IDP,
       {Mod::A2, Mod::HI, Mod::S16, Mod::IDP_B_S8},
       0,
       in({0x0002ffff, 0xfc030000, 0}),
       {0xfffffff5}},
      {Opcode::IDP,
       {Mod::A2, Mod::LO, Mod::U16, Mod::IDP_B_U8},
       0,
       in({0x0002ffff, 0xfc030201, 5}),
       {0x10008}}, // 65535 * 1 + 2 * 2 + 5
      // I2IP: a = 300, b = -5: u8 255 and 0 under c's low half; s16 300 and -5.
      {Opcode::I2IP, {Mod::U8}, 0, in({300, 0xfffffffb, 0xabcd}), {0xabcdff00}},
      {Opcode::I2IP, {Mod::S8}, 0, in({300, 0xfffffffb, 0}), {0x7ffb}},
      {Opcode::I2IP, {Mod::S16}, 0, in({300, 0xfffffffb, 0}), {0x012cfffb}},
      {Opcode::I2IP, {Mod::U16}, 0, in({0x80000000, 70000, 0}), {0x0000ffff}},
      // BMSK: 3 bits from bit 4; a >= 32 without .W; width 0; a + b past 31.
      {Opcode::BMSK, {}, 0, in({4, 3}), {0x70}},
      {Opcode::BMSK, {}, 0, in({32, 3}), {0}},
      {Opcode::BMSK, {Mod::W}, 0, in({33, 3}), {0xe}}, // 33 & 31 = 1
      {Opcode::BMSK, {}, 0, in({4, 0}), {0}},
      {Opcode::BMSK, {}, 0, in({30, 5}), {0xc0000000}},
      {Opcode::BMSK, {}, 0, in({0, 40}), {0xffffffff}}, // b >= 32: up to bit 31
      // FNS on 0b1011010: from bit 2 up, the 2nd set bit is 4; from 6 down, the 3rd is 3.
      {Opcode::FNS, {}, 0, in({0x5a, 2, 2}), {4}},
      {Opcode::FNS, {}, 0, in({0x5a, 6, 0xfffffffd}), {3}},
      {Opcode::FNS, {}, 0, in({0x5a, 5, 0}), {0xffffffff}}, // bit 5 clear
      {Opcode::FNS, {}, 0, in({0x5a, 6, 0}), {6}},
      {Opcode::FNS, {}, 0, in({0x5a, 0, 5}), {0xffffffff}},        // only 4 set bits
      {Opcode::FNS, {}, 0, in({0xffffffff, 40, 1}), {0xffffffff}}, // base > 31
  };
  for (const Case &c : cases)
    expectBoth(model, c);
}

TEST(Z3Model, Integer) {
  verify::ModelEvaluator model;
  const Case cases[] = {
      {Opcode::IADD3, {}, 2, in({5, 7, 1}), {0xffffffff}},    // 5 - 7 + 1 = -1 (pattern 2: -R11)
      {Opcode::IADD3, {Mod::W64}, 0, in({~0ull, 2, 0}), {1}}, // -1 + 2 at 64 bits
      {Opcode::IADD3,
       {},
       0,
       in({1, 2, 3}, {0x1234}, 0, false),
       {0x1234}},                                        // guard false: R20 keeps its value
      {Opcode::SEL, {}, 0, in({0x11, 0x22, 0}), {0x22}}, // p false: b
      {Opcode::SEL, {}, 4, in({0x11, 0x22, 0}), {0x11}}, // pattern 4: !P3, true: a
      {Opcode::IMAD, {Mod::WIDE}, 0, in({0xffffffff, 2, 0}), {0xfffffffffffffffe}}, // -1 * 2 signed
      {Opcode::IMAD, {Mod::WIDE, Mod::U32}, 0, in({0xffffffff, 2, 0}), {0x1fffffffe}}, // 2^33 - 2
      {Opcode::IMAD, {Mod::HI, Mod::U32}, 0, in({0x80000000, 4, 1}), {3}}, // hi32(2^33) + 1
      {Opcode::SHF,
       {Mod::R, Mod::HI, Mod::S32},
       0,
       in({0, 40, 0x80000000}),
       {0xffffffff}},                                                         // n = min(40, 32)
      {Opcode::SHF, {Mod::L, Mod::HI, Mod::U64}, 0, in({1, 40, 0}), {0x100}}, // 2^40, high half 2^8
      {Opcode::SHF, {Mod::L, Mod::U64}, 0, in({1, 40, 0}), {0}},              // low half of 2^40
      {Opcode::SHR, {Mod::S32}, 0, in({0x80000000, 99}), {0xffffffff}}, // clamped: the sign fill
      {Opcode::SHL, {}, 0, in({1, 32}), {0}},                           // clamped: 0
      {Opcode::IMNMX, {Mod::U32}, 0, in({0xffffffff, 1, 1}), {1}},      // unsigned min
      {Opcode::IMNMX, {}, 0, in({0xffffffff, 1, 1}), {0xffffffff}},     // signed min: -1
      {Opcode::LEA, {}, 0, in({3, 1, 4}), {0x31}},                      // (3 << 4) + 1
      {Opcode::LEA, {}, 0, in({3, 1, 40}), {1}},                        // 3 << 40 = 0 at 32 bits
      {Opcode::ISETP,
       {Mod::LT, Mod::U32},
       0,
       in({0xffffffff, 1, 1}, {0, 0}),
       {0, 1}},                                                              // not less: p 0, q 1
      {Opcode::ISETP, {Mod::LT}, 0, in({0xffffffff, 1, 1}, {0, 0}), {1, 0}}, // -1 < 1
      {Opcode::ISETP,
       {Mod::GE, Mod::XOR},
       0,
       in({5, 5, 1}, {0, 0}),
       {0, 1}}, // r = 1: p = 1^1, q = 0^1
      {Opcode::LOP3, {Mod::LUT}, 0, in({0xff00ff00, 0xf0f0f0f0, 0, 0xC0}), {0xf000f000}}, // a & b
      {Opcode::PLOP3,
       {Mod::LUT},
       0,
       in({1, 0, 1, 0xFC, 0x03}, {0, 0}),
       {1, 0}}, // a | b = 1, nor = 0
  };
  for (const Case &c : cases)
    expectBoth(model, c);
}

TEST(Z3Model, Float) {
  verify::ModelEvaluator model;
  const Case cases[] = {
      {Opcode::FMNMX, {}, 0, in({0x80000000, 0, 1}), {0x80000000}},          // min(-0, +0) = -0
      {Opcode::FMNMX, {}, 0, in({0x80000000, 0, 0}), {0}},                   // max(-0, +0) = +0
      {Opcode::FMNMX, {}, 0, in({0x7fc00000, 0x3f800000, 1}), {0x3f800000}}, // one NaN: the other
      {Opcode::FMNMX, {}, 0, in({0x7fc00001, 0xffc00000, 1}), {0x7fffffff}}, // two NaNs: canonical
      {Opcode::FADD,
       {Mod::RP},
       0,
       in({0x3f800000, 0x33800000}),
       {0x3f800001}},                                                    // 1 + 2^-24 up: 1 + 2^-23
      {Opcode::FADD, {}, 0, in({0x3f800000, 0x33800000}), {0x3f800000}}, // the tie to even: 1
      {Opcode::FADD, {}, 0, in({0x3f800000, 0x34400000}), {0x3f800002}}, // 1 + 1.5 ulp: 1 + 2 ulp
      {Opcode::FADD,
       {Mod::RZ},
       0,
       in({0x3f800000, 0x34400000}),
       {0x3f800001}}, // towards zero: 1 + 1 ulp
      {Opcode::FADD, {Mod::SAT}, 0, in({0x3f400000, 0x3f400000}), {0x3f800000}}, // 1.5 clamps to 1
      {Opcode::FADD, {Mod::SAT}, 0, in({0xbf800000, 0x3f000000}), {0}}, // -0.5 clamps to +0
      {Opcode::FADD, {Mod::FTZ}, 0, in({0x00000001, 0}), {0}},          // denormal flushed
      {Opcode::FADD, {}, 0, in({0x00000001, 0}), {0x00000001}},
      {Opcode::F2I, {Mod::U8}, 0, in({0x43960000}), {255}},        // 300.0 saturates
      {Opcode::F2I, {Mod::U8}, 0, in({0xc0400000}), {0}},          // -3.0 saturates to 0
      {Opcode::F2I, {Mod::S8}, 0, in({0xc3480000}), {0xffffff80}}, // -200.0 -> -128, sign-extended
      {Opcode::F2I, {}, 0, in({0x40200000}), {2}},                 // 2.5 to nearest even
      {Opcode::F2I, {Mod::TRUNC}, 0, in({0xc02ccccd}), {0xfffffffe}}, // -2.7 -> -2
      {Opcode::F2I, {Mod::FLOOR}, 0, in({0xc0200000}), {0xfffffffd}}, // -2.5 -> -3
      {Opcode::F2I, {Mod::CEIL}, 0, in({0x40066666}), {3}},           // 2.1 -> 3
      {Opcode::F2I, {}, 0, in({0x7fc00000}), {0}},                    // NaN -> 0
      {Opcode::I2F,
       {Mod::U32, Mod::RM},
       0,
       in({0xffffffff}),
       {0x4f7fffff}},                                               // 2^32 - 1 down: 2^32 - 256
      {Opcode::I2F, {Mod::U32}, 0, in({0xffffffff}), {0x4f800000}}, // to nearest: 2^32
      {Opcode::I2F, {Mod::S16}, 0, in({0x8000}), {0xc7000000}},     // -32768
      {Opcode::I2F,
       {Mod::F64, Mod::S64},
       0,
       in({0x8000000000000000}),
       {0xc3e0000000000000}}, // -2^63
      {Opcode::DADD,
       {Mod::RP},
       0,
       in({0x3ff0000000000000, 0x3ca0000000000000}),
       {0x3ff0000000000001}}, // 1 + 2^-53 up
      {Opcode::DADD,
       {Mod::RZ},
       0,
       in({0x3ff0000000000000, 0x3ca0000000000000}),
       {0x3ff0000000000000}},
      {Opcode::FSETP, {Mod::LTU}, 0, in({0x7fc00000, 0, 1}, {0, 0}), {1, 0}}, // unordered: true
      {Opcode::FSETP, {Mod::LT}, 0, in({0x7fc00000, 0, 1}, {0, 0}), {0, 1}},  // ordered: false
      {Opcode::FSETP, {Mod::NE}, 0, in({0, 0x80000000, 1}, {0, 0}), {0, 1}},  // +0 == -0
      {Opcode::FSETP,
       {Mod::EQ, Mod::FTZ},
       0,
       in({1, 0, 1}, {0, 0}),
       {1, 0}}, // denormal flushed to 0
  };
  for (const Case &c : cases)
    expectBoth(model, c);
}

TEST(Z3Model, MemoryAndSpecialRegisters) {
  verify::ModelEvaluator model;
  const Case cases[] = {
      {Opcode::LDG, {Mod::E, Mod::S8}, 0, in({0}, {0}, 0x80), {0xffffff80}},
      {Opcode::LDG, {Mod::E, Mod::U16}, 0, in({0}, {0}, 0x12348765), {0x8765}},
      {Opcode::LDS, {Mod::W64}, 0, in({0}, {0}, 0x1122334455667788), {0x1122334455667788}},
      {Opcode::LDL, {}, 0, in({0}, {0}, 0x1122334455667788), {0x55667788}},
      {Opcode::LDC, {Mod::S16}, 0, in({0}, {0}, 0xffff8001), {0xffff8001}},
      {Opcode::STG,
       {Mod::E, Mod::U8},
       0,
       in({0, 0xab}, {}, 0x1122334455667788),
       {},
       0x11223344556677ab},
      {Opcode::STS, {}, 0, in({0, 0xdeadbeef}, {}, 0x1122334455667788), {}, 0x11223344deadbeef},
      {Opcode::ATOM, {Mod::E, Mod::INC}, 0, in({0, 5}, {0}, 5), {5}, 0},    // old >= 5: wraps to 0
      {Opcode::ATOM, {Mod::E, Mod::DEC}, 0, in({0, 7}, {0}, 0), {0}, 7},    // old == 0: b
      {Opcode::ATOM, {Mod::E, Mod::CAS}, 0, in({0, 3, 9}, {0}, 3), {3}, 9}, // equal: swapped
      {Opcode::ATOM,
       {Mod::E, Mod::MIN, Mod::S32},
       0,
       in({0, 1}, {0}, 0xffffffff),
       {0xffffffff},
       0xffffffff},
      {Opcode::ATOM,
       {Mod::E, Mod::MIN},
       0,
       in({0, 1}, {0}, 0xffffffff),
       {0xffffffff},
       1}, // unsigned
      {Opcode::RED, {Mod::E, Mod::ADD, Mod::W64}, 0, in({0, 1}, {}, ~0ull), {}, 0},
  };
  for (const Case &c : cases)
    expectBoth(model, c);
  // S2R: thread 37 of a 40-thread CTA is lane 5 of warp 1.
  ConcreteInputs x = in({uint64_t(SpecialReg::LANEID)});
  x.tid = 37, x.ntid = 40;
  expectBoth(model, {Opcode::S2R, {}, 0, x, {5}});
  x.srcs = {uint64_t(SpecialReg::WARPID)};
  expectBoth(model, {Opcode::S2R, {}, 0, x, {1}});
}

// Every opcode the interpreter gives a meaning to has a model; the rest are
// control flow, convergence and no-ops (no value to model) or refused.
TEST(Z3Model, EveryInterpretedOpcodeHasAModel) {
  const Opcode noValue[] = {
      Opcode::BRA,    Opcode::BRX,       Opcode::JMX,          Opcode::EXIT,      Opcode::RET,
      Opcode::CALL,   Opcode::BSSY,      Opcode::BSYNC,        Opcode::WARPSYNC,  Opcode::BAR,
      Opcode::NOP,    Opcode::SHFL,      Opcode::MATCH,        Opcode::REDUX,     Opcode::SULD,
      Opcode::SUST,   Opcode::TEX,       Opcode::LDGSTS,       Opcode::LDGDEPBAR, Opcode::DEPBAR,
      Opcode::LDSM,   Opcode::STSM,      Opcode::ACQBULK,      Opcode::PREEXIT,   Opcode::SETMAXREG,
      Opcode::ALLOCA, Opcode::STACKSAVE, Opcode::STACKRESTORE, Opcode::TRAP,      Opcode::OPAQUE};
  for (int k = 0; k < kNumOpcodes; ++k) {
    Opcode op = Opcode(k);
    bool exempt = std::find(std::begin(noValue), std::end(noValue), op) != std::end(noValue);
    EXPECT_EQ(verify::hasModel(op), !exempt) << opInfo(op).name;
  }
}

// A small cross-check of every combination in the table (oriverify
// --crosscheck runs 10,000 inputs each): no mismatches, all combinations run.
TEST(Z3Model, CrossCheckAgreesOnEveryCombination) {
  verify::CrossCheckOptions opts;
  opts.samples = 60;
  opts.seed = 20240601;
  verify::CrossCheckReport r = verify::crossCheck(opts);
  EXPECT_GT(r.combinations.size(), 700u);
  for (const auto &c : r.combinations)
    EXPECT_GE(c.samples, 60u) << c.name;
  EXPECT_EQ(r.mismatchCount, 0u);
  for (const std::string &m : r.mismatches)
    ADD_FAILURE() << m;
}

TEST(Z3Model, CrossCheckSelectsByName) {
  verify::CrossCheckOptions opts;
  opts.samples = 10;
  opts.only = "ISETP.*.U64.XOR";
  verify::CrossCheckReport r = verify::crossCheck(opts);
  EXPECT_EQ(r.combinations.size(), 6u); // LT EQ LE GT NE GE
  opts.only = "no such opcode";
  EXPECT_TRUE(verify::crossCheck(opts).combinations.empty());
}

} // namespace
} // namespace ori
