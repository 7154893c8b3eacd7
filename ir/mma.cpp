// The MMA forms (ir/mma.h): the PTX ISA 9.0 mma.sync syntax (section 9.7.14.5.14) cut down to
// what ptxas 13.0 accepts for sm_90 (checked by assembling one kernel per form): m8n8k4 with
// .f16 inputs (D .f16 with C .f16, D .f32 with C .f16 or .f32), m16n8k8 (.f16, .bf16, .tf32),
// m16n8k16 (.f16, .bf16, .e4m3/.e5m2), m16n8k4 (.tf32), m16n8k32 (.e4m3/.e5m2; sm_89 and later),
// .f64 in m8n8k4, m16n8k4, m16n8k8, m16n8k16, .u8/.s8 in m8n8k16, m16n8k16, m16n8k32, .u4/.s4
// in m8n8k32, m16n8k32, m16n8k64, .b1 in m8n8k128, m16n8k128, m16n8k256. For the .f16 shapes
// m16n8k8 and m16n8k16 ptxas wants .dtype = .ctype; m8n8k4 rejects .f16 D with .f32 C.
#include "ir/mma.h"

#include <fmt/format.h>

#include <optional>

namespace ori {

unsigned mmaElemBits(MmaElem e) {
  switch (e) {
  case MmaElem::F16:
  case MmaElem::BF16:
    return 16;
  case MmaElem::TF32:
  case MmaElem::F32:
  case MmaElem::S32:
    return 32;
  case MmaElem::E4M3:
  case MmaElem::E5M2:
  case MmaElem::U8:
  case MmaElem::S8:
    return 8;
  case MmaElem::U4:
  case MmaElem::S4:
    return 4;
  case MmaElem::F64:
    return 64;
  case MmaElem::B1:
    return 1;
  }
  return 32;
}

const char *mmaElemName(MmaElem e) {
  switch (e) {
  case MmaElem::F16:
    return "f16";
  case MmaElem::BF16:
    return "bf16";
  case MmaElem::TF32:
    return "tf32";
  case MmaElem::E4M3:
    return "e4m3";
  case MmaElem::E5M2:
    return "e5m2";
  case MmaElem::F32:
    return "f32";
  case MmaElem::F64:
    return "f64";
  case MmaElem::S32:
    return "s32";
  case MmaElem::U8:
    return "u8";
  case MmaElem::S8:
    return "s8";
  case MmaElem::U4:
    return "u4";
  case MmaElem::S4:
    return "s4";
  case MmaElem::B1:
    return "b1";
  }
  return "?";
}

namespace {

struct Shape {
  Mod mod;
  unsigned m, n, k;
};
constexpr Shape kShapes[] = {
    {Mod::MMA884, 8, 8, 4},       {Mod::MMA1684, 16, 8, 4},     {Mod::MMA1688, 16, 8, 8},
    {Mod::MMA16816, 16, 8, 16},   {Mod::MMA16832, 16, 8, 32},   {Mod::MMA16864, 16, 8, 64},
    {Mod::MMA8816, 8, 8, 16},     {Mod::MMA8832, 8, 8, 32},     {Mod::MMA88128, 8, 8, 128},
    {Mod::MMA168128, 16, 8, 128}, {Mod::MMA168256, 16, 8, 256},
};

std::optional<MmaElem> elemOf(std::optional<Mod> m) {
  if (!m)
    return std::nullopt;
  switch (*m) {
  case Mod::A_BF16:
    return MmaElem::BF16;
  case Mod::A_TF32:
    return MmaElem::TF32;
  case Mod::A_E4M3:
  case Mod::B_E4M3:
    return MmaElem::E4M3;
  case Mod::A_E5M2:
  case Mod::B_E5M2:
    return MmaElem::E5M2;
  case Mod::A_U8:
  case Mod::B_U8:
    return MmaElem::U8;
  case Mod::A_S8:
  case Mod::B_S8:
    return MmaElem::S8;
  case Mod::A_U4:
  case Mod::B_U4:
    return MmaElem::U4;
  case Mod::A_S4:
  case Mod::B_S4:
    return MmaElem::S4;
  default:
    return std::nullopt;
  }
}

// Registers holding `elems` elements of `e` per lane.
unsigned regsFor(unsigned elems, MmaElem e) {
  if (e == MmaElem::F64)
    return elems;
  return (elems * mmaElemBits(e) + 31) / 32;
}

bool isFp8(MmaElem e) { return e == MmaElem::E4M3 || e == MmaElem::E5M2; }
bool is8(MmaElem e) { return e == MmaElem::U8 || e == MmaElem::S8; }
bool is4(MmaElem e) { return e == MmaElem::U4 || e == MmaElem::S4; }

} // namespace

std::string mmaShapeText(const MmaForm &f) { return fmt::format("{}{}{}", f.m, f.n, f.k); }

std::variant<MmaForm, std::string> mmaForm(Opcode op, const ModSet &mods) {
  const char *name = opInfo(op).name.data();
  std::optional<Shape> shape;
  for (const Shape &s : kShapes)
    if (mods.test(s.mod))
      shape = s;
  if (!shape)
    return fmt::format("{} needs a shape (.884, .16816, ...)", name);
  MmaForm f;
  f.m = shape->m, f.n = shape->n, f.k = shape->k;
  const std::string shapeName = fmt::format("{}.{}", name, mmaShapeText(f));
  std::optional<MmaElem> a = elemOf(mods.inGroup(ModGroup::MmaA)),
                         b = elemOf(mods.inGroup(ModGroup::MmaB));
  const bool layouts = mods.test(Mod::ACOL) || mods.test(Mod::BROW);
  switch (op) {
  case Opcode::HMMA: {
    f.a = a.value_or(MmaElem::F16);
    if (isFp8(f.a) != b.has_value())
      return fmt::format("{} names B's type for .E4M3/.E5M2 inputs only, and then always",
                         shapeName);
    f.b = b.value_or(f.a);
    if (!mods.test(Mod::F16) && !mods.test(Mod::F32))
      return fmt::format("{} needs .F16 or .F32 (the accumulators)", shapeName);
    f.d = mods.test(Mod::F16) ? MmaElem::F16 : MmaElem::F32;
    f.c = mods.test(Mod::CF16) ? MmaElem::F16 : f.d;
    const unsigned k = f.k;
    bool ok = false;
    switch (f.a) {
    case MmaElem::F16:
      ok = f.m == 8 ? k == 4 : (k == 8 || k == 16);
      break;
    case MmaElem::BF16:
      ok = f.m == 16 && (k == 8 || k == 16) && f.d == MmaElem::F32;
      break;
    case MmaElem::TF32:
      ok = f.m == 16 && (k == 4 || k == 8) && f.d == MmaElem::F32;
      break;
    default:
      ok = f.m == 16 && (k == 16 || k == 32);
      break; // FP8
    }
    if (!ok)
      return fmt::format("{} has no {} inputs with .{} accumulators", shapeName, mmaElemName(f.a),
                         mmaElemName(f.d));
    if (mods.test(Mod::CF16) && !(f.m == 8 && f.d == MmaElem::F32))
      return fmt::format("{}: .CF16 (.f16 C, .f32 D) is for HMMA.884.F32 only", shapeName);
    f.quad = f.m == 8;
    if (layouts && !f.quad)
      return fmt::format("{}: .ACOL/.BROW are for HMMA.884 only", shapeName);
    f.aColMajor = mods.test(Mod::ACOL);
    f.bRowMajor = mods.test(Mod::BROW);
    break;
  }
  case Opcode::IMMA: {
    if (!a || !b)
      return fmt::format("{} needs the types of A and B (.S8.U8, ...)", shapeName);
    f.a = *a, f.b = *b, f.c = f.d = MmaElem::S32;
    const bool eight = is8(f.a) && is8(f.b), four = is4(f.a) && is4(f.b);
    const bool ok = eight ? (f.m == 8 ? f.k == 16 : f.k == 16 || f.k == 32)
                          : four && (f.m == 8 ? f.k == 32 : f.k == 32 || f.k == 64);
    if (!ok)
      return fmt::format("{} has no .{}.{} inputs", shapeName, mmaElemName(f.a), mmaElemName(f.b));
    f.satfinite = mods.test(Mod::SAT);
    break;
  }
  case Opcode::DMMA:
    f.a = f.b = f.c = f.d = MmaElem::F64;
    if (!(f.m == 8 ? f.k == 4 : f.k == 4 || f.k == 8 || f.k == 16))
      return fmt::format("{} is not a .f64 shape", shapeName);
    break;
  case Opcode::BMMA:
    f.a = f.b = MmaElem::B1, f.c = f.d = MmaElem::S32;
    if (!(f.m == 8 ? f.k == 128 : f.k == 128 || f.k == 256))
      return fmt::format("{} is not a .b1 shape", shapeName);
    if (mods.test(Mod::AND) == mods.test(Mod::XOR))
      return fmt::format("{} needs .AND or .XOR", shapeName);
    f.bitAnd = mods.test(Mod::AND);
    break;
  default:
    return fmt::format("{} is not a matrix multiply-accumulate", name);
  }
  // Elements per lane: a product's fragments over the lanes that compute it (all 32, or 8
  // for each of m8n8k4's four products).
  const unsigned lanes = f.quad ? 8 : 32;
  f.aRegs = regsFor(f.m * f.k / lanes, f.a);
  f.bRegs = regsFor(f.k * f.n / lanes, f.b);
  f.cRegs = regsFor(f.m * f.n / lanes, f.c);
  f.dRegs = regsFor(f.m * f.n / lanes, f.d);
  return f;
}

std::vector<ModSet> mmaForms(Opcode op) {
  std::vector<ModSet> out;
  auto add = [&](std::initializer_list<std::vector<Mod>> parts) {
    ModSet s;
    for (const std::vector<Mod> &p : parts)
      for (Mod m : p)
        s.set(m);
    if (std::holds_alternative<MmaForm>(mmaForm(op, s)))
      out.push_back(s);
  };
  std::vector<Mod> shapes;
  for (const Shape &s : kShapes)
    if (opInfo(op).allowedMods.test(s.mod))
      shapes.push_back(s.mod);
  switch (op) {
  case Opcode::HMMA: {
    const std::vector<std::vector<Mod>> inputs = {{},
                                                  {Mod::A_BF16},
                                                  {Mod::A_TF32},
                                                  {Mod::A_E4M3, Mod::B_E4M3},
                                                  {Mod::A_E4M3, Mod::B_E5M2},
                                                  {Mod::A_E5M2, Mod::B_E4M3},
                                                  {Mod::A_E5M2, Mod::B_E5M2}};
    const std::vector<std::vector<Mod>> extras = {{},          {Mod::ACOL},
                                                  {Mod::BROW}, {Mod::ACOL, Mod::BROW},
                                                  {Mod::CF16}, {Mod::CF16, Mod::ACOL, Mod::BROW}};
    for (Mod shape : shapes)
      for (const auto &in : inputs)
        for (Mod acc : {Mod::F16, Mod::F32})
          for (const auto &extra : extras)
            add({{shape, acc}, in, extra});
    break;
  }
  case Opcode::IMMA:
    for (Mod shape : shapes)
      for (Mod a : {Mod::A_U8, Mod::A_S8, Mod::A_U4, Mod::A_S4})
        for (Mod b : {Mod::B_U8, Mod::B_S8, Mod::B_U4, Mod::B_S4}) {
          add({{shape, a, b}});
          add({{shape, a, b, Mod::SAT}});
        }
    break;
  case Opcode::DMMA:
    for (Mod shape : shapes) {
      add({{shape}});
      for (Mod r : {Mod::RN, Mod::RZ, Mod::RM, Mod::RP})
        add({{shape, r}});
    }
    break;
  case Opcode::BMMA:
    for (Mod shape : shapes)
      for (Mod bop : {Mod::AND, Mod::XOR})
        add({{shape, bop}});
    break;
  default:
    break;
  }
  return out;
}

unsigned mmaElems(const MmaForm &f, MmaOperand which) {
  const unsigned lanes = f.quad ? 8 : 32;
  switch (which) {
  case MmaOperand::A:
    return f.m * f.k / lanes;
  case MmaOperand::B:
    return f.k * f.n / lanes;
  default:
    return f.m * f.n / lanes;
  }
}

MmaCoord mmaCoord(const MmaForm &f, MmaOperand which, unsigned lane, unsigned i) {
  const unsigned g = lane >> 2, t = lane & 3;
  if (f.quad) { // 9.7.14.5.1: m8n8k4 .f16, four products
    const unsigned q = g & 3, hi = lane >= 16 ? 4 : 0;
    switch (which) {
    case MmaOperand::A:
      return f.aColMajor ? MmaCoord{q, (i & 3) + hi, t} : MmaCoord{q, t + hi, i};
    case MmaOperand::B:
      return f.bRowMajor ? MmaCoord{q, t, i + hi} : MmaCoord{q, i, t + hi};
    case MmaOperand::C:
    case MmaOperand::D:
      if ((which == MmaOperand::C ? f.c : f.d) == MmaElem::F16)
        return {q, t + hi, i};
      return {q, (lane & 1) + (i & 2) + hi, (i & 4) + (lane & 2) + (i & 1)};
    }
  }
  if (which == MmaOperand::C || which == MmaOperand::D) // every other shape: 8 or 16 rows of 8
    return f.m == 8 ? MmaCoord{0, g, 2 * t + i}
                    : MmaCoord{0, g + (i >= 2 ? 8 : 0), 2 * t + (i & 1)};
  // A and B: a register holds `per` consecutive elements of a row of A (a column of B) at
  // columns (rows) per * t ..; the registers step through the rows g and g + 8 of A, then by
  // 4 * per columns (B: by 4 * per rows). The ISA's formulas, one per type and shape, are
  // all this one (m16n8k256's A row for 32 <= i < 64 prints "+ i" for "+ (i & 0x1F)").
  const MmaElem e = which == MmaOperand::A ? f.a : f.b;
  const unsigned per = e == MmaElem::F64 ? 1 : 32 / mmaElemBits(e);
  const unsigned reg = i / per, within = i % per;
  if (which == MmaOperand::A) {
    if (f.m == 8)
      return {0, g, per * t + within + 4 * per * reg};
    return {0, g + ((reg & 1) ? 8 : 0), per * t + within + 4 * per * (reg >> 1)};
  }
  return {0, per * t + within + 4 * per * reg, g};
}

} // namespace ori
