// RapidCheck generators of random well-formed Ori functions and modules.
//
// What they make is everything docs/ori-format.md allows and nothing it
// forbids: random blocks (labelled or not, empty labelled blocks, control flow
// only last in a block, the last block ending in an unconditional BRA, BRX,
// EXIT or RET), instructions drawn from the opcode table with operands of the
// kinds each slot accepts (registers of every file and number, constants,
// named and typed registers, immediates within the width the instruction
// gives them, floats including NaN payloads, infinities and -0.0, constant
// banks, memory with base registers and symbols, labels, jump tables, function
// symbols), guards, at most one modifier per group, OPAQUE with arbitrary
// text, parameters with arrays and alignments, and variables.
//
// Every generated module is accepted by verifyModule and by the parser:
// parse(print(m)) == m (fuzz/prop_ori_roundtrip.cpp checks both).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "ir/ir.h"

namespace ori::gen {

struct Options {
  int maxBlocks = 10;    // per function, at least 1
  int maxInstrs = 6;     // per block
  int maxFunctions = 3;  // per module
  bool opaque = true;    // OPAQUE instructions
  bool variables = true; // .global/.shared/... variables and [sym] operands
  bool calls = true;     // CALL (to functions of the module)
};

// What instructions of a generated function may refer to besides its own
// blocks and tables.
struct Scope {
  std::vector<std::string> functions; // CALL targets (names of functions in the module)
  std::vector<std::string> symbols;   // memory symbols (module variables)
};

// A well-formed function named `name`. CALL targets come from scope.functions
// (plus the function itself), memory symbols from scope.symbols plus its own
// variables and (for .func) parameters.
rc::Gen<Function> function(std::string name, Scope scope = {}, Options opts = {});

// A function that is its own module: verifyFunction accepts it and
// parse(print(Module{{f}})) == Module{{f}}.
rc::Gen<Function> function(Options opts = {});

// A module of 1..maxFunctions functions with distinct names calling each
// other, and module-scope variables.
rc::Gen<Module> module(Options opts = {});

} // namespace ori::gen

namespace ori {
// RapidCheck prints counterexamples as .ori text.
void showValue(const Function &f, std::ostream &os);
void showValue(const Module &m, std::ostream &os);
} // namespace ori
