// Instructions the translation validator has no model of (verify/tv_impl.h,
// SideEncoder::uninterpreted; docs/verifier.md, "Uninterpreted instructions"): surfaces and
// textures (SULD, SUST, TEX), asynchronous copies (LDGSTS, LDGDEPBAR, DEPBAR), the
// warp-collective instructions (VOTE, SHFL, MATCH, REDUX, LDSM, STSM), barriers other than
// BAR.SYNC 0, OPAQUE, and modifier combinations of modelled opcodes that have no model.
//
// Each is congruent, not interpreted: its results are Z3 uninterpreted functions, shared by
// both sides, of
//  - its signature: the opcode, its modifiers, each operand's kind, `-`/`|..|`/`!` and
//    immediates (OPAQUE: its whole PTX text), so two instructions share a function only when
//    they are the same instruction;
//  - the values it reads: its registers, a memory operand's address, a constant bank's word;
//  - for one that reads or writes memory, the shared and the private memory before it: a
//    memory effect is a function of the memory before it, so dropping, duplicating or
//    reordering one (against another or against a modelled store) changes the memory terms
//    after it. State the interpreter keeps outside memory (a surface's bytes, a pending
//    copy) is taken to live in an address range no access reaches (docs/verifier.md says why
//    that is sound), so it is part of the memory compared at the end;
//  - for a warp-collective one, its execution context: the function, the label of its block
//    and the number of warp-collective instructions and barriers the thread passed before it
//    (its dynamic instance). Its value depends on other lanes; every lane runs the same code,
//    so when each lane reaches the same instance with the same inputs on both sides, the
//    other lanes' inputs are the same too. A phase that moves one into another block (where
//    the active mask may differ) changes its context and is not proved.
// A memory or OPAQUE instruction may also fault, by a function of the same arguments.
//
// A proof therefore holds whatever these instructions do. A counterexample may rely on a
// value no real instruction gives, so each is recorded in Inputs::approximations: a
// difference then makes the verdict unknown, with the instruction named, never refuted.
#include <fmt/format.h>

#include <bit>

#include "verify/tv_impl.h"

