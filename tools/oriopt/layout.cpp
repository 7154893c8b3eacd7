// --dump-layout: where --run placed the module's variables (interp.h, layoutLaunch;
// docs/interpreter.md, "Memory").
#include <fmt/format.h>

#include "cli.h"

namespace oriopt_cli {

std::string formatLayout(const ori::Module &m, const ori::RunConfig &cfg) {
  auto laid = ori::layoutLaunch(m, cfg);
  if (auto *e = std::get_if<std::string>(&laid))
    return "layout: " + *e + "\n";
  const ori::LaunchLayout &L = std::get<ori::LaunchLayout>(laid);
  std::string out =
      fmt::format("layout: shared static 0x{:x} bytes, dynamic 0x{:x} bytes at 0x{:x}\n",
                  L.sharedStatic, L.sharedDynamicSize, L.sharedDynamicBase);
  auto line = [&](const ori::Variable &v) {
    if (v.space != ori::Space::Global && v.space != ori::Space::Const &&
        v.space != ori::Space::Shared)
      return;
    auto at = L.variables.find(&v);
    if (at == L.variables.end())
      return; // the .shared variables of another kernel
    std::string name = v.name + (v.unsized ? "[]" : "");
    if (v.space == ori::Space::Shared && v.linkage == "extern")
      out += fmt::format("layout: .shared {} at 0x{:x} (dynamic)\n", name, at->second);
    else
      out += fmt::format("layout: .{} {} at 0x{:x}, {} bytes\n", ori::spaceName(v.space), name,
                         at->second, v.size());
  };
  for (const ori::Variable &v : m.variables)
    line(v);
  for (const ori::Function &f : m.functions)
    for (const ori::Variable &v : f.variables)
      line(v);
  return out;
}

} // namespace oriopt_cli
