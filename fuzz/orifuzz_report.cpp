#include "fuzz/orifuzz_report.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace ori::fuzzreport {

bool write(const Report &r, const std::string &path) {
  nlohmann::json failures = nlohmann::json::array();
  for (const Failure &f : r.failures)
    failures.push_back({{"run", f.run},
                        {"size", f.size},
                        {"message", f.message},
                        {"shrunk_message", f.shrunkMessage},
                        {"reproducer", f.reproducer},
                        {"replay", f.replay}});
  nlohmann::json j = {{"tool", "orifuzz"},
                      {"check", r.check},
                      {"seed", r.seed},
                      {"runs", r.runs},
                      {"shard", {{"index", r.shardIndex}, {"count", r.shards}}},
                      {"size", r.size},
                      {"done", r.done},
                      {"expected", r.expected},
                      // stopped early: at the first failure without --keep-going
                      {"complete", r.done == r.expected},
                      {"keep_going", r.keepGoing},
                      {"seconds", r.seconds},
                      {"failures", failures}};
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << j.dump(1) << "\n";
    out.close();
    if (!out)
      return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  return !ec;
}

} // namespace ori::fuzzreport
