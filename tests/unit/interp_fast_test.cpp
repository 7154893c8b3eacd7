// The SIMT runner's fast paths (interp/interp_fast.cpp) against its general per-lane path: the
// same kernels run with every fast path on, with the memory one off and with all off
// (interp_detail::FastPaths) must end the same way (verdict, faulting thread and address,
// message, steps, lane steps) and leave the same bytes in every buffer and variable. The
// kernels load and store through every space (global, shared, local, the generic windows,
// constant data) at random addresses: aligned or not, inside one buffer or window, across two,
// outside every one, with lanes guarded off and lanes on both sides of a divergent branch.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "interp/interp.h"
#include "interp/interp_impl.h"
#include "ir/ori.h"

namespace ori {
namespace {

using Kind = RunResult::Kind;
using interp_detail::FastPaths;

// Runs `m` with the given fast paths on this thread (then all on again).
RunResult runWith(const Module &m, const RunConfig &cfg, FastPaths paths) {
  interp_detail::fastPathsOnThisThread() = paths;
  RunResult r = runKernel(m, cfg);
  interp_detail::fastPathsOnThisThread() = FastPaths{};
  return r;
}

std::string describe(const RunResult &r) {
  return fmt::format("{} ({}) steps={} lanes={}", formatExit(r, "t.ori"), r.message, r.warpSteps,
                     r.laneSteps);
}

// Everything a run reports, fast against general; the fast run's verdict.
Kind compareRuns(const Module &m, const RunConfig &cfg, const std::string &what) {
  const RunResult fast = runWith(m, cfg, FastPaths{});
  for (FastPaths slow : {FastPaths{true, false}, FastPaths{false, false}}) {
    const RunResult gen = runWith(m, cfg, slow);
    const std::string ctx = fmt::format("{}; alu fast path {}: fast {} / general {}", what,
                                        slow.alu ? "on" : "off", describe(fast), describe(gen));
    EXPECT_EQ(fast.kind, gen.kind) << ctx;
    EXPECT_EQ(fast.thread, gen.thread) << ctx;
    EXPECT_EQ(fast.addr, gen.addr) << ctx;
    EXPECT_EQ(fast.message, gen.message) << ctx;
    EXPECT_EQ(fast.mnemonic, gen.mnemonic) << ctx;
    EXPECT_EQ(fast.line, gen.line) << ctx;
    EXPECT_EQ(fast.threadsRun, gen.threadsRun) << ctx;
    EXPECT_EQ(fast.warpSteps, gen.warpSteps) << ctx;
    EXPECT_EQ(fast.laneSteps, gen.laneSteps) << ctx;
    EXPECT_TRUE(fast.buffers == gen.buffers) << ctx;
    EXPECT_TRUE(fast.variables == gen.variables) << ctx;
  }
  return fast.kind;
}

Module parse(const std::string &text) {
  ParseResult p = parseOri(text, "t.ori");
  if (!p.module) {
    ADD_FAILURE() << p.error->str() << "\n" << text;
    return {};
  }
  return std::move(*p.module);
}

// A kernel that stores then loads through `st` and `ld` (opcodes with their width) at
// base + ((tid * mul) & mask) and + `off`, with lane l guarded on by bit l of pmask, and the
// lanes of dmask taking the other side of a branch (another store and load there). Every
// lane then writes what it loaded to out[tid] (8 + 8 bytes, always in bounds).
std::string accessKernel(const std::string &st, const std::string &ld,
                         const std::string &prologue = "") {
  return fmt::format(
      R"(.const .b32 ct[8] = {{0x11223344, 0x55667788, 0x99aabbcc, 0xddeeff00, 0x1, 0x2, 0x3, 0x4}}
.global .b32 gv[4] = {{0x5, 0x6, 0x7, 0x8}}
.entry k(.u64 out, .u64 g, .u64 base, .u64 val, .u32 mul, .u32 mask, .u32 pmask, .u32 dmask)
{{
  S2R R0, SR_TID.X
  S2R R30, SR_LANEID
{}
  MOV.64 R10, c[0x0][0x220]
  IMAD R1, R0, c[0x0][0x230], RZ
  LOP3.LUT R1, R1, c[0x0][0x234], RZ, 0xc0
  IADD3.64 R2, R10, R1, RZ
  MOV R31, c[0x0][0x238]
  SHF.R.U32.HI R3, RZ, R30, R31
  LOP3.LUT R3, R3, 0x1, RZ, 0xc0
  ISETP.NE.U32.AND P1, PT, R3, RZ, PT
  MOV R31, c[0x0][0x23c]
  SHF.R.U32.HI R4, RZ, R30, R31
  LOP3.LUT R4, R4, 0x1, RZ, 0xc0
  ISETP.NE.U32.AND P2, PT, R4, RZ, PT
  MOV.64 R5, c[0x0][0x228]
  IMAD.WIDE.U32 R5, R0, 0x1010101, R5
  MOV R6, 0x5a5a
  MOV R7, 0x6b6b
  @P2 BRA other
  @P1 {} [R2], R5
  {} R6, [R2]
  @P1 {} R7, [R2+0x8]
  BRA join
other:
  {} [R2+0x4], R5
  @!P1 {} R6, [R2+0x4]
  {} R7, [R2-0x8]
join:
  MOV.64 R12, c[0x0][0x210]
  IMAD.WIDE.U32 R12, R0, 0x10, R12
  STG.E.64 [R12], R6
  STG.E.64 [R12+0x8], R7
  EXIT
}}
)",
      prologue, st, ld, ld, st, ld, ld);
}

struct Space {
  const char *st;
  const char *ld;
  std::string prologue; // fills some of the space first (a window's pages exist or not)
};

// Width modifiers of the loads and stores.
const std::vector<std::string> kWidths = {"", ".U8", ".S8", ".U16", ".S16", ".64"};

// Random launches of accessKernel for each space and width: bases at buffer and window
// edges, strides and masks that keep lanes aligned and inside or put some outside.
void randomAccesses(const char *st, const char *ld, const std::string &prologue, bool generic,
                    bool windowOffsets, uint32_t seed, int runs, std::map<Kind, int> &kinds) {
  std::mt19937_64 rng(seed);
  for (const std::string &w : kWidths) {
    const std::string stw = std::string(st) + (w == ".S8" ? ".U8" : w == ".S16" ? ".U16" : w);
    const Module m = parse(accessKernel(stw, std::string(ld) + w, prologue));
    const Function *k = m.findFunction("k");
    ASSERT_NE(k, nullptr);
    ASSERT_EQ(k->params[4].offset, 0x230u); // the kernel's offsets into constant bank 0
    ASSERT_EQ(k->params[7].offset, 0x23cu);
    for (int run = 0; run < runs; ++run) {
      RunConfig cfg;
      const uint32_t threadChoices[] = {1, 5, 32, 33, 64, 96};
      cfg.threads = threadChoices[rng() % 6];
      cfg.ctas = rng() % 4 == 0 ? 2 : 1;
      cfg.buffers["out"] = std::vector<uint8_t>(96 * 16, 0xee);
      std::vector<uint8_t> g(0x300);
      for (uint8_t &b : g)
        b = uint8_t(rng());
      cfg.buffers["g"] = g;
      for (const char *p : {"base", "val", "mul", "mask", "pmask", "dmask"})
        cfg.params[p] = 0;
      const auto layout = layoutLaunch(m, cfg);
      ASSERT_TRUE(std::holds_alternative<LaunchLayout>(layout));
      const LaunchLayout &L = std::get<LaunchLayout>(layout);
      uint64_t gBase = 0, gvBase = 0;
      for (size_t i = 0; i < L.global.size(); ++i) {
        if (L.globalNames[i] == "g")
          gBase = L.global[i].at;
        if (L.globalNames[i] == "gv")
          gvBase = L.global[i].at;
      }
      // Bases: inside g, at its end, before it, in the variable gv, between regions, at 0;
      // for the windows, their start and end (generic: their generic addresses).
      std::vector<uint64_t> bases = {gBase,
                                     gBase + 0x100,
                                     gBase + 0x300 - 0x40,
                                     gBase - 0x20,
                                     gvBase,
                                     gBase + 0x2f8,
                                     0,
                                     interp_detail::kFunctionBase};
      auto window = [&](uint64_t winBase, uint64_t size) {
        for (uint64_t off :
             {uint64_t(0), uint64_t(0x40), uint64_t(0xff8), size - 0x100, size - 0x8, size})
          bases.push_back(winBase + off);
      };
      if (generic) {
        window(interp_detail::kSharedWindowBase, interp_detail::kSharedSize);
        window(interp_detail::kLocalWindowBase, interp_detail::kLocalSize);
        window(interp_detail::kConstWindowBase, 32);
        bases.push_back(interp_detail::kSharedWindowBase - 0x10);
      }
      if (windowOffsets) {
        window(0, interp_detail::kSharedSize);
        window(0, interp_detail::kLocalSize);
        bases.push_back(interp_detail::kSharedWindowBase);
      }
      const uint32_t muls[] = {0, 1, 2, 4, 8, 16, 3, 0x40, 0x1000, uint32_t(rng())};
      const uint32_t masks[] = {0xff,       0xfff,      0x3ff8,         0x1f8,
                                0xffffffff, 0xfffffff8, uint32_t(rng())};
      const uint32_t pmasks[] = {0xffffffff, 0, 0x5555aaaa, uint32_t(rng())};
      const uint32_t dmasks[] = {0, 0xffffffff, 0xf0f0f0f0, uint32_t(rng())};
      const uint64_t base = bases[rng() % bases.size()] + (rng() % 4 == 0 ? rng() % 16 : 0);
      const uint32_t mul = muls[rng() % 10], mask = masks[rng() % 7];
      cfg.params["base"] = base;
      cfg.params["val"] = rng();
      cfg.params["mul"] = mul;
      cfg.params["mask"] = mask;
      cfg.params["pmask"] = pmasks[rng() % 4];
      cfg.params["dmask"] = dmasks[rng() % 4];
      const std::string what = fmt::format("{} / {}{}: threads {} ctas {} base 0x{:x} mul 0x{:x} "
                                           "mask 0x{:x} pmask 0x{:x} dmask 0x{:x}",
                                           stw, ld, w, cfg.threads.x, cfg.ctas.x, base, mul, mask,
                                           cfg.params["pmask"], cfg.params["dmask"]);
      ++kinds[compareRuns(m, cfg, what)];
    }
  }
}

TEST(InterpFastPath, GlobalAccessesMatchTheGeneralPath) {
  std::map<Kind, int> kinds;
  randomAccesses("STG.E", "LDG.E", "", false, false, 1, 120, kinds);
  EXPECT_GT(kinds[Kind::Ok], 50);
  EXPECT_GT(kinds[Kind::Fault], 50);
}

TEST(InterpFastPath, GenericAccessesMatchTheGeneralPath) {
  // Some shared and local bytes written first, so that loads meet pages that exist and pages
  // that do not.
  const std::string prologue = R"(  S2R R40, SR_SWINBASE
  IMAD.WIDE.U32 R41, R0, 0x4, R40
  ST.E [R41+0x40], R0
  S2R R42, SR_LWINBASE
  ST.E [R42+0x10], R30)";
  std::map<Kind, int> kinds;
  randomAccesses("ST.E", "LD.E", prologue, true, false, 2, 150, kinds);
  EXPECT_GT(kinds[Kind::Ok], 50);
  EXPECT_GT(kinds[Kind::Fault], 50);
}

