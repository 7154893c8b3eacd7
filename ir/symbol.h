// An interned name: a symbol of an operand (a variable, function, parameter or
// texture name), or the text of an OPAQUE instruction. Every distinct string
// is stored once for the life of the program, so a Symbol is one pointer:
// copying and comparing it costs nothing, and an Operand holding one is 32
// bytes instead of 56.
// Strings are never freed; a program reading many modules keeps each distinct
// one it met (they are few: labels are block indices, not Symbols, and OPAQUE
// instructions are 0.07% of the corpus's).
#pragma once

#include <compare>
#include <iosfwd>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace ori {

class Symbol {
public:
  Symbol() = default; // the empty name
  Symbol(std::string_view name) : p_(name.empty() ? nullptr : intern(name)) {}
  Symbol(const std::string &name) : Symbol(std::string_view(name)) {}
  Symbol(const char *name) : Symbol(std::string_view(name)) {}

  const std::string &str() const { return p_ ? *p_ : empty_(); }
  operator const std::string &() const { return str(); }
  operator std::string_view() const { return str(); }
  bool empty() const { return p_ == nullptr; }
  size_t size() const { return str().size(); }
  bool starts_with(std::string_view s) const { return str().starts_with(s); }
  bool starts_with(char c) const { return str().starts_with(c); }

  // Interned: equal names are the same pointer.
  friend bool operator==(Symbol a, Symbol b) { return a.p_ == b.p_; }
  friend bool operator==(Symbol a, std::string_view b) { return a.str() == b; }
  friend bool operator==(Symbol a, const std::string &b) { return a.str() == b; }
  friend bool operator==(Symbol a, const char *b) { return a.str() == b; }
  // Ordered by text, so that containers of Symbols iterate as of strings.
  friend std::strong_ordering operator<=>(Symbol a, Symbol b) { return a.str() <=> b.str(); }

private:
  static const std::string *intern(std::string_view name);
  static const std::string &empty_();
  const std::string *p_ = nullptr;
};

inline std::string operator+(const std::string &a, Symbol b) { return a + b.str(); }
inline std::string operator+(Symbol a, const std::string &b) { return a.str() + b; }
inline std::string operator+(const char *a, Symbol b) { return a + b.str(); }
inline std::string operator+(Symbol a, const char *b) { return a.str() + b; }
std::ostream &operator<<(std::ostream &out, Symbol s); // the text (test messages print it)

} // namespace ori

template <> struct fmt::formatter<ori::Symbol> : fmt::formatter<std::string_view> {
  template <class Ctx> auto format(ori::Symbol s, Ctx &ctx) const {
    return fmt::formatter<std::string_view>::format(std::string_view(s.str()), ctx);
  }
};

template <> struct std::hash<ori::Symbol> {
  size_t operator()(ori::Symbol s) const { return std::hash<const void *>()(&s.str()); }
};
