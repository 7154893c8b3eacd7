// Ori -> PTX: register widths and the registers each function reads before
// writing them (emit_impl.h).
//
// Widths: a register with a declared type keeps it; an untyped one is 64-bit
// if any instruction of its function writes it as a 64-bit value, else 32-bit.
// Live-in registers: the interpreter gives every thread, and every called
// function, zeroed registers; PTX registers start undefined. A backward
// liveness over the function's blocks finds the registers some path reads
// before writing them; the function sets them to 0 first.
#include <fmt/format.h>

#include "ir/ptx/emit_impl.h"

namespace ori::ptx::emit_detail {

void fail(SrcLoc loc, std::string message) { throw Failure{loc, std::move(message)}; }

unsigned bitsOfType(const std::string& t) {
  if (t == "pred") return 1;
  if (t == "f16x2" || t == "bf16x2") return 32;
  if (t == "bf16") return 16;
  if (t.size() < 2 || (t[0] != 'u' && t[0] != 's' && t[0] != 'b' && t[0] != 'f')) return 0;
  std::string digits = t.substr(1);
  if (digits == "8" || digits == "16") return 16; // 8-bit values live in .b16 registers
  if (digits == "32") return 32;
  if (digits == "64") return 64;
  return 0;
}

std::string regDeclType(unsigned bits) {
  switch (bits) {
  case 1: return ".pred";
  case 16: return ".b16";
  case 64: return ".b64";
  default: return ".b32";
  }
}

bool isPtxIdent(const std::string& s) {
  if (s.empty()) return false;
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (char c : s)
    if (!letter(c) && !digit(c) && c != '_' && c != '$' && c != '%') return false;
  if (letter(s[0])) return true;
  return (s[0] == '_' || s[0] == '$' || s[0] == '%') && s.size() > 1;
}

unsigned writeBits(const Instr& in, size_t d) {
  (void)d; // every opcode with a general-register destination has one
  auto w64 = [&] { return in.has(Mod::W64) ? 64u : 32u; };
  auto type64 = [&] { return in.has(Mod::U64) || in.has(Mod::S64) ? 64u : 32u; };
  switch (in.op) {
  case Opcode::MOV:
    if (!in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Symbol) return 64;
    return w64();
  case Opcode::IADD3: case Opcode::SEL: case Opcode::LOP3: case Opcode::SHL: case Opcode::LEA:
  case Opcode::LD: case Opcode::LDG: case Opcode::LDS: case Opcode::LDL: case Opcode::LDC:
  case Opcode::ATOM:
    return w64();
  case Opcode::IMAD:
    if (in.has(Mod::WIDE)) return 64;
    if (in.has(Mod::HI)) return 32;
    return w64();
  case Opcode::SHR: case Opcode::IMNMX: case Opcode::F2I: return type64();
  case Opcode::I2F: return in.has(Mod::F64) ? 64 : 32;
  case Opcode::DADD: case Opcode::DMUL: case Opcode::DFMA: return 64;
  case Opcode::S2R:
    if (!in.srcs.empty() && in.srcs[0].kind == Operand::Kind::SReg &&
        (in.srcs[0].sreg == SpecialReg::SWINBASE || in.srcs[0].sreg == SpecialReg::LWINBASE))
      return 64;
    return 32;
  case Opcode::OPAQUE: return 0;
  default: return 32;
  }
}

namespace {

using RegSet = std::set<Reg>;

bool tracked(Reg r) { return !r.isConst() && r.file != RegFile::B; }

void addAll(RegSet& to, const RegSet& from) { to.insert(from.begin(), from.end()); }

// live = the registers live before `in`, given those live after it.
void transfer(const Function& f, const Instr& in, const std::vector<RegSet>& liveIn, RegSet& live) {
  bool guarded = in.isGuarded();
  auto target = [&](uint32_t bix) {
    return bix < liveIn.size() ? liveIn[bix] : RegSet{};
  };
  switch (in.op) {
  case Opcode::BRA: {
    RegSet t = !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Label ? target(in.srcs[0].target) : RegSet{};
    if (guarded) addAll(live, t);
    else live = std::move(t);
    break;
  }
  case Opcode::BRX: {
    RegSet t;
    if (in.srcs.size() > 1 && in.srcs[1].kind == Operand::Kind::JumpTable && in.srcs[1].target < f.jumpTables.size())
      for (uint32_t bix : f.jumpTables[in.srcs[1].target].targets) addAll(t, target(bix));
    if (guarded) addAll(live, t);
    else live = std::move(t);
    break;
  }
  case Opcode::EXIT: case Opcode::RET:
    if (!guarded) live.clear();
    break;
  default:
    if (!guarded)
      for (Reg r : in.defs()) live.erase(r);
    break;
  }
  for (Reg r : in.uses())
    if (tracked(r)) live.insert(r);
}

RegSet liveOnEntry(const Function& f) {
  size_t n = f.blocks.size();
  std::vector<RegSet> liveIn(n);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = n; b-- > 0;) {
      RegSet live = b + 1 < n ? liveIn[b + 1] : RegSet{};
      const auto& instrs = f.blocks[b].instrs;
      for (size_t i = instrs.size(); i-- > 0;) transfer(f, instrs[i], liveIn, live);
      if (live != liveIn[b]) {
        liveIn[b] = std::move(live);
        changed = true;
      }
    }
  }
  return n ? liveIn[0] : RegSet{};
}

} // namespace

void analyzeModule(ModuleCtx& ctx) {
  const Module& m = *ctx.m;
  for (const Function& f : m.functions) {
    if (f.isDeclaration()) continue;
    RegSet& wide = ctx.wide[f.name];
    for (const Block& b : f.blocks)
      for (const Instr& in : b.instrs)
        for (size_t d = 0; d < in.dsts.size(); ++d) {
          const Operand& o = in.dsts[d];
          if (o.kind == Operand::Kind::Reg && o.reg.isGeneral() && !o.reg.isConst() && writeBits(in, d) == 64)
            wide.insert(o.reg);
        }
    ctx.liveIn[f.name] = liveOnEntry(f);
  }
}

} // namespace ori::ptx::emit_detail
