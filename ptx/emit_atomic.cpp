// Ori -> PTX: the memory qualifiers of loads and stores, atomics and the memory-system
// instructions (emit_impl.h; docs/ptx.md, "Memory ordering and cache qualifiers"):
//   .RELAXED/.ACQUIRE/.RELEASE/.MMIO with a scope, cache operators, eviction priorities,
//     prefetch sizes, .HINT -> PTX's qualifiers, in the ISA's order;
//   ATOM/ATOMG/ATOMS/RED/REDG -> atom/red (generic, .global, .shared), ATOMS with RZ as its
//     result -> red.shared;
//   MEMBAR -> membar.{cta,gl,sys} (.SC: PTX's fence.sc), fence.{sc,acq_rel,acquire,release}
//     .scope; FENCE -> fence.proxy.*; NANOSLEEP -> nanosleep.u32; CCTL -> prefetch,
//     prefetchu, applypriority, discard; QSPC -> isspacep; CREATEPOLICY -> createpolicy;
//     ALLOCA/STACKSAVE/STACKRESTORE -> alloca/stacksave/stackrestore.
#include <fmt/format.h>

#include <bit>

#include "ir/ori.h"
#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {
namespace {

const char *scopeText(const Instr &in) {
  if (in.has(Mod::CTA))
    return ".cta";
  if (in.has(Mod::CLUSTER))
    return ".cluster";
  if (in.has(Mod::GPU))
    return ".gpu";
  if (in.has(Mod::SYS))
    return ".sys";
  return "";
}

const char *orderText(const Instr &in) {
  if (in.has(Mod::RELAXED))
    return ".relaxed";
  if (in.has(Mod::ACQUIRE))
    return ".acquire";
  if (in.has(Mod::RELEASE))
    return ".release";
  if (in.has(Mod::ACQ_REL))
    return ".acq_rel";
  if (in.has(Mod::SC))
    return ".sc";
  return "";
}

} // namespace

// PTX ISA 9.0, "ld" and "st": the qualifier combinations PTX has (an Ori instruction built by
// hand may carry others, which have no PTX form): .volatile, an ordering (with exactly one
// scope) and .mmio.relaxed.sys exclude each other; cache operators go with none of them nor
// with an eviction priority; .mmio and .volatile take no hints (.volatile a prefetch size);
// orderings only on global, shared and generic addresses; cache operators not on shared;
// hints, eviction priorities and prefetch sizes on global and generic ones only.
void FnEmitter::checkAccessQualifiers(const Instr &in, const std::string &space) {
  auto no = [&](const char *why) {
    fail(in.loc, fmt::format("{}: {} (no PTX form)", printInstr(f, in), why));
  };
  const auto order = in.mods.inGroup(ModGroup::MemOrder);
  const auto scope = in.mods.inGroup(ModGroup::MemScope);
  const auto cop = in.mods.inGroup(ModGroup::CacheOp);
  const bool vol = in.has(Mod::VOLATILE),
             hints = in.mods.inGroup(ModGroup::L1Evict) || in.mods.inGroup(ModGroup::L2Evict) ||
                     in.has(Mod::HINT) || in.mods.inGroup(ModGroup::Prefetch);
  if (vol && order)
    no(".volatile with an ordering");
  if (order.has_value() != scope.has_value())
    no("an ordering needs exactly one scope and a scope an ordering");
  if (order == Mod::MMIO && (scope != Mod::SYS || cop || hints || in.has(Mod::CONSTANT)))
    no(".mmio is .relaxed.sys alone");
  if (order == Mod::MMIO && space != "global" && !space.empty())
    no(".mmio on a space other than .global");
  if (cop &&
      (order || vol || in.mods.inGroup(ModGroup::L1Evict) || in.mods.inGroup(ModGroup::L2Evict)))
    no("a cache operator with an ordering, .volatile or an eviction priority");
  if (vol && (in.mods.inGroup(ModGroup::L1Evict) || in.mods.inGroup(ModGroup::L2Evict) ||
              in.has(Mod::HINT)))
    no(".volatile with an eviction priority or cache hint");
  if (in.has(Mod::CONSTANT) && order)
    no(".nc with an ordering");
  const bool globalish = space.empty() || space == "global";
  if (order && !globalish && space != "shared")
    no("an ordering on a space other than global or shared");
  if (cop && !globalish && space != "local")
    no("a cache operator on a space other than global or local");
  if (hints && !globalish)
    no("a cache hint on a space other than global");
  if ((order || vol || cop || hints) && ctx.sm < 70 &&
      (order || in.mods.inGroup(ModGroup::L1Evict)))
    no("orderings and eviction priorities need sm_70");
  if ((in.has(Mod::HINT) && ctx.sm < 80) || (in.mods.inGroup(ModGroup::Prefetch) && ctx.sm < 75) ||
      (scope == Mod::CLUSTER && ctx.sm < 90))
    no("a qualifier newer than the target");
}

