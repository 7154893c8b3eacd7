// Every error the .ori parser can report, one malformed input per row, with
// the exact `file:line:col: error: message` it must produce
// (docs/ori-format.md, "Errors"). Lines and columns are 1-based and were
// counted by hand in the inputs below, at the token a user has to fix.
//
// Most inputs are a body wrapped by fn(): ".entry f()\n{\n" BODY "}\n", so the
// first body line is line 3 of the file.
#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "ir/ori.h"

namespace ori {
namespace {

using namespace std::string_literals;

struct ErrorCase {
  const char *name; // GoogleTest parameter name
  std::string input;
  std::string expected; // Diagnostic::str()
};

// Failure messages name the row instead of dumping its bytes.
void PrintTo(const ErrorCase &c, std::ostream *os) { *os << c.name; }

std::string fn(const std::string &body) { return ".entry f()\n{\n" + body + "}\n"; }

// The file name every case is parsed as.
constexpr const char *kFile = "bad.ori";

std::vector<ErrorCase> errorCases() {
  return {
      // ------------------------------------------------------------ mnemonics and modifiers
      {"UnknownMnemonic", fn("  FOO R1, R2\n"), "bad.ori:3:3: error: unknown mnemonic 'FOO'"},
      {"LowercaseMnemonic", fn("  exit\n"), "bad.ori:3:3: error: unknown mnemonic 'exit'"},
      {"UnknownModifier", fn("  IADD3.Q R1, R2, R3, R4\n  EXIT\n"),
       "bad.ori:3:8: error: unknown modifier '.Q' for IADD3"},
      {"ModifierOfAnotherOpcode", fn("  MOV.GE R1, R2\n  EXIT\n"),
       "bad.ori:3:6: error: unknown modifier '.GE' for MOV"},
      {"EmptyModifier", fn("  EXIT.\n"), "bad.ori:3:7: error: unknown modifier '.' for EXIT"},
      {"ConflictingModifiers", fn("  ISETP.GE.LT.AND P0, PT, R1, R2, PT\n  EXIT\n"),
       "bad.ori:3:11: error: modifiers '.GE' and '.LT' of ISETP exclude each other"},
      {"ConflictingRounding", fn("  FADD.RN.RZ R1, R2, R3\n  EXIT\n"),
       "bad.ori:3:10: error: modifiers '.RN' and '.RZ' of FADD exclude each other"},
      {"RepeatedModifier", fn("  LDG.E.E R1, [R2]\n  EXIT\n"),
       "bad.ori:3:8: error: modifier '.E' is repeated"},

      // ------------------------------------------------------------ operand counts
      {"TooManyOperands", fn("  MOV R1, R2, R3\n  EXIT\n"),
       "bad.ori:3:15: error: too many operands: MOV takes at most 2"},
      {"OperandOnExit", fn("  EXIT R1\n"),
       "bad.ori:3:8: error: too many operands: EXIT takes at most 0"},
      {"TooFewOperands", fn("  IADD3 R1, R2, R3\n  EXIT\n"),
       "bad.ori:3:19: error: IADD3 takes 4 operands, got 3"},
      {"NoOperands", fn("  MOV\n  EXIT\n"), "bad.ori:3:6: error: MOV takes 2 operands, got 0"},
      {"BrxWithoutTable", fn("  BRX R1\n"), "bad.ori:3:9: error: BRX takes 2 operands, got 1"},
      {"AtomMissingRequiredSource", fn("  ATOM.E.ADD R1, [R2]\n  EXIT\n"),
       "bad.ori:3:22: error: ATOM takes 3 operands, got 2"},

      // ------------------------------------------------------------ shapes the slots cannot say
      // (checkShape)
      {"BarRedWithoutOperation", fn("  BAR.RED R1, 0x0, P0\n  EXIT\n"),
       "bad.ori:3:3: error: BAR.RED takes one operation: .POPC, .AND or .OR"},
      {"BarPopcWithoutRed", fn("  BAR.SYNC.POPC 0x0\n  EXIT\n"),
       "bad.ori:3:3: error: BAR takes .POPC, .AND and .OR only with .RED"},
      {"BarRedPopcIntoPredicate", fn("  BAR.RED.POPC P1, 0x0, P0\n  EXIT\n"),
       "bad.ori:3:16: error: the destination of BAR.RED.POPC is an R register (the count)"},
      {"BarRedAndIntoRegister", fn("  BAR.RED.AND R1, 0x0, P0\n  EXIT\n"),
       "bad.ori:3:15: error: the destination of BAR.RED.AND and BAR.RED.OR is a predicate"},
      {"BarRedPredicateNotLast", fn("  BAR.RED.OR P1, 0x0, P0, P2\n  EXIT\n"),
       "bad.ori:3:23: error: BAR.RED takes its predicate last"},
      {"BarRedLastNotPredicate", fn("  BAR.RED.POPC R1, 0x0, 0x40\n  EXIT\n"),
       "bad.ori:3:25: error: BAR.RED's last source must be a predicate"},
      {"BarRedWithoutPredicate", fn("  BAR.RED.POPC R1, 0x0\n  EXIT\n"),
       "bad.ori:3:3: error: BAR.RED takes a barrier, an optional thread count and a predicate"},
      {"BarSyncWithPredicate", fn("  BAR.SYNC 0x0, P0\n  EXIT\n"),
       "bad.ori:3:17: error: only BAR.RED takes a predicate"},
      {"ReduxTwoOperations", fn("  REDUX.SUM.MIN R1, R2\n  EXIT\n"),
       "bad.ori:3:3: error: REDUX takes one operation, not both .SUM and .MIN"},
      {"ReduxSignedSum", fn("  REDUX.SUM.S32 R1, R2\n  EXIT\n"),
       "bad.ori:3:3: error: REDUX takes .S32 only with .MIN or .MAX (the other operations do not "
       "depend on it)"},
      {"MatchWithoutSource", fn("  MATCH.ANY R1, PT\n  EXIT\n"),
       "bad.ori:3:19: error: MATCH takes 3 operands, got 2"},

      // ------------------------------------------------------------ operand kinds and files
      {"IntegerForLabel", fn("  BRA 0x10\n"),
       "bad.ori:3:7: error: operand 1 of BRA must be a label, got an integer"},
      {"FloatInIntegerSlot", fn("  IADD3 R1, R2, 1.5, RZ\n  EXIT\n"),
       "bad.ori:3:17: error: operand 3 of IADD3 must be a register, an integer or a constant bank, "
       "got a float"},
      {"PredicateInRegisterSlot", fn("  IADD3 R1, P0, R2, R3\n  EXIT\n"),
       "bad.ori:3:13: error: operand 2 of IADD3 must be a register, an integer or a constant bank, "
       "got P register"},
      {"RegisterAsGuard", fn("  @R0 EXIT\n  EXIT\n"),
       "bad.ori:3:4: error: a guard must be a predicate register such as P0"},
      {"BarrierInPredicateSlot", fn("  SEL R1, R2, R3, B0\n  EXIT\n"),
       "bad.ori:3:19: error: operand 4 of SEL must be a predicate, got B register"},
      {"RegisterInPredicateDest", fn("  ISETP.GE.AND R0, PT, R1, R2, PT\n  EXIT\n"),
       "bad.ori:3:16: error: destination 1 of ISETP must be a predicate, got R register"},
      {"MemoryInRegisterSlot", fn("  STG.E R1, [R2]\n  EXIT\n"),
       "bad.ori:3:9: error: operand 1 of STG must be a memory address, got R register"},
      {"NameWhereRegisterExpected", fn("  IADD3 R1, foo, R2, R3\n  EXIT\n"),
       "bad.ori:3:13: error: 'foo' is not a register, and this operand must be a register, an "
       "integer or a constant bank"},
      {"UnknownSpecialRegister", fn("  S2R R1, SR_FOO\n  EXIT\n"),
       "bad.ori:3:11: error: unknown special register 'SR_FOO'"},
      {"RegisterNumberTooLarge", fn("  MOV R1, R99999999999\n  EXIT\n"),
       "bad.ori:3:11: error: register number in 'R99999999999' is too large"},
      {"PredicateAddressRegister", fn("  LDG.E R1, [P0]\n  EXIT\n"),
       "bad.ori:3:14: error: an address register must be of file R or UR"},

      // ------------------------------------------------------------ negation and |..|
      {"BangOnNonPredicate", fn("  MOV R1, !R2\n  EXIT\n"),
       "bad.ori:3:11: error: '!' negates predicates only"},
      {"MinusOnPredicate", fn("  SEL R1, R2, R3, -P0\n  EXIT\n"),
       "bad.ori:3:19: error: a predicate is negated with '!'"},
      {"NegationNotAllowed", fn("  MOV R1, -R2\n  EXIT\n"),
       "bad.ori:3:11: error: MOV does not take negated operands"},
      {"NegatedConstantBankNotAllowed", fn("  MOV R1, -c[0x0][0x10]\n  EXIT\n"),
       "bad.ori:3:11: error: MOV does not take negated operands"},
      {"AbsNotAllowed", fn("  IADD3 R1, |R2|, R3, RZ\n  EXIT\n"),
       "bad.ori:3:13: error: IADD3 does not take '|..|' operands"},
      {"AbsOnPredicate", fn("  FSETP.GT.AND P0, PT, R1, R2, |P1|\n  EXIT\n"),
       "bad.ori:3:32: error: a predicate cannot take '|..|'"},
      {"UnclosedAbs", fn("  FADD R1, |R2, R3\n  EXIT\n"),
       "bad.ori:3:15: error: expected '|' to close '|', got ','"},
      {"NegatedDestination", fn("  MOV -R1, R2\n  EXIT\n"),
       "bad.ori:3:7: error: a destination cannot be negated"},
      {"NegatedPredicateDestination", fn("  ISETP.GE.AND !P0, PT, R1, R2, PT\n  EXIT\n"),
       "bad.ori:3:16: error: a destination cannot be negated"},
      {"NegatedMemory", fn("  LDG.E R1, -[R2]\n  EXIT\n"),
       "bad.ori:3:13: error: only registers and constant-bank operands can be negated"},

      // ------------------------------------------------------------ labels, tables, names
      {"UndefinedLabel", fn("  BRA nowhere\n"), "bad.ori:3:7: error: undefined label 'nowhere'"},
      {"DuplicateLabel", fn("L1:\n  NOP\nL1:\n  EXIT\n"),
       "bad.ori:5:1: error: duplicate label 'L1' (first defined at line 3)"},
      {"LabelNamedLikeRegister", fn("R1:\n  EXIT\n"),
       "bad.ori:3:1: error: 'R1' cannot be a label name"},
      {"UndefinedJumpTable", fn("  BRX R1, tbl\nL1:\n  EXIT\n"),
       "bad.ori:3:11: error: undefined jump table 'tbl'"},
      {"UndefinedLabelInJumpTable", fn("  .jumptable t = {L1, L2}\n  BRX R1, t\nL1:\n  EXIT\n"),
       "bad.ori:3:23: error: undefined label 'L2' in jump table 't'"},
      {"DuplicateJumpTable", fn("  .jumptable t = {L1}\n  .jumptable t = {L1}\nL1:\n  EXIT\n"),
       "bad.ori:4:14: error: duplicate jump table 't'"},
      {"EmptyJumpTable", fn("  .jumptable t = {}\nL1:\n  EXIT\n"),
       "bad.ori:3:19: error: expected a label, got '}'"},
      {"DuplicateFunction", fn("  EXIT\n") + "\n" + fn("  EXIT\n"),
       "bad.ori:6:1: error: duplicate function 'f'"},
      {"FunctionNamedLikeRegister", ".entry R1()\n{\n  EXIT\n}\n",
       "bad.ori:1:8: error: 'R1' cannot be a function name"},
      {"DuplicateParameter", ".entry f(.u32 a, .u32 a)\n{\n  EXIT\n}\n",
       "bad.ori:1:23: error: duplicate parameter 'a'"},
      {"UnknownParameterType", ".entry f(.u128 a)\n{\n  EXIT\n}\n",
       "bad.ori:1:10: error: unknown parameter type '.u128'"},
      {"ZeroLengthArray", ".entry f(.u32 a[0])\n{\n  EXIT\n}\n",
       "bad.ori:1:17: error: array length must be between 1 and 1048576"},
      {"BadAlignment", ".entry f(.u32 a .align 3)\n{\n  EXIT\n}\n",
       "bad.ori:1:24: error: alignment must be a power of two up to 4096"},
      {"EntryWithReturnList", ".entry (.u32 r) f()\n{\n  EXIT\n}\n",
       "bad.ori:1:8: error: expected a function name, got '('"},
      {"MissingOperand", fn("  MOV R1, , R2\n  EXIT\n"),
       "bad.ori:3:11: error: expected an operand, got ','"},
      {"UnclosedAddress", fn("  LDG.E R1, [R2, R3]\n  EXIT\n"),
       "bad.ori:3:16: error: expected ']' to close the address, got ','"},
      {"RegisterPlusRegisterAddress", fn("  LDG.E R1, [R2+R3]\n  EXIT\n"),
       "bad.ori:3:17: error: 'R3' cannot be a symbol name"},
      {"CallTargetPredicate", fn("  CALL P0\n  EXIT\n"),
       "bad.ori:3:8: error: CALL needs a function name or an R register as its target"},
      {"CallTargetNegated", fn("  CALL -R1\n  EXIT\n"),
       "bad.ori:3:8: error: a CALL target cannot be negated"},
      {"CallListUnclosed", ".func g();\n" + fn("  .param .b32 a\n  CALL g, (a\n  EXIT\n"),
       "bad.ori:5:13: error: expected ')' to close the list, got end of line"},
      {"UndeclaredPercentRegister", fn("  MOV R1, %r5\n  EXIT\n"),
       "bad.ori:3:11: error: undeclared register '%r5'"},
      {"DuplicateRegisterName", fn("  .reg a = R1, a = R2\n  EXIT\n"),
       "bad.ori:3:16: error: register name 'a' is declared twice"},
      {"RegisterNamedTwice", fn("  .reg a = R1, b = R1\n  EXIT\n"),
       "bad.ori:3:20: error: register R1 is already named 'a'"},
      {"NamingAConstantRegister", fn("  .reg zero = RZ\n  EXIT\n"),
       "bad.ori:3:15: error: 'RZ' cannot be given a name"},
      {"UnknownDirective", fn("  .foo\n  EXIT\n"), "bad.ori:3:3: error: unknown directive '.foo'"},
      {"UnknownRegisterType", fn("  .reg .u128 x = R1\n  EXIT\n"),
       "bad.ori:3:8: error: unknown register type '.u128'"},
      {"PredicateTypeOnGeneralRegister", fn("  .reg .pred p = R1\n  EXIT\n"),
       "bad.ori:3:18: error: a .pred register must be of file P or UP"},
      {"DottedRegisterName", fn("  .reg a.b = R1\n  EXIT\n"),
       "bad.ori:3:8: error: a register name cannot contain '.'"},
      {"NameForNonRegister", fn("  .reg a = foo\n  EXIT\n"),
       "bad.ori:3:12: error: expected a register such as R5, got 'foo'"},
      {"UnknownVariableType", fn("  .shared .b128 v\n  EXIT\n"),
       "bad.ori:3:11: error: unknown variable type '.b128'"},
      {"DuplicateVariable", fn("  .shared .b32 v\n  .local .b16 v\n  EXIT\n"),
       "bad.ori:4:15: error: duplicate variable 'v'"},
      {"VariableNamedLikeParameter", ".func g(.u32 x)\n{\n  .param .b32 x\n  RET\n}\n",
       "bad.ori:3:15: error: variable 'x' has the name of a parameter"},
      {"ZeroLengthVariable", fn("  .shared .b32 v[0]\n  EXIT\n"),
       "bad.ori:3:18: error: array must have between 1 element and 16 MiB"},
      {"TooManyInitializers", ".global .b32 v = {1, 2}\n" + fn("  EXIT\n"),
       "bad.ori:1:22: error: too many initializers for 'v'"},
      {"InitializerTooWide", ".global .b8 v[2] = {255, 256}\n" + fn("  EXIT\n"),
       "bad.ori:1:26: error: initializer does not fit in 8 bits"},
      {"PtxWithoutString", fn("  .ptx maxntid\n  EXIT\n"),
       "bad.ori:3:8: error: .ptx takes PTX text as a string, got 'maxntid'"},
      {"EntryDeclaration", ".entry f(.u32 a);\n", "bad.ori:1:8: error: a .entry needs a body"},
      {"ModuleLevelLocal", ".local .b32 v\n" + fn("  EXIT\n"),
       "bad.ori:1:1: error: expected '.entry' or '.func', got '.local'"},

      // ------------------------------------------------------------ integers and floats
      {"ImmediateTooWideFor32BitOp", fn("  MOV R1, 0x100000000\n  EXIT\n"),
       "bad.ori:3:11: error: integer 4294967296 does not fit in 32 bits"},
      {"LutTooWide", fn("  LOP3.LUT R1, R2, R3, R4, 0x100\n  EXIT\n"),
       "bad.ori:3:28: error: truth table 256 does not fit in 8 bits"},
      {"PlutTooWide", fn("  PLOP3.LUT P0, P1, P2, P3, P4, 0x0, 0x1ff\n  EXIT\n"),
       "bad.ori:3:38: error: truth table 511 does not fit in 8 bits"},
      {"HexOverflows64Bits", fn("  MOV.64 R1, 0x10000000000000000\n  EXIT\n"),
       "bad.ori:3:14: error: integer '0x10000000000000000' does not fit in 64 bits"},
      {"DecimalOverflows64Bits", fn("  MOV.64 R1, 18446744073709551616\n  EXIT\n"),
       "bad.ori:3:14: error: integer '18446744073709551616' does not fit in 64 bits"},
      {"NegativeOverflows64Bits", fn("  MOV.64 R1, -0x8000000000000001\n  EXIT\n"),
       "bad.ori:3:14: error: integer '-0x8000000000000001' does not fit in 64 bits"},
      {"BankOffsetTooLarge", fn("  MOV R1, c[0x0][0x10000]\n  EXIT\n"),
       "bad.ori:3:18: error: constant bank offset must be at most 0xffff"},
      {"IndexedBankOffsetTooLarge", fn("  MOV R1, c[0x0][R2+0x10000]\n  EXIT\n"),
       "bad.ori:3:21: error: offset 65536 is out of range [-32768, 65535]"},
      {"Bank18", fn("  MOV R1, c[0x12][0x0]\n  EXIT\n"),
       "bad.ori:3:13: error: constant bank number must be at most 17"},
      {"AbsoluteAddressTooLarge", fn("  LDG.E R1, [0x100000000]\n  EXIT\n"),
       "bad.ori:3:14: error: an absolute address must fit in 32 bits"},
      {"MemoryOffsetTooLarge", fn("  LDG.E R1, [R2+0x80000000]\n  EXIT\n"),
       "bad.ori:3:17: error: offset 2147483648 is out of range [-2147483648, 2147483647]"},
      {"MemoryOffsetAbove64BitSigned", fn("  LDG.E R1, [R2+0xffffffffffffffff]\n  EXIT\n"),
       "bad.ori:3:17: error: offset does not fit"},
      {"MalformedHex", fn("  MOV R1, 0x1g\n  EXIT\n"),
       "bad.ori:3:11: error: malformed number '0x1g'"},
      {"HexWithoutDigits", fn("  MOV R1, 0x\n  EXIT\n"),
       "bad.ori:3:11: error: malformed number '0x'"},
      {"DigitSeparator", fn("  MOV.64 R1, 0x1_0000\n  EXIT\n"),
       "bad.ori:3:14: error: malformed number '0x1_0000'"},
      {"MalformedFloat", fn("  FADD R1, R2, 1.2.3\n  EXIT\n"),
       "bad.ori:3:16: error: malformed number '1.2.3'"},
      {"MalformedExponent", fn("  FADD R1, R2, 1e\n  EXIT\n"),
       "bad.ori:3:16: error: malformed number '1e'"},
      {"ShortBinary32", fn("  FADD R1, R2, 0f3F80\n  EXIT\n"),
       "bad.ori:3:16: error: '0f3F80': 0f needs exactly 8 hex digits"},
      {"ShortBinary64", fn("  DADD R1, R2, 0d3FF0\n  EXIT\n"),
       "bad.ori:3:16: error: '0d3FF0': 0d needs exactly 16 hex digits"},
      {"FloatOutOfRange", fn("  FADD R1, R2, 1e999\n  EXIT\n"),
       "bad.ori:3:16: error: float '1e999' is out of range"},

      // ------------------------------------------------------------ strings and OPAQUE
      {"UnterminatedString", fn("  OPAQUE \"abc\n  EXIT\n"),
       "bad.ori:3:10: error: unterminated string"},
      {"UnterminatedStringAtEof", ".entry f()\n{\n  OPAQUE \"abc",
       "bad.ori:3:10: error: unterminated string"},
      {"UnknownEscape", fn("  OPAQUE \"a\\qb\"\n  EXIT\n"),
       "bad.ori:3:13: error: unknown escape in string"},
      {"OpaqueWithoutText", fn("  OPAQUE R1\n  EXIT\n"),
       "bad.ori:3:10: error: OPAQUE takes its text as a string, got 'R1'"},
      {"OpaqueConstantUse", fn("  OPAQUE \"x\" use(RZ)\n  EXIT\n"),
       "bad.ori:3:18: error: 'use' cannot list a constant register"},
      {"OpaqueNonRegisterDef", fn("  OPAQUE \"x\" def(c[0x0][0x0])\n  EXIT\n"),
       "bad.ori:3:18: error: 'def' lists registers only"},

      // ------------------------------------------------------------ function shape
      {"FallsOffAfterNonTerminator", fn("  NOP\n"),
       "bad.ori:3:3: error: function 'f' can fall off its end: its last instruction is not an "
       "unconditional BRA, BRX, EXIT or RET"},
      {"FallsOffAfterGuardedExit", fn("  @P0 EXIT\n"),
       "bad.ori:3:3: error: function 'f' can fall off its end: its last instruction is not an "
       "unconditional BRA, BRX, EXIT or RET"},
      {"FallsOffAfterCall", fn("  CALL g\n"),
       "bad.ori:3:3: error: function 'f' can fall off its end: its last instruction is not an "
       "unconditional BRA, BRX, EXIT or RET"},
      {"FallsOffIntoEmptyLabelledBlock", fn("  EXIT\nL9:\n"),
       "bad.ori:4:1: error: function 'f' can fall off its end: block 'L9' is empty"},
      {"NoInstructions", fn(""), "bad.ori:3:1: error: function 'f' has no instructions"},
      {"OnlyLabels", fn("L1:\nL2:\n"), "bad.ori:5:1: error: function 'f' has no instructions"},
      {"UnclosedFunction", ".entry f()\n{\n  EXIT\n",
       "bad.ori:4:1: error: function 'f' is not closed with '}'"},
      {"MissingBody", ".entry f()\n  EXIT\n",
       "bad.ori:2:3: error: expected '{' to open the function body, got 'EXIT'"},
      {"NotADirective", "entry f()\n{\n  EXIT\n}\n",
       "bad.ori:1:1: error: expected '.entry' or '.func', got 'entry'"},
      {"TwoInstructionsOnALine", fn("  NOP; EXIT\n"),
       "bad.ori:3:8: error: expected end of line, got 'EXIT'"},
      {"UnexpectedCharacter", fn("  EXIT #\n"), "bad.ori:3:8: error: unexpected character '#'"},

      // ------------------------------------------------------------ not text, nothing
      {"EmptyFile", "", "bad.ori:1:1: error: input is empty"},
      {"OnlyComments", "// nothing here\n// still nothing\n",
       "bad.ori:3:1: error: no function in input"},
      {"OnlyBlankLines", "\n\n  \n", "bad.ori:4:1: error: no function in input"},
      {"NulByte", fn("  EX\0IT\n"s), "bad.ori:3:5: error: input is not text: byte 0x00"},
      {"ByteFF", fn("  EXIT \xff\n"), "bad.ori:3:8: error: input is not text: byte 0xff"},
      {"TruncatedUtf8AtEnd", fn("  EXIT\n") + "// \xc3",
       "bad.ori:5:4: error: input is not text: byte 0xc3"},
      {"Utf8LeadWithoutContinuation", fn("  EXIT // \xe2\x82x\n"),
       "bad.ori:3:11: error: input is not text: byte 0xe2"},
      {"ControlCharacter", fn("  EXIT\x01\n"), "bad.ori:3:7: error: input is not text: byte 0x01"},
      {"Escape", fn("  \x1b[1mEXIT\n"), "bad.ori:3:3: error: input is not text: byte 0x1b"},
      {"Delete", fn("  EXIT\x7f\n"), "bad.ori:3:7: error: input is not text: byte 0x7f"},
  };
}

class OriErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(OriErrors, ExactDiagnostic) {
  const ErrorCase &c = GetParam();
  ParseResult r = parseOri(c.input, kFile);
  ASSERT_TRUE(r.error.has_value()) << "parsed without error:\n" << c.input;
  EXPECT_FALSE(r.module.has_value());
  EXPECT_EQ(r.error->str(), c.expected) << "input:\n" << c.input;
  EXPECT_EQ(r.error->file, kFile);
}

INSTANTIATE_TEST_SUITE_P(Table, OriErrors, ::testing::ValuesIn(errorCases()),
                         [](const ::testing::TestParamInfo<ErrorCase> &info) {
                           return info.param.name;
                         });

TEST(OriErrorsTable, IsLargeAndNamesAreUnique) {
  auto cases = errorCases();
  EXPECT_GE(cases.size(), 40u);
  std::set<std::string> names;
  for (const ErrorCase &c : cases)
    EXPECT_TRUE(names.insert(c.name).second) << c.name;
}

// Every reported position is inside the input: line <= lines + 1, and a
// column of at most the line's length + 1.
TEST(OriErrorsTable, PositionsAreInsideTheInput) {
  for (const ErrorCase &c : errorCases()) {
    ParseResult r = parseOri(c.input, kFile);
    ASSERT_TRUE(r.error) << c.name;
    std::vector<size_t> lineLen{0};
    for (char ch : c.input) {
      if (ch == '\n')
        lineLen.push_back(0);
      else
        ++lineLen.back();
    }
    ASSERT_GE(r.error->line, 1u) << c.name;
    ASSERT_LE(r.error->line, lineLen.size()) << c.name;
    EXPECT_GE(r.error->col, 1u) << c.name;
    EXPECT_LE(r.error->col, lineLen[r.error->line - 1] + 1) << c.name;
  }
}

// ---------------------------------------------------------------------------
// Regressions: bugs found while writing this suite and since fixed in
// ir/ori_parser.cpp. Each comment says what the parser did before.
// ---------------------------------------------------------------------------

std::vector<ErrorCase> regressionCases() {
  return {
      // Was: "a destination cannot be negated" -- a guard is not a destination.
      {"GuardNegatedWithMinus", fn("  @-P0 EXIT\n  EXIT\n"),
       "bad.ori:3:4: error: a predicate is negated with '!'"},
      // Was: "a destination cannot be negated" -- use() lists sources.
      {"OpaqueUseNegated", fn("  OPAQUE \"x\" use(-R1)\n  EXIT\n"),
       "bad.ori:3:18: error: 'use' lists registers only"},
      // Was: accepted; the offset wraps to -1 and prints as c[0x0][-0x1], which does not parse.
      {"HugeConstantBankOffset", fn("  MOV R1, c[0x0][0xffffffffffffffff]\n  EXIT\n"),
       "bad.ori:3:18: error: constant bank offset must be at most 0xffff"},
      // Was: the label is accepted, but `BRA %L1` says "undeclared register '%L1'":
      // a %-name can be defined as a label and never referenced.
      {"PercentLabel", fn("%L1:\n  BRA %L1\n"), "bad.ori:3:1: error: '%L1' cannot be a label name"},
      // Was: the message quotes the single byte 0xc3, which makes it invalid UTF-8.
      {"NonAsciiCharacterQuotedWhole", fn("  EXIT \xc3\xa9\n"),
       "bad.ori:3:8: error: unexpected character '\xc3\xa9'"},
      // Was: "integer 18446744071562067967 does not fit in 32 bits" (checkImmediate's
      // `big ? uint64_t(o.imm) : o.imm` has type uint64_t).
      {"NegativeImmediateTooWideFor32BitOp", fn("  MOV R1, -0x80000001\n  EXIT\n"),
       "bad.ori:3:11: error: integer -2147483649 does not fit in 32 bits"},
      // Was: column 30, the end of the comment; the operand is missing after column 18.
      {"TooFewOperandsBeforeComment", fn("  IADD3 R1, R2, R3     // sum\n  EXIT\n"),
       "bad.ori:3:19: error: IADD3 takes 4 operands, got 3"},
      // Was: accepted as a scalar: n * elemSize wraps to 0 in 64 bits and count is truncated to 32.
      {"HugeVariableArray", ".shared .b64 x[0x2000000000000000]\n" + fn("  EXIT\n"),
       "bad.ori:1:16: error: array must have between 1 element and 16 MiB"},
      // Was: accepted; only .pred is checked against the register file.
      {"TypedBarrierRegisterName", fn("  .reg .b32 bb = B1\n  EXIT\n"),
       "bad.ori:3:18: error: a .b32 register must be of file R or UR"},
      // Was: these four report the instruction's column, not the operand's.
      {"UndefinedVariableColumn", fn("  LDS R1, [buf+0x4]\n  EXIT\n"),
       "bad.ori:3:11: error: undefined variable 'buf'"},
      {"UndefinedFunctionColumn", fn("  @P0 CALL g\n  EXIT\n"),
       "bad.ori:3:12: error: call to undefined function 'g'"},
      {"NotAParamVariableColumn", fn("  .local .b32 v\n  CALL f, (v)\n  EXIT\n"),
       "bad.ori:4:12: error: 'v' is not a .param variable of function 'f'"},
      {"UndefinedSymbolColumn", fn("  MOV R1, s\n  EXIT\n"),
       "bad.ori:3:11: error: undefined symbol 's'"},
  };
}

class OriErrorsRegression : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(OriErrorsRegression, ExactDiagnostic) {
  const ErrorCase &c = GetParam();
  ParseResult r = parseOri(c.input, kFile);
  ASSERT_TRUE(r.error.has_value()) << "REGRESSION: parsed without error:\n" << c.input;
  EXPECT_EQ(r.error->str(), c.expected) << "REGRESSION; input:\n" << c.input;
}

INSTANTIATE_TEST_SUITE_P(Table, OriErrorsRegression, ::testing::ValuesIn(regressionCases()),
                         [](const ::testing::TestParamInfo<ErrorCase> &info) {
                           return info.param.name;
                         });

} // namespace
} // namespace ori
