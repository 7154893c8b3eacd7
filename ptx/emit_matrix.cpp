// Ori -> PTX: the warp-level matrix instructions and the sm_90 warp controls (emit_impl.h).
//   HMMA/IMMA/DMMA/BMMA -> mma.sync.aligned.mMnNkK.alayout.blayout[.satfinite][.rnd].d.a.b.c
//     [.and/.xor.popc] {d..}, {a..}, {b..}, {c..}: the form ir/mma.h reads from the modifiers;
//   LDSM/STSM.M88/.MT88[.2|.4] -> ldmatrix/stmatrix.sync.aligned.m8n8.xN[.trans].shared.b16;
//   MOVM.MT88 -> movmatrix.sync.aligned.m8n8.trans.b16;
//   ELECT d, p, mask -> elect.sync d|p, mask (d = RZ: _); ACQBULK / PREEXIT ->
//   griddepcontrol.wait / .launch_dependents; SETMAXREG -> setmaxnreg.{inc,dec}.sync.aligned.u32.
// Each needs the PTX version and target the PTX ISA gives it; an older target is an error.
#include <fmt/format.h>

#include "ir/mma.h"
#include "ir/ori.h"
#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {

namespace {

// The PTX version and SM a form needs (PTX ISA 9.0, 9.7.14.5.14, "PTX ISA Notes" and
// "Target ISA Notes").
struct Needs {
  int major, minor;
  unsigned sm;
};
Needs mmaNeeds(const Instr &in, const MmaForm &f) {
  switch (in.op) {
  case Opcode::DMMA:
    return f.m == 8 ? Needs{7, 0, 80} : Needs{7, 8, 90};
  case Opcode::BMMA:
    return f.bitAnd ? Needs{7, 1, 80} : f.m == 8 ? Needs{7, 0, 75} : Needs{7, 0, 80};
  case Opcode::IMMA:
    return f.m == 8 ? Needs{6, 5, 75} : Needs{7, 0, 80};
  default:
    break;
  }
  if (f.a == MmaElem::E4M3 || f.a == MmaElem::E5M2)
    return f.k == 16 || f.d == MmaElem::F16 ? Needs{8, 7, 89} : Needs{8, 4, 89};
  if (f.quad)
    return {6, 4, 70};
  if (f.a == MmaElem::F16 && f.k == 8)
    return {6, 5, 75};
  return {7, 0, 80};
}

} // namespace

