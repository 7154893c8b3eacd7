// Random terminating kernels (fuzz/kernel_gen.h). The generator writes .ori
// text for structured code and parses it, so labels, blocks and jump tables
// come out exactly as the parser makes them. Every choice is drawn inside
// rc::gen::exec, so RapidCheck shrinks a failing kernel choice by choice.
//
// Registers, by role (roles never share a register, which is what makes
// termination and in-bounds memory hold whatever the data):
//   R0-R11, UR0-UR3    data: any statement reads and writes them
//   R20, R21, UR7      never written: reading one is a use of an undefined register
//   P0-P3              data predicates: guards and conditions
//   R32+d, R40+d       counter and bound of the loop at nesting depth d
//   R48, R50           buffer index and address; R52 switch index
//   R54                the thread's own kBufferBytes of the buffer (64-bit); R56 tid & 63
//   P5, P6             branch conditions, computed right before their branch
//   B0+d               the BSSY/BSYNC region at depth d
//
// Lanes of a warp run in lockstep, and which side of a divergent branch runs first depends
// on the branch's shape, which passes may change: so that a kernel's result does not depend
// on that order, each thread loads and stores only its own part of the buffer (threads of
// different warps or CTAs may share parts: warps take turns only at barriers and exits, which
// passes keep). Threads exchange data only through the warp-level instructions and shared
// memory across a barrier, both at the top level of the kernel, where every thread that has
// not exited is (when a kernel has them, no EXIT is nested in a branch, so the warp is
// reconverged there).
#include "fuzz/kernel_gen.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "ir/ori.h"

namespace ori::gen {
namespace {

int pick(int lo, int hi) { // [lo, hi), not scaled by the generation size
  if (hi - lo <= 1)
    return lo;
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(lo, hi));
}
bool chance(int percent) { return pick(0, 100) < percent; }
template <typename T> T oneOf(std::initializer_list<T> items) {
  return items.begin()[pick(0, int(items.size()))];
}

constexpr const char *kBuf = "c[0x0][0x210]"; // .u64 buf
constexpr const char *kA = "c[0x0][0x218]";   // .u32 a
constexpr const char *kB = "c[0x0][0x21c]";   // .u32 b
constexpr int kDataRegs = 12, kDataUniform = 4, kDataPreds = 4;

struct Gen {
  KernelOptions opts;
  std::string body, tables;
  int labels = 0, tableCount = 0;
  int budget = 0;         // statements left
  bool warpLevel = false; // the kernel uses warp-level instructions and barriers
  int exchanges = 0;      // shared-memory exchanges made
  int loopDepth = 0;      // enclosing loops
  int depth = 0;          // enclosing structured statements
  struct Loop {
    std::string latch, end;
  };
  std::vector<Loop> loops;

  std::string label() { return fmt::format("L{}", labels++); }
  void emit(const std::string &s) { body += "  " + s + "\n"; }
  void place(const std::string &l) { body += l + ":\n"; }

  // ------------------------------------------------------------ operands
  std::string dstReg() {
    return chance(15) ? fmt::format("UR{}", pick(0, kDataUniform))
                      : fmt::format("R{}", pick(0, kDataRegs));
  }
  std::string srcReg() {
    int r = pick(0, 100);
    if (r < 3)
      return oneOf({"R20", "R21", "UR7"}); // never written
    if (r < 15)
      return fmt::format("UR{}", pick(0, kDataUniform));
    if (r < 18)
      return oneOf({"RZ", "URZ"});
    return fmt::format("R{}", pick(0, kDataRegs));
  }
  std::string rOnly() { return fmt::format("R{}", pick(0, kDataRegs)); }
  std::string imm() {
    switch (pick(0, 3)) {
    case 0:
      return fmt::format("0x{:x}", uint32_t(*rc::gen::arbitrary<uint32_t>()));
    case 1:
      return fmt::format("-0x{:x}", pick(1, 64));
    default:
      return fmt::format("0x{:x}", pick(0, 256));
    }
  }
  // A register, immediate or parameter source ("RIC").
  std::string src() {
    int r = pick(0, 100);
    if (r < 65)
      return srcReg();
    if (r < 90)
      return imm();
    return chance(50) ? kA : kB;
  }
  // A source of a 64-bit operation: a constant-bank read is 8 bytes, so only
  // the 8-aligned c[0x0][0x218] (a in the low word, b in the high one).
  std::string src64() { return chance(10) ? kA : chance(70) ? srcReg() : imm(); }
  std::string floatSrc() {
    if (chance(70))
      return srcReg();
    return oneOf({"1.5", "-2.25", "0.5", "3.0", "-0.0"});
  }
  std::string pred() { return fmt::format("{}P{}", chance(30) ? "!" : "", pick(0, kDataPreds)); }
  std::string predSrc() { return chance(15) ? (chance(50) ? "PT" : "!PT") : pred(); }
  std::string predDst() { return fmt::format("P{}", pick(0, kDataPreds)); }
  std::string guard() { return chance(20) ? "@" + pred() + " " : ""; }

