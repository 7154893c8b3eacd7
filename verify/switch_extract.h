// Switch dispatch read back from Ori IR (docs/verifier.md, "Switch dispatch"):
// extractDispatch turns the compare-and-branch blocks, trampolines and jump
// tables that start at a block into a DispatchProgram (verify/switch_dispatch.h)
// whose targets are the label ids of the blocks the selector can reach;
// checkSwitchRewrites extracts every switch of a function before and after a
// phase (DoSwitchOpt 14/30, ExpandJmxComputation 80) and proves with
// checkDispatch that each one still sends every 32-bit selector (every one
// within the head's bound, below) to the same block, or names a selector that
// goes elsewhere. Everything is read from the Functions alone: nothing the
// switch pass recorded is trusted.
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
//   SGXT t, x, w           (32-bit, unguarded, w an immediate) x holding
//                      the selector itself (bias 0): t holds the selector
//                      too when the head's bound U (below) is < 2^(w-1)
//                      (.U32: < 2^w), or w >= 32. SGXT sign-extends the low w
//                      bits of x (.U32 zero-extends; w = 0 gives 0, w >= 32
//                      gives x: the interpreter and the SGXT model), which is
//                      x for every x <= U then.
//                      Without such a bound (or with w = 0) it is no dispatch.
//                      nvcc 13 compares SGXT(S, 16) in the range splits of a
//                      `switch (x & 15)` narrowed to 16 bits and S itself in
//                      the leaves; both read as compares of S.
// The facts (registers holding selector - bias, constants and bits, and the
// predicates) flow from block to block along the dispatch. The head block may
// hold any other code before its tail (an instruction that writes the
// selector starts the facts afresh, one that writes a tracked register or
// predicate forgets it); every other block is a dispatch block only when it
// holds nothing but the forms above, and reads itself every register and
// predicate it writes (so a case body `MOV R2, 0x1; BRA join` or `IADD3 R5,
// S, 0x1, RZ; BRA join` is not a trampoline), else
// it is a leaf: a Target node whose id is the block's labelId.
//
// The head's bound U on the selector (selectorBound; 0xFFFFFFFF: none). The
// instruction of the head block (before its closing branch) that last writes
// the selector register S gives it, by these rules only:
//   LOP3.LUT S, a, b, c, lut  (32-bit, unguarded) its sources one register x,
//                      one immediate M and RZ in any order, and the LUT
//                      (evaluated on them, x all zeros and all ones) giving 0
//                      where x's bit is 0 and where M's bit is 0, so the
//                      result is a subset of M for every x: U = M. (An OR,
//                      LUT 0xfc, gives none.) When the LUT gives M for x all
//                      ones too, the result is x AND M, so U = the smaller of
//                      M and x's bound from earlier in the block (nvcc's
//                      `cvt.u16.u32` of a shifted byte-code word).
//   SHR.U32 S, x, k    (32-bit, unguarded, 0 <= k < 32): U = x's bound >> k
//                      (x unbounded: 0xFFFFFFFF >> k). At most 8 ANDs and
//                      shifts are followed.
//   MOV S, imm         (or RZ; 32-bit, unguarded): U = imm.
//   MOV S, y           (32-bit, unguarded, y a register): the bound of y from
//                      the instruction that last writes y earlier in the head
//                      block, by the same rules (at most 8 MOVs followed).
//   LD/LDG/LDS/LDL/LDC.U8 or .U16 S, ...  (not .64, unguarded): U = 0xFF or
//                      0xFFFF; these loads zero-extend (interp/interp_mem.cpp).
// Anything else, a guarded writer, or no writer in the head block: no bound.
// The bound lets SGXT read as the selector (above) and is checkSwitchRewrites'
// precondition: it proves a switch for the selectors <= the larger of the
// bounds of the head before and after the phase (the weaker fact), and a
// counterexample is always such a selector.
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

