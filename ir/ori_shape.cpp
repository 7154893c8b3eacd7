// The shape checks of instructions the .ori reader (and the PTX lowering) makes: which
// immediates fit, and the operand shapes the opcode table cannot say (ir/ori.h).
#include <fmt/format.h>

#include <cstdint>

#include "ir/mma.h"
#include "ir/ori.h"

namespace ori {

unsigned immediateBits(const Instr &in, size_t k) {
  if ((in.op == Opcode::LOP3 && k == 3) || (in.op == Opcode::PLOP3 && k >= 3))
    return 8;
  bool wide = in.has(Mod::W64) || in.has(Mod::U64) || in.has(Mod::S64) ||
              (in.op == Opcode::IMAD && in.has(Mod::WIDE) && k == 2) || in.op == Opcode::I2F ||
              (isAtomic(in.op) && atomicBytes(in.mods) >= 8); // .64 .S64 .F64 .128 values
  return wide ? 64 : 32;
}

bool immediateFits(const Instr &in, size_t k, int64_t v) {
  const unsigned bits = immediateBits(in, k);
  return bits == 64 ||
         (bits == 8 ? v >= 0 && v <= 0xFF : v >= INT32_MIN && v <= int64_t(UINT32_MAX));
}

namespace {
// The operand counts of the memory instructions that their slots cannot say: .HINT adds a
// cache-policy source; an atomic's values are one source each (two with .128), CAS has two.
std::optional<ShapeProblem> checkMemoryShape(const Instr &in) {
  const size_t hint = in.has(Mod::HINT) ? 1 : 0;
  const std::string_view name = in.info().name;
  auto want = [&](size_t n, std::string_view what) -> std::optional<ShapeProblem> {
    if (in.srcs.size() == n)
      return std::nullopt;
    return ShapeProblem{
        SIZE_MAX, fmt::format("{} takes {}{}", name, what, hint ? " and a cache policy" : "")};
  };
  switch (in.op) {
  case Opcode::LD:
  case Opcode::LDG:
    return want(1 + hint, "an address");
  case Opcode::ST:
  case Opcode::STG:
    return want(2 + hint, "an address and a value");
  case Opcode::ATOM:
  case Opcode::ATOMG:
  case Opcode::ATOMS:
  case Opcode::RED:
  case Opcode::REDG: {
    const bool wide = in.has(Mod::W128), cas = in.has(Mod::CAS);
    if (wide && !cas && !in.has(Mod::EXCH))
      return ShapeProblem{SIZE_MAX, fmt::format("{}.128 is .CAS or .EXCH", name)};
    if (in.has(Mod::U16) && !cas)
      return ShapeProblem{SIZE_MAX, fmt::format("{}.U16 is .CAS only", name)};
    if (cas && hint)
      return ShapeProblem{SIZE_MAX, fmt::format("{}.CAS takes no cache policy", name)};
    const size_t values = (wide ? 2 : 1) * (cas ? 2 : 1);
    return want(1 + values + hint, wide  ? (cas ? "an address and two 128-bit values (low, high)"
                                                : "an address and a 128-bit value (low, high)")
                                   : cas ? "an address and two values"
                                         : "an address and a value");
  }
  case Opcode::LDGSTS:
    if (hint && in.srcs.size() < 3)
      return ShapeProblem{SIZE_MAX, "LDGSTS.HINT takes its cache policy last"};
    return std::nullopt;
  default:
    return std::nullopt;
  }
}
} // namespace

std::optional<ShapeProblem> checkShape(const Instr &in) {
  auto isPred = [](const Operand &o) {
    return o.kind == Operand::Kind::Reg && o.reg.isPredicate();
  };
  if (isMma(in.op)) {
    const auto form = mmaForm(in.op, in.mods);
    if (const std::string *why = std::get_if<std::string>(&form))
      return ShapeProblem{SIZE_MAX, *why};
    const MmaForm &f = std::get<MmaForm>(form);
    if (in.dsts.size() != f.dRegs || in.srcs.size() != f.aRegs + f.bRegs + f.cRegs)
      return ShapeProblem{
          SIZE_MAX,
          fmt::format("{}.{} takes {} destinations (D) and {} sources ({} of A, {} of B, {} of C)",
                      in.info().name, mmaShapeText(f), f.dRegs, f.aRegs + f.bRegs + f.cRegs,
                      f.aRegs, f.bRegs, f.cRegs)};
    return std::nullopt;
  }
  if (in.op == Opcode::LDSM || in.op == Opcode::STSM || in.op == Opcode::MOVM) {
    const char *name = in.info().name.data();
    if (in.op == Opcode::MOVM ? !in.has(Mod::MT88) : !in.has(Mod::M88) && !in.has(Mod::MT88))
      return ShapeProblem{SIZE_MAX, in.op == Opcode::MOVM
                                        ? "MOVM needs .MT88"
                                        : fmt::format("{} needs .M88 or .MT88", name)};
    const size_t n = matrixCount(in.mods);
    if (in.op == Opcode::LDSM && in.dsts.size() != n)
      return ShapeProblem{SIZE_MAX, fmt::format("LDSM of {} matri{} has {} destination{}", n,
                                                n > 1 ? "ces" : "x", n, n > 1 ? "s" : "")};
    if (in.op == Opcode::STSM && in.srcs.size() != 1 + n)
      return ShapeProblem{SIZE_MAX,
                          fmt::format("STSM of {} matri{} takes an address and {} value{}", n,
                                      n > 1 ? "ces" : "x", n, n > 1 ? "s" : "")};
    return std::nullopt;
  }
  if (in.op == Opcode::SETMAXREG && in.has(Mod::INC) == in.has(Mod::DEC))
    return ShapeProblem{SIZE_MAX, "SETMAXREG needs .INC or .DEC"};
  if (in.op == Opcode::REDUX) {
    if (auto op = in.mods.inGroup(ModGroup::AtomOp); op && in.has(Mod::SUM))
      return ShapeProblem{
          SIZE_MAX, fmt::format("REDUX takes one operation, not both .SUM and .{}", modText(*op))};
    std::optional<Mod> op = in.has(Mod::SUM) ? Mod::SUM : in.mods.inGroup(ModGroup::AtomOp);
    if (in.has(Mod::S32) && op && *op != Mod::MIN && *op != Mod::MAX)
      return ShapeProblem{
          SIZE_MAX,
          "REDUX takes .S32 only with .MIN or .MAX (the other operations do not depend on it)"};
    return std::nullopt;
  }
  if (in.op == Opcode::TEX) {
    const unsigned dims = surfaceDims(in.mods);
    if (dims == 0)
      return ShapeProblem{SIZE_MAX, "TEX needs .1D, .2D or .3D"};
    if (in.has(Mod::F32) && in.mods.inGroup(ModGroup::Type))
      return ShapeProblem{SIZE_MAX, "TEX takes one result type: .F32, .U32 or .S32"};
    if (in.has(Mod::GRAD) && dims == 3)
      return ShapeProblem{SIZE_MAX, "TEX.GRAD takes 1D or 2D coordinates"};
    const size_t want = 1 + dims + (in.has(Mod::LOD) ? 1 : 0) + (in.has(Mod::GRAD) ? 2 * dims : 0);
    if (in.srcs.size() != want)
      return ShapeProblem{
          SIZE_MAX, fmt::format("TEX.{}D{} takes {} sources (a handle, {} coordinate{}{})", dims,
                                in.has(Mod::LOD)    ? ".LOD"
                                : in.has(Mod::GRAD) ? ".GRAD"
                                                    : "",
                                want, dims, dims > 1 ? "s" : "",
                                in.has(Mod::LOD)    ? ", a level"
                                : in.has(Mod::GRAD) ? ", two gradients"
                                                    : "")};
    return std::nullopt;
  }
  if (in.op == Opcode::SULD || in.op == Opcode::SUST) {
    const unsigned dims = surfaceDims(in.mods), elems = surfaceElems(in.mods);
    const char *name = in.op == Opcode::SULD ? "SULD" : "SUST";
    if (dims == 0)
      return ShapeProblem{SIZE_MAX, fmt::format("{} needs .1D, .2D or .3D", name)};
    if (elems == 4 && in.has(Mod::W64))
      return ShapeProblem{SIZE_MAX, fmt::format("{} has no .V4 of .64 elements", name)};
    const size_t want = 1 + dims + (in.op == Opcode::SUST ? elems : 0);
    if (in.srcs.size() != want)
      return ShapeProblem{
          SIZE_MAX,
          in.op == Opcode::SULD
              ? fmt::format("SULD.{}D takes a handle and {} coordinate{}", dims, dims,
                            dims > 1 ? "s" : "")
              : fmt::format("SUST.{}D takes a handle, {} coordinate{} and {} value{}", dims, dims,
                            dims > 1 ? "s" : "", elems, elems > 1 ? "s" : "")};
    return std::nullopt;
  }
  if (std::optional<ShapeProblem> p = checkMemoryShape(in))
    return p;
  if (in.op != Opcode::BAR)
    return std::nullopt;
  size_t nd = in.dsts.size();
  int ops = in.has(Mod::POPC) + in.has(Mod::AND) + in.has(Mod::OR);
  if (!in.has(Mod::RED)) {
    if (ops > 0)
      return ShapeProblem{SIZE_MAX, "BAR takes .POPC, .AND and .OR only with .RED"};
    if (nd > 0)
      return ShapeProblem{0, "only BAR.RED has a destination"};
    for (size_t k = 0; k < in.srcs.size(); ++k)
      if (isPred(in.srcs[k]))
        return ShapeProblem{nd + k, "only BAR.RED takes a predicate"};
    return std::nullopt;
  }
  if (ops != 1)
    return ShapeProblem{SIZE_MAX, "BAR.RED takes one operation: .POPC, .AND or .OR"};
  if (nd != 1)
    return ShapeProblem{SIZE_MAX, "BAR.RED has one destination"};
  bool popc = in.has(Mod::POPC);
  if (popc == isPred(in.dsts[0]))
    return ShapeProblem{0, popc ? "the destination of BAR.RED.POPC is an R register (the count)"
                                : "the destination of BAR.RED.AND and BAR.RED.OR is a predicate"};
  if (in.srcs.size() < 2)
    return ShapeProblem{SIZE_MAX,
                        "BAR.RED takes a barrier, an optional thread count and a predicate"};
  for (size_t k = 0; k + 1 < in.srcs.size(); ++k)
    if (isPred(in.srcs[k]))
      return ShapeProblem{nd + k, "BAR.RED takes its predicate last"};
  if (!isPred(in.srcs.back()))
    return ShapeProblem{nd + in.srcs.size() - 1, "BAR.RED's last source must be a predicate"};
  return std::nullopt;
}

} // namespace ori
