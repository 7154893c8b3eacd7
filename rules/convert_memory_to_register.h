// ConvertMemoryToRegisterOrUniform, phase 37's promotion of local-memory slots (spec/002
// "Phase 37", "Phase 37 Fold Cost Model"; docs/general-optimize.md "Phase 37"): the contract of
// reference/convert_memory_to_register.cpp and optimized/convert_memory_to_register.cpp, and the
// rules both apply: which memory instructions are slot accesses, which mentions of local memory
// make a variable escape (visitLocalMentions), the cost model that decides whether a slot is
// promoted, and the moves a promoted slot's accesses become. The analyses (local pointers,
// must-initialized slots) are each half's own.
//
// The pass: a register written once, unguarded, by MOV.64 of a function-scope .local variable,
// or by MOV.64 / IADD3.64 of such a pointer plus immediates (+SR_LWINBASE: a generic address, as
// cvta.local makes; -SR_LWINBASE: back to a window offset), is a local pointer. LD/ST through a
// generic pointer and LDL/STL through a window pointer or at [variable+offset] are the
// variable's accesses, if the pointer's definition surely ran before (on every path). Any other
// mention of the variable or a pointer to it makes the variable escape; an LDL/STL at an unknown
// offset, an OPAQUE instruction, or SR_LWINBASE read outside a pointer's definition makes every
// local variable escape. A slot is an (offset, size) of whole accesses (slotAccessShape) of a
// variable that does not escape, in bounds, aligned and overlapped by no other access; it is
// promoted when each of its loads surely follows an unguarded store and promoteSlot allows it.
// Each promoted slot, in variable then offset order, gets a new register; its accesses become
// MOVs (slotAccessAsMove). Knobs (MemToRegOptions): 474, 136, 135. Guarantees: the function
// behaves the same (a promoted slot is memory no other instruction can reach, so its register
// holds what the memory would; no Z3 obligation states it: oriopt --verify proves each changed
// function, and fuzz/prop_convert_memory_to_register.cpp runs random kernels before and after);
// both halves leave the same text and counts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/ir.h"
#include "rules/general_optimize.h"

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
  double convergenceThreshold() const {
    return convergenceOverride ? double(convergenceOverride) : movWeight;
  }
};

// What one ConvertMemoryToRegister run did.
struct MemToRegCounts {
  uint32_t slotsPromoted = 0;      // slots now held in a register
  uint32_t loadsReplaced = 0;      // loads of promoted slots made MOVs
  uint32_t storesReplaced = 0;     // stores to promoted slots made MOVs
  uint32_t slotsKeptByCost = 0;    // slots that could be promoted but the cost model kept
  uint32_t slotsUninitialized = 0; // slots kept: a load may run before every path stored
  uint32_t variablesEscaping = 0;  // local variables kept whole: their address escapes
  double cost = 0;                 // the weighted cost of the promotions (sum of slotPromotionCost)
  friend bool operator==(const MemToRegCounts &, const MemToRegCounts &) = default;
};

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
std::optional<SlotAccessShape> slotAccessShape(const Instr &in);

// The cost model (002:409, 002:473-475): each of a slot's accesses becomes a
// MOV, a cost-exempt fold of weight movWeight, except that past 4 loads (the
// use-count gate sub_91E860) every access pays the full weight 1. The slot is
// promoted when its cost per access is below promotionThreshold.
double slotPromotionCost(uint32_t loads, uint32_t stores, const MemToRegOptions &opt);
bool promoteSlot(uint32_t loads, uint32_t stores, const MemToRegOptions &opt);

// The MOV (.64 for 8 bytes) an access of a promoted slot held in `slot`
// becomes: a store `ST [a], v` is `MOV slot, v`, a load `LD d, [a]` is
// `MOV d, slot`. The guard and source location stay.
Instr slotAccessAsMove(const Instr &access, const SlotAccessShape &shape, Reg slot);

// The escape rule: how instruction `in` mentions local memory, operand by operand, as both
// halves' analyses see it. `pointerDef`: `in` is a local pointer's definition (the one place a
// pointer or a window base may be read). `h` answers from the half's own tables and records:
//   h.windowBase(r)            r holds SR_LWINBASE (written once, unguarded)
//   h.pointer(r)               the local pointer r holds (.var, .offset, .generic), or null
//   h.local(sym)               the function-scope .local variable named sym, if it is one
//   h.defined(r)               r's definition (a pointer or a window base) surely ran before `in`
//   h.access(var, offset, shape), h.escape(var), h.escapeAll()
template <class Half> void visitLocalMentions(const Instr &in, bool pointerDef, Half &h) {
  if (in.op == Opcode::OPAQUE)
    h.escapeAll(); // it may do anything to local memory
  const std::optional<SlotAccessShape> shape = slotAccessShape(in);
  const bool windowAccess = in.op == Opcode::LDL || in.op == Opcode::STL;
  auto readReg = [&](Reg r) {
    if (h.windowBase(r)) {
      if (!pointerDef || !h.defined(r))
        h.escapeAll();
    } else if (const auto *p = h.pointer(r)) {
      if (!pointerDef || !h.defined(r))
        h.escape(p->var);
    }
  };
  if (in.guard)
    readReg(in.guard->reg);
  for (size_t k = 0; k < in.srcs.size(); ++k) {
    const Operand &s = in.srcs[k];
    switch (s.kind) {
    case Operand::Kind::Reg:
      readReg(s.reg);
      break;
    case Operand::Kind::CBank:
      if (s.hasReg)
        readReg(s.reg);
      break;
    case Operand::Kind::Symbol:
      if (const auto v = h.local(s.sym); v && !pointerDef)
        h.escape(*v);
      break;
    case Operand::Kind::Mem: {
      const bool isAddress = shape && k == 0;
      const auto symVar = h.local(s.sym);
      if (const auto *ptr = s.hasReg ? h.pointer(s.reg) : nullptr) {
        if (isAddress && s.sym.empty() && ptr->generic == shape->generic && h.defined(s.reg))
          h.access(ptr->var, ptr->offset + s.imm, *shape);
        else
          h.escape(ptr->var);
      } else if (!s.hasReg && symVar) {
        if (isAddress && windowAccess)
          h.access(*symVar, s.imm, *shape);
        else
          h.escape(*symVar);
      } else {
        if (s.hasReg)
          readReg(s.reg);
        if (symVar)
          h.escape(*symVar);
        if (windowAccess)
          h.escapeAll(); // a window offset not known
      }
      break;
    }
    default:
      break;
    }
  }
}

// The two halves' entries (the pass above).
namespace reference {
MemToRegCounts convertMemoryToRegister(Function &f, const MemToRegOptions &opt);
}
namespace optimized {
MemToRegCounts convertMemoryToRegister(Function &f, const MemToRegOptions &opt);
}

} // namespace ori
