// Every PTX call is a CALL (ptx/lower_mem.cpp, Lowering::call): direct calls, calls
// to functions the module only declares or does not declare at all, and indirect
// calls through a register. A CALL ends its block, so the CFG rule holds for every
// corpus function.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/ori.h"
#include "ptx_kernel_runner.h"

namespace {

namespace fs = std::filesystem;

std::string corpusDir() {
  if (const char *env = std::getenv("ORIOPT_CORPUS_DIR"); env && *env)
    return env;
  return ORIOPT_CORPUS_DIR;
}

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(PtxCalls, EveryCorpusCallEndsItsBlock) {
  size_t calls = 0, external = 0, indirect = 0, files = 0;
  for (const auto &e : fs::directory_iterator(corpusDir() + "/ptx")) {
    if (e.path().extension() != ".ptx")
      continue;
    ++files;
    SCOPED_TRACE(e.path().filename().string());
    ori::ParseResult r = ori::ptx::parseAndLower(readFile(e.path()), e.path().filename().string());
    ASSERT_FALSE(r.error) << r.error->str();
    for (const ori::Function &f : r.module->functions)
      for (const ori::Block &b : f.blocks)
        for (size_t i = 0; i < b.instrs.size(); ++i) {
          const ori::Instr &in = b.instrs[i];
          if (in.op == ori::Opcode::OPAQUE) {
            EXPECT_FALSE(in.opaqueText.starts_with("call")) << f.name << ": " << in.opaqueText;
          }
          if (in.op != ori::Opcode::CALL)
            continue;
          ++calls;
          EXPECT_EQ(i + 1, b.instrs.size()) << f.name << ": a CALL that does not end its block";
          const ori::Operand &t = in.srcs.at(0);
          if (t.kind == ori::Operand::Kind::Reg)
            ++indirect;
          else if (const ori::Function *g = r.module->findFunction(t.sym); g && g->isDeclaration())
            ++external;
        }
  }
  std::printf("corpus: %zu files, %zu CALLs, %zu to declared-only functions, %zu indirect\n", files,
              calls, external, indirect);
  // The corpus has all three kinds (vprintf and OptiX's runtime calls, gpuocelot's indirect calls).
  EXPECT_GT(external, 0u);
  EXPECT_GT(indirect, 0u);
  EXPECT_GT(calls, external + indirect);
}

// An indirect call through a function pointer picked at run time: twice(x) or inc(x).
const char *kIndirect = R"(.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b32 %v;
  ld.param.b32 %v, [x];
  add.s32 %v, %v, %v;
  st.param.b32 [r], %v;
  ret;
}
.func (.param .b32 r) inc(.param .b32 x)
{
  .reg .b32 %v;
  ld.param.b32 %v, [x];
  add.s32 %v, %v, 1;
  st.param.b32 [r], %v;
  ret;
}
.visible .entry k(.param .u64 out, .param .u32 which, .param .u32 arg)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .pred %p1;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [which];
  ld.param.u32 %r2, [arg];
  mov.u64 %rd2, twice;
  mov.u64 %rd3, inc;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 mov.u64 %rd2, %rd3;
  {
  .param .b32 a;
  st.param.b32 [a], %r2;
  .param .b32 ret0;
  proto: .callprototype (.param .b32 _) _ (.param .b32 _);
  call (ret0), %rd2, (a), proto;
  ld.param.b32 %r3, [ret0];
  }
  st.global.u32 [%rd1], %r3;
  ret;
}
)";

TEST(PtxCalls, IndirectCallRunsTheFunctionItsRegisterNames) {
  ptxtest::Kernel k = ptxtest::lowerAndReEmit(kIndirect);
  const ori::Function *kernel = k.lowered.findFunction("k");
  ASSERT_TRUE(kernel);
  size_t indirect = 0;
  for (const ori::Block &b : kernel->blocks)
    for (const ori::Instr &in : b.instrs)
      if (in.op == ori::Opcode::CALL) {
        EXPECT_EQ(in.srcs.at(0).kind, ori::Operand::Kind::Reg);
        ++indirect;
      }
  EXPECT_EQ(indirect, 1u);
  // which = 0: twice(20) = 40; which = 1: inc(20) = 21.
  for (auto [which, want] : {std::pair{0u, 40u}, std::pair{1u, 21u}}) {
    ori::RunConfig cfg;
    cfg.params = {{"which", which}, {"arg", 20}};
    cfg.buffers["out"] = std::vector<uint8_t>(4, 0);
    for (const std::vector<uint8_t> &out : ptxtest::runBoth(k, cfg, "out"))
      EXPECT_EQ(ptxtest::le64(out, 0) & 0xffffffff, want) << "which = " << which;
  }
  EXPECT_NE(k.emittedPtx.find(".callprototype"), std::string::npos) << k.emittedPtx;
  if (ptxtest::havePtxas()) {
    EXPECT_EQ(ptxtest::ptxasErrors(k.emittedPtx), "") << k.emittedPtx;
  }
}

// OptiX-style: a runtime function the module never declares, called with registers.
TEST(PtxCalls, UndeclaredTargetIsKeptByNameAndIsExternal) {
  const char *text = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  mov.u32 %r1, 7;
  call (%r2, %r3), _rt_transform_tuple, (%r1, %r1);
  ret;
}
)";
  ori::ParseResult r = ori::ptx::parseAndLower(text, "optix.ptx");
  ASSERT_FALSE(r.error) << r.error->str();
  const ori::Function *ext = r.module->findFunction("_rt_transform_tuple");
  ASSERT_TRUE(ext);
  EXPECT_TRUE(ext->isDeclaration());
  const ori::Function &k = *r.module->findFunction("k");
  const ori::Instr *call = nullptr;
  for (const ori::Block &b : k.blocks)
    for (const ori::Instr &in : b.instrs)
      if (in.op == ori::Opcode::CALL)
        call = &in;
  ASSERT_TRUE(call);
  EXPECT_EQ(ori::printInstr(k, *call), "CALL (%r2, %r3), _rt_transform_tuple, (%r1, %r1)");
  EXPECT_EQ(call->defs().size(), 2u); // the result registers
  EXPECT_EQ(call->uses().size(), 2u); // the argument registers
  // The .ori text reads back to the same module.
  std::string printed = ori::printModule(*r.module);
  ori::ParseResult again = ori::parseOri(printed, "printed.ori");
  ASSERT_FALSE(again.error) << again.error->str() << "\n" << printed;
  EXPECT_TRUE(*again.module == *r.module);
  ori::RunConfig cfg;
  cfg.buffers["out"] = std::vector<uint8_t>(4, 0);
  ori::RunResult run = ori::runKernel(*r.module, cfg);
  EXPECT_EQ(int(run.kind), int(ori::RunResult::Kind::Unsupported));
  EXPECT_EQ(run.message, "call to external function _rt_transform_tuple");
  EXPECT_EQ(ori::formatExit(run, "optix.ptx"), "exit: unsupported \"CALL\" at optix.ptx:8");
}

TEST(PtxCalls, OriCallListsTakeRRegistersOnly) {
  ori::ParseResult r =
      ori::parseOri(".func g();\n.entry k()\n{\n  CALL (P0), g\n  EXIT\n}\n", "bad.ori");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->str(),
            "bad.ori:4:9: error: a CALL argument or result register must be an R register");
}

} // namespace
