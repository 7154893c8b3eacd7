// Integer, logic, predicate and special-register semantics of the
// interpreter; docs/interpreter.md has the table this file implements.
#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "interp/interp_impl.h"

namespace ori::interp_detail {
namespace {

// Width and signedness from a type modifier: .U64/.S64 (and .64) are 64-bit,
// .S32/.S64 signed; `defaultSigned` applies when no type is given.
struct IntType {
  unsigned bits = 32;
  bool isSigned = true;
};
IntType intType(const Instr &in, bool defaultSigned) {
  if (in.has(Mod::U32))
    return {32, false};
  if (in.has(Mod::S32))
    return {32, true};
  if (in.has(Mod::U64))
    return {64, false};
  if (in.has(Mod::S64))
    return {64, true};
  if (in.has(Mod::W64))
    return {64, defaultSigned};
  return {32, defaultSigned};
}

unsigned widthOf(const Instr &in) { return in.has(Mod::W64) ? 64 : 32; }

bool lessThan(uint64_t a, uint64_t b, IntType t) {
  return t.isSigned ? signExtend(a, t.bits) < signExtend(b, t.bits) : a < b;
}

bool compare(Mod cmp, uint64_t a, uint64_t b, IntType t) {
  switch (cmp) {
  case Mod::LT:
    return lessThan(a, b, t);
  case Mod::EQ:
    return a == b;
  case Mod::LE:
    return !lessThan(b, a, t);
  case Mod::GT:
    return lessThan(b, a, t);
  case Mod::NE:
    return a != b;
  case Mod::GE:
    return !lessThan(a, b, t);
  default:
    unsupported(fmt::format("integer comparison .{}", modText(cmp)));
  }
}

// Shift of a `bits`-wide value; amounts >= bits give 0 (or the sign fill).
uint64_t shiftLeft(uint64_t v, uint64_t s, unsigned bits) {
  return s >= bits ? 0 : maskTo(v << s, bits);
}
uint64_t shiftRight(uint64_t v, uint64_t s, unsigned bits, bool arithmetic) {
  if (!arithmetic)
    return s >= bits ? 0 : maskTo(v, bits) >> s;
  int64_t x = signExtend(v, bits);
  return maskTo(uint64_t(x >> (s >= bits ? 63 : s)), bits);
}

// LOP3's truth table, PTX lop3 convention: bit (a<<2 | b<<1 | c) of lut.
uint64_t lop3(uint64_t a, uint64_t b, uint64_t c, uint32_t lut) {
  uint64_t r = 0;
  for (unsigned i = 0; i < 8; ++i)
    if ((lut >> i) & 1)
      r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
  return r;
}

// PTX prmt: result byte i is byte sel(i) of the 8 bytes {b, a} (a = bytes 0-3);
// the generic selector takes nibble i of `sel` (bit 3: replicate the byte's
// sign bit), the modes a fixed pattern chosen by sel's low 2 bits.
uint64_t permute(uint64_t a, uint64_t b, uint32_t sel, std::optional<Mod> mode) {
  uint64_t bytes = (b & 0xffffffff) << 32 | (a & 0xffffffff);
  auto byteAt = [&](unsigned k) { return (bytes >> (8 * (k & 7))) & 0xff; };
  static constexpr uint8_t kModes[6][4][4] = {
      // result bytes 0..3 for sel[1:0] = 0..3
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}, // F4E
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}}, // B4E
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, // RC8
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}}, // ECL
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}, // ECR
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}, // RC16
  };
  uint64_t r = 0;
  for (unsigned i = 0; i < 4; ++i) {
    uint64_t v;
    if (!mode) {
      unsigned nibble = (sel >> (4 * i)) & 0xf;
      v = byteAt(nibble);
      if (nibble & 8)
        v = (v & 0x80) ? 0xff : 0;
    } else {
      size_t m = size_t(*mode) - size_t(Mod::F4E);
      v = byteAt(kModes[m][sel & 3][i]);
    }
    r |= v << (8 * i);
  }
  return r;
}

