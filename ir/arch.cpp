#include "ir/arch.h"

namespace ori {
namespace {
// Rows marked true are the spec's table verbatim (sm_30..sm_70 are kept for
// the spec's sake though ptxas 13.0 itself accepts sm_75 and newer only). The
// spec gives no value for the other architectures ptxas 13.0 accepts
// (`ptxas --help`); we give each the generation of the nearest spec row below
// it and the next free variant, which keeps the one boundary that matters
// (20479 = 0x4FFF: generation 4 and below vs 5 and above) on the right side. The spec's "sm_50a"
// row (0x5001) names no real architecture and is left out (docs/spec-notes.md).
constexpr ArchInfo kArchs[] = {
    {"sm_30", 0x3000, true},   {"sm_50", 0x4001, true},    {"sm_60", 0x6000, true},
    {"sm_70", 0x7000, true},   {"sm_80", 0x7001, true},    {"sm_75", 0x7002, false},
    {"sm_86", 0x7003, false},  {"sm_87", 0x7004, false},   {"sm_88", 0x7005, false},
    {"sm_89", 0x7006, false},  {"sm_90", 0x8000, true},    {"sm_90a", 0x8001, false},
    {"sm_100", 0x9000, true},  {"sm_100a", 0x9001, false}, {"sm_100f", 0x9002, false},
    {"sm_103", 0x9003, false}, {"sm_103a", 0x9004, false}, {"sm_103f", 0x9005, false},
    {"sm_110", 0x9006, false}, {"sm_110a", 0x9007, false}, {"sm_110f", 0x9008, false},
    {"sm_120", 0x9009, false}, {"sm_120a", 0x900A, false}, {"sm_120f", 0x900B, false},
    {"sm_121", 0x900C, false}, {"sm_121a", 0x900D, false}, {"sm_121f", 0x900E, false},
};
} // namespace

std::span<const ArchInfo> allArchs() { return kArchs; }

const ArchInfo *findArch(std::string_view name) {
  for (const ArchInfo &a : kArchs)
    if (a.name == name)
      return &a;
  return nullptr;
}

} // namespace ori
