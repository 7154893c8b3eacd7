// What the interpreter's tests share (tests/unit/interp_*_test.cpp): parsing a kernel, running
// it, and reading a register or a buffer after the run.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interp/interp.h"
#include "ir/ori.h"

namespace ori::test {

using Kind = RunResult::Kind;

inline Module parse(const std::string &text) {
  ParseResult r = parseOri(text, "t.ori");
  if (!r.module) {
    ADD_FAILURE() << r.error->str() << "\n" << text;
    return Module{};
  }
  return std::move(*r.module);
}

inline RunResult run(const std::string &text, RunConfig cfg = {}) {
  return runKernel(parse(text), cfg);
}

inline RunConfig withEntry(const std::string &entry) {
  RunConfig cfg;
  cfg.entry = entry;
  return cfg;
}

inline RunConfig withThreads(uint32_t threads) {
  RunConfig cfg;
  cfg.threads = threads;
  return cfg;
}

inline uint64_t le(const std::vector<uint8_t> &b, size_t off, size_t n) {
  uint64_t v = 0;
  for (size_t k = 0; k < n && off + k < b.size(); ++k)
    v |= uint64_t(b[off + k]) << (8 * k);
  return v;
}

inline std::string describe(const RunResult &r) {
  return formatExit(r, "t.ori") + " (" + r.message + ")";
}

// Runs `body` in a one-thread kernel and returns the 64-bit container of `reg`
// afterwards (stored with STG.E.64 into an 8-byte buffer).
inline uint64_t regAfter(const std::string &body, const std::string &reg = "R3") {
  std::string text = ".entry k(.u64 out)\n{\n" + body +
                     "\n  MOV.64 R250, c[0x0][0x210]\n  STG.E.64 [R250], " + reg + "\n  EXIT\n}\n";
  RunConfig cfg;
  cfg.buffers["out"] = std::vector<uint8_t>(8);
  RunResult r = runKernel(parse(text), cfg);
  EXPECT_EQ(r.kind, Kind::Ok) << describe(r) << "\n" << body;
  return le(r.buffers["out"], 0, 8);
}

inline bool predAfter(const std::string &body, const std::string &pred = "P0") {
  return regAfter(body + "\n  SEL R251, 0x1, RZ, " + pred, "R251") == 1;
}

} // namespace ori::test
