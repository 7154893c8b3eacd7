// Declarations the PTX reader reads (docs/ptx.md, "Reading"): vector registers, linkage,
// .extern arrays, address initializers, .func .reg parameters; the errors of the forms it
// rejects, at the declaration; the warnings of the instructions it keeps as OPAQUE; and the
// .ori text of the new variable fields, which reads back to the same module.
#include <gtest/gtest.h>

#include <string>

#include "ir/ori.h"
#include "ptx/ptx.h"

namespace {

const std::string kHead = ".version 8.0\n.target sm_90\n.address_size 64\n"; // 3 lines

ori::ParseResult read(const std::string &rest) {
  return ori::ptx::parseAndLower(kHead + rest, "d.ptx");
}

std::string errorOf(const std::string &rest) {
  ori::ParseResult r = read(rest);
  return r.error ? r.error->str() : "no error";
}

const ori::Variable *variable(const ori::Module &m, const std::string &name) {
  for (const ori::Variable &v : m.variables)
    if (v.name == name)
      return &v;
  for (const ori::Function &f : m.functions)
    for (const ori::Variable &v : f.variables)
      if (v.name == name)
        return &v;
  return nullptr;
}

TEST(PtxDeclarations, RejectedFormsAreErrorsAtTheDeclaration) {
  const std::string k = ".visible .entry k()\n{\n"; // lines 4, 5; the body from line 6
  EXPECT_EQ(errorOf(k + "  .reg .v8 .u32 v;\n  ret;\n}\n"),
            "d.ptx:6:3: error: vector register 'v' is .v8; registers are .v2 or .v4");
  EXPECT_EQ(errorOf(k + "  .reg .v2 .pred v;\n  ret;\n}\n"),
            "d.ptx:6:3: error: vector register 'v' of predicates");
  EXPECT_EQ(errorOf(k + "  .reg .v2 .u32 v<4>;\n  ret;\n}\n"),
            "d.ptx:6:3: error: 'v<4>': a range of vector registers is not supported");
  EXPECT_EQ(errorOf(".global .u64 p = nothere;\n" + k + "  ret;\n}\n"),
            "d.ptx:4:18: error: the initializer of 'p' names 'nothere', which is no variable or "
            "function of the module");
  EXPECT_EQ(
      errorOf(".global .u32 a[];\n" + k + "  ret;\n}\n"),
      "d.ptx:4:1: error: 'a[]' has no length: an array without one must be .extern or initialized");
  EXPECT_EQ(errorOf(".extern .global .u32 x = 5;\n" + k + "  ret;\n}\n"),
            "d.ptx:4:1: error: 'x' is .extern: it cannot have an initializer");
  EXPECT_EQ(
      errorOf(".global .u32 g;\n.global .u16 p = g;\n" + k + "  ret;\n}\n"),
      "d.ptx:5:18: error: 'p' holds an address, which needs a 32- or 64-bit type, not '.u16' (or "
      "one byte of it: 0xFF(sym), 0xFF00(sym), ...)");
  EXPECT_EQ(errorOf(".func f(.param .pred p)\n{\n  ret;\n}\n" + k + "  ret;\n}\n"),
            "d.ptx:4:9: error: variable 'p' has type '.pred', which has no memory layout here");
}

TEST(PtxDeclarations, LinkageExternArraysAndAddressInitializers) {
  ori::ParseResult r = read(".visible .global .align 4 .u32 data[4] = {1, 2, 3, 4};\n"
                            ".extern .shared .align 16 .b8 dyn[];\n"
                            ".weak .const .u64 p = generic(data)+4;\n"
                            ".global .u64 q[2] = {data, data+-4};\n"
                            ".visible .entry k()\n{\n  ret;\n}\n");
  ASSERT_TRUE(r.module) << r.error->str();
  const ori::Variable *data = variable(*r.module, "data");
  const ori::Variable *dyn = variable(*r.module, "dyn");
  const ori::Variable *p = variable(*r.module, "p");
  const ori::Variable *q = variable(*r.module, "q");
  ASSERT_TRUE(data && dyn && p && q);
  EXPECT_EQ(data->linkage, "visible");
  EXPECT_EQ(dyn->linkage, "extern");
  EXPECT_TRUE(dyn->unsized);
  EXPECT_EQ(dyn->count, 0u);
  EXPECT_EQ(p->linkage, "weak");
  ASSERT_EQ(p->addrInit.size(), 1u);
  EXPECT_EQ(p->addrInit[0], (ori::Variable::AddrInit{0, "data", 4, true}));
  ASSERT_EQ(q->addrInit.size(), 2u);
  EXPECT_EQ(q->addrInit[0], (ori::Variable::AddrInit{0, "data", 0, false}));
  EXPECT_EQ(q->addrInit[1], (ori::Variable::AddrInit{8, "data", -4, false}));
  EXPECT_EQ(q->init.size(), 16u); // the address elements' bytes are zero until placed

  // The .ori text keeps all of it and reads back to the same module.
  const std::string text = ori::printModule(*r.module);
  EXPECT_NE(text.find(".visible .global .u32 data[4] = {0x1, 0x2, 0x3, 0x4}"), std::string::npos)
      << text;
  EXPECT_NE(text.find(".extern .shared .align 16 .b8 dyn[]"), std::string::npos) << text;
  EXPECT_NE(text.find(".weak .const .u64 p = {generic(data)+0x4}"), std::string::npos) << text;
  EXPECT_NE(text.find(".global .u64 q[2] = {data, data-0x4}"), std::string::npos) << text;
  ori::ParseResult back = ori::parseOri(text, "d.ori");
  ASSERT_TRUE(back.module) << back.error->str() << "\n" << text;
  EXPECT_EQ(*back.module, *r.module);
}

TEST(PtxDeclarations, VectorRegisterElementsAreRegisters) {
  ori::ParseResult r = read(".visible .entry k()\n{\n  .reg .v4 .f32 v;\n  .reg .v2 .b64 w;\n"
                            "  .shared .align 8 .b64 bar;\n"
                            "  mov.f32 v.a, v.x;\n"
                            "  mbarrier.arrive.shared.b64 w.y, [bar];\n"
                            "  ret;\n}\n");
  ASSERT_TRUE(r.module) << r.error->str();
  const ori::Function &k = r.module->functions.at(0);
  const std::string text = ori::printFunction(k);
  EXPECT_NE(text.find("MOV v_w, v_x"), std::string::npos) << text; // v.a is v.w
  // Kept as OPAQUE: the element is the instruction's def, the text a placeholder for it.
  EXPECT_NE(text.find("OPAQUE \"mbarrier.arrive.shared.b64 @d0, [bar]\" def(w_y)"),
            std::string::npos)
      << text;
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].str(),
            "d.ptx:10:3: warning: 'mbarrier.arrive.shared.b64' is kept as an opaque "
            "instruction (not run, not proved, not optimized)");
  EXPECT_EQ(r.warnings[0].str(true),
            "d.ptx:10:3: error: 'mbarrier.arrive.shared.b64' is kept as an opaque "
            "instruction (not run, not proved, not optimized)");
}

