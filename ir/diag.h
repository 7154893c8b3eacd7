// Diagnostics: every error a user can cause is reported as
// `file:line:col: error: message` and makes the command exit with status 1.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ori {

struct Diagnostic {
  std::string file;
  uint32_t line = 0, col = 0; // 1-based; 0 when the error has no position
  std::string message;

  // "file:line:col: error: message"
  std::string str() const;
};

// Thrown inside front ends and caught at their API boundary, which returns
// the Diagnostic; never escapes to a user.
struct DiagnosticError : std::runtime_error {
  Diagnostic diag;
  explicit DiagnosticError(Diagnostic d) : std::runtime_error(d.message), diag(std::move(d)) {}
};

// Checks that `text` is text: valid UTF-8 without NUL or other control bytes
// (tab, newline, carriage return and form feed are fine). On failure returns
// the 1-based line and column of the first offending byte and a message.
std::optional<Diagnostic> checkIsText(std::string_view text, std::string_view file);

} // namespace ori
