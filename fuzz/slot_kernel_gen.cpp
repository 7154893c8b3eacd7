// The slot-kernel generator (fuzz/slot_kernel_gen.h): .ori text built choice by choice in
// rc::gen::exec (so RapidCheck shrinks a failing kernel), then parsed.
#include "fuzz/slot_kernel_gen.h"

#include <fmt/format.h>

#include <string>

#include "ir/ori.h"

namespace ori::gen {
namespace {

int pick(int lo, int hi) { // [lo, hi), not scaled by the generation size
  if (hi - lo <= 1)
    return lo;
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(lo, hi));
}

// Registers: R10..R15 32-bit values, R20..R21 64-bit values, R30 frame's window offset,
// R31 SR_LWINBASE, R32 frame's generic address, R42 the thread's part of buf, R43/R44 a and
// b, R50 + depth loop counters, R45..R47 scratch. P0 conditions, P1 + depth loop predicates.
class Builder {
public:
  explicit Builder(const SlotKernelOptions &o) : opt(o) {}

  std::string build() {
    keepInMemory = pick(0, 100) < opt.keepInMemoryPercent;
    hot = pick(0, 100) < opt.hotSlotPercent;
    out += ".entry slots(.u64 buf, .u32 a, .u32 b)\n{\n";
    out += "  .local .align 8 .b8 frame[32]\n  .local .align 4 .b8 other[8]\n";
    line("S2R R40, SR_TID.X");
    line("LOP3 R41, R40, 0x3f, RZ, 0xc0");
    line("IMAD.WIDE.U32 R42, R41, 0x100, c[0x0][0x210]");
    line("LDC R43, c[0x0][0x218]");
    line("LDC R44, c[0x0][0x21c]");
    line("MOV.64 R30, frame");
    line("S2R R31, SR_LWINBASE");
    line("IADD3.64 R32, R30, R31, RZ");
    for (int v = 0; v < 6; ++v)
      line(fmt::format("IADD3 R{}, R{}, R40, {:#x}", 10 + v, 43 + v % 2, v * 7));
    line("IMAD.WIDE.U32 R20, R43, 0x3, RZ");
    line("IMAD.WIDE.U32 R21, R44, R40, RZ");
    line("ISETP.GT.U32.AND P0, PT, R43, R44, PT");
    if (hot)
      line("ST [R32], R10"); // frame[0] stored first: its loads are initialized
    statements(0);
    for (int v = 0; v < 6; ++v)
      line(fmt::format("ST [R42+{:#x}], R{}", 4 * v, 10 + v));
    line("ST.64 [R42+0x20], R20");
    line("ST.64 [R42+0x28], R21");
    line("EXIT");
    out += "}\n";
    return out;
  }

private:
  const SlotKernelOptions &opt;
  std::string out;
  bool keepInMemory = false;
  bool hot = false;
  int labels = 0;

  void line(const std::string &s) { out += "  " + s + "\n"; }
  std::string v32() { return fmt::format("R{}", 10 + pick(0, 6)); }
  std::string v64() { return fmt::format("R{}", 20 + pick(0, 2)); }
  std::string guard() {
    const int g = pick(0, 10);
    return g == 0 ? "@P0 " : g == 1 ? "@!P0 " : "";
  }
  // An address of frame for an access of `bytes` (mostly aligned to it, now and then not to 8).
  std::string frameAddress(int bytes, bool window) {
    const int off = bytes == 8 && pick(0, 8) != 0 ? 8 * pick(0, 4) : 4 * pick(0, 8);
    if (window)
      return pick(0, 2) ? fmt::format("[frame+{:#x}]", off) : fmt::format("[R30+{:#x}]", off);
    return fmt::format("[R32+{:#x}]", off);
  }

