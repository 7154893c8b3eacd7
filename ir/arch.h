// Target architectures and ptxas's packed SM encoding (spec/002, "SM Version
// Encoding and the 20479 Boundary"): encoded = (generation << 12) | variant.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace ori {

struct ArchInfo {
  std::string_view name; // "sm_90"
  uint32_t encoded;      // (generation << 12) | variant
  bool fromSpec;         // false: derived by us, see docs/spec-notes.md
};

std::span<const ArchInfo> allArchs();
const ArchInfo *findArch(std::string_view name);
inline constexpr std::string_view kDefaultArch = "sm_90";

} // namespace ori
