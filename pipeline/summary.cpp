// oriopt --summary (pipeline/summary.h).
#include "pipeline/summary.h"

#include <fmt/format.h>

#include <map>

#include "ir/ori.h"

namespace ori {

std::string summarizeModule(const Module &m, const std::string &file) {
  size_t total = 0, opaque = 0;
  for (const Function &f : m.functions)
    for (const Block &b : f.blocks)
      for (const Instr &in : b.instrs) {
        ++total;
        opaque += in.op == Opcode::OPAQUE;
      }
  std::string out =
      fmt::format("{}: {} function{}, {} instructions, {} OPAQUE ({:.1f}% native)\n", file,
                  m.functions.size(), m.functions.size() == 1 ? "" : "s", total, opaque,
                  total ? 100.0 * double(total - opaque) / double(total) : 100.0);
  for (const Function &f : m.functions) {
    if (f.isDeclaration()) {
      out += fmt::format(".func {}: declaration\n", f.name);
      continue;
    }
    out += fmt::format("{} {}: {} blocks, {} instructions\n", f.isEntry ? ".entry" : ".func",
                       f.name, f.blocks.size(), f.instrCount());
    for (const Param &p : f.params)
      out += fmt::format("  param .{} {}{} at {}\n", p.type, p.name,
                         p.count ? fmt::format("[{}]", p.count) : "",
                         f.isEntry ? fmt::format("c[0x0][0x{:x}]", p.offset)
                                   : fmt::format("param+0x{:x}", p.offset));
    std::string regs;
    for (int file = 0; file < kNumRegFiles; ++file)
      if (f.nextReg[file])
        regs += fmt::format(" {}0-{}{}", regFilePrefix(RegFile(file)), regFilePrefix(RegFile(file)),
                            f.nextReg[file] - 1);
    out += fmt::format("  registers:{}\n", regs.empty() ? " none" : regs);
    std::map<std::string_view, int> histogram;
    for (size_t b = 0; b < f.blocks.size(); ++b) {
      const Block &blk = f.blocks[b];
      out += fmt::format("  bix{} (L{:x}){}: {} instructions", b, blk.labelId,
                         blk.label.empty() ? "" : " " + blk.label, blk.instrs.size());
      if (!blk.instrs.empty())
        out += ", ends with " + printInstr(f, blk.instrs.back());
      out += "\n";
      for (const Instr &in : blk.instrs)
        ++histogram[in.info().name];
    }
    out += "  opcodes:";
    for (auto [name, n] : histogram)
      out += fmt::format(" {} {}", name, n);
    out += "\n";
  }
  return out;
}

} // namespace ori
