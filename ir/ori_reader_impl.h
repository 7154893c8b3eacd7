// The pieces of the .ori reader (docs/ori-format.md) beside its parser, internal to ir/ori_*.cpp:
// the tokens (ori_lexer.cpp), the names words may be, and the check of symbol operands
// (ori_symbols.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace ori {

struct OriToken {
  enum Kind { Word, Int, Float, String, Punct, Newline, Eof } kind = Eof;
  std::string text; // Word/String: content; Punct: the character; Int/Float: spelling
  uint64_t ival = 0;
  double fval = 0;
  SrcLoc loc;
  uint32_t len = 0; // bytes of its spelling
};

// The tokens of `text`, ending with one Eof; a character no token starts with is a
// DiagnosticError (file:line:col).
std::vector<OriToken> lexOri(std::string_view text, std::string_view file);

// A character a word may hold after its first.
bool isOriWordChar(char c);

// "R12" -> {R, 12}; "PT" -> {P, const}; anything else -> nullopt. A number too big for a
// register sets *tooBig (and gives the largest).
std::optional<Reg> parseRegName(std::string_view w, bool *tooBig);

// A symbol operand the parser read (instruction `instr` of block `block` of function
// `function`; destination or source k), checked once the whole module is known.
struct OriSymbolUse {
  uint32_t function, block, instr;
  bool dst;
  uint32_t k;
  SrcLoc loc;
};
// Memory operands name variables or .func parameters; calls name functions and pass .param
// variables; MOV takes the address of a symbol; TEX names a .texref. The first use that breaks
// this is a DiagnosticError.
void checkSymbolUses(const Module &m, const std::vector<OriSymbolUse> &uses, std::string_view file);

} // namespace ori
