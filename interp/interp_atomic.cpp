// Atomics and the memory-system instructions of the interpreter (docs/interpreter.md,
// "Memory", "Atomics" and "Fences, cache control and the stack"): ATOM, ATOMG, ATOMS, RED,
// REDG; MEMBAR, FENCE, NANOSLEEP, CCTL (nothing to do in one sequentially consistent memory
// without caches); QSPC (isspacep), CREATEPOLICY (the cache-policy encoding); ALLOCA,
// STACKSAVE, STACKRESTORE (the thread's local stack above its call frames).
#include <fmt/format.h>

#include <bit>
#include <cmath>

#include "interp/interp_impl.h"
#include "ir/float_format.h"

namespace ori::interp_detail {
namespace {

constexpr uint32_t kNaN32 = 0x7fffffffu;           // canonical, as FADD's (interp_float.cpp)
constexpr uint64_t kNaN64 = 0xfff8000000000000ull; // as DADD's
constexpr uint64_t kNaN16 = 0x7fff;                // as HADD2's

uint32_t flush32(uint32_t b) { return (b & 0x7f800000u) == 0 ? b & 0x80000000u : b; }

// PTX atom/red .add on floats (PTX ISA 9.0, "atom": rounds to nearest even; .f32 on global
// memory flushes subnormal inputs and results, which the lowering marks .FTZ; .noftz .f16
// .bf16 .f16x2 .bf16x2 keep them). `old` and `b` are the bit patterns; NaN results are the
// canonical NaN of the format (as FADD, DADD and HADD2 give them).
uint64_t floatAdd(Mod type, bool ftz, uint64_t old, uint64_t b) {
  switch (type) {
  case Mod::AF32: {
    uint32_t x = uint32_t(old), y = uint32_t(b);
    if (ftz)
      x = flush32(x), y = flush32(y);
    float r = std::bit_cast<float>(x) + std::bit_cast<float>(y); // the runner rounds to nearest
    if (std::isnan(r))
      return kNaN32;
    uint32_t bits = std::bit_cast<uint32_t>(r);
    return ftz ? flush32(bits) : bits;
  }
  case Mod::AF64: {
    double r = std::bit_cast<double>(old) + std::bit_cast<double>(b);
    return std::isnan(r) ? kNaN64 : std::bit_cast<uint64_t>(r);
  }
  default:
    break;
  }
  const bool bf = type == Mod::ABF16 || type == Mod::ABF16X2;
  const fp::Format f = bf ? fp::kBFloat16 : fp::kHalf;
  const unsigned lanes = type == Mod::AF16X2 || type == Mod::ABF16X2 ? 2 : 1;
  uint64_t out = 0;
  for (unsigned k = 0; k < lanes; ++k) {
    double x = fp::decode((old >> (16 * k)) & 0xffff, f),
           y = fp::decode((b >> (16 * k)) & 0xffff, f);
    out |= fp::encode(fp::fmaToOdd(x, 1.0, y), f, fp::Round::NearestEven, kNaN16) << (16 * k);
  }
  return out;
}

// The generic address Ra lies in which window (docs/interpreter.md, "Memory").
bool inWindow(uint64_t a, uint64_t base, uint64_t size) { return a - base < size; }

// CREATEPOLICY's value (docs/interpreter.md, "Cache policies"): .CVT gives the access property
// a as it is; otherwise bits 1..0 the kind (1 fractional, 2 range), 3..2 the primary priority
// (0 normal, 1 first, 2 last, 3 unchanged), 4 the secondary (1 first, 0 unchanged); a
// fractional policy has the fraction's binary32 bits in 63..32, a range policy
// (a ^ b << 24 ^ c << 40) mod 2^56 (a the address, b the primary size, c the total) in 63..8.
uint64_t cachePolicy(const ModSet &mods, uint64_t a, uint64_t b, uint64_t c) {
  if (mods.test(Mod::CVT))
    return a;
  const uint64_t kind = mods.test(Mod::RANGE) ? 2 : 1;
  const uint64_t primary = mods.test(Mod::L2_EF)   ? 1
                           : mods.test(Mod::L2_EL) ? 2
                           : mods.test(Mod::L2_EU) ? 3
                                                   : 0;
  const uint64_t secondary = mods.test(Mod::L2_SEF) ? 1 : 0;
  const uint64_t header = kind | primary << 2 | secondary << 4;
  if (kind == 1)
    return header | uint64_t(uint32_t(a)) << 32;
  const uint64_t payload = (a ^ (b << 24) ^ (c << 40)) & ((uint64_t(1) << 56) - 1);
  return header | payload << 8;
}

// QSPC (PTX isspacep): whether generic address a lies in the window the modifier names.
bool qspc(const ModSet &mods, uint64_t a) {
  const bool shared = inWindow(a, kSharedWindowBase, kSharedSize),
             local = inWindow(a, kLocalWindowBase, kLocalSize),
             constant = inWindow(a, kConstWindowBase, kMaxVariableBytes);
  if (mods.test(Mod::SP_SHARED) || mods.test(Mod::SP_SHARED_CLUSTER))
    return shared;
  if (mods.test(Mod::SP_LOCAL))
    return local;
  if (mods.test(Mod::SP_CONST))
    return constant;
  const bool param = inWindow(a, kParamWindowBase, kParamWindowSize);
  if (mods.test(Mod::SP_PARAM))
    return param; // the kernel's parameters (cvta.param)
  return !shared && !local && !constant &&
         !param; // .GLOBAL: what a generic access reaches as global
}

} // namespace

bool Machine::execAtomic(const Instr &in) {
  if (!isAtomic(in.op))
    return false;
  const bool hasResult = in.op == Opcode::ATOM || in.op == Opcode::ATOMG || in.op == Opcode::ATOMS;
  auto op = modOf(in, ModGroup::AtomOp);
  if (!op)
    unsupported(fmt::format("{} without an operation (.ADD, .MIN, ...)", in.info().name));
  const OpSpace os = in.op == Opcode::ATOMG || in.op == Opcode::REDG ? OpSpace::Global
                     : in.op == Opcode::ATOMS                        ? OpSpace::Shared
                                                                     : OpSpace::Generic;
  const unsigned bytes = atomicBytes(in.mods), bits = 8 * bytes;
  const bool isCas = *op == Mod::CAS;
  const size_t values = (bytes == 16 ? 2 : 1) * (isCas ? 2 : 1), hint = in.has(Mod::HINT) ? 1 : 0;
  if (in.srcs.size() != 1 + values + hint)
    malformed(fmt::format("{} at line {} takes {} sources", mnemonic(in), in.loc.line,
                          1 + values + hint));
  const Location l = location(in, 0, os);
  if (bytes == 16) { // .128: CAS or EXCH of two 64-bit halves, low first
    if (!isCas && *op != Mod::EXCH)
      unsupported(fmt::format("{}: 128-bit atomics are CAS and EXCH only", mnemonic(in)));
    if (l.addr % 16)
      fault(l.shown, fmt::format("misaligned 16-byte access at 0x{:x}", l.shown));
    const Location hi{l.space, l.addr + 8, l.shown + 8};
    const uint64_t old0 = load(l, 8), old1 = load(hi, 8);
    const uint64_t b0 = readInt(in, 1, 64), b1 = readInt(in, 2, 64);
    uint64_t n0 = b0, n1 = b1;
    if (isCas) {
      const bool equal = old0 == b0 && old1 == b1;
      n0 = equal ? readInt(in, 3, 64) : old0;
      n1 = equal ? readInt(in, 4, 64) : old1;
    }
    store(l, 8, n0);
    store(hi, 8, n1);
    if (hasResult) {
      writeInt(in, 0, old0, 64);
      writeInt(in, 1, old1, 64);
    }
    return true;
  }
  const uint64_t old = load(l, bytes);
  const unsigned width = bits == 64 ? 64 : 32;
  const uint64_t b = maskTo(readInt(in, 1, width), bits);
  const std::optional<Mod> ftype = modOf(in, ModGroup::AtomFType);
  const bool isSigned = in.has(Mod::S32) || in.has(Mod::S64);
  auto less = [&](uint64_t x, uint64_t y) {
    return isSigned ? signExtend(x, bits) < signExtend(y, bits) : x < y;
  };
  uint64_t nv = 0;
  if (ftype && *op != Mod::ADD)
    unsupported(fmt::format("{}: float atomics other than .ADD are not modelled", mnemonic(in)));
  switch (*op) {
  case Mod::ADD:
    nv = ftype ? floatAdd(*ftype, in.has(Mod::FTZ), old, b) : old + b;
    break;
  case Mod::MIN:
    nv = less(b, old) ? b : old;
    break;
  case Mod::MAX:
    nv = less(old, b) ? b : old;
    break;
  case Mod::INC:
    nv = old >= b ? 0 : old + 1;
    break; // PTX atom.inc
  case Mod::DEC:
    nv = (old == 0 || old > b) ? b : old - 1;
    break; // PTX atom.dec
  case Mod::EXCH:
    nv = b;
    break;
  case Mod::CAS:
    nv = old == b ? maskTo(readInt(in, 2, width), bits) : old;
    break;
  case Mod::ATOM_AND:
    nv = old & b;
    break;
  case Mod::ATOM_OR:
    nv = old | b;
    break;
  case Mod::ATOM_XOR:
    nv = old ^ b;
    break;
  default:
    unsupported(fmt::format("atomic operation .{}", modText(*op)));
  }
  store(l, bytes, maskTo(nv, bits));
  if (hasResult)
    writeInt(in, 0, old, width);
  return true;
}

bool Machine::execMemorySystem(const Instr &in) {
  switch (in.op) {
  case Opcode::MEMBAR:
  case Opcode::FENCE:
  case Opcode::CCTL:
    return true; // one memory, sequentially consistent, no caches: nothing to order or fetch
  case Opcode::NANOSLEEP:
    readInt(in, 0, 32); // the runner ends the warp's turn (interp_simt.cpp)
    return true;
  case Opcode::QSPC:
    writePred(in, 0, qspc(in.mods, readInt(in, 0, in.has(Mod::W64) ? 64 : 32)));
    return true;
  case Opcode::CREATEPOLICY: {
    uint64_t a = 0x3f800000; // createpolicy.fractional without a fraction: 1.0
    if (!in.srcs.empty()) {
      const Operand &o = src(in, 0);
      a = o.kind == Operand::Kind::FImm ? std::bit_cast<uint32_t>(float(o.fimm))
                                        : readInt(in, 0, 64);
    }
    const uint64_t b = in.srcs.size() > 1 ? readInt(in, 1, 32) : 0,
                   c = in.srcs.size() > 2 ? readInt(in, 2, 32) : 0;
    writeInt(in, 0, cachePolicy(in.mods, a, b, c), 64);
    return true;
  }
  case Opcode::ALLOCA:
  case Opcode::STACKSAVE:
  case Opcode::STACKRESTORE: {
    Frame &fr = th->frames.back();
    const unsigned width = in.has(Mod::W64) ? 64 : 32;
    const uint64_t floor = fr.localBase + fr.layout->localSize;
    if (fr.stackTop < floor)
      fr.stackTop = floor;
    if (in.op == Opcode::STACKSAVE) {
      writeInt(in, 0, fr.stackTop, width);
    } else if (in.op == Opcode::STACKRESTORE) {
      const uint64_t to = readInt(in, 0, width);
      if (to < floor || to > kLocalSize)
        fault(to, fmt::format(
                      "stackrestore to local 0x{:x}, outside the stack of '{}' [0x{:x}, 0x{:x}]",
                      to, fr.f->name, floor, kLocalSize));
      fr.stackTop = to;
    } else {
      const uint64_t size = readInt(in, 0, width);
      uint64_t align = in.srcs.size() > 1 ? uint64_t(readImm(in, 1)) : 8;
      if (align == 0 || (align & (align - 1)) || align > (uint64_t(1) << 23))
        malformed(fmt::format("ALLOCA at line {}: the alignment must be a power of 2 up to 2^23",
                              in.loc.line));
      const uint64_t at = roundUp(fr.stackTop, std::max<uint64_t>(align, 8));
      if (at > kLocalSize || size > kLocalSize - at)
        fault(at, fmt::format("stack overflow: alloca of 0x{:x} bytes at local 0x{:x}; the local "
                              "window ends at 0x{:x}",
                              size, at, kLocalSize));
      fr.stackTop = at + size;
      writeInt(in, 0, at, width);
    }
    return true;
  }
  default:
    return false;
  }
}

} // namespace ori::interp_detail
