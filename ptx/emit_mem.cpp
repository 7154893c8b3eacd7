// Ori -> PTX: memory, control flow, calls and OPAQUE (emit_impl.h).
//   LD/ST -> generic ld/st; LDG/STG, LDS/STS, LDL/STL -> .global/.shared/.local;
//     [sym+off] -> the state space of the variable or parameter it names;
//     widths .U8 .S8 .U16 .S16 (32) .64; .VOLATILE -> ld/st.volatile;
//     .CONSTANT -> ld.global.nc;
//   LDC c[0x0][off] of an .entry -> ld.param of the parameter covering it;
//   ld/st qualifiers, atomics and the memory-system instructions: emit_atomic.cpp;
//   an access the interpreter always stops at (a store to .const, a state
//     space mismatch) -> trap;
//   SULD/SUST -> suld.b/sust.b with the coordinates as a vector; TEX -> tex.v4;
//   WARPSYNC -> bar.warp.sync, BSSY/BSYNC/NOP -> nothing (BAR, SHFL, MATCH, REDUX:
//     emit_warp.cpp);
//   BRA -> bra, BRX -> brx.idx (.U: .uni) through a .branchtargets table (an index past
//     the table faults at that address, as in the interpreter, then traps);
//   EXIT -> exit, RET -> ret (a .func first stores its register results);
//   CALL -> emit_call.cpp;
//   OPAQUE -> its text with @dN/@uN replaced by register names.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <span>

#include "ir/ori.h"
#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {
namespace {

// PTX writes a negative address offset as "+-4".
std::string offsetText(int64_t off) { return off == 0 ? "" : fmt::format("+{}", off); }

struct Access {
  std::string loadType, storeType;
  unsigned bytes;
};
Access accessOf(const Instr &in) {
  if (in.has(Mod::U8))
    return {"u8", "b8", 1};
  if (in.has(Mod::S8))
    return {"s8", "b8", 1};
  if (in.has(Mod::U16))
    return {"u16", "b16", 2};
  if (in.has(Mod::S16))
    return {"s16", "b16", 2};
  if (in.has(Mod::W64))
    return {"b64", "b64", 8};
  return {"b32", "b32", 4};
}

} // namespace

std::string FnEmitter::address(const Instr &in, size_t i, std::string &space) {
  if (i >= in.srcs.size() || in.srcs[i].kind != Operand::Kind::Mem)
    fail(in.loc, fmt::format("{}: operand {} must be an address", in.info().name, i + 1));
  const Operand &o = in.srcs[i];
  bool hasBase = o.hasReg && !o.reg.isConst();
  if (hasBase && !o.reg.isGeneral())
    fail(in.loc, fmt::format("{}: an address base must be an R register", in.info().name));
  if (!o.sym.empty()) {
    const Param *param = nullptr;
    const Variable *v = findVariable(m, f, o.sym, &param);
    if (v)
      space = v->space == Space::Param && !slots_.count(o.sym) ? "local"
                                                               : std::string(spaceName(v->space));
    else if (param)
      space = "param";
    else if (f.isEntry && std::any_of(f.params.begin(), f.params.end(),
                                      [&](const Param &p) { return p.name == o.sym; }))
      space = "param";
    else
      fail(in.loc, fmt::format("'{}' names no variable or parameter", o.sym));
    // A .param variable printed as .local: the interpreter faults outside its bytes, PTX's local
    // window does not, so only accesses that stay inside it have a PTX form.
    if (v && v->space == Space::Param && space == "local" &&
        (hasBase || o.imm < 0 || uint64_t(o.imm) + accessBytes(in) > v->size()))
      fail(in.loc,
           fmt::format(
               "{}: an access to .param variable '{}' that may leave its {} bytes has no PTX "
               "form (the interpreter faults, PTX's local memory does not)",
               printInstr(f, in), o.sym, v->size()));
    if (!isPtxIdent(o.sym))
      fail(in.loc, fmt::format("'{}' is not a PTX identifier", o.sym));
    if (!hasBase && o.imm >= INT32_MIN && o.imm <= INT32_MAX)
      return fmt::format("[{}{}]", o.sym, offsetText(o.imm));
    if (space == "param")
      fail(
          in.loc,
          fmt::format(
              "{}: a parameter indexed by a register has no PTX form (its address cannot be taken)",
              printInstr(f, in)));
    std::string t = temp(64);
    emit(fmt::format("mov.u64 {}, {};", t, o.sym));
    if (hasBase)
      emit(fmt::format("add.s64 {}, {}, {};", t, t, regAs(o.reg, 64)));
    if (o.imm < INT32_MIN || o.imm > INT32_MAX) {
      emit(fmt::format("add.s64 {}, {}, {};", t, t, o.imm));
      return fmt::format("[{}]", t);
    }
    return fmt::format("[{}{}]", t, offsetText(o.imm));
  }
  if (hasBase) {
    unsigned rb = regBits(o.reg);
    bool window = space == "shared" || space == "local";
    std::string base = window && (rb == 32 || rb == 64) ? regName(o.reg) : regAs(o.reg, 64);
    if (o.imm >= INT32_MIN && o.imm <= INT32_MAX)
      return fmt::format("[{}{}]", base, offsetText(o.imm));
    std::string t = temp(64);
    emit(fmt::format("add.s64 {}, {}, {};", t, regAs(o.reg, 64), o.imm));
    return fmt::format("[{}]", t);
  }
  // An absolute address: PTX takes an immediate address for .local only.
  if (space == "local" && o.imm >= 0 && o.imm <= INT32_MAX)
    return fmt::format("[{}]", o.imm);
  std::string t = temp(64);
  emit(fmt::format("mov.b64 {}, {};", t, immText(uint64_t(o.imm), 64)));
  return fmt::format("[{}]", t);
}