// An unsigned upper bound on the selector at the end of a head block, and the
// instruction it comes from ("LOP3", "MOV", "LDG.U16", ...; empty: none).
struct SelectorBound {
  uint32_t max = kAllSelectors;
  std::string by;
};

// The bound the head block `head` of `f` gives `selector` (rules above).
SelectorBound selectorBound(const Function &f, uint32_t head, Reg selector);

// Extracts the dispatch programs of one function. Block identity is the label
// id; it is indexed once here, so many heads of one function cost little.
class SwitchExtractor {
public:
  explicit SwitchExtractor(const Function &f, size_t maxNodes = kMaxDispatchNodes);

  // The dispatch that starts at block `head` on register `selector`, or why
  // there is none: the head does not end in a dispatch, a leaf's label id is
  // shared by another block, a cycle of dispatch blocks, over maxNodes. SGXT
  // reads as the selector under the head's own bound (selectorBound), so the
  // program is exact for the selectors <= that bound.
  std::variant<DispatchProgram, std::string> extract(uint32_t head, Reg selector) const;

  // The block carrying `labelId`: the only one, or the only non-empty one
  // (an empty block shares its id with the block after it); nullopt if none
  // or several.
  std::optional<uint32_t> blockWithId(uint32_t labelId) const;
  // A block for messages: its label, else L<labelId in hex>.
  std::string blockName(uint32_t labelId) const;

  const Function &function() const { return f_; }

private:
  const Function &f_;
  size_t maxNodes_;
  // labelId -> the blocks carrying it (usually one).
  std::unordered_map<uint32_t, std::vector<uint32_t>> byId_;
};

// One-off form of SwitchExtractor(f).extract(head, selector).
std::variant<DispatchProgram, std::string> extractDispatch(const Function &f, uint32_t head,
                                                           Reg selector,
                                                           size_t maxNodes = kMaxDispatchNodes);

// Whether two programs are node for node the same.
bool sameProgram(const DispatchProgram &a, const DispatchProgram &b);

struct SwitchCheckResult {
  // Unchanged: both sides extract to the same program (nothing to prove; not
  // a checked switch). Unknown: `after` does not extract, Z3 gave up, or the
  // head limit was reached.
  enum class Verdict { Proved, Refuted, Unknown, Unchanged };
  Verdict verdict = Verdict::Unknown;
  uint32_t headBix = 0; // in `before`
  uint32_t headLabelId = 0;
  std::string head; // the head block's name
  Reg selector{};
  // The proof's precondition: selector <= maxSelector, the larger of the
  // heads' bounds before and after (kAllSelectors: none), from `boundBy`.
  uint32_t maxSelector = kAllSelectors;
  std::string boundBy;
  size_t beforeNodes = 0, afterNodes = 0;
  // Refuted: a selector the two send to different blocks (label ids, or
  // kFaultTarget for a jump-table overrun).
  std::optional<uint32_t> counterexample;
  uint32_t beforeTarget = 0, afterTarget = 0;
  std::string reason; // Unknown: why
  // e.g. "switch at $L__BB0_2 in f (selector R1): proved (12 nodes -> 4 nodes)";
  // under a bound "...: proved for selectors <= 0xf (the head's LOP3 bounds
  // it) (12 nodes -> 4 nodes)" or "...: refuted for selectors <= 0xff (the
  // head's LOP3 bounds it): selector 0x10 goes to ...".
  std::string line;
};

// Every switch head of `before` (a block ending in @P BRA with P set in that
// block by an ISETP of a register S with a constant; S is the selector, or,
// when S is an SGXT of R made in that block and the dispatch extracts on R,
// R), extracted in both functions from the block with the same label id and
// compared, for the selectors <= the larger of the two heads' bounds. Heads
// that `before` does not extract as a dispatch, or whose id names no single
// block of `after`, are skipped. At most kMaxSwitchHeads heads
// are checked; the rest get one Unknown result.
std::vector<SwitchCheckResult> checkSwitchRewrites(const Function &before, const Function &after);

} // namespace ori::verify