bool FnEmitter::emitMatrix(const Instr &in) {
  auto needs = [&](Needs n, const char *what) {
    if (ctx.sm < n.sm)
      fail(in.loc, fmt::format("{}: PTX has {} from sm_{}", printInstr(f, in), what, n.sm));
    ctx.require(n.major, n.minor);
  };
  auto regList = [&](size_t first, size_t n, unsigned bits, bool dst) {
    std::string out = "{";
    for (size_t k = 0; k < n; ++k)
      out += fmt::format("{}{}", k ? ", " : "",
                         dst ? intDst(in, first + k, bits) : intSrc(in, first + k, bits, true));
    return out + "}";
  };
  switch (in.op) {
  case Opcode::HMMA:
  case Opcode::IMMA:
  case Opcode::DMMA:
  case Opcode::BMMA: {
    const auto form = mmaForm(in.op, in.mods);
    if (const std::string *why = std::get_if<std::string>(&form))
      fail(in.loc, fmt::format("{}: {}", printInstr(f, in), *why));
    const MmaForm &mf = std::get<MmaForm>(form);
    if (in.dsts.size() != mf.dRegs || in.srcs.size() != mf.aRegs + mf.bRegs + mf.cRegs)
      fail(in.loc, fmt::format("{}: malformed matrix multiply-accumulate", printInstr(f, in)));
    needs(mmaNeeds(in, mf), "this mma form");
    std::string mods = fmt::format(".m{}n{}k{}.{}.{}", mf.m, mf.n, mf.k,
                                   mf.aColMajor ? "col" : "row", mf.bRowMajor ? "row" : "col");
    if (mf.satfinite)
      mods += ".satfinite";
    if (auto r = in.mods.inGroup(ModGroup::FRound); r && in.op == Opcode::DMMA)
      mods += *r == Mod::RZ ? ".rz" : *r == Mod::RM ? ".rm" : *r == Mod::RP ? ".rp" : ".rn";
    mods += fmt::format(".{}.{}.{}.{}", mmaElemName(mf.d), mmaElemName(mf.a), mmaElemName(mf.b),
                        mmaElemName(mf.c));
    if (in.op == Opcode::BMMA)
      mods += mf.bitAnd ? ".and.popc" : ".xor.popc";
    const unsigned ab = mf.a == MmaElem::F64 ? 64 : 32, cd = mf.c == MmaElem::F64 ? 64 : 32;
    std::string a = regList(0, mf.aRegs, ab, false), b = regList(mf.aRegs, mf.bRegs, ab, false);
    std::string c = regList(mf.aRegs + mf.bRegs, mf.cRegs, cd, false);
    std::string d = regList(0, mf.dRegs, cd, true);
    emit(fmt::format("mma.sync.aligned{} {}, {}, {}, {};", mods, d, a, b, c));
    return true;
  }
  case Opcode::LDSM:
  case Opcode::STSM: {
    const bool load = in.op == Opcode::LDSM;
    const unsigned n = matrixCount(in.mods);
    if ((load ? in.dsts.size() : in.srcs.size() - 1) != n || in.srcs.empty())
      fail(in.loc, fmt::format("{}: malformed matrix move", printInstr(f, in)));
    needs(load ? Needs{6, 5, 75} : Needs{7, 8, 90}, load ? "ldmatrix" : "stmatrix");
    std::string space = "shared";
    std::string addr = address(in, 0, space);
    if (space != "shared")
      fail(in.loc, fmt::format("{}: the address must be in shared memory", printInstr(f, in)));
    std::string mods = fmt::format(".m8n8.x{}{}.shared.b16", n, in.has(Mod::MT88) ? ".trans" : "");
    if (load)
      emit(fmt::format("ldmatrix.sync.aligned{} {}, {};", mods, regList(0, n, 32, true), addr));
    else
      emit(fmt::format("stmatrix.sync.aligned{} {}, {};", mods, addr, regList(1, n, 32, false)));
    return true;
  }
  case Opcode::MOVM:
    needs({7, 8, 75}, "movmatrix");
    emit(fmt::format("movmatrix.sync.aligned.m8n8.trans.b16 {}, {};", intDst(in, 0, 32),
                     intSrc(in, 0, 32, true)));
    return true;
  case Opcode::ELECT: {
    needs({8, 0, 90}, "elect.sync");
    syncedMask_.reset(); // a WARPSYNC of the same mask before it is part of it (syncJoinsNext)
    const Operand &dr = in.dsts.at(0);
    std::string d = dr.kind == Operand::Kind::Reg && dr.reg.isConst() ? "_" : intDst(in, 0, 32);
    emit(fmt::format("elect.sync {}|{}, {};", d, predDst(in, 1), intSrc(in, 0, 32)));
    return true;
  }
  case Opcode::ACQBULK:
  case Opcode::PREEXIT:
    needs({7, 8, 90}, "griddepcontrol");
    emit(in.op == Opcode::ACQBULK ? "griddepcontrol.wait;" : "griddepcontrol.launch_dependents;");
    return true;
  case Opcode::SETMAXREG: {
    needs({8, 0, 90}, "setmaxnreg");
    if (!ctx.archSpecific)
      fail(in.loc,
           fmt::format("{}: PTX has setmaxnreg on architecture-specific targets only (sm_90a, ...)",
                       printInstr(f, in)));
    const Operand &n = in.srcs.at(0);
    if (n.kind != Operand::Kind::Imm || n.imm < 24 || n.imm > 256 || n.imm % 8 != 0)
      fail(in.loc, fmt::format("{}: setmaxnreg takes a count from 24 to 256, a multiple of 8",
                               printInstr(f, in)));
    emit(
        fmt::format("setmaxnreg.{}.sync.aligned.u32 {};", in.has(Mod::INC) ? "inc" : "dec", n.imm));
    return true;
  }
  default:
    return false;
  }
}

} // namespace ori::ptx::emit_detail
