#include "tools/oriopt/pipeline.h"

#include <fmt/format.h>

namespace ori {

namespace {
// Implemented phases in pipeline order. Empty until the first pass lands
// (issue 4 brings AnalyzeControlFlow).
constexpr PipelineEntry kPipeline[] = {
    {0, nullptr}, // sentinel so the array is not empty; never runs (see pipeline())
};
} // namespace

std::span<const PipelineEntry> pipeline() {
  return std::span<const PipelineEntry>(kPipeline).subspan(1);
}

bool isImplemented(int phase) {
  for (const PipelineEntry& e : pipeline())
    if (e.phase == phase) return true;
  return false;
}

std::variant<std::vector<const PipelineEntry*>, std::string> parsePhaseList(std::string_view list) {
  std::vector<const PipelineEntry*> out;
  size_t i = 0;
  while (i <= list.size()) {
    size_t end = list.find(',', i);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = list.substr(i, end - i);
    i = end + 1;
    if (item.empty()) {
      if (end == list.size() && out.empty() && list.empty()) break;
      return std::string("empty item in phase list");
    }
    const PhaseInfo* info = findPhase(item);
    if (!info) return fmt::format("unknown phase '{}' (see --list-phases)", item);
    const PipelineEntry* entry = nullptr;
    for (const PipelineEntry& e : pipeline())
      if (e.phase == info->number) entry = &e;
    if (!entry) return fmt::format("phase {} {} is not implemented yet", info->number, info->name);
    out.push_back(entry);
  }
  return out;
}

} // namespace ori
