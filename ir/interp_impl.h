// Internals of the interpreter (ir/interp.h), shared by ir/interp.cpp
// (set-up, control flow, memory), ir/interp_alu.cpp (integer semantics) and
// ir/interp_float.cpp (floating-point semantics and conversions). Not part of
// the public API: include ir/interp.h instead.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/interp.h"

namespace ori::interp_detail {

// Thrown to end the current thread (and the run). Unsupported stops get the
// mnemonic and line from the instruction being executed; Error stops report
// IR that the parser would not produce (an out-of-range target, a missing
// operand, ...).
struct Stop {
  RunResult::Kind kind = RunResult::Kind::Error;
  uint64_t addr = 0;
  std::string message;
};
[[noreturn]] void unsupported(std::string why);
[[noreturn]] void fault(uint64_t addr, std::string why);
[[noreturn]] void malformed(std::string why);

inline uint64_t maskTo(uint64_t v, unsigned bits) { return bits >= 64 ? v : v & ((uint64_t(1) << bits) - 1); }
// Sign-extends the low `bits` bits of v.
inline int64_t signExtend(uint64_t v, unsigned bits) {
  if (bits >= 64) return int64_t(v);
  uint64_t m = uint64_t(1) << (bits - 1);
  v = maskTo(v, bits);
  return int64_t((v ^ m) - m);
}

// 64-bit containers per (file, number), all zero at thread start. Small
// numbers live in a dense vector grown on write, large (virtual) ones in a map.
class Registers {
public:
  uint64_t get(Reg r) const;
  void set(Reg r, uint64_t v);
  void clear();

private:
  static constexpr uint32_t kDense = 1u << 16;
  std::array<std::vector<uint64_t>, kNumRegFiles> dense_;
  std::array<std::unordered_map<uint32_t, uint64_t>, kNumRegFiles> sparse_;
};

// Byte-addressed memory in 4 KiB pages allocated on first write; unwritten
// bytes read 0. Callers pass aligned accesses of at most 8 bytes, which never
// straddle a page.
class SparseMemory {
public:
  static constexpr uint64_t kPage = 0x1000;
  uint64_t read(uint64_t addr, unsigned bytes) const;
  void write(uint64_t addr, unsigned bytes, uint64_t v);
  void clear() { pages_.clear(); }

private:
  std::unordered_map<uint64_t, std::unique_ptr<std::array<uint8_t, kPage>>> pages_;
};

struct Buffer {
  std::string name;
  uint64_t base = 0;
  std::vector<uint8_t> bytes;
};

enum class MemSpace { Global, Shared, Local };

inline constexpr uint64_t kGlobalBase = 0x10000000;
inline constexpr uint64_t kSharedSize = 0x38000; // 228 KiB
inline constexpr uint64_t kLocalSize = 0x80000;
inline constexpr size_t kMaxCallDepth = 1024;

// The machine: the memory every thread shares, the current thread's state,
// and operand access for the semantics files.
class Machine {
public:
  const Module* module = nullptr;
  const Function* entry = nullptr;
  uint32_t threads = 1, ctas = 1, tid = 0, ctaid = 0;
  std::vector<uint8_t> cbank0; // constant bank 0 from offset 0 (parameters at kParamBase)
  std::vector<Buffer> buffers; // sorted by base
  SparseMemory shared, local;
  Registers regs;

  // Operand access (ir/interp.cpp). `i` indexes in.srcs / in.dsts; a missing
  // operand or one of a kind the slot cannot hold is malformed IR.
  const Operand& src(const Instr& in, size_t i) const;
  const Operand& dst(const Instr& in, size_t i) const;
  // An integer source of `bits` (32 or 64) bits: a register's low bits, an
  // immediate truncated, or 4/8 bytes of a constant bank; `-` negates.
  uint64_t readInt(const Instr& in, size_t i, unsigned bits) const;
  // An immediate-only source (LUTs, LEA's shift).
  int64_t readImm(const Instr& in, size_t i) const;
  bool readPred(const Instr& in, size_t i) const; // `!` inverts
  // Float sources as bit patterns, with |abs| then `-` applied to the sign bit.
  uint32_t readF32Bits(const Instr& in, size_t i) const;
  uint64_t readF64Bits(const Instr& in, size_t i) const;
  void writeInt(const Instr& in, size_t d, uint64_t v, unsigned bits); // 32: zero-extended
  void writePred(const Instr& in, size_t d, bool v);
  uint64_t readCBank(const Operand& o, unsigned bytes) const;

  // Semantics. Each returns false if the opcode is not one of its family.
  bool execInteger(const Instr& in); // ir/interp_alu.cpp
  bool execFloat(const Instr& in);   // ir/interp_float.cpp
  bool execMemory(const Instr& in);  // ir/interp.cpp

  uint64_t load(MemSpace s, uint64_t addr, unsigned bytes);
  void store(MemSpace s, uint64_t addr, unsigned bytes, uint64_t v);

private:
  uint64_t address(const Instr& in, size_t i) const;
  Buffer* findBuffer(uint64_t addr, unsigned bytes);
};

// ISETP/FSETP/DSETP: the comparison result r combined with the third source
// predicate c by .AND (the default), .OR or .XOR.
bool combinePredicate(const Instr& in, bool r, bool c);

// The modifier of group g on the instruction, if any (ModSet::inGroup, but
// testing only the group's few members: this runs on every step).
std::optional<Mod> modOf(const Instr& in, ModGroup g);

// "FADD.FTZ.SAT": the opcode and its modifiers as the printer spells them.
std::string mnemonic(const Instr& in);

} // namespace ori::interp_detail
