// PTX -> Ori: atomics, fences and the other memory-system instructions (see lowering.h and
// docs/ptx.md, "Atomics" and "Fences, cache control and the stack"):
//   atom/red{.sem}{.scope}{.space}.op{.noftz}{.L2::cache_hint}{.vec}.type -> ATOM/ATOMG/ATOMS,
//     RED/REDG (red.shared: ATOMS with RZ, as SASS); vectors as one atomic per element;
//   membar/fence -> MEMBAR, fence.proxy -> FENCE, nanosleep -> NANOSLEEP, prefetch/prefetchu/
//   applypriority/discard -> CCTL, isspacep -> QSPC, createpolicy -> CREATEPOLICY, alloca/
//   stacksave/stackrestore -> ALLOCA/STACKSAVE/STACKRESTORE.
#include <fmt/format.h>

#include "ptx/lowering.h"

namespace ori::ptx::lowering {

namespace {

constexpr std::pair<std::string_view, Mod> kAtomOps[] = {
    {".add", Mod::ADD},    {".min", Mod::MIN},      {".max", Mod::MAX}, {".inc", Mod::INC},
    {".dec", Mod::DEC},    {".exch", Mod::EXCH},    {".cas", Mod::CAS}, {".and", Mod::ATOM_AND},
    {".or", Mod::ATOM_OR}, {".xor", Mod::ATOM_XOR},
};

const PtxType kU64{PtxType::Unsigned, 64};

// The Ori modifiers of an atomic's value type, or nothing when the type has no native form
// for operation `op`.
std::optional<std::vector<Mod>> atomTypeMods(PtxType t, Mod op) {
  const bool arith = op == Mod::ADD || op == Mod::MIN || op == Mod::MAX;
  if (t.kind == PtxType::Float) {
    if (op != Mod::ADD)
      return std::nullopt; // float min/max (f16 vectors only): not modelled
    if (t.bits == 32)
      return std::vector<Mod>{Mod::AF32};
    if (t.bits == 64)
      return std::vector<Mod>{Mod::AF64};
    if (t.bits == 16)
      return std::vector<Mod>{t.bfloat ? Mod::ABF16 : Mod::AF16};
    return std::nullopt;
  }
  if (t.kind == PtxType::Packed) {
    if (op != Mod::ADD)
      return std::nullopt;
    return std::vector<Mod>{t.bfloat ? Mod::ABF16X2 : Mod::AF16X2};
  }
  if (!t.isInt())
    return std::nullopt;
  if (t.bits == 128)
    return (op == Mod::CAS || op == Mod::EXCH) && t.kind == PtxType::Bits
               ? std::optional(std::vector<Mod>{Mod::W128})
               : std::nullopt;
  if (t.bits == 16)
    return op == Mod::CAS && t.kind == PtxType::Bits ? std::optional(std::vector<Mod>{Mod::U16})
                                                     : std::nullopt;
  if ((op == Mod::INC || op == Mod::DEC) && (t.bits != 32 || t.kind != PtxType::Unsigned))
    return std::nullopt;
  const bool bitwise = op == Mod::EXCH || op == Mod::CAS || op == Mod::ATOM_AND ||
                       op == Mod::ATOM_OR || op == Mod::ATOM_XOR;
  if (bitwise && t.kind != PtxType::Bits)
    return std::nullopt; // PTX: .b32/.b64 only
  if (arith && t.kind == PtxType::Bits)
    return std::nullopt; // PTX: .u/.s only
  if (t.bits == 32)
    return t.kind == PtxType::Signed ? std::vector<Mod>{Mod::S32} : std::vector<Mod>{};
  if (t.bits == 64)
    return t.kind == PtxType::Signed ? std::vector<Mod>{Mod::S64} : std::vector<Mod>{Mod::W64};
  return std::nullopt;
}

} // namespace

// The memory-ordering modifiers of an atomic, fence or access (.relaxed .acquire .release
// .acq_rel .sc, the scope), checked against PTX's rule that a scope needs an ordering.
void Lowering::orderMods(ori::Instr &in) const {
  static constexpr std::pair<std::string_view, Mod> kOrders[] = {
      {".relaxed", Mod::RELAXED}, {".acquire", Mod::ACQUIRE}, {".release", Mod::RELEASE},
      {".acq_rel", Mod::ACQ_REL}, {".sc", Mod::SC},
  };
  static constexpr std::pair<std::string_view, Mod> kScopes[] = {
      {".cta", Mod::CTA}, {".cluster", Mod::CLUSTER}, {".gpu", Mod::GPU}, {".sys", Mod::SYS}};
  for (auto [text, m] : kOrders)
    if (hasMod(pi, text))
      in.mods.set(m);
  for (auto [text, m] : kScopes)
    if (hasMod(pi, text))
      in.mods.set(m);
}

// Every modifier of `in` must be one its opcode takes; otherwise not native.
void Lowering::checkAllowed(const ori::Instr &in) const {
  for (Mod m : in.mods.list())
    if (!in.info().allowedMods.test(m))
      throw NotNative{};
}

// The generic address an [R+imm] or [sym+imm] operand names, in a 64-bit register.
ori::Reg Lowering::addressValue(const OOp &a) {
  if (a.sym.empty() && a.hasReg && a.imm == 0 && L.regBits(a.reg) == 64)
    return a.reg; // [R]: R itself
  ori::Reg t = L.newTemp(ori::RegFile::R, "b64");
  OOp base = a.sym.empty() ? (a.hasReg ? reg(a.reg) : kRZ) : OOp::symbol(a.sym);
  if (!a.sym.empty()) {
    emit(make(Opcode::MOV, {}, {reg(t)}, {base}), true);
    if (a.hasReg)
      emit(make(Opcode::IADD3, {}, {reg(t)}, {reg(t), reg(a.reg), kRZ}), true);
    if (a.imm)
      emit(make(Opcode::IADD3, {}, {reg(t)}, {reg(t), imm(a.imm), kRZ}), true);
    return t;
  }
  emit(make(Opcode::IADD3, {}, {reg(t)}, {base, imm(a.imm), kRZ}), true);
  return t;
}

bool Lowering::atomic() {
  const bool isRed = pi.opcode == "red";
  std::optional<Mod> aop;
  for (auto [text, mod] : kAtomOps)
    if (hasMod(pi, text)) {
      if (aop)
        return false;
      aop = mod;
    }
  onlyMods(pi, {".global",
                ".shared",
                ".shared::cta",
                ".relaxed",
                ".acquire",
                ".release",
                ".acq_rel",
                ".cta",
                ".cluster",
                ".gpu",
                ".sys",
                ".noftz",
                ".L2::cache_hint",
                ".v2",
                ".v4",
                ".v8",
                ".add",
                ".min",
                ".max",
                ".inc",
                ".dec",
                ".exch",
                ".cas",
                ".and",
                ".or",
                ".xor"});
  if (!aop || (isRed && (*aop == Mod::EXCH || *aop == Mod::CAS)))
    return false;
  if (isRed && hasMod(pi, ".acquire"))
    return false; // PTX red takes .relaxed and .release only
  PtxType t = lastType(pi);
  auto typeMods = atomTypeMods(t, *aop);
  if (!typeMods)
    return false;
  const bool half = t.kind == PtxType::Packed || (t.kind == PtxType::Float && t.bits == 16);
  if (hasMod(pi, ".noftz") != half)
    return false; // PTX: .noftz exactly on the 16-bit float types
  const unsigned vec = hasMod(pi, ".v8") ? 8 : hasMod(pi, ".v4") ? 4 : hasMod(pi, ".v2") ? 2 : 1;
  const bool shared = hasMod(pi, ".shared") || hasMod(pi, ".shared::cta"),
             global = hasMod(pi, ".global");
  if (vec > 1 && (shared || t.isInt()))
    return false; // PTX: global float vectors only
  const bool hint = hasMod(pi, ".L2::cache_hint");
  if (hint && shared)
    return false;
  const size_t first = isRed ? 0 : 1, values = *aop == Mod::CAS ? 2 : 1;
  need(first + 1 + values + (hint ? 1 : 0));
  const Operand &a = ops[first];
  if (a.kind != Operand::Kind::Address || a.name.empty() || a.ival < INT32_MIN ||
      a.ival > INT32_MAX)
    return false;
  NameRef r = L.resolve(a.name);
  OOp addr;
  if (r.kind == NameRef::Register && r.reg.isGeneral())
    addr = OOp::mem(r.reg, a.ival);
  else if (r.kind == NameRef::Variable && a.ival >= 0)
    addr = OOp::mem(std::nullopt, a.ival, r.symbol);
  else
    return false;
  auto elements = [&](size_t i) {
    std::vector<const Operand *> out;
    if (ops[i].kind == Operand::Kind::Vector)
      for (const Operand &e : ops[i].elems)
        out.push_back(&e);
    else
      out.push_back(&ops[i]);
    if (out.size() != vec)
      throw NotNative{};
    return out;
  };
  std::vector<const Operand *> dsts =
      isRed ? std::vector<const Operand *>(vec, nullptr) : elements(0);
  std::vector<const Operand *> bs = elements(first + 1);
  const Opcode op = global   ? (isRed ? Opcode::REDG : Opcode::ATOMG)
                    : shared ? Opcode::ATOMS
                    : isRed  ? Opcode::RED
                             : Opcode::ATOM;
  const unsigned elemBytes = t.bits / 8;
  const bool f32 = t.kind == PtxType::Float && t.bits == 32;
  // atom.add.f32 flushes subnormals on global memory, not on shared (PTX ISA 9.0, "atom"): a
  // generic one tests the address (QSPC) and runs the form for its space.
  std::optional<ori::Reg> inShared;
  OOp guardShared, guardGlobal;
  if (f32 && op != Opcode::ATOMS && op != Opcode::ATOMG && op != Opcode::REDG) {
    ori::Reg at = addressValue(addr);
    ori::Reg q = L.newTemp(ori::RegFile::P, "pred");
    emit(make(Opcode::QSPC, {Mod::SP_SHARED, Mod::W64}, {reg(q)}, {reg(at)}));
    guardShared = reg(q);
    guardGlobal = reg(q, true);
    if (const std::optional<ori::Operand> &g = L.guard()) { // both under the instruction's guard
      ori::Reg ps = L.newTemp(ori::RegFile::P, "pred"), pg = L.newTemp(ori::RegFile::P, "pred");
      // PLOP3 a = g, b = q, c = PT: shared = g & q (LUT 0x80), global = g & !q (0x20); never
      // skipped.
      ori::Instr p = make(Opcode::PLOP3, {Mod::LUT}, {reg(ps), reg(pg)},
                          {*g, reg(q), kPT, imm(0x80), imm(0x20)});
      p.guard = kPT;
      emit(std::move(p));
      guardShared = reg(ps);
      guardGlobal = reg(pg);
    }
    inShared = q;
  }
  if (t.bits == 128) { // ATOM.128 dlo, dhi, [a], blo, bhi[, clo, chi][, policy]
    if (isRed || vec != 1)
      return false;
    std::vector<OOp> srcs{addr};
    for (size_t i = first + 1; i < first + 1 + values; ++i) {
      auto h = halves128(ops[i]);
      if (!h)
        return false;
      srcs.push_back(h->first);
      srcs.push_back(h->second);
    }
    if (hint)
      srcs.push_back(src(ops.size() - 1, kU64, ori::K_REG));
    std::vector<OOp> d{kRZ, kRZ};
    if (ops[0].kind != Operand::Kind::Sink) {
      auto h = halves128(ops[0]);
      if (!h)
        return false;
      d = {h->first, h->second};
    }
    ori::Instr in = make(op, {*aop, Mod::W128}, std::move(d), std::move(srcs));
    if (op != Opcode::ATOMS)
      in.mods.set(Mod::E);
    if (hint)
      in.mods.set(Mod::HINT);
    orderMods(in);
    checkAllowed(in);
    emit(std::move(in));
    return true;
  }
  for (unsigned k = 0; k < vec; ++k) {
    OOp at = addr;
    at.imm += int64_t(k) * elemBytes;
    PtxType vt = t.kind == PtxType::Packed || (t.kind == PtxType::Float && t.bits == 16)
                     ? PtxType{PtxType::Bits, t.bits}
                     : t;
    if (t.kind == PtxType::Packed)
      vt = PtxType{PtxType::Bits, 32};
    uint16_t kinds = ori::K_REG | ori::K_IMM;
    std::vector<OOp> srcs{at, L.source(*bs[k], vt, kinds)};
    if (*aop == Mod::CAS)
      srcs.push_back(src(first + 2, vt, kinds));
    if (hint)
      srcs.push_back(src(ops.size() - 1, kU64, ori::K_REG));
    ori::Instr in = make(op, {*aop}, {}, std::move(srcs));
    if (op != Opcode::ATOMS)
      in.mods.set(Mod::E);
    for (Mod m : *typeMods)
      in.mods.set(m);
    if (hint)
      in.mods.set(Mod::HINT);
    orderMods(in);
    if (isRed && op == Opcode::ATOMS)
      in.dsts.push_back(kRZ); // red.shared: ATOMS with no result
    else if (!isRed)
      in.dsts.push_back(dsts[k]->kind == Operand::Kind::Sink ? kRZ : reg(L.destination(*dsts[k])));
    if (f32 && (op == Opcode::ATOMG || op == Opcode::REDG))
      in.mods.set(Mod::FTZ);
    checkAllowed(in);
    if (inShared) {
      ori::Instr g = in;
      in.guard = guardShared;
      g.guard = guardGlobal;
      g.mods.set(Mod::FTZ);
      emit(std::move(in));
      emit(std::move(g));
      continue;
    }
    emit(std::move(in));
  }
  return true;
}

// membar.{cta,gl,sys}; fence{.sc,.acq_rel,.acquire,.release}.scope (no .sem: .acq_rel);
// fence.proxy.alias, membar.proxy.alias, fence.proxy.async{.global,.shared::cta,.shared::cluster}.
bool Lowering::fence() {
  need(0);
  if (hasMod(pi, ".proxy")) {
    onlyMods(pi, {".proxy", ".alias", ".async", ".global", ".shared::cta", ".shared::cluster"});
    ori::Instr in = make(Opcode::FENCE, {}, {}, {});
    if (hasMod(pi, ".alias") == hasMod(pi, ".async"))
      return false;
    in.mods.set(hasMod(pi, ".alias") ? Mod::ALIAS : Mod::ASYNC);
    int spaces =
        hasMod(pi, ".global") + hasMod(pi, ".shared::cta") + hasMod(pi, ".shared::cluster");
    if (spaces > 1 || (spaces && hasMod(pi, ".alias")) ||
        (pi.opcode == "membar" && !hasMod(pi, ".alias")))
      return false;
    if (hasMod(pi, ".global"))
      in.mods.set(Mod::SP_GLOBAL);
    if (hasMod(pi, ".shared::cta"))
      in.mods.set(Mod::SP_SHARED);
    if (hasMod(pi, ".shared::cluster"))
      in.mods.set(Mod::SP_SHARED_CLUSTER);
    emit(std::move(in));
    return true;
  }
  ori::Instr in = make(Opcode::MEMBAR, {}, {}, {});
  if (pi.opcode == "membar") {
    onlyMods(pi, {".cta", ".gl", ".sys"});
    if (pi.mods.size() != 1)
      return false;
    in.mods.set(Mod::SC); // PTX ISA: membar.level is fence.sc with scope cta, gpu, sys
    in.mods.set(hasMod(pi, ".cta") ? Mod::CTA : hasMod(pi, ".gl") ? Mod::GPU : Mod::SYS);
    emit(std::move(in));
    return true;
  }
  onlyMods(pi, {".sc", ".acq_rel", ".acquire", ".release", ".cta", ".cluster", ".gpu", ".sys"});
  orderMods(in);
  if (!in.mods.inGroup(ori::ModGroup::MemScope) || pi.mods.size() > 2)
    return false;
  if (!in.mods.inGroup(ori::ModGroup::MemOrder))
    in.mods.set(Mod::ACQ_REL); // PTX: .sem defaults to .acq_rel
  emit(std::move(in));
  return true;
}

bool Lowering::nanosleep() {
  onlyMods(pi, {});
  need(1);
  if (lastType(pi).kind != PtxType::Unsigned || lastType(pi).bits != 32)
    return false;
  emit(make(Opcode::NANOSLEEP, {}, {}, {src(0, PtxType{PtxType::Unsigned, 32})}));
  return true;
}

// The address of prefetch, applypriority, discard: [R+imm] or [sym+imm].
static std::optional<OOp> plainAddress(Lowering &lw, const Operand &a) {
  if (a.kind != Operand::Kind::Address || a.name.empty() || a.ival < INT32_MIN ||
      a.ival > INT32_MAX)
    return std::nullopt;
  NameRef r = lw.L.resolve(a.name);
  if (r.kind == NameRef::Register && r.reg.isGeneral())
    return OOp::mem(r.reg, a.ival);
  if (r.kind == NameRef::Variable && a.ival >= 0)
    return OOp::mem(std::nullopt, a.ival, r.symbol);
  return std::nullopt;
}

// prefetch{.global,.local}.{L1,L2}, prefetch.global.L2::evict_{last,normal}, prefetchu.L1,
// applypriority{.global}.L2::evict_normal [a], 128, discard{.global}.L2 [a], 128.
bool Lowering::cacheControl() {
  const bool sized = pi.opcode == "applypriority" || pi.opcode == "discard";
  need(sized ? 2 : 1);
  std::optional<OOp> a = plainAddress(*this, ops[0]);
  if (!a)
    return false;
  ori::Instr in = make(Opcode::CCTL, {}, {}, {*a});
  if (hasMod(pi, ".global"))
    in.mods.set(Mod::SP_GLOBAL);
  if (hasMod(pi, ".local"))
    in.mods.set(Mod::SP_LOCAL);
  if (pi.opcode == "prefetchu") {
    onlyMods(pi, {".L1"});
    if (!hasMod(pi, ".L1"))
      return false;
    in.mods.set(Mod::PFU);
  } else if (pi.opcode == "prefetch") {
    onlyMods(pi, {".global", ".local", ".L1", ".L2", ".L2::evict_last", ".L2::evict_normal"});
    int levels = hasMod(pi, ".L1") + hasMod(pi, ".L2") + hasMod(pi, ".L2::evict_last") +
                 hasMod(pi, ".L2::evict_normal");
    if (levels != 1 || (hasMod(pi, ".local") && hasMod(pi, ".global")))
      return false;
    if ((hasMod(pi, ".L2::evict_last") || hasMod(pi, ".L2::evict_normal")) &&
        !hasMod(pi, ".global"))
      return false;
    in.mods.set(hasMod(pi, ".L1") ? Mod::PF1 : Mod::PF2);
    if (hasMod(pi, ".L2::evict_last"))
      in.mods.set(Mod::L2_EL);
    if (hasMod(pi, ".L2::evict_normal"))
      in.mods.set(Mod::L2_EN);
  } else {
    const bool apply = pi.opcode == "applypriority";
    onlyMods(pi, {".global", apply ? ".L2::evict_normal" : ".L2"});
    if (!hasMod(pi, apply ? ".L2::evict_normal" : ".L2"))
      return false;
    if (ops[1].kind != Operand::Kind::Int || ops[1].ival != 128)
      L.fail(ops[1].loc, fmt::format("{} takes the size 128 (PTX ISA 9.0)", pi.opcode));
    in.mods.set(apply ? Mod::APPLYPRIORITY : Mod::DISCARD);
    if (apply)
      in.mods.set(Mod::L2_EN);
    in.srcs.push_back(imm(128));
  }
  emit(std::move(in));
  return true;
}

// isspacep.{global,shared{::cta,::cluster},local,const,param{::entry}} p, a.
bool Lowering::isspacep() {
  static constexpr std::pair<std::string_view, Mod> kSpaces[] = {
      {".global", Mod::SP_GLOBAL},      {".shared", Mod::SP_SHARED},
      {".shared::cta", Mod::SP_SHARED}, {".shared::cluster", Mod::SP_SHARED_CLUSTER},
      {".local", Mod::SP_LOCAL},        {".const", Mod::SP_CONST},
      {".param", Mod::SP_PARAM},        {".param::entry", Mod::SP_PARAM}};
  need(2);
  std::optional<Mod> space;
  for (const std::string &m : pi.mods) {
    bool known = false;
    for (auto [text, mod] : kSpaces)
      if (m == text) {
        known = true;
        if (space)
          return false;
        space = mod;
      }
    if (!known)
      return false;
  }
  if (!space)
    return false;
  ori::Reg d = dst(0);
  if (!d.isPredicate())
    return false;
  NameRef r = ops[1].kind == Operand::Kind::Name ? L.resolve(ops[1].name) : NameRef{};
  if (r.kind != NameRef::Register || !r.reg.isGeneral())
    return false;
  const bool wide = L.regBits(r.reg) == 64;
  ori::Instr in = make(Opcode::QSPC, {*space}, {reg(d)}, {reg(r.reg)});
  if (wide)
    in.mods.set(Mod::W64);
  emit(std::move(in));
  return true;
}

// createpolicy.fractional.L2::p{.L2::s}.b64 d{, fraction}; createpolicy.range{.global}.L2::p
// {.L2::s}.b64 d, [a], primary-size, total-size; createpolicy.cvt.L2.b64 d, access-property.
bool Lowering::createpolicy() {
  static constexpr std::pair<std::string_view, Mod> kPrimary[] = {
      {".L2::evict_normal", Mod::L2_EN},
      {".L2::evict_first", Mod::L2_EF},
      {".L2::evict_last", Mod::L2_EL},
      {".L2::evict_unchanged", Mod::L2_EU}};
  onlyMods(pi, {".fractional", ".range", ".cvt", ".global", ".L2", ".L2::evict_normal",
                ".L2::evict_first", ".L2::evict_last", ".L2::evict_unchanged"});
  PtxType t = lastType(pi);
  if (t.bits != 64 || t.kind != PtxType::Bits)
    return false;
  const int kinds = hasMod(pi, ".fractional") + hasMod(pi, ".range") + hasMod(pi, ".cvt");
  if (kinds != 1)
    return false;
  ori::Reg d = dst(0);
  ori::Instr in = make(Opcode::CREATEPOLICY, {}, {reg(d)}, {});
  if (hasMod(pi, ".cvt")) {
    if (!hasMod(pi, ".L2") || pi.mods.size() != 3)
      return false;
    need(2);
    in.mods.set(Mod::CVT);
    in.srcs.push_back(src(1, kU64, ori::K_REG));
    emit(std::move(in));
    return true;
  }
  // The priorities in order: the first is the primary, a second the secondary.
  std::vector<Mod> prio;
  for (const std::string &m : pi.mods)
    for (auto [text, mod] : kPrimary)
      if (m == text)
        prio.push_back(mod);
  if (prio.empty() || prio.size() > 2 || hasMod(pi, ".L2"))
    return false;
  in.mods.set(prio[0]);
  if (prio.size() == 2) {
    if (prio[1] != Mod::L2_EF && prio[1] != Mod::L2_EU)
      return false;
    in.mods.set(prio[1] == Mod::L2_EF ? Mod::L2_SEF : Mod::L2_SEU);
  }
  if (hasMod(pi, ".fractional")) {
    if (hasMod(pi, ".global") || ops.size() > 2)
      return false;
    in.mods.set(Mod::FRACTIONAL);
    if (ops.size() == 2) {
      const Operand &f = ops[1];
      PtxType f32{PtxType::Float, 32};
      if (f.kind == Operand::Kind::Float) {
        if (!(f.fval > 0 && f.fval <= 1))
          L.fail(f.loc, "createpolicy's fraction must be in (0, 1] (PTX ISA 9.0)");
        in.srcs.push_back(src(1, f32, ori::K_FIMM));
      } else {
        in.srcs.push_back(src(1, f32, ori::K_REG));
      }
    }
    emit(std::move(in));
    return true;
  }
  need(4);
  in.mods.set(Mod::RANGE);
  if (hasMod(pi, ".global"))
    in.mods.set(Mod::SP_GLOBAL);
  std::optional<OOp> a = plainAddress(*this, ops[1]);
  if (!a)
    return false;
  PtxType u32{PtxType::Unsigned, 32};
  in.srcs = {reg(addressValue(*a)), src(2, u32), src(3, u32)};
  emit(std::move(in));
  return true;
}

// alloca.type ptr, size{, align}; stacksave.type d; stackrestore.type a (.u32 or .u64).
bool Lowering::stack() {
  onlyMods(pi, {});
  PtxType t = lastType(pi);
  if (t.kind != PtxType::Unsigned || (t.bits != 32 && t.bits != 64))
    return false;
  ori::Instr in;
  if (pi.opcode == "stacksave") {
    need(1);
    in = make(Opcode::STACKSAVE, {}, {reg(dst(0))}, {});
  } else if (pi.opcode == "stackrestore") {
    need(1);
    in = make(Opcode::STACKRESTORE, {}, {}, {srcReg(0, t)});
  } else {
    if (ops.size() != 2 && ops.size() != 3)
      return false;
    std::vector<OOp> srcs{src(1, t)};
    if (ops.size() == 3) {
      if (ops[2].kind != Operand::Kind::Int || ops[2].ival <= 0 ||
          (ops[2].ival & (ops[2].ival - 1)) || ops[2].ival > (int64_t(1) << 23))
        L.fail(ops[2].loc, "alloca's alignment must be a power of 2 up to 2^23 (PTX ISA 9.0)");
      srcs.push_back(imm(ops[2].ival));
    }
    in = make(Opcode::ALLOCA, {}, {reg(dst(0))}, std::move(srcs));
  }
  if (t.bits == 64)
    in.mods.set(Mod::W64);
  emit(std::move(in));
  return true;
}

} // namespace ori::ptx::lowering
