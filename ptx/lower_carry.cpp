// PTX -> Ori, one instruction: extended-precision arithmetic (PTX ISA 9.0, section
// "Extended-Precision Integer Arithmetic Instructions": add.cc, addc, sub.cc, subc, mad.cc,
// madc) and the high half of 64-bit products (mul.hi, mad.hi on .u64/.s64).
//
// CC.CF is one predicate register per function (FunctionLowerer::carryFlag). Every carry
// instruction becomes one IADDC: add.cc a + b + 0, addc a + b + CF, sub.cc a + ~b + 1, subc
// a + ~b + CF, each writing CF when it has .cc. That is what ptxas 13.0 does on sm_90: one
// carry flag, IADD3 Rd, P, PT, a, -b, RZ for sub.cc and IADD3.X Rd, P, PT, ~b, a, RZ, Pin, !PT
// for subc, so the "borrow" subc subtracts is !CF and sub.cc's CF is "no borrow" (a >= b
// unsigned); an addc after sub.cc adds that flag, a subc after add.cc subtracts its
// complement (docs/ptx.md, "Carry chains", has the SASS).
#include "ptx/lowering.h"

namespace ori::ptx {

ori::Reg FunctionLowerer::carryFlag() {
  // Named %ori_cc: a lowering that declines gives its temporaries back, and their numbers go
  // to the next ones (named %ori_t<n>), so the name, not the number, says it is still there.
  if (carryFlag_) {
    auto it = f_.regNames.find(*carryFlag_);
    if (it != f_.regNames.end() && it->second.starts_with("%ori_cc"))
      return *carryFlag_;
  }
  ori::Reg r = newTemp(ori::RegFile::P, "pred");
  regNamesUsed_.erase(f_.regNames[r]);
  f_.regNames[r] = uniqueRegName("%ori_cc");
  carryFlag_ = r;
  return r;
}

namespace lowering {

namespace {
bool isCarryType(PtxType t) {
  return (t.kind == PtxType::Signed || t.kind == PtxType::Unsigned) &&
         (t.bits == 32 || t.bits == 64);
}
} // namespace

// add.cc, addc{.cc}, sub.cc, subc{.cc} on .u32 .s32 .u64 .s64.
bool Lowering::carryArith() {
  const std::string &op = pi.opcode;
  onlyMods(pi, {".cc"});
  need(3);
  PtxType t = lastType(pi);
  if (!isCarryType(t) || types(pi).size() != 1)
    return false;
  const bool sub = op == "sub" || op == "subc", withCarry = op == "addc" || op == "subc";
  const bool writes = hasMod(pi, ".cc");
  if (!withCarry && !writes)
    return false; // plain add/sub are addSub()'s
  OOp a = src(1, t), b = src(2, t);
  ori::Reg d = dst(0);
  ori::Reg cf = L.carryFlag();
  OOp in = withCarry ? reg(cf) : sub ? kPT : kNotPT;
  ori::Instr x = make(Opcode::IADDC, {}, {reg(d), writes ? reg(cf) : kPT}, {a, b, in});
  if (sub)
    x.mods.set(Mod::SUB);
  emit(std::move(x), t.bits == 64);
  return true;
}

// The high 64 bits of the 128-bit product of a and b, from 32 x 32 -> 64-bit products as
// SASS builds it: with a = a1:a0 and b = b1:b0, t = a0*b1 + hi(a0*b0), u = a1*b0 + lo(t),
// hi = a1*b1 + hi(t) + hi(u) (no sum overflows 64 bits). Signed: hi - (a < 0 ? b : 0) -
// (b < 0 ? a : 0), the two's-complement correction of the unsigned product.
OOp Lowering::mulHi64(OOp a, OOp b, bool isSigned) {
  auto r64 = [&] { return L.newTemp(ori::RegFile::R, "b64"); };
  auto shr = [&](OOp v, int64_t n, Mod m) {
    ori::Reg r = r64();
    emit(make(Opcode::SHR, {m}, {reg(r)}, {v, imm(n)}));
    return reg(r);
  };
  auto wide = [&](OOp x, OOp y, OOp c) { // zext(x[31:0]) * zext(y[31:0]) + c (64-bit)
    ori::Reg r = r64();
    emit(make(Opcode::IMAD, {Mod::WIDE, Mod::U32}, {reg(r)}, {x, y, c}));
    return reg(r);
  };
  OOp a1 = shr(a, 32, Mod::U64), b1 = shr(b, 32, Mod::U64);
  OOp p00 = wide(a, b, kRZ);
  OOp t = wide(a, b1, shr(p00, 32, Mod::U64));
  ori::Reg tl = temp32(); // a 32-bit write: lo(t) zero-extended
  emit(make(Opcode::MOV, {}, {reg(tl)}, {t}));
  OOp u = wide(a1, b, reg(tl));
  OOp v = wide(a1, b1, shr(t, 32, Mod::U64));
  ori::Reg hi = r64();
  emit(make(Opcode::IADD3, {}, {reg(hi)}, {v, shr(u, 32, Mod::U64), kRZ}), true);
  if (!isSigned)
    return reg(hi);
  auto masked = [&](OOp sign, OOp other) { // sign's all-ones-if-negative & other
    ori::Reg r = r64();
    emit(make(Opcode::LOP3, {Mod::LUT}, {reg(r)}, {shr(sign, 63, Mod::S64), other, kRZ, imm(0xC0)}),
         true);
    return reg(r, true);
  };
  ori::Reg s = r64();
  emit(make(Opcode::IADD3, {}, {reg(s)}, {reg(hi), masked(a, b), masked(b, a)}), true);
  return reg(s);
}

// mul.hi / mad.hi on .u64 .s64: d = hi64(a * b) (+ c).
bool Lowering::mulHi() {
  onlyMods(pi, {".hi"});
  const bool mad = pi.opcode == "mad";
  need(mad ? 4 : 3);
  PtxType t = lastType(pi);
  if (!isCarryType(t) || t.bits != 64)
    return false;
  OOp a = srcReg(1, t), b = srcReg(2, t);
  OOp c = mad ? src(3, t) : kRZ;
  OOp hi = mulHi64(a, b, t.kind == PtxType::Signed);
  emit(make(Opcode::IADD3, {}, {reg(dst(0))}, {hi, c, kRZ}), true);
  return true;
}

// mad{.hi,.lo}.cc and madc{.hi,.lo}{.cc} on .u32 .s32 .u64 .s64: d = part(a * b) + c (+ CF),
// the carry-out of that addition into CF with .cc (the product itself never carries).
bool Lowering::madCarry() {
  onlyMods(pi, {".hi", ".lo", ".cc"});
  need(4);
  PtxType t = lastType(pi);
  if (!isCarryType(t) || types(pi).size() != 1 || hasMod(pi, ".hi") == hasMod(pi, ".lo"))
    return false;
  const bool withCarry = pi.opcode == "madc", writes = hasMod(pi, ".cc"), hi = hasMod(pi, ".hi");
  if (!withCarry && !writes)
    return false;
  const bool w64 = t.bits == 64, isSigned = t.kind == PtxType::Signed;
  OOp a = srcReg(1, t), b = src(2, t), c = src(3, t);
  OOp product;
  if (hi && w64) {
    product = mulHi64(a, srcReg(2, t), isSigned);
  } else {
    ori::Reg p = L.newTemp(ori::RegFile::R, w64 ? "b64" : "b32");
    ori::Instr m = make(Opcode::IMAD, {}, {reg(p)}, {a, b, kRZ});
    if (hi)
      m.mods.set(Mod::HI);
    if (hi && !isSigned)
      m.mods.set(Mod::U32);
    emit(std::move(m), w64);
    product = reg(p);
  }
  ori::Reg cf = L.carryFlag();
  emit(make(Opcode::IADDC, {}, {reg(dst(0)), writes ? reg(cf) : kPT},
            {product, c, withCarry ? reg(cf) : kNotPT}),
       w64);
  return true;
}

} // namespace lowering
} // namespace ori::ptx