std::string FnEmitter::orderQualifiers(const Instr &in) {
  if (in.has(Mod::MMIO)) {
    ctx.require(8, 2);
    return ".mmio.relaxed.sys";
  }
  std::string s = std::string(orderText(in)) + scopeText(in);
  if (!s.empty())
    ctx.require(in.has(Mod::CLUSTER) ? 7 : 6, in.has(Mod::CLUSTER) ? 8 : 0);
  return s;
}

std::string FnEmitter::cacheQualifiers(const Instr &in) {
  static constexpr std::pair<Mod, const char *> kText[] = {{Mod::CA, ".ca"},
                                                           {Mod::CG, ".cg"},
                                                           {Mod::CS, ".cs"},
                                                           {Mod::LU, ".lu"},
                                                           {Mod::CV, ".cv"},
                                                           {Mod::WB, ".wb"},
                                                           {Mod::WT, ".wt"},
                                                           {Mod::CONSTANT, ".nc"},
                                                           {Mod::L1_EN, ".L1::evict_normal"},
                                                           {Mod::L1_EU, ".L1::evict_unchanged"},
                                                           {Mod::L1_EF, ".L1::evict_first"},
                                                           {Mod::L1_EL, ".L1::evict_last"},
                                                           {Mod::L1_NA, ".L1::no_allocate"},
                                                           {Mod::HINT, ".L2::cache_hint"},
                                                           {Mod::L2_64B, ".L2::64B"},
                                                           {Mod::L2_128B, ".L2::128B"},
                                                           {Mod::L2_256B, ".L2::256B"}};
  std::string s;
  for (auto [m, text] : kText)
    if (in.has(m))
      s += text;
  if (in.mods.inGroup(ModGroup::L1Evict) || in.has(Mod::HINT) ||
      in.mods.inGroup(ModGroup::Prefetch))
    ctx.require(7, 4);
  // .L2::evict_* (L2_E*): PTX takes it only on 256-bit ld/st vectors (sm_100), and a vector
  // access is printed one element at a time: the hint is left out (docs/ptx.md).
  return s;
}

std::string FnEmitter::policySrc(const Instr &in) {
  if (!in.has(Mod::HINT))
    return "";
  return ", " + intSrc(in, in.srcs.size() - 1, 64, true);
}

