// PTX -> Ori, one instruction: the video instructions (PTX ISA 9.0, "Video Instructions"),
// as exact sequences of existing opcodes; ptxas 13.0 emulates most of them on sm_90 with
// several instructions too (docs/ptx.md, "Video instructions").
//
// Scalar: vadd vsub vabsdiff vmin vmax vshl vshr vset .dtype.atype.btype{.sat}{.op2}
// d{.dsel}, a{.asel}, b{.bsel}{, c}. The ISA extracts the selected byte, half or word of a
// and b, sign- or zero-extended by its type to .s33, computes an .s34 result, optionally
// clamps it to the destination's (sub)word range, then adds, mins or maxes c (extended by
// dtype) or merges the result's low byte or half into c. Every .s33/.s34 value fits a 64-bit
// register, so the sequence works in 64 bits (SGXT.64, IADD3.64, IMNMX.S64) and keeps the
// low word.
//
// SIMD: vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2 vset2 and the 4-way forms, d{.mask},
// a{.asel}, b{.bsel}, c{, .add}: each lane's element is picked from the 8 bytes of {b, a} by
// a PRMT that also sign- or zero-extends it to 32 bits, the lanes are computed in 32 bits
// (values of at most 18 bits), saturated to the lane (.sat), then either summed into c
// (.add: the lanes in the mask) or packed, lanes outside the mask keeping c's.
#include <string_view>

#include "ptx/lowering.h"

