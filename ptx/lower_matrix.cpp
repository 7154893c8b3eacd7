// PTX -> Ori, one instruction: the warp-level matrix instructions (see lowering.h; their
// meaning: docs/interpreter.md, "Matrix instructions"; the forms: ir/mma.h).
//   mma.sync.aligned.shape.alayout.blayout[.satfinite][.rnd].dtype.atype.btype.ctype[.bitOp.popc]
//       {d..}, {a..}, {b..}, {c..}
//       -> HMMA (.f16 .bf16 .tf32 .e4m3 .e5m2 inputs), IMMA (.s8 .u8 .s4 .u4), DMMA (.f64),
//          BMMA (.b1) with the shape, types, layouts, .SAT, rounding, .AND/.XOR as modifiers;
//          D's registers the destinations, A's, B's and C's the sources
//   ldmatrix.sync.aligned.m8n8.num{.trans}{.shared{::cta}}.b16 {d..}, [p]  -> LDSM.M88/.MT88[.2|.4]
//   stmatrix.sync.aligned.m8n8.num{.trans}{.shared{::cta}}.b16 [p], {r..}  -> STSM.M88/.MT88[.2|.4]
//   movmatrix.sync.aligned.m8n8.trans.b16 d, a                            -> MOVM.MT88 d, a
// LDSM and STSM take shared-window offsets: a generic address (no .shared) is made one as
// cvta.to.shared does (minus SR_SWINBASE), so one outside the window faults. Stay OPAQUE:
// the sm_100/sm_120 forms (mma .kind:: and .block_scale, .e3m2/.e2m3/.e2m1, ldmatrix .m16n16/
// .m8n16 and .b8, stmatrix .m16n8), mma.sp. A form sm_90 does not have with types it knows
// (m16n8k16 .f32.f16.f16.f16, say: ptxas 13.0 rejects it too) is an error at the instruction.
#include <fmt/format.h>

#include <map>

#include "ir/mma.h"
#include "ptx/lowering.h"

