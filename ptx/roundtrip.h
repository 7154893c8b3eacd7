// The PTX round trip (docs/ptx.md, "Round trip"): a module is emitted as PTX and the PTX
// lowered again; the two modules are compared up to register and label names
// (ir/canonical.h). pipeline/roundtrip_check.h proves the functions that differ.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ir/canonical.h"
#include "ir/diag.h"
#include "ir/ir.h"

namespace ori::ptx {

struct RoundTrip {
  // Set when emit() refused the module or the emitted PTX did not lower: `stage` says which
  // ("emit", "lower the emitted PTX"); `emitted` holds the text when there is one.
  std::optional<Diagnostic> error;
  std::string stage;
  std::string emitted;         // the PTX emit() printed
  ori::Module second;          // the emitted PTX lowered again
  ModuleComparison comparison; // first against second
  bool ok() const { return !error; }
};

// Emits `first`, lowers the text again (its file name: "<fileName> (emitted)") and compares.
RoundTrip roundTrip(const ori::Module &first);

} // namespace ori::ptx