  // ------------------------------------------------------------ straight-line code
  void arithmetic() {
    const std::string g = guard();
    switch (pick(0, 17)) {
    case 0:
      emit(g + fmt::format("MOV {}, {}", dstReg(), src()));
      break;
    case 1:
      if (chance(20))
        emit(g + fmt::format("IADD3.64 {}, {}, {}, {}", dstReg(), srcReg(), src64(), src64()));
      else
        emit(g + fmt::format("IADD3 {}, {}{}, {}, {}", dstReg(), chance(20) ? "-" : "", srcReg(),
                             src(), src()));
      break;
    case 2:
      emit(g + fmt::format("LOP3.LUT {}, {}, {}, {}, 0x{:x}", dstReg(), src(), src(), src(),
                           pick(0, 256)));
      break;
    case 3:
      emit(g + fmt::format("SEL {}, {}, {}, {}", dstReg(), src(), src(), predSrc()));
      break;
    case 4:
      emit(g + fmt::format("IMAD {}, {}, {}, {}", dstReg(), rOnly(), src(), src()));
      break;
    case 5:
      emit(g + fmt::format("IMAD.WIDE.U32 {}, {}, {}, {}", dstReg(), rOnly(), src(), src64()));
      break;
    case 6:
      emit(g + fmt::format("{} {}, {}, {}", oneOf({"SHL", "SHR.U32", "SHR.S32"}), dstReg(), rOnly(),
                           chance(50) ? rOnly() : fmt::format("0x{:x}", pick(0, 40))));
      break;
    case 7:
      emit(g + fmt::format("SHF.{}.{} {}, {}, 0x{:x}, {}", oneOf({"L", "R"}),
                           oneOf({"U32", "S32", "U32.HI"}), dstReg(), rOnly(), pick(0, 40),
                           rOnly()));
      break;
    case 8:
      emit(g + fmt::format("IMNMX{} {}, {}, {}, {}", oneOf({"", ".U32"}), dstReg(), src(), src(),
                           predSrc()));
      break;
    case 9:
      emit(g + fmt::format("LEA {}, {}, {}, 0x{:x}", dstReg(), rOnly(), src(), pick(0, 8)));
      break;
    case 10:
      emit(g + fmt::format("S2R {}, {}", rOnly(),
                           oneOf({"SR_TID.X", "SR_CTAID.X", "SR_NTID.X", "SR_LANEID"})));
      break;
    case 11:
      emit(g + fmt::format("{} {}, {}, {}", oneOf({"FADD", "FMUL", "FADD.FTZ", "FMUL.RZ"}),
                           dstReg(), floatSrc(), floatSrc()));
      break;
    case 12:
      emit(g + fmt::format("FFMA {}, {}, {}, {}", dstReg(), floatSrc(), floatSrc(), floatSrc()));
      break;
    case 13:
      emit(g + fmt::format("I2F{} {}, {}", oneOf({"", ".U32", ".S16"}), dstReg(), src()));
      break;
    case 14:
      emit(g +
           fmt::format("F2I{} {}, {}", oneOf({"", ".TRUNC", ".U32.FLOOR"}), dstReg(), srcReg()));
      break;
    case 15:
      emit(g + fmt::format("ISETP.{}.{}.{} {}, {}, {}, {}, {}",
                           oneOf({"LT", "EQ", "LE", "GT", "NE", "GE"}), oneOf({"U32", "S32"}),
                           oneOf({"AND", "OR", "XOR"}), predDst(), chance(50) ? predDst() : "PT",
                           srcReg(), src(), predSrc()));
      break;
    default:
      emit(g + fmt::format("PLOP3.LUT {}, {}, {}, {}, {}, 0x{:x}, 0x{:x}", predDst(),
                           chance(50) ? predDst() : "PT", predSrc(), predSrc(), predSrc(),
                           pick(0, 256), pick(0, 256)));
      break;
    }
  }

