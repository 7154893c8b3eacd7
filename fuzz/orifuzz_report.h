// orifuzz --report FILE: a machine-readable summary of one campaign (or shard) for
// tools that gather shards, such as tools/campaign/oriopt-campaign (docs/campaigns.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ori::fuzzreport {

// The first run index of shard i/N at or after `from` (orifuzz --from: a stopped campaign goes
// on where it was; run k still uses the key (seed, k)).
inline uint64_t firstRunAtOrAfter(uint64_t from, uint64_t shardIndex, uint64_t shards) {
  if (from <= shardIndex)
    return shardIndex;
  return from + (shardIndex + shards - from % shards) % shards;
}

struct Failure {
  uint64_t run = 0;
  int size = 0;
  std::string message;       // the failure as first seen
  std::string shrunkMessage; // after shrinking
  std::string reproducer;    // path of the .ori file, or "" when it could not be written
  std::string replay;        // the command that runs this case alone
};

struct Report {
  std::string check;
  uint64_t seed = 0, runs = 0, shardIndex = 0, shards = 1;
  int size = 0;
  uint64_t done = 0;     // runs executed by this process
  uint64_t expected = 0; // runs of this shard
  bool keepGoing = false;
  double seconds = 0;
  std::vector<Failure> failures;
};

// Writes the report as JSON (written to FILE.tmp, then renamed, so a reader never sees half of
// it); false when it cannot be written.
bool write(const Report &r, const std::string &path);

} // namespace ori::fuzzreport
