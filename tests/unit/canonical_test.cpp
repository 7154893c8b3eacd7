// Modules compared up to register and label names (ir/canonical.h): renamed registers and
// labels compare equal; any other change is reported at its first place with both texts; the
// documented normalizations (entry zeroing, .RN, the binary64 NaN select, .version, trailing
// zero bytes of initializers) apply only where they are sound.
#include <gtest/gtest.h>

#include <string>

#include "ir/canonical.h"
#include "ir/ori.h"

namespace ori {
namespace {

Module parse(const std::string &text) {
  ParseResult r = parseOri(text, "test.ori");
  EXPECT_TRUE(r.module) << (r.error ? r.error->str() : "");
  return r.module ? *r.module : Module{};
}

std::optional<NameFreeDifference> diff(const std::string &a, const std::string &b) {
  Module ma = parse(a), mb = parse(b);
  return firstDifferenceUpToNames(ma.functions.at(0), mb.functions.at(0));
}

const char *kLoop = R"(.entry k(.u64 out)
{
  MOV R3, 0x5
L_head:
  IADD3 R3, R3, 0x1, RZ
  ISETP.LT.U32.AND P2, PT, R3, 0x10, PT
  @P2 BRA L_head
  STG.E [R7], R3
  EXIT
}
)";

TEST(CanonicalCompare, RenamedRegistersAndLabelsAreEqual) {
  // Every register renumbered (R3 -> R0, R7 -> R9, P2 -> P5) and the label renamed.
  const char *renamed = R"(.entry k(.u64 out)
{
  MOV R0, 0x5
Again:
  IADD3 R0, R0, 0x1, RZ
  ISETP.LT.U32.AND P5, PT, R0, 0x10, PT
  @P5 BRA Again
  STG.E [R9], R0
  EXIT
}
)";
  EXPECT_EQ(diff(kLoop, renamed), std::nullopt);
  Function c = canonicalFunction(parse(renamed).functions[0]);
  EXPECT_EQ(c.blocks[1].label, "B1");
  EXPECT_EQ(printInstr(c, c.blocks[1].instrs[1]), "ISETP.LT.U32.AND P0, PT, R0, 0x10, PT");
  EXPECT_EQ(printInstr(c, c.blocks[2].instrs[0]), "STG.E [R1], R0");
}

TEST(CanonicalCompare, ARenamingMustBeConsistent) {
  // R3 read where the other side reads a register it has not seen before: not a renaming.
  const char *other = R"(.entry k(.u64 out)
{
  MOV R3, 0x5
L_head:
  IADD3 R3, R4, 0x1, RZ
  ISETP.LT.U32.AND P2, PT, R3, 0x10, PT
  @P2 BRA L_head
  STG.E [R7], R3
  EXIT
}
)";
  auto d = diff(kLoop, other);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->function, "k");
  EXPECT_EQ(d->where, "bix1 instruction 0");
  EXPECT_EQ(d->left, "IADD3 R0, R0, 0x1, RZ");
  EXPECT_EQ(d->right, "IADD3 R0, R1, 0x1, RZ");
  EXPECT_EQ(d->leftLoc.line, 5u);
  EXPECT_NE(d->str().find("left:  IADD3 R0, R0, 0x1, RZ (line 5)"), std::string::npos) << d->str();
}

TEST(CanonicalCompare, BranchTargetsAreCompared) {
  const char *elsewhere = R"(.entry k(.u64 out)
{
  MOV R3, 0x5
L_head:
  IADD3 R3, R3, 0x1, RZ
  ISETP.LT.U32.AND P2, PT, R3, 0x10, PT
  @P2 BRA L_out
L_out:
  STG.E [R7], R3
  EXIT
}
)";
  auto d = diff(kLoop, elsewhere);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->left, "@P0 BRA B1");
  EXPECT_EQ(d->right, "@P0 BRA B2");
}

