#include "ptx/lexer.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>

#include <fmt/format.h>

namespace ori::ptx {
namespace {

enum : uint8_t { kIdStart = 1, kIdCont = 2, kDigit = 4, kHex = 8, kSpace = 16 };

constexpr std::array<uint8_t, 256> makeClasses() {
  std::array<uint8_t, 256> c{};
  for (int i = 'a'; i <= 'z'; ++i)
    c[i] = kIdStart | kIdCont;
  for (int i = 'A'; i <= 'Z'; ++i)
    c[i] = kIdStart | kIdCont;
  for (int i = '0'; i <= '9'; ++i)
    c[i] = kIdCont | kDigit | kHex;
  for (int i = 'a'; i <= 'f'; ++i)
    c[i] |= kHex;
  for (int i = 'A'; i <= 'F'; ++i)
    c[i] |= kHex;
  c['_'] = c['$'] = kIdStart | kIdCont;
  c['%'] = kIdStart;
  c[' '] = c['\t'] = c['\r'] = c['\f'] = kSpace;
  return c;
}
constexpr std::array<uint8_t, 256> kClass = makeClasses();

inline bool has(char ch, uint8_t cls) { return kClass[static_cast<unsigned char>(ch)] & cls; }
inline bool isCont(char ch) { return (static_cast<unsigned char>(ch) & 0xC0) == 0x80; }
inline uint64_t hexValue(char ch) {
  return static_cast<uint64_t>(has(ch, kDigit) ? ch - '0' : (ch | 0x20) - 'a' + 10);
}

} // namespace

Lexer::Lexer(std::string_view text, std::string_view file) : text_(text), file_(file) {}

uint32_t Lexer::colOf(size_t offset) const {
  return static_cast<uint32_t>(offset - lineStart_ + 1 - contBytes_);
}

void Lexer::fail(const Token &t, std::string message) const {
  failAt(t.line, t.col, std::move(message));
}

void Lexer::failAt(uint32_t line, uint32_t col, std::string message) const {
  throw DiagnosticError(Diagnostic{file_, line, col, std::move(message)});
}

void Lexer::failHere(size_t offset, std::string message) const {
  failAt(line_, colOf(offset), std::move(message));
}

std::string Lexer::describe(const Token &t) const {
  return t.kind == Tok::End ? "end of file" : quote(spell(t));
}

std::string Lexer::quote(std::string_view s) {
  if (s.size() <= 40)
    return fmt::format("'{}'", s);
  size_t cut = 37;
  while (cut > 0 && isCont(s[cut]))
    --cut; // keep UTF-8 sequences whole
  return fmt::format("'{}...'", s.substr(0, cut));
}

void Lexer::fill(size_t k) {
  while (count_ <= k) {
    ring_[(head_ + count_) % kLookahead] = lexOne();
    ++count_;
  }
}

void Lexer::skipSpaceAndComments() {
  const size_t n = text_.size();
  for (;;) {
    while (pos_ < n) {
      char c = text_[pos_];
      if (has(c, kSpace)) {
        ++pos_;
      } else if (c == '\n') {
        ++pos_;
        ++line_;
        lineStart_ = pos_;
        contBytes_ = 0;
      } else {
        break;
      }
    }
    if (pos_ + 1 >= n || text_[pos_] != '/')
      return;
    if (text_[pos_ + 1] == '/') {
      const void *nl = std::memchr(text_.data() + pos_, '\n', n - pos_);
      pos_ = nl ? static_cast<size_t>(static_cast<const char *>(nl) - text_.data()) : n;
      continue;
    }
    if (text_[pos_ + 1] != '*')
      return;
    const uint32_t line = line_, col = colOf(pos_);
    pos_ += 2;
    for (;;) {
      if (pos_ >= n)
        failAt(line, col, "unterminated '/*' comment");
      char c = text_[pos_++];
      if (c == '*' && pos_ < n && text_[pos_] == '/') {
        ++pos_;
        break;
      }
      if (c == '\n') {
        ++line_;
        lineStart_ = pos_;
        contBytes_ = 0;
      } else if (isCont(c)) {
        ++contBytes_;
      }
    }
  }
}

Token Lexer::lexOne() {
  skipSpaceAndComments();
  const size_t n = text_.size();
  Token t;
  t.begin = static_cast<uint32_t>(pos_);
  t.line = line_;
  t.col = colOf(pos_);
  if (pos_ >= n) {
    t.end = t.begin;
    return t;
  }
  const char c = text_[pos_];
  auto one = [&](Tok k) {
    t.kind = k;
    ++pos_;
  };
  switch (c) {
  case '{':
    one(Tok::LBrace);
    break;
  case '}':
    one(Tok::RBrace);
    break;
  case '(':
    one(Tok::LParen);
    break;
  case ')':
    one(Tok::RParen);
    break;
  case '[':
    one(Tok::LBrack);
    break;
  case ']':
    one(Tok::RBrack);
    break;
  case '<':
    one(Tok::Lt);
    break;
  case '>':
    one(Tok::Gt);
    break;
  case ',':
    one(Tok::Comma);
    break;
  case ';':
    one(Tok::Semi);
    break;
  case ':':
    one(Tok::Colon);
    break;
  case '+':
    one(Tok::Plus);
    break;
  case '-':
    one(Tok::Minus);
    break;
  case '!':
    one(Tok::Bang);
    break;
  case '|':
    one(Tok::Pipe);
    break;
  case '=':
    one(Tok::Eq);
    break;
  case '@':
    if (text_.substr(pos_, 7) == "@@DWARF") {
      t.kind = Tok::DwarfLine;
      while (pos_ < n && text_[pos_] != '\n')
        ++pos_;
      while (pos_ > t.begin && (text_[pos_ - 1] == '\r' || text_[pos_ - 1] == ' ' ||
                                text_[pos_ - 1] == '\t' || text_[pos_ - 1] == '\f'))
        --pos_;
    } else {
      one(Tok::At);
    }
    break;
  case '"': {
    t.kind = Tok::String;
    ++pos_;
    for (;;) {
      if (pos_ >= n || text_[pos_] == '\n')
        fail(t, "unterminated string");
      char ch = text_[pos_++];
      if (ch == '"')
        break;
      if (ch == '\\' && pos_ < n && text_[pos_] != '\n')
        ch = text_[pos_++];
      if (isCont(ch))
        ++contBytes_;
    }
    break;
  }
  case '.':
    if (pos_ + 1 < n && has(text_[pos_ + 1], kIdCont)) {
      t.kind = Tok::Dir;
      ++pos_;
      for (;;) {
        while (pos_ < n && has(text_[pos_], kIdCont))
          ++pos_;
        // .shared::cta, .L2::cache_hint, .mbarrier::complete_tx::bytes
        if (pos_ + 2 < n && text_[pos_] == ':' && text_[pos_ + 1] == ':' &&
            has(text_[pos_ + 2], kIdCont)) {
          pos_ += 2;
          continue;
        }
        break;
      }
    } else {
      one(Tok::Other);
    }
    break;
  default:
    if (has(c, kDigit)) {
      lexNumber(t);
    } else if (has(c, kIdStart)) {
      ++pos_;
      while (pos_ < n && has(text_[pos_], kIdCont))
        ++pos_;
      t.kind = (c == '%' && pos_ == t.begin + 1u) ? Tok::Other : Tok::Ident;
    } else {
      // One character, all of its UTF-8 sequence.
      t.kind = Tok::Other;
      ++pos_;
      while (pos_ < n && isCont(text_[pos_])) {
        ++pos_;
        ++contBytes_;
      }
    }
  }
  t.end = static_cast<uint32_t>(pos_);
  return t;
}

void Lexer::lexNumber(Token &t) {
  const size_t n = text_.size(), start = pos_;
  auto at = [&](size_t i) { return i < n ? text_[i] : '\0'; };
  auto malformed = [&](const char *what, const char *hint = "") {
    while (pos_ < n && (has(text_[pos_], kIdCont) || text_[pos_] == '.'))
      ++pos_;
    failHere(start,
             fmt::format("malformed {} '{}'{}", what, text_.substr(start, pos_ - start), hint));
  };
  auto tooBig = [&] {
    while (pos_ < n && has(text_[pos_], kIdCont))
      ++pos_;
    failHere(start, fmt::format("integer literal '{}' does not fit in 64 bits",
                                text_.substr(start, pos_ - start)));
  };
  uint64_t v = 0;
  t.kind = Tok::Int;
  const char x = at(pos_ + 1);
  if (text_[pos_] == '0' && (x == 'f' || x == 'F' || x == 'd' || x == 'D')) {
    // 0f + 8 hex digits: binary32 bits; 0d + 16 hex digits: binary64 bits.
    const bool f32 = (x == 'f' || x == 'F');
    const size_t want = f32 ? 8 : 16;
    pos_ += 2;
    size_t digits = 0;
    while (pos_ < n && has(text_[pos_], kHex)) {
      v = (v << 4) | hexValue(text_[pos_]);
      ++pos_;
      ++digits;
    }
    if (digits != want || has(at(pos_), kIdCont))
      malformed("float literal", f32 ? ": 0f needs 8 hex digits" : ": 0d needs 16 hex digits");
    t.kind = Tok::Float;
    t.f32 = f32;
    t.ival = v;
    t.fval = f32 ? static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(v)))
                 : std::bit_cast<double>(v);
    return;
  }
  if (text_[pos_] == '0' && (x == 'x' || x == 'X')) {
    pos_ += 2;
    if (!has(at(pos_), kHex))
      malformed("integer literal");
    while (pos_ < n && has(text_[pos_], kHex)) {
      if (v >> 60)
        tooBig();
      v = (v << 4) | hexValue(text_[pos_]);
      ++pos_;
    }
  } else if (text_[pos_] == '0' && (x == 'b' || x == 'B')) {
    pos_ += 2;
    if (at(pos_) != '0' && at(pos_) != '1')
      malformed("integer literal");
    while (pos_ < n && (text_[pos_] == '0' || text_[pos_] == '1')) {
      if (v >> 63)
        tooBig();
      v = (v << 1) | static_cast<uint64_t>(text_[pos_] - '0');
      ++pos_;
    }
  } else {
    size_t e = pos_;
    while (e < n && has(text_[e], kDigit))
      ++e;
    const bool frac = at(e) == '.' && has(at(e + 1), kDigit);
    const bool sign = at(e + 1) == '+' || at(e + 1) == '-';
    const bool expo = (at(e) == 'e' || at(e) == 'E') &&
                      (has(at(e + 1), kDigit) || (sign && has(at(e + 2), kDigit)));
    if (frac || expo) {
      // A decimal float: digits [. digits] [e [+-] digits].
      if (frac)
        for (++e; e < n && has(text_[e], kDigit);)
          ++e;
      if (at(e) == 'e' || at(e) == 'E') {
        size_t f = e + 1;
        if (at(f) == '+' || at(f) == '-')
          ++f;
        if (has(at(f), kDigit))
          for (e = f; e < n && has(text_[e], kDigit);)
            ++e;
      }
      double d = 0;
      auto r = std::from_chars(text_.data() + pos_, text_.data() + e, d);
      pos_ = e;
      if (has(at(pos_), kIdCont) || at(pos_) == '.')
        malformed("float literal");
      if (r.ec != std::errc() || r.ptr != text_.data() + e)
        failHere(start,
                 fmt::format("float literal '{}' is out of range", text_.substr(start, e - start)));
      t.kind = Tok::Float;
      t.fval = d;
      t.ival = std::bit_cast<uint64_t>(d);
      return;
    }
    const bool octal = text_[pos_] == '0' && e > pos_ + 1;
    for (; pos_ < e; ++pos_) {
      const uint64_t d = static_cast<uint64_t>(text_[pos_] - '0');
      if (octal) {
        if (d > 7)
          malformed("octal literal");
        if (v >> 61)
          tooBig();
        v = (v << 3) | d;
      } else {
        if (v > (UINT64_MAX - d) / 10)
          tooBig();
        v = v * 10 + d;
      }
    }
  }
  if (at(pos_) == 'U' || at(pos_) == 'u') {
    ++pos_;
    t.unsignedLiteral = true;
  }
  if (has(at(pos_), kIdCont))
    malformed("integer literal");
  t.ival = v;
}