TEST(PtxDeclarations, OpaqueWarningsStopAtTenPerMnemonicThenANote) {
  std::string body;
  for (int i = 0; i < 13; ++i)
    body += "  mbarrier.inval.shared.b64 [bar];\n"; // lines 7 .. 19
  body += "  mbarrier.init.shared.b64 [bar], 1;\n"; // line 20
  ori::ParseResult r =
      read(".visible .entry k()\n{\n  .shared .align 8 .b64 bar;\n" + body + "  ret;\n}\n");
  ASSERT_TRUE(r.module) << r.error->str();
  ASSERT_EQ(r.warnings.size(), 12u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(r.warnings[size_t(i)].diag.line, uint32_t(7 + i));
    EXPECT_FALSE(r.warnings[size_t(i)].note);
  }
  EXPECT_EQ(r.warnings[10].diag.line, 20u);
  EXPECT_TRUE(r.warnings[11].note);
  EXPECT_EQ(r.warnings[11].str(),
            "d.ptx:17:3: note: 'mbarrier.inval.shared.b64' is kept as an opaque instruction "
            "3 more times in this file (warnings after the first 10 of a mnemonic are left out)");
}

TEST(PtxDeclarations, APragmaInNoLabelledBlockIsDroppedWithAWarning) {
  ori::ParseResult r = read(".visible .entry k()\n{\n  .pragma \"nounroll\";\n  ret;\n$L: \n  "
                            ".pragma \"nounroll\";\n  ret;\n}\n");
  ASSERT_TRUE(r.module) << r.error->str();
  ASSERT_EQ(r.warnings.size(), 1u); // the second one stays with $L
  EXPECT_EQ(r.warnings[0].str(),
            "d.ptx:6:3: warning: '.pragma \"nounroll\";' is dropped: it stands in no labelled "
            "block, which --emit=ptx could print it in");
}

TEST(PtxDeclarations, RegisterParametersBecomeParamOnesWithLoadsAndStores) {
  ori::ParseResult r =
      read(".func (.reg .b32 r) f(.reg .b32 a, .reg .pred p)\n{\n  selp.b32 r, a, 7, p;\n}\n"
           ".visible .entry k()\n{\n  .reg .b32 %r<3>;\n  .reg .pred %p1;\n"
           "  setp.eq.u32 %p1, %r1, 0;\n  call (%r2), f, (%r1, %p1);\n  ret;\n}\n");
  ASSERT_TRUE(r.module) << r.error->str();
  ASSERT_TRUE(r.warnings.empty()) << r.warnings[0].str();
  const ori::Function *f = r.module->findFunction("f");
  ASSERT_TRUE(f);
  ASSERT_EQ(f->params.size(), 2u);
  EXPECT_EQ(f->params[1].type, "u32"); // the predicate travels as 0 or 1
  const std::string text = ori::printModule(*r.module);
  EXPECT_NE(text.find("CALL (__ori_cret0), f, (__ori_carg0, __ori_carg1)"), std::string::npos)
      << text;
  // The body that falls off its end stores the return value before its RET.
  EXPECT_NE(text.find("ST [__ori_ret0], r\n  RET"), std::string::npos) << text;
}

} // namespace
