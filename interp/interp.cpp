// The interpreter (interp/interp.h, docs/interpreter.md): registers and
// operand access. Warps, control flow and CTAs are in interp/interp_simt.cpp,
// the warp-level instructions in interp/interp_warp.cpp, variables, call
// frames and memory in interp/interp_mem.cpp, integer semantics in
// interp/interp_alu.cpp, floating point in interp/interp_float.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <utility>

#include "interp/interp_impl.h"

namespace ori {
namespace interp_detail {

void unsupported(std::string why) { throw Stop{RunResult::Kind::Unsupported, 0, std::move(why)}; }
void fault(uint64_t addr, std::string why) {
  throw Stop{RunResult::Kind::Fault, addr, std::move(why)};
}
void malformed(std::string why) {
  throw Stop{RunResult::Kind::Error, 0, "malformed IR: " + std::move(why)};
}

std::string mnemonic(const Instr &in) {
  std::string s(in.info().name);
  for (Mod m : in.mods.list())
    s += fmt::format(".{}", modText(m));
  return s;
}

std::optional<Mod> modOf(const Instr &in, ModGroup g) {
  static const auto groups = [] {
    std::array<std::vector<Mod>, 64> t{};
    for (int m = 0; m < kNumMods; ++m)
      if (size_t(modGroup(Mod(m))) < t.size())
        t[size_t(modGroup(Mod(m)))].push_back(Mod(m));
    return t;
  }();
  if (size_t(g) >= groups.size())
    return in.mods.inGroup(g);
  for (Mod m : groups[size_t(g)])
    if (in.mods.test(m))
      return m;
  return std::nullopt;
}

// ---------------------------------------------------------------- registers

uint64_t Registers::getSlow(Reg r) const {
  if (r.isConst())
    return r.isPredicate() ? 1 : 0;
  size_t f = size_t(r.file);
  if (f >= dense_.size())
    malformed("register of an unknown file");
  if (r.num < kDense)
    return r.num < dense_[f].size() ? dense_[f][r.num] : 0;
  auto it = sparse_[f].find(r.num);
  return it == sparse_[f].end() ? 0 : it->second;
}

void Registers::setSlow(Reg r, uint64_t v) {
  if (r.isConst())
    return; // writes to RZ/PT are discarded
  size_t f = size_t(r.file);
  if (f >= dense_.size())
    malformed("register of an unknown file");
  if (r.num < kDense) {
    std::vector<uint64_t> &d = dense_[f];
    if (r.num >= d.size())
      d.resize(std::max<size_t>(r.num + 1, std::min<size_t>(2 * d.size(), kDense)), 0);
    d[r.num] = v;
  } else {
    sparse_[f][r.num] = v;
  }
}

void Registers::clear() {
  for (auto &d : dense_)
    std::fill(d.begin(), d.end(), 0);
  for (auto &s : sparse_)
    s.clear();
}

// ---------------------------------------------------------------- operands

const Operand &Machine::src(const Instr &in, size_t i) const {
  if (i >= in.srcs.size())
    malformed(
        fmt::format("{} at line {} lacks source operand {}", in.info().name, in.loc.line, i + 1));
  return in.srcs[i];
}

const Operand &Machine::dst(const Instr &in, size_t i) const {
  if (i >= in.dsts.size())
    malformed(
        fmt::format("{} at line {} lacks destination {}", in.info().name, in.loc.line, i + 1));
  return in.dsts[i];
}

namespace {
[[noreturn]] void badKind(const Instr &in, size_t i, const char *what) {
  malformed(fmt::format("operand {} of {} at line {} must be {}", i + 1, in.info().name,
                        in.loc.line, what));
}
} // namespace

uint64_t Machine::readCBank(const Operand &o, unsigned bytes) const {
  int64_t off = o.imm;
  if (o.hasReg) {
    if (!o.reg.isGeneral())
      malformed("a constant-bank index register must be of file R or UR");
    off += int64_t(uint32_t(th->regs.get(o.reg))); // the index register is 32-bit unsigned
  }
  if (uint64_t(off) % bytes != 0)
    fault(uint64_t(off), fmt::format("misaligned {}-byte constant-bank read at c[0x{:x}][0x{:x}]",
                                     bytes, o.bank, off));
  if (o.bank == kConstDataBank) { // the module's .const data, as PTX ld.const reads it
    if (off < 0 || uint64_t(off) + bytes > constData.size())
      fault(uint64_t(off),
            fmt::format("constant address 0x{:x} is outside [0, 0x{:x})", off, constData.size()));
    uint64_t v = 0;
    for (unsigned k = 0; k < bytes; ++k)
      v |= uint64_t(constData[size_t(off) + k]) << (8 * k);
    return v;
  }
  uint64_t v = 0;
  for (unsigned k = 0; k < bytes; ++k) {
    int64_t pos = off + int64_t(k);
    if (o.bank == 0 && pos >= 0 && uint64_t(pos) < cbank0.size())
      v |= uint64_t(cbank0[size_t(pos)]) << (8 * k);
  }
  return v;
}

uint64_t Machine::readInt(const Instr &in, size_t i, unsigned bits) const {
  const Operand &o = src(in, i);
  uint64_t v = 0;
  switch (o.kind) {
  case Operand::Kind::Reg:
    if (!o.reg.isGeneral())
      badKind(in, i, "a register of file R or UR");
    v = th->regs.get(o.reg);
    break;
  case Operand::Kind::Imm:
    v = uint64_t(o.imm);
    break;
  case Operand::Kind::CBank:
    v = readCBank(o, bits / 8);
    break;
  case Operand::Kind::Symbol:
    v = symbolAddress(o);
    break; // MOV R, sym
  default:
    badKind(in, i, "an integer register, immediate or constant");
  }
  if (o.abs)
    badKind(in, i, "an integer operand without |..|");
  if (o.neg)
    v = uint64_t(0) - v;
  return maskTo(v, bits);
}

int64_t Machine::readImm(const Instr &in, size_t i) const {
  const Operand &o = src(in, i);
  if (o.kind != Operand::Kind::Imm)
    badKind(in, i, "an integer immediate");
  return o.imm;
}

bool Machine::readPred(const Instr &in, size_t i) const {
  const Operand &o = src(in, i);
  if (o.kind != Operand::Kind::Reg || !o.reg.isPredicate())
    badKind(in, i, "a predicate");
  return (th->regs.get(o.reg) & 1) != o.neg;
}

uint32_t Machine::readF32Bits(const Instr &in, size_t i) const {
  const Operand &o = src(in, i);
  uint32_t v = 0;
  switch (o.kind) {
  case Operand::Kind::Reg:
    if (!o.reg.isGeneral())
      badKind(in, i, "a register of file R or UR");
    v = uint32_t(th->regs.get(o.reg));
    break;
  case Operand::Kind::FImm:
    v = std::bit_cast<uint32_t>(float(o.fimm));
    break;
  case Operand::Kind::CBank:
    v = uint32_t(readCBank(o, 4));
    break;
  default:
    badKind(in, i, "a float register, immediate or constant");
  }
  if (o.abs)
    v &= 0x7fffffffu;
  if (o.neg)
    v ^= 0x80000000u;
  return v;
}

uint64_t Machine::readF64Bits(const Instr &in, size_t i) const {
  const Operand &o = src(in, i);
  uint64_t v = 0;
  switch (o.kind) {
  case Operand::Kind::Reg:
    if (!o.reg.isGeneral())
      badKind(in, i, "a register of file R or UR");
    v = th->regs.get(o.reg);
    break;
  case Operand::Kind::FImm:
    v = std::bit_cast<uint64_t>(o.fimm);
    break;
  case Operand::Kind::CBank:
    v = readCBank(o, 8);
    break;
  default:
    badKind(in, i, "a float register, immediate or constant");
  }
  constexpr uint64_t kSign = uint64_t(1) << 63;
  if (o.abs)
    v &= ~kSign;
  if (o.neg)
    v ^= kSign;
  return v;
}

void Machine::writeInt(const Instr &in, size_t d, uint64_t v, unsigned bits) {
  const Operand &o = dst(in, d);
  if (o.kind != Operand::Kind::Reg || !o.reg.isGeneral())
    malformed(fmt::format("destination {} of {} at line {} must be a register of file R or UR",
                          d + 1, in.info().name, in.loc.line));
  th->regs.set(o.reg, maskTo(v, bits));
}

void Machine::writePred(const Instr &in, size_t d, bool v) {
  const Operand &o = dst(in, d);
  if (o.kind != Operand::Kind::Reg || !o.reg.isPredicate())
    malformed(fmt::format("destination {} of {} at line {} must be a predicate", d + 1,
                          in.info().name, in.loc.line));
  th->regs.set(o.reg, v ? 1 : 0);
}

} // namespace interp_detail
} // namespace ori
