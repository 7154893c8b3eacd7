// Test support for the .ori round-trip suites (ori_roundtrip_test.cpp,
// ori_opcode_table_roundtrip_test.cpp): the source directory, a file's text, and the whole
// round-trip guarantee checked on one text (docs/ori-format.md, "Round trip").
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ir/ori.h"
#include "ir/verify.h"

namespace ori::roundtrip_test {
inline std::string sourceDir() {
  if (const char *env = std::getenv("ORIOPT_SOURCE_DIR"); env && *env)
    return env;
#ifdef ORIOPT_SOURCE_DIR
  return ORIOPT_SOURCE_DIR;
#else
  return "";
#endif
}

inline std::string readFile(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Checks the whole guarantee for one text; returns the parsed module.
inline Module checkRoundTrip(const std::string &text, const std::string &name) {
  ParseResult r = parseOri(text, name);
  if (!r.module) {
    ADD_FAILURE() << name << ": does not parse: " << (r.error ? r.error->str() : "?");
    return {};
  }
  const Module &m = *r.module;
  std::vector<std::string> problems = verifyModule(m);
  EXPECT_TRUE(problems.empty()) << name
                                << ": verifyModule: " << (problems.empty() ? "" : problems[0]);
  std::string printed = printModule(m);
  ParseResult r2 = parseOri(printed, name + ".printed");
  if (!r2.module) {
    ADD_FAILURE() << name << ": printed text does not parse: " << r2.error->str() << "\n"
                  << printed;
    return m;
  }
  EXPECT_TRUE(*r2.module == m) << name << ": parse(print(m)) != m\n" << printed;
  EXPECT_EQ(printModule(*r2.module), printed) << name << ": print is not stable";
  EXPECT_TRUE(verifyModule(*r2.module).empty()) << name;
  return m;
}

} // namespace ori::roundtrip_test
