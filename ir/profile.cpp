// The profile reader (ir/profile.h).
#include "ir/profile.h"

#include <fmt/format.h>

#include <charconv>
#include <vector>

namespace ori {

std::variant<BlockProfile, Diagnostic> parseProfile(std::string_view text, std::string_view file,
                                                    const Module &m) {
  if (std::optional<Diagnostic> d = checkIsText(text, file))
    return *d;
  BlockProfile out;
  uint32_t lineNo = 0;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++lineNo;
    if (size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    // The words of the line and their columns (1-based).
    std::vector<std::pair<std::string_view, uint32_t>> words;
    for (size_t i = 0; i < line.size();) {
      if (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\f') {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r' &&
             line[j] != '\f')
        ++j;
      words.push_back({line.substr(i, j - i), uint32_t(i + 1)});
      i = j;
    }
    if (words.empty())
      continue;
    auto error = [&](uint32_t col, std::string message) {
      return Diagnostic{std::string(file), lineNo, col, std::move(message)};
    };
    if (words.size() != 3)
      return error(words.front().second,
                   fmt::format("expected FUNCTION LABEL COUNT, found {} word{}", words.size(),
                               words.size() == 1 ? "" : "s"));
    const auto [fn, fnCol] = words[0];
    const auto [label, labelCol] = words[1];
    const auto [count, countCol] = words[2];
    const Function *f = nullptr;
    for (const Function &g : m.functions)
      if (g.name == fn && !g.isDeclaration())
        f = &g;
    if (!f)
      return error(fnCol, fmt::format("no function '{}' with a body in the module", fn));
    if (!f->findBlock(label))
      return error(labelCol, fmt::format("function '{}' has no block labelled '{}'", fn, label));
    uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(count.data(), count.data() + count.size(), value, 10);
    if (ec != std::errc() || ptr != count.data() + count.size())
      return error(countCol,
                   fmt::format("'{}' is not a count (a decimal integer below 2^64)", count));
    auto &counts = out[std::string(fn)];
    if (!counts.emplace(std::string(label), value).second)
      return error(labelCol, fmt::format("block '{}' of '{}' is given twice", label, fn));
  }
  return out;
}

} // namespace ori
