#include "ir/facts.h"

#include <algorithm>
#include <cassert>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ori {

AdjacencyLists::AdjacencyLists(std::initializer_list<std::initializer_list<uint32_t>> rows) {
  reserve(rows.size(), 0);
  for (const auto &row : rows) {
    appendRow();
    for (uint32_t t : row)
      push(t);
  }
}

AdjacencyLists::AdjacencyLists(const std::vector<std::vector<uint32_t>> &rows) {
  size_t edges = 0;
  for (const auto &row : rows)
    edges += row.size();
  reserve(rows.size(), edges);
  for (const auto &row : rows) {
    appendRow();
    targets_.insert(targets_.end(), row.begin(), row.end());
    offsets_.back() = uint32_t(targets_.size());
  }
}

AdjacencyLists AdjacencyLists::fromOffsets(std::vector<uint32_t> offsets,
                                           std::vector<uint32_t> targets) {
  assert(!offsets.empty() && offsets.front() == 0 && offsets.back() == targets.size());
  AdjacencyLists lists;
  lists.offsets_ = std::move(offsets);
  lists.targets_ = std::move(targets);
  return lists;
}

void AdjacencyLists::reserve(size_t rows, size_t edges) {
  offsets_.reserve(rows + 1);
  targets_.reserve(edges);
}

void AdjacencyLists::appendRow() {
  if (offsets_.empty())
    offsets_.push_back(0);
  offsets_.push_back(uint32_t(targets_.size()));
}

void AdjacencyLists::push(uint32_t target) {
  assert(!empty());
  targets_.push_back(target);
  ++offsets_.back();
}

namespace {

std::string compareLists(std::string_view what, const AdjacencyLists &a, const AdjacencyLists &b) {
  if (a.size() != b.size())
    return fmt::format("{}: reference has {} blocks, optimized {}", what, a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    if (!std::ranges::equal(a[i], b[i]))
      return fmt::format("{} of bix{}: reference [{}], optimized [{}]", what, i,
                         fmt::join(a[i], ", "), fmt::join(b[i], ", "));
  return "";
}

template <typename T>
std::string compareFlat(std::string_view what, const std::vector<T> &a, const std::vector<T> &b) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (a[i] != b[i])
      return fmt::format("{}[{}]: reference {}, optimized {}", what, i, a[i], b[i]);
  if (a.size() != b.size())
    return fmt::format("{}: reference has {} entries, optimized {}", what, a.size(), b.size());
  return "";
}

} // namespace

std::string firstDifference(const CfgFacts &r, const CfgFacts &o) {
  for (std::string d :
       {compareLists("succs", r.succs, o.succs), compareLists("preds", r.preds, o.preds),
        compareFlat("rpo", r.rpo, o.rpo), compareFlat("rpoNumber", r.rpoNumber, o.rpoNumber)})
    if (!d.empty())
      return d;
  for (size_t i = 0; i < std::min(r.backedges.size(), o.backedges.size()); ++i)
    if (r.backedges[i] != o.backedges[i])
      return fmt::format("backedge {}: reference bix{} -> bix{}, optimized bix{} -> bix{}", i,
                         r.backedges[i].first, r.backedges[i].second, o.backedges[i].first,
                         o.backedges[i].second);
  if (r.backedges.size() != o.backedges.size())
    return fmt::format("backedges: reference has {}, optimized {}", r.backedges.size(),
                       o.backedges.size());
  return "";
}

std::string firstDifference(const DomFacts &r, const DomFacts &o) {
  return compareFlat("idom", r.idom, o.idom);
}

std::string firstDifference(const LoopFacts &r, const LoopFacts &o) {
  for (size_t i = 0; i < std::min(r.loops.size(), o.loops.size()); ++i) {
    const Loop &a = r.loops[i];
    const Loop &b = o.loops[i];
    if (a == b)
      continue;
    std::string where = fmt::format("loop {} (header bix{})", i, a.header);
    if (a.header != b.header)
      return fmt::format("{}: optimized header bix{}", where, b.header);
    for (std::string d : {compareFlat(where + " latches", a.latches, b.latches),
                          compareFlat(where + " body", a.body, b.body),
                          compareFlat(where + " exits", a.exits, b.exits)})
      if (!d.empty())
        return d;
    if (a.depth != b.depth)
      return fmt::format("{}: depth reference {}, optimized {}", where, a.depth, b.depth);
    return fmt::format("{}: preheader reference {}, optimized {}", where, a.preheader, b.preheader);
  }
  if (r.loops.size() != o.loops.size())
    return fmt::format("loops: reference has {}, optimized {}", r.loops.size(), o.loops.size());
  return "";
}

