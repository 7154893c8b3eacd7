// Ori -> PTX: warp shuffles, matches and reductions, and CTA barriers (emit_impl.h).
//   SHFL.mode -> shfl.sync.mode.b32 (sm_70 and later), shfl.mode.b32 (sm_30 to sm_62);
//   MATCH.ANY/ALL[.U64] -> match.any/all.sync.b32/.b64 (sm_70 and later);
//   REDUX.op[.S32] -> redux.sync.op.type (sm_80 and later);
//   BAR.SYNC -> bar.sync, BAR.ARV -> bar.arrive, BAR.RED.POPC/AND/OR -> bar.red.popc.u32 /
//     bar.red.and.pred / bar.red.or.pred.
// The Ori warp-level instructions have no member mask of their own (the WARPSYNC that
// PTX's .sync forms leave before them is printed as bar.warp.sync): the .sync forms take
// the lanes that run the instruction here, the active mask, or under a guard the ballot
// of the guard among the active lanes (PTX requires every lane of the mask to execute the
// instruction). Targets without the instruction get an error; there is no emulation.
#include <fmt/format.h>

#include <map>
#include <set>

#include "ir/ori.h"
#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {

namespace {

bool isConstReg(const Operand &o) { return o.kind == Operand::Kind::Reg && o.reg.isConst(); }

// An immediate 0xffffffff (read as a 32-bit mask: -1 or 4294967295).
bool isFullMaskImm(const Operand &o) {
  return o.kind == Operand::Kind::Imm && o.imm >= -1 && o.imm <= 0xffffffffLL &&
         uint32_t(o.imm) == 0xffffffffu;
}

} // namespace

// A 32-bit register with one write in the function, an unguarded MOV of 0xffffffff, and
// read nowhere before it (not live on entry): it holds the full-warp mask at every read.
// nvcc writes `mov.u32 %r18, -1;` once and names it as the member mask of each
// __shfl_sync(0xffffffff, ...).
std::set<Reg> FnEmitter::findFullMaskRegs() const {
  std::map<Reg, uint32_t> writes;
  std::set<Reg> movesOfFull;
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs)
      forEachDef(in, [&](Reg r) {
        ++writes[r];
        if (in.op == Opcode::MOV && !in.isGuarded() && !in.has(Mod::W64) && in.srcs.size() == 1 &&
            isFullMaskImm(in.srcs[0]))
          movesOfFull.insert(r);
      });
  const auto live = ctx.liveIn.find(f.name);
  std::set<Reg> out;
  for (Reg r : movesOfFull)
    if (writes[r] == 1 && regBits(r) == 32 && (live == ctx.liveIn.end() || !live->second.count(r)))
      out.insert(r);
  return out;
}

bool FnEmitter::activeMaskHere(Reg r) const {
  const auto &instrs = f.blocks[curBlock_].instrs;
  for (size_t k = std::min(curIndex_, instrs.size()); k-- > 0;) {
    const Instr &in = instrs[k];
    bool writes = false;
    forEachDef(in, [&](Reg d) { writes = writes || d == r; });
    if (writes)
      return in.op == Opcode::VOTE && in.has(Mod::ANY) && !in.guard && in.dsts.size() == 2 &&
             in.dsts[0].kind == Operand::Kind::Reg && in.dsts[0].reg == r &&
             in.dsts[1].kind == Operand::Kind::Reg && in.dsts[1].reg.isConst() &&
             predSrc(in, 0).isConst && predSrc(in, 0).value;
    // The lanes that run stay the same through plain computation only.
    const OpInfo &info = in.info();
    if (info.is(SIDE_EFFECT) || info.is(CONVERGENCE) || info.is(CONTROL) || info.is(BARRIER))
      return false;
  }
  return false;
}

