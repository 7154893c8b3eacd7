// The two-half runner (pipeline/halves_impl.h): one half, the other, or both compared.
#include "pipeline/halves_impl.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "ir/ori.h"

namespace ori::pipeline_detail {

namespace {

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    size_t end = std::min(text.find('\n', i), text.size());
    out.push_back(text.substr(i, end - i));
    i = end + 1;
  }
  return out;
}

// The first difference between the reference's function and the optimized's, or "".
std::string firstDifference(const Function &ref, const Function &opt) {
  const std::vector<std::string> r = lines(printFunction(ref)), o = lines(printFunction(opt));
  for (size_t i = 0; i < std::max(r.size(), o.size()); ++i) {
    const std::string a = i < r.size() ? r[i] : "<end>", b = i < o.size() ? o[i] : "<end>";
    if (a != b)
      return fmt::format("line {}: reference '{}', optimized '{}'", i + 1, a, b);
  }
  for (size_t b = 0; b < opt.blocks.size(); ++b)
    if (ref.blocks[b].labelId != opt.blocks[b].labelId)
      return fmt::format("label id of bix{}: reference L{:x}, optimized L{:x}", b,
                         ref.blocks[b].labelId, opt.blocks[b].labelId);
  return "";
}

} // namespace

HalfOutcome runHalves(Function &f, PassContext &ctx, std::string_view what,
                      const HalfRun &reference, const HalfRun &optimized) {
  if (ctx.half == PassContext::Half::Reference)
    return reference(f, true);
  if (ctx.half == PassContext::Half::Optimized)
    return optimized(f, true);
  Function copy = f;
  HalfOutcome opt = optimized(f, true);
  const HalfOutcome ref = reference(copy, false);
  if (!ctx.error.empty())
    return opt;
  if (std::string diff = firstDifference(copy, f); !diff.empty())
    ctx.error =
        fmt::format("function {}: {}: reference and optimized differ: {}", f.name, what, diff);
  else if (opt.sameCounts && !opt.sameCounts(ref.counts, opt.counts))
    ctx.error = fmt::format("function {}: {}: reference and optimized differ in counts{}", f.name,
                            what, opt.marks ? " or fold marks" : "");
  return opt;
}

} // namespace ori::pipeline_detail
