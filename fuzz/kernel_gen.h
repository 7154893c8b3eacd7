// RapidCheck generator of random well-formed, terminating kernels that the
// interpreter (interp/interp.h) runs to completion: structured code with
// counted loops (a counter register and a bound no other code writes; break
// and continue are forward branches), if / if-else with && and || chains,
// switches lowered to a bounds check and BRX through a jump table (often
// with duplicate targets), BSSY/BSYNC regions, predicated instructions,
// early exits (@P EXIT, EXIT in a branch), integer, float and predicate
// arithmetic of the opcodes the interpreter models, loads, stores and
// atomics on the thread's own kBufferBytes of a global buffer (indices
// masked, so always in bounds and aligned), uniform registers, sometimes a
// read of a register that is never written (the interpreter reads 0), and in
// some kernels warp-level instructions (VOTE, SHFL, MATCH, REDUX, lane masks)
// and barriers (BAR.SYNC with a shared-memory exchange, BAR.RED) at the top
// level, where the warp is reconverged.
//
// The kernel is `.entry kernel(.u64 buf, .u32 a, .u32 b)` with a buffer of
// kLaunchBufferBytes bytes (thread t uses bytes [t % 64 * kBufferBytes, +kBufferBytes));
// kernelInputs() gives random launch inputs for it. Every
// backward branch is a loop latch whose counter climbs to a bound of at most
// maxTrips, so a kernel executes at most a few hundred thousand instructions
// per thread (kMaxSteps is a budget it never reaches).
#pragma once

#include <ostream>

#include <rapidcheck.h>

#include "fuzz/cfg_gen.h"
#include "interp/interp.h"
#include "ir/ir.h"

namespace ori::gen {

struct KernelOptions {
  int maxStatements = 8;     // per statement list (scaled by the generation size)
  int maxDepth = 3;          // nesting of loops, branches and switches
  int maxTrips = 6;          // loop bound: at most this many iterations
  int maxThreads = 3;        // kernelInputs: threads per CTA when it picks "a few"
  int warpLevelPercent = 35; // kernels with warp-level instructions and barriers
  // Each thread uses its own part of the buffer (R54 = buf + (tid & 63) * kBufferBytes). Off:
  // every thread uses the first part and there are no warp-level instructions, for checks of
  // one thread's semantics (the translation validator proves per-thread refinement, and its
  // counterexamples replay in one thread with 256-byte buffers).
  bool threadParts = true;
  // Statements for the GeneralOptimize phases (13, 29, 58): copy chains, SELs and guarded
  // MOVs on constant predicates (PLOP3 with a constant result), predicate copies, a
  // conditional EXIT or branch tested again on an equivalent comparison, moves of one value
  // into fresh registers read once. 0 in the presets below, so other checks keep their mix.
  int cleanupPercent = 0;
  // Statements for --fold=evaluate (rules/general_optimize_evaluate.h): immediates moved into
  // fresh registers read by IADD3, IMAD, LOP3, SHF, SHL, SHR and ISETP; identities (x+0,
  // x-x, x*1, x*0, LOP3 with RZ, ~0 or a repeated input, shifts by 0 or past the width,
  // ISETP of x against itself, PLOP3 with PT/!PT inputs). 0 in the presets but one.
  int evaluatePercent = 0;
};
// The kernels of the translation-validation checks (threadParts off).
inline constexpr KernelOptions kOneThreadKernels{8, 3, 6, 3, 0, false};
// Kernels with work for the GeneralOptimize phases: a third of the statements cleanup ones.
inline constexpr KernelOptions kCleanupKernels{8, 3, 6, 3, 35, true, 35};
inline constexpr KernelOptions kCleanupOneThreadKernels{8, 3, 6, 3, 0, false, 35};
// The same with work for --fold=evaluate: a quarter of the statements evaluate ones.
inline constexpr KernelOptions kEvaluateKernels{8, 3, 6, 3, 35, true, 30, 25};
inline constexpr KernelOptions kEvaluateOneThreadKernels{8, 3, 6, 3, 0, false, 30, 25};

inline constexpr uint32_t kBufferBytes = 256;                     // each thread's part
inline constexpr uint32_t kLaunchBufferBytes = 64 * kBufferBytes; // the whole buffer
inline constexpr uint64_t kMaxSteps = 1'000'000;

// A kernel as a one-function module (parse(print(m)) == m).
rc::Gen<Module> kernelModule(KernelOptions opts = {});
// Its function.
rc::Gen<Function> kernel(KernelOptions opts = {});
// Random launch inputs: buffer bytes, a and b, a launch shape of launchThreads, the step
// budget kMaxSteps.
rc::Gen<RunConfig> kernelInputs(KernelOptions opts = {});
// Threads per CTA for a random launch from a draw in [0, 100): half the time `few`
// (1..maxThreads), else a whole warp, a warp and part of another, or two warps.
uint32_t launchThreads(uint32_t draw, uint32_t few);

// A random CFG (fuzz/cfg_gen.h) whose NOPs become random register traffic
// over a few registers of every file (R0-R3, UR0-UR1, P0-P2, B0-B1; MOV,
// IADD3, ISETP, PLOP3, OPAQUE with defs and uses), a third of it guarded, and
// with more of it at block starts: for liveness on irreducible graphs, self
// loops and unreachable blocks. Not meant to run.
rc::Gen<Function> cfgWithRegisters(CfgOptions opts = {});

} // namespace ori::gen

namespace ori {
// RapidCheck prints launch inputs as the oriopt --run options that repeat them.
void showValue(const RunConfig &cfg, std::ostream &os);
} // namespace ori
