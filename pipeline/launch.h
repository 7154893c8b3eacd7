// A kernel launch from text, as `oriopt --run` takes it (docs/interpreter.md, "Running a
// kernel"): parameters by name or position, buffers from sizes, bytes, typed values or files,
// and the buffers' final bytes as typed dumps or files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "interp/interp.h"
#include "ir/ir.h"

namespace ori {

struct LaunchRequest {
  std::string entry;                // the kernel ("": the only .entry)
  std::string threads, ctas;        // "X", "XxY" or "XxYxZ" ("": 1, with autoParams 128 x 2)
  std::optional<uint64_t> maxSteps; // default 10,000,000; with autoParams 20,000,000
  bool autoParams = false;          // bind what the others leave as interp/auto_launch.h does
  // NAME=VALUE: a scalar parameter by name; VALUE an integer, or float text for .f32/.f64.
  std::vector<std::string> params;
  // NAME=SIZE (zero bytes), NAME=@FILE (its bytes), NAME=hex:BYTES, or the typed forms of
  // `args`: a pointer parameter.
  std::vector<std::string> buffers;
  // P=VALUE with P a parameter's position (0, 1, ...) or name: a scalar as --param takes it,
  // or a buffer: SIZE and hex: as --buffer, @FILE, zeros:N, or TYPE:V,V,... (TYPE one of u8,
  // i8, u16, i16, u32, i32, u64, i64, f32, f64; the values packed little-endian).
  std::vector<std::string> args;
  std::vector<std::string> regs; // NAME=VALUE: a register's value at each thread's start
  std::optional<uint32_t> onlyThread;
  std::optional<uint64_t> sharedDynamic; // RunConfig::sharedDynamic (--shared-dynamic)
  bool clockFromSteps = true;            // RunConfig::clockFromSteps (--clock=steps)
};

struct LaunchPlan {
  RunConfig config;
  std::string autoBindings; // with autoParams: what was bound ("" otherwise)
};
// The launch, or a message saying which argument is wrong and how.
std::variant<LaunchPlan, std::string> planLaunch(const Module &m, const LaunchRequest &r);

// --dump-buffer P[:TYPE][:COUNT]: P a parameter's position or name (or a buffer's); TYPE hex,
// u8, i8, u16, i16, u32, i32, u64, i64, f32 or f64; COUNT the elements shown (default all).
// Without TYPE the old form: "buffer NAME SIZE: HEX" on one line.
struct BufferDump {
  std::string name; // the buffer (the parameter's name)
  std::string type; // "" (the one-line form) or a TYPE above
  std::optional<uint64_t> count;
};
std::variant<BufferDump, std::string> parseBufferDump(const Module &m, const RunConfig &cfg,
                                                      const std::string &spec);
// "buffer y 16: 0000803f..." (no TYPE), or "buffer y 16 f32[4]:" then lines of 8 values (16 for
// hex) each after its first index: "  [0] 1 2 -0 nan". With COUNT: "f32[2 of 4]".
std::string formatBufferDump(const BufferDump &d, const std::vector<uint8_t> &bytes);

// --save-buffer P=FILE: the buffer to write its final bytes to.
std::variant<std::pair<std::string, std::string>, std::string>
parseBufferSave(const Module &m, const RunConfig &cfg, const std::string &spec);

} // namespace ori
