// libFuzzer harness for the .ori parser (OSS-Fuzz style).
//
// Every input must either be rejected with one well-formed diagnostic that
// points inside the input, or parse into a module that round-trips:
// parse(print(m)) == m and print is stable. Anything else aborts, and so does
// any crash, sanitizer report, hang or runaway allocation libFuzzer sees.
//
//   make fuzz && build-fuzz/bin/fuzz_ori_parser fuzz/corpus/ori
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ir/ori.h"

namespace {

[[noreturn]] void die(const char *what, const std::string &detail, std::string_view input) {
  std::fprintf(stderr, "fuzz_ori_parser: %s\n%s\n--- input (%zu bytes) ---\n%.*s\n", what,
               detail.c_str(), input.size(), int(input.size()), input.data());
  std::abort();
}

// The diagnostic names the file and a position inside the input.
void checkDiagnostic(const ori::Diagnostic &d, std::string_view text) {
  if (d.file != "fuzz.ori")
    die("diagnostic names another file", d.str(), text);
  if (d.message.empty() || d.message.find('\n') != std::string::npos)
    die("bad diagnostic message", d.str(), text);
  size_t lines = 1;
  for (char c : text)
    lines += c == '\n';
  if (d.line < 1 || d.line > lines + 1 || d.col < 1)
    die("diagnostic position outside the input", d.str(), text);
  if (d.str().rfind(
          "fuzz.ori:" + std::to_string(d.line) + ":" + std::to_string(d.col) + ": error: ", 0) != 0)
    die("diagnostic is not file:line:col: error: message", d.str(), text);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  ori::ParseResult r = ori::parseOri(text, "fuzz.ori");
  if (r.module.has_value() == r.error.has_value())
    die("expected exactly one of module and error", "", text);
  if (r.error) {
    checkDiagnostic(*r.error, text);
    return 0;
  }
  std::string printed = ori::printModule(*r.module);
  ori::ParseResult again = ori::parseOri(printed, "printed.ori");
  if (!again.module)
    die("accepted input prints as text that does not parse",
        again.error->str() + "\n--- printed ---\n" + printed, text);
  if (!(*again.module == *r.module))
    die("parse(print(m)) != m", "--- printed ---\n" + printed, text);
  if (ori::printModule(*again.module) != printed)
    die("print is not stable", "--- printed ---\n" + printed, text);
  return 0;
}
