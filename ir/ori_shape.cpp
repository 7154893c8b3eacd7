// The shape checks of instructions the .ori reader (and the PTX lowering) makes: which
// immediates fit, and the operand shapes the opcode table cannot say (ir/ori.h).
#include <fmt/format.h>

#include <cstdint>

#include "ir/ori.h"

namespace ori {

unsigned immediateBits(const Instr& in, size_t k) {
  if ((in.op == Opcode::LOP3 && k == 3) || (in.op == Opcode::PLOP3 && k >= 3)) return 8;
  bool wide = in.has(Mod::W64) || in.has(Mod::U64) || in.has(Mod::S64) ||
              (in.op == Opcode::IMAD && in.has(Mod::WIDE) && k == 2) || in.op == Opcode::I2F;
  return wide ? 64 : 32;
}

bool immediateFits(const Instr& in, size_t k, int64_t v) {
  const unsigned bits = immediateBits(in, k);
  return bits == 64 || (bits == 8 ? v >= 0 && v <= 0xFF : v >= INT32_MIN && v <= int64_t(UINT32_MAX));
}

std::optional<ShapeProblem> checkShape(const Instr& in) {
  auto isPred = [](const Operand& o) { return o.kind == Operand::Kind::Reg && o.reg.isPredicate(); };
  if (in.op == Opcode::REDUX) {
    if (auto op = in.mods.inGroup(ModGroup::AtomOp); op && in.has(Mod::SUM))
      return ShapeProblem{SIZE_MAX, fmt::format("REDUX takes one operation, not both .SUM and .{}", modText(*op))};
    std::optional<Mod> op = in.has(Mod::SUM) ? Mod::SUM : in.mods.inGroup(ModGroup::AtomOp);
    if (in.has(Mod::S32) && op && *op != Mod::MIN && *op != Mod::MAX)
      return ShapeProblem{SIZE_MAX, "REDUX takes .S32 only with .MIN or .MAX (the other operations do not depend on it)"};
    return std::nullopt;
  }
  if (in.op == Opcode::TEX) {
    const unsigned dims = surfaceDims(in.mods);
    if (dims == 0) return ShapeProblem{SIZE_MAX, "TEX needs .1D, .2D or .3D"};
    if (in.has(Mod::F32) && in.mods.inGroup(ModGroup::Type))
      return ShapeProblem{SIZE_MAX, "TEX takes one result type: .F32, .U32 or .S32"};
    if (in.has(Mod::GRAD) && dims == 3) return ShapeProblem{SIZE_MAX, "TEX.GRAD takes 1D or 2D coordinates"};
    const size_t want = 1 + dims + (in.has(Mod::LOD) ? 1 : 0) + (in.has(Mod::GRAD) ? 2 * dims : 0);
    if (in.srcs.size() != want)
      return ShapeProblem{SIZE_MAX, fmt::format("TEX.{}D{} takes {} sources (a handle, {} coordinate{}{})", dims,
                                                in.has(Mod::LOD) ? ".LOD" : in.has(Mod::GRAD) ? ".GRAD" : "", want, dims,
                                                dims > 1 ? "s" : "",
                                                in.has(Mod::LOD) ? ", a level" : in.has(Mod::GRAD) ? ", two gradients" : "")};
    return std::nullopt;
  }
  if (in.op == Opcode::SULD || in.op == Opcode::SUST) {
    const unsigned dims = surfaceDims(in.mods), elems = surfaceElems(in.mods);
    const char* name = in.op == Opcode::SULD ? "SULD" : "SUST";
    if (dims == 0) return ShapeProblem{SIZE_MAX, fmt::format("{} needs .1D, .2D or .3D", name)};
    if (elems == 4 && in.has(Mod::W64)) return ShapeProblem{SIZE_MAX, fmt::format("{} has no .V4 of .64 elements", name)};
    const size_t want = 1 + dims + (in.op == Opcode::SUST ? elems : 0);
    if (in.srcs.size() != want)
      return ShapeProblem{SIZE_MAX, in.op == Opcode::SULD
                                        ? fmt::format("SULD.{}D takes a handle and {} coordinate{}", dims, dims, dims > 1 ? "s" : "")
                                        : fmt::format("SUST.{}D takes a handle, {} coordinate{} and {} value{}", dims, dims,
                                                      dims > 1 ? "s" : "", elems, elems > 1 ? "s" : "")};
    return std::nullopt;
  }
  if (in.op != Opcode::BAR) return std::nullopt;
  size_t nd = in.dsts.size();
  int ops = in.has(Mod::POPC) + in.has(Mod::AND) + in.has(Mod::OR);
  if (!in.has(Mod::RED)) {
    if (ops > 0) return ShapeProblem{SIZE_MAX, "BAR takes .POPC, .AND and .OR only with .RED"};
    if (nd > 0) return ShapeProblem{0, "only BAR.RED has a destination"};
    for (size_t k = 0; k < in.srcs.size(); ++k)
      if (isPred(in.srcs[k])) return ShapeProblem{nd + k, "only BAR.RED takes a predicate"};
    return std::nullopt;
  }
  if (ops != 1) return ShapeProblem{SIZE_MAX, "BAR.RED takes one operation: .POPC, .AND or .OR"};
  if (nd != 1) return ShapeProblem{SIZE_MAX, "BAR.RED has one destination"};
  bool popc = in.has(Mod::POPC);
  if (popc == isPred(in.dsts[0]))
    return ShapeProblem{0, popc ? "the destination of BAR.RED.POPC is an R register (the count)"
                                : "the destination of BAR.RED.AND and BAR.RED.OR is a predicate"};
  if (in.srcs.size() < 2) return ShapeProblem{SIZE_MAX, "BAR.RED takes a barrier, an optional thread count and a predicate"};
  for (size_t k = 0; k + 1 < in.srcs.size(); ++k)
    if (isPred(in.srcs[k])) return ShapeProblem{nd + k, "BAR.RED takes its predicate last"};
  if (!isPred(in.srcs.back())) return ShapeProblem{nd + in.srcs.size() - 1, "BAR.RED's last source must be a predicate"};
  return std::nullopt;
}

} // namespace ori
