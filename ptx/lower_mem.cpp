// PTX -> Ori, one instruction: compares, selects, conversions, address
// conversions, loads, stores, atomics, votes and control flow (see lowering.h;
// barriers, shuffles, matches and warp reductions are in lower_warp.cpp).
#include <fmt/format.h>

#include <span>

#include "ir/param_window.h"
#include "ptx/lowering.h"

namespace ori::ptx::lowering {

namespace {

constexpr std::pair<std::string_view, Mod> kIntCompares[] = {
    {".eq", Mod::EQ}, {".ne", Mod::NE}, {".lt", Mod::LT}, {".le", Mod::LE}, {".gt", Mod::GT},
    {".ge", Mod::GE}, {".lo", Mod::LT}, {".ls", Mod::LE}, {".hi", Mod::GT}, {".hs", Mod::GE},
};
constexpr std::pair<std::string_view, Mod> kFloatCompares[] = {
    {".eq", Mod::EQ},   {".ne", Mod::NE},    {".lt", Mod::LT},   {".le", Mod::LE},
    {".gt", Mod::GT},   {".ge", Mod::GE},    {".equ", Mod::EQU}, {".neu", Mod::NEU},
    {".ltu", Mod::LTU}, {".leu", Mod::LEU},  {".gtu", Mod::GTU}, {".geu", Mod::GEU},
    {".num", Mod::NUM}, {".nan", Mod::NAN_},
};

std::optional<ori::Space> spaceOf(const Instruction &pi) {
  static constexpr std::pair<std::string_view, ori::Space> kSpaces[] = {
      {".global", ori::Space::Global},      {".shared", ori::Space::Shared},
      {".shared::cta", ori::Space::Shared}, {".local", ori::Space::Local},
      {".const", ori::Space::Const},        {".param", ori::Space::Param},
      {".param::entry", ori::Space::Param}, {".param::func", ori::Space::Param},
  };
  for (auto [text, s] : kSpaces)
    if (hasMod(pi, text))
      return s;
  return std::nullopt; // generic
}

// The width modifier of an access of `t` (8/16-bit: sign or zero extension).
std::optional<Mod> widthMod(PtxType t) {
  if (t.bits == 8)
    return t.kind == PtxType::Signed ? Mod::S8 : Mod::U8;
  if (t.bits == 16)
    return t.kind == PtxType::Signed ? Mod::S16 : Mod::U16;
  if (t.bits == 64)
    return Mod::W64;
  return std::nullopt;
}

} // namespace

bool Lowering::setp() {
  if (ops.empty())
    return false;
  OOp p = kPT, q = kPT;
  if (ops[0].kind == Operand::Kind::Pair) {
    if (ops[0].elems[0].kind != Operand::Kind::Sink)
      p = reg(L.destination(ops[0].elems[0]));
    if (ops[0].elems[1].kind != Operand::Kind::Sink)
      q = reg(L.destination(ops[0].elems[1]));
  } else {
    p = reg(dst(0));
  }
  if (!p.reg.isPredicate() || !q.reg.isPredicate())
    return false;
  return compare(p, q, 1, lastType(pi));
}

bool Lowering::compare(OOp p, OOp q, size_t first, PtxType t) {
  bool isFloat = t.kind == PtxType::Float;
  std::optional<Mod> cmp, boolOp;
  bool unsignedOrder = false; // .lo .ls .hi .hs
  for (const std::string &m : pi.mods) {
    if (parseType(m).kind != PtxType::None)
      continue;
    bool known = false;
    std::span<const std::pair<std::string_view, Mod>> compares = kIntCompares;
    if (isFloat)
      compares = kFloatCompares;
    for (auto [text, mod] : compares)
      if (m == text) {
        cmp = mod;
        known = true;
      }
    if (m == ".lo" || m == ".ls" || m == ".hi" || m == ".hs")
      unsignedOrder = !isFloat;
    if (m == ".and") {
      boolOp = Mod::AND;
      known = true;
    }
    if (m == ".or") {
      boolOp = Mod::OR;
      known = true;
    }
    if (m == ".xor") {
      boolOp = Mod::XOR;
      known = true;
    }
    if (m == ".ftz" && isFloat && t.bits == 32)
      known = true;
    if (!known)
      return false;
  }
  if (!cmp || ops.size() != first + (boolOp ? 3u : 2u))
    return false;
  bool narrow = t.isInt() && t.bits == 16;
  if (isFloat ? (t.bits != 32 && t.bits != 64) : !(isInt32or64(t) || narrow))
    return false;
  PtxType pred{PtxType::Pred, 1};
  OOp c = boolOp ? src(first + 2, pred, ori::K_PRED | ori::K_REG) : kPT;
  ori::Instr in;
  if (isFloat) {
    uint16_t k = ori::K_REG | ori::K_FIMM;
    in = make(t.bits == 32 ? Opcode::FSETP : Opcode::DSETP, {*cmp, boolOp.value_or(Mod::AND)},
              {p, q}, {src(first, t, k), src(first + 1, t, k), c});
    if (hasMod(pi, ".ftz"))
      in.mods.set(Mod::FTZ);
  } else {
    bool isUnsigned = t.kind != PtxType::Signed || unsignedOrder;
    Mod type =
        t.bits == 64 ? (isUnsigned ? Mod::U64 : Mod::S64) : (isUnsigned ? Mod::U32 : Mod::S32);
    OOp a, b;
    if (narrow) { // equality and unsigned orders on the zero-extended values, signed ones
                  // sign-extended
      bool sext = !isUnsigned && *cmp != Mod::EQ && *cmp != Mod::NE;
      if (!sext)
        type = Mod::U32;
      a = narrowSrc(first, t, sext);
      b = narrowSrc(first + 1, t, sext);
    } else {
      a = src(first, t);
      b = src(first + 1, t);
    }
    in = make(Opcode::ISETP, {*cmp, type, boolOp.value_or(Mod::AND)}, {p, q}, {a, b, c});
  }
  emit(std::move(in));
  return true;
}

bool Lowering::selp() {
  onlyMods(pi, {});
  need(4);
  return select(lastType(pi), src(3, PtxType{PtxType::Pred, 1}, ori::K_PRED | ori::K_REG));
}

// cvta{.to}.space.u64: global addresses are generic; the shared, local and constant windows
// start at SR_SWINBASE, SR_LWINBASE and SR_CWINBASE (docs/interpreter.md). cvta{.to}.global.u32
// (32-bit addresses: .address_size 32) is a 32-bit MOV, exact for the same reason; the other
// .u32 forms stay OPAQUE: the interpreter's windows lie above 4 GiB. cvta{.to}.param{::entry}
// in a kernel: the generic base of its parameters is the word at c[0x0][0x198], as ptxas 13.0
// has it (ir/param_window.h); .param::func and .param in a .func stay OPAQUE.
bool Lowering::cvta() {
  onlyMods(pi, {".to", ".global", ".shared", ".shared::cta", ".local", ".const", ".param",
                ".param::entry"});
  need(2);
  PtxType t = lastType(pi);
  std::optional<ori::Space> space = spaceOf(pi);
  if (!space || (t.bits != 64 && !(t.bits == 32 && *space == ori::Space::Global)))
    return false;
  if (*space == ori::Space::Param) {
    if (!L.f_.isEntry)
      return false;
    ori::Reg d = dst(0);
    if (!hasMod(pi, ".to") && ops[1].kind == Operand::Kind::Int && ops[1].ival == 0) {
      // the first parameter's generic address: the base alone (as the emitter prints it)
      emit(make(Opcode::LDC, {Mod::W64}, {reg(d)}, {OOp::cbank(0, ori::kParamWindowPointer)}));
      return true;
    }
    OOp a = srcReg(1, t);
    ori::Reg base = L.newTemp(ori::RegFile::R, "b64");
    emit(make(Opcode::LDC, {Mod::W64}, {reg(base)}, {OOp::cbank(0, ori::kParamWindowPointer)}));
    emit(make(Opcode::IADD3, {}, {reg(d)}, {a, reg(base, hasMod(pi, ".to")), kRZ}), true);
    return true;
  }
  ori::Reg d = dst(0);
  if (*space == ori::Space::Global) { // global addresses are generic addresses here
    emit(make(Opcode::MOV, {}, {reg(d)}, {src(1, t, ori::K_REG | ori::K_SYM)}), t.bits == 64);
    return true;
  }
  OOp a = srcReg(1, t);
  ori::Reg base = L.newTemp(ori::RegFile::R, "b64");
  ori::SpecialReg window = *space == ori::Space::Shared  ? ori::SpecialReg::SWINBASE
                           : *space == ori::Space::Local ? ori::SpecialReg::LWINBASE
                                                         : ori::SpecialReg::CWINBASE;
  emit(make(Opcode::S2R, {}, {reg(base)}, {OOp::special(window)}));
  emit(make(Opcode::IADD3, {}, {reg(d)}, {a, reg(base, hasMod(pi, ".to")), kRZ}), true);
  return true;
}

namespace {
// Modifiers a load or store may carry and still be native: the state spaces, vectors, and the
// qualifiers below (none changes what a single thread sees; the Ori instruction keeps them).
const std::initializer_list<std::string_view> kMemMods = {
    ".global",
    ".shared",
    ".shared::cta",
    ".local",
    ".const",
    ".param",
    ".param::entry",
    ".param::func",
    ".volatile",
    ".nc",
    ".weak",
    ".v2",
    ".v4",
    ".v8",
    ".relaxed",
    ".acquire",
    ".release",
    ".mmio",
    ".cta",
    ".cluster",
    ".gpu",
    ".sys",
    ".ca",
    ".cg",
    ".cs",
    ".lu",
    ".cv",
    ".wb",
    ".wt",
    ".L1::evict_normal",
    ".L1::evict_unchanged",
    ".L1::evict_first",
    ".L1::evict_last",
    ".L1::no_allocate",
    ".L2::evict_normal",
    ".L2::evict_first",
    ".L2::evict_last",
    ".L2::64B",
    ".L2::128B",
    ".L2::256B",
    ".L2::cache_hint",
};
constexpr std::pair<std::string_view, Mod> kQualifiers[] = {
    {".relaxed", Mod::RELAXED},
    {".acquire", Mod::ACQUIRE},
    {".release", Mod::RELEASE},
    {".mmio", Mod::MMIO},
    {".cta", Mod::CTA},
    {".cluster", Mod::CLUSTER},
    {".gpu", Mod::GPU},
    {".sys", Mod::SYS},
    {".ca", Mod::CA},
    {".cg", Mod::CG},
    {".cs", Mod::CS},
    {".lu", Mod::LU},
    {".cv", Mod::CV},
    {".wb", Mod::WB},
    {".wt", Mod::WT},
    {".L1::evict_normal", Mod::L1_EN},
    {".L1::evict_unchanged", Mod::L1_EU},
    {".L1::evict_first", Mod::L1_EF},
    {".L1::evict_last", Mod::L1_EL},
    {".L1::no_allocate", Mod::L1_NA},
    {".L2::evict_normal", Mod::L2_EN},
    {".L2::evict_first", Mod::L2_EF},
    {".L2::evict_last", Mod::L2_EL},
    {".L2::64B", Mod::L2_64B},
    {".L2::128B", Mod::L2_128B},
    {".L2::256B", Mod::L2_256B},
    {".L2::cache_hint", Mod::HINT},
};
} // namespace

// PTX ISA 9.0, "ld" and "st": .weak (the default), .volatile, .relaxed.scope, .acquire.scope
// (loads), .release.scope (stores) and .mmio.relaxed.sys exclude each other; cache operators
// (.ca .cg .cs .lu .cv for loads, .wb .cg .cs .wt for stores) go with neither .volatile nor an
// ordering; at most one of each kind of hint.
bool Lowering::memoryQualifiers(ori::Instr &in, bool isLoad) const {
  ori::ModSet q;
  for (const std::string &m : pi.mods)
    for (auto [text, mod] : kQualifiers)
      if (m == text) {
        if (auto other = q.inGroup(ori::modGroup(mod));
            other && !(mod == Mod::MMIO || *other == Mod::MMIO))
          return false;
        q.set(mod);
      }
  const int orders = hasMod(pi, ".weak") + hasMod(pi, ".volatile") + q.test(Mod::RELAXED) +
                     q.test(Mod::ACQUIRE) + q.test(Mod::RELEASE);
  if (orders > 1 || (q.test(Mod::ACQUIRE) && !isLoad) || (q.test(Mod::RELEASE) && isLoad))
    return false;
  const bool ordered = q.inGroup(ori::ModGroup::MemOrder).has_value();
  if (ordered != q.inGroup(ori::ModGroup::MemScope).has_value())
    return false;          // .relaxed etc. need a scope
  if (q.test(Mod::MMIO)) { // ld/st.mmio.relaxed.sys: one qualifier, MMIO
    if (!q.test(Mod::RELAXED) || !q.test(Mod::SYS))
      return false;
    q.reset(Mod::RELAXED);
  }
  if (auto cop = q.inGroup(ori::ModGroup::CacheOp)) {
    if (ordered || hasMod(pi, ".volatile"))
      return false;
    const bool loadOp =
        *cop == Mod::CA || *cop == Mod::CG || *cop == Mod::CS || *cop == Mod::LU || *cop == Mod::CV;
    const bool storeOp = *cop == Mod::WB || *cop == Mod::CG || *cop == Mod::CS || *cop == Mod::WT;
    if (isLoad ? !loadOp : !storeOp)
      return false;
  }
  if (!isLoad && q.inGroup(ori::ModGroup::Prefetch))
    return false;
  for (Mod m : q.list())
    in.mods.set(m);
  return true;
}

// Lowers ld/st's address for element byte offset `extra`. Returns the opcode
// to use (by state space) and the address operand; entry parameters read
// constant bank 0 (LDC).
struct Access {
  Opcode op;
  OOp addr;
};
constexpr uint32_t kConstDataBank = 3; // docs/interpreter.md: c[0x3] is the module's .const data

static std::optional<Access> accessFor(Lowering &lw, bool isLoad, int64_t extra) {
  const Operand &a = isLoad ? lw.ops[1] : lw.ops[0];
  if (a.kind != Operand::Kind::Address)
    return std::nullopt;
  std::optional<ori::Space> space = spaceOf(lw.pi);
  int64_t off = a.ival + extra;
  if (off < INT32_MIN || off > INT32_MAX)
    return std::nullopt;
  auto byBase = [&](ori::Space s) -> std::optional<Opcode> {
    switch (s) {
    case ori::Space::Global:
      return isLoad ? Opcode::LDG : Opcode::STG;
    case ori::Space::Shared:
      return isLoad ? Opcode::LDS : Opcode::STS;
    case ori::Space::Local:
      return isLoad ? Opcode::LDL : Opcode::STL;
    default:
      return std::nullopt;
    }
  };
  // ld.const through a register or at an absolute address: the module's .const data is
  // constant bank 3, as SASS reads __constant__ data (LDC R, c[0x3][Ra+off]).
  if (isLoad && space == ori::Space::Const && off >= 0 && off <= 0xFFFF) {
    if (a.name.empty())
      return Access{Opcode::LDC, OOp::cbank(kConstDataBank, off)};
    NameRef r = lw.L.resolve(a.name);
    if (r.kind == NameRef::Register && r.reg.isGeneral()) {
      OOp c = OOp::cbank(kConstDataBank, off);
      c.hasReg = true;
      c.reg = r.reg;
      return Access{Opcode::LDC, c};
    }
  }
  if (a.name.empty()) { // [0x100]
    if (off < 0 || (space && (*space == ori::Space::Const || *space == ori::Space::Param)))
      return std::nullopt;
    auto op = space ? byBase(*space) : std::optional<Opcode>(isLoad ? Opcode::LD : Opcode::ST);
    if (!op)
      return std::nullopt;
    return Access{*op, OOp::mem(std::nullopt, off)};
  }
  NameRef r = lw.L.resolve(a.name);
  switch (r.kind) {
  case NameRef::Register: {
    if (!r.reg.isGeneral())
      return std::nullopt;
    // ld.param through a register in a kernel: the address `mov.u64 %rd, p` gave a kernel
    // parameter, its offset in the parameters (docs/ptx.md, "Conventions of the lowering"),
    // which constant bank 0 holds from kParamBase on.
    if (isLoad && space == ori::Space::Param && lw.L.f_.isEntry && off >= 0 && off <= 0xFFFF) {
      OOp c = OOp::cbank(0, off + ori::kParamBase);
      c.hasReg = true;
      c.reg = r.reg;
      return Access{Opcode::LDC, c};
    }
    auto op = space ? byBase(*space) : std::optional<Opcode>(isLoad ? Opcode::LD : Opcode::ST);
    if (!op)
      return std::nullopt;
    return Access{*op, OOp::mem(r.reg, off)};
  }
  case NameRef::Variable: {
    // [sym]: the variable's own state space decides; LD/ST for const and param.
    std::optional<Opcode> op;
    if (space && (*space == ori::Space::Global || *space == ori::Space::Shared ||
                  *space == ori::Space::Local))
      op = byBase(*space);
    else
      op = isLoad ? Opcode::LD : Opcode::ST;
    if (off < 0)
      return std::nullopt;
    return Access{*op, OOp::mem(std::nullopt, off, r.symbol)};
  }
  case NameRef::EntryParam: {
    if (!isLoad || space != ori::Space::Param || off < 0 || uint64_t(off) >= r.param->size)
      return std::nullopt;
    return Access{Opcode::LDC, OOp::cbank(0, int64_t(r.param->offset) + off)};
  }
  case NameRef::None:
    if (a.name[0] == '%')
      lw.L.fail(a.loc, fmt::format("undeclared register '{}'", a.name));
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

bool Lowering::load() {
  onlyMods(pi, kMemMods);
  const bool hint = hasMod(pi, ".L2::cache_hint");
  need(hint ? 3 : 2);
  PtxType t = lastType(pi);
  if (t.bits == 128)
    return access128(true);
  if (t.kind == PtxType::None || t.kind == PtxType::Pred || t.bits > 64)
    return false;
  std::vector<const Operand *> elems;
  if (ops[0].kind == Operand::Kind::Vector)
    for (const Operand &e : ops[0].elems)
      elems.push_back(&e);
  else
    elems.push_back(&ops[0]);
  if (hasMod(pi, ".v2") + hasMod(pi, ".v4") + hasMod(pi, ".v8") != (elems.size() > 1 ? 1 : 0))
    return false;
  if (pi.opcode == "ldu" && pi.mods.size() > 3)
    return false;
  bool global = pi.opcode == "ldu" || spaceOf(pi) == ori::Space::Global;
  for (size_t k = 0; k < elems.size(); ++k) {
    if (elems[k]->kind == Operand::Kind::Sink)
      continue;
    auto acc = accessFor(*this, true, int64_t(k * (t.bits / 8)));
    if (!acc)
      return false;
    ori::Reg d = L.destination(*elems[k]);
    ori::Instr in = make(acc->op, {}, {reg(d)}, {acc->addr});
    // A narrow register holds its value zero-extended (docs/ptx.md): a 16-bit one takes a
    // 16-bit value as it is, an 8-bit signed value sign-extended to 16 bits, then masked.
    unsigned rw = L.regBits(d);
    bool narrowReg = t.bits < 32 && rw <= 16,
         signInside = narrowReg && t.kind == PtxType::Signed && rw > t.bits;
    if (narrowReg && !signInside)
      in.mods.set(t.bits == 8 ? Mod::U8 : Mod::U16);
    else if (auto w = widthMod(t))
      in.mods.set(*w);
    if (acc->op == Opcode::LDG)
      in.mods.set(Mod::E);
    if (hasMod(pi, ".volatile")) {
      if (acc->op == Opcode::LDC)
        return false;
      in.mods.set(Mod::VOLATILE);
    }
    if (hasMod(pi, ".nc") || pi.opcode == "ldu") { // read-only data: the same value one thread sees
      if ((acc->op != Opcode::LDG && !(acc->op == Opcode::LD && pi.opcode == "ldu")) || !global)
        return false;
      in.mods.set(Mod::CONSTANT);
    }
    if (!memoryQualifiers(in, true))
      return false;
    if (hint)
      in.srcs.push_back(src(2, PtxType{PtxType::Unsigned, 64}, ori::K_REG));
    checkAllowed(in);
    emit(std::move(in));
    // A signed value loaded into a wider register is sign-extended to the
    // register's width (PTX ISA, "ld"): the load gives 32 bits, so widen.
    if (t.kind == PtxType::Signed && t.bits < 64 && rw == 64)
      emit(make(Opcode::IMAD, {Mod::WIDE}, {reg(d)}, {reg(d), imm(1), kRZ}));
    if (signInside)
      emit(make(Opcode::LOP3, {Mod::LUT}, {reg(d)}, {reg(d), imm(0xFFFF), kRZ, imm(0xC0)}));
  }
  return true;
}

// ld/st{.weak}{.ss}{.cop}{hints}.b128 (PTX ISA 9.0: sm_70 and up): two 64-bit accesses, the
// low half at a and the high half at a + 8, with the same qualifiers. Only weak accesses:
// one 128-bit .relaxed/.acquire/.release/.volatile access is single-copy atomic, two are
// not (they stay OPAQUE).
bool Lowering::access128(bool isLoad) {
  onlyMods(pi, kMemMods);
  for (std::string_view q :
       {".relaxed", ".acquire", ".release", ".mmio", ".volatile", ".v2", ".v4", ".v8"})
    if (hasMod(pi, q))
      return false;
  const bool hint = hasMod(pi, ".L2::cache_hint");
  need(hint ? 3 : 2);
  auto value = halves128(ops[isLoad ? 0 : 1]);
  if (!value)
    return false;
  for (int k = 0; k < 2; ++k) {
    auto acc = accessFor(*this, isLoad, 8 * k);
    if (!acc || acc->op == Opcode::LDC)
      return false;
    OOp half = k ? value->second : value->first;
    ori::Instr in = isLoad ? make(acc->op, {Mod::W64}, {half}, {acc->addr})
                           : make(acc->op, {Mod::W64}, {}, {acc->addr, half});
    if (acc->op == Opcode::LDG || acc->op == Opcode::STG)
      in.mods.set(Mod::E);
    if (hasMod(pi, ".nc")) {
      if (acc->op != Opcode::LDG)
        return false;
      in.mods.set(Mod::CONSTANT);
    }
    if (!memoryQualifiers(in, isLoad))
      return false;
    if (hint)
      in.srcs.push_back(src(2, PtxType{PtxType::Unsigned, 64}, ori::K_REG));
    checkAllowed(in);
    emit(std::move(in));
  }
  return true;
}

bool Lowering::store() {
  onlyMods(pi, kMemMods);
  const bool hint = hasMod(pi, ".L2::cache_hint");
  need(hint ? 3 : 2);
  PtxType t = lastType(pi);
  if (t.bits == 128 && !hasMod(pi, ".nc"))
    return access128(false);
  if (t.kind == PtxType::None || t.kind == PtxType::Pred || t.bits > 64 || hasMod(pi, ".nc"))
    return false;
  std::vector<const Operand *> elems;
  if (ops[1].kind == Operand::Kind::Vector)
    for (const Operand &e : ops[1].elems)
      elems.push_back(&e);
  else
    elems.push_back(&ops[1]);
  if (hasMod(pi, ".v2") + hasMod(pi, ".v4") + hasMod(pi, ".v8") != (elems.size() > 1 ? 1 : 0))
    return false;
  PtxType valueType = t.bits < 32 ? PtxType{t.kind, 32} : t;
  for (size_t k = 0; k < elems.size(); ++k) {
    if (elems[k]->kind == Operand::Kind::Sink)
      return false;
    auto acc = accessFor(*this, false, int64_t(k * (t.bits / 8)));
    if (!acc || acc->op == Opcode::LDC)
      return false;
    ori::Instr in = make(acc->op, {}, {}, {acc->addr, L.source(*elems[k], valueType, ori::K_REG)});
    if (auto w = widthMod(t))
      in.mods.set(*w == Mod::S8 ? Mod::U8 : *w == Mod::S16 ? Mod::U16 : *w);
    if (acc->op == Opcode::STG)
      in.mods.set(Mod::E);
    if (hasMod(pi, ".volatile"))
      in.mods.set(Mod::VOLATILE);
    if (!memoryQualifiers(in, false))
      return false;
    if (hint)
      in.srcs.push_back(src(2, PtxType{PtxType::Unsigned, 64}, ori::K_REG));
    checkAllowed(in);
    emit(std::move(in));
  }
  return true;
}

// vote.{all,any,uni}.pred d, {!}a and vote.ballot.b32 d, {!}a (.sync with a member mask:
// WARPSYNC mask first), and activemask.b32 d, as SASS has them: VOTE.ALL/ANY/EQ RZ, d, a;
// VOTE.ANY d, PT, a (the ballot); VOTE.ANY d, PT, PT (the active mask).
bool Lowering::vote() {
  PtxType u32{PtxType::Unsigned, 32}, pred{PtxType::Pred, 1};
  if (pi.opcode == "activemask") {
    onlyMods(pi, {});
    need(1);
    emit(make(Opcode::VOTE, {Mod::ANY}, {reg(dst(0)), kPT}, {kPT}));
    return true;
  }
  onlyMods(pi, {".all", ".any", ".uni", ".ballot", ".sync"});
  bool sync = hasMod(pi, ".sync");
  need(sync ? 3 : 2);
  if (sync)
    emit(make(Opcode::WARPSYNC, {}, {}, {src(2, u32)}));
  // The predicate may be a constant: ptxas takes 0 and 1 (PT and !PT here).
  OOp a = ops[1].kind == Operand::Kind::Int ? (ops[1].ival ? kPT : kNotPT)
                                            : src(1, pred, ori::K_PRED | ori::K_REG);
  if (hasMod(pi, ".ballot")) {
    emit(make(Opcode::VOTE, {Mod::ANY}, {reg(dst(0)), kPT}, {a}));
    return true;
  }
  Mod m = hasMod(pi, ".all")   ? Mod::ALL
          : hasMod(pi, ".any") ? Mod::ANY
          : hasMod(pi, ".uni") ? Mod::EQ_V
                               : Mod::U;
  if (m == Mod::U)
    return false;
  emit(make(Opcode::VOTE, {m}, {kRZ, reg(dst(0))}, {a}));
  return true;
}

bool Lowering::bra() {
  onlyMods(pi, {".uni"});
  need(1);
  if (ops[0].kind != Operand::Kind::Name)
    return false;
  L.branchTo(ops[0].name, ops[0].loc);
  emit(make(Opcode::BRA, {}, {}, {OOp::label(0)}));
  if (hasMod(pi, ".uni"))
    L.lastPendingMods().set(Mod::U);
  return true;
}

bool Lowering::brx() {
  onlyMods(pi, {".idx", ".uni"});
  need(2);
  if (!hasMod(pi, ".idx") || ops[1].kind != Operand::Kind::Name)
    return false;
  OOp index = srcReg(0, PtxType{PtxType::Unsigned, 32});
  uint32_t table = L.jumpTable(ops[1].name, ops[1].loc);
  ori::Instr in = make(Opcode::BRX, {}, {}, {index, OOp::jumpTable(table)});
  if (hasMod(pi, ".uni"))
    in.mods.set(Mod::U);
  emit(std::move(in));
  return true;
}

bool Lowering::retExit() {
  onlyMods(pi, {".uni"});
  need(0);
  emit(make(pi.opcode == "ret" ? Opcode::RET : Opcode::EXIT, {}, {}, {}));
  return true;
}

// trap -> TRAP (PTX ISA 9.0 "trap": abort execution; no modifiers, no operands).
bool Lowering::trap() {
  onlyMods(pi, {});
  need(0);
  emit(make(Opcode::TRAP, {}, {}, {}));
  return true;
}

// call (rets), target, (args){, proto}: every call is a CALL, which ends its block. The target
// is a function of the module (defined, declared, or declared by the lowering because the PTX
// names it without declaring it: OptiX's _rt_* runtime calls) or, for an indirect call, a
// register holding a function's address. The prototype or .calltargets label of an indirect
// call is not kept: --emit=ptx writes a prototype from the argument variables. Arguments and
// results are .param variables, or registers where the PTX passes registers.
bool Lowering::call() {
  onlyMods(pi, {".uni"});
  size_t i = 0;
  std::vector<OOp> rets, args;
  const Operand *retList = nullptr;
  auto operandList = [&](const Operand &list, std::vector<OOp> &out) {
    for (const Operand &e : list.elems) {
      if (e.kind == Operand::Kind::Sink || (e.kind == Operand::Kind::Name && e.name == "_")) {
        out.push_back(OOp::symbol("")); // a discarded return value, given a slot below
        continue;
      }
      if (e.kind != Operand::Kind::Name)
        throw NotNative{};
      NameRef r = L.resolve(e.name);
      if (r.kind == NameRef::Variable && L.isParamVariable(r.symbol))
        out.push_back(OOp::symbol(r.symbol));
      else if (r.kind == NameRef::Register && r.reg.isGeneral())
        out.push_back(reg(r.reg));
      else
        throw NotNative{};
    }
  };
  if (i < ops.size() && ops[i].kind == Operand::Kind::Call)
    retList = &ops[i++];
  if (i >= ops.size() || ops[i].kind != Operand::Kind::Name)
    return false;
  NameRef target = L.resolve(ops[i].name);
  OOp callee;
  if (target.kind == NameRef::Function)
    callee = OOp::symbol(target.symbol);
  else if (target.kind == NameRef::Register && target.reg.isGeneral())
    callee = reg(target.reg);
  else
    return false;
  ++i;
  if (i < ops.size() && ops[i].kind == Operand::Kind::Call)
    operandList(ops[i++], args);
  if (i < ops.size() && ops[i].kind == Operand::Kind::Name && callee.isReg())
    ++i; // the prototype label
  if (i != ops.size())
    return false;
  const ori::Function *f = callee.isReg() ? nullptr : L.om_.findFunction(target.symbol);
  if (retList)
    operandList(*retList, rets);
  bool checked = f && !(f->isDeclaration() && f->params.empty() && f->returns.empty() &&
                        (!args.empty() || !rets.empty()));
  if (checked && (rets.size() > f->returns.size() || args.size() != f->params.size()))
    return false;
  for (size_t k = 0; k < rets.size(); ++k)
    if (rets[k].kind == OOp::Kind::Symbol && rets[k].sym.empty()) {
      if (!checked || k >= f->returns.size())
        return false; // a discarded result of unknown type
      rets[k].sym = L.sinkVariable(f->returns[k]);
    }
  std::vector<OOp> srcs{callee};
  srcs.insert(srcs.end(), args.begin(), args.end());
  emit(make(Opcode::CALL, {}, std::move(rets), std::move(srcs)));
  return true;
}

} // namespace ori::ptx::lowering
