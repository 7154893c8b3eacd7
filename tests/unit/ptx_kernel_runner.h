// Test helper: one small PTX kernel, lowered, run in the interpreter, and the
// same after --emit=ptx and reading the PTX back; the emitted PTX assembled by
// ptxas when it is on PATH. Used by the per-family lowering tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "interp/interp.h"
#include "ptx/ptx.h"

namespace ptxtest {

inline bool havePtxas() { return std::system("command -v ptxas >/dev/null 2>&1") == 0; }

// "" when ptxas assembles `ptx` for sm_90, else its messages.
inline std::string ptxasErrors(const std::string &ptx) {
  static int counter = 0;
  namespace fs = std::filesystem;
  fs::path file = fs::temp_directory_path() / ("oriopt_kernel_" + std::to_string(::getpid()) + "_" +
                                               std::to_string(counter++) + ".ptx");
  fs::path log = file;
  log += ".log";
  std::ofstream(file, std::ios::binary) << ptx;
  std::string cmd =
      "ptxas -arch=sm_90 '" + file.string() + "' -o /dev/null > '" + log.string() + "' 2>&1";
  int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  std::string msg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(file);
  fs::remove(log);
  return rc == 0 ? "" : "ptxas failed (" + std::to_string(rc) + "):\n" + msg;
}

struct Kernel {
  ori::Module lowered, reEmitted;
  std::string emittedPtx;
};

// Lowers `ptx`, prints it back with --emit=ptx --emit-lowered and lowers that again.
inline Kernel lowerAndReEmit(const std::string &ptx) {
  Kernel k;
  ori::ParseResult r = ori::ptx::parseAndLower(ptx, "kernel.ptx");
  if (r.error) {
    ADD_FAILURE() << r.error->str() << "\n" << ptx;
    return k;
  }
  k.lowered = std::move(*r.module);
  // Through the Ori -> PTX emitter, which this checks (oriopt --emit-lowered): by default an
  // unchanged instruction is printed as read (docs/ptx.md, "Round trip").
  ori::Module plain = k.lowered;
  for (ori::Function &f : plain.functions)
    f.ptxOrigins.reset();
  ori::ptx::EmitResult e = ori::ptx::emit(plain);
  if (e.error) {
    ADD_FAILURE() << e.error->str();
    return k;
  }
  k.emittedPtx = e.text;
  ori::ParseResult back = ori::ptx::parseAndLower(e.text, "emitted.ptx");
  if (back.error) {
    ADD_FAILURE() << back.error->str() << "\n" << e.text;
    return k;
  }
  k.reEmitted = std::move(*back.module);
  return k;
}

// Runs both modules on `cfg`; both must end ok. Returns the bytes of `buffer` of each.
inline std::vector<std::vector<uint8_t>> runBoth(const Kernel &k, const ori::RunConfig &cfg,
                                                 const std::string &buffer) {
  std::vector<std::vector<uint8_t>> out;
  for (const ori::Module *m : {&k.lowered, &k.reEmitted}) {
    ori::RunResult r = ori::runKernel(*m, cfg);
    EXPECT_EQ(int(r.kind), int(ori::RunResult::Kind::Ok))
        << (m == &k.lowered ? "lowered: " : "re-emitted: ") << ori::formatExit(r, "kernel") << " "
        << r.message;
    out.push_back(r.buffers[buffer]);
  }
  return out;
}

inline uint64_t le64(const std::vector<uint8_t> &b, size_t off) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8 && off + i < b.size(); ++i)
    v |= uint64_t(b[off + i]) << (8 * i);
  return v;
}

// ---------------------------------------------------------------- one computation per case
// A kernel whose inputs are the parameters a, b, c (also as %r1..3, %h1..3, %f1..3 and
// %fd1..3) and whose outputs are %r0 and %rd9; checkCase lowers it, runs it before and after
// --emit=ptx, and compares the outputs with the case's (derived by hand in each test file).
inline std::string caseKernel(const std::string &body) {
  return R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 a, .param .u64 b, .param .u64 c)
{
  .reg .b16 %h<8>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  .reg .pred %p<4>;
  .reg .f32 %f<4>;
  .reg .f64 %fd<4>;
  ld.param.u64 %rd0, [out];
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  cvt.u32.u64 %r1, %rd1;
  cvt.u32.u64 %r2, %rd2;
  cvt.u32.u64 %r3, %rd3;
  cvt.u16.u32 %h1, %r1;
  cvt.u16.u32 %h2, %r2;
  cvt.u16.u32 %h3, %r3;
  mov.b32 %f1, %r1;
  mov.b32 %f2, %r2;
  mov.b32 %f3, %r3;
  mov.b64 %fd1, %rd1;
  mov.b64 %fd2, %rd2;
  mov.b64 %fd3, %rd3;
  mov.u32 %r0, 0;
  mov.u64 %rd9, 0;
)" + body +
         R"(
  st.global.u32 [%rd0], %r0;
  st.global.u64 [%rd0+8], %rd9;
  ret;
}
)";
}

struct Case {
  const char *body;
  uint64_t a, b, c;
  uint32_t r0;                                // expected %r0
  std::optional<uint64_t> rd9 = std::nullopt; // expected %rd9, where the case writes it
};

inline void checkCase(const Case &t) {
  SCOPED_TRACE(t.body);
  Kernel k = lowerAndReEmit(caseKernel(t.body));
  for (const ori::Function &f : k.lowered.functions)
    for (const ori::Block &b : f.blocks)
      for (const ori::Instr &in : b.instrs)
        EXPECT_NE(in.op, ori::Opcode::OPAQUE) << "not lowered natively";
  ori::RunConfig cfg;
  cfg.params = {{"a", t.a}, {"b", t.b}, {"c", t.c}};
  cfg.buffers["out"] = std::vector<uint8_t>(16, 0xee);
  for (const std::vector<uint8_t> &out : runBoth(k, cfg, "out")) {
    EXPECT_EQ(uint32_t(le64(out, 0)), t.r0);
    if (t.rd9) {
      EXPECT_EQ(le64(out, 8), *t.rd9);
    }
  }
  if (havePtxas()) {
    EXPECT_EQ(ptxasErrors(k.emittedPtx), "") << k.emittedPtx;
  }
}

} // namespace ptxtest