namespace ori::verify::tv_detail {

namespace {

bool collective(const Instr &in) {
  switch (in.op) {
  case Opcode::VOTE:
  case Opcode::SHFL:
  case Opcode::MATCH:
  case Opcode::REDUX:
  case Opcode::LDSM:
  case Opcode::STSM:
  case Opcode::BAR:
  case Opcode::OPAQUE: // may be anything, a warp-level instruction too
    return true;
  default:
    return false;
  }
}

// Writes memory or state outside the registers: everything with a side effect but the
// warp-collective instructions that only compute (their SIDE_EFFECT keeps them in place).
bool writesMemory(const Instr &in) {
  switch (in.op) {
  case Opcode::VOTE:
  case Opcode::SHFL:
  case Opcode::MATCH:
  case Opcode::REDUX:
  case Opcode::LDSM:
    return false;
  case Opcode::OPAQUE:
    return true;
  default:
    return in.info().is(SIDE_EFFECT);
  }
}

} // namespace

bool SideEncoder::isUninterpreted(const Instr &in) {
  switch (in.op) {
  case Opcode::SULD:
  case Opcode::SUST:
  case Opcode::TEX:
  case Opcode::LDGSTS:
  case Opcode::LDGDEPBAR:
  case Opcode::DEPBAR:
  case Opcode::LDSM:
  case Opcode::STSM:
  case Opcode::VOTE:
  case Opcode::SHFL:
  case Opcode::MATCH:
  case Opcode::REDUX:
  case Opcode::OPAQUE:
    return true;
  case Opcode::BAR: // BAR.SYNC 0 and BAR.ARV 0 are modelled (SideEncoder::barrier)
    return !(!in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Imm && in.srcs[0].imm == 0 &&
             in.srcs.size() == 1 && in.dsts.empty() && !in.has(Mod::RED) &&
             (in.has(Mod::SYNC) || in.has(Mod::ARV)));
  default:
    return false;
  }
}

void SideEncoder::uninterpreted(const Instr &in, const z3::expr &g, State &s, uint32_t b) {
  z3::context &c = smt_.ctx();
  const bool warp = collective(in), writes = writesMemory(in);
  const bool reads = writes || in.info().is(MEMORY);
  std::string name = in.op == Opcode::OPAQUE ? fmt::format("OPAQUE \"{}\"", in.opaqueText.str())
                                             : std::string(in.info().name);
  for (Mod mod : in.mods.list())
    name += fmt::format(".{}", modText(mod));
  z3::sort_vector domain(c);
  z3::expr_vector args(c);
  auto arg = [&](const z3::expr &v) {
    domain.push_back(v.get_sort());
    args.push_back(v);
  };
  for (size_t i = 0; i < in.srcs.size(); ++i) {
    const Operand &o = in.srcs[i];
    name += i == 0 ? " " : ", ";
    switch (o.kind) {
    case Operand::Kind::Reg: {
      z3::expr v = regOf(s, o.reg);
      if (v.is_bool()) {
        name += o.neg ? "!P" : "P";
        arg(o.neg ? !v : v);
      } else {
        name += o.neg && o.abs ? "-|R|" : o.neg ? "-R" : o.abs ? "|R|" : "R";
        arg(v);
      }
      break;
    }
    case Operand::Kind::Imm:
      name += hex(uint64_t(o.imm));
      break;
    case Operand::Kind::FImm:
      name += fmt::format("f{}", hex(std::bit_cast<uint64_t>(o.fimm)));
      break;
    case Operand::Kind::CBank:
      name += "c";
      arg(readWord(smt_, bankArray(in, o, s), bankOffset(o, s)));
      break;
    case Operand::Kind::Mem: {
      // The address the operand names (a variable's in its window, like memoryAccess).
      z3::expr a = smt_.bv(uint64_t(o.imm), 64);
      if (o.hasReg)
        a = a + regOf(s, o.reg);
      name += "[M]";
      if (!o.sym.empty()) {
        const Param *param = nullptr;
        const Variable *v = findVariable(m_, f_, o.sym, &param);
        if (v || param) {
          auto [base, window] = variableBase(in, o.sym, v, param);
          a = smt_.bv(window, 64) + base + a;
        } else {
          name += fmt::format("{{{}}}", o.sym.str());
        }
      }
      arg(a);
      break;
    }
    case Operand::Kind::Symbol: {
      const Param *param = nullptr;
      if (findVariable(m_, f_, o.sym, &param) || param) {
        name += "&";
        arg(symbolValue(in, o));
      } else {
        name += fmt::format("{{{}}}", o.sym.str()); // a .texref, a function: its name
      }
      break;
    }
    case Operand::Kind::SReg:
      name += specialRegName(o.sreg);
      break;
    case Operand::Kind::Label:
    case Operand::Kind::JumpTable:
      name += fmt::format("L{}", o.target);
      break;
    }
  }
  name += fmt::format(" -> {}", in.dsts.size());
  if (warp) {
    const std::string &label = f_.blocks[b].label;
    name += fmt::format(" @{}:{}", frame_, label.empty() ? fmt::format("bix{}", b) : label);
    arg(s.collectives);
    arg(s.barriers);
  }
  if (reads) {
    arg(s.mem);
    arg(s.priv);
  }
  if (args.empty()) { // a function of nothing: a constant
    domain.push_back(c.bv_sort(1));
    args.push_back(smt_.bv(0, 1));
  }
  x_.approximations.insert(
      fmt::format("{} at line {} (an uninterpreted instruction)",
                  in.op == Opcode::OPAQUE ? "OPAQUE" : std::string(in.info().name), in.loc.line));
  auto fn = [&](const std::string &what, const z3::sort &range) {
    return x_.opFunction(fmt::format("op {}: {}", name, what), domain, range)(args);
  };
  if (reads || in.op == Opcode::OPAQUE)
    addFault(in, s.pc && g && fn("faults", c.bool_sort()));
  for (size_t i = 0; i < in.dsts.size(); ++i) {
    const Operand &d = in.dsts[i];
    if (d.kind != Operand::Kind::Reg)
      unmodelledAt(in, "a destination that is not a register");
    if (d.reg.isConst())
      continue;
    z3::expr v = fn(fmt::format("d{}", i), d.reg.isPredicate() ? c.bool_sort() : c.bv_sort(64));
    s.regs.insert_or_assign(d.reg, iteOf(g, v, regOf(s, d.reg)));
  }
  if (writes) {
    z3::expr mem = fn("memory", x_.bytes), priv = fn("private memory", x_.bytes);
    s.mem = iteOf(g, mem, s.mem);
    s.priv = iteOf(g, priv, s.priv);
  }
  if (warp)
    s.collectives = iteOf(g, s.collectives + smt_.bv(1, 32), s.collectives);
}

} // namespace ori::verify::tv_detail