  // R50 = &own[(src & mask) * scale]: always inside the thread's part and aligned.
  void address(uint32_t scale) {
    emit(fmt::format("LOP3.LUT R48, {}, 0x{:x}, RZ, 0xc0", src(), kBufferBytes / scale - 1));
    emit(fmt::format("IMAD.WIDE.U32 R50, R48, 0x{:x}, R54", scale));
  }

  // A warp-level instruction (top level only: the warp is reconverged there).
  void warpInstruction() {
    const std::string g = guard();
    switch (pick(0, 6)) {
    case 0:
      if (chance(50))
        emit(g + fmt::format("VOTE.ANY {}, PT, {}", rOnly(), predSrc())); // ballot
      else
        emit(g +
             fmt::format("VOTE.{} RZ, {}, {}", oneOf({"ALL", "ANY", "EQ"}), predDst(), predSrc()));
      break;
    case 1:
    case 2:
      emit(g + fmt::format("SHFL.{} {}, {}, {}, {}, 0x{:x}", oneOf({"IDX", "UP", "DOWN", "BFLY"}),
                           chance(50) ? predDst() : "PT", rOnly(), rOnly(),
                           chance(70) ? fmt::format("0x{:x}", pick(0, 32)) : rOnly(),
                           oneOf({0x1fu, 0x0u, 0x181fu, 0x1c1fu, 0x1007u})));
      break;
    case 3:
      if (chance(50))
        emit(g + fmt::format("MATCH.ANY {}, PT, {}", rOnly(), rOnly()));
      else
        emit(g + fmt::format("MATCH.ALL {}, {}, {}", rOnly(), predDst(), rOnly()));
      break;
    case 4:
      emit(g + fmt::format("REDUX.{} {}, {}",
                           oneOf({"SUM", "MIN", "MAX", "MIN.S32", "MAX.S32", "AND", "OR", "XOR"}),
                           rOnly(), rOnly()));
      break;
    default:
      emit(g + fmt::format("S2R {}, {}", rOnly(),
                           oneOf({"SR_LANEMASK_EQ", "SR_LANEMASK_LT", "SR_LANEMASK_LE",
                                  "SR_LANEMASK_GT", "SR_LANEMASK_GE", "SR_WARPID", "SR_NWARPID"})));
      break;
    }
  }

  // A barrier (top level only, never guarded: every thread that has not exited reaches it):
  // a shared-memory exchange (each thread stores its slot, all wait, each loads another
  // thread's slot), or a reduction of a predicate over the CTA.
  void barrier() {
    if (chance(60) && exchanges < 4) {
      const uint32_t base = 0x100 * uint32_t(exchanges++); // each exchange its own slots
      emit(fmt::format("LEA R48, R56, 0x{:x}, 0x2", base));
      emit(fmt::format("STS [R48], {}", rOnly()));
      emit("BAR.SYNC 0x0");
      emit(fmt::format("LOP3.LUT R48, R56, 0x{:x}, RZ, 0x3c", pick(0, 64))); // tid ^ k
      emit(fmt::format("LEA R48, R48, 0x{:x}, 0x2", base));
      emit(fmt::format("LDS {}, [R48]", rOnly()));
      return;
    }
    switch (pick(0, 3)) {
    case 0:
      emit(fmt::format("BAR.RED.POPC {}, 0x0, {}", rOnly(), predSrc()));
      break;
    case 1:
      emit(fmt::format("BAR.RED.{} {}, 0x0, {}", oneOf({"AND", "OR"}), predDst(), predSrc()));
      break;
    default:
      emit("BAR.SYNC 0x0");
      break;
    }
  }

  void memory() {
    switch (pick(0, 6)) {
    case 0:
      address(4);
      emit(guard() + fmt::format("LDG.E {}, [R50]", dstReg()));
      break;
    case 1:
      address(4);
      emit(guard() + fmt::format("STG.E [R50], {}", srcReg()));
      break;
    case 2:
      address(8);
      emit(guard() + (chance(50) ? fmt::format("LDG.E.64 {}, [R50]", dstReg())
                                 : fmt::format("STG.E.64 [R50], {}", srcReg())));
      break;
    case 3:
      address(2);
      emit(guard() + (chance(50) ? fmt::format("LDG.E.S16 {}, [R50]", dstReg())
                                 : fmt::format("STG.E.U8 [R50+0x1], {}", srcReg())));
      break;
    case 4:
      address(4);
      emit(guard() + fmt::format("ATOM.E.{} {}, [R50], {}", oneOf({"ADD", "MAX", "EXCH", "XOR"}),
                                 dstReg(), src()));
      break;
    default:
      address(4);
      emit(guard() + fmt::format("RED.E.ADD [R50], {}", src()));
      break;
    }
  }

