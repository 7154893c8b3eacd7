// Ori -> PTX: register widths and the registers each function reads before
// writing them (emit_impl.h).
//
// Widths: a register with a declared type keeps it; an untyped one is 64-bit
// if any instruction of its function writes it as a 64-bit value, else 32-bit.
// Live-in registers: the interpreter gives every thread, and every called
// function, zeroed registers; PTX registers start undefined. A backward
// liveness over the function's blocks finds the registers some path reads
// before writing them; the function sets them to 0 first.
#include <unordered_map>

#include <fmt/format.h>

#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {

void fail(SrcLoc loc, std::string message) { throw Failure{loc, std::move(message)}; }

unsigned bitsOfType(const std::string &t) {
  if (t == "pred")
    return 1;
  if (t == "f16x2" || t == "bf16x2")
    return 32;
  if (t == "bf16")
    return 16;
  if (t.size() < 2 || (t[0] != 'u' && t[0] != 's' && t[0] != 'b' && t[0] != 'f'))
    return 0;
  std::string digits = t.substr(1);
  if (digits == "8" || digits == "16")
    return 16; // 8-bit values live in .b16 registers
  if (digits == "32")
    return 32;
  if (digits == "64")
    return 64;
  return 0;
}

std::string regDeclType(unsigned bits) {
  switch (bits) {
  case 1:
    return ".pred";
  case 8:
    return ".b8";
  case 16:
    return ".b16";
  case 64:
    return ".b64";
  default:
    return ".b32";
  }
}

bool isPtxIdent(const std::string &s) {
  if (s.empty())
    return false;
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (char c : s)
    if (!letter(c) && !digit(c) && c != '_' && c != '$' && c != '%')
      return false;
  if (letter(s[0]))
    return true;
  return (s[0] == '_' || s[0] == '$' || s[0] == '%') && s.size() > 1;
}

unsigned writeBits(const Instr &in, size_t d) {
  (void)d; // every opcode with a general-register destination has one
  auto w64 = [&] { return in.has(Mod::W64) ? 64u : 32u; };
  auto type64 = [&] { return in.has(Mod::U64) || in.has(Mod::S64) ? 64u : 32u; };
  switch (in.op) {
  case Opcode::MOV:
    if (!in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Symbol)
      return 64;
    return w64();
  case Opcode::IADD3:
  case Opcode::IADDC:
  case Opcode::SEL:
  case Opcode::LOP3:
  case Opcode::SHL:
  case Opcode::LEA:
  case Opcode::LD:
  case Opcode::LDG:
  case Opcode::LDS:
  case Opcode::LDL:
  case Opcode::LDC:
  case Opcode::SULD:
    return w64();
  case Opcode::ATOM:
  case Opcode::ATOMG:
  case Opcode::ATOMS:
    return atomicBytes(in.mods) >= 8 ? 64 : 32;
  case Opcode::CREATEPOLICY:
    return 64;
  case Opcode::ALLOCA:
  case Opcode::STACKSAVE:
    return w64();
  case Opcode::IMAD:
    if (in.has(Mod::WIDE))
      return 64;
    if (in.has(Mod::HI))
      return 32;
    return w64();
  case Opcode::SHR:
  case Opcode::IMNMX:
  case Opcode::F2I:
  case Opcode::IDIV:
  case Opcode::IREM:
    return type64();
  case Opcode::SGXT:
  case Opcode::BREV:
    return w64();
  case Opcode::I2F:
    return in.has(Mod::F64) ? 64 : 32;
  case Opcode::DADD:
  case Opcode::DMUL:
  case Opcode::DFMA:
  case Opcode::DMNMX:
  case Opcode::DMMA:
    return 64;
  case Opcode::F2F:
  case Opcode::FRND:
  case Opcode::FDIV:
  case Opcode::FSQRT:
    return in.has(Mod::F64) ? 64 : 32;
  case Opcode::MUFU:
    return in.has(Mod::F64) || in.has(Mod::RCP64H) || in.has(Mod::RSQ64H) ? 64 : 32;
  case Opcode::S2R:
    if (!in.srcs.empty() && in.srcs[0].kind == Operand::Kind::SReg &&
        (in.srcs[0].sreg == SpecialReg::SWINBASE || in.srcs[0].sreg == SpecialReg::LWINBASE ||
         in.srcs[0].sreg == SpecialReg::CWINBASE))
      return 64;
    return 32;
  case Opcode::OPAQUE:
    return 0;
  default:
    return 32;
  }
}

std::vector<std::vector<uint32_t>> successors(const Function &f) {
  size_t n = f.blocks.size();
  std::vector<std::vector<uint32_t>> succs(n);
  for (size_t b = 0; b < n; ++b) {
    const auto &instrs = f.blocks[b].instrs;
    bool fallsThrough = true;
    auto add = [&](uint32_t t) {
      if (t < n)
        succs[b].push_back(t);
    };
    if (!instrs.empty()) {
      const Instr &last = instrs.back();
      bool guarded = last.isGuarded();
      switch (last.op) {
      case Opcode::BRA:
        if (!last.srcs.empty() && last.srcs[0].kind == Operand::Kind::Label)
          add(last.srcs[0].target);
        fallsThrough = guarded;
        break;
      case Opcode::BRX:
      case Opcode::JMX:
        if (last.srcs.size() > 1 && last.srcs[1].kind == Operand::Kind::JumpTable &&
            last.srcs[1].target < f.jumpTables.size())
          for (uint32_t t : f.jumpTables[last.srcs[1].target].targets)
            add(t);
        fallsThrough = guarded;
        break;
      case Opcode::EXIT:
      case Opcode::RET:
        fallsThrough = guarded;
        break;
      default:
        break;
      }
    }
    if (fallsThrough)
      add(uint32_t(b + 1));
  }
  return succs;
}