template <size_t N>
static bool oneOf(const std::array<std::string_view, N> &words, std::string_view s) {
  return std::find(words.begin(), words.end(), s) != words.end();
}

bool isStateSpace(std::string_view s) {
  static constexpr std::array<std::string_view, 9> k = {
      ".reg", ".global", ".shared", ".const", ".local", ".param", ".tex", ".surf", ".sampler"};
  return oneOf(k, s);
}

bool isLinkage(std::string_view s) {
  return s == ".visible" || s == ".extern" || s == ".weak" || s == ".common";
}

bool isType(std::string_view s) {
  static constexpr std::array<std::string_view, 35> k = {
      ".b8",     ".b16",        ".b32",     ".b64",  ".b128",  ".u8",     ".u16",
      ".u32",    ".u64",        ".s8",      ".s16",  ".s32",   ".s64",    ".f16",
      ".f16x2",  ".bf16",       ".bf16x2",  ".f32",  ".f64",   ".tf32",   ".pred",
      ".texref", ".samplerref", ".surfref", ".e4m3", ".e5m2",  ".e4m3x2", ".e5m2x2",
      ".e2m1",   ".e2m1x2",     ".e3m2",    ".e2m3", ".ue8m0", ".s2f6",   ".f8x2"};
  return oneOf(k, s);
}

bool isPerformanceDirective(std::string_view s) {
  static constexpr std::array<std::string_view, 12> k = {
      ".maxntid",        ".reqntid",           ".minnctapersm",    ".maxnctapersm",
      ".maxnreg",        ".noreturn",          ".explicitcluster", ".reqnctapercluster",
      ".maxclusterrank", ".blocksareclusters", ".abi_preserve",    ".abi_preserve_control"};
  return oneOf(k, s);
}

} // namespace ori::ptx