// How many bytes a memory instruction reads or writes at its address.
unsigned FnEmitter::accessBytes(const Instr &in) {
  if (isAtomic(in.op))
    return atomicBytes(in.mods);
  return accessOf(in).bytes;
}

// An access the interpreter always stops at (a store to .const faults; an
// LDG/LDS/LDL/STG/STS/STL naming a variable of another state space is an
// error): PTX has no such access, so the thread aborts with trap.
bool FnEmitter::abortsAlways(const Instr &in, bool store) {
  if (in.srcs.empty() || in.srcs[0].kind != Operand::Kind::Mem || in.srcs[0].sym.empty())
    return false;
  const Param *param = nullptr;
  const Variable *v = findVariable(m, f, in.srcs[0].sym, &param);
  Space s = v ? v->space : Space::Param;
  if (!v && !param)
    return false; // address() reports unknown symbols
  std::string why;
  bool g = in.op == Opcode::LDG || in.op == Opcode::STG,
       sh = in.op == Opcode::LDS || in.op == Opcode::STS,
       l = in.op == Opcode::LDL || in.op == Opcode::STL;
  if ((g && s != Space::Global) || (sh && s != Space::Shared) || (l && s != Space::Local))
    why = fmt::format("addresses .{} variable '{}' (a state space mismatch)", spaceName(s),
                      in.srcs[0].sym);
  else if (store && s == Space::Const)
    why = fmt::format("stores to .const variable '{}' (a fault)", in.srcs[0].sym);
  if (why.empty())
    return false;
  emitRaw(fmt::format("// {} {}: the interpreter stops here", printInstr(f, in), why));
  emit("trap;");
  return true;
}

