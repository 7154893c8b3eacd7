// The MMA forms (ir/mma.h): register counts of the forms the PTX ISA's fragment tables give,
// and layouts that place every element of every matrix exactly once.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "ir/mma.h"

namespace ori {
namespace {

MmaForm formOf(Opcode op, std::initializer_list<Mod> mods) {
  ModSet s;
  for (Mod m : mods)
    s.set(m);
  auto f = mmaForm(op, s);
  if (const std::string *why = std::get_if<std::string>(&f))
    ADD_FAILURE() << *why;
  return std::get<MmaForm>(f);
}

// Register counts from the tables of PTX ISA 9.0, 9.7.14.5.1-13 (the "Fragment" columns).
TEST(MmaForm, RegisterCountsAreTheIsas) {
  struct Case {
    Opcode op;
    std::initializer_list<Mod> mods;
    unsigned a, b, c, d;
  };
  const Case cases[] = {
      {Opcode::HMMA, {Mod::MMA884, Mod::F16}, 2, 2, 4, 4}, // 9.7.14.5.1: f16x2 x2, x2, x4
      {Opcode::HMMA, {Mod::MMA884, Mod::F32, Mod::CF16}, 2, 2, 4, 8},     // .f32 D: eight .f32
      {Opcode::HMMA, {Mod::MMA1688, Mod::F16}, 2, 1, 2, 2},               // 9.7.14.5.7
      {Opcode::HMMA, {Mod::MMA1688, Mod::F32, Mod::A_TF32}, 4, 2, 4, 4},  // four .b32 A, two B
      {Opcode::HMMA, {Mod::MMA1684, Mod::F32, Mod::A_TF32}, 2, 1, 4, 4},  // 9.7.14.5.6
      {Opcode::HMMA, {Mod::MMA16816, Mod::F32, Mod::A_BF16}, 4, 2, 4, 4}, // 9.7.14.5.8
      {Opcode::HMMA, {Mod::MMA16816, Mod::F16, Mod::A_E4M3, Mod::B_E5M2}, 2, 1, 2, 2}, // 9.7.14.5.9
      {Opcode::HMMA,
       {Mod::MMA16832, Mod::F32, Mod::A_E5M2, Mod::B_E5M2},
       4,
       2,
       4,
       4},                                       // 9.7.14.5.10
      {Opcode::DMMA, {Mod::MMA884}, 1, 1, 2, 2}, // 9.7.14.5.2
      {Opcode::DMMA, {Mod::MMA1684}, 2, 1, 4, 4},
      {Opcode::DMMA, {Mod::MMA1688}, 4, 2, 4, 4},
      {Opcode::DMMA, {Mod::MMA16816}, 8, 4, 4, 4},
      {Opcode::IMMA, {Mod::MMA8816, Mod::A_S8, Mod::B_U8}, 1, 1, 2, 2},  // 9.7.14.5.3
      {Opcode::IMMA, {Mod::MMA16816, Mod::A_U8, Mod::B_U8}, 2, 1, 4, 4}, // 9.7.14.5.9
      {Opcode::IMMA, {Mod::MMA16832, Mod::A_S8, Mod::B_S8}, 4, 2, 4, 4}, // 9.7.14.5.10
      {Opcode::IMMA, {Mod::MMA8832, Mod::A_S4, Mod::B_S4}, 1, 1, 2, 2},  // 9.7.14.5.4
      {Opcode::IMMA, {Mod::MMA16832, Mod::A_U4, Mod::B_S4}, 2, 1, 4, 4},
      {Opcode::IMMA, {Mod::MMA16864, Mod::A_S4, Mod::B_U4}, 4, 2, 4, 4}, // 9.7.14.5.11
      {Opcode::BMMA, {Mod::MMA88128, Mod::XOR}, 1, 1, 2, 2},             // 9.7.14.5.5
      {Opcode::BMMA, {Mod::MMA168128, Mod::AND}, 2, 1, 4, 4},            // 9.7.14.5.12
      {Opcode::BMMA, {Mod::MMA168256, Mod::XOR}, 4, 2, 4, 4},            // 9.7.14.5.13
  };
  for (const Case &c : cases) {
    MmaForm f = formOf(c.op, c.mods);
    SCOPED_TRACE(mmaShapeText(f));
    EXPECT_EQ(std::tuple(f.aRegs, f.bRegs, f.cRegs, f.dRegs), std::tuple(c.a, c.b, c.c, c.d));
  }
}

// Every element of A (m x k), B (k x n), C and D (m x n) of every product is in exactly one
// lane's fragment, for every form sm_90 has.
TEST(MmaForm, LayoutsPlaceEveryElementOnce) {
  size_t forms = 0;
  for (Opcode op : {Opcode::HMMA, Opcode::IMMA, Opcode::DMMA, Opcode::BMMA})
    for (const ModSet &mods : mmaForms(op)) {
      const MmaForm f = std::get<MmaForm>(mmaForm(op, mods));
      ++forms;
      for (MmaOperand which : {MmaOperand::A, MmaOperand::B, MmaOperand::C, MmaOperand::D}) {
        const unsigned rows = which == MmaOperand::B ? f.k : f.m,
                       cols = which == MmaOperand::A ? f.k : f.n;
        std::set<std::tuple<unsigned, unsigned, unsigned>> seen;
        for (unsigned lane = 0; lane < 32; ++lane)
          for (unsigned i = 0; i < mmaElems(f, which); ++i) {
            MmaCoord c = mmaCoord(f, which, lane, i);
            EXPECT_LT(c.row, rows);
            EXPECT_LT(c.col, cols);
            EXPECT_TRUE(seen.insert({c.q, c.row, c.col}).second)
                << opInfo(op).name << "." << mmaShapeText(f) << " operand " << int(which)
                << " lane " << lane << " i " << i;
          }
        EXPECT_EQ(seen.size(), size_t(f.quad ? 4 : 1) * rows * cols)
            << opInfo(op).name << "." << mmaShapeText(f);
      }
    }
  EXPECT_EQ(forms, 108u);
}

// ptxas 13.0 rejects these for sm_90, and so does mmaForm.
TEST(MmaForm, FormsSm90DoesNotHaveAreRejected) {
  auto bad = [](Opcode op, std::initializer_list<Mod> mods) {
    ModSet s;
    for (Mod m : mods)
      s.set(m);
    return std::holds_alternative<std::string>(mmaForm(op, s));
  };
  EXPECT_TRUE(bad(Opcode::HMMA,
                  {Mod::MMA884, Mod::F16, Mod::CF16})); // .CF16 with a .f16 D: C is .f16 anyway
  EXPECT_TRUE(bad(Opcode::HMMA, {Mod::MMA16816, Mod::F32, Mod::CF16}));  // mixed types: m8n8k4 only
  EXPECT_TRUE(bad(Opcode::HMMA, {Mod::MMA1688, Mod::F16, Mod::A_BF16})); // .bf16 into .f16
  EXPECT_TRUE(bad(Opcode::HMMA, {Mod::MMA1684, Mod::F32}));              // .f16 m16n8k4
  EXPECT_TRUE(bad(Opcode::HMMA, {Mod::MMA16832, Mod::F32, Mod::A_BF16}));
  EXPECT_TRUE(bad(Opcode::HMMA, {Mod::MMA884, Mod::F32, Mod::A_TF32}));
  EXPECT_TRUE(bad(Opcode::IMMA, {Mod::MMA16864, Mod::A_S8, Mod::B_S8})); // 8-bit m16n8k64
  EXPECT_TRUE(bad(Opcode::IMMA, {Mod::MMA16832, Mod::A_S8, Mod::B_S4})); // mixed widths
  EXPECT_TRUE(bad(Opcode::BMMA, {Mod::MMA168256, Mod::AND, Mod::XOR}));
}

} // namespace
} // namespace ori
