// Automatic launches (docs/interpreter.md, "Automatic launches"): binds every parameter of a
// kernel to a value that makes it do real work, with no help from the user, so that any
// .entry of a PTX file can run in the interpreter (oriopt --run --auto-params, the corpus
// campaign in tests/unit/corpus_run_test.cpp and scripts/corpus-run).
//
// Values come from places, "slots": a kernel parameter's bytes at an offset (read from
// constant bank 0, c[0x0][kParamBase + ...]: LDC, or an instruction with a bank-0 source),
// or a module .global/.const variable without an initializer at an offset (a load [sym+off]).
// A slot's width is the widest read of it (1, 2, 4 or 8 bytes). A slot's value is followed,
// flow-insensitively over the kernel and the functions it calls directly, to a fixed point:
//   MOV d, a; IADD3 d, a, b, c; SEL d, a, b, p; LOP3 d, a, b, c (a mask, as in an alignment)
//   carry every source; IMAD[.WIDE] d, a, b, c and LEA d, a, b, s carry only the addend (c,
//   b): a product or a shifted value is an offset, not a pointer (cvt.u64.u32 is an IMAD.WIDE
//   too, so a 32-bit count added to a pointer does not count);
//   ST [sym], v / LD d, [sym] carry through .param slots, and a direct call copies a .param
//   argument into the callee's parameter and a return value back into the caller's result.
// A slot is
//   - a pointer when its value becomes the base register of a memory operand [R + imm] of a
//     LD*, ST*, ATOM or RED. A slot whose value is passed to a function the module has no body
//     for (a declaration, an indirect call) is "unsure", and an 8-byte parameter that is unsure
//     is a pointer too;
//   - a float when the loaded value itself (copies aside) is a source of a floating-point
//     instruction and never of an integer one;
//   - an integer otherwise.
// Bindings:
//  1. A pointer parameter of 8 bytes: a buffer of `bufferBytes` (4 MiB) filled with the 32-bit
//     little-endian words k % 17 + 1 (k = word index: 1, 2, ..., 17, 1, ...), so values read
//     as indices or loop counts stay small and values read as floats are finite. A pointer of
//     4 bytes (32-bit addressing) or one inside a struct: the address of such a buffer of its
//     own (RunConfig::extraBuffers, placed below 4 GiB).
//  2. A float (a parameter of type f32/f64/f16, or an untyped one used only as a float):
//     1.0 (its IEEE bits).
//  3. An integer: `count` (default: the launch's total thread count, 256 for the default
//     launch), truncated to its width; a 1-byte one (bool, char) gets 1.
//  4. A struct or array passed by value: each slot of it as above, the bytes no read reaches 0.
//  5. Module variables: a .const variable without an initializer (a __constant__ the host
//     sets) gets every slot bound as above; a .global one without an initializer keeps its
//     zeros (PTX zero-initializes it) except for its pointer slots (a __device__ pointer the
//     host sets). Variables with an initializer keep it.
// The default launch is 128 threads (4 warps) x 2 CTAs with a budget of 20 million warp
// instructions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "interp/interp.h"

namespace ori {

struct AutoLaunchOptions {
  Dim3 threads = 128;
  Dim3 ctas = 2;
  uint64_t maxSteps = 20'000'000;
  uint64_t bufferBytes = uint64_t(4) << 20;
  std::optional<uint64_t> count; // integer slots; default: threads.count() * ctas.count()
  double floatValue = 1.0;
};

// One slot of a struct parameter or module variable that autoLaunch binds.
struct AutoField {
  enum class Kind { Pointer, Integer, Float };
  Kind kind = Kind::Integer;
  uint64_t offset = 0; // from the parameter's or variable's first byte
  uint32_t width = 4;  // bytes
  uint64_t value = 0;  // Integer/Float: the bits stored; Pointer: the buffer's size
};

// How autoLaunch binds one parameter or module variable, and why.
struct AutoBinding {
  enum class Kind {
    Buffer,  // an 8-byte pointer parameter: a buffer of `value` bytes
    Integer, // a scalar parameter: `value`
    Float,   // a scalar parameter: the bits `value` of a `type` float
    Bytes,   // a struct parameter, a 32-bit pointer parameter or a module variable: `fields`
  };
  bool variable = false; // a module variable, not a parameter
  std::string name;
  Kind kind = Kind::Integer;
  uint64_t value = 0;
  std::string type;             // the parameter's type ("f32", "u64", "b8", ...)
  uint64_t size = 0;            // Bytes: the bytes given (the parameter's or variable's size)
  std::vector<AutoField> fields; // Bytes, by offset; the bytes no field covers are 0
  bool unsure = false;          // Buffer: chosen because the value reaches an unknown callee
};

// The bindings, parameters in order, then module variables in module order.
std::vector<AutoBinding> autoBindings(const Module& m, const Function& kernel, const AutoLaunchOptions& o);

// Binds into `cfg` (entry, launch and step budget left as they are) every parameter it does not
// bind yet (params, buffers, paramBytes) and every module variable cfg.variableBytes leaves, as
// `bindings` say; the buffers that pointer fields name are cfg.extraBuffers "NAME+0xOFF" (a
// variable: "@NAME+0xOFF"), their addresses placed by layoutLaunch. Returns the bindings used.
std::vector<AutoBinding> bindAuto(const Module& m, const Function& kernel, std::vector<AutoBinding> bindings,
                                  RunConfig& cfg);

// The launch autoLaunch makes: entry, threads, ctas, maxSteps and every parameter bound.
RunConfig autoLaunch(const Module& m, const Function& kernel, const AutoLaunchOptions& o);

// The buffers' initial bytes: 32-bit little-endian words k % 17 + 1 (a size that is not a
// multiple of 4 ends with the low bytes of the next word).
std::vector<uint8_t> autoBufferBytes(uint64_t size);

// "p=buf[4194304] n=256 x=1:f32 s={+0:buf +8:256} @dim={+0:256 +4:1:f32}", one entry per
// binding, in order.
std::string formatBindings(const std::vector<AutoBinding>& bindings);

// Warp instructions a warp executes when it leaves the kernel through its first block: the
// instructions of bix 0, plus the longest run of blocks that only leave (EXIT, RET, NOP,
// BSYNC, WARPSYNC, unguarded BRA) that a successor of bix 0 starts.
uint64_t firstBlockExitSteps(const Function& kernel);

// Whether an Ok run did real work: it executed more warp instructions than every warp of
// the launch leaving through the first block would (firstBlockExitSteps x warps). A kernel
// of one block (no branch at all) never counts: it cannot be told apart from one that left.
bool didRealWork(const Function& kernel, const RunConfig& cfg, const RunResult& r);

} // namespace ori