  // ------------------------------------------------------------ control flow
  // P5 = a random comparison of data.
  void compare(const char *p) {
    emit(fmt::format("ISETP.{}.U32.AND {}, PT, {}, {}, PT",
                     oneOf({"LT", "EQ", "LE", "GT", "NE", "GE"}), p, srcReg(), src()));
  }
  // Branches to `no` unless the condition holds: one test, an && chain or an
  // || chain of tests (each a data predicate or a fresh comparison).
  void condition(const std::string &no) {
    auto test = [&](bool branchIfTrue, const std::string &target) {
      std::string p = "P5";
      if (chance(40))
        p = fmt::format("P{}", pick(0, kDataPreds));
      else
        compare("P5");
      emit(fmt::format("@{}{} BRA {}", branchIfTrue ? "" : "!", p, target));
    };
    const int terms = chance(60) ? 1 : pick(2, 4);
    if (terms == 1 || chance(50)) { // a && b && c: any false test leaves
      for (int k = 0; k < terms; ++k)
        test(false, no);
      return;
    }
    const std::string yes = label(); // a || b || c: any true test enters
    for (int k = 0; k + 1 < terms; ++k)
      test(true, yes);
    test(false, no);
    place(yes);
  }

  void ifStatement() {
    const std::string no = label(), end = label();
    const bool hasElse = chance(50);
    condition(no);
    statements();
    if (hasElse)
      emit("BRA " + end);
    place(no);
    if (hasElse) {
      statements();
      place(end);
    }
  }

  // for (c = 0; ...; ) with a bound of 1..maxTrips, tested at the top
  // (while) or at the latch only (do-while).
  void loop() {
    const int d = loopDepth;
    const std::string c = fmt::format("R{}", 32 + d), bound = fmt::format("R{}", 40 + d);
    const std::string head = label(), latch = label(), end = label();
    emit(fmt::format("MOV {}, RZ", c));
    if (chance(50)) {
      emit(fmt::format("MOV {}, 0x{:x}", bound, pick(1, opts.maxTrips + 1)));
    } else { // data-dependent, clamped to maxTrips
      emit(fmt::format("LOP3.LUT {}, {}, 0x7, RZ, 0xc0", bound, src()));
      emit(fmt::format("IMNMX.U32 {}, {}, 0x{:x}, PT", bound, bound, opts.maxTrips));
    }
    place(head);
    if (chance(40)) {
      emit(fmt::format("ISETP.GE.U32.AND P6, PT, {}, {}, PT", c, bound));
      emit("@P6 BRA " + end);
    }
    loops.push_back({latch, end});
    ++loopDepth;
    statements();
    --loopDepth;
    loops.pop_back();
    place(latch);
    emit(fmt::format("IADD3 {}, {}, 0x1, RZ", c, c));
    emit(fmt::format("ISETP.LT.U32.AND P6, PT, {}, {}, PT", c, bound));
    emit("@P6 BRA " + head);
    place(end);
  }

  // switch (src & 7) through a bounds check and BRX; the table may repeat
  // cases and leave some out (then only the case before reaches them).
  void switchStatement() {
    const int cases = pick(1, 5), size = pick(1, 7);
    std::vector<std::string> caseLabels;
    for (int k = 0; k < cases; ++k)
      caseLabels.push_back(label());
    const std::string deflt = label(), end = label(), table = fmt::format("T{}", tableCount++);
    std::string entries;
    for (int k = 0; k < size; ++k)
      entries += (k ? ", " : "") + caseLabels[size_t(k < cases && chance(70) ? k : pick(0, cases))];
    tables += fmt::format("  .jumptable {} = {{{}}}\n", table, entries);
    emit(fmt::format("LOP3.LUT R52, {}, 0x7, RZ, 0xc0", src()));
    emit(fmt::format("ISETP.GE.U32.AND P6, PT, R52, 0x{:x}, PT", size));
    emit("@P6 BRA " + deflt);
    emit("BRX R52, " + table);
    for (const std::string &l : caseLabels) {
      place(l);
      statements();
      if (chance(80))
        emit("BRA " + end); // else fall into the next case
    }
    place(deflt);
    statements();
    place(end);
  }

