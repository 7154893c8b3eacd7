// libFuzzer harness for the PTX parser and its lowering to Ori (ptx): any byte
// string must give either a module or one positioned diagnostic, never a crash,
// hang, leak or unbounded allocation. Seeds: /work/shared/corpus/ptx; inputs that once
// crashed are kept in fuzz/corpus/ptx-crashes/ and replayed by
// tests/unit/ptx_parser_test.cpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ptx/ast.h"
#include "ptx/ptx.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  const ori::ptx::ParseResult r = ori::ptx::parse(text, "fuzz.ptx");
  if (r.module.has_value() == r.error.has_value())
    __builtin_trap();
  if (r.error) {
    if (r.error->line == 0 || r.error->col == 0 || r.error->message.empty())
      __builtin_trap();
    return 0;
  }
  // Instruction texts start with the opcode; locations are inside the input.
  const size_t lines = 1 + static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  for (const ori::ptx::TopLevel &item : r.module->items)
    for (const ori::ptx::Statement &s : item.function.body)
      if (s.kind == ori::ptx::Statement::Kind::Instr &&
          (s.instr.text.compare(0, s.instr.opcode.size(), s.instr.opcode) != 0 ||
           s.instr.text.size() > size || s.instr.loc.line == 0 || s.instr.loc.line > lines))
        __builtin_trap();
  // The lowering to Ori: a module or one positioned diagnostic too, and warnings with positions.
  const ori::ParseResult lowered = ori::ptx::lower(*r.module);
  if (lowered.module.has_value() == lowered.error.has_value())
    __builtin_trap();
  if (lowered.error && (lowered.error->message.empty() || lowered.error->line > lines))
    __builtin_trap();
  for (const ori::Warning &w : lowered.warnings)
    if (w.diag.line == 0 || w.diag.line > lines || w.diag.message.empty())
      __builtin_trap();
  return 0;
}
