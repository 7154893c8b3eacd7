// Switch dispatch as a formula (docs/verifier.md, "Switch dispatch"): a
// dispatch program sends a 32-bit selector to a target block; checkDispatch
// proves that two programs (a cascade of compare-and-branch and a candidate
// lowering: jump table, balanced BST, bit-test clusters, or a mix) send every
// selector to the same target, or finds a selector where they differ.
// No Z3 types here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ori::verify {

// Reaching a jump table out of its range: BRX faults (docs/interpreter.md).
inline constexpr uint32_t kFaultTarget = 0xFFFFFFFFu;

enum class DispatchCmp : uint8_t { EQ, NE, LT, LE, GT, GE };

// One node. Nodes refer only to nodes before them (so a program is a DAG and
// evaluates without recursion); the last node is where dispatch starts.
// Every node first forms v = selector - bias (mod 2^32).
struct DispatchNode {
  enum class Kind : uint8_t { Target, Compare, Table, BitTest };
  Kind kind = Kind::Target;
  uint32_t target = 0; // Target: the block reached
  uint32_t bias = 0;
  // Compare (ISETP.cmp.{S32,U32} v, constant; @P BRA): to ifTrue or ifFalse.
  DispatchCmp cmp = DispatchCmp::EQ;
  bool isSigned = false;
  uint32_t constant = 0;
  uint32_t ifTrue = 0, ifFalse = 0; // node indices
  // Table (BRX): entries[v] is a target block; v >= entries.size() faults.
  std::vector<uint32_t> entries;
  // BitTest: bit = 1 << v (SHL: 0 when v >= 32); the first cluster whose
  // mask has that bit goes to its node, none goes to `otherwise`.
  std::vector<std::pair<uint32_t, uint32_t>> clusters; // (mask, node index)
  uint32_t otherwise = 0;                              // node index
};

struct DispatchProgram {
  std::vector<DispatchNode> nodes;

  // Builders; each returns the new node's index.
  uint32_t target(uint32_t block);
  uint32_t compare(DispatchCmp cmp, bool isSigned, uint32_t constant, uint32_t ifTrue,
                   uint32_t ifFalse, uint32_t bias = 0);
  uint32_t table(uint32_t bias, std::vector<uint32_t> entries);
  uint32_t bitTest(uint32_t bias, std::vector<std::pair<uint32_t, uint32_t>> clusters,
                   uint32_t otherwise);
};

// "" if the program is well formed, else what is wrong (an empty program, a
// forward or out-of-range reference, an empty or over-large table).
std::string validate(const DispatchProgram &p);
// The target a selector reaches (kFaultTarget for a table overrun); the
// program must be valid.
uint32_t dispatchTarget(const DispatchProgram &p, uint32_t selector);

// The cascade `if (sel == case_i) goto target_i` in order, then `goto deflt`.
DispatchProgram cascade(const std::vector<std::pair<uint32_t, uint32_t>> &cases, uint32_t deflt);

struct DispatchCheck {
  bool equivalent = false;
  // Not equivalent: a selector where they differ and where each sends it.
  std::optional<uint32_t> selector;
  uint32_t referenceTarget = 0, candidateTarget = 0;
  std::string error; // an invalid program or Z3 giving up
};

// No bound on the selector: every 32-bit value.
inline constexpr uint32_t kAllSelectors = 0xFFFFFFFFu;

// Proves the two programs equal for every selector <= maxSelector (unsigned;
// the default, all of them), or returns such a selector where they differ: a
// counterexample always satisfies the bound. The bound is a precondition the
// caller knows (checkSwitchRewrites: the head block's LOP3 mask, MOV'd
// constant or narrow load, verify/switch_extract.h).
DispatchCheck checkDispatch(const DispatchProgram &reference, const DispatchProgram &candidate,
                            uint32_t maxSelector = kAllSelectors);

// The hand-made lowerings oriverify proves (verify/switch_examples.cpp):
// three correct, three wrong.
struct SwitchExample {
  std::string name;
  std::string description;
  DispatchProgram reference, candidate;
  bool equivalent;
};
std::vector<SwitchExample> switchExamples();

} // namespace ori::verify