  void barrierRegion() {
    const std::string sync = label();
    const std::string b = fmt::format("B{}", depth);
    emit(fmt::format("BSSY {}, {}", b, sync));
    statements();
    place(sync);
    emit("BSYNC " + b);
  }

  // ------------------------------------------------------------ GeneralOptimize fodder
  int fresh = 0; // R100 + fresh: registers written once
  std::string freshReg() { return fmt::format("R{}", 100 + fresh++); }
  std::string constantPredicate() { // a PLOP3 with a constant result
    const std::string p = predDst();
    emit(fmt::format("PLOP3.LUT {}, PT, {}, {}, PT, 0x{:x}, 0x0", p, pred(), pred(),
                     chance(50) ? 0xff : 0x0));
    return chance(30) ? "!" + p : p;
  }
  void cleanup() {
    switch (pick(0, 7)) {
    case 0: { // a copy chain, 32-bit or 64-bit
      const std::string w = chance(25) ? ".64" : "", a = freshReg(), b = freshReg();
      emit(fmt::format("IADD3 {}, {}, {}, RZ", a, srcReg(), src()));
      emit(fmt::format("MOV{} {}, {}", w, b, chance(70) ? a : imm()));
      emit(fmt::format("MOV{} {}, {}", w, dstReg(), b));
      emit(fmt::format("IADD3 {}, {}, {}, {}", dstReg(), b, chance(50) ? b : srcReg(), src()));
      break;
    }
    case 1: { // SEL on a constant predicate, or of two equal sources
      const std::string p = chance(70) ? constantPredicate() : predSrc(), v = src();
      emit(fmt::format("SEL {}, {}, {}, {}", dstReg(), chance(30) ? v : src(), v, p));
      break;
    }
    case 2: { // a predicate copy (or its complement) read by a guard, a SEL or a PLOP3
      const std::string d = predDst(), a = fmt::format("P{}", pick(0, kDataPreds));
      emit(
          fmt::format("PLOP3.LUT {}, PT, {}, PT, PT, 0x{:x}, 0x0", d, a, chance(50) ? 0xf0 : 0x0f));
      if (chance(50))
        emit(fmt::format("@{}{} MOV {}, {}", chance(30) ? "!" : "", d, dstReg(), src()));
      else
        emit(fmt::format("SEL {}, {}, {}, {}{}", dstReg(), src(), src(), chance(30) ? "!" : "", d));
      break;
    }
    case 3: // a MOV guarded by a constant predicate
      emit(fmt::format("@{} MOV {}, {}", constantPredicate(), dstReg(), src()));
      break;
    case 4: { // one value moved into two fresh registers, each read once (phase 58); sometimes
              // the first is written again before the second's read, which keeps the second move
      const std::string v = chance(50) ? imm() : srcReg(), a = freshReg(), b = freshReg();
      emit(fmt::format("MOV {}, {}", a, v));
      if (chance(30))
        arithmetic();
      emit(fmt::format("MOV {}, {}", b, v));
      if (chance(25))
        emit(fmt::format("IADD3 {}, {}, {}, RZ", a, a, imm()));
      emit(fmt::format("IADD3 {}, {}, {}, {}", dstReg(), a, b, src()));
      break;
    }
    default: { // a conditional exit or branch tested again after it (phase 13)
      if (warpLevel && depth > 0)
        return arithmetic();
      const std::string x = rOnly(), c = oneOf({"LT", "EQ", "GT", "NE"}), k = imm();
      const bool exit = loops.empty() || chance(50);
      const std::string target = exit ? "" : loops.back().end;
      const bool neg = chance(30);
      emit(fmt::format("ISETP.{}.U32.AND P5, PT, {}, {}, PT", c, x, k));
      emit(fmt::format("@{}P5 {}", neg ? "!" : "", exit ? "EXIT" : "BRA " + target));
      if (chance(40))
        arithmetic();
      emit(fmt::format("ISETP.{}.U32.AND P6, PT, {}, {}, PT", c, x, k));
      emit(fmt::format("@{}P6 {}", chance(50) == neg ? "!" : "", exit ? "EXIT" : "BRA " + target));
      break;
    }
    }
  }