bool FnEmitter::emitAtomic(const Instr &in) {
  if (!isAtomic(in.op))
    return false;
  auto op = in.mods.inGroup(ModGroup::AtomOp);
  if (!op)
    fail(in.loc, fmt::format("{}: {} needs an operation (.ADD, .MIN, ...)", printInstr(f, in),
                             in.info().name));
  const unsigned bytes = atomicBytes(in.mods), bits = bytes == 8 ? 64 : 32;
  const bool isSigned = in.has(Mod::S32) || in.has(Mod::S64);
  const std::optional<Mod> ftype = in.mods.inGroup(ModGroup::AtomFType);
  std::string name, type;
  static constexpr std::pair<Mod, const char *> kNames[] = {
      {Mod::ADD, "add"},    {Mod::MIN, "min"},     {Mod::MAX, "max"}, {Mod::INC, "inc"},
      {Mod::DEC, "dec"},    {Mod::EXCH, "exch"},   {Mod::CAS, "cas"}, {Mod::ATOM_AND, "and"},
      {Mod::ATOM_OR, "or"}, {Mod::ATOM_XOR, "xor"}};
  for (auto [m, text] : kNames)
    if (*op == m)
      name = text;
  const bool bitwise = *op == Mod::EXCH || *op == Mod::CAS || *op == Mod::ATOM_AND ||
                       *op == Mod::ATOM_OR || *op == Mod::ATOM_XOR;
  if (ftype) {
    if (*op != Mod::ADD)
      fail(in.loc, fmt::format("{}: PTX float atomics here are .add", printInstr(f, in)));
    switch (*ftype) {
    case Mod::AF32:
      type = "f32";
      break;
    case Mod::AF64:
      type = "f64";
      break;
    case Mod::AF16:
      type = "noftz.f16";
      break;
    case Mod::ABF16:
      type = "noftz.bf16";
      break;
    case Mod::AF16X2:
      type = "noftz.f16x2";
      break;
    default:
      type = "noftz.bf16x2";
      break;
    }
    if (*ftype != Mod::AF32 && in.has(Mod::FTZ))
      fail(in.loc, fmt::format("{}: only binary32 atomics flush subnormals", printInstr(f, in)));
    // A width modifier beside the float type (.F16 with .S64) says another access size than
    // the type's: PTX has no such atomic (ptxas: "Arguments mismatch").
    const unsigned floatBytes = *ftype == Mod::AF64                           ? 8
                                : *ftype == Mod::AF16 || *ftype == Mod::ABF16 ? 2
                                                                              : 4;
    if (bytes != floatBytes)
      fail(in.loc, fmt::format("{}: a {}-byte access of a {}-byte float type has no PTX form",
                               printInstr(f, in), bytes, floatBytes));
  } else if (bytes == 2) {
    type = "b16";
  } else if (*op == Mod::INC || *op == Mod::DEC) {
    if (bits == 64)
      fail(in.loc, fmt::format("{}: PTX atom.inc/dec exist for .u32 only", printInstr(f, in)));
    type = "u32";
  } else {
    type = fmt::format("{}{}",
                       bitwise                       ? "b"
                       : isSigned && *op != Mod::ADD ? "s"
                       : isSigned && bits == 32      ? "s"
                                                     : "u",
                       bits);
  }
  const bool discard =
      in.op == Opcode::ATOMS && !in.dsts.empty() && in.dsts[0].isReg() && in.dsts[0].reg == RZ;
  const bool isRed = in.op == Opcode::RED || in.op == Opcode::REDG ||
                     (discard && *op != Mod::EXCH && *op != Mod::CAS);
  if ((in.op == Opcode::RED || in.op == Opcode::REDG) && (*op == Mod::EXCH || *op == Mod::CAS))
    fail(in.loc, fmt::format("{}: PTX red has no .{}", printInstr(f, in), name));
  if (isRed && in.has(Mod::ACQUIRE))
    fail(in.loc, fmt::format("{}: PTX red has no .acquire", printInstr(f, in)));
  if (abortsAlways(in, true))
    return true;
  std::string space = in.op == Opcode::ATOMG || in.op == Opcode::REDG ? "global"
                      : in.op == Opcode::ATOMS                        ? "shared"
                                                                      : "";
  std::string a = address(in, 0, space);
  if (!space.empty() && space != "global" && space != "shared")
    fail(in.loc,
         fmt::format("{}: atomics on .{} memory have no PTX form", printInstr(f, in), space));
  if (ftype == Mod::AF32) { // PTX: global f32 atomics flush subnormals, shared ones do not
    if (space == "global" && !in.has(Mod::FTZ))
      fail(in.loc, fmt::format("{}: a global binary32 atomic that keeps subnormals has no PTX form",
                               printInstr(f, in)));
    if (space == "shared" && in.has(Mod::FTZ))
      fail(in.loc,
           fmt::format("{}: a shared binary32 atomic that flushes subnormals has no PTX form",
                       printInstr(f, in)));
  }
  if (ftype && *ftype != Mod::AF32 && *ftype != Mod::AF64)
    ctx.require(ftype == Mod::AF16X2 ? 6 : 7, ftype == Mod::AF16X2 ? 2 : 8);
  const std::string head =
      fmt::format("{}{}.{}{}", orderQualifiers(in), space.empty() ? "" : "." + space, name,
                  in.has(Mod::HINT) ? ".L2::cache_hint" : ""); // PTX: .op{.level::cache_hint}
  if (in.has(Mod::HINT))
    ctx.require(7, 4);
  if (bytes == 16) { // .b128 values through registers of a scope of their own
    if (*op != Mod::CAS && *op != Mod::EXCH)
      fail(in.loc, fmt::format("{}: 128-bit atomics are cas and exch", printInstr(f, in)));
    if (in.op == Opcode::RED || in.op == Opcode::REDG)
      fail(in.loc, fmt::format("{}: PTX red has no .b128", printInstr(f, in)));
    ctx.require(8, 3);
    const bool cas = *op == Mod::CAS;
    std::string b0 = intSrc(in, 1, 64, true), b1 = intSrc(in, 2, 64, true);
    std::string c0 = cas ? intSrc(in, 3, 64, true) : "", c1 = cas ? intSrc(in, 4, 64, true) : "";
    std::string d0 = intDst(in, 0, 64), d1 = intDst(in, 1, 64);
    emitRaw("{");
    emitRaw(".reg .b128 %ori_b128_d, %ori_b128_b, %ori_b128_c;");
    emit(fmt::format("mov.b128 %ori_b128_b, {{{}, {}}};", b0, b1));
    if (cas)
      emit(fmt::format("mov.b128 %ori_b128_c, {{{}, {}}};", c0, c1));
    emit(fmt::format("atom{}.b128 %ori_b128_d, {}, %ori_b128_b{}{};", head, a,
                     cas ? ", %ori_b128_c" : "", policySrc(in)));
    emit(fmt::format("mov.b128 {{{}, {}}}, %ori_b128_d;", d0, d1));
    emitRaw("}");
    return true;
  }
  const unsigned vbits = bytes == 2 ? 16 : bits;
  // A value source: float atomics take float literals (0f/0d) or registers, never integers.
  auto value = [&](size_t i) {
    const Operand &o = in.srcs.at(i);
    if (ftype && o.kind == Operand::Kind::Imm && (*ftype == Mod::AF32 || *ftype == Mod::AF64))
      return *ftype == Mod::AF32 ? fmt::format("0f{:08X}", uint32_t(o.imm))
                                 : fmt::format("0d{:016X}", uint64_t(o.imm));
    return intSrc(in, i, vbits, ftype.has_value());
  };
  std::string x = value(1);
  if (isRed) {
    emit(fmt::format("red{}.{} {}, {}{};", head, type, a, x, policySrc(in)));
    return true;
  }
  std::string c = *op == Mod::CAS ? ", " + value(2) : "";
  emit(fmt::format("atom{}.{} {}, {}, {}{}{};", head, type, intDst(in, 0, vbits), a, x, c,
                   policySrc(in)));
  return true;
}

