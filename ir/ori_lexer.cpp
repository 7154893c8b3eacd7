// The lexer of the .ori text format (ir/ori_reader_impl.h), and the names of registers and symbols.
#include "ir/ori_reader_impl.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "ir/diag.h"
#include "ir/ori.h"

namespace ori {
namespace {

using Token = OriToken;

bool isWordStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' ||
         c == '.';
}
bool isWordChar(char c) { return isWordStart(c) || std::isdigit(static_cast<unsigned char>(c)); }

class Lexer {
public:
  Lexer(std::string_view text, std::string_view file) : text_(text), file_(file) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      Token t = next();
      t.len = uint32_t(i_ - tokenStart_);
      bool eof = t.kind == Token::Eof;
      out.push_back(std::move(t));
      if (eof)
        return out;
    }
  }

private:
  [[noreturn]] void fail(SrcLoc loc, std::string msg) {
    throw DiagnosticError({std::string(file_), loc.line, loc.col, std::move(msg)});
  }
  char peek(size_t k = 0) const { return i_ + k < text_.size() ? text_[i_ + k] : '\0'; }
  void advance() {
    if (text_[i_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++i_;
  }

  Token next() {
    for (;;) {
      char c = peek();
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f')
        advance();
      else if (c == '/' && peek(1) == '/') {
        while (i_ < text_.size() && peek() != '\n')
          advance();
      } else
        break;
    }
    Token t;
    t.loc = {line_, col_};
    tokenStart_ = i_;
    if (i_ >= text_.size()) {
      t.kind = Token::Eof;
      return t;
    }
    char c = peek();
    if (c == '\n') {
      advance();
      t.kind = Token::Newline;
      return t;
    }
    if (c == '"')
      return string(t);
    if (std::isdigit(static_cast<unsigned char>(c)))
      return number(t);
    if (isWordStart(c)) {
      size_t start = i_;
      while (i_ < text_.size() && isWordChar(peek()))
        advance();
      t.kind = Token::Word;
      t.text = std::string(text_.substr(start, i_ - start));
      return t;
    }
    if (std::strchr(",[]+-@!|{}():=;", c)) {
      advance();
      t.kind = Token::Punct;
      t.text = std::string(1, c);
      return t;
    }
    size_t n = 1;
    while (i_ + n < text_.size() && (static_cast<unsigned char>(text_[i_ + n]) & 0xC0) == 0x80)
      ++n;
    fail(t.loc, fmt::format("unexpected character '{}'", text_.substr(i_, n)));
  }

  Token string(Token &t) {
    advance(); // opening quote
    t.kind = Token::String;
    for (;;) {
      if (i_ >= text_.size() || peek() == '\n')
        fail(t.loc, "unterminated string");
      char c = peek();
      advance();
      if (c == '"')
        return t;
      if (c == '\\') {
        char e = peek();
        if (e == '"' || e == '\\')
          t.text += e;
        else if (e == 'n')
          t.text += '\n';
        else if (e == 't')
          t.text += '\t';
        else
          fail({line_, col_}, "unknown escape in string");
        advance();
      } else {
        t.text += c;
      }
    }
  }

  Token number(Token &t) {
    size_t start = i_;
    while (i_ < text_.size() &&
           (isWordChar(peek()) ||
            ((peek() == '+' || peek() == '-') && (text_[i_ - 1] == 'e' || text_[i_ - 1] == 'E') &&
             text_.substr(start, 2) != "0x")))
      advance();
    t.text = std::string(text_.substr(start, i_ - start));
    const std::string &s = t.text;
    auto hexDigits = [&](size_t from, size_t maxDigits) -> uint64_t {
      if (s.size() <= from)
        fail(t.loc, fmt::format("malformed number '{}'", s));
      if (s.size() - from > maxDigits)
        fail(t.loc, fmt::format("integer '{}' does not fit in 64 bits", s));
      uint64_t v = 0;
      for (size_t k = from; k < s.size(); ++k) {
        if (!std::isxdigit(static_cast<unsigned char>(s[k])))
          fail(t.loc, fmt::format("malformed number '{}'", s));
        v = v * 16 + uint64_t(std::isdigit(static_cast<unsigned char>(s[k]))
                                  ? s[k] - '0'
                                  : std::tolower(static_cast<unsigned char>(s[k])) - 'a' + 10);
      }
      return v;
    };
    if (s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      size_t from = 2;
      while (from + 1 < s.size() && s[from] == '0')
        ++from; // leading zeros
      t.kind = Token::Int;
      t.ival = hexDigits(from, 16);
      return t;
    }
    if (s.size() > 1 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
      if (s.size() != 10)
        fail(t.loc, fmt::format("'{}': 0f needs exactly 8 hex digits", s));
      t.kind = Token::Float;
      t.fval = std::bit_cast<float>(uint32_t(hexDigits(2, 8)));
      return t;
    }
    if (s.size() > 1 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
      if (s.size() != 18)
        fail(t.loc, fmt::format("'{}': 0d needs exactly 16 hex digits", s));
      t.kind = Token::Float;
      t.fval = std::bit_cast<double>(hexDigits(2, 16));
      return t;
    }
    bool isFloat = s.find_first_of(".eE") != std::string::npos;
    for (char ch : s)
      if (!std::isdigit(static_cast<unsigned char>(ch)) && !std::strchr(".eE+-", ch))
        fail(t.loc, fmt::format("malformed number '{}'", s));
    if (isFloat) {
      char *end = nullptr;
      errno = 0;
      t.fval = std::strtod(s.c_str(), &end);
      if (end != s.c_str() + s.size())
        fail(t.loc, fmt::format("malformed number '{}'", s));
      if (errno == ERANGE && std::abs(t.fval) > 1) // overflow; underflow to 0/denormal is fine
        fail(t.loc, fmt::format("float '{}' is out of range", s));
      t.kind = Token::Float;
      return t;
    }
    uint64_t v = 0;
    for (char ch : s) {
      uint64_t d = uint64_t(ch - '0');
      if (v > (UINT64_MAX - d) / 10)
        fail(t.loc, fmt::format("integer '{}' does not fit in 64 bits", s));
      v = v * 10 + d;
    }
    t.kind = Token::Int;
    t.ival = v;
    return t;
  }

  std::string_view text_, file_;
  size_t i_ = 0, tokenStart_ = 0;
  uint32_t line_ = 1, col_ = 1;
};

} // namespace

