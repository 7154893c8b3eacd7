// The .ori text format (docs/ori-format.md): parser and printer. The two
// round-trip: print(parse(t)) is stable and parse(print(m)) == m for every
// module that verifyFunction accepts.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ir/diag.h"
#include "ir/ir.h"

namespace ori {

struct ParseResult {
  std::optional<Module> module;
  std::optional<Diagnostic> error;
};

ParseResult parseOri(std::string_view text, std::string_view fileName);

std::string printModule(const Module& m);
std::string printFunction(const Function& f);
// One instruction without indentation or newline, e.g. "@!P0 BRA L1".
std::string printInstr(const Function& f, const Instr& in);
std::string printOperand(const Function& f, const Operand& o);
std::string printReg(const Function& f, Reg r);

// A register as the text names it: "R12", "UR3", "P1", "PT" (a constant); nullopt for
// anything else, or a number too large for a register.
std::optional<Reg> parseRegisterName(std::string_view text);

// Bits an integer immediate in source k of `in` may have: 8 (LUT), 32 or 64.
unsigned immediateBits(const Instr& in, size_t k);
// A name the parser reads as a label, variable, table or function (not a
// register, not "c", not SR_..., no '%' or '.').
bool isValidName(std::string_view name);

} // namespace ori