bool FnEmitter::emitMemorySystem(const Instr &in) {
  switch (in.op) {
  case Opcode::MEMBAR: {
    const std::string scope = scopeText(in);
    if (scope.empty())
      fail(in.loc, fmt::format("{}: MEMBAR needs a scope", printInstr(f, in)));
    if (in.has(Mod::SC) && scope != ".cluster") { // membar.level is fence.sc on every target
      emit(fmt::format("membar.{};", scope == ".gpu" ? "gl" : scope.substr(1)));
      return true;
    }
    const std::string order = orderText(in);
    if (order.empty())
      fail(in.loc,
           fmt::format("{}: MEMBAR needs .SC, .ACQ_REL, .ACQUIRE or .RELEASE", printInstr(f, in)));
    ctx.require(in.has(Mod::ACQUIRE) || in.has(Mod::RELEASE) ? 8
                : scope == ".cluster"                        ? 7
                                                             : 6,
                in.has(Mod::ACQUIRE) || in.has(Mod::RELEASE) ? 6
                : scope == ".cluster"                        ? 8
                                                             : 0);
    emit(fmt::format("fence{}{};", order, scope));
    return true;
  }
  case Opcode::FENCE: {
    if (in.has(Mod::ALIAS)) {
      ctx.require(7, 5);
      emit("fence.proxy.alias;");
      return true;
    }
    if (!in.has(Mod::ASYNC))
      fail(in.loc, fmt::format("{}: FENCE needs .ALIAS or .ASYNC", printInstr(f, in)));
    ctx.require(8, 0);
    const char *space = in.has(Mod::SP_GLOBAL)           ? ".global"
                        : in.has(Mod::SP_SHARED)         ? ".shared::cta"
                        : in.has(Mod::SP_SHARED_CLUSTER) ? ".shared::cluster"
                                                         : "";
    emit(fmt::format("fence.proxy.async{};", space));
    return true;
  }
  case Opcode::NANOSLEEP:
    ctx.require(6, 3);
    emit(fmt::format("nanosleep.u32 {};", intSrc(in, 0, 32)));
    return true;
  case Opcode::CCTL: {
    std::string space = in.has(Mod::SP_GLOBAL) ? "global" : in.has(Mod::SP_LOCAL) ? "local" : "";
    const bool pfu = in.has(Mod::PFU);
    if (pfu)
      space = "";
    std::string a = address(in, 0, space);
    const std::string sp = space.empty() ? "" : "." + space;
    if (!space.empty() && space != "global" && space != "local") { // a prefetch there does nothing
      if (in.has(Mod::APPLYPRIORITY) || in.has(Mod::DISCARD))
        fail(in.loc, fmt::format("{}: only global memory has this", printInstr(f, in)));
      lines_.clear();
      emitRaw(fmt::format("// {}: nothing to prefetch in .{}", printInstr(f, in), space));
      return true;
    }
    if (in.has(Mod::PF1) || in.has(Mod::PF2)) {
      const bool evict = in.has(Mod::PF2) && space == "global" &&
                         (in.has(Mod::L2_EL) || in.has(Mod::L2_EN)); // PTX: .global only
      std::string level = in.has(Mod::PF1)     ? ".L1"
                          : !evict             ? ".L2"
                          : in.has(Mod::L2_EL) ? ".L2::evict_last"
                                               : ".L2::evict_normal";
      if (evict)
        ctx.require(7, 4);
      emit(fmt::format("prefetch{}{} {};", sp, level, a));
    } else if (pfu) {
      emit(fmt::format("prefetchu.L1 {};", a));
    } else if (in.has(Mod::APPLYPRIORITY) || in.has(Mod::DISCARD)) {
      ctx.require(7, 4);
      if (!space.empty() && space != "global")
        fail(in.loc, fmt::format("{}: only global memory has this", printInstr(f, in)));
      emit(in.has(Mod::DISCARD) ? fmt::format("discard{}.L2 {}, 128;", sp, a)
                                : fmt::format("applypriority{}.L2::evict_normal {}, 128;", sp, a));
    } else {
      fail(in.loc, fmt::format("{}: CCTL needs an operation", printInstr(f, in)));
    }
    return true;
  }
  case Opcode::QSPC: {
    static constexpr std::pair<Mod, const char *> kSpaces[] = {
        {Mod::SP_GLOBAL, "global"},
        {Mod::SP_SHARED, "shared"},
        {Mod::SP_SHARED_CLUSTER, "shared::cluster"},
        {Mod::SP_LOCAL, "local"},
        {Mod::SP_CONST, "const"},
        {Mod::SP_PARAM, "param"}};
    const char *space = nullptr;
    for (auto [m, text] : kSpaces)
      if (in.has(m))
        space = text;
    if (!space)
      fail(in.loc, fmt::format("{}: QSPC needs a state space", printInstr(f, in)));
    if (in.has(Mod::SP_SHARED_CLUSTER))
      ctx.require(7, 8);
    const unsigned w = in.has(Mod::W64) ? 64 : 32;
    std::string a = intSrc(in, 0, 64, true);
    if (w == 32) { // a 32-bit address, zero-extended as the interpreter reads it
      std::string t = temp(64);
      emit(fmt::format("cvt.u64.u32 {}, {};", t, intSrc(in, 0, 32, true)));
      a = t;
    }
    emit(fmt::format("isspacep.{} {}, {};", space, predDst(in, 0), a));
    return true;
  }
  case Opcode::CREATEPOLICY: {
    ctx.require(7, 4);
    std::string d = intDst(in, 0, 64);
    if (in.has(Mod::CVT)) {
      emit(fmt::format("createpolicy.cvt.L2.b64 {}, {};", d, intSrc(in, 0, 64, true)));
      return true;
    }
    static constexpr std::pair<Mod, const char *> kPrio[] = {
        {Mod::L2_EN, ".L2::evict_normal"}, {Mod::L2_EF, ".L2::evict_first"},
        {Mod::L2_EL, ".L2::evict_last"},   {Mod::L2_EU, ".L2::evict_unchanged"},
        {Mod::L2_SEF, ".L2::evict_first"}, {Mod::L2_SEU, ".L2::evict_unchanged"}};
    std::string prio =
        in.mods.inGroup(ModGroup::L2Evict) ? "" : ".L2::evict_normal"; // the primary comes first
    for (auto [m, text] : kPrio)
      if (in.has(m))
        prio += text;
    if (in.has(Mod::RANGE)) {
      emit(fmt::format("createpolicy.range{}{}.b64 {}, [{}], {}, {};",
                       in.has(Mod::SP_GLOBAL) ? ".global" : "", prio, d, intSrc(in, 0, 64, true),
                       intSrc(in, 1, 32), intSrc(in, 2, 32)));
      return true;
    }
    std::string frac;
    if (!in.srcs.empty()) {
      const Operand &o = in.srcs[0];
      if (o.kind == Operand::Kind::FImm && !(float(o.fimm) > 0 && float(o.fimm) <= 1))
        fail(in.loc,
             fmt::format("{}: a fraction outside (0, 1] has no PTX form", printInstr(f, in)));
      frac = ", " + (o.kind == Operand::Kind::FImm
                         ? fmt::format("0f{:08X}", std::bit_cast<uint32_t>(float(o.fimm)))
                         : f32Src(in, 0));
    }
    emit(fmt::format("createpolicy.fractional{}.b64 {}{};", prio, d, frac));
    return true;
  }
  case Opcode::ALLOCA:
  case Opcode::STACKSAVE:
  case Opcode::STACKRESTORE: {
    ctx.require(7, 3);
    const unsigned w = in.has(Mod::W64) ? 64 : 32;
    if (in.op == Opcode::STACKSAVE)
      emit(fmt::format("stacksave.u{} {};", w, intDst(in, 0, w)));
    else if (in.op == Opcode::STACKRESTORE)
      emit(fmt::format("stackrestore.u{} {};", w, intSrc(in, 0, w, true)));
    else if (in.srcs.size() > 1 &&
             (in.srcs[1].kind != Operand::Kind::Imm || in.srcs[1].imm <= 0 ||
              (in.srcs[1].imm & (in.srcs[1].imm - 1)) || in.srcs[1].imm > (int64_t(1) << 23)))
      fail(in.loc,
           fmt::format("{}: alloca's alignment is a power of 2 up to 2^23", printInstr(f, in)));
    else
      emit(fmt::format("alloca.u{} {}, {}{};", w, intDst(in, 0, w), intSrc(in, 0, w, true),
                       in.srcs.size() > 1 ? fmt::format(", {}", in.srcs[1].imm) : std::string()));
    return true;
  }
  default:
    return false;
  }
}

} // namespace ori::ptx::emit_detail