// The lowering reads `shfl.sync ..., membermask` (and vote.sync with a predicate,
// match.sync, redux.sync) as `WARPSYNC membermask` then the instruction. When the mask is
// the full warp, every lane takes part in both (PTX's rule for a .sync instruction), so the
// lanes that run the instruction are the mask, and the pair prints back as the one PTX
// instruction it came from. So too when the mask is the active mask read earlier in the
// block (`__shfl_xor_sync(__activemask(), ...)`): the lanes that run are that mask.
// Printed apart (bar.warp.sync, then activemask as the mask), ptxas 13.0 made the k07
// kernel of docs/performance.md 3,456 bytes of SASS instead of 896. An activemask
// (VOTE.ANY d, PT, PT) after the WARPSYNC stays apart: on a partial last warp the active
// lanes are fewer than the full mask. Guarded pairs stay apart too.
bool FnEmitter::syncJoinsNext(const Instr &sync, const Instr *next) {
  if (!next || ctx.sm < 70 || sync.guard || next->guard)
    return false;
  // elect.sync names its member mask itself: the WARPSYNC of the same mask is part of it.
  if (next->op == Opcode::ELECT)
    return !next->srcs.empty() && sync.srcs.at(0) == next->srcs[0];
  const Operand &m = sync.srcs.at(0);
  if (m.kind == Operand::Kind::Reg && !m.reg.isConst() && !fullMaskRegs_)
    fullMaskRegs_ = findFullMaskRegs();
  // The mask is the lanes that run here: the full warp, or the active mask read before.
  const bool exact = isFullMaskImm(m) || (m.kind == Operand::Kind::Reg && !m.reg.isConst() &&
                                          (fullMaskRegs_->count(m.reg) || activeMaskHere(m.reg)));
  if (!exact)
    return false;
  switch (next->op) {
  case Opcode::SHFL:
  case Opcode::MATCH:
  case Opcode::REDUX:
    return true;
  case Opcode::VOTE:
    return !predSrc(*next, 0).isConst;
  default:
    return false;
  }
}

std::string FnEmitter::memberMask(const Instr &in) {
  if (syncedMask_) {
    std::string m = std::move(*syncedMask_);
    syncedMask_.reset();
    return m;
  }
  ctx.require(6, 2); // activemask
  std::string m = temp(32);
  if (!in.isGuarded()) {
    emit(fmt::format("activemask.b32 {};", m));
    return m;
  }
  // Unguarded lines: every active lane takes part in the ballot.
  const Operand &g = *in.guard;
  emitRaw(fmt::format("activemask.b32 {};", m));
  emitRaw(
      fmt::format("vote.sync.ballot.b32 {}, {}{}, {};", m, g.neg ? "!" : "", regName(g.reg), m));
  return m;
}