std::string firstDifference(const RpoSlots &r, const RpoSlots &o) {
  for (std::string d : {compareFlat("rpoNumber", r.rpoNumber, o.rpoNumber),
                        compareFlat("rpoArray", r.rpoArray, o.rpoArray)})
    if (!d.empty())
      return d;
  if (r.counter != o.counter)
    return fmt::format("counter: reference {}, optimized {}", r.counter, o.counter);
  return "";
}

std::string firstDifference(const AnnotationFacts &r, const AnnotationFacts &o) {
  for (size_t i = 0; i < std::min(r.blocks.size(), o.blocks.size()); ++i) {
    const BlockAnnotation &a = r.blocks[i];
    const BlockAnnotation &b = o.blocks[i];
    if (a.rpoNumber != b.rpoNumber)
      return fmt::format("RPONum of bix{}: reference {}, optimized {}", i, a.rpoNumber,
                         b.rpoNumber);
    if (a.flags != b.flags)
      return fmt::format("flags of bix{}: reference {:#010x}, optimized {:#010x}", i, a.flags,
                         b.flags);
    if (a.latchPredOrExit != b.latchPredOrExit)
      return fmt::format("latchPred/exit of bix{}: reference {}, optimized {}", i,
                         a.latchPredOrExit, b.latchPredOrExit);
  }
  if (r.blocks.size() != o.blocks.size())
    return fmt::format("annotations: reference has {} blocks, optimized {}", r.blocks.size(),
                       o.blocks.size());
  auto flag = [](std::string_view what, bool a, bool b) {
    return a == b ? std::string()
                  : fmt::format("{}: reference {}, optimized {}", what, int(a), int(b));
  };
  for (std::string d : {flag("early-exit", r.earlyExitObserved, o.earlyExitObserved),
                        flag("re-entrancy guard", r.reentrancyGuard, o.reentrancyGuard),
                        flag("RPO violation", r.rpoViolation, o.rpoViolation)})
    if (!d.empty())
      return d;
  return "";
}

std::string uninitializedWarning(const LivenessFacts &live, std::string_view function) {
  if (live.uninitialized.empty())
    return "";
  return fmt::format("Found {} potentially uninitialized register(s) in function {}",
                     live.uninitialized.size(), function);
}

std::string firstDifference(const LivenessFacts &r, const LivenessFacts &o) {
  auto regs = [](const std::vector<Reg> &v) {
    std::string s = "{";
    for (Reg x : v)
      s += fmt::format("{}{}{}", s.size() > 1 ? " " : "", regFilePrefix(x.file), x.num);
    return s + "}";
  };
  auto sets = [&](std::string_view what, const auto &a, const auto &b) -> std::string {
    if (a.size() != b.size())
      return fmt::format("{}: reference has {} blocks, optimized {}", what, a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i])
        return fmt::format("{} of bix{}: reference {}, optimized {}", what, i, regs(a[i]),
                           regs(b[i]));
    return "";
  };
  for (std::string d :
       {sets("live-in", r.liveIn, o.liveIn), sets("live-out", r.liveOut, o.liveOut)})
    if (!d.empty())
      return d;
  for (size_t i = 0; i < std::min(r.pressure.size(), o.pressure.size()); ++i)
    if (r.pressure[i] != o.pressure[i])
      return fmt::format("pressure of bix{}: reference [{}], optimized [{}]", i,
                         fmt::join(r.pressure[i], ", "), fmt::join(o.pressure[i], ", "));
  if (r.pressure.size() != o.pressure.size())
    return fmt::format("pressure: reference has {} blocks, optimized {}", r.pressure.size(),
                       o.pressure.size());
  if (r.maxPressure != o.maxPressure)
    return fmt::format("max pressure: reference [{}], optimized [{}]",
                       fmt::join(r.maxPressure, ", "), fmt::join(o.maxPressure, ", "));
  if (r.uninitialized != o.uninitialized)
    return fmt::format("uninitialized: reference {}, optimized {}", regs(r.uninitialized),
                       regs(o.uninitialized));
  return "";
}

} // namespace ori
