// Integer constant expressions (PTX ISA 9.0, 4.6; ptx/parser_expr.cpp) where a number goes: each
// row's value was checked against ptxas 13.0, whose SASS for `mov.u32 %r1, EXPR;` is the SASS
// for `mov.u32 %r1, VALUE;` (the value's low 32 bits; the rows give the 64-bit one).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "ptx/ast.h"

namespace {

const std::string kHead = ".version 9.0\n.target sm_90\n.address_size 64\n";

// The value of the first operand after the destination of the kernel's one instruction.
ori::ptx::ParseResult parseMov(const std::string &expr) {
  return ori::ptx::parse(kHead + ".visible .entry k()\n{\n  .reg .b64 %rd1;\n  mov.u64 %rd1, " +
                             expr + ";\n}\n",
                         "e.ptx");
}

int64_t valueOf(const std::string &expr) {
  ori::ptx::ParseResult r = parseMov(expr);
  if (!r.module) {
    ADD_FAILURE() << expr << ": " << r.error->str();
    return 0;
  }
  const ori::ptx::Instruction &in = r.module->items.back().function.body.back().instr;
  EXPECT_EQ(in.operands.size(), 2u) << expr;
  EXPECT_EQ(int(in.operands.at(1).kind), int(ori::ptx::Operand::Kind::Int)) << expr;
  return in.operands.at(1).ival;
}

TEST(PtxConstantExpr, ValuesAsPtxasComputesThem) {
  EXPECT_EQ(valueOf("(1<<4)-1"), 15);
  EXPECT_EQ(valueOf("4*8"), 32);
  EXPECT_EQ(valueOf("2+3*4"), 14);
  EXPECT_EQ(valueOf("(2+3)*4"), 20);
  EXPECT_EQ(valueOf("1+2<<1"), 6); // + binds tighter than <<
  EXPECT_EQ(valueOf("6&3==2"), 0); // == binds tighter than &
  EXPECT_EQ(valueOf("-7/2"), -3);  // signed division truncates
  EXPECT_EQ(valueOf("(-7)/(-2)"), 3);
  EXPECT_EQ(valueOf("-7U/2"), 0x7FFFFFFFFFFFFFFC);                // .u64: unsigned
  EXPECT_EQ(valueOf("0xFFFFFFFFFFFFFFF9/2"), 0x7FFFFFFFFFFFFFFC); // too big for .s64: .u64
  EXPECT_EQ(valueOf("-0x8000000000000000/-1"), 0); // 2^63 is .u64: an unsigned division by 2^64-1
  EXPECT_EQ(valueOf("10 % 3"), 1);
  EXPECT_EQ(valueOf("(-7)%(3)"), 0); // ptxas: the unsigned remainder of 2^64-7
  EXPECT_EQ(valueOf("(-8)%(3)"), 2);
  EXPECT_EQ(valueOf("(7)%(-3)"), 7);
  EXPECT_EQ(valueOf("-8>>1"), -4);                                 // arithmetic on .s64
  EXPECT_EQ(valueOf("0xFFFFFFFFFFFFFFF8>>1"), 0x7FFFFFFFFFFFFFFC); // logical on .u64
  EXPECT_EQ(valueOf("1<<63>>62"), -2);
  EXPECT_EQ(valueOf("(.u64)-1>>60"), 15);
  EXPECT_EQ(valueOf("(.s64)0xFFFFFFFFFFFFFFFF>>60"), -1);
  EXPECT_EQ(valueOf("1<<64"), 1); // the amount mod 64
  EXPECT_EQ(valueOf("1<<65"), 2);
  EXPECT_EQ(valueOf("8>>-1"), 0);
  EXPECT_EQ(valueOf("1<2"), 1);
  EXPECT_EQ(valueOf("-1<1U"), 0); // unsigned comparison
  EXPECT_EQ(valueOf("5<=5"), 1);
  EXPECT_EQ(valueOf("5>=6"), 0);
  EXPECT_EQ(valueOf("2==2"), 1);
  EXPECT_EQ(valueOf("2!=2"), 0);
  EXPECT_EQ(valueOf("!5"), 0);
  EXPECT_EQ(valueOf("~0"), -1);
  EXPECT_EQ(valueOf("+5"), 5);
  EXPECT_EQ(valueOf("6&3"), 2);
  EXPECT_EQ(valueOf("6|3"), 7);
  EXPECT_EQ(valueOf("6^3"), 5);
  EXPECT_EQ(valueOf("1&&0"), 0);
  EXPECT_EQ(valueOf("1||0"), 1);
  EXPECT_EQ(valueOf("3?4:5"), 4);
  EXPECT_EQ(valueOf("1?2:3?4:5"), 2);
  EXPECT_EQ(valueOf("0x7FFFFFFFFFFFFFFF+1>>63"), -1);
  EXPECT_EQ(valueOf("~0>>60"), 15);                           // ISA 4.6.2: `~` gives a .u64
  EXPECT_EQ(valueOf("((-2) % (-1))>>1"), 0x7FFFFFFFFFFFFFFF); // `%` gives a .u64
  EXPECT_EQ(valueOf("(-8&-1)>>1"), -4);                       // & | ^ keep .s64 operands signed
  EXPECT_EQ(valueOf("(-8|0)>>1"), -4);
  EXPECT_EQ(valueOf("(-8^0)>>1"), -4);
  EXPECT_EQ(valueOf("(-(1U))>>1"), 0x7FFFFFFFFFFFFFFF); // unary minus keeps .u64
  EXPECT_EQ(valueOf("-8>>1U"), -4);                     // the shift has the first operand's type
  EXPECT_EQ(valueOf("(1<2)-2>>1"), -1);                 // a comparison gives an .s64
  // INT64_MIN / -1: ptxas 13.0 dies of SIGFPE; the ISA says evaluation is fully defined, we wrap.
  EXPECT_EQ(valueOf("(-0x7FFFFFFFFFFFFFFF-1)/(-1)"), INT64_MIN);
}

// The binary64 bits of a floating-point constant expression (ISA 4.6.3: .f64 operands).
uint64_t bitsOf(const std::string &expr) {
  ori::ptx::ParseResult r = parseMov(expr);
  if (!r.module) {
    ADD_FAILURE() << expr << ": " << r.error->str();
    return 0;
  }
  const ori::ptx::Operand &o = r.module->items.back().function.body.back().instr.operands.at(1);
  EXPECT_EQ(int(o.kind), int(ori::ptx::Operand::Kind::Float)) << expr;
  EXPECT_FALSE(o.floatIsF32) << expr;
  return uint64_t(o.ival);
}

// Each value checked against ptxas 13.0 the same way (`mov.f64 %fd1, EXPR` against the 0d value).
TEST(PtxConstantExpr, FloatValuesAsPtxasComputesThem) {
  EXPECT_EQ(bitsOf("1.5*2.0"), 0x4008000000000000u);       // 3.0
  EXPECT_EQ(bitsOf("(1.5+0.5)*2.0"), 0x4010000000000000u); // 4.0
  EXPECT_EQ(bitsOf("1.0/3.0"), 0x3FD5555555555555u);       // rounded to nearest
  EXPECT_EQ(bitsOf("0d3FF8000000000000*0d4000000000000000"), 0x4008000000000000u);
  EXPECT_EQ(bitsOf("-(1.5)"), 0xBFF8000000000000u);
  EXPECT_EQ(bitsOf("+1.5"), 0x3FF8000000000000u);
  EXPECT_EQ(bitsOf("-(0.0)"), 0x8000000000000000u); // the sign flips
  EXPECT_EQ(bitsOf("0.0-0.0"), 0x0000000000000000u);
  EXPECT_EQ(bitsOf("1e308*10.0"), 0x7FF0000000000000u); // overflow: +inf
  EXPECT_EQ(bitsOf("-1.5*2.0"), 0xC008000000000000u);
  EXPECT_EQ(bitsOf("1?1.5:2.5"), 0x3FF8000000000000u); // ISA 4.6.2 (ptxas 13.0 rejects it)
  EXPECT_EQ(valueOf("1.5<2.0"), 1);                    // comparisons give an .s64
  EXPECT_EQ(valueOf("1.5==1.5"), 1);
  EXPECT_EQ(valueOf("1.5!=1.5"), 0);
  EXPECT_EQ(valueOf("1.5>=2.0"), 0);
  EXPECT_EQ(valueOf("2.0<=2.0"), 1);
  EXPECT_EQ(valueOf("(1e308*10.0-1e308*10.0)==(1e308*10.0-1e308*10.0)"), 0); // NaN
  EXPECT_EQ(valueOf("(1e308*10.0-1e308*10.0)!=(1e308*10.0-1e308*10.0)"), 1);
  EXPECT_EQ(valueOf("(1e308*10.0-1e308*10.0)<=0.0"), 0);
}

TEST(PtxConstantExpr, ErrorsAtTheirToken) {
  // line 7 is the mov; "  mov.u64 %rd1, " puts the expression at column 17
  EXPECT_EQ(parseMov("5/0").error->str(),
            "e.ptx:7:18: error: division by zero in a constant expression");
  EXPECT_EQ(parseMov("5 % 0").error->str(),
            "e.ptx:7:19: error: division by zero in a constant expression");
  EXPECT_EQ(parseMov("1.5*2").error->str(), "e.ptx:7:20: error: constant expression type mismatch: "
                                            "'*' has an integer and a floating-point operand");
  EXPECT_EQ(parseMov("2*1.5").error->str(), "e.ptx:7:18: error: constant expression type mismatch: "
                                            "'*' has an integer and a floating-point operand");
  EXPECT_EQ(parseMov("1.0/0.0").error->str(),
            "e.ptx:7:20: error: division by zero in a constant expression");
  EXPECT_EQ(parseMov("1.0/-0.0").error->str(),
            "e.ptx:7:20: error: division by zero in a constant expression");
  EXPECT_EQ(parseMov("1.5 % 2.0").error->str(),
            "e.ptx:7:21: error: '%' needs integer operands in a constant expression");
  EXPECT_EQ(parseMov("1.5<<1.0").error->str(),
            "e.ptx:7:20: error: '<<' needs integer operands in a constant expression");
  EXPECT_EQ(parseMov("~1.5").error->str(),
            "e.ptx:7:17: error: '~' needs an integer operand in a constant expression");
  EXPECT_EQ(parseMov("!1.5").error->str(),
            "e.ptx:7:17: error: '!' needs an integer operand in a constant expression");
  EXPECT_EQ(parseMov("(.s64)1.5").error->str(),
            "e.ptx:7:17: error: a cast in a constant expression needs an integer operand");
  EXPECT_EQ(parseMov("1.5?1:2").error->str(),
            "e.ptx:7:20: error: the condition of '?:' in a constant expression must be an integer");
  EXPECT_EQ(parseMov("1?1:2.0").error->str(),
            "e.ptx:7:20: error: constant expression type mismatch: '?:' has an integer and a "
            "floating-point branch");
  EXPECT_EQ(parseMov("0f3FC00000*0d4000000000000000").error->str(),
            "e.ptx:7:17: error: a 0f literal cannot be part of a constant expression (ptxas "
            "rejects it); write it as 0d");
  EXPECT_EQ(parseMov("2.0*0f3FC00000").error->str(),
            "e.ptx:7:21: error: a 0f literal cannot be part of a constant expression (ptxas "
            "rejects it); write it as 0d");
  EXPECT_EQ(parseMov("(1+2").error->str(),
            "e.ptx:7:21: error: expected ')' in the constant expression, found ';'");
  EXPECT_EQ(parseMov("1?2").error->str(),
            "e.ptx:7:20: error: expected ':' in the conditional expression, found ';'");
  EXPECT_EQ(parseMov("-%rd1").error->str(),
            "e.ptx:7:18: error: expected a number after '-', found '%rd1'");
  EXPECT_EQ(parseMov(std::string(200, '(') + "1" + std::string(200, ')')).error->message,
            "constant expression nested too deeply");
  EXPECT_EQ(parseMov(std::string(300, '-') + "1").error->message,
            "constant expression nested too deeply");
}

TEST(PtxConstantExpr, InInitializersAndCallListsStayLists) {
  ori::ptx::ParseResult r = ori::ptx::parse(
      kHead +
          ".global .u32 a[3] = {1+2, (1<<4)-1, -(2*3)};\n.func (.param .b32 r) f(.param .b32 "
          "x)\n{\n  ret;\n}\n"
          ".visible .entry k()\n{\n  .param .b32 y;\n  .param .b32 z;\n  call (z), f, (y);\n}\n",
      "i.ptx");
  ASSERT_TRUE(r.module) << r.error->str();
  const ori::ptx::Variable &a = r.module->items.at(0).variable;
  ASSERT_EQ(a.init.size(), 3u);
  EXPECT_EQ(a.init[0].ival, 3);
  EXPECT_EQ(a.init[1].ival, 15);
  EXPECT_EQ(a.init[2].ival, -6);
  const ori::ptx::Instruction &call = r.module->items.back().function.body.back().instr;
  EXPECT_EQ(int(call.operands.at(0).kind), int(ori::ptx::Operand::Kind::Call));
  EXPECT_EQ(int(call.operands.at(2).kind), int(ori::ptx::Operand::Kind::Call));
}

} // namespace