std::vector<OriToken> lexOri(std::string_view text, std::string_view file) {
  return Lexer(text, file).run();
}

bool isOriWordChar(char c) { return isWordChar(c); }

std::optional<Reg> parseRegName(std::string_view w, bool *tooBig) {
  static constexpr std::pair<std::string_view, Reg> kConsts[] = {
      {"RZ", {RegFile::R, Reg::kConst}},
      {"URZ", {RegFile::UR, Reg::kConst}},
      {"PT", {RegFile::P, Reg::kConst}},
      {"UPT", {RegFile::UP, Reg::kConst}},
  };
  for (auto [name, r] : kConsts)
    if (w == name)
      return r;
  static constexpr std::pair<std::string_view, RegFile> kFiles[] = {
      {"UR", RegFile::UR}, {"UP", RegFile::UP}, {"R", RegFile::R},
      {"P", RegFile::P},   {"B", RegFile::B},
  };
  for (auto [prefix, file] : kFiles) {
    if (w.size() <= prefix.size() || w.substr(0, prefix.size()) != prefix)
      continue;
    std::string_view digits = w.substr(prefix.size());
    uint64_t n = 0;
    for (char c : digits) {
      if (!std::isdigit(static_cast<unsigned char>(c)))
        return std::nullopt;
      n = n * 10 + uint64_t(c - '0');
      if (n >= Reg::kConst) {
        *tooBig = true;
        n = Reg::kConst - 1;
      }
    }
    if (digits.size() > 1 && digits[0] == '0')
      return std::nullopt; // "R01" is a name
    return Reg{file, uint32_t(n)};
  }
  return std::nullopt;
}

std::optional<Reg> parseRegisterName(std::string_view text) {
  bool tooBig = false;
  std::optional<Reg> r = parseRegName(text, &tooBig);
  return tooBig ? std::nullopt : r;
}

bool isValidName(std::string_view name) {
  if (name.empty() ||
      !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_' || name[0] == '$'))
    return false;
  for (char c : name)
    if (!isOriWordChar(c) || c == '%')
      return false;
  bool big = false;
  return !parseRegName(name, &big) && !name.starts_with("SR_") && name != "c";
}

} // namespace ori
