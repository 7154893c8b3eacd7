// Test support: a PTX kernel body (after the .version/.target/.address_size header this adds)
// read and lowered to Ori, and the module's kernel. A parse error or a missing kernel is a
// test failure, not a crash.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "ir/ir.h"
#include "ptx/ptx.h"

namespace ori {

inline Module lower(const std::string &body) {
  const std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n" + body;
  ParseResult p = ptx::parseAndLower(text, "t.ptx");
  if (!p.module) {
    ADD_FAILURE() << p.error->str();
    return {};
  }
  return std::move(*p.module);
}

inline const Function &kernelOf(const Module &m) {
  for (const Function &f : m.functions)
    if (f.isEntry)
      return f;
  static Function none;
  ADD_FAILURE() << "no kernel";
  return none;
}

} // namespace ori