bool FnEmitter::emitWarp(const Instr &in) {
  switch (in.op) {
  case Opcode::SHFL: {
    auto mode = in.mods.inGroup(ModGroup::ShflOp);
    if (!mode)
      fail(in.loc, fmt::format("{}: SHFL needs .IDX, .UP, .DOWN or .BFLY", printInstr(f, in)));
    if (ctx.sm < 30)
      fail(in.loc, fmt::format("{}: PTX has shfl from sm_30", printInstr(f, in)));
    const char *name = *mode == Mod::IDX    ? "idx"
                       : *mode == Mod::UP   ? "up"
                       : *mode == Mod::DOWN ? "down"
                                            : "bfly";
    bool sync = ctx.sm >= 70; // shfl without .sync is not supported from sm_70 (PTX 6.4)
    ctx.require(sync ? 6 : 3, 0);
    std::string mask = sync ? fmt::format(", {}", memberMask(in)) : "";
    std::string a = intSrc(in, 0, 32, true), b = intSrc(in, 1, 32), c = intSrc(in, 2, 32);
    std::string d = intDst(in, 1, 32);
    std::string p = isConstReg(in.dsts.at(0)) ? "" : fmt::format("|{}", predDst(in, 0));
    emit(fmt::format("shfl{}.{}.b32 {}{}, {}, {}, {}{};", sync ? ".sync" : "", name, d, p, a, b, c,
                     mask));
    return true;
  }
  case Opcode::MATCH: {
    auto mode = in.mods.inGroup(ModGroup::VoteOp);
    if (!mode || *mode == Mod::EQ_V)
      fail(in.loc, fmt::format("{}: MATCH needs .ANY or .ALL", printInstr(f, in)));
    if (ctx.sm < 70)
      fail(in.loc, fmt::format("{}: PTX has match.sync from sm_70", printInstr(f, in)));
    ctx.require(6, 0);
    bool all = *mode == Mod::ALL;
    if (!all && !isConstReg(in.dsts.at(1)))
      fail(in.loc,
           fmt::format("{}: MATCH.ANY has no predicate result in PTX (match.any.sync has no |p)",
                       printInstr(f, in)));
    unsigned bits = in.has(Mod::U64) ? 64 : 32;
    std::string mask = memberMask(in);
    std::string a = intSrc(in, 0, bits, true);
    std::string d = intDst(in, 0, 32);
    std::string p = isConstReg(in.dsts.at(1)) ? "" : fmt::format("|{}", predDst(in, 1));
    emit(fmt::format("match.{}.sync.b{} {}{}, {}, {};", all ? "all" : "any", bits, d, p, a, mask));
    return true;
  }
  case Opcode::REDUX: {
    std::optional<Mod> op =
        in.has(Mod::SUM) ? std::optional<Mod>(Mod::SUM) : in.mods.inGroup(ModGroup::AtomOp);
    if (!op)
      fail(in.loc,
           fmt::format("{}: REDUX needs .SUM, .MIN, .MAX, .AND, .OR or .XOR", printInstr(f, in)));
    if (ctx.sm < 80)
      fail(in.loc, fmt::format("{}: PTX has redux.sync from sm_80", printInstr(f, in)));
    ctx.require(7, 0);
    const char *name = *op == Mod::SUM        ? "add"
                       : *op == Mod::MIN      ? "min"
                       : *op == Mod::MAX      ? "max"
                       : *op == Mod::ATOM_AND ? "and"
                       : *op == Mod::ATOM_OR  ? "or"
                                              : "xor";
    bool arith = *op == Mod::SUM || *op == Mod::MIN || *op == Mod::MAX;
    const char *type = !arith ? "b32" : in.has(Mod::S32) ? "s32" : "u32";
    std::string mask = memberMask(in);
    std::string a = intSrc(in, 0, 32, true);
    std::string d = intDst(in, 0, 32);
    emit(fmt::format("redux.sync.{}.{} {}, {}, {};", name, type, d, a, mask));
    return true;
  }
  case Opcode::BAR: {
    bool red = in.has(Mod::RED);
    size_t ids = red && !in.srcs.empty() ? in.srcs.size() - 1 : in.srcs.size(); // a[, b]
    std::string a = intSrc(in, 0, 32);
    std::string b = ids > 1 ? intSrc(in, 1, 32) : "";
    if (in.srcs[0].kind == Operand::Kind::Imm && uint64_t(in.srcs[0].imm) > 15)
      fail(in.loc, fmt::format("{}: PTX has barriers 0 to 15", printInstr(f, in)));
    if (ids > 1 && ((in.srcs[1].kind == Operand::Kind::Imm &&
                     (in.srcs[1].imm % 32 != 0 || in.srcs[1].imm == 0)) ||
                    isConstReg(in.srcs[1])))
      fail(in.loc,
           fmt::format("{}: PTX barriers count threads in whole warps (a non-zero multiple of 32)",
                       printInstr(f, in)));
    std::string count = b.empty() ? "" : fmt::format(", {}", b);
    if (red) {
      std::optional<Mod> op = in.has(Mod::POPC)  ? Mod::POPC
                              : in.has(Mod::AND) ? Mod::AND
                              : in.has(Mod::OR)  ? Mod::OR
                                                 : std::optional<Mod>();
      if (!op)
        fail(in.loc, fmt::format("{}: BAR.RED needs .POPC, .AND or .OR", printInstr(f, in)));
      Pred c = predSrc(in, ids);
      std::string cText;
      if (c.isConst) { // PT / !PT
        cText = temp(1);
        emit(fmt::format("setp.ne.u32 {}, {}, 0;", cText, c.value ? 1 : 0));
      } else {
        cText = predText(c);
      }
      if (*op == Mod::POPC)
        emit(fmt::format("bar.red.popc.u32 {}, {}{}, {};", intDst(in, 0, 32), a, count, cText));
      else
        emit(fmt::format("bar.red.{}.pred {}, {}{}, {};", *op == Mod::AND ? "and" : "or",
                         predDst(in, 0), a, count, cText));
      return true;
    }
    if (in.has(Mod::ARV)) {
      if (b.empty())
        fail(in.loc, fmt::format("{}: PTX bar.arrive needs a thread count", printInstr(f, in)));
      emit(fmt::format("bar.arrive {}{};", a, count));
    } else {
      emit(fmt::format("bar.sync {}{};", a, count));
    }
    return true;
  }
  default:
    return false;
  }
}

} // namespace ori::ptx::emit_detail
