// The .ori parser's class (ir/ori_parser.cpp: modules, functions, declarations;
// ir/ori_parser_instr.cpp: instructions and operands). Private to ir/.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ori.h"
#include "ir/ori_reader_impl.h"

namespace ori::ori_parser_detail {

using Token = OriToken;

struct ParamType {
  std::string_view name;
  uint32_t size;
};
constexpr ParamType kParamTypes[] = {
    {"u8", 1},  {"s8", 1},  {"b8", 1},  {"u16", 2}, {"s16", 2}, {"b16", 2}, {"f16", 2}, {"u32", 4},
    {"s32", 4}, {"b32", 4}, {"f32", 4}, {"u64", 8}, {"s64", 8}, {"b64", 8}, {"f64", 8},
};

class Parser {
public:
  Parser(std::vector<Token> toks, std::string_view file) : toks_(std::move(toks)), file_(file) {}

  Module module();

private:
  std::vector<OriSymbolUse> symbolUses_;

  // A reference to a label or jump table, resolved when the function ends.
  struct Fixup {
    uint32_t block, instr, src;
    std::string name;
    SrcLoc loc;
  };

  const Token &cur() const { return toks_[pos_]; }
  // The position just after the previous token (where a missing operand goes).
  SrcLoc afterPrevious() const {
    if (pos_ == 0)
      return cur().loc;
    const Token &p = toks_[pos_ - 1];
    return {p.loc.line, p.loc.col + p.len};
  }
  const Token &ahead(size_t k) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  Token take() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }
  bool isPunct(char c) const { return cur().kind == Token::Punct && cur().text[0] == c; }
  bool accept(char c) {
    if (!isPunct(c))
      return false;
    ++pos_;
    return true;
  }
  [[noreturn]] void fail(SrcLoc loc, std::string msg) {
    throw DiagnosticError({std::string(file_), loc.line, loc.col, std::move(msg)});
  }
  std::string describe(const Token &t) const;
  void expect(char c, std::string_view what) {
    if (!accept(c))
      fail(cur().loc, fmt::format("expected '{}' {}, got {}", c, what, describe(cur())));
  }
  std::string word(std::string_view what) {
    if (cur().kind != Token::Word)
      fail(cur().loc, fmt::format("expected {}, got {}", what, describe(cur())));
    return take().text;
  }
  uint64_t integer(std::string_view what) {
    if (cur().kind != Token::Int)
      fail(cur().loc, fmt::format("expected {}, got {}", what, describe(cur())));
    return take().ival;
  }
  void skipLineBreaks() {
    while (cur().kind == Token::Newline)
      ++pos_;
  }
  void skipNewlines() {
    while (cur().kind == Token::Newline || isPunct(';'))
      ++pos_;
  }
  void endOfLine() {
    accept(';');
    if (cur().kind != Token::Newline && cur().kind != Token::Eof)
      fail(cur().loc, fmt::format("expected end of line, got {}", describe(cur())));
  }

  void checkName(const Token &t, std::string_view what) {
    bool big = false;
    if (t.text[0] == '.' || parseRegName(t.text, &big) || t.text.starts_with("SR_") ||
        t.text == "c")
      fail(t.loc, fmt::format("'{}' cannot be a {} name", t.text, what));
  }

  static bool isLinkage(const Token &t) {
    return t.kind == Token::Word && (t.text == ".visible" || t.text == ".extern" ||
                                     t.text == ".weak" || t.text == ".common");
  }

  Function function();

  std::vector<Param> params();

  void body(Function &f);

  // .ptx "text"
  std::string ptxText();

  void regDecl(Function &f);

  static const ParamType *findType(std::string_view name) {
    for (const ParamType &t : kParamTypes)
      if (t.name == name)
        return &t;
    return nullptr;
  }

  // SPACE [.align N] .TYPE NAME ['[' N ']'] ['=' '{' INT, ... '}']
  void variable(std::vector<Variable> &vars, const std::vector<Param> &params);

  void jumpTable(Function &f, std::vector<std::vector<std::pair<std::string, SrcLoc>>> &labels);

  Instr instruction(Function &f, uint32_t bix, std::vector<Fixup> &labelFixups,
                    std::vector<Fixup> &tableFixups);

  void modifiers(Instr &in, std::string_view mnem, SrcLoc loc);

  void noteSymbol(const Function &f, uint32_t bix, bool dst, size_t k, SrcLoc loc);

  // CALL [(ret, ...),] target [, (arg, ...)]
  void call(Function &f, Instr &in, uint32_t bix);

  void opaque(Instr &in);

  // Parses one operand. `kinds` says what the slot accepts (to tell a label
  // from a jump table or a symbol); `ref` receives a label or table name to fix up.
  enum class Role { Source, Dest, Guard };
  Operand operand(uint16_t kinds, bool isSrc, std::string *ref, Role role = Role::Source);

  Operand core(uint16_t kinds, std::string *ref);

  std::optional<Reg> indexReg();

  // Reads "+ INT" or "- INT" (or nothing) and returns the signed offset.
  int64_t offset(int64_t lo, int64_t hi);

  Operand cbank();

  Operand memory();

  void checkKind(const OpInfo &info, size_t k, bool isDst, const OperandSlot &slot,
                 const Operand &o, SrcLoc loc);

  // Integer immediates must fit the width the instruction gives them.
  void checkImmediate(const Instr &in, size_t k, bool big, SrcLoc loc);

  std::vector<Token> toks_;
  std::string file_;
  size_t pos_ = 0;
  std::map<std::string, Reg> names_; // register names of the current function
  uint32_t curFunction_ = 0;         // index the current function will have in the module
  bool lastBig_ = false;
};

} // namespace ori::ori_parser_detail