  // ------------------------------------------------------------ --fold=evaluate fodder
  std::string rOrImm() { return chance(50) ? rOnly() : imm(); }
  void evaluateFodder() {
    const std::string a = freshReg(), b = freshReg(), x = rOnly(), d = dstReg();
    switch (pick(0, 7)) {
    case 0: { // immediates in registers, then an instruction of them
      emit(fmt::format("MOV {}, {}", a, imm()));
      emit(fmt::format("MOV {}, {}", b, chance(20) ? "RZ" : imm()));
      switch (pick(0, 8)) {
      case 0:
        emit(fmt::format("IADD3 {}, {}, {}{}, {}", d, a, chance(30) ? "-" : "", b,
                         chance(50) ? a : imm()));
        break;
      case 1:
        emit(fmt::format("IADD3.64 {}, {}, -{}, RZ", d, a, b));
        break;
      case 2:
        emit(fmt::format("IMAD {}, {}, {}, {}", d, a, b, chance(50) ? a : imm()));
        break;
      case 3:
        emit(fmt::format("IMAD.WIDE{} {}, {}, {}, RZ", chance(50) ? ".U32" : "", d, a, b));
        break;
      case 4:
        emit(fmt::format("LOP3.LUT {}, {}, {}, {}, 0x{:x}", d, a, b, chance(50) ? a : "RZ",
                         pick(0, 256)));
        break;
      case 5:
        emit(fmt::format("SHF.{}.{} {}, {}, 0x{:x}, {}", chance(50) ? "L" : "R",
                         oneOf({"U32", "S32", "U64"}), d, a, pick(0, 70), b));
        break;
      case 6:
        emit(fmt::format("SHR.{} {}, {}, {}", oneOf({"U32", "S32"}), d, a, b));
        break;
      case 7:
        emit(fmt::format("IMNMX {}, {}, {}, {}", d, a, b, predSrc()));
        break;
      default: {
        const std::string p = predDst();
        emit(fmt::format("ISETP.{}.{}.{} {}, PT, {}, {}, {}",
                         oneOf({"LT", "EQ", "LE", "GT", "NE", "GE"}), oneOf({"U32", "S32"}),
                         oneOf({"AND", "OR", "XOR"}), p, a, b, predSrc()));
        emit(fmt::format("SEL {}, {}, {}, {}", dstReg(), src(), src(), p));
      }
      }
      break;
    }
    case 1: // x+0, x-x
      if (chance(50))
        emit(fmt::format("IADD3 {}, {}, {}, {}", d, x, oneOf({"0x0", "RZ", "-RZ"}),
                         chance(50) ? "RZ" : src()));
      else
        emit(fmt::format("IADD3 {}, {}, -{}, {}", d, x, x, chance(50) ? "RZ" : src()));
      break;
    case 2: { // x*1, x*0 (.WIDE adds a 64-bit source: src64, never the 4-aligned c[0x0][0x21c])
      const bool wide = chance(20);
      emit(fmt::format("IMAD{} {}, {}, {}, {}", wide ? ".WIDE" : "", d, x,
                       oneOf({"0x1", "0x0", "RZ"}),
                       chance(40) ? "RZ"
                       : wide     ? src64()
                                  : src()));
      break;
    }
    case 3: { // LOP3 with a constant or repeated input
      const std::string k = oneOf({"RZ", "-0x1", "0xffffffff", "REP", "IMM"});
      if (k == "IMM")
        emit(fmt::format("MOV {}, {}", a, oneOf({"0x0", "0xffffffff"})));
      const std::string s = k == "REP" ? x : k == "IMM" ? a : k;
      emit(fmt::format("LOP3.LUT{} {}, {}, {}, {}, 0x{:x}", chance(20) ? ".64" : "", d, x, s,
                       chance(50) ? rOnly() : x, pick(0, 256)));
      break;
    }
    case 4: // shifts by 0 or past the width
      emit(fmt::format("{} {}, {}, 0x{:x}",
                       oneOf({"SHL", "SHR.U32", "SHR.S32", "SHL.64", "SHR.U64"}), d, x,
                       oneOf({0, 0, 32, 33, 64})));
      break;
    case 5: { // ISETP of x against itself, read by a SEL
      const std::string p = predDst();
      emit(fmt::format("ISETP.{}.{}.{} {}, PT, {}, {}, {}",
                       oneOf({"LT", "EQ", "LE", "GT", "NE", "GE"}), oneOf({"U32", "S32", "U64"}),
                       oneOf({"AND", "OR", "XOR"}), p, x, x, predSrc()));
      emit(fmt::format("SEL {}, {}, {}, {}", dstReg(), src(), src(), p));
      break;
    }
    case 6: { // PLOP3 with PT/!PT or repeated inputs, read by a SEL or a guard
      const std::string p = predDst(), q = pred();
      emit(fmt::format("PLOP3.LUT {}, PT, {}, {}, {}, 0x{:x}, 0x0", p, chance(50) ? predSrc() : q,
                       predSrc(), chance(50) ? q : "PT", pick(0, 256)));
      if (chance(50))
        emit(fmt::format("@{} MOV {}, {}", p, dstReg(), src()));
      else
        emit(fmt::format("SEL {}, {}, {}, {}", dstReg(), src(), src(), p));
      break;
    }
    default: // a constant moved into a register and added
      emit(fmt::format("MOV {}, {}", a, oneOf({"0x0", "0x1"})));
      emit(fmt::format("IMAD {}, {}, {}, {}", d, x, a, chance(50) ? rOrImm() : "RZ"));
      break;
    }
  }