TEST(CanonicalCompare, ExtraInstructionAndBlockCount) {
  const char *longer = R"(.entry k(.u64 out)
{
  MOV R3, 0x5
L_head:
  IADD3 R3, R3, 0x1, RZ
  ISETP.LT.U32.AND P2, PT, R3, 0x10, PT
  @P2 BRA L_head
  STG.E [R7], R3
  NOP
  EXIT
}
)";
  auto d = diff(kLoop, longer);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->where, "bix2 instruction 1");
  EXPECT_EQ(d->left, "EXIT");
  EXPECT_EQ(d->right, "NOP");
  const char *split = R"(.entry k(.u64 out)
{
  MOV R3, 0x5
L_head:
  IADD3 R3, R3, 0x1, RZ
  ISETP.LT.U32.AND P2, PT, R3, 0x10, PT
  @P2 BRA L_head
  STG.E [R7], R3
L_more:
  EXIT
}
)";
  d = diff(kLoop, split);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->left, "EXIT");
  EXPECT_EQ(d->right, "(end of block)");
}

TEST(CanonicalCompare, SignatureAndModifiers) {
  auto d = diff(".entry k(.u32 n)\n{\n  EXIT\n}\n", ".entry k(.u64 n)\n{\n  EXIT\n}\n");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->where, "signature");
  d = diff(".entry k()\n{\n  FADD R1, R2, R3\n  EXIT\n}\n",
           ".entry k()\n{\n  FADD.RZ R1, R2, R3\n  EXIT\n}\n");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->right, "FADD.RZ R0, R1, R2");
  // .RN is what no rounding modifier means (interpreter and models): the same instruction.
  EXPECT_EQ(diff(".entry k()\n{\n  FADD R1, R2, R3\n  DFMA.RN R4, R5, R6, R7\n  EXIT\n}\n",
                 ".entry k()\n{\n  FADD.RN R1, R2, R3\n  DFMA R4, R5, R6, R7\n  EXIT\n}\n"),
            std::nullopt);
}

TEST(CanonicalCompare, EntryZeroingIsDroppedOnlyWhereItCannotRunAgain) {
  // --emit=ptx's prologue for registers read before written: MOV r, 0 and a false predicate.
  const char *zeroed = R"(.entry k(.u64 out)
{
  MOV R8, 0x0
  MOV.64 R9, 0x0
  ISETP.NE.U32.AND P3, PT, 0x0, 0x0, PT
Start:
  @P3 IADD3 R8, R8, 0x1, RZ
  STG.E [R9], R8
  EXIT
}
)";
  const char *plain = R"(.entry k(.u64 out)
{
  @P0 IADD3 R1, R1, 0x1, RZ
  STG.E [R2], R1
  EXIT
}
)";
  EXPECT_EQ(diff(plain, zeroed), std::nullopt);
  // bix0 a loop head: the writes would run again on the back edge; they stay.
  const char *loopHead = R"(.entry k(.u64 out)
{
Top:
  MOV R8, 0x0
  IADD3 R9, R8, 0x1, RZ
  ISETP.LT.U32.AND P0, PT, R9, 0x4, PT
  @P0 BRA Top
  EXIT
}
)";
  Function c = canonicalFunction(parse(loopHead).functions[0]);
  EXPECT_EQ(printInstr(c, c.blocks[0].instrs[0]), "MOV R0, 0x0");
  // A zero write after another instruction is not part of the prologue.
  auto d = diff(".entry k()\n{\n  S2R R1, SR_TID.X\n  EXIT\n}\n",
                ".entry k()\n{\n  S2R R1, SR_TID.X\n  MOV R2, 0x0\n  EXIT\n}\n");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->right, "MOV R1, 0x0");
}

