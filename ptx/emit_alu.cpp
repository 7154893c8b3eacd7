// Ori -> PTX: integer opcodes (emit_impl.h). Each emits the
// interpreter's meaning (interp/interp_alu.cpp, docs/interpreter.md):
//   MOV -> mov; IADD3 -> add/sub/neg; SEL -> selp; IMAD -> mad.lo/.wide/.hi;
//   LOP3 -> lop3.b32 (64-bit: two halves); SHL/SHR -> shl/shr (PTX clamps the
//   amount at the width, like the interpreter); SHF -> shf.l/shf.r.clamp or a
//   64-bit shift; IMNMX -> min/max (+ selp); LEA -> shl + add; S2R -> special
//   registers. ISETP and PLOP3: ptx/emit_predicate.cpp.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <map>

#include "ir/ori.h"
#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {
namespace {

unsigned width(const Instr &in) { return in.has(Mod::W64) ? 64 : 32; }

bool isConstReg(const Operand &o) { return o.kind == Operand::Kind::Reg && o.reg.isConst(); }

std::string lower(std::string_view s) {
  std::string r(s);
  for (char &c : r)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

} // namespace

int64_t immOf(const Instr &in, size_t i) {
  if (i >= in.srcs.size() || in.srcs[i].kind != Operand::Kind::Imm)
    fail(in.loc, fmt::format("{}: operand {} must be an integer immediate", in.info().name, i + 1));
  return in.srcs[i].imm;
}

// Integer type of SHR/SHF/IMNMX/ISETP: {bits, signed}.
std::pair<unsigned, bool> intType(const Instr &in, bool defaultSigned) {
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

std::string typeName(std::pair<unsigned, bool> t) {
  return fmt::format("{}{}", t.second ? "s" : "u", t.first);
}

// ------------------------------------------------------------------ integer

std::string FnEmitter::bitwise3(uint32_t lut, const std::string &a, const std::string &b,
                                const std::string &c, unsigned w) {
  std::string ones = immText(~uint64_t(0), w);
  if (ctx.sm >= 50 && w == 32) {
    ctx.require(4, 3);
    std::string t = temp(32);
    emit(fmt::format("lop3.b32 {}, {}, {}, {}, 0x{:x};", t, a, b, c, lut));
    return t;
  }
  auto op2 = [&](const char *op, const std::string &x, const std::string &y) {
    std::string t = temp(w);
    emit(fmt::format("{}.b{} {}, {}, {};", op, w, t, x, y));
    return t;
  };
  auto notOf = [&](const std::string &x) {
    std::string t = temp(w);
    emit(fmt::format("not.b{} {}, {};", w, t, x));
    return t;
  };
  // g(x, y) for a 2-input table (bit x<<1|y).
  auto fn2 = [&](uint32_t t4, const std::string &x, const std::string &y) -> std::string {
    switch (t4 & 0xF) {
    case 0x0:
      return "0";
    case 0xF:
      return ones;
    case 0xC:
      return x;
    case 0xA:
      return y;
    case 0x3:
      return notOf(x);
    case 0x5:
      return notOf(y);
    case 0x8:
      return op2("and", x, y);
    case 0xE:
      return op2("or", x, y);
    case 0x6:
      return op2("xor", x, y);
    case 0x9:
      return notOf(op2("xor", x, y));
    case 0x7:
      return notOf(op2("and", x, y));
    case 0x1:
      return notOf(op2("or", x, y));
    case 0x4:
      return op2("and", x, notOf(y));
    case 0x2:
      return op2("and", notOf(x), y);
    case 0xD:
      return op2("or", x, notOf(y));
    default:
      return op2("or", notOf(x), y); // 0xB
    }
  };
  // Shannon expansion on a: F = a ? F1(b, c) : F0(b, c).
  uint32_t f0 = lut & 0xF, f1 = (lut >> 4) & 0xF;
  if (f0 == f1)
    return fn2(f0, b, c);
  if (f0 == 0)
    return op2("and", a, fn2(f1, b, c));
  // Each temporary is made in its own statement: arguments of one call are
  // evaluated in an order the compiler chooses, and the names must not depend on it.
  if (f1 == 0) {
    std::string g = fn2(f0, b, c);
    return op2("and", notOf(a), g);
  }
  if (f0 == 0xF) {
    std::string g = fn2(f1, b, c);
    return op2("or", notOf(a), g);
  }
  if (f1 == 0xF)
    return op2("or", a, fn2(f0, b, c));
  std::string g0 = fn2(f0, b, c);
  if (f1 == (~f0 & 0xF))
    return op2("xor", a, g0);
  std::string g1 = fn2(f1, b, c);
  return op2("xor", g0, op2("and", a, op2("xor", g0, g1)));
}

// A LOP3 whose table, once its constant sources (RZ, 0, all ones) are put in,
// is a plain function of at most two sources prints as that PTX instruction:
// mov, not, and, or, xor. ptxas reads those best; it crashes on some lop3
// forms that mean the same (docs/spec-notes.md, "ptxas findings").
bool FnEmitter::emitPlainLogic(const Instr &in, uint32_t lut) {
  unsigned w = width(in);
  uint64_t ones = w == 64 ? ~uint64_t(0) : 0xFFFFFFFFull;
  // Per source: -1 varies, 0 all zeros, 1 all ones.
  int fixed[3];
  for (size_t i = 0; i < 3; ++i) {
    const Operand &o = in.srcs.at(i);
    fixed[i] = -1;
    if (isConstReg(o) && !o.neg)
      fixed[i] = 0;
    else if (o.kind == Operand::Kind::Imm) {
      uint64_t v = uint64_t(o.neg ? -o.imm : o.imm) & ones;
      if (v == 0)
        fixed[i] = 0;
      else if (v == ones)
        fixed[i] = 1;
    }
  }
  // The table as a function of the varying sources: row (a<<2 | b<<1 | c).
  auto at = [&](unsigned a, unsigned b, unsigned c) {
    unsigned v[3] = {a, b, c};
    for (int i = 0; i < 3; ++i)
      if (fixed[i] >= 0)
        v[i] = unsigned(fixed[i]);
    return (lut >> (v[0] << 2 | v[1] << 1 | v[2])) & 1;
  };
  std::vector<size_t> vars;
  for (size_t i = 0; i < 3; ++i) {
    if (fixed[i] >= 0)
      continue;
    bool matters = false;
    for (unsigned row = 0; row < 8; ++row) {
      unsigned bit = 4u >> i;
      if (row & bit)
        continue;
      matters |= at(row >> 2 & 1, row >> 1 & 1, row & 1) !=
                 at((row | bit) >> 2 & 1, (row | bit) >> 1 & 1, (row | bit) & 1);
    }
    if (matters)
      vars.push_back(i);
  }
  if (vars.size() > 2)
    return false;
  // f over (x, y) = the varying sources in order: bit (x<<1 | y).
  unsigned f = 0;
  for (unsigned x = 0; x < 2; ++x)
    for (unsigned y = 0; y < 2; ++y) {
      unsigned v[3] = {0, 0, 0};
      if (!vars.empty())
        v[vars[0]] = vars.size() == 2 ? x : y;
      if (vars.size() == 2)
        v[vars[1]] = y;
      f |= at(v[0], v[1], v[2]) << (x << 1 | y);
    }
  const char *name = nullptr;
  if (vars.size() == 1 && f == 0x5)
    name = "not";
  if (vars.size() == 2)
    name = f == 0x8 ? "and" : f == 0xE ? "or" : f == 0x6 ? "xor" : nullptr;
  bool copy = vars.empty() || (vars.size() == 1 && f == 0xA);
  if (!copy && !name)
    return false;
  if (vars.size() == 2 && in.srcs[vars[0]].kind == Operand::Kind::Imm) {
    if (in.srcs[vars[1]].kind == Operand::Kind::Imm)
      return false;
    std::swap(vars[0], vars[1]); // PTX takes a register first; the three functions commute
  }
  // A constant-bank source the function does not depend on is still read: a misaligned
  // one faults in the interpreter, and the emitted code must too.
  for (size_t i = 0; i < 3; ++i)
    if (in.srcs[i].kind == Operand::Kind::CBank &&
        std::find(vars.begin(), vars.end(), i) == vars.end())
      intSrc(in, i, w);
  std::vector<std::string> args;
  if (vars.empty())
    args.push_back(immText(f & 1 ? ones : 0, w));
  for (size_t v : vars)
    args.push_back(intSrc(in, v, w));
  std::string d = intDst(in, 0, w);
  emit(fmt::format("{}.b{} {}, {};", copy ? "mov" : name, w, d, fmt::join(args, ", ")));
  return true;
}

bool FnEmitter::emitInteger(const Instr &in) {
  switch (in.op) {
  case Opcode::MOV: {
    if (!in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Symbol) {
      // The address of a variable (in its state space) or of a function.
      const std::string &sym = in.srcs[0].sym;
      if (!isPtxIdent(sym))
        fail(in.loc, fmt::format("'{}' is not a PTX identifier", sym));
      if (const Function *g = m.findFunction(sym); g && g->isEntry && !findVariable(m, f, sym))
        fail(in.loc,
             fmt::format("{}: PTX cannot take the address of kernel '{}'", printInstr(f, in), sym));
      // A 32-bit MOV of a .shared variable into a 32-bit register: its offset in the shared
      // window, as nvcc writes `mov.u32 %r13, __smem;` (which lowers to this MOV again).
      const Variable *v = findVariable(m, f, sym);
      const Operand &d0 = in.dsts.empty() ? Operand() : in.dsts[0];
      if (!in.has(Mod::W64) && v && v->space == Space::Shared && d0.kind == Operand::Kind::Reg &&
          !d0.reg.isConst() && d0.reg.isGeneral() && regBits(d0.reg) == 32) {
        emit(fmt::format("mov.u32 {}, {};", intDst(in, 0, 32), sym));
        return true;
      }
      std::string d = intDst(in, 0, 64);
      emit(fmt::format("mov.u64 {}, {};", d, sym));
      return true;
    }
    unsigned w = width(in);
    if (!in.srcs.empty() && in.srcs[0].kind == Operand::Kind::CBank && !in.srcs[0].neg) {
      cbank(in, in.srcs[0], w / 8, fmt::format("b{}", w), w, intDst(in, 0, w));
      return true;
    }
    // The low half of a 64-bit register, or a 16-bit register: cvt straight into the
    // destination (PTX cvt.u32.u64 / cvt.u32.u16, which lower to this MOV again), not through
    // a temporary.
    const Operand &s0 = in.srcs.empty() ? Operand() : in.srcs[0];
    if (w == 32 && s0.kind == Operand::Kind::Reg && !s0.neg && !s0.abs && !s0.reg.isConst() &&
        s0.reg.isGeneral() && (regBits(s0.reg) == 64 || regBits(s0.reg) == 16)) {
      emit(fmt::format("cvt.u32.u{} {}, {};", regBits(s0.reg), intDst(in, 0, 32), regName(s0.reg)));
      return true;
    }
    // Into a 16-bit register, a 16-bit register or an immediate that fits: mov.b16 (as read)
    const Operand &d0 = in.dsts.empty() ? Operand() : in.dsts[0];
    if (w == 32 && d0.kind == Operand::Kind::Reg && !d0.reg.isConst() && d0.reg.isGeneral() &&
        regBits(d0.reg) == 16 &&
        ((s0.kind == Operand::Kind::Imm && !s0.neg && s0.imm >= 0 && s0.imm <= 0xffff) ||
         (s0.kind == Operand::Kind::Reg && !s0.neg && !s0.reg.isConst() && s0.reg.isGeneral() &&
          regBits(s0.reg) == 16))) {
      emit(fmt::format("mov.b16 {}, {};", regName(d0.reg), intSrc(in, 0, 16)));
      return true;
    }
    std::string a = intSrc(in, 0, w);
    emit(fmt::format("mov.b{} {}, {};", w, intDst(in, 0, w), a));
    return true;
  }
  case Opcode::IADD3: {
    if (cvtaJoin_) { // cvtaJoinsNext checked the form
      std::string a = intSrc(in, 0, 64);
      emit(fmt::format("{} {}, {};", *cvtaJoin_, intDst(in, 0, 64), a));
      cvtaJoin_.reset();
      return true;
    }
    unsigned w = width(in);
    struct Term {
      std::string text;
      bool neg;
    };
    std::vector<Term> pos, neg;
    uint64_t k = 0;
    bool hasImm = false;
    for (size_t i = 0; i < 3; ++i) {
      if (i >= in.srcs.size())
        fail(in.loc, "IADD3 needs three sources");
      const Operand &o = in.srcs[i];
      if (o.kind == Operand::Kind::Imm) {
        k += o.neg ? 0 - uint64_t(o.imm) : uint64_t(o.imm);
        hasImm = true;
        continue;
      }
      if (isConstReg(o))
        continue;
      Instr plain = in; // read the operand without its negation; the sum applies it
      plain.srcs[i].neg = false;
      Term t{intSrc(plain, i, w), o.neg};
      (o.neg ? neg : pos).push_back(std::move(t));
    }
    const int64_t held = int64_t(k); // the sum as written (-1 stays -1: immTextAsHeld)
    if (w < 64)
      k &= (uint64_t(1) << w) - 1;
    std::vector<Term> terms = pos;
    // a + 0 stays an add (it is how `add d, a, 0` lowers), not a mov
    if (k != 0 || (hasImm && pos.size() + neg.size() == 1))
      terms.push_back({immTextAsHeld(held, w), false});
    terms.insert(terms.end(), neg.begin(), neg.end());
    std::string d = intDst(in, 0, w);
    if (terms.empty()) {
      emit(fmt::format("mov.b{} {}, 0;", w, d));
    } else if (terms.size() == 1) {
      emit(terms[0].neg ? fmt::format("neg.s{} {}, {};", w, d, terms[0].text)
                        : fmt::format("mov.b{} {}, {};", w, d, terms[0].text));
    } else {
      std::string acc = terms[0].text;
      if (terms[0].neg) { // every term is negated: -(a) - b ...
        std::string t = temp(w);
        emit(fmt::format("neg.s{} {}, {};", w, t, acc));
        acc = t;
      }
      for (size_t j = 1; j < terms.size(); ++j) {
        std::string to = j + 1 == terms.size() ? d : temp(w);
        emit(fmt::format("{}.s{} {}, {}, {};", terms[j].neg ? "sub" : "add", w, to, acc,
                         terms[j].text));
        acc = to;
      }
    }
    return true;
  }
  case Opcode::SEL: {
    unsigned w = width(in);
    std::string a = intSrc(in, 0, w), b = intSrc(in, 1, w);
    Pred p = predSrc(in, 2);
    std::string d = intDst(in, 0, w);
    if (p.isConst)
      emit(fmt::format("mov.b{} {}, {};", w, d, p.value ? a : b));
    else
      emit(fmt::format("selp.b{} {}, {}, {}, {};", w, d, p.neg ? b : a, p.neg ? a : b, p.name));
    return true;
  }
  case Opcode::IMAD: {
    if (mul24Join_) { // mul24Starts checked the form
      Instr ab = in;  // the IMAD with the operands of the two SGXTs
      ab.srcs[0] = mul24Join_->a;
      ab.srcs[1] = mul24Join_->b;
      std::string a = intSrc(ab, 0, 32), b = intSrc(ab, 1, 32);
      const bool mad = mul24Join_->mnemonic.starts_with("mad");
      std::string c = mad ? intSrc(in, 2, 32) : "";
      std::string d = intDst(in, 0, 32);
      emit(mad ? fmt::format("{} {}, {}, {}, {};", mul24Join_->mnemonic, d, a, b, c)
               : fmt::format("{} {}, {}, {};", mul24Join_->mnemonic, d, a, b));
      mul24Join_.reset();
      return true;
    }
    // IMAD.WIDE.U32 d, a, 1, RZ of a 16-bit register: cvt.u64.u16 d, a (which lowers to it)
    if (in.has(Mod::WIDE) && in.has(Mod::U32) && in.srcs.size() == 3 &&
        in.srcs[0].kind == Operand::Kind::Reg && !in.srcs[0].neg && !in.srcs[0].reg.isConst() &&
        in.srcs[0].reg.isGeneral() && regBits(in.srcs[0].reg) == 16 &&
        in.srcs[1].kind == Operand::Kind::Imm && !in.srcs[1].neg && in.srcs[1].imm == 1 &&
        isConstReg(in.srcs[2]) && !in.srcs[2].neg) {
      emit(fmt::format("cvt.u64.u16 {}, {};", intDst(in, 0, 64), regName(in.srcs[0].reg)));
      return true;
    }
    std::string type = in.has(Mod::U32) ? "u32" : "s32";
    // The form, the widths of a*b and of c and d; a zero addend makes it mul.
    const char *form = in.has(Mod::WIDE) ? "wide" : in.has(Mod::HI) ? "hi" : "lo";
    unsigned ab = in.has(Mod::WIDE) || in.has(Mod::HI) ? 32 : width(in);
    unsigned cd = in.has(Mod::WIDE) ? 64 : in.has(Mod::HI) ? 32 : width(in);
    if (*form == 'l')
      type = fmt::format("s{}", ab);
    std::string a = intSrc(in, 0, ab, true), b = intSrc(in, 1, ab), c = intSrc(in, 2, cd);
    if (c == "0")
      emit(fmt::format("mul.{}.{} {}, {}, {};", form, type, intDst(in, 0, cd), a, b));
    else
      emit(fmt::format("mad.{}.{} {}, {}, {}, {};", form, type, intDst(in, 0, cd), a, b, c));
    return true;
  }
  case Opcode::LOP3: {
    int64_t lut = immOf(in, 3);
    if (lut < 0 || lut > 0xff)
      fail(in.loc, fmt::format("LOP3 truth table {} is not 8-bit", lut));
    if (emitPlainLogic(in, uint32_t(lut)))
      return true;
    if (!in.has(Mod::W64) && ctx.sm >= 50) {
      ctx.require(4, 3);
      std::string a = intSrc(in, 0, 32), b = intSrc(in, 1, 32), c = intSrc(in, 2, 32);
      emit(fmt::format("lop3.b32 {}, {}, {}, {}, 0x{:x};", intDst(in, 0, 32), a, b, c, lut));
      return true;
    }
    if (ctx.sm < 50) { // no lop3: and/or/xor/not on the whole width
      unsigned w = width(in);
      std::string a = intSrc(in, 0, w), b = intSrc(in, 1, w), c = intSrc(in, 2, w);
      std::string r = bitwise3(uint32_t(lut), a, b, c, w);
      emit(fmt::format("mov.b{} {}, {};", w, intDst(in, 0, w), r));
      return true;
    }
    // PTX has no lop3.b64: the same table on both 32-bit halves.
    std::string lo[3], hi[3];
    for (size_t i = 0; i < 3; ++i) {
      const Operand &o = in.srcs.at(i);
      if (o.kind == Operand::Kind::Imm && !o.neg) {
        lo[i] = immText(uint64_t(o.imm), 32);
        hi[i] = immText(uint64_t(o.imm) >> 32, 32);
      } else if (isConstReg(o) && !o.neg) {
        lo[i].assign(1, '0');
        hi[i] = lo[i];
      } else {
        std::string v = intSrc(in, i, 64, true);
        lo[i] = temp(32);
        hi[i] = temp(32);
        emit(fmt::format("mov.b64 {{{}, {}}}, {};", lo[i], hi[i], v));
      }
    }
    std::string rl = bitwise3(uint32_t(lut), lo[0], lo[1], lo[2], 32);
    std::string rh = bitwise3(uint32_t(lut), hi[0], hi[1], hi[2], 32);
    emit(fmt::format("mov.b64 {}, {{{}, {}}};", intDst(in, 0, 64), rl, rh));
    return true;
  }
  case Opcode::SHL: {
    unsigned w = width(in);
    std::string a = intSrc(in, 0, w, true), s = intSrc(in, 1, 32);
    emit(fmt::format("shl.b{} {}, {}, {};", w, intDst(in, 0, w), a, s));
    return true;
  }
  case Opcode::SHR: {
    if ((bfeJoin_ = bfeStarts(in)))
      return true; // the SGXT after prints the bfe
    auto t = intType(in, false);
    std::string a = intSrc(in, 0, t.first, true), s = intSrc(in, 1, 32);
    emit(fmt::format("shr.{} {}, {}, {};", typeName(t), intDst(in, 0, t.first), a, s));
    return true;
  }
  case Opcode::SHF: {
    auto dir = in.mods.inGroup(ModGroup::Dir);
    if (!dir)
      fail(in.loc, fmt::format("{}: SHF without .L or .R has no meaning", printInstr(f, in)));
    auto t = intType(in, false);
    bool hi = in.has(Mod::HI), left = *dir == Mod::L;
    std::string lo = intSrc(in, 0, 32, true), s = intSrc(in, 1, 32), h = intSrc(in, 2, 32, true);
    if (in.has(Mod::W)) {
      if (t.first == 32 && ctx.sm >= 32 && left == hi) { // PTX's own .wrap forms
        ctx.require(3, 1);
        emit(fmt::format("shf.{}.wrap.b32 {}, {}, {}, {};", left ? "l" : "r", intDst(in, 0, 32), lo,
                         h, s));
        return true;
      }
      // The amount modulo the width: the clamping forms below then shift by it unchanged.
      std::string n = temp(32);
      emit(fmt::format("and.b32 {}, {}, {};", n, s, t.first - 1));
      s = n;
    }
    if (t.first == 32 && ctx.sm < 32 && !(left && !hi) && !(!left && hi)) {
      // No shf before sm_32: the 64-bit shift by min(s, 32).
      std::string n = temp(32);
      emit(fmt::format("min.u32 {}, {}, 32;", n, s));
      s = n;
      t.first = 64;
      t.second = false; // the word kept does not depend on the fill for n <= 32
    }
    if (t.first == 32) { // n = min(s, 32): PTX's .clamp, and shl/shr clamp at 32 too
      std::string d = intDst(in, 0, 32);
      if (left == hi)
        ctx.require(3, 1);
      if (left && hi)
        emit(fmt::format("shf.l.clamp.b32 {}, {}, {}, {};", d, lo, h, s));
      else if (left)
        emit(fmt::format("shl.b32 {}, {}, {};", d, lo, s));
      else if (!hi)
        emit(fmt::format("shf.r.clamp.b32 {}, {}, {}, {};", d, lo, h, s));
      else
        emit(fmt::format("shr.{}32 {}, {}, {};", t.second ? "s" : "u", d, h, s));
      return true;
    }
    // .U64/.S64: a 64-bit shift of hi:lo (amounts >= 64 give 0 or the sign fill).
    std::string v = temp(64), r = temp(64), rl = temp(32), rh = temp(32);
    emit(fmt::format("mov.b64 {}, {{{}, {}}};", v, lo, h));
    if (left)
      emit(fmt::format("shl.b64 {}, {}, {};", r, v, s));
    else
      emit(fmt::format("shr.{}64 {}, {}, {};", t.second ? "s" : "u", r, v, s));
    emit(fmt::format("mov.b64 {{{}, {}}}, {};", rl, rh, r));
    emit(fmt::format("mov.b32 {}, {};", intDst(in, 0, 32), hi ? rh : rl));
    return true;
  }
  case Opcode::SGXT: { // bfe from bit 0: the same field, extended; the width clamped first
    if (mul24Join_) {  // the second SGXT of a mul24 join: the IMAD prints it
      --mul24Join_->pending;
      return true;
    }
    if ((mul24Join_ = mul24Starts(in)))
      return true;
    if (bfeJoin_) { // bfeStarts checked the form: bfe d, a, pos, len
      unsigned bits = in.has(Mod::W64) ? 64 : 32;
      Instr a = in; // the SGXT with the SHR's operands
      a.srcs[0] = bfeJoin_->a;
      std::string src = intSrc(a, 0, bits);
      emit(fmt::format("{} {}, {}, {}, {};", bfeJoin_->mnemonic, intDst(in, 0, bits), src,
                       bfeJoin_->b.imm, in.srcs[1].imm));
      bfeJoin_.reset();
      return true;
    }
    unsigned w = width(in);
    // SGXT d, a, 8 or 16 of 32-bit registers: cvt.s8.s32 / cvt.s16.s32 d, a (the low 8 or 16
    // bits, sign-extended to the register), which lowers to it again
    const Operand &a0 = in.srcs.empty() ? Operand() : in.srcs[0];
    const Operand &d0 = in.dsts.empty() ? Operand() : in.dsts[0];
    if (w == 32 && !in.has(Mod::U32) && in.srcs.size() == 2 &&
        in.srcs[1].kind == Operand::Kind::Imm && !in.srcs[1].neg &&
        (in.srcs[1].imm == 8 || in.srcs[1].imm == 16) && a0.kind == Operand::Kind::Reg && !a0.neg &&
        !a0.reg.isConst() && a0.reg.isGeneral() && regBits(a0.reg) == 32 &&
        d0.kind == Operand::Kind::Reg && !d0.reg.isConst() && d0.reg.isGeneral() &&
        regBits(d0.reg) == 32) {
      emit(fmt::format("cvt.s{}.s32 {}, {};", in.srcs[1].imm, regName(d0.reg), regName(a0.reg)));
      return true;
    }
    std::string a = intSrc(in, 0, w, true), b = intSrc(in, 1, 32), n = temp(32);
    emit(fmt::format("min.u32 {}, {}, {};", n, b, w));
    emit(fmt::format("bfe.{}{} {}, {}, 0, {};", in.has(Mod::U32) ? "u" : "s", w, intDst(in, 0, w),
                     a, n));
    return true;
  }
  case Opcode::PRMT: {
    auto mode = in.mods.inGroup(ModGroup::PrmtMode);
    std::string a = intSrc(in, 0, 32, true), sel = intSrc(in, 1, 32), b = intSrc(in, 2, 32, true);
    std::string m = mode ? fmt::format(".{}", lower(modText(*mode))) : "";
    emit(fmt::format("prmt.b32{} {}, {}, {}, {};", m, intDst(in, 0, 32), a, b, sel));
    return true;
  }
  case Opcode::POPC:
  case Opcode::BREV: {
    unsigned w = width(in);
    std::string a = intSrc(in, 0, w, true);
    bool popc = in.op == Opcode::POPC;
    emit(fmt::format("{}.b{} {}, {};", popc ? "popc" : "brev", w, intDst(in, 0, popc ? 32 : w), a));
    return true;
  }
  case Opcode::FLO: {
    auto t = intType(in, false);
    std::string a = intSrc(in, 0, t.first, true);
    emit(fmt::format("bfind{}.{} {}, {};", in.has(Mod::SH) ? ".shiftamt" : "", typeName(t),
                     intDst(in, 0, 32), a));
    return true;
  }
  case Opcode::IDIV:
  case Opcode::IREM: { // PTX's div/rem give ptxas's values for x/0 (docs/ptx.md)
    auto t = intType(in, false);
    std::string a = intSrc(in, 0, t.first, true), b = intSrc(in, 1, t.first);
    emit(fmt::format("{}.{} {}, {}, {};", in.op == Opcode::IDIV ? "div" : "rem", typeName(t),
                     intDst(in, 0, t.first), a, b));
    return true;
  }
  case Opcode::IMNMX: {
    auto t = intType(in, true);
    std::string a = intSrc(in, 0, t.first), b = intSrc(in, 1, t.first);
    Pred p = predSrc(in, 2);
    std::string ty = typeName(t);
    if (p.isConst) {
      emit(fmt::format("{}.{} {}, {}, {};", p.value ? "min" : "max", ty, intDst(in, 0, t.first), a,
                       b));
      return true;
    }
    std::string lo = temp(t.first), hi2 = temp(t.first);
    emit(fmt::format("min.{} {}, {}, {};", ty, lo, a, b));
    emit(fmt::format("max.{} {}, {}, {};", ty, hi2, a, b));
    emit(fmt::format("selp.b{} {}, {}, {}, {};", t.first, intDst(in, 0, t.first), p.neg ? hi2 : lo,
                     p.neg ? lo : hi2, p.name));
    return true;
  }
  case Opcode::LEA: {
    unsigned w = width(in);
    int64_t s = immOf(in, 2);
    std::string b = intSrc(in, 1, w);
    if (s < 0 || s >= int64_t(w) || isConstReg(in.srcs.at(0))) { // (a << s) is 0
      std::string v = b;
      emit(fmt::format("mov.b{} {}, {};", w, intDst(in, 0, w), v));
      return true;
    }
    std::string a = intSrc(in, 0, w, true);
    if (s == 0) {
      emit(fmt::format("add.s{} {}, {}, {};", w, intDst(in, 0, w), a, b));
      return true;
    }
    std::string t = temp(w);
    emit(fmt::format("shl.b{} {}, {}, {};", w, t, a, s));
    emit(fmt::format("add.s{} {}, {}, {};", w, intDst(in, 0, w), t, b));
    return true;
  }
  case Opcode::S2R: {
    if (in.srcs.empty() || in.srcs[0].kind != Operand::Kind::SReg)
      fail(in.loc, "S2R reads no special register");
    SpecialReg s = in.srcs[0].sreg;
    static constexpr std::pair<SpecialReg, const char *> kNames[] = {
        {SpecialReg::TID_X, "%tid.x"},
        {SpecialReg::TID_Y, "%tid.y"},
        {SpecialReg::TID_Z, "%tid.z"},
        {SpecialReg::CTAID_X, "%ctaid.x"},
        {SpecialReg::CTAID_Y, "%ctaid.y"},
        {SpecialReg::CTAID_Z, "%ctaid.z"},
        {SpecialReg::NTID_X, "%ntid.x"},
        {SpecialReg::NTID_Y, "%ntid.y"},
        {SpecialReg::NTID_Z, "%ntid.z"},
        {SpecialReg::NCTAID_X, "%nctaid.x"},
        {SpecialReg::NCTAID_Y, "%nctaid.y"},
        {SpecialReg::NCTAID_Z, "%nctaid.z"},
        {SpecialReg::LANEID, "%laneid"},
        {SpecialReg::NWARPID, "%nwarpid"},
        {SpecialReg::SMID, "%smid"},
        {SpecialReg::NSMID, "%nsmid"},
        {SpecialReg::CLOCKLO, "%clock"},
        {SpecialReg::CLOCKHI, "%clock_hi"},
        {SpecialReg::GLOBALTIMERLO, "%globaltimer_lo"},
        {SpecialReg::GLOBALTIMERHI, "%globaltimer_hi"},
        {SpecialReg::LANEMASK_EQ, "%lanemask_eq"},
        {SpecialReg::LANEMASK_LT, "%lanemask_lt"},
        {SpecialReg::LANEMASK_LE, "%lanemask_le"},
        {SpecialReg::LANEMASK_GT, "%lanemask_gt"},
        {SpecialReg::LANEMASK_GE, "%lanemask_ge"},
    };
    switch (s) {
    case SpecialReg::WARPID: { // the interpreter's (and a 1-D block's) warp index: tid.x / 32
      std::string t = temp(32);
      emit(fmt::format("mov.u32 {}, %tid.x;", t));
      emit(fmt::format("shr.u32 {}, {}, 5;", intDst(in, 0, 32), t));
      return true;
    }
    case SpecialReg::GRIDID: { // 64-bit in PTX; S2R keeps the low 32 bits
      std::string t = temp(64);
      emit(fmt::format("mov.u64 {}, %gridid;", t));
      emit(fmt::format("cvt.u32.u64 {}, {};", intDst(in, 0, 32), t));
      return true;
    }
    case SpecialReg::SWINBASE:
    case SpecialReg::LWINBASE:
    case SpecialReg::CWINBASE:
      if ((cvtaJoin_ = cvtaJoinsNext(in)))
        return true; // the IADD3 after prints the cvta
      // The generic address of the start of the shared / local / constant window.
      emit(fmt::format("cvta.{}.u64 {}, 0;",
                       s == SpecialReg::SWINBASE   ? "shared"
                       : s == SpecialReg::LWINBASE ? "local"
                                                   : "const",
                       intDst(in, 0, 64)));
      return true;
    default:
      for (auto [sr, name] : kNames)
        if (sr == s) {
          emit(fmt::format("mov.u32 {}, {};", intDst(in, 0, 32), name));
          return true;
        }
      fail(in.loc, fmt::format("{} has no PTX special register", specialRegName(s)));
    }
  }
  default:
    return emitIntegerMore(in);
  }
}

} // namespace ori::ptx::emit_detail
