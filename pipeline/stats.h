// The phase statistics of a run (PhaseStats, pipeline/pipeline.h) as oriopt prints them.
#pragma once

#include <nlohmann/json.hpp>

#include <span>
#include <string>

#include "pipeline/pipeline.h"

namespace ori {

// --stats: LLVM's -time-passes table: per phase the wall time, instructions and blocks after it,
// removed and added, rewrites, functions changed, or why its gate kept it from running.
std::string formatStatsTable(std::span<const PhaseStats> stats);
// --json's "phases" array (docs/oriopt-output.schema.json).
nlohmann::json statsJson(std::span<const PhaseStats> stats);

} // namespace ori