TEST(InterpFastPath, SharedAccessesMatchTheGeneralPath) {
  const std::string prologue = R"(  SHF.L.U32 R40, R0, 0x2, RZ
  STS [R40+0x40], R0)";
  std::map<Kind, int> kinds;
  randomAccesses("STS", "LDS", prologue, false, true, 3, 120, kinds);
  EXPECT_GT(kinds[Kind::Ok], 50);
  EXPECT_GT(kinds[Kind::Fault], 50);
}

TEST(InterpFastPath, LocalAccessesMatchTheGeneralPath) {
  const std::string prologue = R"(  STL [0x10], R30)";
  std::map<Kind, int> kinds;
  randomAccesses("STL", "LDL", prologue, false, true, 4, 120, kinds);
  EXPECT_GT(kinds[Kind::Ok], 50);
  EXPECT_GT(kinds[Kind::Fault], 50);
}

// Hand-made cases, each with the verdict the general path gives.
TEST(InterpFastPath, FaultsAndEdgeCases) {
  struct Case {
    const char *body; // after R0 = tid, R10 = out, R11 = g
    Kind want;
    uint64_t thread = 0;
  };
  const Case cases[] = {
      // Lane 5 misaligned: it faults, the others store and go on.
      {"  ISETP.EQ.U32.AND P0, PT, R0, 0x5, PT\n  SEL R1, 0x2, RZ, P0\n  IMAD R2, R0, 0x4, R1\n"
       "  IADD3.64 R3, R11, R2, RZ\n  STG.E [R3], R0\n  LDG.E R4, [R3]\n  STG.E [R3], R4\n",
       Kind::Fault, 5},
      // Lanes 16.. past g's end (0x100 bytes, 16 per lane).
      {"  IMAD.WIDE.U32 R3, R0, 0x10, R11\n  STG.E.64 [R3], R11\n", Kind::Fault, 16},
      // Every lane to the same word: the highest lane's value stays.
      {"  STG.E [R11], R0\n  LDG.E R5, [R11]\n  IMAD.WIDE.U32 R6, R0, 0x4, R10\n  STG.E [R6], R5\n",
       Kind::Ok},
      // Lanes across out and g (two buffers): the general path runs them, all in bounds.
      {"  ISETP.GE.U32.AND P0, PT, R0, 0x10, PT\n  SEL.64 R3, R11, R10, P0\n  IMAD.WIDE.U32 R3, "
       "R0, 0x4, R3\n"
       "  STG.E [R3], R0\n  LDG.E R4, [R3]\n  IMAD.WIDE.U32 R6, R0, 0x4, R10\n  STG.E [R6+0x80], "
       "R4\n",
       Kind::Ok},
      // Shared: lanes store to their word, a neighbour's read back after the warp's stores.
      {"  SHF.L.U32 R1, R0, 0x2, RZ\n  STS [R1], R0\n  LOP3.LUT R2, R1, 0x4, RZ, 0x3c\n  LDS R3, "
       "[R2]\n"
       "  IMAD.WIDE.U32 R6, R0, 0x4, R10\n  STG.E [R6], R3\n",
       Kind::Ok},
      // Shared past the window's end in lane 31 only.
      {"  IMAD R1, R0, 0x8, 0x37f08\n  STS.64 [R1], R11\n  LDS.64 R2, [R1]\n  IMAD.WIDE.U32 R6, "
       "R0, 0x8, R10\n"
       "  STG.E.64 [R6], R2\n",
       Kind::Fault, 31},
      // Generic: lanes 0-15 in the shared window, 16-31 in the local one.
      {"  S2R R20, SR_SWINBASE\n  S2R R21, SR_LWINBASE\n  ISETP.GE.U32.AND P0, PT, R0, 0x10, PT\n"
       "  SEL.64 R3, R21, R20, P0\n  IMAD.WIDE.U32 R3, R0, 0x4, R3\n  ST.E [R3], R0\n  LD.E R4, "
       "[R3]\n"
       "  IMAD.WIDE.U32 R6, R0, 0x4, R10\n  STG.E [R6], R4\n",
       Kind::Ok},
      // Generic store to the constant window faults in every lane (the first reported).
      {"  S2R R20, SR_CWINBASE\n  ST.E [R20], R0\n", Kind::Fault, 0},
      // A store of RZ, a byte store, a load into RZ, an address without a register.
      {"  IMAD.WIDE.U32 R3, R0, 0x4, R11\n  STG.E [R3], RZ\n  MOV R4, 0x17f\n  STG.E.U8 [R3+0x1], "
       "R4\n"
       "  LDG.E RZ, [R3]\n  LDG.E R5, [0x10000000]\n  IMAD.WIDE.U32 R6, R0, 0x4, R10\n  STG.E "
       "[R6], R5\n",
       Kind::Ok},
  };
  int k = 0;
  for (const Case &c : cases) {
    const std::string text = fmt::format(R"(.entry k(.u64 out, .u64 g)
{{
  S2R R0, SR_TID.X
  MOV.64 R10, c[0x0][0x210]
  MOV.64 R11, c[0x0][0x218]
{}  EXIT
}}
)",
                                         c.body);
    const Module m = parse(text);
    RunConfig cfg;
    cfg.threads = 32;
    cfg.buffers["out"] = std::vector<uint8_t>(0x100, 0);
    cfg.buffers["g"] = std::vector<uint8_t>(0x100, 0x33);
    const Kind kind = compareRuns(m, cfg, fmt::format("case {}:\n{}", k++, text));
    EXPECT_EQ(kind, c.want) << text;
    if (c.want == Kind::Fault) {
      interp_detail::fastPathsOnThisThread() = FastPaths{};
      EXPECT_EQ(runKernel(m, cfg).thread, c.thread) << text;
    }
  }
}

// A kernel that falls off its end after a store (the parser refuses one: its EXIT is removed
// after parsing): the malformed-IR stop reports the thread the machine was at, the last lane
// of the store on both paths.
TEST(InterpFastPath, AStopAfterAStoreReportsTheSameThread) {
  Module m = parse(R"(.entry k(.u64 out)
{
  S2R R0, SR_TID.X
  MOV.64 R10, c[0x0][0x210]
  IMAD.WIDE.U32 R10, R0, 0x4, R10
  ISETP.LT.U32.AND P0, PT, R0, 0x1b, PT
  @P0 STG.E [R10], R0
  EXIT
}
)");
  ASSERT_EQ(m.functions.size(), 1u);
  ASSERT_EQ(m.functions[0].blocks.back().instrs.back().op, Opcode::EXIT);
  m.functions[0].blocks.back().instrs.pop_back();
  RunConfig cfg;
  cfg.threads = 32;
  cfg.buffers["out"] = std::vector<uint8_t>(0x80, 0);
  EXPECT_EQ(compareRuns(m, cfg, "falls off the end"), Kind::Error);
  EXPECT_EQ(runKernel(m, cfg).thread, 26u);
}

} // namespace
} // namespace ori
