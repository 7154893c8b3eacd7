// Internals of the per-instruction PTX -> Ori lowering, shared by
// lower_alu.cpp (moves, arithmetic, logic), lower_mem.cpp (compares,
// conversions, memory, control flow) and lower_warp.cpp (warp-level
// instructions and barriers). Each lowering gives exactly the PTX
// ISA's meaning under the interpreter's semantics (docs/interpreter.md), or
// declines by throwing NotNative: the instruction then stays OPAQUE with
// exact defs and uses.
#pragma once

#include <bit>
#include <initializer_list>
#include <optional>

#include "ptx/lower_impl.h"

namespace ori::ptx::lowering {

struct NotNative {};
struct WmmaMods; // lower_wmma.cpp

using ori::Mod;
using ori::Opcode;
using OOp = ori::Operand;

inline bool hasMod(const Instruction &pi, std::string_view m) {
  for (const std::string &s : pi.mods)
    if (s == m)
      return true;
  return false;
}

// Every modifier must be a type or in `allowed`; otherwise not native.
inline void onlyMods(const Instruction &pi, std::initializer_list<std::string_view> allowed) {
  for (const std::string &s : pi.mods) {
    if (parseType(s).kind != PtxType::None)
      continue;
    bool ok = false;
    for (std::string_view a : allowed)
      ok |= s == a;
    if (!ok)
      throw NotNative{};
  }
}

// The last type modifier (the instruction type; cvt: the source type).
inline PtxType lastType(const Instruction &pi) {
  for (size_t i = pi.mods.size(); i-- > 0;)
    if (PtxType t = parseType(pi.mods[i]); t.kind != PtxType::None)
      return t;
  return {};
}

inline std::vector<PtxType> types(const Instruction &pi) {
  std::vector<PtxType> out;
  for (const std::string &s : pi.mods)
    if (PtxType t = parseType(s); t.kind != PtxType::None)
      out.push_back(t);
  return out;
}

inline ori::Instr make(Opcode op, std::initializer_list<Mod> mods, std::vector<OOp> dsts,
                       std::vector<OOp> srcs) {
  ori::Instr in;
  in.op = op;
  for (Mod m : mods)
    in.mods.set(m);
  in.dsts = std::move(dsts);
  in.srcs = std::move(srcs);
  return in;
}

inline OOp reg(ori::Reg r, bool neg = false) { return OOp::reg_(r, neg); }
inline OOp imm(int64_t v) { return OOp::immediate(v); }
inline const OOp kRZ = OOp::reg_(ori::RZ);
inline const OOp kPT = OOp::reg_(ori::PT);
inline const OOp kNotPT = OOp::reg_(ori::PT, true);

inline Mod intTypeMod(PtxType t) {
  bool s = t.kind == PtxType::Signed;
  if (t.bits == 64)
    return s ? Mod::S64 : Mod::U64;
  return s ? Mod::S32 : Mod::U32;
}

inline bool isInt32or64(PtxType t) { return t.isInt() && (t.bits == 32 || t.bits == 64); }

// The lowering of one PTX instruction, with the state it needs.
struct Lowering {
  FunctionLowerer &L;
  const Instruction &pi;
  const std::vector<Operand> &ops = pi.operands;

  void need(size_t n) const {
    if (ops.size() != n)
      throw NotNative{};
  }
  ori::Reg dst(size_t i) const { return L.destination(ops[i]); }
  OOp src(size_t i, PtxType t, uint16_t kinds = ori::K_REG | ori::K_IMM) const {
    return L.source(ops[i], t, kinds);
  }
  OOp srcReg(size_t i, PtxType t) const { return src(i, t, ori::K_REG); }
  void emit(ori::Instr in, bool wide = false) const {
    if (wide)
      in.mods.set(Mod::W64);
    L.emit(std::move(in));
  }
  void floatMods(ori::Instr &in) const; // .rn .rz .rm .rp .ftz .sat