// div/rem as ptxas computes them (docs/ptx.md): x / 0 and x % 0 are all ones;
// signed: the magnitudes divided, the quotient negated when the signs differ,
// the remainder taking the dividend's sign (INT_MIN / -1 wraps to INT_MIN).
uint64_t divide(uint64_t a, uint64_t b, IntType t, bool remainder) {
  if (b == 0)
    return maskTo(~uint64_t(0), t.bits);
  if (!t.isSigned)
    return remainder ? a % b : a / b;
  bool negA = signExtend(a, t.bits) < 0, negB = signExtend(b, t.bits) < 0;
  uint64_t ma = maskTo(negA ? uint64_t(0) - a : a, t.bits),
           mb = maskTo(negB ? uint64_t(0) - b : b, t.bits);
  uint64_t r = remainder ? ma % mb : ma / mb;
  bool neg = remainder ? negA : negA != negB;
  return maskTo(neg ? uint64_t(0) - r : r, t.bits);
}

bool combine(Mod op, bool r, bool c) {
  switch (op) {
  case Mod::OR:
    return r || c;
  case Mod::XOR:
    return r != c;
  default:
    return r && c;
  }
}

} // namespace

// Shared with interp/interp_float.cpp: the .AND/.OR/.XOR combination of a
// comparison result with the third source predicate.
bool combinePredicate(const Instr &in, bool r, bool c) {
  return combine(modOf(in, ModGroup::BoolOp).value_or(Mod::AND), r, c);
}