  void statement() {
    --budget;
    if (opts.evaluatePercent && chance(opts.evaluatePercent))
      return evaluateFodder();
    if (opts.cleanupPercent && chance(opts.cleanupPercent))
      return cleanup();
    const bool nest = depth < opts.maxDepth && budget > 2;
    const int r = pick(0, 100);
    if (r < 2) { // an early exit, mostly guarded
      if (warpLevel && depth > 0)
        return arithmetic(); // keeps the warp reconverged at the top level
      emit(chance(80) || depth == 0 ? "@" + pred() + " EXIT" : "EXIT");
      return;
    }
    if (warpLevel && depth == 0 && r < 30)
      return chance(65) ? warpInstruction() : barrier();
    if (r < 6 && !loops.empty()) { // break or continue
      emit(fmt::format("@{} BRA {}", pred(), chance(50) ? loops.back().end : loops.back().latch));
      return;
    }
    if (r < 40 || (!nest && r < 70))
      return arithmetic();
    if (r < 58 || !nest)
      return memory();
    ++depth;
    if (r < 70)
      ifStatement();
    else if (r < 85 && loopDepth < opts.maxDepth)
      loop();
    else if (r < 95)
      switchStatement();
    else
      barrierRegion();
    --depth;
  }

  // Not scaled by the generation size: RapidCheck's small sizes would make
  // most kernels trivial; counts still shrink towards zero.
  void statements() {
    const int n =
        depth == 0 ? pick(1, opts.maxStatements + 1) : pick(0, opts.maxStatements / 2 + 2);
    for (int k = 0; k < n && budget > 0; ++k)
      statement();
  }
};

std::string kernelText(const KernelOptions &opts) {
  Gen g;
  g.opts = opts;
  g.budget = 6 * opts.maxStatements;
  g.warpLevel = opts.threadParts && chance(opts.warpLevelPercent);
  // Some data registers start defined; the others are read as undefined
  // until something writes them.
  g.emit("S2R R0, SR_TID.X");
  g.emit(opts.threadParts ? "LOP3.LUT R56, R0, 0x3f, RZ, 0xc0" : "MOV R56, RZ");
  g.emit(fmt::format("IMAD.WIDE.U32 R54, R56, 0x{:x}, {}", kBufferBytes, kBuf));
  for (int r = 1; r < kDataRegs; ++r)
    if (chance(50))
      g.emit(fmt::format("MOV R{}, {}", r, r % 3 == 0 ? kA : r % 3 == 1 ? kB : g.imm()));
  for (int p = 0; p < kDataPreds; ++p)
    if (chance(50))
      g.compare(fmt::format("P{}", p).c_str());
  g.statements();
  // Make the data observable: the first words of the thread's part = a few registers.
  for (int k = 0, n = pick(1, 4); k < n; ++k)
    g.emit(fmt::format("STG.E [R54+0x{:x}], {}", 4 * k, g.srcReg()));
  g.emit("EXIT");
  return ".entry kernel(.u64 buf, .u32 a, .u32 b)\n{\n" + g.tables + g.body + "}\n";
}

} // namespace

uint32_t launchThreads(uint32_t draw, uint32_t few) {
  draw %= 100;
  if (draw < 50)
    return few; // a few lanes of one warp
  if (draw < 70)
    return 32; // a whole warp
  if (draw < 85)
    return 33 + draw % 31; // a warp and part of another
  return 64;               // two warps
}