namespace {

using RegSet = std::set<Reg>;

bool tracked(Reg r) { return !r.isConst() && r.file != RegFile::B; }

// Bit sets over the function's tracked registers.
struct Bits {
  std::vector<uint64_t> w;
  explicit Bits(size_t n = 0) : w((n + 63) / 64) {}
  void set(size_t i) { w[i / 64] |= uint64_t(1) << (i % 64); }
  void reset(size_t i) { w[i / 64] &= ~(uint64_t(1) << (i % 64)); }
  bool test(size_t i) const { return (w[i / 64] >> (i % 64)) & 1; }
};

// Registers live on entry: a backward dataflow over blocks with a worklist.
// A block's successors follow from its last instruction (control flow ends a
// block): BRA/BRX targets, nothing after an unguarded EXIT/RET, else bix+1.
RegSet liveOnEntry(const Function &f) {
  std::unordered_map<uint64_t, uint32_t> index; // (file, number) -> bit
  std::vector<Reg> regs;
  auto key = [](Reg r) { return uint64_t(r.file) << 32 | r.num; };
  auto note = [&](Reg r) {
    if (tracked(r) && index.emplace(key(r), uint32_t(regs.size())).second)
      regs.push_back(r);
  };
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs) {
      forEachDef(in, note);
      forEachUse(in, note);
    }
  size_t n = f.blocks.size(), nr = regs.size();
  if (n == 0 || nr == 0)
    return {};
  std::vector<Bits> gen(n, Bits(nr)), kill(n, Bits(nr)), in(n, Bits(nr));
  std::vector<std::vector<uint32_t>> succs = successors(f), preds(n);
  for (size_t b = 0; b < n; ++b)
    for (uint32_t s : succs[b])
      preds[s].push_back(uint32_t(b));
  for (size_t b = 0; b < n; ++b) {
    const auto &instrs = f.blocks[b].instrs;
    for (size_t i = instrs.size();
         i-- > 0;) { // gen = uses(x) ∪ (gen − defs(x)), last instruction first
      const Instr &x = instrs[i];
      if (!x.isGuarded())
        forEachDef(x, [&](Reg r) {
          if (!tracked(r))
            return;
          const uint32_t i = index.at(key(r));
          kill[b].set(i);
          gen[b].reset(i);
        });
      forEachUse(x, [&](Reg r) {
        if (tracked(r))
          gen[b].set(index.at(key(r)));
      });
    }
  }
  std::vector<uint32_t> work;
  std::vector<bool> queued(n, true);
  for (size_t b = 0; b < n; ++b)
    work.push_back(uint32_t(b)); // popped from the back: last blocks first
  Bits out(nr);
  while (!work.empty()) {
    uint32_t b = work.back();
    work.pop_back();
    queued[b] = false;
    std::fill(out.w.begin(), out.w.end(), 0);
    for (uint32_t s : succs[b])
      for (size_t k = 0; k < out.w.size(); ++k)
        out.w[k] |= in[s].w[k];
    bool changed = false;
    for (size_t k = 0; k < out.w.size(); ++k) {
      uint64_t v = gen[b].w[k] | (out.w[k] & ~kill[b].w[k]);
      if (v != in[b].w[k]) {
        in[b].w[k] = v;
        changed = true;
      }
    }
    if (changed)
      for (uint32_t p : preds[b])
        if (!queued[p]) {
          queued[p] = true;
          work.push_back(p);
        }
  }
  RegSet live;
  for (size_t i = 0; i < nr; ++i)
    if (in[0].test(i))
      live.insert(regs[i]);
  return live;
}

} // namespace

void analyzeModule(ModuleCtx &ctx) {
  const Module &m = *ctx.m;
  for (const Function &f : m.functions) {
    if (f.isDeclaration())
      continue;
    RegSet &wide = ctx.wide[f.name];
    for (const Block &b : f.blocks)
      for (const Instr &in : b.instrs)
        for (size_t d = 0; d < in.dsts.size(); ++d) {
          const Operand &o = in.dsts[d];
          if (o.kind == Operand::Kind::Reg && o.reg.isGeneral() && !o.reg.isConst() &&
              writeBits(in, d) == 64)
            wide.insert(o.reg);
        }
    ctx.liveIn[f.name] = liveOnEntry(f);
  }
}

const char *compareName(ori::Mod m) {
  switch (m) {
  case ori::Mod::LT:
    return "lt";
  case ori::Mod::EQ:
    return "eq";
  case ori::Mod::LE:
    return "le";
  case ori::Mod::GT:
    return "gt";
  case ori::Mod::NE:
    return "ne";
  case ori::Mod::GE:
    return "ge";
  case ori::Mod::NUM:
    return "num";
  case ori::Mod::NAN_:
    return "nan";
  case ori::Mod::LTU:
    return "ltu";
  case ori::Mod::EQU:
    return "equ";
  case ori::Mod::LEU:
    return "leu";
  case ori::Mod::GTU:
    return "gtu";
  case ori::Mod::NEU:
    return "neu";
  case ori::Mod::GEU:
    return "geu";
  default:
    return nullptr;
  }
}

} // namespace ori::ptx::emit_detail
