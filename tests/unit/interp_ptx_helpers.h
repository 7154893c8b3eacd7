// What the tests of the interpreter on lowered PTX share (tests/unit/interp_ptx_test.cpp,
// interp_nvcc_test.cpp): lowering, reading a buffer, the PTX header, temporary files.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "interp/interp.h"
#include "ptx/ptx.h"

namespace ori::test {

namespace fs = std::filesystem;
using Kind = RunResult::Kind;

inline Module lower(const std::string &text, const std::string &name = "t.ptx") {
  ParseResult r = ptx::parseAndLower(text, name);
  if (!r.module) {
    ADD_FAILURE() << r.error->str();
    return Module{};
  }
  return std::move(*r.module);
}

inline uint64_t le(const std::vector<uint8_t> &b, size_t off, size_t n) {
  uint64_t v = 0;
  for (size_t k = 0; k < n && off + k < b.size(); ++k)
    v |= uint64_t(b[off + k]) << (8 * k);
  return v;
}

inline std::string describe(const RunResult &r) {
  return formatExit(r, "t.ptx") + " (" + r.message + ")";
}

inline const char *const kHeader = ".version 9.0\n.target sm_90\n.address_size 64\n\n";

inline std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline fs::path tempPath(const std::string &tag, const std::string &ext) {
  return fs::temp_directory_path() /
         ("oriopt_interp_" + tag + "_" + std::to_string(::getpid()) + ext);
}

} // namespace ori::test
