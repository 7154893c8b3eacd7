// The category of an unknown verdict's reason (verify/tv_category.h).
#include "verify/tv_category.h"

namespace ori::verify {

std::string_view unknownCategory(std::string_view reason) {
  // The first clause: a reason may append why an earlier attempt failed after "; ".
  std::string_view first = reason.substr(0, reason.find("; "));
  auto starts = [&](std::string_view p) { return first.starts_with(p); };
  auto has = [&](std::string_view p) { return first.find(p) != std::string_view::npos; };
  if (starts("deadline"))
    return "deadline";
  if (starts("budget"))
    return "budget";
  if (starts("timeout"))
    return "timeout";
  if (starts("unroll bound"))
    return "unroll bound";
  if (has("the unrolled function exceeds"))
    return "size";
  if (has("unmodelled"))
    return "unmodelled";
  if (starts("a difference that may come from the call") ||
      starts("a difference that may come from the indirect call"))
    return "calls";
  if (starts("a difference that may come from"))
    return "uninterpreted";
  if (starts("new function") || starts("not in the source"))
    return "new function";
  return "other";
}

} // namespace ori::verify