bool FnEmitter::emitMemory(const Instr &in) {
  if (emitAtomic(in) || emitMemorySystem(in))
    return true;
  switch (in.op) {
  case Opcode::LD:
  case Opcode::LDG:
  case Opcode::LDS:
  case Opcode::LDL: {
    if (abortsAlways(in, false))
      return true;
    std::string space = in.op == Opcode::LDG   ? "global"
                        : in.op == Opcode::LDS ? "shared"
                        : in.op == Opcode::LDL ? "local"
                                               : "";
    if (!in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Mem && !in.srcs[0].sym.empty()) {
      const Param *param = nullptr;
      findVariable(m, f, in.srcs[0].sym, &param);
      if (param && param >= f.returns.data() && param < f.returns.data() + f.returns.size())
        fail(in.loc, fmt::format("{}: PTX does not allow reading the return parameter '{}'",
                                 printInstr(f, in), in.srcs[0].sym));
    }
    size_t first = lines_.size();
    std::string a = address(in, 0, space);
    Access acc = accessOf(in);
    bool vol = in.has(Mod::VOLATILE) && (space.empty() || space == "global" || space == "shared");
    bool nc = in.has(Mod::CONSTANT) && space == "global" && !vol && ctx.sm >= 32;
    if (nc)
      ctx.require(3, 1);
    unsigned bits = acc.bytes == 8 ? 64 : 32;
    Instr q = in; // the qualifiers PTX has for this space (.nc: global from sm_32)
    if (!nc)
      q.mods.reset(Mod::CONSTANT);
    if (!vol)
      q.mods.reset(Mod::VOLATILE);
    checkAccessQualifiers(q, space);
    std::string ld =
        fmt::format("ld{}{}{}{}.{}", vol ? ".volatile" : "", orderQualifiers(q),
                    space.empty() ? "" : "." + space, cacheQualifiers(q), acc.loadType);
    if (space == "param" && in.isGuarded() && !in.srcs[0].sym.empty() &&
        slots_.count(in.srcs[0].sym)) {
      // PTX forbids predicating ld.param of a call's return slot: load always
      // (no side effects), keep the result only when the guard holds.
      for (size_t k = first; k < lines_.size(); ++k)
        lines_[k].guardable = false;
      std::string t = temp(bits);
      emitRaw(fmt::format("{} {}, {};", ld, t, a));
      emit(fmt::format("mov.b{} {}, {};", bits, intDst(in, 0, bits), t));
      return true;
    }
    // An 8- or 16-bit load into a 16-bit register loads into it (PTX lets the register be
    // wider than the type and extends by it), not through a 32-bit temporary and cvt: the same
    // low 16 bits, which is all a 16-bit register holds.
    const Operand &d0 = in.dsts.empty() ? Operand() : in.dsts[0];
    if (acc.bytes <= 2 && d0.kind == Operand::Kind::Reg && d0.reg.isGeneral() &&
        !d0.reg.isConst() && regBits(d0.reg) == 16)
      bits = 16;
    emit(fmt::format("{} {}, {}{};", ld, intDst(in, 0, bits), a, policySrc(in)));
    return true;
  }
  case Opcode::ST:
  case Opcode::STG:
  case Opcode::STS:
  case Opcode::STL: {
    if (abortsAlways(in, true))
      return true;
    std::string space = in.op == Opcode::STG   ? "global"
                        : in.op == Opcode::STS ? "shared"
                        : in.op == Opcode::STL ? "local"
                                               : "";
    if (space.empty() && !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Mem &&
        !in.srcs[0].sym.empty()) {
      const Param *param = nullptr;
      const Variable *v = findVariable(m, f, in.srcs[0].sym, &param);
      auto isInput = [&](const Param *p) {
        return p && p >= f.params.data() && p < f.params.data() + f.params.size();
      };
      bool input = isInput(param);
      if (!v && !param &&
          f.isEntry) // an .entry's parameters by name (address() reads them with ld.param)
        for (const Param &p : f.params)
          input |= p.name == in.srcs[0].sym;
      if (input)
        fail(in.loc, fmt::format("{}: PTX does not allow writing the input parameter '{}'",
                                 printInstr(f, in), in.srcs[0].sym));
    }
    std::string a = address(in, 0, space);
    Access acc = accessOf(in);
    unsigned bits = acc.bytes == 8 ? 64 : 32;
    // An 8- or 16-bit store of a 16-bit register stores it as it is (as for loads above)
    const Operand &v1 = in.srcs.size() > 1 ? in.srcs[1] : Operand();
    if (acc.bytes <= 2 && v1.kind == Operand::Kind::Reg && !v1.neg && v1.reg.isGeneral() &&
        !v1.reg.isConst() && regBits(v1.reg) == 16)
      bits = 16;
    std::string v = intSrc(in, 1, bits);
    bool vol = in.has(Mod::VOLATILE) && (space.empty() || space == "global" || space == "shared");
    Instr q = in;
    if (!vol)
      q.mods.reset(Mod::VOLATILE);
    checkAccessQualifiers(q, space);
    std::string st =
        fmt::format("st{}{}{}{}.{}", vol ? ".volatile" : "", orderQualifiers(in),
                    space.empty() ? "" : "." + space, cacheQualifiers(in), acc.storeType);
    emit(fmt::format("{} {}, {}{};", st, a, v, policySrc(in)));
    return true;
  }
  case Opcode::LDC: {
    if (in.srcs.empty() || in.srcs[0].kind != Operand::Kind::CBank)
      fail(in.loc, "LDC reads no constant bank");
    Access acc = accessOf(in);
    unsigned bits = acc.bytes == 8 ? 64 : 32;
    const Operand &c = in.srcs[0];
    if (c.bank == 3 && c.hasReg && !c.reg.isConst()) {
      // Bank 3 is the .const data, indexed by a register that holds a const address (from
      // `mov sym` of a .const variable): ld.const at the register's low 32 bits plus the offset.
      std::string a = temp(64);
      emit(fmt::format("cvt.u64.u32 {}, {};", a, regAs(c.reg, 32)));
      emit(fmt::format("ld.const.{} {}, [{}{}];", acc.loadType, intDst(in, 0, bits), a,
                       offsetText(c.imm)));
      return true;
    }
    cbank(in, in.srcs[0], acc.bytes, acc.loadType, bits, intDst(in, 0, bits));
    return true;
  }
  case Opcode::SULD:
  case Opcode::SUST: {
    // suld.b / sust.b: the coordinates as a vector (a 3d one repeats z as its ignored fourth).
    const bool isLoad = in.op == Opcode::SULD;
    const unsigned dims = surfaceDims(in.mods), elems = surfaceElems(in.mods),
                   bytes = surfaceBytes(in.mods);
    if (dims == 0 || in.srcs.size() != 1 + dims + (isLoad ? 0 : elems) ||
        (isLoad && in.dsts.size() != elems))
      fail(in.loc, fmt::format("{}: malformed surface access", printInstr(f, in)));
    const unsigned bits = bytes == 8 ? 64 : 32;
    std::string h = intSrc(in, 0, 64, true), coords;
    for (unsigned k = 0; k < (dims == 3 ? 4u : dims); ++k)
      coords += (k ? ", " : "") + intSrc(in, 1 + std::min(k, dims - 1), 32, true);
    std::string data;
    for (unsigned k = 0; k < elems; ++k)
      data +=
          (k ? ", " : "") + (isLoad ? intDst(in, k, bits) : intSrc(in, 1 + dims + k, bits, true));
    std::string type = fmt::format("{}{}.b{}",
                                   dims == 1   ? ".1d"
                                   : dims == 2 ? ".2d"
                                               : ".3d",
                                   elems == 4   ? ".v4"
                                   : elems == 2 ? ".v2"
                                                : "",
                                   8 * bytes);
    std::string mode = in.has(Mod::CLAMP) ? ".clamp" : in.has(Mod::ZERO) ? ".zero" : ".trap";
    if (isLoad)
      emit(fmt::format("suld.b{}{} {{{}}}, [{}, {{{}}}];", type, mode, data, h, coords));
    else
      emit(fmt::format("sust.b{}{} [{}, {{{}}}], {{{}}};", type, mode, h, coords, data));
    return true;
  }
  case Opcode::TEX: {
    const unsigned dims = surfaceDims(in.mods);
    const bool level = in.has(Mod::LOD), grad = in.has(Mod::GRAD);
    if (dims == 0 || in.dsts.size() != 4 ||
        in.srcs.size() != 1 + dims + (level ? 1 : 0) + (grad ? 2 * dims : 0))
      fail(in.loc, fmt::format("{}: malformed texture fetch", printInstr(f, in)));
    const bool icoord = in.has(Mod::ICOORD);
    auto coord = [&](size_t i) { return icoord ? intSrc(in, i, 32, true) : f32Src(in, i); };
    // The handle: a register, or a module .texref by name (the module keeps its declaration).
    std::string h = in.srcs[0].kind == Operand::Kind::Symbol ? in.srcs[0].sym.str()
                                                             : intSrc(in, 0, 64, true),
                coords, data, extra;
    for (unsigned k = 0; k < (dims == 3 ? 4u : dims); ++k)
      coords += (k ? ", " : "") + coord(1 + std::min(k, dims - 1));
    for (unsigned k = 0; k < 4; ++k)
      data += (k ? ", " : "") + intDst(in, k, 32);
    if (level)
      extra = ", " + f32Src(in, 1 + dims);
    if (grad)
      for (unsigned g = 0; g < 2; ++g) {
        std::string v;
        for (unsigned k = 0; k < dims; ++k)
          v += (k ? ", " : "") + f32Src(in, 1 + dims + g * dims + k);
        extra += ", {" + v + "}";
      }
    std::string rt = in.has(Mod::U32) ? "u32" : in.has(Mod::S32) ? "s32" : "f32";
    emit(fmt::format("tex{}.{}d.v4.{}.{} {{{}}}, [{}, {{{}}}]{};",
                     level  ? ".level"
                     : grad ? ".grad"
                            : "",
                     dims, rt, icoord ? "s32" : "f32", data, h, coords, extra));
    return true;
  }
  case Opcode::LDGSTS: {
    const unsigned n = in.has(Mod::W128) ? 16 : in.has(Mod::W64) ? 8 : 4;
    const size_t hint = in.has(Mod::HINT) ? 1 : 0;
    if (in.srcs.size() < 2 + hint || in.srcs.size() > 3 + hint)
      fail(in.loc, fmt::format("{}: malformed asynchronous copy", printInstr(f, in)));
    std::string ds = "shared", ss = "global";
    std::string d = address(in, 0, ds), s = address(in, 1, ss);
    if (ds != "shared" || ss != "global")
      fail(in.loc, fmt::format("{}: cp.async copies from .global to .shared variables only",
                               printInstr(f, in)));
    const bool third = in.srcs.size() > 2 + hint;
    if (third && in.srcs[2].kind == Operand::Kind::Imm &&
        (in.srcs[2].imm < 0 || in.srcs[2].imm > int64_t(n)))
      fail(in.loc, fmt::format("{}: src-size {} is not in 0..{} (PTX cp.async)", printInstr(f, in),
                               in.srcs[2].imm, n));
    if (in.has(Mod::CG) && n != 16)
      fail(in.loc, fmt::format("{}: cp.async.cg copies 16 bytes", printInstr(f, in)));
    std::string size;
    if (third && in.srcs[2].isReg() && in.srcs[2].reg.isPredicate()) { // ignore-src
      Pred p = predSrc(in, 2);
      std::string t = p.isConst ? temp(1) : predText(p);
      if (p.isConst)
        setPred(t, p);
      size = ", " + t;
    } else if (third) {
      size = ", " + intSrc(in, 2, 32);
    }
    const char *cop = in.has(Mod::CA) ? "ca" : in.has(Mod::CG) ? "cg" : n == 16 ? "cg" : "ca";
    Instr q = in;
    q.mods.reset(Mod::CA);
    q.mods.reset(Mod::CG);
    emit(fmt::format("cp.async.{}.shared.global{} {}, {}, {}{}{};", cop, cacheQualifiers(q), d, s,
                     n, size, policySrc(in)));
    ctx.require(7, 0);
    return true;
  }
  case Opcode::LDGDEPBAR:
    emit("cp.async.commit_group;");
    ctx.require(7, 0);
    return true;
  case Opcode::DEPBAR: {
    if (in.srcs.size() != 1 || in.srcs[0].kind != Operand::Kind::Imm || in.srcs[0].imm < 0 ||
        in.srcs[0].imm > 63)
      fail(in.loc, fmt::format("{}: DEPBAR takes a count from 0 to 63 (PTX cp.async.wait_group)",
                               printInstr(f, in)));
    emit(fmt::format("cp.async.wait_group {};", in.srcs[0].imm));
    ctx.require(7, 0);
    return true;
  }
  default:
    return false;
  }
}

