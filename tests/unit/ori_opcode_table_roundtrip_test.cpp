// The .ori round-trip guarantee (docs/ori-format.md, "Round trip") on inputs generated from
// the opcode table: every modifier of every opcode and every operand kind of every slot print
// in canonical form and read back equal; the shapes that modifiers decide (surface, memory,
// matrix, barrier instructions); and docs/ori-format.md's opcode table against the table.
// Files and hand-written texts: ori_roundtrip_test.cpp.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ir/mma.h"
#include "ir/ori.h"
#include "ir/verify.h"
#include "ori_roundtrip_helpers.h"

namespace ori {
namespace {

namespace fs = std::filesystem;
using namespace roundtrip_test;

// ---------------------------------------------------------------------------
// Every modifier of every opcode, and every operand kind of every slot,
// generated from the opcode table.

// A representative operand text of one kind.
std::string sample(uint16_t kind, bool isDst) {
  switch (kind) {
  case K_REG:
    return isDst ? "R1" : "R2";
  case K_PRED:
    return isDst ? "P1" : "!P2";
  case K_BAR:
    return "B1";
  case K_IMM:
    return "0x1";
  case K_FIMM:
    return "1.5";
  case K_CBANK:
    return "c[0x0][0x10]";
  case K_SREG:
    return "SR_CTAID.Y";
  case K_MEM:
    return "[R4+0x8]";
  case K_LABEL:
    return "L1";
  case K_JTAB:
    return "tab";
  case K_SYM:
    return "callee";
  }
  return "?";
}

uint16_t firstKind(uint16_t kinds) {
  for (uint16_t bit = 1; bit; bit = uint16_t(bit << 1))
    if (kinds & bit)
      return bit;
  return 0;
}

// "OP.MODS a, b, c" with the first accepted kind in every slot except
// `slot` (an index over dests then sources), which gets `kind`.
std::string instrText(const OpInfo &info, const std::string &mods, size_t slot, uint16_t kind,
                      bool withOptional) {
  std::string out = std::string(info.name) + mods;
  size_t k = 0;
  bool first = true;
  for (int pass = 0; pass < 2; ++pass) {
    const auto &slots = pass == 0 ? info.dsts : info.srcs;
    for (const OperandSlot &s : slots) {
      if (s.optional && !withOptional) {
        ++k;
        continue;
      }
      out += first ? " " : ", ";
      first = false;
      out += sample(k == slot ? kind : firstKind(s.kinds), pass == 0);
      ++k;
    }
  }
  return out;
}

bool isSurfaceOp(Opcode op) {
  return op == Opcode::SULD || op == Opcode::SUST || op == Opcode::TEX;
}
// Opcodes whose operands or required modifiers their modifiers decide (checkShape): tested in
// MatrixShapesRoundTrip below.
bool isMatrixOp(Opcode op) {
  return isMma(op) || op == Opcode::LDSM || op == Opcode::STSM || op == Opcode::MOVM ||
         op == Opcode::SETMAXREG;
}
// Loads, stores and atomics whose operand counts their modifiers decide (.HINT, .CAS, .128:
// checkShape, ir/ori_shape.cpp): MemoryShapesRoundTrip below.
bool isMemoryShapeOp(Opcode op) {
  return isAtomic(op) || op == Opcode::LD || op == Opcode::LDG || op == Opcode::ST ||
         op == Opcode::STG;
}

std::string wrap(const std::string &instr) {
  return ".entry f()\n{\n  .jumptable tab = {L1}\n  " + instr +
         "\nL1:\n  EXIT\n}\n.func callee();\n";
}

TEST(OriRoundTripTable, EveryModifierOfEveryOpcode) {
  size_t checked = 0;
  for (int o = 0; o < kNumOpcodes; ++o) {
    const OpInfo &info = opInfo(Opcode(o));
    // OPAQUE has no modifiers; BAR's shape depends on them (BarShapesRoundTrip below), and so
    // does that of SULD, SUST and TEX (SurfaceShapesRoundTrip).
    if (info.op == Opcode::OPAQUE || info.op == Opcode::BAR || isSurfaceOp(info.op) ||
        isMatrixOp(info.op) || isMemoryShapeOp(info.op))
      continue;
    for (Mod m : info.allowedMods.list()) {
      std::string mods = "." + std::string(modText(m));
      // CALL's optional lists have a syntax of their own (tested above).
      std::string instr = instrText(info, mods, SIZE_MAX, 0, info.op != Opcode::CALL);
      SCOPED_TRACE(instr);
      ParseResult r = parseOri(wrap(instr), "mods.ori");
      ASSERT_TRUE(r.module) << r.error->str();
      const Function &f = r.module->functions[0];
      const Instr &in = f.blocks[0].instrs[0];
      EXPECT_EQ(in.op, info.op);
      ModSet expected;
      expected.set(m);
      EXPECT_TRUE(in.mods == expected);
      EXPECT_EQ(printInstr(f, in), instr);
      checkRoundTrip(wrap(instr), "mods.ori");
      ++checked;
    }
  }
  EXPECT_GT(checked, 150u);
}

// Within one opcode, two allowed modifiers are spelled the same only in different groups,
// the earlier group's first in print order (IMMA's A and B types: IMMA.16832.S8.U8); the
// parser gives a spelling the first of its modifiers whose group is still free, so what
// prints reads back (MatrixShapesRoundTrip). checkShape never lets the later group stand
// without the earlier one.
// SULD, SUST and TEX in the shapes their modifiers give (checkShape, ir/ori.h), every modifier
// of theirs at least once, each kind their slots take.
TEST(OriRoundTripTable, SurfaceShapesRoundTrip) {
  const char *forms[] = {
      "SULD.1D.TRAP R1, R2, R3",
      "SULD.U8.2D.CLAMP R1, R2, R3, 0x4",
      "SULD.U16.3D.V2.ZERO R1, R5, R2, 0x1, R3, R4",
      "SULD.U16.2D.V4.TRAP R1, R5, R6, R7, R2, R3, R4",
      "SUST.1D.TRAP R2, R3, R4",
      "SUST.64.3D.V2.CLAMP R2, 0x10, R3, R4, R5, R6",
      "SUST.2D.V4.ZERO R2, R3, R4, R5, R6, R7, 0x1",
      "TEX.F32.1D R1, R5, R6, R7, R2, 1.5",
      "TEX.U32.2D.ICOORD R1, R5, R6, R7, R2, R3, 0x2",
      "TEX.S32.3D.LOD R1, R5, R6, R7, R2, R3, R4, R8, 0.5",
      "TEX.2D.GRAD R1, R5, R6, R7, R2, R3, R4, R8, R9, R10, R11",
  };
  for (const char *instr : forms) {
    SCOPED_TRACE(instr);
    ParseResult r = parseOri(wrap(instr), "surf.ori");
    ASSERT_TRUE(r.module) << r.error->str();
    const Function &f = r.module->functions[0];
    EXPECT_EQ(printInstr(f, f.blocks[0].instrs[0]), instr);
    checkRoundTrip(wrap(instr), "surf.ori");
  }
}

// Loads, stores and atomics: every modifier of theirs in the shape it gives (a cache policy
// last with .HINT; CAS's second value; .128's two halves per value and two results, with .CAS
// or .EXCH; .U16 with .CAS), and the operand kinds their value slots take.
TEST(OriRoundTripTable, MemoryShapesRoundTrip) {
  size_t checked = 0;
  for (Opcode op : {Opcode::LD, Opcode::LDG, Opcode::ST, Opcode::STG, Opcode::ATOM, Opcode::ATOMG,
                    Opcode::ATOMS, Opcode::RED, Opcode::REDG}) {
    const OpInfo &info = opInfo(op);
    for (Mod m : info.allowedMods.list()) {
      ModSet mods;
      mods.set(m);
      if ((m == Mod::W128 || m == Mod::U16) && isAtomic(op))
        mods.set(op == Opcode::RED || op == Opcode::REDG ? Mod::ADD : Mod::CAS);
      std::string text = std::string(info.name);
      for (Mod k : mods.list())
        text += "." + std::string(modText(k));
      const bool cas = mods.test(Mod::CAS), wide = mods.test(Mod::W128);
      if (wide && (op == Opcode::RED || op == Opcode::REDG))
        continue; // no RED.128
      std::string ops;
      for (size_t d = 0; d < dstCount(op, mods); ++d)
        ops += d ? ", R1" : " R0";
      ops += ops.empty() ? " [R4+0x8]" : ", [R4+0x8]";
      const bool load = op == Opcode::LD || op == Opcode::LDG;
      const size_t values = load ? 0 : !isAtomic(op) ? 1 : (wide ? 2 : 1) * (cas ? 2 : 1);
      for (size_t k = 0; k < values; ++k)
        ops += k == 1 ? ", 0x1" : fmt::format(", R{}", 10 + k); // an immediate too
      if (m == Mod::HINT)
        ops += ", R20";
      const std::string instr = text + ops;
      SCOPED_TRACE(instr);
      ParseResult r = parseOri(wrap(instr), "mem.ori");
      ASSERT_TRUE(r.module) << r.error->str();
      const Function &f = r.module->functions[0];
      EXPECT_TRUE(f.blocks[0].instrs[0].mods == mods);
      EXPECT_EQ(printInstr(f, f.blocks[0].instrs[0]), instr);
      checkRoundTrip(wrap(instr), "mem.ori");
      ++checked;
    }
  }
  EXPECT_GT(checked, 200u);
  // Shapes the modifiers rule out are errors that say which shape they want.
  for (const char *bad :
       {"LD.E R1, [R4+0x8], R2", "ST.E [R4+0x8], R2, R3", "ATOM.E.ADD R1, [R4], R2, R3",
        "ATOM.E.CAS.HINT R1, [R4], R2, R3, R5", "ATOM.E.ADD.128 R1, R2, [R4], R5, R6",
        "ATOM.E.EXCH.128 R1, R2, [R4], R5", "RED.E.ADD.U16 [R4], R2"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(parseOri(wrap(bad), "bad.ori").module);
  }
}

TEST(OriRoundTripTable, ModifierSpellingsAreUnambiguousPerOpcode) {
  for (int o = 0; o < kNumOpcodes; ++o) {
    const OpInfo &info = opInfo(Opcode(o));
    std::map<std::string_view, ModGroup> seen;
    for (Mod m : info.allowedMods.list()) {
      auto [it, fresh] = seen.emplace(modText(m), modGroup(m));
      if (fresh)
        continue;
      EXPECT_NE(it->second, modGroup(m)) << info.name << " ." << modText(m);
      EXPECT_TRUE(info.op == Opcode::IMMA || info.op == Opcode::HMMA)
          << info.name << " ." << modText(m);
    }
  }
}

TEST(OriRoundTripTable, EveryKindOfEverySlot) {
  size_t checked = 0;
  for (int o = 0; o < kNumOpcodes; ++o) {
    const OpInfo &info = opInfo(Opcode(o));
    if (info.op == Opcode::OPAQUE || info.op == Opcode::CALL)
      continue; // own syntax, tested above
    if (info.op == Opcode::BAR || isSurfaceOp(info.op) || isMatrixOp(info.op) ||
        isMemoryShapeOp(info.op))
      continue; // shape by modifiers: below
    size_t nslots = info.dsts.size() + info.srcs.size();
    for (size_t slot = 0; slot < nslots; ++slot) {
      bool isDst = slot < info.dsts.size();
      const OperandSlot &s = isDst ? info.dsts[slot] : info.srcs[slot - info.dsts.size()];
      for (uint16_t bit = 1; bit; bit = uint16_t(bit << 1)) {
        if (!(s.kinds & bit))
          continue;
        std::string instr = instrText(info, "", slot, bit, true);
        SCOPED_TRACE(instr);
        ParseResult r = parseOri(wrap(instr), "kinds.ori");
        ASSERT_TRUE(r.module) << r.error->str();
        const Function &f = r.module->functions[0];
        const Instr &in = f.blocks[0].instrs[0];
        const Operand &got = isDst ? in.dsts[slot] : in.srcs[slot - info.dsts.size()];
        EXPECT_EQ(got.kindBit(), bit);
        EXPECT_EQ(printInstr(f, in), instr);
        checkRoundTrip(wrap(instr), "kinds.ori");
        ++checked;
      }
      // A kind the slot does not accept is rejected.
      for (uint16_t bit : {uint16_t(K_IMM), uint16_t(K_MEM), uint16_t(K_SREG)}) {
        if (s.kinds & bit)
          continue;
        std::string instr = instrText(info, "", slot, bit, true);
        ParseResult r = parseOri(wrap(instr), "kinds.ori");
        EXPECT_TRUE(r.error) << instr;
      }
    }
    // Optional slots may be left out.
    std::string shortest = instrText(info, "", SIZE_MAX, 0, false);
    SCOPED_TRACE(shortest);
    checkRoundTrip(wrap(shortest), "kinds.ori");
  }
  EXPECT_GT(checked, 100u);
}

// The matrix instructions in the shapes their modifiers give (ir/mma.h, checkShape): every MMA
// form with as many registers as it has, the LDSM/STSM/MOVM/SETMAXREG forms; wrong counts and
// modifier sets that name no form are errors.
TEST(OriRoundTripTable, MatrixShapesRoundTrip) {
  std::vector<std::string> good;
  for (Opcode op : {Opcode::HMMA, Opcode::IMMA, Opcode::DMMA, Opcode::BMMA})
    for (const ModSet &mods : mmaForms(op)) {
      const MmaForm f = std::get<MmaForm>(mmaForm(op, mods));
      std::string text(opInfo(op).name);
      for (Mod m : mods.list())
        text += "." + std::string(modText(m));
      const unsigned n = f.dRegs + f.aRegs + f.bRegs + f.cRegs;
      for (unsigned k = 0; k < n; ++k)
        text += fmt::format("{}R{}", k ? ", " : " ", k + 1);
      good.push_back(text);
    }
  // HMMA 34 (m8n8k4 10, m16n8k4 1, m16n8k8 4, m16n8k16 11, m16n8k32 8), IMMA 48, DMMA 20, BMMA 6
  EXPECT_EQ(good.size(), 108u);
  good.insert(good.end(), {"LDSM.M88 R1, [R5]", "LDSM.MT88.2 R1, R2, [R5+0x10]",
                           "LDSM.M88.4 R1, R2, R3, R4, [sv+0x20]", "STSM.MT88 [R5], R1",
                           "STSM.M88.4 [R5+0x30], R1, R2, R3, RZ", "MOVM.MT88 R1, R2",
                           "ELECT R1, P1, R2", "ELECT RZ, PT, 0xffffffff", "ACQBULK", "PREEXIT",
                           "SETMAXREG.INC 0x40", "SETMAXREG.DEC 0x18"});
  std::set<Mod> seen;
  for (const std::string &instr : good) {
    SCOPED_TRACE(instr);
    const std::string text = ".entry f()\n{\n  .shared .b8 sv[64]\n  " + instr + "\n  EXIT\n}\n";
    ParseResult r = parseOri(text, "mma.ori");
    ASSERT_TRUE(r.module) << r.error->str();
    const Function &f = r.module->functions[0];
    EXPECT_EQ(printInstr(f, f.blocks[0].instrs[0]), instr);
    EXPECT_EQ(verifyFunction(f), std::vector<std::string>{});
    for (Mod m : f.blocks[0].instrs[0].mods.list())
      seen.insert(m);
    checkRoundTrip(text, "mma.ori");
  }
  for (Opcode op : {Opcode::HMMA, Opcode::IMMA, Opcode::DMMA, Opcode::BMMA, Opcode::LDSM,
                    Opcode::MOVM, Opcode::SETMAXREG})
    for (Mod m : opInfo(op).allowedMods.list())
      EXPECT_TRUE(seen.count(m)) << opInfo(op).name << " ." << modText(m);
  const char *bad[] = {
      "HMMA.16816.F32 R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13", // one source short
      "HMMA.16816 R1, R2, R3, R4, R5, R6, R7, R8, R9, R10", // no accumulator type
      "HMMA.16816.F32.CF16 R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13, R14", // .CF16
                                                                                         // off
                                                                                         // m8n8k4
      "HMMA.1684.F16.TF32 R1, R2, R3, R4, R5, R6, R7, R8",                // tf32 into f16
      "HMMA.16816.F32.E4M3 R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11", // FP8 A without B's type
      "HMMA.16816.F32.ACOL R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13, R14", // layouts:
                                                                                         // m8n8k4
                                                                                         // only
      "IMMA.16832.S8 R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13, R14", // no B type
      "IMMA.8816.S4.S4 R1, R2, R3, R4, R5, R6", // 4-bit on an 8-bit shape
      "IMMA.16832.S8.U8.U8 R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13, R14", // three
                                                                                         // types
      "DMMA.8832 R1, R2, R3, R4, R5, R6",  // not a DMMA shape
      "BMMA.88128 R1, R2, R3, R4, R5, R6", // no operation
      "LDSM.M88.4 R1, R2, [R5]",           // two of four
      "LDSM.4 R1, R2, R3, R4, [R5]",       // no .M88/.MT88
      "STSM.M88.2 [R5], R1",
      "MOVM R1, R2",
      "SETMAXREG 0x40",
  };
  for (const char *instr : bad)
    EXPECT_TRUE(parseOri(wrap(instr), "mma.ori").error) << instr;
}

// BAR's destination and predicate depend on its modifiers (ori::dstCount, ori::checkShape):
// every form, every modifier and every operand kind it takes round-trips; the shapes
// checkShape rejects are errors (ori_errors_test.cpp has their messages).
TEST(OriRoundTripTable, BarShapesRoundTrip) {
  const char *good[] = {
      "BAR 0x0",
      "BAR.SYNC 0x0",
      "BAR.SYNC R2",
      "BAR.SYNC 0xf, 0x40",
      "BAR.SYNC R2, R3",
      "BAR.ARV 0x1, 0x20",
      "BAR.ARV R2, R3",
      "BAR.RED.POPC R1, 0x0, P2",
      "BAR.RED.POPC RZ, R2, 0x40, !P2",
      "BAR.RED.AND P1, 0x1, PT",
      "BAR.RED.OR PT, R2, R3, !P2",
      "BAR.RED.OR UP1, 0x1, UP2",
  };
  for (const char *instr : good) {
    SCOPED_TRACE(instr);
    ParseResult r = parseOri(wrap(instr), "bar.ori");
    ASSERT_TRUE(r.module) << r.error->str();
    const Function &f = r.module->functions[0];
    const Instr &in = f.blocks[0].instrs[0];
    EXPECT_EQ(in.dsts.size(), dstCount(Opcode::BAR, in.mods));
    EXPECT_EQ(in.dsts.size(), in.has(Mod::RED) ? 1u : 0u);
    EXPECT_EQ(printInstr(f, in), instr);
    EXPECT_EQ(verifyFunction(f), std::vector<std::string>{});
    checkRoundTrip(wrap(instr), "bar.ori");
  }
  const char *bad[] = {
      "BAR.RED 0x0, P1",              // no operation
      "BAR.RED.POPC P1, 0x0, P2",     // a count into a predicate
      "BAR.RED.AND R1, 0x0, P2",      // a predicate into a register
      "BAR.RED.POPC R1, 0x0",         // no predicate
      "BAR.RED.POPC R1, 0x0, P1, P2", // the predicate not last
      "BAR.RED.POPC R1, 0x0, 0x40, 0x1",
      "BAR.SYNC 0x0, P1",            // a predicate without .RED
      "BAR.SYNC.AND 0x0",            // an operation without .RED
      "BAR.ARV.RED.AND P1, 0x0, P2", // .ARV and .RED exclude each other
      "BAR.RED.POPC",
  };
  for (const char *instr : bad)
    EXPECT_TRUE(parseOri(wrap(instr), "bar.ori").error) << instr;
  // verifyFunction holds the same rules for modules built in memory.
  Module m = *parseOri(wrap("BAR.RED.POPC R1, 0x0, P2"), "bar.ori").module;
  Instr &in = m.functions[0].blocks[0].instrs[0];
  in.mods.reset(Mod::RED);
  in.mods.set(Mod::SYNC);
  EXPECT_FALSE(verifyFunction(m.functions[0]).empty());
}

} // namespace
} // namespace ori