  bool run();
  // lower_alu.cpp
  bool mov();
  bool packUnpack(PtxType t);
  void pack64(ori::Reg d, const OOp &lo, const OOp &hi); // d = hi:lo
  bool addSub();
  bool mulMad();
  bool logic();
  bool lop3();
  bool shift();
  bool funnelShift();
  bool minMax();
  bool negAbs();
  // lower_int.cpp: narrow integers and multi-operation integer instructions
  ori::Reg temp32() const;
  // Source i of narrow type t as a 32-bit operand, zero- or sign-extended (immediates too);
  // inReg: an immediate is moved into a register.
  OOp narrowSrc(size_t i, PtxType t, bool sext, bool inReg = false);
  // Writes the low t.bits of `value` into d as PTX has it (extended to d's width by t's
  // signedness, a narrow register zero-extended); clean: value has no bits above t.bits.
  void narrowResult(ori::Reg d, OOp value, PtxType t, bool clean);
  bool narrowArith(PtxType t);
  bool divRem();
  bool set();
  bool slct();
  bool select(PtxType t, OOp p); // d = p ? ops[1] : ops[2]
  bool prmt();
  bool bitCount();
  OOp byteOperand(size_t i);
  bool bfe();
  bool bfi();
  ori::Reg lowOnes64(OOp len);
  bool mul24();
  // lower_carry.cpp: add.cc addc sub.cc subc mad.cc madc; mul.hi/mad.hi on 64 bits
  bool carryArith();
  bool madCarry();
  bool mulHi();
  OOp mulHi64(OOp a, OOp b, bool isSigned); // the high 64 bits of the 128-bit product
  // lower_intops.cpp
  bool dotProduct(); // dp4a, dp2a
  bool sad();
  bool bitMask();        // bmsk
  bool signZeroExtend(); // szext
  bool satAddSub();      // add.sat.s32, sub.sat.s32
  bool findNthSet();     // fns
  bool cvtPack();        // cvt.pack.sat
  bool packed16();       // add min max on .u16x2/.s16x2 (.relu)
  bool reluMinMax();     // min.relu/max.relu on .s32
  bool cnot();
  // lower_video.cpp: vadd vsub vabsdiff vmin vmax vshl vshr vset, and the 2- and 4-way forms
  bool videoScalar();
  bool videoMultiplyAdd(); // vmad
  bool videoSimd();
  // lower_float.cpp
  bool fma();
  bool floatAddSub();
  bool floatMulMad();
  bool floatMinMax();
  bool floatNegAbs();
  bool floatDiv();   // div .approx .full .rn .rz .rm .rp on .f32/.f64
  bool floatUnary(); // rcp sqrt rsqrt ex2 lg2 sin cos
  bool copysign();
  bool packedArith(); // add sub mul fma on .f16x2/.bf16x2
  // lower_half.cpp: .f16 .bf16 .f16x2 .bf16x2 and the other float forms of issue 39
  std::optional<bool> halfPrecision(); // nullopt: not one of its instructions
  OOp halfSrc(size_t i, PtxType t);
  bool halfArith();
  bool halfNegAbs();
  bool halfMinMax();
  bool halfCompare();
  bool mufuHalf(); // ex2 and tanh .approx on 16-bit formats, tanh.approx.f32
  bool testp();
  bool packBytes(); // mov.b16 d, {a, b} of two 8-bit parts
  // lower_mem.cpp
  bool setp();
  // The comparison of setp/set with operands ops[first], ops[first+1] (and the predicate
  // ops[first+2] under .and/.or/.xor) of type t, into p and q.
  bool compare(OOp p, OOp q, size_t first, PtxType t);
  bool selp();
  bool cvt(); // lower_cvt.cpp, by the kinds of the two types:
  bool cvtIntInt(PtxType dt, PtxType st);
  bool cvtIntFloat(PtxType dt, PtxType st);
  bool cvtFloatInt(PtxType dt, PtxType st);
  bool cvtFloatFloat(PtxType dt, PtxType st);
  bool cvtPackHalves(PtxType dt); // .f16x2/.bf16x2 from two .f32
  bool cvtSmallFormats();         // the 8-bit formats (.e4m3x2 .e5m2x2) and .tf32
  bool cvta();
  bool load();
  bool store();
  // ld/st's ordering, cache and eviction qualifiers onto `in` (docs/ptx.md, "Memory ordering
  // and cache qualifiers"); false when PTX does not allow the combination.
  bool memoryQualifiers(ori::Instr &in, bool isLoad) const;
  // lower_atomic.cpp
  bool atomic();
  void orderMods(ori::Instr &in) const; // .relaxed .acquire .release .acq_rel .sc and the scope
  void
  checkAllowed(const ori::Instr &in) const; // every modifier one the opcode takes, else NotNative
  ori::Reg addressValue(const OOp &a);      // the generic address of [R+imm] / [sym+imm]
  bool fence();                             // membar, fence, fence.proxy
  bool nanosleep();
  bool cacheControl(); // prefetch, prefetchu, applypriority, discard
  bool isspacep();
  bool createpolicy();
  bool stack();  // alloca, stacksave, stackrestore
  bool mov128(); // mov.b128 packing, unpacking and copies
  // A .b128 operand (a register) as its two 64-bit halves; nothing when it is not one.
  std::optional<std::pair<OOp, OOp>> halves128(const Operand &o);
  bool access128(bool isLoad); // ld/st .b128 (weak) as two 64-bit accesses
  bool vote();                 // vote, activemask
  bool surface();              // lower_surface.cpp: suld.b, sust.b
  bool texture();              // tex
  bool asyncCopy();            // cp.async, its commit_group, wait_group, wait_all
  // lower_warp.cpp
  bool shfl();
  bool match();
  bool redux();
  bool bar();            // bar, barrier
  bool elect();          // elect.sync
  bool gridDepControl(); // griddepcontrol
  bool setMaxNReg();     // setmaxnreg
  // lower_matrix.cpp
  bool hasSync() const; // .sync and .aligned
  bool mma();
  bool ldmatrix(); // ldmatrix, stmatrix
  bool movmatrix();
  bool wmma(); // lower_wmma.cpp: wmma.load, wmma.store, wmma.mma
  bool wmmaMma(const WmmaMods &mm);
  bool wmmaLoadStore(const WmmaMods &mm);
  bool bra();
  bool brx();
  bool retExit();
  bool trap();
  bool call();
};

} // namespace ori::ptx::lowering
