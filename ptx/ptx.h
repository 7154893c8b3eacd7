// The PTX front end and back end: parse PTX, lower it to Ori, emit Ori as PTX.
// docs/ptx.md says what lowers to native Ori opcodes and what stays OPAQUE.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ir/diag.h"
#include "ir/ir.h"
#include "ir/ori.h"
#include "ptx/ast.h"

namespace ori::ptx {

// Lowers a parsed PTX module to Ori. Errors (undeclared registers, branches
// to unknown labels, ...) point at the PTX source.
ori::ParseResult lower(const Module &ast);

// parse() then lower().
ori::ParseResult parseAndLower(std::string_view text, std::string_view fileName);

struct EmitResult {
  std::string text;
  std::optional<Diagnostic> error; // an Ori construct with no PTX form
};

// Prints an Ori module as PTX that ptxas accepts and that means the same as
// the module under the interpreter's semantics (docs/interpreter.md).
EmitResult emit(const ori::Module &m);

// OPAQUE instructions from PTX keep their text with placeholders: "@d0" is
// the instruction's first def (dsts[0]), "@u1" its second use (srcs[1]), so
// that passes which rename registers keep the text right; emit() substitutes
// the registers' PTX names.

} // namespace ori::ptx
