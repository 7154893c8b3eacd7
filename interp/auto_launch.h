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
//   - a surface handle when its value becomes the handle of a SULD or SUST (8 bytes).
// Pointers stored in buffers: a 64-bit load at a constant offset from a pointer slot's value
// (itself, or masked or offset by constants) is a slot of that buffer, followed the same way
// up to kMaxPointerDepth (3) pointers deep; where it is a pointer, the buffer holds the address
// of a buffer of its own there.
// Index bounds (interp/auto_launch_index.h): an integer parameter that indexes a module
// variable (an access at &var + scale * value + disp) gets at most the largest value that
// keeps every such access inside the variable; a load there whose value is compared (an
// ISETP source, e.g. a count another kernel left) reads `count` from that element.
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
//  4a. A buffer every load of which is used only as a float: words of 1.0 (binary32, or
//     binary64 when a load is 8 bytes wide) instead of the integer pattern.
//  4b. A pointer also used with a negative displacement ([R-0x4]: a reverse iterator):
//     the middle of its buffer.
//  4c. A surface or texture handle: a Surface of its own (autoSurface), handles 1, 2, ...
//     in binding order.
//  4d. A module .texref a TEX reads: a surface of its name (autoSurface, not normalized).
//  5. Module variables: a .const variable without an initializer (a __constant__ the host
//     sets) gets every slot bound as above; a .global one without an initializer keeps its
//     zeros (PTX zero-initializes it) except for its pointer slots (a __device__ pointer the
//     host sets). Variables with an initializer keep it. A load at &var + (thread and CTA
//     indices times constants) + disp, var such a variable that is an array of elements of g
//     bytes (g the gcd of the constants: `d_unique[blockIdx.x].ptr`), is the slot at disp % g
//     of each element the launch reads (at most 16 elements), bound as above.
//  6. Products of integer parameters in a buffer's address (`ptr + 16 * cols * (i - ctaid)`):
//     while such an address of the launch can pass the end of its buffer, the larger of the
//     two parameters is halved (not below one CTA's threads).
//  6b. Products of counts in a shared address (rodinia hwt's `d_in_mod_temp[rows * (ja - 1) +
//     ia - 1]`, ja a loop variable): integer parameters and integer fields of .const variables
//     are counts; an IMAD of two registers that grow with counts (MOV, IADD3 of sources not
//     negated, SEL, IMNMX, addends, factors by constants) reaching a shared access with scale k
//     passes the window when k * a * b + width > 0x38000 (a, b the largest counts of the
//     factors): the largest such count (ties: the first factor's) is halved, not below one
//     CTA's threads (interp/auto_launch_products.cpp).
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
  enum class Kind { Pointer, Integer, Float, Surface };
  Kind kind = Kind::Integer;
  uint64_t offset = 0; // from the parameter's or variable's first byte
  uint32_t width = 4;  // bytes
  uint64_t value =
      0; // Integer/Float: the bits stored; Pointer: the buffer's size; Surface: its handle
  unsigned dims = 0; // Surface: 1, 2 or 3 (autoSurface)
  std::vector<AutoField>
      children;         // Pointer: pointers and handles stored in its buffer (offsets in it)
  bool texture = false; // Surface: a TEX reads it (a normalized texture)
  bool everyWord =
      false; // a child: the value goes into every 8-byte word at offset % 8 (an indexed array)
  uint32_t floatWords =
      0; // Pointer: its buffer holds binary32 (4) or binary64 (8) words (autoBufferBytes)
  uint64_t pointerOffset =
      0; // Pointer: where in its buffer it points (the middle for one used below itself)
};

// The surface autoLaunch binds to a handle that SULD/SUST of `dims` coordinates use: 1 MiB of
// autoBufferBytes, 1-D 1048576 bytes wide, 2-D 4096 bytes x 256 rows, 3-D 1024 x 64 x 16.
// A texture (used by TEX) is normalized: f32 coordinates in [0, 1) span it.
Surface autoSurface(unsigned dims, uint64_t handle, bool texture = false);