TEST(CanonicalCompare, Binary64NaNSelectIsTheResultWhenTheTemporariesAreDead) {
  const char *plain = R"(.entry k(.u64 out)
{
  DADD R4, R2, R3
  STG.E.64 [R6], R4
  EXIT
}
)";
  const char *selected = R"(.entry k(.u64 out)
{
  DADD R10, R2, R3
  DSETP.NAN.AND P1, PT, R10, R10, PT
  SEL.64 R4, -0x8000000000000, R10, P1
  STG.E.64 [R6], R4
  EXIT
}
)";
  EXPECT_EQ(diff(plain, selected), std::nullopt);
  // The temporary read afterwards: the select stays, and the two differ.
  const char *readLater = R"(.entry k(.u64 out)
{
  DADD R10, R2, R3
  DSETP.NAN.AND P1, PT, R10, R10, PT
  SEL.64 R4, -0x8000000000000, R10, P1
  STG.E.64 [R6], R4
  STG.E.64 [R6+0x8], R10
  EXIT
}
)";
  EXPECT_TRUE(diff(plain, readLater));
  // Another NaN than the interpreter's: not the emitter's select.
  const char *otherNaN = R"(.entry k(.u64 out)
{
  DADD R10, R2, R3
  DSETP.NAN.AND P1, PT, R10, R10, PT
  SEL.64 R4, 0x7ff8000000000000, R10, P1
  STG.E.64 [R6], R4
  EXIT
}
)";
  EXPECT_TRUE(diff(plain, otherNaN));
  // A binary32 result is not canonicalized this way.
  EXPECT_TRUE(
      diff(".entry k(.u64 out)\n{\n  FADD R4, R2, R3\n  STG.E [R6], R4\n  EXIT\n}\n",
           ".entry k(.u64 out)\n{\n  FADD R10, R2, R3\n  DSETP.NAN.AND P1, PT, R10, R10, PT\n"
           "  SEL.64 R4, -0x8000000000000, R10, P1\n  STG.E [R6], R4\n  EXIT\n}\n"));
}

TEST(CanonicalCompare, ModulesPairFunctionsByName) {
  Module a = parse(".func f()\n{\n  RET\n}\n.entry k()\n{\n  EXIT\n}\n");
  Module b = parse(".entry k()\n{\n  EXIT\n}\n.func g()\n{\n  RET\n}\n");
  ModuleComparison c = compareModulesUpToNames(a, b);
  EXPECT_EQ(c.equal, std::vector<std::string>{"k"});
  ASSERT_EQ(c.differ.size(), 2u);
  EXPECT_EQ(c.differ[0].function, "f");
  EXPECT_EQ(c.differ[0].right, "(missing on the right)");
  EXPECT_EQ(c.differ[1].function, "g");
  EXPECT_EQ(c.differ[1].left, "(missing on the left)");
  EXPECT_FALSE(c.allEqual());
}

TEST(CanonicalCompare, ModuleDirectivesAndInitializers) {
  Module a = parse(".ptx \".version 7.0\"\n.ptx \".target sm_80, debug\"\n"
                   ".global .b8 s[4] = {0x41, 0x42}\n.entry k()\n{\n  EXIT\n}\n");
  Module b = parse(".ptx \".version 9.0\"\n.ptx \".target sm_80\"\n"
                   ".global .b8 s[4] = {0x41, 0x42, 0x0, 0x0}\n.entry k()\n{\n  EXIT\n}\n");
  EXPECT_TRUE(compareModulesUpToNames(a, b).allEqual());
  Module c = parse(".ptx \".version 7.0\"\n.ptx \".target sm_70\"\n"
                   ".global .b8 s[4] = {0x41, 0x42}\n.entry k()\n{\n  EXIT\n}\n");
  ModuleComparison r = compareModulesUpToNames(a, c);
  ASSERT_TRUE(r.module);
  EXPECT_EQ(r.module->left, ".target sm_80");
  EXPECT_EQ(r.module->right, ".target sm_70");
  // The words the emitter drops or raises: map_f64_to_f32, and sm_1x comes back as sm_20.
  Module old1 = parse(
      ".ptx \".version 1.4\"\n.ptx \".target sm_13, map_f64_to_f32\"\n.entry k()\n{\n  EXIT\n}\n");
  Module old2 = parse(".ptx \".version 2.3\"\n.ptx \".target sm_20\"\n.entry k()\n{\n  EXIT\n}\n");
  EXPECT_TRUE(compareModulesUpToNames(old1, old2).allEqual());
  Module d = parse(".ptx \".version 7.0\"\n.ptx \".target sm_80\"\n"
                   ".global .b8 s[4] = {0x41, 0x43}\n.entry k()\n{\n  EXIT\n}\n");
  r = compareModulesUpToNames(a, d);
  ASSERT_TRUE(r.module);
  EXPECT_EQ(r.module->where, "variable 0");
}

} // namespace
} // namespace ori