namespace ori::ptx::lowering {

namespace {

// A scalar selector: none (the word), .b0-.b3, .h0/.h1. {bits, index}; bits 32: none.
std::optional<std::pair<unsigned, unsigned>> scalarSelector(const std::string &s) {
  if (s.empty())
    return std::pair{32u, 0u};
  if (s.size() == 3 && s[1] == 'b' && s[2] >= '0' && s[2] <= '3')
    return std::pair{8u, unsigned(s[2] - '0')};
  if (s.size() == 3 && s[1] == 'h' && s[2] >= '0' && s[2] <= '1')
    return std::pair{16u, unsigned(s[2] - '0')};
  return std::nullopt;
}

// A SIMD selector (.h10, .b3210): lane i's element index, the last digit being lane 0;
// `fallback` when there is none.
std::optional<std::vector<unsigned>> simdSelector(const std::string &s, unsigned lanes,
                                                  std::string_view fallback) {
  std::string_view v = s.empty() ? fallback : std::string_view(s);
  if (v.size() != lanes + 2 || v[1] != (lanes == 2 ? 'h' : 'b'))
    return std::nullopt;
  std::vector<unsigned> out(lanes);
  for (unsigned i = 0; i < lanes; ++i) {
    char c = v[v.size() - 1 - i];
    if (c < '0' || c > (lanes == 2 ? '3' : '7'))
      return std::nullopt;
    out[i] = unsigned(c - '0');
  }
  return out;
}

// A SIMD destination mask (.h0 .h1 .h10; .b0 .. .b3210): which lanes, digits descending.
std::optional<unsigned> simdMask(const std::string &s, unsigned lanes) {
  if (s.empty())
    return (1u << lanes) - 1;
  if (s.size() < 3 || s[1] != (lanes == 2 ? 'h' : 'b'))
    return std::nullopt;
  unsigned mask = 0;
  int last = int(lanes);
  for (char c : std::string_view(s).substr(2)) {
    int lane = c - '0';
    if (lane < 0 || lane >= last)
      return std::nullopt; // strictly descending, below `lanes`
    mask |= 1u << lane;
    last = lane;
  }
  return mask;
}

struct Compare {
  std::string_view text;
  Mod mod;
};
constexpr Compare kCompares[] = {{".eq", Mod::EQ}, {".ne", Mod::NE}, {".lt", Mod::LT},
                                 {".le", Mod::LE}, {".gt", Mod::GT}, {".ge", Mod::GE}};

bool isVideoType(PtxType t) {
  return (t.kind == PtxType::Signed || t.kind == PtxType::Unsigned) && t.bits == 32;
}

} // namespace

// Operand i without its selector (and vmad's `-`): a register (immediates are moved into one).
static OOp plainReg(Lowering &lw, size_t i) {
  Operand o = lw.ops[i];
  o.selector.clear();
  o.minus = false;
  return lw.L.source(o, PtxType{PtxType::Unsigned, 32}, ori::K_REG);
}

// partSelectSignExtend: operand i's selected part (sel: {bits, index}; 32 bits: the word),
// extended to 64 bits by its type.
static OOp videoPart(Lowering &lw, size_t i, std::pair<unsigned, unsigned> sel, bool sgn) {
  OOp v = plainReg(lw, i);
  ori::Reg r = lw.L.newTemp(ori::RegFile::R, "b64");
  if (sel.first == 32) {
    ori::Instr x = make(Opcode::IMAD, {Mod::WIDE}, {reg(r)}, {v, imm(1), kRZ});
    if (!sgn)
      x.mods.set(Mod::U32);
    lw.emit(std::move(x));
    return reg(r);
  }
  if (sel.second) {
    ori::Reg s = lw.temp32();
    lw.emit(make(Opcode::SHR, {Mod::U32}, {reg(s)}, {v, imm(sel.first * sel.second)}));
    v = reg(s);
  }
  if (sgn)
    lw.emit(make(Opcode::SGXT, {Mod::W64}, {reg(r)}, {v, imm(sel.first)}));
  else
    lw.emit(make(Opcode::LOP3, {Mod::LUT}, {reg(r)},
                 {v, imm(sel.first == 8 ? 0xff : 0xffff), kRZ, imm(0xC0)}));
  return reg(r);
}

bool Lowering::videoScalar() {
  const std::string &op = pi.opcode;
  const bool isSet = op == "vset", isShift = op == "vshl" || op == "vshr";
  if (ops.size() < 3)
    return false;
  onlyMods(pi, {".sat", ".add", ".min", ".max", ".clamp", ".wrap", ".eq", ".ne", ".lt", ".le",
                ".gt", ".ge"});
  std::vector<PtxType> ts = types(pi);
  if (ts.size() != (isSet ? 2u : 3u))
    return false;
  for (PtxType t : ts)
    if (!isVideoType(t))
      return false;
  const bool dSigned = !isSet && ts[0].kind == PtxType::Signed;
  const PtxType at = ts[isSet ? 0 : 1], bt = ts[isSet ? 1 : 2];
  if (isShift && bt.kind != PtxType::Unsigned)
    return false;
  std::optional<Mod> cmp;
  for (const Compare &c : kCompares)
    if (hasMod(pi, c.text)) {
      if (cmp)
        return false;
      cmp = c.mod;
    }
  if (isSet != cmp.has_value())
    return false;
  if (isShift ? hasMod(pi, ".clamp") == hasMod(pi, ".wrap")
              : (hasMod(pi, ".clamp") || hasMod(pi, ".wrap")))
    return false;
  const bool sat = hasMod(pi, ".sat");
  if (isSet && sat)
    return false;
  int op2 = hasMod(pi, ".add") + hasMod(pi, ".min") + hasMod(pi, ".max");
  if (op2 > 1)
    return false;
  auto dsel = scalarSelector(ops[0].selector),
       asel = scalarSelector(ops.size() > 1 ? ops[1].selector : "");
  auto bsel = scalarSelector(ops.size() > 2 ? ops[2].selector : "");
  if (!dsel || !asel || !bsel || (dsel->first != 32 && op2))
    return false;
  need(op2 || dsel->first != 32 ? 4 : 3);
  if (ops.size() == 4 && !ops[3].selector.empty())
    return false;
  // vmin/vmax with one type for all three, whole words and no .sat (nvcc's max(max(a, b), c)
  // idiom): the .s33 values are the 32-bit ones, so 32-bit IMNMX (and IADD3 for .add) are exact.
  if ((op == "vmin" || op == "vmax") && !sat && dsel->first == 32 && asel->first == 32 &&
      bsel->first == 32 && ts[0].kind == ts[1].kind && ts[0].kind == ts[2].kind) {
    const Mod ty = intTypeMod(ts[0]);
    ori::Reg d = dst(0), r = op2 ? temp32() : d;
    emit(make(Opcode::IMNMX, {ty}, {reg(r)},
              {plainReg(*this, 1), plainReg(*this, 2), op == "vmin" ? kPT : kNotPT}));
    if (hasMod(pi, ".add"))
      emit(make(Opcode::IADD3, {}, {reg(d)}, {reg(r), plainReg(*this, 3), kRZ}));
    else if (op2)
      emit(make(Opcode::IMNMX, {ty}, {reg(d)},
                {reg(r), plainReg(*this, 3), hasMod(pi, ".min") ? kPT : kNotPT}));
    return true;
  }

  auto r64 = [&] { return L.newTemp(ori::RegFile::R, "b64"); };
  OOp ta = videoPart(*this, 1, *asel, at.kind == PtxType::Signed);
  OOp tb = videoPart(*this, 2, *bsel, !isShift && bt.kind == PtxType::Signed);
  ori::Reg tmp = r64();
  if (op == "vadd" || op == "vsub") {
    emit(make(Opcode::IADD3, {}, {reg(tmp)}, {ta, op == "vsub" ? reg(tb.reg, true) : tb, kRZ}),
         true);
  } else if (op == "vabsdiff") {
    ori::Reg x = r64(), y = r64();
    emit(make(Opcode::IADD3, {}, {reg(x)}, {ta, reg(tb.reg, true), kRZ}), true);
    emit(make(Opcode::IADD3, {}, {reg(y)}, {tb, reg(ta.reg, true), kRZ}), true);
    emit(make(Opcode::IMNMX, {Mod::S64}, {reg(tmp)}, {reg(x), reg(y), kNotPT}));
  } else if (op == "vmin" || op == "vmax") {
    emit(make(Opcode::IMNMX, {Mod::S64}, {reg(tmp)}, {ta, tb, op == "vmin" ? kPT : kNotPT}));
  } else if (isShift) { // tb: .clamp at 32, .wrap modulo 32
    ori::Reg n = temp32();
    if (hasMod(pi, ".clamp"))
      emit(make(Opcode::IMNMX, {Mod::U32}, {reg(n)}, {tb, imm(32), kPT}));
    else
      emit(make(Opcode::LOP3, {Mod::LUT}, {reg(n)}, {tb, imm(31), kRZ, imm(0xC0)}));
    if (op == "vshr") {
      emit(make(Opcode::SHR, {Mod::S64}, {reg(tmp)}, {ta, reg(n)}));
    } else if (!sat) { // .min/.max compare all 64 bits of ta << n, as ptxas's sequence does
      emit(make(Opcode::SHL, {}, {reg(tmp)}, {ta, reg(n)}), true);
    } else { // .sat: ta << n cut to the ISA's .s34 (ptxas keeps bits 32-33 of the high word)
      ori::Reg wide = r64();
      emit(make(Opcode::SHL, {}, {reg(wide)}, {ta, reg(n)}), true);
      emit(make(Opcode::SGXT, {Mod::W64}, {reg(tmp)}, {reg(wide), imm(34)}));
    }
  } else { // vset: 1 or 0
    ori::Reg p = L.newTemp(ori::RegFile::P, "pred");
    emit(make(Opcode::ISETP, {*cmp, Mod::S64, Mod::AND}, {reg(p), kPT}, {ta, tb, kPT}));
    emit(make(Opcode::SEL, {}, {reg(tmp)}, {imm(1), imm(0), reg(p)}));
  }
  OOp result = reg(tmp);
  if (sat) { // optSaturate: the (sub)word range of the destination, by dtype
    const unsigned w = dsel->first;
    const int64_t hi = dSigned ? (int64_t(1) << (w - 1)) - 1 : int64_t((uint64_t(1) << w) - 1);
    const int64_t lo = dSigned ? -(int64_t(1) << (w - 1)) : 0;
    ori::Reg x = r64(), y = r64();
    emit(make(Opcode::IMNMX, {Mod::S64}, {reg(x)}, {result, imm(hi), kPT}));
    emit(make(Opcode::IMNMX, {Mod::S64}, {reg(y)}, {reg(x), imm(lo), kNotPT}));
    result = reg(y);
  }
  ori::Reg d;
  {
    Operand o = ops[0];
    o.selector.clear();
    d = L.destination(o);
  }
  if (op2) { // optSecondaryOp with c extended by dtype (vset: unsigned)
    ori::Reg c = r64(), r = r64();
    ori::Instr x = make(Opcode::IMAD, {Mod::WIDE}, {reg(c)}, {plainReg(*this, 3), imm(1), kRZ});
    if (!dSigned)
      x.mods.set(Mod::U32);
    emit(std::move(x));
    if (hasMod(pi, ".add"))
      emit(make(Opcode::IADD3, {}, {reg(r)}, {result, reg(c), kRZ}), true);
    else
      emit(make(Opcode::IMNMX, {Mod::S64}, {reg(r)},
                {result, reg(c), hasMod(pi, ".min") ? kPT : kNotPT}));
    result = reg(r);
  } else if (dsel->first != 32) { // optMerge: the low byte or half into c's place
    const unsigned bytes = dsel->first / 8, at = dsel->second * bytes;
    int64_t sel = 0;
    for (unsigned j = 0; j < 4; ++j)
      sel |= int64_t(j >= at && j < at + bytes ? j - at : 4 + j) << (4 * j);
    emit(make(Opcode::PRMT, {}, {reg(d)}, {result, imm(sel), plainReg(*this, 3)}));
    return true;
  }
  emit(make(Opcode::MOV, {}, {reg(d)}, {result})); // the low word
  return true;
}

// vmad.dtype.atype.btype{.po}{.sat}{.shr7,.shr15} d, {-}a{.asel}, {-}b{.bsel}, {-}c (PTX ISA
// 9.0, 9.7.16.1.4 "vmad"), its pseudocode on a 128-bit tmp held as hi:lo: the product of the
// extended parts (at most 65 bits: lo is its low 64 bits, hi its sign), complemented with
// lsb = 1 when exactly one of a, b is negated (else c complemented when it is, .po: lsb = 1
// alone), plus c (sign-extended when the result is signed) plus lsb, shifted right by the
// scale, clamped to the 32-bit range of the result's signedness with .sat; d its low word.
// The pseudocode leaves `result` unset without a scale: tmp's low 64 bits. It ignores dtype,
// and so does this.
bool Lowering::videoMultiplyAdd() {
  onlyMods(pi, {".po", ".sat", ".shr7", ".shr15"});
  need(4);
  std::vector<PtxType> ts = types(pi);
  if (ts.size() != 3)
    return false;
  for (PtxType t : ts)
    if (!isVideoType(t))
      return false;
  if (hasMod(pi, ".shr7") && hasMod(pi, ".shr15"))
    return false;
  auto asel = scalarSelector(ops[1].selector), bsel = scalarSelector(ops[2].selector);
  if (!asel || !bsel || !ops[0].selector.empty() || !ops[3].selector.empty() || ops[0].minus)
    return false;
  const bool po = hasMod(pi, ".po"), negAB = ops[1].minus != ops[2].minus, negC = ops[3].minus;
  if (po && (ops[1].minus || ops[2].minus || negC))
    return false; // the ISA: no negation with .po
  if (negAB && negC)
    return false; // the ISA negates the product or c, not both
  const bool aSigned = ts[1].kind == PtxType::Signed, bSigned = ts[2].kind == PtxType::Signed;
  const bool signedFinal = aSigned || bSigned || negAB || negC;
  auto r64 = [&] { return L.newTemp(ori::RegFile::R, "b64"); };
  OOp ta = videoPart(*this, 1, *asel, aSigned), tb = videoPart(*this, 2, *bsel, bSigned);
  // The product: its low 64 bits; its high word all ones exactly when it is negative (a
  // nonzero product of operands of opposite signs; |product| < 2^64, so lo = 0 only for 0).
  ori::Reg lo = r64(), hi = r64();
  emit(make(Opcode::IMAD, {}, {reg(lo)}, {ta, tb, kRZ}), true);
  ori::Reg pa = L.newTemp(ori::RegFile::P, "pred"), pb = L.newTemp(ori::RegFile::P, "pred");
  ori::Reg pz = L.newTemp(ori::RegFile::P, "pred"), neg = L.newTemp(ori::RegFile::P, "pred");
  emit(make(Opcode::ISETP, {Mod::LT, Mod::S64, Mod::AND}, {reg(pa), kPT}, {ta, imm(0), kPT}));
  emit(make(Opcode::ISETP, {Mod::LT, Mod::S64, Mod::AND}, {reg(pb), kPT}, {tb, imm(0), kPT}));
  emit(make(Opcode::ISETP, {Mod::NE, Mod::U64, Mod::AND}, {reg(pz), kPT}, {reg(lo), imm(0), kPT}));
  emit(make(Opcode::PLOP3, {Mod::LUT}, {reg(neg), kPT},
            {reg(pa), reg(pb), reg(pz), imm(0x28), imm(0)})); // (a ^ b) & c
  emit(make(Opcode::SEL, {}, {reg(hi)}, {imm(-1), imm(0), reg(neg)}), true);
  if (negAB) { // tmp = ~tmp
    ori::Reg nl = r64(), nh = r64();
    emit(make(Opcode::LOP3, {Mod::LUT}, {reg(nl)}, {reg(lo), kRZ, kRZ, imm(0x0F)}), true);
    emit(make(Opcode::LOP3, {Mod::LUT}, {reg(nh)}, {reg(hi), kRZ, kRZ, imm(0x0F)}), true);
    lo = nl, hi = nh;
  }
  OOp c = plainReg(*this, 3);
  if (negC) { // c = ~c (32 bits)
    ori::Reg nc = temp32();
    emit(make(Opcode::LOP3, {Mod::LUT}, {reg(nc)}, {c, kRZ, kRZ, imm(0x0F)}));
    c = reg(nc);
  }
  ori::Reg clo = r64(), chi = r64();
  ori::Instr cx = make(Opcode::IMAD, {Mod::WIDE}, {reg(clo)}, {c, imm(1), kRZ});
  if (!signedFinal)
    cx.mods.set(Mod::U32);
  emit(std::move(cx));
  emit(
      make(Opcode::SHR, {Mod::S64}, {reg(chi)}, {reg(clo), imm(63)})); // the sign word (0 for zext)
  ori::Reg cf = L.newTemp(ori::RegFile::P, "pred"), slo = r64(), shi = r64();
  const bool lsb = po || negAB || negC;
  emit(make(Opcode::IADDC, {}, {reg(slo), reg(cf)}, {reg(lo), reg(clo), lsb ? kPT : kNotPT}), true);
  emit(make(Opcode::IADDC, {}, {reg(shi), kPT}, {reg(hi), reg(chi), reg(cf)}), true);
  OOp result = reg(slo);
  if (hasMod(pi, ".shr7") || hasMod(pi, ".shr15")) { // bits k..k+63 of hi:lo
    const int64_t k = hasMod(pi, ".shr7") ? 7 : 15;
    ori::Reg x = r64(), y = r64(), r = r64();
    emit(make(Opcode::SHR, {Mod::U64}, {reg(x)}, {reg(slo), imm(k)}));
    emit(make(Opcode::SHL, {}, {reg(y)}, {reg(shi), imm(64 - k)}), true);
    emit(make(Opcode::LOP3, {Mod::LUT}, {reg(r)}, {reg(x), reg(y), kRZ, imm(0xFC)}), true);
    result = reg(r);
  }
  if (hasMod(pi, ".sat")) { // the 64-bit result clamped, as a signed or unsigned number
    ori::Reg x = r64();
    if (signedFinal) {
      ori::Reg y = r64();
      emit(make(Opcode::IMNMX, {Mod::S64}, {reg(y)}, {result, imm(INT32_MAX), kPT}));
      emit(make(Opcode::IMNMX, {Mod::S64}, {reg(x)}, {reg(y), imm(INT32_MIN), kNotPT}));
    } else {
      emit(make(Opcode::IMNMX, {Mod::U64}, {reg(x)}, {result, imm(UINT32_MAX), kPT}));
    }
    result = reg(x);
  }
  emit(make(Opcode::MOV, {}, {reg(dst(0))}, {result}));
  return true;
}

bool Lowering::videoSimd() {
  const std::string &op = pi.opcode;
  const unsigned lanes = op.back() == '2' ? 2 : 4, laneBits = 32 / lanes;
  const std::string base = op.substr(0, op.size() - 1);
  const bool isSet = base == "vset";
  onlyMods(pi, {".sat", ".add", ".eq", ".ne", ".lt", ".le", ".gt", ".ge"});
  std::vector<PtxType> ts = types(pi);
  if (ts.size() != (isSet ? 2u : 3u))
    return false;
  for (PtxType t : ts)
    if (!isVideoType(t))
      return false;
  const bool dSigned = !isSet && ts[0].kind == PtxType::Signed;
  const bool aSigned = ts[isSet ? 0 : 1].kind == PtxType::Signed,
             bSigned = ts[isSet ? 1 : 2].kind == PtxType::Signed;
  std::optional<Mod> cmp;
  for (const Compare &c : kCompares)
    if (hasMod(pi, c.text)) {
      if (cmp)
        return false;
      cmp = c.mod;
    }
  if (isSet != cmp.has_value())
    return false;
  const bool sat = hasMod(pi, ".sat"), add = hasMod(pi, ".add");
  if ((sat && add) || (sat && isSet))
    return false; // the ISA: no .sat with the accumulate
  need(4);
  auto mask = simdMask(ops[0].selector, lanes);
  auto asel = simdSelector(ops[1].selector, lanes, lanes == 2 ? ".h10" : ".b3210");
  auto bsel = simdSelector(ops[2].selector, lanes, lanes == 2 ? ".h32" : ".b7654");
  if (!mask || !asel || !bsel || !ops[3].selector.empty())
    return false;

  OOp a = plainReg(*this, 1), b = plainReg(*this, 2), c = plainReg(*this, 3);
  // Element k of {b, a} (bytes, or halves for 2 lanes), extended to 32 bits by one PRMT: for a
  // signed element the bytes above it replicate its sign (selector bit 3), for an unsigned
  // one they come from RZ.
  auto element = [&](unsigned k, bool sgn) {
    ori::Reg r = temp32();
    const unsigned lo = lanes == 2 ? 2 * k : k, top = lanes == 2 ? lo + 1 : lo;
    int64_t sel = 0;
    OOp x = a, y = b;
    for (unsigned j = 0; j < 4; ++j) {
      unsigned nib;
      if (j <= top - lo)
        nib = lo + j;
      else
        nib = sgn ? (top | 8) : 4;
      sel |= int64_t(nib) << (4 * j);
    }
    if (!sgn) { // bytes of one source, zeros from RZ
      const bool fromB = lo >= 4;
      sel = 0;
      for (unsigned j = 0; j < 4; ++j)
        sel |= int64_t(j <= top - lo ? (lo & 3) + j : 4) << (4 * j);
      x = fromB ? b : a;
      y = kRZ;
    }
    emit(make(Opcode::PRMT, {}, {reg(r)}, {x, imm(sel), y}));
    return reg(r);
  };
  const Mod cmp32 = Mod::S32; // lanes are compared as the signed 32-bit values they extend to
  std::vector<OOp> t(lanes);
  for (unsigned i = 0; i < lanes; ++i) {
    if (!((*mask >> i) & 1))
      continue;
    OOp x = element((*asel)[i], aSigned), y = element((*bsel)[i], bSigned);
    ori::Reg r = temp32();
    if (base == "vadd" || base == "vsub") {
      emit(make(Opcode::IADD3, {}, {reg(r)}, {x, base == "vsub" ? reg(y.reg, true) : y, kRZ}));
    } else if (base == "vavrg") { // (s + 1) >> 1 for s >= 0, s >> 1 below: (s + 1 + (s >> 31)) >> 1
      ori::Reg s = temp32(), m = temp32(), s1 = temp32();
      emit(make(Opcode::IADD3, {}, {reg(s)}, {x, y, kRZ}));
      emit(make(Opcode::SHR, {Mod::S32}, {reg(m)}, {reg(s), imm(31)}));
      emit(make(Opcode::IADD3, {}, {reg(s1)}, {reg(s), reg(m), imm(1)}));
      emit(make(Opcode::SHR, {Mod::S32}, {reg(r)}, {reg(s1), imm(1)}));
    } else if (base == "vabsdiff") {
      ori::Reg mx = temp32(), mn = temp32();
      emit(make(Opcode::IMNMX, {cmp32}, {reg(mx)}, {x, y, kNotPT}));
      emit(make(Opcode::IMNMX, {cmp32}, {reg(mn)}, {x, y, kPT}));
      emit(make(Opcode::IADD3, {}, {reg(r)}, {reg(mx), reg(mn, true), kRZ}));
    } else if (base == "vmin" || base == "vmax") {
      emit(make(Opcode::IMNMX, {cmp32}, {reg(r)}, {x, y, base == "vmin" ? kPT : kNotPT}));
    } else if (isSet) {
      ori::Reg p = L.newTemp(ori::RegFile::P, "pred");
      emit(make(Opcode::ISETP, {*cmp, Mod::S32, Mod::AND}, {reg(p), kPT}, {x, y, kPT}));
      emit(make(Opcode::SEL, {}, {reg(r)}, {imm(1), imm(0), reg(p)}));
    } else {
      return false;
    }
    if (sat) { // the lane's range by dtype
      const int64_t hi =
          dSigned ? (int64_t(1) << (laneBits - 1)) - 1 : (int64_t(1) << laneBits) - 1;
      const int64_t lo = dSigned ? -(int64_t(1) << (laneBits - 1)) : 0;
      ori::Reg u = temp32(), v = temp32();
      emit(make(Opcode::IMNMX, {Mod::S32}, {reg(u)}, {reg(r), imm(hi), kPT}));
      emit(make(Opcode::IMNMX, {Mod::S32}, {reg(v)}, {reg(u), imm(lo), kNotPT}));
      r = v;
    }
    t[i] = reg(r);
  }
  Operand dop = ops[0];
  dop.selector.clear();
  ori::Reg d = L.destination(dop);
  if (add) { // d = c + the lanes in the mask, each as the signed value it is
    OOp acc = c;
    std::vector<OOp> in;
    for (unsigned i = 0; i < lanes; ++i)
      if ((*mask >> i) & 1)
        in.push_back(t[i]);
    for (size_t k = 0; k < in.size(); k += 2) {
      const bool last = k + 2 >= in.size();
      ori::Reg r = last ? d : temp32();
      emit(make(Opcode::IADD3, {}, {reg(r)}, {acc, in[k], k + 1 < in.size() ? in[k + 1] : kRZ}));
      acc = reg(r);
    }
    return true;
  }
  // Merge: lane i's low bits from t[i] (byte 0) or, outside the mask, c's own lane.
  auto src = [&](unsigned i) {
    return (*mask >> i) & 1 ? std::pair{t[i], 0u} : std::pair{c, i * (laneBits / 8)};
  };
  if (lanes == 2) {
    auto [x0, o0] = src(0);
    auto [x1, o1] = src(1);
    int64_t sel =
        int64_t(o0) | int64_t(o0 + 1) << 4 | int64_t(4 + o1) << 8 | int64_t(4 + o1 + 1) << 12;
    emit(make(Opcode::PRMT, {}, {reg(d)}, {x0, imm(sel), x1}));
    return true;
  }
  ori::Reg pair[2];
  for (unsigned h = 0; h < 2; ++h) {
    auto [x0, o0] = src(2 * h);
    auto [x1, o1] = src(2 * h + 1);
    pair[h] = temp32();
    emit(make(Opcode::PRMT, {}, {reg(pair[h])}, {x0, imm(int64_t(o0) | int64_t(4 + o1) << 4), x1}));
  }
  emit(make(Opcode::PRMT, {}, {reg(d)}, {reg(pair[0]), imm(0x5410), reg(pair[1])}));
  return true;
}

} // namespace ori::ptx::lowering