rc::Gen<Module> kernelModule(KernelOptions opts) {
  return rc::gen::exec([opts] {
    std::string text = kernelText(opts);
    ParseResult r = parseOri(text, "kernel.ori");
    if (!r.module)
      throw std::logic_error("kernel_gen made bad .ori: " + r.error->str() + "\n" + text);
    return std::move(*r.module);
  });
}

rc::Gen<Function> kernel(KernelOptions opts) {
  return rc::gen::map(kernelModule(opts), [](Module m) { return std::move(m.functions.at(0)); });
}

rc::Gen<RunConfig> kernelInputs(KernelOptions opts) {
  return rc::gen::exec([opts] {
    RunConfig cfg;
    cfg.threads = launchThreads(pick(0, 100), uint32_t(pick(1, opts.maxThreads + 1)));
    cfg.maxSteps = kMaxSteps;
    cfg.params["a"] = *rc::gen::arbitrary<uint32_t>();
    cfg.params["b"] = *rc::gen::arbitrary<uint32_t>();
    cfg.buffers["buf"] = *rc::gen::container<std::vector<uint8_t>>(kLaunchBufferBytes,
                                                                   rc::gen::arbitrary<uint8_t>());
    return cfg;
  });
}

rc::Gen<Function> cfgWithRegisters(CfgOptions opts) {
  return rc::gen::exec([opts] {
    Function f = *cfgFunction(opts);
    auto reg = [](RegFile file, int n) { return Operand::reg_(Reg{file, uint32_t(pick(0, n))}); };
    auto traffic = [&] {
      Instr in;
      switch (pick(0, 6)) {
      case 0:
        in.op = Opcode::MOV;
        in.dsts = {chance(25) ? reg(RegFile::UR, 2) : reg(RegFile::R, 4)};
        in.srcs = {chance(25) ? reg(RegFile::UR, 2) : reg(RegFile::R, 4)};
        break;
      case 1:
      case 2:
        in.op = Opcode::IADD3;
        in.dsts = {reg(RegFile::R, 4)};
        in.srcs = {reg(RegFile::R, 4), reg(RegFile::R, 4), Operand::reg_(RZ)};
        break;
      case 3:
        in.op = Opcode::ISETP;
        in.mods.set(Mod::LT);
        in.dsts = {reg(RegFile::P, 3), Operand::reg_(PT)};
        in.srcs = {reg(RegFile::R, 4), reg(RegFile::R, 4), reg(RegFile::P, 3)};
        break;
      case 4:
        in.op = Opcode::PLOP3;
        in.dsts = {reg(RegFile::P, 3), reg(RegFile::P, 3)};
        in.srcs = {reg(RegFile::P, 3), reg(RegFile::P, 3), Operand::reg_(PT),
                   Operand::immediate(pick(0, 256)), Operand::immediate(pick(0, 256))};
        break;
      default:
        in.op = Opcode::OPAQUE;
        in.opaqueText = "TRAFFIC";
        for (int k = pick(0, 3); k > 0; --k)
          in.dsts.push_back(reg(RegFile(pick(0, kNumRegFiles)), 2));
        for (int k = pick(0, 3); k > 0; --k)
          in.srcs.push_back(reg(RegFile(pick(0, kNumRegFiles)), 2));
        break;
      }
      if (chance(33))
        in.guard = Operand::reg_(Reg{RegFile::P, uint32_t(pick(0, 3))}, chance(50));
      return in;
    };
    for (Block &b : f.blocks) {
      for (Instr &in : b.instrs)
        if (in.op == Opcode::NOP)
          in = traffic();
      for (int k = pick(0, 3); k > 0; --k)
        b.instrs.insert(b.instrs.begin(), traffic());
    }
    f.recountRegs();
    return f;
  });
}

} // namespace ori::gen

namespace ori {
void showValue(const RunConfig &cfg, std::ostream &os) {
  os << fmt::format("--threads {} --max-steps {}", formatDim3(cfg.threads), cfg.maxSteps);
  for (const auto &[name, value] : cfg.params)
    os << fmt::format(" --param {}={:#x}", name, value);
  for (const auto &[name, bytes] : cfg.buffers)
    os << fmt::format(" --buffer {}=@FILE ({} bytes: {:02x})", name, bytes.size(),
                      fmt::join(bytes, ""));
}
} // namespace ori