  void access() {
    if (hot && pick(0, 4) != 0)
      return line(fmt::format("LD {}, [R32]", v32()));
    const bool load = pick(0, 2);
    const bool wide = pick(0, 4) == 0;
    const int where = pick(0, 6); // 0..2 frame generic, 3..4 frame window, 5 other
    std::string addr, op;
    if (where <= 2)
      addr = frameAddress(wide ? 8 : 4, false), op = load ? "LD" : "ST";
    else if (where <= 4)
      addr = frameAddress(wide ? 8 : 4, true), op = load ? "LDL" : "STL";
    else
      addr = fmt::format("[other+{:#x}]", wide ? 0 : 4 * pick(0, 2)), op = load ? "LDL" : "STL";
    const std::string w = wide ? ".64" : "";
    const std::string r = wide ? v64() : v32();
    if (load)
      line(fmt::format("{}{}{} {}, {}", guard(), op, w, r, addr));
    else
      line(fmt::format("{}{}{} {}, {}", guard(), op, w, addr, r));
  }

  void statement(int depth) {
    if (hot && pick(0, 2) == 0)
      return line(fmt::format("LD {}, [R32]", v32()));
    const int k = pick(0, 100);
    if (k < 40)
      return access();
    if (k < 55)
      return line(
          fmt::format("{}IADD3 {}, {}, {}, {:#x}", guard(), v32(), v32(), v32(), pick(0, 16)));
    if (k < 60)
      return line(fmt::format("IADD3.64 {}, {}, {}, RZ", v64(), v64(), v64()));
    if (k < 66)
      return line(fmt::format("ISETP.{}.U32.AND P0, PT, {}, {}, PT", pick(0, 2) ? "GT" : "EQ",
                              v32(), v32()));
    if (k < 72)
      return line(fmt::format("ST [R42+{:#x}], {}", 0x40 + 4 * pick(0, 16), v32())); // not frame
    if (k < 84 && keepInMemory) {
      switch (pick(0, 3)) {
      case 0:
        return line("ST.64 [R42+0x80], R32"); // frame's address escapes
      case 1:
        line(fmt::format("LOP3 R45, {}, 0x1c, RZ, 0xc0", v32()));
        line("IMAD.WIDE.U32 R46, R45, 0x1, R32");
        return line(fmt::format("LD {}, [R46]", v32())); // a computed index
      default:
        return line(fmt::format("ST.U8 [R32+{:#x}], {}", pick(0, 32), v32()));
      }
    }
    if (k < 90 && depth < opt.maxDepth) { // if
      const int l = labels++;
      line(fmt::format("@{}P0 BRA L{}", pick(0, 2) ? "" : "!", l));
      statements(depth + 1);
      out += fmt::format("L{}:\n", l);
      return;
    }
    if (depth < opt.maxDepth) { // a loop of 1..3 trips
      const int l = labels++;
      const std::string c = fmt::format("R{}", 50 + depth), p = fmt::format("P{}", 1 + depth);
      line(fmt::format("MOV {}, RZ", c));
      out += fmt::format("L{}:\n", l);
      statements(depth + 1);
      line(fmt::format("IADD3 {}, {}, 0x1, RZ", c, c));
      line(fmt::format("ISETP.LT.U32.AND {}, PT, {}, {:#x}, PT", p, c, pick(1, 4)));
      line(fmt::format("@{} BRA L{}", p, l));
      return;
    }
    access();
  }

  void statements(int depth) {
    const int n = pick(1, opt.maxStatements + 1);
    for (int i = 0; i < n; ++i)
      statement(depth);
  }
};

} // namespace

rc::Gen<Function> slotKernel(SlotKernelOptions opts) {
  return rc::gen::exec([opts] {
    const std::string text = Builder(opts).build();
    ParseResult r = parseOri(text, "slots.ori");
    if (!r.module)
      throw std::runtime_error("slot kernel does not parse: " + r.error->str() + "\n" + text);
    return std::move(r.module->functions.at(0));
  });
}

} // namespace ori::gen
