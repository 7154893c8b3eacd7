// What the switch extraction tests share (tests/unit/switch_*_test.cpp): parsing, label ids,
// the extracted program of a head, and the pair of functions a check compares.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <variant>

#include "interp/interp.h"
#include "ir/ori.h"
#include "pipeline/verify_phases.h"
#include "verify/switch_extract.h"

namespace switch_test {

using ori::Function;
using ori::Module;
using ori::verify::DispatchProgram;
using ori::verify::dispatchTarget;
using ori::verify::extractDispatch;
using ori::verify::kFaultTarget;
using ori::verify::SwitchCheckResult;
using Verdict = SwitchCheckResult::Verdict;

inline Module parseModule(const std::string &text) {
  ori::ParseResult r = ori::parseOri(text, "switch.ori");
  if (!r.module)
    throw std::runtime_error(r.error ? r.error->str() : "parse error");
  return std::move(*r.module);
}

inline const Function &fn(const Module &m, const std::string &name) {
  const Function *f = m.findFunction(name);
  if (!f)
    throw std::runtime_error("no function " + name);
  return *f;
}

// `text` with its one occurrence of `from` replaced by `to`.
inline std::string replaced(std::string text, const std::string &from, const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from << " occurs twice";
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

// Label ids are source positions (0x10 x the index of a block's first
// instruction), so a hand-written `after` numbers its blocks differently from
// `before`, while the pass keeps every block's id. This gives `after` the ids
// the pass would have kept: the entry's and each label's from `before`;
// `kept` maps labels of `after` to unlabelled blocks of `before` (by bix); any
// other block is new and gets a fresh id.
inline void keepIds(const Function &before, Function &after,
                    const std::map<std::string, uint32_t> &kept = {}) {
  for (uint32_t b = 0; b < after.blocks.size(); ++b) {
    ori::Block &blk = after.blocks[b];
    blk.labelId = 0x100000 + 0x10 * b;
    if (b == 0)
      blk.labelId = before.blocks[0].labelId;
    if (blk.label.empty())
      continue;
    if (auto it = kept.find(blk.label); it != kept.end())
      blk.labelId = before.blocks.at(it->second).labelId;
    else if (auto bb = before.findBlock(blk.label))
      blk.labelId = before.blocks[*bb].labelId;
  }
}

inline uint32_t idOf(const Function &f, const std::string &label) {
  std::optional<uint32_t> b = f.findBlock(label);
  EXPECT_TRUE(b) << label;
  return b ? f.blocks[*b].labelId : 0;
}

inline DispatchProgram program(const Function &f, uint32_t head, ori::Reg sel) {
  auto r = extractDispatch(f, head, sel);
  if (auto *e = std::get_if<std::string>(&r)) {
    ADD_FAILURE() << "not extracted: " << *e;
    DispatchProgram none; // still valid, so evaluating it does not crash the suite
    none.target(0xdeadu);
    return none;
  }
  DispatchProgram p = std::get<DispatchProgram>(r);
  EXPECT_EQ(ori::verify::validate(p), "");
  return p;
}

inline std::string errorOf(const Function &f, uint32_t head, ori::Reg sel,
                           size_t maxNodes = ori::verify::kMaxDispatchNodes) {
  auto r = extractDispatch(f, head, sel, maxNodes);
  if (auto *e = std::get_if<std::string>(&r))
    return *e;
  ADD_FAILURE() << "extracted, but an error was expected";
  return {};
}

// switch (tid) { case 2: r = 20; case 3: r = 30; case 4: r = 40; case 6: r = 60;
// case 7: r = 70; default: r = 0 } out[tid] = r;  (5 is a gap)

struct Pair {
  Module before, after;
  const Function &b() const { return before.functions.at(0); }
  const Function &a() const { return after.functions.at(0); }
};

// The one checked switch of a pair: the tree's head (bix0). The inner compare
// blocks are heads too, but `after` has no block with their ids: skipped.
inline SwitchCheckResult onlyResult(const Pair &p) {
  std::vector<SwitchCheckResult> rs = ori::verify::checkSwitchRewrites(p.b(), p.a());
  EXPECT_EQ(rs.size(), 1u);
  if (rs.empty())
    return {};
  EXPECT_EQ(rs[0].headBix, 0u);
  EXPECT_EQ(rs[0].selector, ori::R(1));
  return rs[0];
}

// A refuted pair: the counterexample really goes to two places, and those are
// the ones reported.
inline void expectRealCounterexample(const Pair &p, const SwitchCheckResult &r) {
  ASSERT_EQ(r.verdict, Verdict::Refuted) << r.line;
  ASSERT_TRUE(r.counterexample);
  DispatchProgram pb = program(p.b(), 0, r.selector), pa = program(p.a(), 0, r.selector);
  uint32_t tb = dispatchTarget(pb, *r.counterexample), ta = dispatchTarget(pa, *r.counterexample);
  EXPECT_NE(tb, ta);
  EXPECT_EQ(tb, r.beforeTarget);
  EXPECT_EQ(ta, r.afterTarget);
}

} // namespace switch_test