bool Machine::execInteger(const Instr &in) {
  switch (in.op) {
  case Opcode::MOV: {
    unsigned w = widthOf(in);
    writeInt(in, 0, readInt(in, 0, w), w);
    return true;
  }
  case Opcode::IADD3: {
    unsigned w = widthOf(in);
    writeInt(in, 0, readInt(in, 0, w) + readInt(in, 1, w) + readInt(in, 2, w), w);
    return true;
  }
  case Opcode::SEL: {
    unsigned w = widthOf(in);
    uint64_t a = readInt(in, 0, w), b = readInt(in, 1, w);
    writeInt(in, 0, readPred(in, 2) ? a : b, w);
    return true;
  }
  case Opcode::IMAD: {
    if (in.has(Mod::WIDE) || in.has(Mod::HI)) {
      bool isSigned = !in.has(Mod::U32);
      uint64_t a = readInt(in, 0, 32), b = readInt(in, 1, 32);
      uint64_t p = isSigned ? uint64_t(signExtend(a, 32) * signExtend(b, 32)) : a * b;
      if (in.has(Mod::WIDE))
        writeInt(in, 0, p + readInt(in, 2, 64), 64);
      else
        writeInt(in, 0, (p >> 32) + readInt(in, 2, 32), 32);
      return true;
    }
    unsigned w = widthOf(in); // .U32/.S32 do not change the low bits of a*b+c
    writeInt(in, 0, readInt(in, 0, w) * readInt(in, 1, w) + readInt(in, 2, w), w);
    return true;
  }
  case Opcode::LOP3: {
    unsigned w = widthOf(in);
    uint64_t a = readInt(in, 0, w), b = readInt(in, 1, w), c = readInt(in, 2, w);
    int64_t lut = readImm(in, 3);
    if (lut < 0 || lut > 0xff)
      malformed(fmt::format("LOP3 at line {}: truth table {} is not 8-bit", in.loc.line, lut));
    writeInt(in, 0, lop3(a, b, c, uint32_t(lut)), w);
    return true;
  }
  case Opcode::PLOP3: {
    uint64_t a = readPred(in, 0), b = readPred(in, 1), c = readPred(in, 2);
    int64_t lut = readImm(in, 3), lut2 = readImm(in, 4);
    unsigned idx = unsigned(a << 2 | b << 1 | c);
    writePred(in, 0, (uint64_t(lut) >> idx) & 1);
    writePred(in, 1, (uint64_t(lut2) >> idx) & 1);
    return true;
  }
  case Opcode::SHL: {
    unsigned w = widthOf(in);
    writeInt(in, 0, shiftLeft(readInt(in, 0, w), readInt(in, 1, 32), w), w);
    return true;
  }
  case Opcode::SHR: {
    IntType t = intType(in, false);
    writeInt(in, 0, shiftRight(readInt(in, 0, t.bits), readInt(in, 1, 32), t.bits, t.isSigned),
             t.bits);
    return true;
  }
  case Opcode::SHF: {
    auto dir = modOf(in, ModGroup::Dir);
    if (!dir)
      unsupported("SHF without a direction (.L or .R)");
    IntType t = intType(in, false);
    uint64_t lo = readInt(in, 0, 32), s = readInt(in, 1, 32), hi = readInt(in, 2, 32);
    uint64_t v = hi << 32 | lo;
    // .U32/.S32 clamp the amount at 32, .U64/.S64 at 64; .W takes it modulo the width.
    uint64_t n = in.has(Mod::W) ? s & (t.bits - 1) : std::min<uint64_t>(s, t.bits);
    uint64_t r = *dir == Mod::L ? shiftLeft(v, n, 64) : shiftRight(v, n, 64, t.isSigned);
    writeInt(in, 0, in.has(Mod::HI) ? r >> 32 : r, 32);
    return true;
  }
  case Opcode::IMNMX: {
    IntType t = intType(in, true);
    uint64_t a = readInt(in, 0, t.bits), b = readInt(in, 1, t.bits);
    bool takeMin = readPred(in, 2);
    bool aFirst = lessThan(a, b, t) == takeMin; // a < b picks a for min, b for max
    writeInt(in, 0, aFirst || a == b ? a : b, t.bits);
    return true;
  }
  case Opcode::LEA: {
    unsigned w = widthOf(in);
    uint64_t a = readInt(in, 0, w), b = readInt(in, 1, w);
    uint64_t s = uint64_t(readImm(in, 2));
    writeInt(in, 0, shiftLeft(a, s, w) + b, w);
    return true;
  }
  case Opcode::ISETP: {
    auto cmp = modOf(in, ModGroup::Cmp);
    if (!cmp)
      unsupported("ISETP without a comparison (.LT, .EQ, ...)");
    IntType t = intType(in, true);
    bool r = compare(*cmp, readInt(in, 0, t.bits), readInt(in, 1, t.bits), t);
    bool c = readPred(in, 2);
    writePred(in, 0, combinePredicate(in, r, c));
    writePred(in, 1, combinePredicate(in, !r, c));
    return true;
  }
  case Opcode::SGXT: {
    unsigned w = widthOf(in);
    uint64_t a = readInt(in, 0, w), b = readInt(in, 1, 32);
    uint64_t r = a;
    if (b == 0)
      r = 0;
    else if (b < w)
      r = in.has(Mod::U32) ? maskTo(a, unsigned(b))
                           : maskTo(uint64_t(signExtend(a, unsigned(b))), w);
    writeInt(in, 0, r, w);
    return true;
  }
  case Opcode::PRMT: {
    uint64_t a = readInt(in, 0, 32), sel = readInt(in, 1, 32), b = readInt(in, 2, 32);
    writeInt(in, 0, permute(a, b, uint32_t(sel), modOf(in, ModGroup::PrmtMode)), 32);
    return true;
  }
  case Opcode::POPC: {
    writeInt(in, 0, uint64_t(std::popcount(readInt(in, 0, widthOf(in)))), 32);
    return true;
  }
  case Opcode::BREV: {
    unsigned w = widthOf(in);
    uint64_t a = readInt(in, 0, w), r = 0;
    for (unsigned i = 0; i < w; ++i)
      r |= ((a >> i) & 1) << (w - 1 - i);
    writeInt(in, 0, r, w);
    return true;
  }
  case Opcode::FLO: {
    // PTX bfind: the position of the most significant bit that is not a sign bit (signed: of
    // ~a when a < 0); 0xffffffff when there is none. .SH gives width - 1 - position instead.
    IntType t = intType(in, false);
    uint64_t a = readInt(in, 0, t.bits);
    if (t.isSigned && signExtend(a, t.bits) < 0)
      a = maskTo(~a, t.bits);
    uint64_t r = 0xffffffff;
    if (a != 0) {
      unsigned pos = 63 - unsigned(std::countl_zero(a));
      r = in.has(Mod::SH) ? t.bits - 1 - pos : pos;
    }
    writeInt(in, 0, r, 32);
    return true;
  }
  case Opcode::IDIV:
  case Opcode::IREM: {
    IntType t = intType(in, false);
    uint64_t a = readInt(in, 0, t.bits), b = readInt(in, 1, t.bits);
    writeInt(in, 0, divide(a, b, t, in.op == Opcode::IREM), t.bits);
    return true;
  }
  case Opcode::S2R: {
    const Operand &o = src(in, 0);
    if (o.kind != Operand::Kind::SReg)
      malformed(fmt::format("S2R at line {} reads no special register", in.loc.line));
    uint64_t v = 0;
    const uint32_t lane = th->index % 32;
    switch (o.sreg) {
    case SpecialReg::TID_X:
      v = th->tid.x;
      break;
    case SpecialReg::TID_Y:
      v = th->tid.y;
      break;
    case SpecialReg::TID_Z:
      v = th->tid.z;
      break;
    case SpecialReg::CTAID_X:
      v = ctaid.x;
      break;
    case SpecialReg::CTAID_Y:
      v = ctaid.y;
      break;
    case SpecialReg::CTAID_Z:
      v = ctaid.z;
      break;
    case SpecialReg::NTID_X:
      v = ntid.x;
      break;
    case SpecialReg::NTID_Y:
      v = ntid.y;
      break;
    case SpecialReg::NTID_Z:
      v = ntid.z;
      break;
    case SpecialReg::NCTAID_X:
      v = nctaid.x;
      break;
    case SpecialReg::NCTAID_Y:
      v = nctaid.y;
      break;
    case SpecialReg::NCTAID_Z:
      v = nctaid.z;
      break;
    case SpecialReg::LANEID:
      v = lane;
      break;
    // Warps are numbered in the CTA in thread-index order (PTX leaves %warpid to the
    // hardware; this is the order the interpreter forms warps in).
    case SpecialReg::WARPID:
      v = th->index / 32;
      break;
    case SpecialReg::NWARPID:
      v = warpsPerCta;
      break;
    case SpecialReg::LANEMASK_EQ:
      v = uint32_t(1) << lane;
      break;
    case SpecialReg::LANEMASK_LT:
      v = (uint32_t(1) << lane) - 1;
      break;
    case SpecialReg::LANEMASK_LE:
      v = uint32_t((uint64_t(2) << lane) - 1);
      break;
    case SpecialReg::LANEMASK_GT:
      v = ~uint32_t((uint64_t(2) << lane) - 1);
      break;
    case SpecialReg::LANEMASK_GE:
      v = ~((uint32_t(1) << lane) - 1);
      break;
    case SpecialReg::SWINBASE:
      writeInt(in, 0, kSharedWindowBase, 64);
      return true; // 64-bit generic addresses
    case SpecialReg::LWINBASE:
      writeInt(in, 0, kLocalWindowBase, 64);
      return true;
    case SpecialReg::CWINBASE:
      writeInt(in, 0, kConstWindowBase, 64);
      return true;
    case SpecialReg::CLOCKLO:
    case SpecialReg::CLOCKHI:
    case SpecialReg::GLOBALTIMERLO:
    case SpecialReg::GLOBALTIMERHI: {
      if (!clockFromSteps || !steps)
        unsupported(fmt::format("{} is not deterministic (it depends on the time; oriopt --run "
                                "--clock=steps reads the instructions run so far instead)",
                                specialRegName(o.sreg)));
      const bool hi = o.sreg == SpecialReg::CLOCKHI || o.sreg == SpecialReg::GLOBALTIMERHI;
      v = uint32_t(hi ? *steps >> 32 : *steps);
      break;
    }
    default:
      unsupported(fmt::format("{} is not deterministic (it depends on the hardware or the time)",
                              specialRegName(o.sreg)));
    }
    writeInt(in, 0, v, 32);
    return true;
  }
  default:
    return execIntegerMore(in);
  }
}

} // namespace ori::interp_detail
