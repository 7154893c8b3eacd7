// Phase 37 GeneralOptimizeMid's ConvertMemoryToRegisterOrUniform (spec/002
// "Phase 37", "Phase 37 Fold Cost Model"; docs/general-optimize.md "Phase 37"):
// what both halves share. The options and counts, which memory instructions
// are slot accesses, the cost model that decides whether a slot is promoted,
// and the moves a promoted slot's accesses become. The analyses (local
// pointers, escapes, must-initialized slots) are each half's own.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/general_optimize.h"
#include "ir/ir.h"

namespace ori {

struct MemToRegOptions {
  // Knob 474 MovWeightForConvertMemToReg: the cost of one access made a MOV
  // (a cost-exempt fold, 002:409), and the convergence threshold of the
  // phase's loop (002:475).
  double movWeight = 0.25;
  // Knob 136: a slot is promoted when its cost per access is below this (002:881).
  double promotionThreshold = 0.93;
  // Knob 135 ConvertMemoryToRegIndexedSizeLimit, when set (non-zero),
  // overrides the convergence threshold (002:475).
  int64_t convergenceOverride = 0;
  // The phase-29 suite each round runs after the promotion.
  GeneralOptimizeOptions suite;
  double convergenceThreshold() const { return convergenceOverride ? double(convergenceOverride) : movWeight; }
};

// What one ConvertMemoryToRegister run did.
struct MemToRegCounts {
  uint32_t slotsPromoted = 0;   // slots now held in a register
  uint32_t loadsReplaced = 0;   // loads of promoted slots made MOVs
  uint32_t storesReplaced = 0;  // stores to promoted slots made MOVs
  uint32_t slotsKeptByCost = 0; // slots that could be promoted but the cost model kept
  uint32_t slotsUninitialized = 0; // slots kept: a load may run before every path stored
  uint32_t variablesEscaping = 0;  // local variables kept whole: their address escapes
  double cost = 0;              // the weighted cost of the promotions (sum of slotPromotionCost)
  friend bool operator==(const MemToRegCounts&, const MemToRegCounts&) = default;
};

// Phase 37 runs rounds of promotion then the phase-29 suite while a round's
// weighted cost (promotions plus one per suite rewrite) is at least the
// convergence threshold, at most this many rounds.
inline constexpr uint32_t kMidRounds = 4;

struct MidOptimizeResult {
  MemToRegCounts memToReg;       // summed over rounds (cost too)
  GeneralOptimizeResult suite;   // summed over rounds (GeneralOptimizeCounts::rounds: the suite's rounds)
  uint32_t rounds = 0;           // phase-37 rounds run
  friend bool operator==(const MidOptimizeResult&, const MidOptimizeResult&) = default;
};
// The weighted cost of one round (the convergence loop's delta).
double midRoundCost(const MemToRegCounts& promoted, const GeneralOptimizeCounts& suite);
// Adds one phase-37 round to the total: counts summed, the suite's marks
// renumbered so that their rounds go on from the suite rounds before.
void addMidRound(MidOptimizeResult& total, const MemToRegCounts& promoted, const GeneralOptimizeResult& suite);

// A memory instruction that may access a slot: LD/ST (generic address) or
// LDL/STL (local window offset) of 4 bytes, or 8 with .64, with no modifier
// but E (64-bit addressing). `whole` is false for any other LD/ST/LDL/STL
// (sub-word, volatile, constant cache): such an access keeps every slot it
// overlaps in memory. nullopt for other instructions.
struct SlotAccessShape {
  bool load = false;
  bool generic = false; // LD/ST: a generic address; LDL/STL: an offset in the local window
  uint32_t bytes = 4;
  bool whole = true;
};
std::optional<SlotAccessShape> slotAccessShape(const Instr& in);

// The cost model (002:409, 002:473-475): each of a slot's accesses becomes a
// MOV, a cost-exempt fold of weight movWeight, except that past 4 loads (the
// use-count gate sub_91E860) every access pays the full weight 1. The slot is
// promoted when its cost per access is below promotionThreshold.
double slotPromotionCost(uint32_t loads, uint32_t stores, const MemToRegOptions& opt);
bool promoteSlot(uint32_t loads, uint32_t stores, const MemToRegOptions& opt);

// The MOV (.64 for 8 bytes) an access of a promoted slot held in `slot`
// becomes: a store `ST [a], v` is `MOV slot, v`, a load `LD d, [a]` is
// `MOV d, slot`. The guard and source location stay.
Instr slotAccessAsMove(const Instr& access, const SlotAccessShape& shape, Reg slot);

} // namespace ori
