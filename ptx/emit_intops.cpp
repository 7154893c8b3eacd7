// Ori -> PTX: the integer opcodes of interp/interp_intops.cpp (emit_impl.h). Each prints
// the PTX instruction it was lowered from, with the interpreter's meaning:
//   IADDC -> add.cc / addc.cc / sub.cc / subc.cc, CC.CF set from the carry-in predicate
//   and the carry-out read back into the carry-out predicate (below); IDP -> dp4a / dp2a;
//   I2IP -> cvt.pack.sat; BMSK -> bmsk; FNS -> fns.
#include <fmt/format.h>

#include "ir/ori.h"
#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {

// Whether PTX's CC.CF already holds predicate `p` here: the nearest IADDC before the current
// instruction in its block wrote p as its carry-out, unguarded, and nothing since wrote p or
// could have changed CC.CF (a CALL: CC is not kept across calls; an OPAQUE instruction may
// be a carry instruction itself). Only IADDC prints .cc instructions.
bool FnEmitter::carryHolds(Reg p) const {
  const std::vector<Instr> &ins = f.blocks.at(curBlock_).instrs;
  for (size_t k = curIndex_; k-- > 0;) {
    const Instr &x = ins[k];
    if (x.op == Opcode::IADDC)
      return !x.isGuarded() && x.dsts.size() == 2 && x.dsts[1].kind == Operand::Kind::Reg &&
             x.dsts[1].reg == p;
    if (x.op == Opcode::CALL || x.op == Opcode::OPAQUE)
      return false;
    for (Reg d : x.defs())
      if (d == p)
        return false;
  }
  return false;
}

bool FnEmitter::emitIntegerMore(const Instr &in) {
  switch (in.op) {
  case Opcode::IADDC: {
    // {Pco, d} = a + b + Pci (.SUB: a + ~b + Pci). PTX's add.cc is a + b + 0, sub.cc
    // a + ~b + 1, addc/subc take CC.CF as the carry-in (ptxas: one flag; a borrow is !CF).
    const unsigned w = in.has(Mod::W64) ? 64 : 32;
    const bool sub = in.has(Mod::SUB);
    if (w == 64) { // PTX ISA: 64-bit add.cc and friends from PTX 4.3, on sm_20 and later
      if (ctx.sm < 20)
        fail(in.loc,
             fmt::format("{}: 64-bit carry arithmetic needs sm_20 or later", printInstr(f, in)));
      ctx.require(4, 3);
    }
    const Pred ci = predSrc(in, 2);
    std::string a = intSrc(in, 0, w), b = intSrc(in, 1, w);
    std::string form;
    if (ci.isConst && ci.value == sub) {
      form = sub ? "sub.cc" : "add.cc"; // the carry-in these take without CC.CF
    } else {
      if (ci.isConst) { // CC.CF = the constant: 0 + ~0 + 1 carries, 0 + 0 does not
        std::string t = temp(32);
        emit(fmt::format("{}.cc.u32 {}, 0, 0;", ci.value ? "sub" : "add", t));
      } else if (ci.neg || !carryHolds(in.srcs[2].reg)) { // CC.CF = p: p ? 1 : 0, plus 0xffffffff
        std::string t = temp(32);
        emit(fmt::format("selp.u32 {}, {}, {}, {};", t, ci.neg ? 0 : 1, ci.neg ? 1 : 0, ci.name));
        emit(fmt::format("add.cc.u32 {}, {}, 0xffffffff;", t, t));
      }
      form = sub ? "subc.cc" : "addc.cc";
    }
    if (in.dsts.size() < 2)
      fail(in.loc, "IADDC needs a carry-out predicate");
    const bool carryOut = !in.dsts[1].reg.isConst();
    if (!carryOut)
      form.resize(form.size() - 3); // no .cc: CC.CF is not needed after it
    emit(fmt::format("{}.u{} {}, {}, {};", form, w, intDst(in, 0, w), a, b));
    if (carryOut) { // Pco = CC.CF
      std::string t = temp(32);
      emit(fmt::format("addc.u32 {}, 0, 0;", t));
      emit(fmt::format("setp.ne.u32 {}, {}, 0;", predDst(in, 1), t));
    }
    return true;
  }
  case Opcode::IDP: {
    if (ctx.sm < 61)
      fail(in.loc, fmt::format("{}: dp4a/dp2a need sm_61 or later", printInstr(f, in)));
    ctx.require(5, 0);
    const char *at = in.has(Mod::S8) || in.has(Mod::S16) ? "s32" : "u32";
    const char *bt = in.has(Mod::IDP_B_S8) ? "s32" : "u32";
    std::string a = intSrc(in, 0, 32, true), b = intSrc(in, 1, 32), c = intSrc(in, 2, 32);
    std::string op =
        in.has(Mod::A2) ? fmt::format("dp2a.{}", in.has(Mod::HI) ? "hi" : "lo") : "dp4a";
    emit(fmt::format("{}.{}.{} {}, {}, {}, {};", op, at, bt, intDst(in, 0, 32), a, b, c));
    return true;
  }
  case Opcode::I2IP: {
    if (ctx.sm < 72)
      fail(in.loc, fmt::format("{}: cvt.pack.sat needs sm_72 or later", printInstr(f, in)));
    ctx.require(6, 5);
    const char *t = in.has(Mod::U8)    ? "u8"
                    : in.has(Mod::S8)  ? "s8"
                    : in.has(Mod::U16) ? "u16"
                    : in.has(Mod::S16) ? "s16"
                                       : nullptr;
    if (!t)
      fail(in.loc, fmt::format("{}: I2IP needs .U8, .S8, .U16 or .S16", printInstr(f, in)));
    std::string a = intSrc(in, 0, 32, true), b = intSrc(in, 1, 32, true);
    if (t[1] == '8') {
      std::string c = intSrc(in, 2, 32, true);
      emit(fmt::format("cvt.pack.sat.{}.s32.b32 {}, {}, {}, {};", t, intDst(in, 0, 32), a, b, c));
    } else {
      emit(fmt::format("cvt.pack.sat.{}.s32 {}, {}, {};", t, intDst(in, 0, 32), a, b));
    }
    return true;
  }
  case Opcode::BMSK: {
    if (ctx.sm < 70)
      fail(in.loc, fmt::format("{}: bmsk needs sm_70 or later", printInstr(f, in)));
    ctx.require(7, 6);
    std::string a = intSrc(in, 0, 32, true), b = intSrc(in, 1, 32);
    emit(fmt::format("bmsk.{}.b32 {}, {}, {};", in.has(Mod::W) ? "wrap" : "clamp",
                     intDst(in, 0, 32), a, b));
    return true;
  }
  case Opcode::FNS: {
    if (ctx.sm < 30)
      fail(in.loc, fmt::format("{}: fns needs sm_30 or later", printInstr(f, in)));
    ctx.require(6, 0);
    // PTX leaves base > 31 undefined; the interpreter finds nothing there.
    std::string mask = intSrc(in, 0, 32, true), base = intSrc(in, 1, 32, true),
                off = intSrc(in, 2, 32, true);
    std::string r = temp(32), big = temp(1);
    emit(fmt::format("fns.b32 {}, {}, {}, {};", r, mask, base, off));
    emit(fmt::format("setp.gt.u32 {}, {}, 31;", big, base));
    emit(fmt::format("selp.b32 {}, -1, {}, {};", intDst(in, 0, 32), r, big));
    return true;
  }
  default:
    return false;
  }
}

} // namespace ori::ptx::emit_detail
