// What `oriopt --run` prints beside the exit line (interp/interp.h, formatExit) and the buffers
// (pipeline/launch.h): where the launch placed the variables (--dump-layout), what the run
// executed (--run-stats), and the buffers written to files (--save-buffer).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "interp/interp.h"
#include "ir/ir.h"

namespace ori {

// "layout: shared static 0x.. bytes, dynamic 0x.. bytes at 0x.." then a line per global, const
// and shared variable of the launch (docs/interpreter.md, "Memory"); or "layout: ERROR".
std::string formatLaunchLayout(const Module &m, const RunConfig &cfg);

// "steps: warp=W lane=L", "branches: executed=B divergent=D", then for an ok run whether it did
// real work (interp/auto_launch.h: "work: real" or "work: left through its first block (N warp
// instructions per warp)"), for the others "detail: MESSAGE" on one line. `entry`: the kernel
// run ("": the first .entry).
std::string formatRunStats(const Module &m, const std::string &entry, const RunConfig &cfg,
                           const RunResult &r);

// Writes `bytes` to `file`; false when it cannot.
bool saveBufferFile(const std::vector<uint8_t> &bytes, const std::string &file);

} // namespace ori
