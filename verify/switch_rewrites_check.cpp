// The before/after check of the switch phases (verify/switch_extract.h checkSwitchRewrites):
// every switch head of the function before, its dispatch extracted on both sides and proved
// equal.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "ir/ori.h"
#include "verify/switch_extract.h"
#include "verify/switch_extract_impl.h"

namespace ori::verify {

namespace {

std::string selectorText(uint32_t v) {
  return int32_t(v) < 0 ? fmt::format("0x{:x} ({})", v, int32_t(v)) : fmt::format("0x{:x}", v);
}

} // namespace

std::vector<SwitchCheckResult> checkSwitchRewrites(const Function &before, const Function &after) {
  using Verdict = SwitchCheckResult::Verdict;
  SwitchExtractor xb(before), xa(after);
  std::vector<SwitchCheckResult> out;
  size_t heads = 0, notChecked = 0;
  for (uint32_t b = 0; b < before.blocks.size(); ++b) {
    std::vector<Reg> sels = switchHeadSelectors(before.blocks[b]);
    if (sels.empty())
      continue;
    const uint32_t id = before.blocks[b].labelId;
    std::optional<uint32_t> a = xa.blockWithId(id);
    if (!a || xb.blockWithId(id) != b)
      continue; // not one block on each side
    if (++heads > kMaxSwitchHeads) {
      ++notChecked;
      continue;
    }
    // The first candidate selector the dispatch before extracts on.
    std::optional<Reg> sel;
    std::variant<DispatchProgram, std::string> pb = std::string("no selector");
    for (Reg s : sels) {
      pb = xb.extract(b, s);
      if (std::holds_alternative<DispatchProgram>(pb)) {
        sel = s;
        break;
      }
    }
    if (!sel)
      continue; // not a dispatch before
    const DispatchProgram &ref = std::get<DispatchProgram>(pb);
    // The precondition: the larger of the two heads' bounds (the weaker fact;
    // each side's program is exact below its own bound).
    const SelectorBound bb = selectorBound(before, b, *sel), ba = selectorBound(after, *a, *sel);
    const SelectorBound &bound = ba.max > bb.max ? ba : bb;

    SwitchCheckResult r;
    r.headBix = b;
    r.headLabelId = id;
    r.head = before.blocks[b].label.empty() ? fmt::format("bix{} (L{:x})", b, id)
                                            : before.blocks[b].label;
    r.selector = *sel;
    r.maxSelector = bound.max;
    r.boundBy = bound.by;
    r.beforeNodes = ref.nodes.size();
    const std::string what = fmt::format("switch at {} in {} (selector {})", r.head, before.name,
                                         printReg(before, *sel));
    std::variant<DispatchProgram, std::string> pa = xa.extract(*a, *sel);
    if (auto *e = std::get_if<std::string>(&pa)) {
      r.verdict = Verdict::Unknown;
      r.reason = "not a dispatch after the phase: " + *e;
    } else {
      const DispatchProgram &cand = std::get<DispatchProgram>(pa);
      r.afterNodes = cand.nodes.size();
      if (sameProgram(ref, cand)) {
        r.verdict = Verdict::Unchanged;
      } else {
        DispatchCheck c = checkDispatch(ref, cand, r.maxSelector);
        if (!c.error.empty()) {
          r.verdict = Verdict::Unknown;
          r.reason = c.error;
        } else if (c.equivalent) {
          r.verdict = Verdict::Proved;
        } else if (c.selector) {
          r.verdict = Verdict::Refuted;
          r.counterexample = c.selector;
          r.beforeTarget = c.referenceTarget;
          r.afterTarget = c.candidateTarget;
        } else {
          r.verdict = Verdict::Unknown;
          r.reason = "not proved, and no counterexample selector";
        }
      }
    }
    // " for selectors <= 0xf (the head's LOP3 bounds it)" under a bound.
    const std::string under =
        r.maxSelector == kAllSelectors
            ? std::string()
            : fmt::format(" for selectors <= 0x{:x} (the head's {} bounds it)", r.maxSelector,
                          r.boundBy);
    switch (r.verdict) {
    case Verdict::Proved:
      r.line = fmt::format("{}: proved{} ({} nodes -> {} nodes)", what, under, r.beforeNodes,
                           r.afterNodes);
      break;
    case Verdict::Refuted:
      r.line = fmt::format("{}: refuted{}: selector {} goes to {} before, to {} after", what, under,
                           selectorText(*r.counterexample), xb.blockName(r.beforeTarget),
                           xa.blockName(r.afterTarget));
      break;
    case Verdict::Unknown:
      r.line = fmt::format("{}: unknown: {}", what, r.reason);
      break;
    case Verdict::Unchanged:
      r.line = fmt::format("{}: unchanged", what);
      break;
    }
    out.push_back(std::move(r));
  }
  if (notChecked) {
    SwitchCheckResult r;
    r.verdict = Verdict::Unknown;
    r.reason = fmt::format("{} more switch heads in {} not checked (limit {})", notChecked,
                           before.name, kMaxSwitchHeads);
    r.line = "switch: unknown: " + r.reason;
    out.push_back(std::move(r));
  }
  return out;
}

} // namespace ori::verify