// The shape DoSwitchOpt leaves (docs/branch-and-switch.md): block b holds only the
// unguarded BRX/JMX on R, and is reached only from block q past `@P BRA` (q falls through
// into b, or into a block holding only `BRA b` that nothing else reaches: what
// PlaceBlocksInSourceOrder makes when it moves b away), P last written in q by
// ISETP.GT.U32.AND P, PT, R, n - 1, PT (or .GE.U32 R, n), n the table's size, and R not
// written after that ISETP.
bool FnEmitter::boundChecked(size_t b, const Instr &in) const {
  const std::vector<Instr> &here = f.blocks[b].instrs;
  if (b == 0 || in.isGuarded() || here.size() != 1 || &here[0] != &in)
    return false;
  if (in.srcs.size() < 2 || !in.srcs[0].isReg() || in.srcs[0].neg || in.srcs[0].reg.isConst())
    return false;
  size_t q = b - 1;
  if (!labels_[b].empty()) { // a branch target: only from a `BRA b` block that q falls into
    std::vector<std::vector<uint32_t>> succs = successors(f);
    std::vector<size_t> preds;
    for (size_t k = 0; k < succs.size(); ++k)
      for (uint32_t t : succs[k])
        if (t == b)
          preds.push_back(k);
    if (preds.size() != 1 || preds[0] == 0)
      return false;
    size_t hop = preds[0];
    const std::vector<Instr> &h = f.blocks[hop].instrs;
    if (hop == b - 1 && !h.empty() && h.back().op == Opcode::BRA && h.back().isGuarded() &&
        h.back().srcs[0].target != b) {
      q = hop; // a label nothing branches to: q falls into b
    } else if (h.size() != 1 || h[0].op != Opcode::BRA || h[0].isGuarded() || h[0].srcs.empty() ||
               h[0].srcs[0].kind != Operand::Kind::Label || h[0].srcs[0].target != b)
      return false;
    else {
      q = hop - 1;
      for (size_t k = 0; k < succs.size(); ++k)
        for (uint32_t t : succs[k])
          if (t == hop && k != q)
            return false; // reached from elsewhere too
      const std::vector<Instr> &qi = f.blocks[q].instrs;
      if (!qi.empty() && qi.back().op == Opcode::BRA && !qi.back().srcs.empty() &&
          qi.back().srcs[0].target == hop)
        return false; // q's branch goes there too, with P true
    }
  }
  const Reg index = in.srcs[0].reg;
  const uint64_t n = f.jumpTables[in.srcs[1].target].targets.size();
  const std::vector<Instr> &prev = f.blocks[q].instrs;
  if (prev.empty() || prev.back().op != Opcode::BRA || !prev.back().guard ||
      prev.back().guard->neg || prev.back().guard->reg.isConst())
    return false;
  const Reg p = prev.back().guard->reg;
  for (size_t k = prev.size() - 1; k-- > 0;) {
    const Instr &c = prev[k];
    bool writesP = false, writesIndex = false;
    for (const Operand &d : c.dsts)
      if (d.isReg())
        writesP |= d.reg == p, writesIndex |= d.reg == index;
    if (!writesP) {
      if (writesIndex)
        return false;
      continue;
    }
    if (c.op != Opcode::ISETP || c.guard || !c.has(Mod::U32) || c.has(Mod::OR) || c.has(Mod::XOR) ||
        c.dsts.size() != 2 || c.dsts[0].reg != p || c.srcs.size() != 3 || !c.srcs[0].isReg() ||
        c.srcs[0].reg != index || c.srcs[0].neg || c.srcs[1].kind != Operand::Kind::Imm ||
        !(c.srcs[2].isReg() && c.srcs[2].reg == PT && !c.srcs[2].neg))
      return false;
    const uint64_t bound = uint32_t(c.srcs[1].imm);
    return c.has(Mod::GT) ? bound < n : c.has(Mod::GE) && bound <= n; // P false only for R < n
  }
  return false;
}

