// ori::InlineVector (ir/inline_vector.h), the type of Instr::dsts and Instr::srcs: random
// sequences of the operations the IR uses, run on it and on std::vector side by side, must
// leave the same elements, across the step from the inline storage to the heap and back (a
// copy or move of a list that spilled), with arguments that alias the list's own elements.
#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "ir/ir.h"

namespace ori {
namespace {

Operand value(int64_t i) {
  return i % 3 == 0 ? Operand::reg_(R(uint32_t(i))) : Operand::immediate(i);
}

template <class List> void expectSame(const List &got, const std::vector<Operand> &want, int step) {
  ASSERT_EQ(got.size(), want.size()) << "step " << step;
  ASSERT_EQ(got.empty(), want.empty());
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_TRUE(got[i] == want[i]) << "step " << step << ", element " << i;
  ASSERT_TRUE(got == want);
  ASSERT_TRUE(std::vector<Operand>(got) == want);
  ASSERT_GE(got.capacity(), got.size());
}

template <class List> void randomOperations(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](size_t n) { return size_t(rng() % n); };
  List list;
  std::vector<Operand> model;
  int64_t next = 1;
  for (int step = 0; step < 400; ++step) {
    switch (pick(12)) {
    case 0:
    case 1: {
      const Operand v = value(next++);
      list.push_back(v), model.push_back(v);
      break;
    }
    case 2: // an element of the list itself, when growing moves the storage
      if (!model.empty()) {
        const size_t i = pick(model.size());
        list.push_back(list[i]), model.push_back(model[i]);
      }
      break;
    case 3:
      if (!model.empty())
        list.pop_back(), model.pop_back();
      break;
    case 4: {
      const size_t at = pick(model.size() + 1);
      if (model.empty()) {
        const Operand v = value(next++);
        list.insert(list.begin(), v), model.insert(model.begin(), v);
        break;
      }
      const size_t j = pick(model.size()); // one of its own elements
      const auto it = list.insert(list.begin() + at, list[j]);
      model.insert(model.begin() + long(at), Operand(model[j]));
      ASSERT_EQ(size_t(it - list.begin()), at);
      break;
    }
    case 5:
      if (!model.empty()) {
        const size_t at = pick(model.size());
        const auto it = list.erase(list.begin() + at);
        model.erase(model.begin() + long(at));
        ASSERT_EQ(size_t(it - list.begin()), at);
      }
      break;
    case 6: {
      const size_t n = pick(7);
      const Operand v = value(next++);
      list.resize(n, v), model.resize(n, v);
      break;
    }
    case 7: { // assign from its own elements
      const size_t from = pick(model.size() + 1), to = from + pick(model.size() - from + 1);
      list.assign(list.begin() + from, list.begin() + to);
      model = std::vector<Operand>(model.begin() + long(from), model.begin() + long(to));
      break;
    }
    case 8: { // copy, then the copy replaces the list
      List copy(list);
      expectSame(copy, model, step);
      list = copy;
      break;
    }
    case 9: { // move out and back
      List moved(std::move(list));
      expectSame(moved, model, step);
      EXPECT_TRUE(list.empty());
      list = std::move(moved);
      EXPECT_TRUE(moved.empty());
      moved.push_back(value(0)); // a moved-from list is usable
      break;
    }
    case 10: {
      std::vector<Operand> v;
      for (size_t n = pick(6); n-- > 0;)
        v.push_back(value(next++));
      list = v, model = v;
      break;
    }
    case 11:
      list.clear(), model.clear();
      break;
    }
    expectSame(list, model, step);
  }
}

TEST(InlineVector, MatchesStdVectorOnRandomOperations) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    randomOperations<DstList>(seed);
    randomOperations<SrcList>(seed);
    randomOperations<InlineVector<Operand, 2>>(seed);
    if (HasFatalFailure())
      FAIL() << "seed " << seed;
  }
}

TEST(InlineVector, KeepsShortListsInside) {
  // The reason the type exists: one destination and three sources cost no allocation.
  static_assert(sizeof(DstList) <= 8 + 1 * sizeof(Operand));
  static_assert(sizeof(SrcList) <= 8 + 3 * sizeof(Operand));
  Instr in = makeInstr(Opcode::IADD3, {Operand::reg_(R(1))},
                       {Operand::reg_(R(2)), Operand::immediate(3), Operand::reg_(RZ)});
  const auto *self = reinterpret_cast<const char *>(&in);
  auto inside = [&](const void *p) {
    const auto *c = static_cast<const char *>(p);
    return c >= self && c < self + sizeof(Instr);
  };
  EXPECT_TRUE(inside(in.dsts.data()));
  EXPECT_TRUE(inside(in.srcs.data()));
  EXPECT_EQ(in.srcs.capacity(), 3u);
  in.srcs.push_back(Operand::immediate(4)); // a fourth source goes to the heap, in order
  EXPECT_FALSE(inside(in.srcs.data()));
  ASSERT_EQ(in.srcs.size(), 4u);
  EXPECT_EQ(in.srcs[1].imm, 3);
  EXPECT_EQ(in.srcs[3].imm, 4);
  const Instr copy = in; // a copy of a spilled list has its own storage
  EXPECT_NE(copy.srcs.data(), in.srcs.data());
  EXPECT_EQ(copy, in);
  in.srcs.erase(in.srcs.begin() + 3);
  EXPECT_NE(copy, in);
  EXPECT_EQ(in, makeInstr(Opcode::IADD3, {Operand::reg_(R(1))},
                          {Operand::reg_(R(2)), Operand::immediate(3), Operand::reg_(RZ)}));
}

TEST(InlineVector, AtChecksTheIndex) {
  SrcList s{Operand::immediate(1)};
  EXPECT_EQ(s.at(0).imm, 1);
  EXPECT_THROW(s.at(1), std::out_of_range);
}

} // namespace
} // namespace ori
