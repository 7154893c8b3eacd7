// Emit, lower again, compare (ptx/roundtrip.h).
#include "ptx/roundtrip.h"

#include "ptx/ptx.h"

namespace ori::ptx {

RoundTrip roundTrip(const ori::Module &first) {
  RoundTrip rt;
  EmitResult e = emit(first);
  if (e.error) {
    rt.error = e.error;
    rt.stage = "emit";
    return rt;
  }
  rt.emitted = std::move(e.text);
  ori::ParseResult again = parseAndLower(rt.emitted, first.fileName + " (emitted)");
  if (again.error) {
    rt.error = again.error;
    rt.stage = "lower the emitted PTX";
    return rt;
  }
  rt.second = std::move(*again.module);
  rt.comparison = compareModulesUpToNames(first, rt.second);
  return rt;
}

} // namespace ori::ptx
