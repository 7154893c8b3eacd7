#include "ir/facts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ori {
namespace {

template <typename T>
std::string compareLists(std::string_view what, const std::vector<std::vector<T>>& a,
                         const std::vector<std::vector<T>>& b) {
  if (a.size() != b.size()) return fmt::format("{}: reference has {} blocks, optimized {}", what, a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i])
      return fmt::format("{} of bix{}: reference [{}], optimized [{}]", what, i, fmt::join(a[i], ", "),
                         fmt::join(b[i], ", "));
  return "";
}

template <typename T>
std::string compareFlat(std::string_view what, const std::vector<T>& a, const std::vector<T>& b) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (a[i] != b[i]) return fmt::format("{}[{}]: reference {}, optimized {}", what, i, a[i], b[i]);
  if (a.size() != b.size()) return fmt::format("{}: reference has {} entries, optimized {}", what, a.size(), b.size());
  return "";
}

} // namespace

std::string firstDifference(const CfgFacts& r, const CfgFacts& o) {
  for (std::string d : {compareLists("succs", r.succs, o.succs), compareLists("preds", r.preds, o.preds),
                        compareFlat("rpo", r.rpo, o.rpo), compareFlat("rpoNumber", r.rpoNumber, o.rpoNumber)})
    if (!d.empty()) return d;
  for (size_t i = 0; i < std::min(r.backedges.size(), o.backedges.size()); ++i)
    if (r.backedges[i] != o.backedges[i])
      return fmt::format("backedge {}: reference bix{} -> bix{}, optimized bix{} -> bix{}", i, r.backedges[i].first,
                         r.backedges[i].second, o.backedges[i].first, o.backedges[i].second);
  if (r.backedges.size() != o.backedges.size())
    return fmt::format("backedges: reference has {}, optimized {}", r.backedges.size(), o.backedges.size());
  return "";
}

std::string firstDifference(const DomFacts& r, const DomFacts& o) { return compareFlat("idom", r.idom, o.idom); }

std::string firstDifference(const LoopFacts& r, const LoopFacts& o) {
  for (size_t i = 0; i < std::min(r.loops.size(), o.loops.size()); ++i) {
    const Loop& a = r.loops[i];
    const Loop& b = o.loops[i];
    if (a == b) continue;
    std::string where = fmt::format("loop {} (header bix{})", i, a.header);
    if (a.header != b.header) return fmt::format("{}: optimized header bix{}", where, b.header);
    for (std::string d : {compareFlat(where + " latches", a.latches, b.latches), compareFlat(where + " body", a.body, b.body),
                          compareFlat(where + " exits", a.exits, b.exits)})
      if (!d.empty()) return d;
    if (a.depth != b.depth) return fmt::format("{}: depth reference {}, optimized {}", where, a.depth, b.depth);
    return fmt::format("{}: preheader reference {}, optimized {}", where, a.preheader, b.preheader);
  }
  if (r.loops.size() != o.loops.size())
    return fmt::format("loops: reference has {}, optimized {}", r.loops.size(), o.loops.size());
  return "";
}

} // namespace ori
