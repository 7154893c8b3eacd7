// The opcode models (docs/verifier.md) evaluated on constants, for tests and
// the cross-check against the interpreter. No Z3 types here: include this,
// not verify/opcode_model.h, outside verify/.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ir/ir.h"

namespace ori::verify {

// An instruction's inputs as constants, in the model's raw form: sources
// before their `-`, `|..|`, `!` (a register's 64-bit container, an integer
// immediate's value, 0/1 for a predicate); memory operands get their value
// from `memory`, S2R from the thread fields.
struct ConcreteInputs {
  std::vector<uint64_t> srcs;
  bool guard = true;             // the guard register (before @!)
  std::vector<uint64_t> oldDsts; // destinations before the instruction (0/1 for predicates)
  uint64_t memory = 0;           // the little-endian word the address reaches
  uint32_t tid = 0, ctaid = 0, ntid = 1, nctaid = 1;
};

struct ConcreteOutputs {
  std::vector<uint64_t> dsts;     // 64-bit containers; 0/1 for predicates
  std::optional<uint64_t> memory; // stores and atomics: the word afterwards
};

// Builds each instruction shape's model once (with symbolic inputs) and
// evaluates it by substituting constants.
class ModelEvaluator {
public:
  ModelEvaluator();
  ~ModelEvaluator();
  ModelEvaluator(const ModelEvaluator &) = delete;
  ModelEvaluator &operator=(const ModelEvaluator &) = delete;

  // nullopt: the opcode or its modifier combination has no model. Throws
  // std::invalid_argument if x has not one value per source and destination.
  std::optional<ConcreteOutputs> evaluate(const Instr &in, const ConcreteInputs &x);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Does the model table have an entry for this opcode?
bool hasModel(Opcode op);

} // namespace ori::verify
