// The .ori text format (docs/ori-format.md): parser and printer. The two
// round-trip: print(parse(t)) is stable and parse(print(m)) == m for every
// module that verifyFunction accepts.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diag.h"
#include "ir/ir.h"

namespace ori {

// A warning of a reader (a PTX instruction kept as OPAQUE ...): "file:line:col: warning: ...".
// A note sums up warnings left out ("file:line:col: note: ..."). Tools print them on stderr; with
// --strict each is an error instead.
struct Warning {
  Diagnostic diag;
  bool note = false;
  std::string str(bool asError = false) const;
};

struct ParseResult {
  std::optional<Module> module;
  std::optional<Diagnostic> error;
  std::vector<Warning> warnings; // in source order, even when there is an error
};

ParseResult parseOri(std::string_view text, std::string_view fileName);

std::string printModule(const Module &m);
std::string printFunction(const Function &f);
// One instruction without indentation or newline, e.g. "@!P0 BRA L1".
std::string printInstr(const Function &f, const Instr &in);
std::string printOperand(const Function &f, const Operand &o);
std::string printReg(const Function &f, Reg r);

// A register as the text names it: "R12", "UR3", "P1", "PT" (a constant); nullopt for
// anything else, or a number too large for a register.
std::optional<Reg> parseRegisterName(std::string_view text);

// Bits an integer immediate in source k of `in` may have: 8 (LUT), 32 or 64.
unsigned immediateBits(const Instr &in, size_t k);
// Whether v may be integer immediate k of `in` (immediateBits: 8 bits unsigned;
// 32 bits signed or unsigned; 64 bits anything).
bool immediateFits(const Instr &in, size_t k, int64_t v);
// Rules of an instruction's operands and modifiers that the opcode table's slots and
// groups cannot state. BAR: a destination only with .RED (dstCount, ir/opcodes.h); .RED
// takes one of .POPC (an R destination) or .AND/.OR (a P destination), at least a barrier
// and a predicate, and the predicate is its last source and its only predicate source;
// without .RED no predicate source and no .POPC/.AND/.OR. REDUX: at most one operation
// (.SUM or one of .MIN .MAX .AND .OR .XOR), and .S32 not beside .SUM .AND .OR .XOR (they do
// not depend on it, so each has one spelling). SULD/SUST: one of .1D .2D .3D, as many
// coordinates as it says after the handle, and (SUST) then one value per element (1, or 2/4
// with .V2/.V4); no .V4 beside .64 (PTX has no v4.b64). TEX: one of .1D .2D .3D, at most one
// result type, a handle, the coordinates, a level with .LOD, 2 x dims gradients with .GRAD
// (1D, 2D only). HMMA/IMMA/DMMA/BMMA: modifiers that name an MMA form (ir/mma.h) and as many
// destinations and sources as it has. LDSM/STSM: .M88 or .MT88 and one register per matrix;
// MOVM: .MT88. SETMAXREG: .INC or .DEC. nullopt when `in` keeps them; else the
// message and the operand it is about (an index over dests then sources; SIZE_MAX: the
// instruction as a whole).
struct ShapeProblem {
  size_t operand;
  std::string message;
};
std::optional<ShapeProblem> checkShape(const Instr &in);
// A name the parser reads as a label, variable, table or function (not a
// register, not "c", not SR_..., no '%' or '.').
bool isValidName(std::string_view name);

} // namespace ori
