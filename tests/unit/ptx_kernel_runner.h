// Test helper: one small PTX kernel, lowered, run in the interpreter, and the
// same after --emit=ptx and reading the PTX back; the emitted PTX assembled by
// ptxas when it is on PATH. Used by the per-family lowering tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include "ir/interp.h"
#include "ptx/ptx.h"

namespace ptxtest {

inline bool havePtxas() { return std::system("command -v ptxas >/dev/null 2>&1") == 0; }

// "" when ptxas assembles `ptx` for sm_90, else its messages.
inline std::string ptxasErrors(const std::string& ptx) {
  static int counter = 0;
  namespace fs = std::filesystem;
  fs::path file = fs::temp_directory_path() /
                  ("oriopt_kernel_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".ptx");
  fs::path log = file;
  log += ".log";
  std::ofstream(file, std::ios::binary) << ptx;
  std::string cmd = "ptxas -arch=sm_90 '" + file.string() + "' -o /dev/null > '" + log.string() + "' 2>&1";
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

// Lowers `ptx`, prints it back with --emit=ptx and lowers that again.
inline Kernel lowerAndReEmit(const std::string& ptx) {
  Kernel k;
  ori::ParseResult r = ori::ptx::parseAndLower(ptx, "kernel.ptx");
  if (r.error) {
    ADD_FAILURE() << r.error->str() << "\n" << ptx;
    return k;
  }
  k.lowered = std::move(*r.module);
  ori::ptx::EmitResult e = ori::ptx::emit(k.lowered);
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
inline std::vector<std::vector<uint8_t>> runBoth(const Kernel& k, const ori::RunConfig& cfg, const std::string& buffer) {
  std::vector<std::vector<uint8_t>> out;
  for (const ori::Module* m : {&k.lowered, &k.reEmitted}) {
    ori::RunResult r = ori::runKernel(*m, cfg);
    EXPECT_EQ(int(r.kind), int(ori::RunResult::Kind::Ok))
        << (m == &k.lowered ? "lowered: " : "re-emitted: ") << ori::formatExit(r, "kernel") << " " << r.message;
    out.push_back(r.buffers[buffer]);
  }
  return out;
}

inline uint64_t le64(const std::vector<uint8_t>& b, size_t off) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8 && off + i < b.size(); ++i) v |= uint64_t(b[off + i]) << (8 * i);
  return v;
}

} // namespace ptxtest
