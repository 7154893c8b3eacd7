// Switch dispatch read back from Ori IR (docs/verifier.md, "Switch dispatch"):
// extractDispatch turns the compare-and-branch blocks, trampolines and jump
// tables that start at a block into a DispatchProgram (verify/switch_dispatch.h)
// whose targets are the label ids of the blocks the selector can reach;
// checkSwitchRewrites extracts every switch of a function before and after a
// phase (DoSwitchOpt 14/30, ExpandJmxComputation 80) and proves with
// checkDispatch that each one still sends every 32-bit selector to the same
// block, or names a selector that goes elsewhere. Everything is read from the
// Functions alone: nothing the switch pass recorded is trusted.
//
// What counts as dispatch (all other code ends it):
//   IADD3 t, a, b, c   with {a, b, c} = {a register holding selector - bias
//                      (not negated), an immediate, RZ}: t = selector - bias'.
//   ISETP.cmp.{U32,S32}[.AND] P, Q, x, y[, PT]  one of x, y such a register,
//                      the other an immediate or RZ: P holds the compare, Q
//                      (if not PT) its negation.
//   MOV r, imm             (or RZ; 32-bit, unguarded): r holds a constant.
//   SHL b, one, t          (32-bit, unguarded) one holding 1, t holding
//                      selector - bias: b = 1 << (selector - bias), 0 when
//                      that is 32 or more (all 32 bits of the amount count, as
//                      in the interpreter and the SHL model).
//   LOP3.LUT x, a, b, c, lut  (32-bit, unguarded) one source such a bit
//                      (or an earlier x), the other two constants (immediates,
//                      RZ or MOV'd registers), and the LUT on those operands
//                      giving 0 where the bit is 0: x = bit & M, M what the
//                      LUT gives where the bit is all ones (AND in any order).
//   ISETP.{NE,EQ}.{U32,S32}[.AND] P, Q, x, 0|RZ[, PT]  (either side): P holds
//                      the bit test x != 0 (EQ: x == 0), Q its negation;
//                      @P BRA X on it is a BitTest node: M to X, otherwise
//                      the next block (the other way round for EQ or @!P).
//   @P BRA X / @!P BRA X   (P such a compare or bit test): to X, else to the
//                      next block.
//   BRA X                  a trampoline: adds no node.
//   BRX/JMX t, table       (t such a register, unguarded): a table node.
// The facts (registers holding selector - bias, constants and bits, and the
// predicates) flow from block to block along the dispatch. The head block may
// hold any other code before its tail (an instruction that writes the
// selector starts the facts afresh, one that writes a tracked register or
// predicate forgets it); every other block is a dispatch block only when it
// holds nothing but the forms above, and reads itself every register and
// predicate it writes (so a case body `MOV R2, 0x1; BRA join` or `IADD3 R5,
// S, 0x1, RZ; BRA join` is not a trampoline), else
// it is a leaf: a Target node whose id is the block's labelId.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "ir/ir.h"
#include "verify/switch_dispatch.h"

namespace ori::verify {

// The most nodes (and block visits) one extraction may take.
inline constexpr size_t kMaxDispatchNodes = 20'000;
// The most switch heads checkSwitchRewrites checks in one function.
inline constexpr size_t kMaxSwitchHeads = 2'000;

// Extracts the dispatch programs of one function. Block identity is the label
// id; it is indexed once here, so many heads of one function cost little.
class SwitchExtractor {
public:
  explicit SwitchExtractor(const Function& f, size_t maxNodes = kMaxDispatchNodes);

  // The dispatch that starts at block `head` on register `selector`, or why
  // there is none: the head does not end in a dispatch, a leaf's label id is
  // shared by another block, a cycle of dispatch blocks, over maxNodes.
  std::variant<DispatchProgram, std::string> extract(uint32_t head, Reg selector) const;

  // The block carrying `labelId`: the only one, or the only non-empty one
  // (an empty block shares its id with the block after it); nullopt if none
  // or several.
  std::optional<uint32_t> blockWithId(uint32_t labelId) const;
  // A block for messages: its label, else L<labelId in hex>.
  std::string blockName(uint32_t labelId) const;

  const Function& function() const { return f_; }

private:
  const Function& f_;
  size_t maxNodes_;
  // labelId -> the blocks carrying it (usually one).
  std::unordered_map<uint32_t, std::vector<uint32_t>> byId_;
};

// One-off form of SwitchExtractor(f).extract(head, selector).
std::variant<DispatchProgram, std::string> extractDispatch(const Function& f, uint32_t head, Reg selector,
                                                           size_t maxNodes = kMaxDispatchNodes);

// Whether two programs are node for node the same.
bool sameProgram(const DispatchProgram& a, const DispatchProgram& b);

struct SwitchCheckResult {
  // Unchanged: both sides extract to the same program (nothing to prove; not
  // a checked switch). Unknown: `after` does not extract, Z3 gave up, or the
  // head limit was reached.
  enum class Verdict { Proved, Refuted, Unknown, Unchanged };
  Verdict verdict = Verdict::Unknown;
  uint32_t headBix = 0;     // in `before`
  uint32_t headLabelId = 0;
  std::string head;         // the head block's name
  Reg selector{};
  size_t beforeNodes = 0, afterNodes = 0;
  // Refuted: a selector the two send to different blocks (label ids, or
  // kFaultTarget for a jump-table overrun).
  std::optional<uint32_t> counterexample;
  uint32_t beforeTarget = 0, afterTarget = 0;
  std::string reason; // Unknown: why
  // e.g. "switch at $L__BB0_2 in f (selector R1): proved (12 nodes -> 4 nodes)"
  std::string line;
};

// Every switch head of `before` (a block ending in @P BRA with P set in that
// block by an ISETP of a register S with a constant; S is the selector),
// extracted in both functions from the block with the same label id and
// compared. Heads that `before` does not extract as a dispatch, or whose id
// names no single block of `after`, are skipped. At most kMaxSwitchHeads heads
// are checked; the rest get one Unknown result.
std::vector<SwitchCheckResult> checkSwitchRewrites(const Function& before, const Function& after);

} // namespace ori::verify
