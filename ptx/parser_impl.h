// Internals of the PTX parser (ptx/parser.cpp: module level, functions and
// bodies; ptx/parser_decl.cpp: declarations and initializers; ptx/parser_instr.cpp:
// instructions and operands). Recursive descent whose only recursion has a fixed depth
// (statement -> operand -> atom); nested scopes, initializer braces and section braces are
// counted, never recursed into, so no input can drive the stack deep.
#pragma once

#include <functional>
#include <iterator>

#include <fmt/format.h>

#include "ptx/ast.h"
#include "ptx/lexer.h"

namespace ori::ptx::parser_detail {

inline constexpr size_t kMaxScopeDepth = 256;   // nested `{ }` inside a body
inline constexpr size_t kMaxInitDepth = 64;     // nested braces in an initializer
inline constexpr uint64_t kMaxRange = 1u << 20; // %r<N>
inline constexpr uint32_t kMaxSharedHead = 256; // `.reg .b32` before `a, b, c`
inline constexpr size_t kMaxScratch = 4096;     // statements gathered before a body grows in place

inline bool canStartOperand(Tok k) {
  return k == Tok::Ident || k == Tok::Int || k == Tok::Float || k == Tok::Minus || k == Tok::Plus ||
         k == Tok::Bang || k == Tok::LBrace || k == Tok::LBrack || k == Tok::LParen;
}

template <class T> void moveInto(std::vector<T> &from, std::vector<T> &to) {
  to.assign(std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  from.clear();
}

// The value of a constant expression (parser_expr.cpp): .s64, .u64, or .f64 (`v` holds the
// binary64 bits when isFloat).
struct ExprValue {
  uint64_t v = 0;
  bool isUnsigned = false;
  bool isFloat = false;
};

class Parser {
public:
  Parser(std::string_view text, std::string_view file) : lx_(text, file) { mod_.fileName = file; }

  Module run() {
    if (is(Tok::End))
      lx_.failAt(1, 1, "empty file");
    if (!isDir(".version"))
      expected("'.version' directive");
    while (!is(Tok::End))
      topLevel();
    return std::move(mod_);
  }

private:
  // --- tokens -------------------------------------------------------------
  const Token &peek(size_t k = 0) { return lx_.peek(k); }
  Token next() {
    lastEnd_ = lx_.peek().end;
    return lx_.next();
  }
  bool is(Tok k, size_t ahead = 0) { return peek(ahead).kind == k; }
  bool isDir(std::string_view s) { return is(Tok::Dir) && spell(peek()) == s; }
  bool accept(Tok k) { return is(k) ? (next(), true) : false; }
  std::string_view spell(const Token &t) const { return lx_.spell(t); }
  std::string slice(uint32_t b, uint32_t e) const { return std::string(lx_.text(), b, e - b); }
  static SrcLoc loc(const Token &t) { return {t.line, t.col}; }

  [[noreturn]] void expected(std::string_view what) {
    lx_.fail(peek(), fmt::format("expected {}, found {}", what, lx_.describe(peek())));
  }
  Token expect(Tok k, std::string_view what) {
    if (!is(k))
      expected(what);
    return next();
  }
  uint64_t expectInt(std::string_view what) { return expect(Tok::Int, what).ival; }
  // item (',' item)*
  template <class F> void commaList(F item) {
    do
      item();
    while (accept(Tok::Comma));
  }

  // --- module level -------------------------------------------------------
  void topLevel();

  void directiveItem(const Token &t, std::string text);

  // `.file 1 "a.cu"[, timestamp, size]`,
  // `.loc 1 2 3[, function_name $L__info_string0[+4]][, inlined_at 1 37 3]`: no ';'.
  std::string lineDirective();

  // A directive ending with ';' (kept in the text): `.pragma "nounroll";`.
  std::string toSemicolon();

  // `.section .debug_info { ... }`: kept whole; its braces are counted.
  std::string section();

  // --- declarations -------------------------------------------------------
  // The state space and the words before the name, in any order:
  // `.shared .align 16 .v4 .f32`, `.param .u64 .ptr .global .align 4`,
  // `.global .attribute(.managed) .s32`.
  void declHead(Variable &v);

  // The name and what follows it: `%r<10>`, `x[4][8]`, `t[]`.
  void declName(Variable &v, bool allowRange);

  // A `;`-terminated declaration of one or more names, one Variable each, made
  // where `newVar()` says. With several names each text is the shared head plus its name.
  void declaration(std::vector<std::string> attrs, const Token &start,
                   const std::function<Variable &()> &newVar);

  // `= 5`, `= {1, 2, 3}`, `= {{1, 2}, {3, 4}}`, `= generic(sym)+4`, `= {0f3F800000}`;
  // nested braces are flattened.
  void initializer(Variable &v);

  Operand initValue();

  // --- functions ----------------------------------------------------------
  void function(Function &f, std::vector<std::string> linkage, const Token &start);

  // `.maxntid 256, 1, 1`, `.minnctapersm 4`, `.noreturn`
  std::string performanceDirective();

  // `(.param .b32 a, .param .align 8 .b8 b[16], .reg .u32 c)`
  void paramList(std::vector<Variable> &out);

  void body(Function &f);

  void bodyDirective(const Token &t, std::string text);

  void bodyDirectiveOrDecl(const Token &t);

  // `L:`, `proto: .callprototype (.param .b32 _) _ (.param .b32 _);`,
  // `tab: .branchtargets L1, L2;`
  void labelled();

  // --- instructions -------------------------------------------------------
  // Lists are gathered in scratch vectors and copied once, exactly sized.
  void instruction(Instruction &ins);

  Operand operand();

  // `{a, b, _, d}`: the elements are atoms, never vectors.
  Operand vector();

  // `[%rd1]`, `[%rd1+8]`, `[%rd1+-8]`, `[sym+4]`, `[0x100]`, `[tex, {%f1, %f2}]`.
  Operand address();

  // `+4`, `+-8`, `-8`, `+4+8` after a base: their sum (wrapping, as 64-bit addresses do).
  int64_t offsetTerms();

  // An integer or float literal, with an optional leading '-'.
  Operand literal();

  // parser_expr.cpp: a literal or an integer constant expression (`(1<<4)-1`).
  bool startsExpression(size_t k);
  Operand number();
  char binaryOperator();
  ExprValue ternary();
  ExprValue ternaryFrom(ExprValue cond);
  ExprValue binary(int minPrec);
  ExprValue binaryFrom(ExprValue lhs, int minPrec);
  ExprValue unary();
  int exprDepth_ = 0;

  // %tid.x, %r1.y: a vector component written right after a name.
  void componentSuffix(Operand &o);
  void arrayIndex(Operand &o);

  // A name (`%r1`, `!%p`, `sym+8`, `%tid.x`), a pair `p|q`, a sink `_`, or a literal.
  Operand atom();
  static bool isVideoSelector(std::string_view s);

  void name(Operand &o);

  // A new statement of the body being parsed: gathered in scratch_ (kept across
  // functions) and moved into an exactly sized body, unless the body outgrows
  // kMaxScratch (then it grows in place). Statements are 720 bytes, so this matters.
  Statement &stmt(Statement::Kind k) {
    if (!direct_ && scratch_.size() == kMaxScratch) {
      body_->reserve(2 * kMaxScratch);
      moveInto(scratch_, *body_);
      direct_ = true;
    }
    Statement &s = direct_ ? body_->emplace_back() : scratch_.emplace_back();
    s.kind = k;
    return s;
  }

  Lexer lx_;
  Module mod_;
  uint32_t lastEnd_ = 0;
  bool minusNames_ = false;                // operands of a vmad: `-%r1` negates a register
  std::vector<Statement> *body_ = nullptr; // of the function being parsed
  bool direct_ = false;                    // statements go to *body_, not scratch_
  std::vector<Statement> scratch_;
  std::vector<Operand> opScratch_, elemScratch_;
  std::vector<std::string> modScratch_;
};

} // namespace ori::ptx::parser_detail