bool FnEmitter::emitControl(const Instr &in) {
  switch (in.op) {
  case Opcode::BRA:
    if (in.srcs.empty() || in.srcs[0].kind != Operand::Kind::Label)
      fail(in.loc, "BRA has no label");
    // .U is PTX's .uni (the lowering reads one as the other; passes keep it only where it holds)
    emit(fmt::format("bra{} {};", in.has(Mod::U) ? ".uni" : "", labelName(in.srcs[0].target)));
    return true;
  case Opcode::BRX:
  case Opcode::JMX: {
    if (in.srcs.size() < 2 || in.srcs[1].kind != Operand::Kind::JumpTable)
      fail(in.loc, "BRX has no jump table");
    std::string table = tableName(in.srcs[1].target);
    size_t n = f.jumpTables[in.srcs[1].target].targets.size();
    std::string idx = intSrc(in, 0, 32, true);
    // An index past the table: the interpreter faults at the index as an
    // address; a byte load from that address does the same (then trap, in
    // case something is mapped there).
    if (ctx.sm >= 30 &&
        boundChecked(curBlock_, in)) { // DoSwitchOpt's bounds check already sent the rest away
      ctx.require(6, 0);
      emit(fmt::format("brx.idx{} {}, {};", in.has(Mod::U) ? ".uni" : "", idx, table));
      return true;
    }
    std::string p = temp(1), a = temp(64), junk = temp(32);
    if (in.isGuarded())
      emitRaw(fmt::format("setp.ge.and.u32 {}, {}, {}, {}{};", p, idx, n, in.guard->neg ? "!" : "",
                          regName(in.guard->reg)));
    else
      emitRaw(fmt::format("setp.ge.u32 {}, {}, {};", p, idx, n));
    emit(fmt::format("cvt.u64.u32 {}, {};", a, idx));
    emitRaw(fmt::format("@{} ld.volatile.global.u8 {}, [{}];", p, junk, a));
    emitRaw(fmt::format("@{} trap;", p));
    if (ctx.sm >= 30) {
      ctx.require(6, 0);
      emit(fmt::format("brx.idx{} {}, {};", in.has(Mod::U) ? ".uni" : "", idx, table));
      return true;
    }
    // No brx.idx before sm_30: compare and branch for each entry.
    const auto &targets = f.jumpTables[in.srcs[1].target].targets;
    for (size_t k = 0; k < targets.size(); ++k) {
      std::string q = temp(1);
      emit(fmt::format("setp.eq.u32 {}, {}, {};", q, idx, k));
      emitRaw(fmt::format("@{} bra {};", q, labelName(targets[k])));
    }
    return true;
  }
  case Opcode::EXIT:
    emit("exit;");
    return true;
  case Opcode::RET:
    emit("ret;");
    return true;
  case Opcode::TRAP:
    emit("trap;");
    return true;
  case Opcode::CALL:
    emitCall(in);
    return true;
  case Opcode::NOP:
  case Opcode::BSSY:
  case Opcode::BSYNC:
    emitRaw("// " + printInstr(f, in)); // nothing: one thread at a time reconverges trivially
    return true;
  case Opcode::WARPSYNC:
    if (ctx.sm <
        70) { // warps run in lock step before sm_70; nothing to do (also in the interpreter)
      emitRaw("// " + printInstr(f, in));
      return true;
    }
    ctx.require(6, 0);
    {
      std::string mask = intSrc(in, 0, 32);
      // Joined only when the mask took no lines of its own (a register or an immediate):
      // a temporary of this instruction could be reused by the next.
      if (lines_.empty() && syncJoinsNext(in, next_)) {
        syncedMask_ = std::move(mask);
        return true;
      }
      emit(fmt::format("bar.warp.sync {};", mask));
    }
    return true;
  case Opcode::VOTE: {
    // Among the threads active here. sm_70 and up: vote.sync with activemask as the member
    // mask (PTX 6.2); older targets have only the vote without .sync (ballot from sm_20), and
    // there the active mask is the ballot of a true predicate.
    auto mode = in.mods.inGroup(ModGroup::VoteOp);
    if (!mode)
      fail(in.loc, fmt::format("{}: VOTE needs .ALL, .ANY or .EQ", printInstr(f, in)));
    bool sync = ctx.sm >= 70;
    Pred a = predSrc(in, 0);
    const bool noBallot = in.dsts.at(0).kind == Operand::Kind::Reg && in.dsts.at(0).reg.isConst();
    const bool noPredicate =
        in.dsts.at(1).kind == Operand::Kind::Reg && in.dsts.at(1).reg.isConst();
    if (sync && !syncedMask_ && a.isConst && a.value && !noBallot && noPredicate) {
      ctx.require(6, 2); // VOTE.ANY d, PT, PT: PTX's activemask itself
      emit(fmt::format("activemask.b32 {};", intDst(in, 0, 32)));
      return true;
    }
    std::string mask, tail;
    if (sync && syncedMask_) {
      mask = *syncedMask_;
      syncedMask_.reset();
      tail = ", " + mask;
    } else if (sync) {
      ctx.require(6, 2);
      mask = temp(32);
      emit(fmt::format("activemask.b32 {};", mask));
      tail = ", " + mask;
    }
    std::string src; // the vote's predicate, made the first time a line needs it
    auto source = [&]() -> const std::string & {
      if (!src.empty())
        return src;
      if (!a.isConst)
        return src = predText(a);
      src = temp(1); // PT / !PT: a constant vote
      emit(fmt::format("setp.ne.u32 {}, {}, 0;", src, a.value ? 1 : 0));
      return src;
    };
    std::string dot = sync ? ".sync" : "";
    const Operand &rd = in.dsts.at(0);
    if (!(rd.kind == Operand::Kind::Reg && rd.reg.isConst())) {
      if (sync && a.isConst && a.value)
        emit(fmt::format("mov.b32 {}, {};", intDst(in, 0, 32), mask));
      else
        emit(fmt::format("vote{}.ballot.b32 {}, {}{};", dot, intDst(in, 0, 32), source(), tail));
    }
    const Operand &pd = in.dsts.at(1);
    if (!(pd.kind == Operand::Kind::Reg && pd.reg.isConst())) {
      const char *name = *mode == Mod::ALL ? "all" : *mode == Mod::ANY ? "any" : "uni";
      emit(fmt::format("vote{}.{}.pred {}, {}{};", dot, name, predDst(in, 1), source(), tail));
    }
    return true;
  }
  case Opcode::OPAQUE: {
    const std::string &t = in.opaqueText;
    // PTX instruction names are lower case; SASS text (FCHK, R2UR ...) is not PTX.
    size_t start = t.find_first_not_of(" \t");
    if (start != std::string::npos && t[start] != '{' && !(t[start] >= 'a' && t[start] <= 'z'))
      fail(in.loc, fmt::format("OPAQUE \"{}\" is not PTX text (SASS has no PTX form)", t));
    std::string out;
    for (size_t i = 0; i < t.size();) {
      if (t[i] == '@' && i + 2 < t.size() && (t[i + 1] == 'd' || t[i + 1] == 'u') &&
          std::isdigit(static_cast<unsigned char>(t[i + 2]))) {
        size_t j = i + 2;
        uint64_t k = 0;
        while (j < t.size() && std::isdigit(static_cast<unsigned char>(t[j])) && k < (1u << 20))
          k = k * 10 + uint64_t(t[j++] - '0');
        const std::span<const Operand> list =
            t[i + 1] == 'd' ? std::span<const Operand>(in.dsts) : std::span<const Operand>(in.srcs);
        if (k >= list.size() || list[k].kind != Operand::Kind::Reg)
          fail(in.loc,
               fmt::format("OPAQUE text '{}' names {} {}, which the instruction does not list", t,
                           t[i + 1] == 'd' ? "def" : "use", k));
        Reg r = list[k].reg;
        if (r.file == RegFile::B)
          fail(in.loc, "OPAQUE text names a barrier register, which has no PTX form");
        if (r.isConst()) {
          if (r.isPredicate())
            fail(in.loc, "OPAQUE text names PT, which has no PTX register");
          out += "0";
        } else {
          out += regName(r);
        }
        i = j;
        continue;
      }
      out += t[i++];
    }
    while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back())))
      out.pop_back();
    if (out.empty()) {
      emitRaw("// empty OPAQUE");
      return true;
    }
    if (out.back() != ';')
      out += ';';
    emit(out);
    return true;
  }
  default:
    return false;
  }
}

} // namespace ori::ptx::emit_detail
