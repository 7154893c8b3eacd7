// Malformed PTX, one input per row, with the exact `file:line:col: error:
// message` ori::ptx::parse must produce. Lines and columns are 1-based and were
// counted by hand at the token a user has to fix (an unclosed `{` is reported
// at the `{`).
//
// Most inputs are a module header (3 lines) plus one kernel:
// kHead ".entry f()\n{\n" BODY "}\n", so the first body line is line 6.
#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "ptx/ast.h"

namespace ori::ptx {
namespace {

using namespace std::string_literals;

struct ErrorCase {
  const char *name; // GoogleTest parameter name
  std::string input;
  std::string expected; // Diagnostic::str()
};

void PrintTo(const ErrorCase &c, std::ostream *os) { *os << c.name; }

const std::string kHead = ".version 7.0\n.target sm_90\n.address_size 64\n";
std::string fn(const std::string &body) { return kHead + ".entry f()\n{\n" + body + "}\n"; }
constexpr const char *kFile = "bad.ptx";

std::vector<ErrorCase> errorCases() {
  return {
      // ------------------------------------------------------------ files and text
      {"EmptyFile", "", "bad.ptx:1:1: error: empty file"},
      {"OnlyComments", "  // nothing\n/* here */\n", "bad.ptx:1:1: error: empty file"},
      {"ControlByte", ".version 7.0\n.target sm_90\n\x01",
       "bad.ptx:3:1: error: input is not text: byte 0x01"},
      {"InvalidUtf8", ".version 7.0\n// caf\xe9\n",
       "bad.ptx:2:7: error: input is not text: byte 0xe9"},
      {"NulByte", fn("\tret;\0"s), "bad.ptx:6:6: error: input is not text: byte 0x00"},
      {"UnterminatedComment", ".version 7.0\n  /* abc\n\n",
       "bad.ptx:2:3: error: unterminated '/*' comment"},
      {"UnterminatedString", ".version 7.0\n.file 1 \"abc\n",
       "bad.ptx:2:9: error: unterminated string"},
      {"UnexpectedCharacter", fn("\tmov.u32 %r1, #;\n"),
       "bad.ptx:6:15: error: expected an operand, found '#'"},
      {"NonAsciiCharacterColumn", fn("\t/* \xc3\xa9t\xc3\xa9 */ mov.u32 %r1, \xc3\xa9;\n"),
       "bad.ptx:6:25: error: expected an operand, found '\xc3\xa9'"},

      // ------------------------------------------------------------ module directives
      {"NoVersion", ".target sm_90\n",
       "bad.ptx:1:1: error: expected '.version' directive, found '.target'"},
      {"VersionNotANumber", ".version 7\n",
       "bad.ptx:1:10: error: expected a version number such as 7.0 after '.version', found '7'"},
      {"DuplicateVersion", ".version 7.0\n.version 7.0\n",
       "bad.ptx:2:1: error: duplicate '.version' directive"},
      {"VersionUnknown", ".version 99.0\n",
       "bad.ptx:1:10: error: PTX ISA version 99.0 is not one this reader knows (1.0-1.5, 2.0-2.3, "
       "3.0-3.2, "
       "4.0-4.3, 5.0-5.1, 6.0-6.5, 7.0-7.8, 8.0-8.8 and 9.0)"},
      {"VersionBetweenKnownOnes", ".version 6.6\n",
       "bad.ptx:1:10: error: PTX ISA version 6.6 is not one this reader knows (1.0-1.5, 2.0-2.3, "
       "3.0-3.2, "
       "4.0-4.3, 5.0-5.1, 6.0-6.5, 7.0-7.8, 8.0-8.8 and 9.0)"},
      {"TargetUnknown", ".version 9.0\n.target sm_91\n",
       "bad.ptx:2:9: error: target 'sm_91' is not one this reader knows (sm_ or compute_ followed "
       "by 10, 11, "
       "12, 13, 20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, "
       "90(a), "
       "100(a,f), 101(a,f), 103(a,f), 110(a,f), 120(a,f), 121(a,f), then texmode_unified, "
       "texmode_independent, debug, map_f64_to_f32)"},
      {"TargetSuffixNotTaken", ".version 9.0\n.target sm_90f\n",
       "bad.ptx:2:9: error: target 'sm_90f' is not one this reader knows (sm_ or compute_ followed "
       "by 10, 11, "
       "12, 13, 20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, "
       "90(a), "
       "100(a,f), 101(a,f), 103(a,f), 110(a,f), 120(a,f), 121(a,f), then texmode_unified, "
       "texmode_independent, debug, map_f64_to_f32)"},
      {"TargetTwoArchitectures", ".version 9.0\n.target sm_90, sm_80\n",
       "bad.ptx:2:16: error: second target architecture 'sm_80' in '.target'"},
      {"UnknownInstruction", fn("\tfrobnicate.s32 %r1, %r2;\n"),
       "bad.ptx:6:2: error: 'frobnicate' is not a PTX ISA 9.0 instruction"},
      {"InstructionNameIsCaseSensitive", fn("\tADD.s32 %r1, %r2, %r3;\n"),
       "bad.ptx:6:2: error: 'ADD' is not a PTX ISA 9.0 instruction"},
      {"TargetMissing", ".version 7.0\n.target\n",
       "bad.ptx:3:1: error: expected a target name such as sm_90, found end of file"},
      {"AddressSize48", ".version 7.0\n.address_size 48\n",
       "bad.ptx:2:15: error: address size must be 32 or 64, found 48"},
      {"UnknownModuleDirective", kHead + ".foo bar;\n",
       "bad.ptx:4:1: error: unknown directive '.foo' at module level"},
      {"InstructionAtModuleLevel", kHead + "ret;\n",
       "bad.ptx:4:1: error: expected a directive at module level, found 'ret'"},
      {"StrayCloseBraceAtModuleLevel", kHead + "}\n", "bad.ptx:4:1: error: unmatched '}'"},
      {"ExtraCloseBraceAfterFunction", fn("\tret;\n") + "}\n", "bad.ptx:8:1: error: unmatched '}'"},
      {"LocWithoutNumbers", ".version 7.0\n.loc\n",
       "bad.ptx:3:1: error: expected a file number after '.loc', found end of file"},
      {"LocUnknownAttribute", fn("\t.loc 1 2 3, discriminator 4\n\tret;\n"),
       "bad.ptx:6:14: error: expected 'function_name' or 'inlined_at', found 'discriminator'"},
      {"FileWithoutSize", ".version 7.0\n.file 1 \"a.cu\", 5\n",
       "bad.ptx:3:1: error: expected ',' before the file size, found end of file"},
      {"SectionWithoutBrace", kHead + ".section .debug_info\n.b8 1\n",
       "bad.ptx:5:1: error: expected '{' after the section name, found '.b8'"},
      {"SectionNotClosed", kHead + ".section .debug_info {\n.b8 1\n{ .b8 2 }\n",
       "bad.ptx:4:22: error: unexpected end of file, section '.debug_info' is not closed"},

      // ------------------------------------------------------------ declarations
      {"RangeZero", fn("\t.reg .b32 %r<0>;\n"),
       "bad.ptx:6:15: error: register range must be between 1 and 1048576, found 0"},
      {"RangeTooLarge", fn("\t.reg .b32 %r<1048577>;\n"),
       "bad.ptx:6:15: error: register range must be between 1 and 1048576, found 1048577"},
      {"RangeNotClosed", fn("\t.reg .b32 %r<4;\n"),
       "bad.ptx:6:16: error: expected '>' after the register count, found ';'"},
      {"UnknownDirectiveLongName", fn("\t." + std::string(100, 'x') + ";\n"),
       "bad.ptx:6:2: error: unknown directive '." + std::string(36, 'x') +
           "...' in a function body"},
      {"DeclarationWithoutSemicolon", fn("\t.reg .b32 %r<4>\n\tret;\n"),
       "bad.ptx:7:2: error: expected ',' or ';' after the declaration, found 'ret'"},
      {"LongHeadWithSeveralNames", kHead + ".global " + std::string(300, ' ') + ".u32 a, b;\n",
       "bad.ptx:4:317: error: a declaration of several names needs a head of at most 256 bytes"},
      {"MissingType", kHead + ".global x;\n",
       "bad.ptx:4:9: error: expected a type in the declaration, found 'x'"},
      {"TwoTypes", kHead + ".global .u32 .f32 x;\n",
       "bad.ptx:4:14: error: second type '.f32' in the declaration"},
      {"AlignNotPowerOfTwo", kHead + ".global .align 3 .b8 x[4];\n",
       "bad.ptx:4:16: error: alignment must be a power of two, found 3"},
      {"ArraySizeTooBig", kHead + ".global .b8 x[99999999999999999999];\n",
       "bad.ptx:4:15: error: integer literal '99999999999999999999' does not fit in 64 bits"},
      {"ArrayNotClosed", kHead + ".global .b8 x[4;\n",
       "bad.ptx:4:16: error: expected ']' after the array size, found ';'"},
      {"InitializerNotClosed", kHead + ".global .u32 x[2] = {1, 2\n",
       "bad.ptx:5:1: error: expected ',' or '}' in the initializer, found end of file"},
      {"InitializerExpressionIncomplete", kHead + ".global .u32 x = 1*;\n",
       "bad.ptx:4:20: error: expected a number in the constant expression, found ';'"},
      {"InitializerFloatExpression", kHead + ".global .f32 x = 1.5*2;\n",
       "bad.ptx:4:21: error: constant expression type mismatch: '*' has an integer and a "
       "floating-point operand"},
      {"InitializerEmptyBraces", kHead + ".global .u32 x[1] = {};\n",
       "bad.ptx:4:22: error: expected an initializer value, found '}'"},
      {"InitializerTooDeep",
       kHead + ".global .u32 x = " + std::string(65, '{') + "1" + std::string(65, '}') + ";\n",
       "bad.ptx:4:82: error: initializer braces nested too deeply"},
      {"GenericWithoutSymbol", kHead + ".global .u64 p = generic(1);\n",
       "bad.ptx:4:26: error: expected a symbol in 'generic(', found '1'"},

      // ------------------------------------------------------------ functions
      {"EntryWithoutName", kHead + ".entry (\n",
       "bad.ptx:4:8: error: expected a function name, found '('"},
      {"ParamWithoutName", kHead + ".entry f(.param .u32)\n{\n}\n",
       "bad.ptx:4:21: error: expected a name in the declaration, found ')'"},
      {"ParamWithoutSpace", kHead + ".entry f(.u32 a)\n{\n}\n",
       "bad.ptx:4:10: error: expected '.param' or '.reg' in the parameter list, found '.u32'"},
      {"ParamListNotClosed", kHead + ".entry f(.param .u32 a\n{\n}\n",
       "bad.ptx:5:1: error: expected ',' or ')' in the parameter list, found '{'"},
      {"MaxntidNotANumber", kHead + ".entry f() .maxntid 4, x\n{\n}\n",
       "bad.ptx:4:24: error: expected an integer in '.maxntid', found 'x'"},
      {"FunctionNotClosed", kHead + ".entry f()\n{\n\tmov.u32 %r1, 1;\n",
       "bad.ptx:5:1: error: unexpected end of file, function 'f' is not closed"},
      {"ScopeNotClosed", kHead + ".entry f()\n{\n\t{\n\tret;\n",
       "bad.ptx:6:2: error: unexpected end of file, '{' is not closed"},
      {"InnerScopeNotClosed", kHead + ".entry f()\n{\n\t{\n\t{\n\t}\n\tret;\n",
       "bad.ptx:6:2: error: unexpected end of file, '{' is not closed"},
      {"ScopesTooDeep", kHead + ".entry f()\n{\n" + std::string(257, '{') + "\n",
       "bad.ptx:6:257: error: scopes nested more than 256 deep"},
      {"UnknownBodyDirective", fn("\t.foo;\n"),
       "bad.ptx:6:2: error: unknown directive '.foo' in a function body"},
      {"CallPrototypeWithoutLabel", fn("\t.callprototype _ (.param .b32 _);\n"),
       "bad.ptx:6:2: error: '.callprototype' needs a label: 'name: .callprototype ...'"},
      {"BranchTargetsEmpty", fn("ts: .branchtargets ;\n"),
       "bad.ptx:6:20: error: expected a label in '.branchtargets', found ';'"},
      {"CallPrototypeWithoutUnderscore", fn("p: .callprototype (.param .b32 _) (.param .b32 _);\n"),
       "bad.ptx:6:35: error: expected '_' in the call prototype, found '('"},

      // ------------------------------------------------------------ instructions
      {"MissingSemicolon", fn("\tadd.s32 %r1, %r2, %r3\n\tret;\n"),
       "bad.ptx:7:2: error: expected ',' or ';' after the operand, found 'ret'"},
      {"NoSemicolonBeforeBrace", fn("\tret\n"),
       "bad.ptx:7:1: error: expected ';' after the instruction, found '}'"},
      {"EmptyOperand", fn("\tadd.s32 %r1, , %r2;\n"),
       "bad.ptx:6:15: error: expected an operand, found ','"},
      {"TrailingComma", fn("\tadd.s32 %r1, %r2,;\n"),
       "bad.ptx:6:19: error: expected an operand, found ';'"},
      {"AddressNotClosed", fn("\tld.u32 %r1, [%rd1;\n"),
       "bad.ptx:6:19: error: expected ']' to close the address, found ';'"},
      {"AddressWithoutBase", fn("\tld.u32 %r1, [+4];\n"),
       "bad.ptx:6:15: error: expected a register, symbol or integer in the address, found '+'"},
      {"AddressRegisterOffset", fn("\tld.u32 %r1, [%rd1+%r2];\n"),
       "bad.ptx:6:20: error: expected an integer offset, found '%r2'"},
      {"GuardNotAName", fn("\t@1 bra L;\n"),
       "bad.ptx:6:3: error: expected a predicate after '@', found '1'"},
      {"GuardWithoutInstruction", fn("\t@%p1;\n"),
       "bad.ptx:6:6: error: expected an opcode, found ';'"},
      {"NegationWithoutPredicate", fn("\tselp.b32 %r1, 1, 0, !;\n"),
       "bad.ptx:6:23: error: expected a predicate after '!', found ';'"},
      {"PairWithoutSecond", fn("\tsetp.eq.s32 %p1|, %r1, 0;\n"),
       "bad.ptx:6:18: error: expected a predicate after '|', found ','"},
      {"VectorNotClosed", fn("\tmov.b64 %rd1, {%r1, %r2;\n"),
       "bad.ptx:6:25: error: expected ',' or '}' in the vector operand, found ';'"},
      {"NestedVector", fn("\tmov.b64 %rd1, {{%r1}};\n"),
       "bad.ptx:6:17: error: expected a vector element, found '{'"},
      {"CallListNotClosed", fn("\tcall.uni g, (%r1;\n"),
       "bad.ptx:6:18: error: expected ',' or ')' in the argument list, found ';'"},
      {"IntegerTooBig", fn("\tmov.u64 %rd1, 99999999999999999999;\n"),
       "bad.ptx:6:16: error: integer literal '99999999999999999999' does not fit in 64 bits"},
      {"HexTooBig", fn("\tmov.u64 %rd1, 0x10000000000000000;\n"),
       "bad.ptx:6:16: error: integer literal '0x10000000000000000' does not fit in 64 bits"},
      {"ShortFloatBits", fn("\tmov.f32 %f1, 0f3F80;\n"),
       "bad.ptx:6:15: error: malformed float literal '0f3F80': 0f needs 8 hex digits"},
      {"ShortDoubleBits", fn("\tmov.f64 %fd1, 0d3FF0;\n"),
       "bad.ptx:6:16: error: malformed float literal '0d3FF0': 0d needs 16 hex digits"},
      {"BadOctal", fn("\tmov.u32 %r1, 09;\n"), "bad.ptx:6:15: error: malformed octal literal '09'"},
      {"BadHex", fn("\tmov.u32 %r1, 0xg;\n"),
       "bad.ptx:6:15: error: malformed integer literal '0xg'"},
      {"LettersAfterNumber", fn("\tmov.u32 %r1, 12abc;\n"),
       "bad.ptx:6:15: error: malformed integer literal '12abc'"},
      {"FloatOutOfRange", fn("\tmov.f64 %fd1, 1e999;\n"),
       "bad.ptx:6:16: error: float literal '1e999' is out of range"},
      {"MinusWithoutNumber", fn("\tadd.s32 %r1, %r2, -%r3;\n"),
       "bad.ptx:6:21: error: expected a number after '-', found '%r3'"},
      {"SpaceBeforeModifier", fn("\tld .global.u32 %r1, [%rd1];\n"),
       "bad.ptx:6:5: error: expected ';' after the instruction, found '.global'"},
      {"DirectiveAsOperand", fn("\tld.u32 %r1, .global;\n"),
       "bad.ptx:6:14: error: expected an operand, found '.global'"},
  };
}

class PtxParseError : public testing::TestWithParam<ErrorCase> {};

TEST_P(PtxParseError, ReportsExactDiagnostic) {
  const ErrorCase &c = GetParam();
  ParseResult r = parse(c.input, kFile);
  ASSERT_FALSE(r.module.has_value()) << "parsed without error";
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->str(), c.expected);
}

INSTANTIATE_TEST_SUITE_P(Table, PtxParseError, testing::ValuesIn(errorCases()),
                         [](const testing::TestParamInfo<ErrorCase> &i) { return i.param.name; });

TEST(PtxParseErrorTable, HasUniqueNamesAndEnoughRows) {
  std::set<std::string> names;
  for (const ErrorCase &c : errorCases())
    EXPECT_TRUE(names.insert(c.name).second) << c.name;
  EXPECT_GE(names.size(), 25u);
}

// Every prefix of a valid module is either valid or gets a positioned error:
// truncation never crashes and never yields an error without a line.
TEST(PtxParseErrorTruncation, EveryPrefixHasAPositionedDiagnostic) {
  const std::string full = kHead +
                           ".global .align 4 .b8 g[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
                           ".visible .entry k(.param .u64 p, .param .align 8 .b8 s[16])\n"
                           ".maxntid 128, 1, 1\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n"
                           "\tld.param.u32 %r1, [s+8];\n\t{\n\t.reg .b32 t;\n"
                           "\tmov.b32 t, 0f3F800000;\n\t}\n"
                           "\tsetp.eq.s32 %p1|%p0, %r1, -1;\n\t@!%p1 bra $L__BB0_2;\n"
                           "\tst.global.v2.u32 [%r1+-8], {%r1, _};\n$L__BB0_2:\n\tret;\n}\n";
  ASSERT_TRUE(parse(full, kFile).module.has_value()) << parse(full, kFile).error->str();
  for (size_t n = 0; n < full.size(); ++n) {
    ParseResult r = parse(std::string_view(full).substr(0, n), kFile);
    if (r.module)
      continue;
    ASSERT_TRUE(r.error.has_value()) << n;
    EXPECT_GT(r.error->line, 0u) << "prefix of " << n << " bytes: " << r.error->str();
    EXPECT_GT(r.error->col, 0u) << "prefix of " << n << " bytes: " << r.error->str();
  }
}

} // namespace
} // namespace ori::ptx