namespace ori::ptx::lowering {

namespace {

const PtxType kB32{PtxType::Bits, 32};
const PtxType kF64{PtxType::Float, 64};

// The registers of a vector operand {r0, r1, ..} with `want` elements.
std::vector<OOp> vectorOperand(Lowering &lw, size_t i, size_t want, bool isDst, PtxType t,
                               std::string_view what) {
  const Operand &o = lw.ops[i];
  if (o.kind != Operand::Kind::Vector)
    lw.L.fail(o.loc, fmt::format("{}: {} is a vector of {} register{} ({{..}})", lw.pi.opcode, what,
                                 want, want > 1 ? "s" : ""));
  if (o.elems.size() != want)
    lw.L.fail(o.loc, fmt::format("{}: {} has {} register{} in this form, not {}", lw.pi.opcode,
                                 what, want, want > 1 ? "s" : "", o.elems.size()));
  std::vector<OOp> out;
  for (const Operand &e : o.elems) {
    if (isDst) {
      if (e.kind == Operand::Kind::Sink)
        throw NotNative{};
      ori::Reg r = lw.L.destination(e);
      if (!r.isGeneral())
        throw NotNative{};
      out.push_back(reg(r));
    } else {
      out.push_back(lw.L.source(e, t, ori::K_REG));
    }
  }
  return out;
}

// The shared-window address of ldmatrix/stmatrix's [p]: [reg+off] as it is with .shared,
// else the generic address minus SR_SWINBASE; [sym+off] of a .shared variable.
std::optional<OOp> sharedAddress(Lowering &lw, const Operand &a, bool sharedSpace) {
  if (a.kind != Operand::Kind::Address || a.name.empty() || a.ival < INT32_MIN ||
      a.ival > INT32_MAX)
    return std::nullopt;
  NameRef r = lw.L.resolve(a.name);
  if (r.kind == NameRef::Variable) {
    const ori::Variable *v = nullptr;
    for (const auto *vars : {&lw.L.f_.variables, &lw.L.om_.variables})
      for (const ori::Variable &w : *vars)
        if (!v && w.name == r.symbol)
          v = &w;
    if (!v || v->space != ori::Space::Shared || a.ival < 0)
      return std::nullopt;
    return OOp::mem(std::nullopt, a.ival, r.symbol);
  }
  if (r.kind != NameRef::Register || !r.reg.isGeneral()) {
    if (r.kind == NameRef::None && a.name[0] == '%')
      lw.L.fail(a.loc, fmt::format("undeclared register '{}'", a.name));
    return std::nullopt;
  }
  if (sharedSpace)
    return OOp::mem(r.reg, a.ival);
  ori::Reg base = lw.L.newTemp(ori::RegFile::R, "b64"), off = lw.L.newTemp(ori::RegFile::R, "b64");
  lw.emit(make(Opcode::S2R, {}, {reg(base)}, {OOp::special(ori::SpecialReg::SWINBASE)}));
  lw.emit(make(Opcode::IADD3, {}, {reg(off)}, {reg(r.reg), reg(base, true), kRZ}), true);
  return OOp::mem(off, a.ival);
}

// ldmatrix/stmatrix/movmatrix's modifiers: .sync .aligned .m8n8, .x1/.x2/.x4 (not movmatrix),
// .trans, .shared[::cta], .b16. Returns {trans, matrices, shared}; nullopt: another form.
struct MoveForm {
  bool trans = false, shared = false;
  unsigned count = 1;
};
std::optional<MoveForm> moveForm(Lowering &lw, bool counted) {
  MoveForm f;
  bool shape = false, b16 = false;
  unsigned counts = 0;
  for (const std::string &m : lw.pi.mods) {
    if (m == ".sync" || m == ".aligned")
      continue;
    if (m == ".m8n8")
      shape = true;
    else if (m == ".b16")
      b16 = true;
    else if (m == ".trans")
      f.trans = true;
    else if (m == ".shared" || m == ".shared::cta")
      f.shared = true;
    else if (counted && (m == ".x1" || m == ".x2" || m == ".x4"))
      f.count = unsigned(m[2] - '0'), ++counts;
    else
      return std::nullopt; // .m16n16, .m8n16, .m16n8, .b8, formats: sm_100 and later
  }
  if (!shape || !b16)
    return std::nullopt;
  if (!lw.hasSync())
    lw.L.fail(lw.pi.loc, fmt::format("{} needs .sync.aligned", lw.pi.opcode));
  if (counted && counts != 1)
    lw.L.fail(lw.pi.loc, fmt::format("{} takes one of .x1, .x2, .x4", lw.pi.opcode));
  return f;
}

} // namespace

bool Lowering::hasSync() const { return hasMod(pi, ".sync") && hasMod(pi, ".aligned"); }

bool Lowering::mma() {
  static const std::map<std::string, MmaElem, std::less<>> kTypes = {
      {".f16", MmaElem::F16},   {".bf16", MmaElem::BF16}, {".tf32", MmaElem::TF32},
      {".e4m3", MmaElem::E4M3}, {".e5m2", MmaElem::E5M2}, {".f32", MmaElem::F32},
      {".f64", MmaElem::F64},   {".s32", MmaElem::S32},   {".u8", MmaElem::U8},
      {".s8", MmaElem::S8},     {".u4", MmaElem::U4},     {".s4", MmaElem::S4},
      {".b1", MmaElem::B1}};
  static const std::map<std::string, Mod, std::less<>> kShapes = {
      {".m8n8k4", Mod::MMA884},       {".m16n8k4", Mod::MMA1684},    {".m16n8k8", Mod::MMA1688},
      {".m16n8k16", Mod::MMA16816},   {".m16n8k32", Mod::MMA16832},  {".m16n8k64", Mod::MMA16864},
      {".m8n8k16", Mod::MMA8816},     {".m8n8k32", Mod::MMA8832},    {".m8n8k128", Mod::MMA88128},
      {".m16n8k128", Mod::MMA168128}, {".m16n8k256", Mod::MMA168256}};
  std::vector<MmaElem> types;
  std::vector<bool> rowMajor;
  std::optional<Mod> shape, rounding, bitOp;
  bool sat = false, popc = false;
  for (const std::string &m : pi.mods) {
    if (m == ".sync" || m == ".aligned")
      continue;
    if (auto t = kTypes.find(m); t != kTypes.end())
      types.push_back(t->second);
    else if (auto s = kShapes.find(m); s != kShapes.end() && !shape)
      shape = s->second;
    else if (m == ".row" || m == ".col")
      rowMajor.push_back(m == ".row");
    else if (m == ".satfinite")
      sat = true;
    else if ((m == ".rn" || m == ".rz" || m == ".rm" || m == ".rp") && !rounding)
      rounding = m == ".rn" ? Mod::RN : m == ".rz" ? Mod::RZ : m == ".rm" ? Mod::RM : Mod::RP;
    else if ((m == ".and" || m == ".xor") && !bitOp)
      bitOp = m == ".and" ? Mod::AND : Mod::XOR;
    else if (m == ".popc")
      popc = true;
    else
      return false; // .kind::, .block_scale, .e3m2 ...: later targets
  }
  if (!hasSync())
    L.fail(pi.loc, "mma needs .sync.aligned");
  if (!shape)
    L.fail(pi.loc, "mma needs a shape (.m16n8k16, ...)");
  if (rowMajor.size() != 2)
    L.fail(pi.loc, "mma needs the layouts of A and B (.row.col)");
  if (types.size() != 4)
    L.fail(pi.loc, "mma needs four types: D's, A's, B's and C's");
  const MmaElem d = types[0], a = types[1], b = types[2], c = types[3];
  Opcode op;
  ori::ModSet mods;
  mods.set(*shape);
  auto aMod = [](MmaElem e) {
    switch (e) {
    case MmaElem::BF16:
      return Mod::A_BF16;
    case MmaElem::TF32:
      return Mod::A_TF32;
    case MmaElem::E4M3:
      return Mod::A_E4M3;
    case MmaElem::E5M2:
      return Mod::A_E5M2;
    case MmaElem::U8:
      return Mod::A_U8;
    case MmaElem::S8:
      return Mod::A_S8;
    case MmaElem::U4:
      return Mod::A_U4;
    default:
      return Mod::A_S4;
    }
  };
  auto bMod = [](MmaElem e) {
    switch (e) {
    case MmaElem::E4M3:
      return Mod::B_E4M3;
    case MmaElem::E5M2:
      return Mod::B_E5M2;
    case MmaElem::U8:
      return Mod::B_U8;
    case MmaElem::S8:
      return Mod::B_S8;
    case MmaElem::U4:
      return Mod::B_U4;
    default:
      return Mod::B_S4;
    }
  };
  auto bad = [&] {
    L.fail(pi.loc, fmt::format("mma has no {}.{}.{}.{} form", mmaElemName(d), mmaElemName(a),
                               mmaElemName(b), mmaElemName(c)));
  };
  switch (a) {
  case MmaElem::F16:
  case MmaElem::BF16:
  case MmaElem::TF32:
  case MmaElem::E4M3:
  case MmaElem::E5M2: {
    op = Opcode::HMMA;
    const bool fp8 = a == MmaElem::E4M3 || a == MmaElem::E5M2;
    if (fp8 ? b != MmaElem::E4M3 && b != MmaElem::E5M2 : b != a)
      bad();
    if ((d != MmaElem::F16 && d != MmaElem::F32) || (c != MmaElem::F16 && c != MmaElem::F32))
      bad();
    if (a != MmaElem::F16)
      mods.set(aMod(a));
    if (fp8)
      mods.set(bMod(b));
    mods.set(d == MmaElem::F16 ? Mod::F16 : Mod::F32);
    if (c != d) {
      if (c != MmaElem::F16)
        L.fail(pi.loc, "mma takes .f32 C with .f32 D only");
      if (*shape != Mod::MMA884) // ptxas 13.0: ".dtype must be '.f16' when .ctype is '.f16'"
        L.fail(pi.loc, "mma takes a .f16 C with a .f32 D in m8n8k4 only (ptxas 13.0 rejects it for "
                       "sm_90 too)");
      mods.set(Mod::CF16);
    }
    break;
  }
  case MmaElem::F64:
    op = Opcode::DMMA;
    if (b != a || c != a || d != a)
      bad();
    if (rounding)
      mods.set(*rounding);
    break;
  case MmaElem::U8:
  case MmaElem::S8:
  case MmaElem::U4:
  case MmaElem::S4:
    op = Opcode::IMMA;
    if (d != MmaElem::S32 || c != MmaElem::S32)
      bad();
    if (b != MmaElem::U8 && b != MmaElem::S8 && b != MmaElem::U4 && b != MmaElem::S4)
      bad();
    mods.set(aMod(a));
    mods.set(bMod(b));
    if (sat)
      mods.set(Mod::SAT);
    break;
  case MmaElem::B1:
    op = Opcode::BMMA;
    if (b != a || c != MmaElem::S32 || d != MmaElem::S32)
      bad();
    if (!bitOp || !popc)
      L.fail(pi.loc, "single-bit mma needs .and.popc or .xor.popc");
    mods.set(*bitOp);
    break;
  default:
    bad();
  }
  if (rounding && op != Opcode::DMMA)
    L.fail(pi.loc, "only .f64 mma takes a rounding modifier");
  if (sat && op != Opcode::IMMA)
    L.fail(pi.loc, "only integer mma takes .satfinite");
  if ((bitOp || popc) && op != Opcode::BMMA)
    L.fail(pi.loc, ".and/.xor.popc are for single-bit mma");
  if (!rowMajor[0])
    mods.set(Mod::ACOL);
  if (rowMajor[1])
    mods.set(Mod::BROW);
  const auto form = mmaForm(op, mods);
  if (const std::string *why = std::get_if<std::string>(&form))
    L.fail(pi.loc, fmt::format("{} (ptxas 13.0 rejects the form for sm_90 too)", *why));
  const MmaForm &f = std::get<MmaForm>(form);
  if (ops.size() != 4)
    L.fail(pi.loc, fmt::format("mma takes 4 operands (d, a, b, c), got {}", ops.size()));
  const PtxType at = a == MmaElem::F64 ? kF64 : kB32, ct = c == MmaElem::F64 ? kF64 : kB32;
  ori::Instr in;
  in.op = op;
  in.mods = mods;
  in.dsts = vectorOperand(*this, 0, f.dRegs, true, ct, "d");
  for (auto [k, n, t, what] :
       {std::tuple{size_t(1), f.aRegs, at, "a"}, std::tuple{size_t(2), f.bRegs, at, "b"},
        std::tuple{size_t(3), f.cRegs, ct, "c"}})
    for (OOp &o : vectorOperand(*this, k, n, false, t, what))
      in.srcs.push_back(std::move(o));
  emit(std::move(in));
  return true;
}

bool Lowering::ldmatrix() {
  const bool load = pi.opcode == "ldmatrix";
  std::optional<MoveForm> f = moveForm(*this, true);
  if (!f)
    return false;
  if (ops.size() != 2)
    L.fail(pi.loc, fmt::format("{} takes 2 operands, got {}", pi.opcode, ops.size()));
  std::optional<OOp> addr = sharedAddress(*this, ops[load ? 1 : 0], f->shared);
  if (!addr)
    return false;
  ori::Instr in =
      make(load ? Opcode::LDSM : Opcode::STSM, {f->trans ? Mod::MT88 : Mod::M88}, {}, {*addr});
  if (f->count == 2)
    in.mods.set(Mod::X2);
  if (f->count == 4)
    in.mods.set(Mod::X4);
  std::vector<OOp> regs =
      vectorOperand(*this, load ? 0 : 1, f->count, load, kB32, load ? "d" : "r");
  if (load)
    in.dsts = std::move(regs);
  else
    in.srcs.insert(in.srcs.end(), regs.begin(), regs.end());
  emit(std::move(in));
  return true;
}

bool Lowering::movmatrix() {
  std::optional<MoveForm> f = moveForm(*this, false);
  if (!f || f->shared)
    return false;
  if (!f->trans)
    L.fail(pi.loc, "movmatrix needs .trans");
  if (ops.size() != 2)
    L.fail(pi.loc, fmt::format("movmatrix takes 2 operands (d, a), got {}", ops.size()));
  ori::Reg d = dst(0);
  if (!d.isGeneral())
    throw NotNative{};
  emit(make(Opcode::MOVM, {Mod::MT88}, {reg(d)}, {src(1, kB32, ori::K_REG)}));
  return true;
}

} // namespace ori::ptx::lowering