// How autoLaunch binds one parameter or module variable, and why.
struct AutoBinding {
  enum class Kind {
    Buffer,  // an 8-byte pointer parameter: a buffer of `value` bytes
    Integer, // a scalar parameter: `value`
    Float,   // a scalar parameter: the bits `value` of a `type` float
    Bytes,   // a struct parameter, a 32-bit pointer parameter or a module variable: `fields`
    Texture, // a module .texref (variable): the surface fields[0] names, bound under `name`
  };
  bool variable = false; // a module variable, not a parameter
  std::string name;
  Kind kind = Kind::Integer;
  uint64_t value = 0;
  std::string type;                // the parameter's type ("f32", "u64", "b8", ...)
  uint64_t size = 0;               // Bytes: the bytes given (the parameter's or variable's size)
  std::vector<AutoField> fields;   // Bytes, by offset; the bytes no field covers are 0
  std::vector<AutoField> children; // Buffer: pointers stored in the buffer (offsets in it)
  uint32_t floatWords = 0;         // Buffer: binary32 (4) or binary64 (8) words (autoBufferBytes)
  bool unsure = false;             // Buffer: chosen because the value reaches an unknown callee
};

// The bindings, parameters in order, then module variables in module order.
std::vector<AutoBinding> autoBindings(const Module &m, const Function &kernel,
                                      const AutoLaunchOptions &o);

// Binds into `cfg` (entry, launch and step budget left as they are) every parameter it does not
// bind yet (params, buffers, paramBytes) and every module variable cfg.variableBytes leaves, as
// `bindings` say; the buffers that pointer fields name are cfg.extraBuffers "NAME+0xOFF" (a
// variable: "@NAME+0xOFF"), their addresses placed by layoutLaunch. Returns the bindings used.
std::vector<AutoBinding> bindAuto(const Module &m, const Function &kernel,
                                  std::vector<AutoBinding> bindings, RunConfig &cfg);

// The launch autoLaunch makes: entry, threads, ctas, maxSteps and every parameter bound.
RunConfig autoLaunch(const Module &m, const Function &kernel, const AutoLaunchOptions &o);

// The buffers' initial bytes: 32-bit little-endian words k % 17 + 1 (a size that is not a
// multiple of 4 ends with the low bytes of the next word). floatWords 4 or 8: the same numbers
// as binary32 or binary64 values, one per 4 or 8 bytes (a buffer every load of which is used
// only as a float; the bytes past the last whole word are 0).
std::vector<uint8_t> autoBufferBytes(uint64_t size, uint32_t floatWords = 0);

// "p=buf[4194304] n=256 x=1:f32 s={+0:buf +8:256} @dim={+0:256 +4:1:f32}", one entry per
// binding, in order.
std::string formatBindings(const std::vector<AutoBinding> &bindings);

// Warp instructions a warp executes when it leaves the kernel through its first block: the
// instructions of bix 0, plus the longest run of blocks that only leave (EXIT, RET, NOP,
// BSYNC, WARPSYNC, unguarded BRA) that a successor of bix 0 starts.
uint64_t firstBlockExitSteps(const Function &kernel);

// A straight-line kernel: one block, no branch, no guarded EXIT or RET (it runs the same
// instructions whatever its inputs), with an unguarded store (ST*, ATOM, RED, SUST).
bool isStraightLine(const Function &kernel);

// Whether an Ok run did real work: it executed more warp instructions than every warp of
// the launch leaving through the first block would (firstBlockExitSteps x warps); a
// straight-line kernel has no early way out, so running it at all is its work. Another
// kernel of one block (one without a store, or with a guarded EXIT) never counts: it cannot
// be told apart from one that left.
bool didRealWork(const Function &kernel, const RunConfig &cfg, const RunResult &r);

} // namespace ori
