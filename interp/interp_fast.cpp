// The fast path of the SIMT runner (interp/interp_impl.h, execFast): an
// instruction of the common plain forms is decoded once per warp instead of
// once per lane, then each lane only reads its registers and computes. The
// semantics are execInteger's (interp/interp_alu.cpp) and execMemory's
// (interp/interp_mem.cpp); forms with anything else (an |abs|, a constant bank
// indexed by a register, a symbol, another modifier) and memory accesses that
// might fault (misaligned, outside one buffer or window) return false and
// take that general path, which makes the same accesses and reports faults.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "interp/interp_impl.h"

namespace ori::interp_detail {
namespace {

// A decoded integer source: a register of file R or UR, or a value the same in every lane.
struct Source {
  bool isReg = false;
  Reg reg{};
  uint64_t value = 0;
  bool neg = false;
  [[gnu::always_inline]] uint64_t read(const Thread &t, unsigned bits) const {
    uint64_t v = isReg ? t.regs.get(reg) : value;
    return maskTo(neg ? uint64_t(0) - v : v, bits);
  }
};

bool decode(const Machine &m, const Operand &o, unsigned bits, Source &s) {
  if (o.abs)
    return false;
  s.neg = o.neg;
  switch (o.kind) {
  case Operand::Kind::Reg:
    if (!o.reg.isGeneral())
      return false;
    if (o.reg.isConst()) {
      s.isReg = false;
      s.value = 0;
      return true;
    }
    s.isReg = true;
    s.reg = o.reg;
    return true;
  case Operand::Kind::Imm:
    s.value = uint64_t(o.imm);
    return true;
  case Operand::Kind::CBank:
    if (o.hasReg)
      return false;
    s.value = m.readCBank(o, bits / 8); // may fault: as the first lane would
    return true;
  default:
    return false;
  }
}

bool predicate(const Operand &o, Reg &r, bool &neg) {
  if (o.kind != Operand::Kind::Reg || !o.reg.isPredicate())
    return false;
  r = o.reg;
  neg = o.neg;
  return true;
}

bool generalDst(const Operand &o) { return o.kind == Operand::Kind::Reg && o.reg.isGeneral(); }

bool onlyMods(const Instr &in, std::initializer_list<Mod> allowed) {
  ModSet rest = in.mods;
  for (Mod x : allowed)
    rest.reset(x);
  return rest.empty();
}

template <typename F> void forLanes(Thread *lanes, uint32_t exec, F f) {
  for (uint32_t k = exec; k; k &= k - 1)
    f(lanes[std::countr_zero(k)]);
}

// n (1, 2, 4, 8) little-endian bytes at p.
uint64_t loadBytes(const uint8_t *p, unsigned n) {
  if constexpr (std::endian::native == std::endian::little) {
    switch (n) {
    case 1:
      return p[0];
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
    }
  }
  uint64_t v = 0;
  for (unsigned k = 0; k < n; ++k)
    v |= uint64_t(p[k]) << (8 * k);
  return v;
}

void storeBytes(uint8_t *p, unsigned n, uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) {
    switch (n) {
    case 1:
      p[0] = uint8_t(v);
      return;
    case 2: {
      uint16_t x = uint16_t(v);
      std::memcpy(p, &x, 2);
      return;
    }
    case 4: {
      uint32_t x = uint32_t(v);
      std::memcpy(p, &x, 4);
      return;
    }
    default:
      std::memcpy(p, &v, 8);
      return;
    }
  }
  for (unsigned k = 0; k < n; ++k)
    p[k] = uint8_t(v >> (8 * k));
}

// Where the lanes of a memory instruction all go: one region of one space.
enum class Region : uint8_t { Global, Shared, Local, Const };

// The spaces' bounds: [0, size) of the window (the shared and local windows as offsets).
bool inWindow(uint64_t lo, uint64_t hi, uint64_t size, unsigned n) {
  return lo <= hi && hi < size && size - hi >= n;
}

// LD/ST, LDG/STG, LDS/STS, LDL/STL at [R+imm] or [imm] (no symbol) for the lanes `exec`, when
// every lane's access is aligned and all of them fall in one buffer (global) or window
// (shared, local, constant for a load): then none of them can fault, and the accesses are
// made in lane order as execMemory makes them. Otherwise false, having changed nothing.
bool execFastAccesses(Machine &m, const Instr &in, Thread *lanes, uint32_t exec) {
  bool isLoad = true;
  Region region = Region::Global;
  bool generic = false;
  switch (in.op) {
  case Opcode::LD:
    generic = true;
    break;
  case Opcode::LDG:
    break;
  case Opcode::LDS:
    region = Region::Shared;
    break;
  case Opcode::LDL:
    region = Region::Local;
    break;
  case Opcode::ST:
    generic = true;
    isLoad = false;
    break;
  case Opcode::STG:
    isLoad = false;
    break;
  case Opcode::STS:
    region = Region::Shared;
    isLoad = false;
    break;
  case Opcode::STL:
    region = Region::Local;
    isLoad = false;
    break;
  default:
    return false;
  }
  if (in.srcs.empty())
    return false;
  const Operand &o = in.srcs[0];
  if (o.kind != Operand::Kind::Mem || !o.sym.empty())
    return false;
  bool hasBase = false;
  Reg base{};
  if (o.hasReg) {
    if (!o.reg.isGeneral())
      return false;
    hasBase = !o.reg.isConst();
    base = o.reg;
  }
  Source value;
  Reg d{};
  if (isLoad) {
    if (in.dsts.empty() || !generalDst(in.dsts[0]))
      return false;
    d = in.dsts[0].reg;
  } else {
    // A constant-bank value could fault: the general path reads it per lane.
    if (in.srcs.size() < 2 || in.srcs[1].kind == Operand::Kind::CBank ||
        !decode(m, in.srcs[1], 64, value))
      return false;
  }
  const Access acc = accessOf(in);
  const unsigned n = acc.bytes;

  // Every lane's address (execMemory's location()), and their range.
  std::array<uint64_t, 32> addr;
  uint64_t lo = UINT64_MAX, hi = 0, bits = 0;
  for (uint32_t k = exec; k; k &= k - 1) {
    const uint32_t l = uint32_t(std::countr_zero(k));
    const uint64_t r = hasBase ? lanes[l].regs.get(base) : 0;
    uint64_t a = uint64_t(o.imm) + r;
    if (region != Region::Global && hasBase && r >> 32 == 0)
      a = uint32_t(a); // LDS/STS/LDL/STL: location()
    addr[l] = a;
    lo = std::min(lo, a);
    hi = std::max(hi, a);
    bits |= a;
  }
  if (bits % n != 0)
    return false; // a misaligned lane faults

  // The region, for a generic address: the windows are [base, base + size) each; every other
  // address is global. Both ends in one window put every lane in it.
  uint64_t offset = 0; // subtracted from each address: the window's base
  if (generic) {
    auto windowOf = [](uint64_t a, uint64_t &winBase) {
      if (a - kSharedWindowBase < kSharedSize) {
        winBase = kSharedWindowBase;
        return Region::Shared;
      }
      if (a - kConstWindowBase < kMaxVariableBytes) {
        winBase = kConstWindowBase;
        return Region::Const;
      }
      if (a - kLocalWindowBase < kLocalSize) {
        winBase = kLocalWindowBase;
        return Region::Local;
      }
      winBase = 0;
      return Region::Global;
    };
    uint64_t b0 = 0, b1 = 0;
    region = windowOf(lo, b0);
    if (windowOf(hi, b1) != region)
      return false;
    // Two global ends: every address between must be global too (below every window).
    if (region == Region::Global && hi >= kConstWindowBase)
      return false;
    offset = b0;
  }
  lo -= offset;
  hi -= offset;

  switch (region) {
  case Region::Global: {
    // The buffer holding lo (buffers are sorted by base) must hold hi's access too.
    auto it = std::upper_bound(m.buffers.begin(), m.buffers.end(), lo,
                               [](uint64_t a, const Buffer &b) { return a < b.base; });
    if (it == m.buffers.begin())
      return false;
    Buffer &buf = *(it - 1);
    const uint64_t size = buf.bytes.size();
    if (hi - buf.base >= size || size - (hi - buf.base) < n)
      return false;
    uint8_t *p = buf.bytes.data();
    if (isLoad) {
      const unsigned w = n == 8 ? 64 : 32;
      for (uint32_t k = exec; k; k &= k - 1) {
        const uint32_t l = uint32_t(std::countr_zero(k));
        lanes[l].regs.set(d, maskTo(extendLoaded(loadBytes(p + (addr[l] - buf.base), n), acc), w));
      }
    } else {
      for (uint32_t k = exec; k; k &= k - 1) {
        const uint32_t l = uint32_t(std::countr_zero(k));
        storeBytes(p + (addr[l] - buf.base), n, value.read(lanes[l], 64));
      }
    }
    return true;
  }
  case Region::Const: {
    if (!isLoad || !inWindow(lo, hi, m.constData.size(), n))
      return false; // a store there faults
    const uint8_t *p = m.constData.data();
    const unsigned w = n == 8 ? 64 : 32;
    for (uint32_t k = exec; k; k &= k - 1) {
      const uint32_t l = uint32_t(std::countr_zero(k));
      lanes[l].regs.set(d, maskTo(extendLoaded(loadBytes(p + (addr[l] - offset), n), acc), w));
    }
    return true;
  }
  case Region::Shared:
  case Region::Local: {
    const bool shared = region == Region::Shared;
    if (!inWindow(lo, hi, shared ? m.sharedLimit : kLocalSize, n))
      return false;
    // SparseMemory's read and write, with the last page looked up kept (an access never
    // straddles a page).
    uint64_t lastPage = UINT64_MAX;
    const SparseMemory *lastMem = nullptr;
    uint8_t *page = nullptr;
    const unsigned w = n == 8 ? 64 : 32;
    for (uint32_t k = exec; k; k &= k - 1) {
      const uint32_t l = uint32_t(std::countr_zero(k));
      SparseMemory &mem = shared ? m.shared : lanes[l].local;
      const uint64_t a = addr[l] - offset, pn = a / SparseMemory::kPage,
                     at = a % SparseMemory::kPage;
      if (isLoad) {
        if (pn != lastPage || &mem != lastMem) {
          page = const_cast<uint8_t *>(mem.pageOf(a));
          lastPage = pn;
          lastMem = &mem;
        }
        lanes[l].regs.set(d, maskTo(extendLoaded(page ? loadBytes(page + at, n) : 0, acc), w));
      } else {
        const uint64_t v = value.read(lanes[l], 64);
        if (pn != lastPage || &mem != lastMem || !page) {
          page = mem.pageForWrite(a);
          lastPage = pn;
          lastMem = &mem;
        }
        storeBytes(page + at, n, v);
      }
    }
    return true;
  }
  }
  return false;
}

bool execFastMemory(Machine &m, const Instr &in, Thread *lanes, uint32_t exec) {
  if (!execFastAccesses(m, in, lanes, exec))
    return false;
  // As after the general path's lanes: the machine's thread is the last lane (a run that stops
  // before the next instruction sets it reports that thread).
  m.th = &lanes[31 - std::countl_zero(exec)];
  return true;
}

} // namespace

