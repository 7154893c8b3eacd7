#include "ir/diag.h"
#include "ir/ori.h"

#include <fmt/format.h>

namespace ori {

std::string Diagnostic::str() const {
  if (line == 0)
    return fmt::format("{}: error: {}", file, message);
  return fmt::format("{}:{}:{}: error: {}", file, line, col, message);
}

std::string Warning::str(bool asError) const {
  const char *kind = asError ? "error" : note ? "note" : "warning";
  if (diag.line == 0)
    return fmt::format("{}: {}: {}", diag.file, kind, diag.message);
  return fmt::format("{}:{}:{}: {}: {}", diag.file, diag.line, diag.col, kind, diag.message);
}

std::optional<Diagnostic> checkIsText(std::string_view text, std::string_view file) {
  uint32_t line = 1, col = 1;
  size_t i = 0;
  auto fail = [&](unsigned char byte) {
    return Diagnostic{std::string(file), line, col,
                      fmt::format("input is not text: byte 0x{:02x}", unsigned(byte))};
  };
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7f)
        return fail(c);
      ++i;
      if (c == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
      continue;
    }
    // A UTF-8 sequence: lead byte, then 1-3 continuation bytes; no overlong
    // forms, no surrogates, nothing above U+10FFFF.
    size_t len = (c >= 0xC2 && c <= 0xDF)   ? 2
                 : (c >= 0xE0 && c <= 0xEF) ? 3
                 : (c >= 0xF0 && c <= 0xF4) ? 4
                                            : 0;
    if (len == 0 || i + len > text.size())
      return fail(c);
    uint32_t cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
    for (size_t k = 1; k < len; ++k) {
      unsigned char cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xC0) != 0x80)
        return fail(c);
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
      return fail(c);
    i += len;
    col += uint32_t(len); // columns count bytes, as the lexers do
  }
  return std::nullopt;
}

} // namespace ori
