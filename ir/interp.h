// The interpreter: the semantic oracle (DESIGN.md, "Interpreter";
// docs/interpreter.md gives every opcode's meaning). It runs one thread at a
// time, deterministically, with 64-bit register containers, sparse byte
// memory and a step budget; it refuses OPAQUE and unmodelled opcodes with an
// explicit `Unsupported` result instead of guessing.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace ori {

struct RunConfig {
  std::string entry;          // empty: the module's only .entry (error if several)
  uint32_t threads = 1;       // ntid.x; tid.x runs 0..threads-1
  uint32_t ctas = 1;          // nctaid.x; ctaid.x runs 0..ctas-1
  uint64_t maxSteps = 10'000'000; // per thread; beyond it the run ends in Timeout
  std::map<std::string, uint64_t> params;                // scalar parameter values by name
  std::map<std::string, std::vector<uint8_t>> buffers;   // parameter name -> initial bytes
};

struct RunResult {
  enum class Kind { Ok, Timeout, Fault, Unsupported, Error };
  Kind kind = Kind::Ok;
  uint32_t threadsRun = 0; // Ok: how many threads ran to completion
  uint32_t thread = 0;     // Timeout/Fault/Unsupported: linear index ctaid.x * ntid.x + tid.x
  uint64_t addr = 0;       // Fault: the faulting address (BRX: the out-of-range index)
  std::string mnemonic;    // Unsupported: e.g. "OPAQUE" or "VOTE"
  uint32_t line = 0;       // Unsupported: source line of the instruction
  std::string message;     // Error (bad configuration) and a human-readable detail for the others
  std::map<std::string, std::vector<uint8_t>> buffers; // final contents of every bound buffer
  std::map<std::string, std::vector<uint8_t>> variables; // final contents of the module's .global variables
};

RunResult runKernel(const Module& m, const RunConfig& cfg);

// "exit: ok threads=T", "exit: timeout thread=T", "exit: fault thread=T addr=0x..",
// "exit: unsupported \"MNEMONIC\" at FILE:LINE" (no trailing newline).
std::string formatExit(const RunResult& r, const std::string& file);

} // namespace ori
