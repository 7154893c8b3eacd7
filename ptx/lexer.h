// The PTX lexer: turns PTX text into tokens on demand (a small lookahead
// ring, no token vector), so the first error in file order is the one
// reported. Comments and whitespace are skipped; `@@DWARF ...` lines (old
// nvopencc debug output) are one token each. Every token knows its byte range
// in the text and its 1-based line and column (columns count characters, as
// ori::checkIsText does). Errors are thrown as ori::DiagnosticError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ir/diag.h"

namespace ori::ptx {

enum class Tok : uint8_t {
  End,       // end of the text
  Ident,     // foo, %r1, $L__BB0_2, _ (names of registers, labels, symbols; opcodes)
  Dir,       // .u32, .entry, .shared::cta, .L2::128B (a dot and a word)
  Int,       // 12, 0x1F, 017, 0b101, 7U (value in `ival`)
  Float,     // 0f3F800000, 0d3FF0000000000000, 1.5, 2e3 (bits in `ival`, value in `fval`)
  String,    // "text" (with the quotes; escapes are kept as written)
  DwarfLine, // @@DWARF ... up to the end of the line
  LBrace,
  RBrace,
  LParen,
  RParen,
  LBrack,
  RBrack,
  Lt,
  Gt,
  Comma,
  Semi,
  Colon,
  Plus,
  Minus,
  Bang,
  Pipe,
  At,
  Eq,
  Other, // any other character (one UTF-8 sequence)
};

struct Token {
  Tok kind = Tok::End;
  bool f32 = false;             // Float written as 0f...: `ival` holds binary32 bits
  bool unsignedLiteral = false; // Int written with the U suffix (7U): a .u64 constant
  uint32_t begin = 0, end = 0;  // byte range in the text
  uint32_t line = 1, col = 1;
  uint64_t ival = 0; // Int: the value; Float: the bits (binary32 or binary64)
  double fval = 0;   // Float: the value
};

class Lexer {
public:
  // `text` must outlive the lexer; it should have passed ori::checkIsText.
  Lexer(std::string_view text, std::string_view file);

  // The k-th token ahead (k < kLookahead), without consuming anything.
  const Token &peek(size_t k = 0) {
    if (count_ <= k)
      fill(k);
    return ring_[(head_ + k) % kLookahead];
  }
  Token next() {
    if (count_ == 0)
      fill(0);
    const Token &t = ring_[head_];
    head_ = (head_ + 1) % kLookahead;
    --count_;
    return t;
  }
  std::string_view text() const { return text_; }
  std::string_view spell(const Token &t) const { return text_.substr(t.begin, t.end - t.begin); }
  // The token for messages: 'mov', end of file (long ones shortened).
  std::string describe(const Token &t) const;
  // `s` quoted for a message, shortened to about 40 characters.
  static std::string quote(std::string_view s);

  [[noreturn]] void fail(const Token &t, std::string message) const;
  [[noreturn]] void failAt(uint32_t line, uint32_t col, std::string message) const;

  static constexpr size_t kLookahead = 4;

private:
  void fill(size_t k); // lexes until k tokens are buffered ahead
  Token lexOne();
  void skipSpaceAndComments();
  void lexNumber(Token &t);
  [[noreturn]] void failHere(size_t offset, std::string message) const;
  uint32_t colOf(size_t offset) const;

  std::string_view text_;
  std::string file_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  size_t lineStart_ = 0;   // offset of the first byte of the current line
  uint32_t contBytes_ = 0; // UTF-8 continuation bytes between lineStart_ and pos_
  Token ring_[kLookahead];
  size_t head_ = 0, count_ = 0;
};

// PTX vocabulary, shared by the parser and its tests.
// .reg .global .shared .const .local .param .tex .surf .sampler
bool isStateSpace(std::string_view dir);
bool isLinkage(std::string_view dir); // .visible .extern .weak .common
bool isType(std::string_view dir);    // .b32 .u64 .f16x2 .pred .texref ...
// Kernel tuning directives: after the parameter list, or inside a body.
bool isPerformanceDirective(std::string_view dir); // .maxntid .reqntid .minnctapersm ...
// ptx/isa.cpp: the PTX ISA 9.0 as a whole.
bool isInstruction(std::string_view name); // "add", "cp", "wgmma": an opcode's first word
bool isKnownVersion(std::string_view v);   // "1.0" .. "9.0"
bool isKnownTarget(std::string_view t);    // "sm_90", "sm_100f", "compute_75"
bool isTargetOption(
    std::string_view t);         // texmode_unified, texmode_independent, debug, map_f64_to_f32
std::string knownVersionsText(); // for messages: "1.0-1.5, 2.0-2.3, ..."
std::string knownTargetsText();

} // namespace ori::ptx
