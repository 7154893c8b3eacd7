// ori::Symbol (ir/symbol.h): interned names, equal exactly when their text is equal, ordered
// and hashed consistently, safe to intern from several threads at once.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <set>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "ir/ir.h"

namespace ori {
namespace {

TEST(Symbol, EqualTextIsTheSameName) {
  std::string a = "shared_buf", b = "shared_";
  b += "buf"; // built separately, so the two strings do not share storage
  const Symbol x(a), y(b), z("other");
  EXPECT_EQ(x, y);
  EXPECT_EQ(&x.str(), &y.str()); // interned: one copy of the text
  EXPECT_NE(x, z);
  EXPECT_EQ(x, "shared_buf");
  EXPECT_EQ(std::string("shared_buf"), x);
  EXPECT_FALSE(x == std::string_view("shared_bu"));
  EXPECT_EQ(std::hash<Symbol>()(x), std::hash<Symbol>()(y));
}

TEST(Symbol, EmptyIsTheDefault) {
  const Symbol none, fromEmpty(std::string{});
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(fromEmpty.empty());
  EXPECT_EQ(none, fromEmpty);
  EXPECT_EQ(none.str(), "");
  EXPECT_EQ(none.size(), 0u);
  EXPECT_FALSE(Symbol("v").empty());
}

TEST(Symbol, OrderedByTextNotByAddress) {
  // Interned in the reverse of their text order, so that an order by address would differ.
  const std::vector<std::string> names = {"zz_sym_order", "mm_sym_order", "aa_sym_order"};
  std::set<Symbol> set;
  for (const std::string &n : names)
    set.insert(Symbol(n));
  std::vector<std::string> got;
  for (Symbol s : set)
    got.push_back(s.str());
  EXPECT_EQ(got, (std::vector<std::string>{"aa_sym_order", "mm_sym_order", "zz_sym_order"}));
  EXPECT_LT(Symbol("a"), Symbol("b"));
}

TEST(Symbol, FormatsAndConcatenatesAsItsText) {
  const Symbol s("tex0");
  EXPECT_EQ(fmt::format("[{}+4]", s), "[tex0+4]");
  EXPECT_EQ(" " + s + ";", " tex0;");
  EXPECT_TRUE(s.starts_with("tex"));
  EXPECT_TRUE(s.starts_with('t'));
  const std::string &text = s;
  EXPECT_EQ(text, "tex0");
}

TEST(Symbol, OperandsWithEqualNamesCompareEqual) {
  EXPECT_EQ(Operand::symbol("f"), Operand::symbol(std::string("f")));
  EXPECT_FALSE(Operand::symbol("f") == Operand::symbol("g"));
  EXPECT_EQ(Operand::mem(R(1), 8, "arr"), Operand::mem(R(1), 8, std::string("arr")));
  EXPECT_FALSE(Operand::mem(R(1), 8, "arr") == Operand::mem(R(1), 8, "arr2"));
  EXPECT_EQ(sizeof(Operand), 32u); // the point of interning (and of ir.h's unions)
}

TEST(Symbol, ConcurrentInterningAgrees) {
  // Four threads intern the same 2,000 names, each in its own order; every thread must get
  // the same pointer for a name, and distinct names distinct pointers.
  constexpr int kThreads = 4, kNames = 2000;
  std::vector<std::vector<const std::string *>> got(kThreads,
                                                    std::vector<const std::string *>(kNames));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < kNames; ++k) {
        const int i = t % 2 ? kNames - 1 - k : k;
        got[t][i] = &Symbol(fmt::format("concurrent_{}", i)).str();
      }
    });
  for (std::thread &th : threads)
    th.join();
  std::unordered_set<const std::string *> distinct;
  for (int i = 0; i < kNames; ++i) {
    for (int t = 1; t < kThreads; ++t)
      ASSERT_EQ(got[t][i], got[0][i]) << "name " << i;
    EXPECT_EQ(*got[0][i], fmt::format("concurrent_{}", i));
    distinct.insert(got[0][i]);
  }
  EXPECT_EQ(distinct.size(), size_t(kNames));
}

} // namespace
} // namespace ori
