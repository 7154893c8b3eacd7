// The interpreter: the semantic oracle (DESIGN.md, "Interpreter";
// docs/interpreter.md gives every opcode's meaning). It runs one thread at a
// time, deterministically, with 64-bit register containers, sparse byte
// memory and a step budget; it refuses OPAQUE and unmodelled opcodes with an
// explicit `Unsupported` result instead of guessing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
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
  // Registers' values at each thread's start (the others start at 0); a predicate is its bit 0.
  // The translation validator's counterexamples give the registers a function reads before
  // writing them (docs/verifier.md, "Replaying a counterexample").
  std::map<Reg, uint64_t> initialRegs;
  // Run only this thread of the launch (linear index ctaid.x * ntid.x + tid.x), as if it were
  // alone: barriers pass at once, a VOTE sees one lane. ntid.x and nctaid.x stay as given.
  std::optional<uint32_t> onlyThread;
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

// Where runKernel places what the kernel of `cfg` can address (docs/interpreter.md,
// "Memory"); the translation validator builds counterexamples that replay on it.
struct LaunchLayout {
  struct Bytes {
    uint64_t at = 0; // generic address (global), or offset in its window or frame area
    std::vector<uint8_t> bytes;
  };
  std::vector<Bytes> global; // mapped global memory: .global variables, then buffers, by address
  std::vector<std::string> globalNames; // the variable or parameter each region of `global` is
  std::map<const Variable*, uint64_t> variables; // .global: generic address; .const/.shared: window
                                                 // offset; .local/.param: offset in its frame area
  std::vector<uint8_t> constData;   // the const window (c[0x3]) from offset 0
  std::vector<Bytes> sharedInit;    // initial bytes in the shared window (the rest: zero)
  std::vector<Bytes> localInit;     // the kernel frame's local area (the rest: zero)
  std::vector<Bytes> paramInit;     // the kernel frame's .param variables (the rest: zero)
  std::vector<uint8_t> cbank0;      // constant bank 0 from offset 0 (beyond it, and other banks: 0)
  // Each function's frame: its local area (a callee's sits above its caller's, aligned to
  // localAlign) and the offsets of its parameters and return values in its parameter area.
  struct Frame {
    uint64_t localSize = 0, localAlign = 1;
    std::map<std::string, uint64_t> params;
  };
  std::map<const Function*, Frame> frames;
};
// The layout, or the configuration error runKernel would report.
std::variant<LaunchLayout, std::string> layoutLaunch(const Module& m, const RunConfig& cfg);

// "exit: ok threads=T", "exit: timeout thread=T", "exit: fault thread=T addr=0x..",
// "exit: unsupported \"MNEMONIC\" at FILE:LINE" (no trailing newline).
std::string formatExit(const RunResult& r, const std::string& file);

} // namespace ori