FastPaths &fastPathsOnThisThread() {
  thread_local FastPaths paths;
  return paths;
}

bool execFast(Machine &m, const Instr &in, Thread *lanes, uint32_t exec) {
  if (m.fast.memory && execFastMemory(m, in, lanes, exec))
    return true;
  if (!m.fast.alu)
    return false;
  Source a, b, c;
  switch (in.op) {
  case Opcode::MOV:
  case Opcode::IADD3:
  case Opcode::LOP3:
  case Opcode::SEL:
  case Opcode::LEA: {
    if (!onlyMods(in, {Mod::W64}) || in.dsts.size() != 1 || !generalDst(in.dsts[0]))
      return false;
    const unsigned w = in.has(Mod::W64) ? 64 : 32;
    const Reg d = in.dsts[0].reg;
    if (in.op == Opcode::MOV) {
      if (in.srcs.size() != 1 || !decode(m, in.srcs[0], w, a))
        return false;
      forLanes(lanes, exec, [&](Thread &t) { t.regs.set(d, a.read(t, w)); });
      return true;
    }
    if (in.srcs.size() < 2 || !decode(m, in.srcs[0], w, a))
      return false;
    if (in.op == Opcode::LEA) {
      if (in.srcs.size() != 3 || !decode(m, in.srcs[1], w, b) ||
          in.srcs[2].kind != Operand::Kind::Imm)
        return false;
      const uint64_t s = uint64_t(in.srcs[2].imm);
      forLanes(lanes, exec, [&](Thread &t) {
        uint64_t x = a.read(t, w);
        t.regs.set(d, maskTo((s >= w ? 0 : x << s) + b.read(t, w), w));
      });
      return true;
    }
    if (in.op == Opcode::SEL) {
      Reg p;
      bool pneg = false;
      if (in.srcs.size() != 3 || !decode(m, in.srcs[1], w, b) || !predicate(in.srcs[2], p, pneg))
        return false;
      forLanes(lanes, exec, [&](Thread &t) {
        t.regs.set(d, ((t.regs.get(p) & 1) != pneg) ? a.read(t, w) : b.read(t, w));
      });
      return true;
    }
    if (in.srcs.size() < 3 || !decode(m, in.srcs[1], w, b) || !decode(m, in.srcs[2], w, c))
      return false;
    if (in.op == Opcode::IADD3) {
      if (in.srcs.size() != 3)
        return false;
      forLanes(lanes, exec, [&](Thread &t) {
        t.regs.set(d, maskTo(a.read(t, w) + b.read(t, w) + c.read(t, w), w));
      });
      return true;
    }
    // LOP3: bit (a<<2 | b<<1 | c) of the LUT, as interp_alu.cpp's lop3.
    if (in.srcs.size() != 4 || in.srcs[3].kind != Operand::Kind::Imm || in.srcs[3].imm < 0 ||
        in.srcs[3].imm > 0xff)
      return false;
    const uint32_t lut = uint32_t(in.srcs[3].imm);
    forLanes(lanes, exec, [&](Thread &t) {
      const uint64_t x = a.read(t, w), y = b.read(t, w), z = c.read(t, w);
      uint64_t r = 0;
      for (unsigned i = 0; i < 8; ++i)
        if ((lut >> i) & 1)
          r |= ((i & 4) ? x : ~x) & ((i & 2) ? y : ~y) & ((i & 1) ? z : ~z);
      t.regs.set(d, maskTo(r, w));
    });
    return true;
  }
  case Opcode::IMAD: {
    if (!onlyMods(in, {Mod::WIDE, Mod::HI, Mod::U32, Mod::S32}) || in.has(Mod::HI) ||
        in.dsts.size() != 1 || !generalDst(in.dsts[0]) || in.srcs.size() != 3)
      return false;
    const Reg d = in.dsts[0].reg;
    if (in.has(Mod::WIDE)) {
      const bool isSigned = !in.has(Mod::U32);
      if (!decode(m, in.srcs[0], 32, a) || !decode(m, in.srcs[1], 32, b) ||
          !decode(m, in.srcs[2], 64, c))
        return false;
      forLanes(lanes, exec, [&](Thread &t) {
        const uint64_t x = a.read(t, 32), y = b.read(t, 32);
        const uint64_t p = isSigned ? uint64_t(signExtend(x, 32) * signExtend(y, 32)) : x * y;
        t.regs.set(d, p + c.read(t, 64));
      });
      return true;
    }
    if (!decode(m, in.srcs[0], 32, a) || !decode(m, in.srcs[1], 32, b) ||
        !decode(m, in.srcs[2], 32, c))
      return false;
    forLanes(lanes, exec, [&](Thread &t) {
      t.regs.set(d, maskTo(a.read(t, 32) * b.read(t, 32) + c.read(t, 32), 32));
    });
    return true;
  }
  case Opcode::SHF: { // as interp_alu.cpp: v = hi:lo, shifted by the clamped amount
    const bool left = in.has(Mod::L);
    if (!onlyMods(in, {Mod::L, Mod::R, Mod::HI, Mod::U32, Mod::S32}) || left == in.has(Mod::R) ||
        in.dsts.size() != 1 || !generalDst(in.dsts[0]) || in.srcs.size() != 3)
      return false;
    if (!decode(m, in.srcs[0], 32, a) || !decode(m, in.srcs[1], 32, b) ||
        !decode(m, in.srcs[2], 32, c))
      return false;
    const Reg d = in.dsts[0].reg;
    const bool arithmetic = in.has(Mod::S32), hi = in.has(Mod::HI);
    forLanes(lanes, exec, [&](Thread &t) {
      const uint64_t v = c.read(t, 32) << 32 | a.read(t, 32),
                     n = std::min<uint64_t>(b.read(t, 32), 32);
      const uint64_t r = left ? v << n : arithmetic ? uint64_t(int64_t(v) >> n) : v >> n;
      t.regs.set(d, maskTo(hi ? r >> 32 : r, 32));
    });
    return true;
  }
  case Opcode::ISETP: {
    std::optional<Mod> cmp = modOf(in, ModGroup::Cmp);
    if (!cmp || in.dsts.size() != 2 || in.srcs.size() != 3)
      return false;
    const Operand &p0 = in.dsts[0], &p1 = in.dsts[1];
    if (p0.kind != Operand::Kind::Reg || !p0.reg.isPredicate() || p1.kind != Operand::Kind::Reg ||
        !p1.reg.isPredicate())
      return false;
    const bool u = in.has(Mod::U32) || in.has(Mod::U64);
    const unsigned w = in.has(Mod::U64) || in.has(Mod::S64) ? 64 : 32;
    const Mod op = modOf(in, ModGroup::BoolOp).value_or(Mod::AND);
    Reg q;
    bool qneg = false;
    if (!decode(m, in.srcs[0], w, a) || !decode(m, in.srcs[1], w, b) ||
        !predicate(in.srcs[2], q, qneg))
      return false;
    auto combine = [op](bool r, bool k) {
      return op == Mod::OR ? r || k : op == Mod::XOR ? r != k : r && k;
    };
    const Mod cm = *cmp;
    if (cm != Mod::LT && cm != Mod::EQ && cm != Mod::LE && cm != Mod::GT && cm != Mod::NE &&
        cm != Mod::GE)
      return false;
    forLanes(lanes, exec, [&](Thread &t) {
      const uint64_t x = a.read(t, w), y = b.read(t, w);
      const bool lt = u ? x < y : signExtend(x, w) < signExtend(y, w),
                 gt = u ? y < x : signExtend(y, w) < signExtend(x, w);
      const bool r = cm == Mod::LT   ? lt
                     : cm == Mod::EQ ? x == y
                     : cm == Mod::LE ? !gt
                     : cm == Mod::GT ? gt
                     : cm == Mod::NE ? x != y
                                     : !lt;
      const bool k = (t.regs.get(q) & 1) != qneg;
      if (!p0.reg.isConst())
        t.regs.set(p0.reg, combine(r, k) ? 1 : 0); // PT: discarded (Registers::set)
      if (!p1.reg.isConst())
        t.regs.set(p1.reg, combine(!r, k) ? 1 : 0);
    });
    return true;
  }
  default:
    return false;
  }
}

} // namespace ori::interp_detail
