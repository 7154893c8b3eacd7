// What --run prints beside its exit line (pipeline/run_output.h).
#include "pipeline/run_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "interp/auto_launch.h"

namespace ori {

std::string formatLaunchLayout(const Module &m, const RunConfig &cfg) {
  auto laid = layoutLaunch(m, cfg);
  if (auto *e = std::get_if<std::string>(&laid))
    return "layout: " + *e + "\n";
  const LaunchLayout &L = std::get<LaunchLayout>(laid);
  std::string out =
      fmt::format("layout: shared static 0x{:x} bytes, dynamic 0x{:x} bytes at 0x{:x}\n",
                  L.sharedStatic, L.sharedDynamicSize, L.sharedDynamicBase);
  auto line = [&](const Variable &v) {
    if (v.space != Space::Global && v.space != Space::Const && v.space != Space::Shared)
      return;
    auto at = L.variables.find(&v);
    if (at == L.variables.end())
      return; // the .shared variables of another kernel
    std::string name = v.name + (v.unsized ? "[]" : "");
    if (v.space == Space::Shared && v.linkage == "extern")
      out += fmt::format("layout: .shared {} at 0x{:x} (dynamic)\n", name, at->second);
    else
      out += fmt::format("layout: .{} {} at 0x{:x}, {} bytes\n", spaceName(v.space), name,
                         at->second, v.size());
  };
  for (const Variable &v : m.variables)
    line(v);
  for (const Function &f : m.functions)
    for (const Variable &v : f.variables)
      line(v);
  return out;
}

std::string formatRunStats(const Module &m, const std::string &entry, const RunConfig &cfg,
                           const RunResult &r) {
  std::string out = fmt::format("steps: warp={} lane={}\n", r.warpSteps, r.laneSteps);
  out += fmt::format("branches: executed={} divergent={}\n", r.branches, r.divergentBranches);
  const Function *k = nullptr;
  for (const Function &f : m.functions)
    if (f.isEntry && (entry.empty() || f.name == entry))
      k = k ? k : &f;
  if (r.kind == RunResult::Kind::Ok && k)
    out += didRealWork(*k, cfg, r)
               ? "work: real\n"
               : fmt::format("work: left through its first block ({} warp instructions per warp)\n",
                             firstBlockExitSteps(*k));
  if (r.kind != RunResult::Kind::Ok && !r.message.empty()) {
    std::string detail = r.message;
    std::replace(detail.begin(), detail.end(), '\n', ' ');
    out += "detail: " + detail + "\n";
  }
  return out;
}

bool saveBufferFile(const std::vector<uint8_t> &bytes, const std::string &file) {
  std::ofstream f(file, std::ios::binary);
  return bool(f.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size())));
}

} // namespace ori
