// Test support: the one function of a small .ori text, as the CFG and
// annotation suites write their cases. A parse error or a second function is
// a test failure, not a crash.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "ir/ori.h"

namespace ori {

inline Function parseOne(const std::string &text) {
  ParseResult r = parseOri(text, "test.ori");
  if (!r.module) {
    ADD_FAILURE() << "parse error: " << (r.error ? r.error->message : "?");
    return {};
  }
  EXPECT_EQ(r.module->functions.size(), 1u);
  return r.module->functions.at(0);
}

} // namespace ori
