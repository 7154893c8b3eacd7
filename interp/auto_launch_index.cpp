// Index expressions of automatic launches (interp/auto_launch_index.h).
//
// Each register's value gets a linear form `var? + scale * slot? + disp` (a module variable's
// address, a parameter slot read from constant bank 0, constants), to a fixed point over the
// kernel: MOV of a constant, a slot, a variable's address or a register; IADD3 of forms (at
// most one variable; one slot, or the same slot twice); IMAD/IMAD.WIDE of a form by a constant
// plus a form; SHL and LEA by constants. Any other definition, or two definitions with
// different forms, make the register unknown. A memory operand [R + imm] or [sym + R + imm]
// whose form has a variable and a slot with a positive scale is an IndexUse.
#include "interp/auto_launch_index.h"

#include <map>
#include <optional>
#include <set>

namespace ori::auto_detail {
namespace {

struct Form {
  const Variable *var = nullptr;
  int64_t slot = -1; // bank-0 offset of the parameter slot, or -1
  int64_t scale = 0, disp = 0;
  bool unknown = false;
  friend bool operator==(const Form &, const Form &) = default;
};

Form unknownForm() {
  Form f;
  f.unknown = true;
  return f;
}

Form add(const Form &a, const Form &b, bool negB) {
  if (a.unknown || b.unknown)
    return unknownForm();
  if (negB && b.var)
    return unknownForm();
  Form r = a;
  if (b.var) {
    if (r.var)
      return unknownForm();
    r.var = b.var;
  }
  int64_t bs = negB ? -b.scale : b.scale;
  if (b.slot >= 0) {
    if (r.slot >= 0 && r.slot != b.slot)
      return unknownForm();
    r.slot = b.slot;
    r.scale += bs;
  }
  r.disp += negB ? -b.disp : b.disp;
  return r;
}

bool isConst(const Form &f) { return !f.unknown && !f.var && f.slot < 0; }

Form times(const Form &f, int64_t k) {
  if (f.unknown || f.var)
    return unknownForm();
  Form r = f;
  r.scale *= k;
  r.disp *= k;
  return r;
}

class IndexFlow {
public:
  IndexFlow(const Module &m, const Function &f) : m_(m), f_(f) {
    for (int round = 0; round < 16; ++round) {
      bool changed = false;
      for (const Block &b : f.blocks)
        for (const Instr &in : b.instrs) {
          if (in.dsts.empty() || in.dsts[0].kind != Operand::Kind::Reg ||
              !in.dsts[0].reg.isGeneral() || in.dsts[0].reg.isConst())
            continue;
          std::optional<Form> v = eval(in);
          if (!v)
            continue; // a source not known yet
          for (size_t k = 0; k < in.dsts.size(); ++k) {
            if (in.dsts[k].kind != Operand::Kind::Reg || in.dsts[k].reg.isConst())
              continue;
            Form nv = k == 0 ? *v : unknownForm();
            auto [it, fresh] = forms_.emplace(in.dsts[k].reg, nv);
            if (!fresh && !(it->second == nv) && !it->second.unknown) {
              it->second = unknownForm();
              changed = true;
            }
            changed |= fresh;
          }
        }
      if (!changed)
        break;
    }
  }

  std::optional<Form> of(const Operand &o) const {
    switch (o.kind) {
    case Operand::Kind::Imm: {
      Form c;
      c.disp = o.imm;
      return c;
    }
    case Operand::Kind::Reg: {
      if (o.reg.isConst())
        return Form{};
      auto it = forms_.find(o.reg);
      if (it == forms_.end())
        return std::nullopt;
      Form r = it->second;
      if (o.neg)
        r = times(r, -1);
      return r;
    }
    case Operand::Kind::CBank:
      if (o.bank == 0 && !o.hasReg && o.imm >= 0) {
        Form s;
        s.slot = o.imm;
        s.scale = 1;
        return s;
      }
      return unknownForm();
    case Operand::Kind::Symbol: {
      const Variable *v = findVariable(m_, f_, o.sym);
      if (!v || (v->space != Space::Global && v->space != Space::Const))
        return unknownForm();
      Form a;
      a.var = v;
      return a;
    }
    default:
      return unknownForm();
    }
  }

private:
  std::optional<Form> eval(const Instr &in) const {
    auto src = [&](size_t k) -> std::optional<Form> {
      return k < in.srcs.size() ? of(in.srcs[k]) : std::optional<Form>(Form{});
    };
    switch (in.op) {
    case Opcode::MOV:
    case Opcode::LDC:
      if (in.op == Opcode::LDC && !(in.srcs.size() == 1 && in.srcs[0].kind == Operand::Kind::CBank))
        return unknownForm();
      return src(0);
    case Opcode::IADD3: {
      std::optional<Form> a = src(0), b = src(1), c = src(2);
      if (!a || !b || !c)
        return std::nullopt;
      Form a2 = *a; // `-a` was applied by of()
      return add(add(a2, *b, false), *c, false);
    }
    case Opcode::IMAD: {
      if (in.has(Mod::HI))
        return unknownForm();
      std::optional<Form> a = src(0), b = src(1), c = src(2);
      if (!a || !b || !c)
        return std::nullopt;
      Form p = isConst(*b) ? times(*a, b->disp) : isConst(*a) ? times(*b, a->disp) : unknownForm();
      return add(p, *c, false);
    }
    case Opcode::SHL: {
      std::optional<Form> a = src(0), b = src(1);
      if (!a || !b)
        return std::nullopt;
      if (!isConst(*b) || b->disp < 0 || b->disp > 30)
        return unknownForm();
      return times(*a, int64_t(1) << b->disp);
    }
    case Opcode::LEA: {
      std::optional<Form> a = src(0), b = src(1), s = src(2);
      if (!a || !b || !s)
        return std::nullopt;
      if (!isConst(*s) || s->disp < 0 || s->disp > 30)
        return unknownForm();
      return add(times(*a, int64_t(1) << s->disp), *b, false);
    }
    default:
      return unknownForm();
    }
  }

  const Module &m_;
  const Function &f_;
  std::map<Reg, Form> forms_;
};

} // namespace

unsigned accessWidth(const Instr &in) {
  if (in.has(Mod::W64))
    return 8;
  if (in.has(Mod::U8) || in.has(Mod::S8))
    return 1;
  if (in.has(Mod::U16) || in.has(Mod::S16))
    return 2;
  return 4;
}

std::vector<IndexUse> indexUses(const Module &m, const Function &kernel) {
  IndexFlow flow(m, kernel);
  // Registers whose value is compared: ISETP sources, and what MOV copies into them.
  std::set<Reg> compared;
  for (const Block &b : kernel.blocks)
    for (const Instr &in : b.instrs)
      if (in.op == Opcode::ISETP)
        for (size_t k = 0; k < 2 && k < in.srcs.size(); ++k)
          if (in.srcs[k].kind == Operand::Kind::Reg)
            compared.insert(in.srcs[k].reg);
  for (bool changed = true; changed;) {
    changed = false;
    for (const Block &b : kernel.blocks)
      for (const Instr &in : b.instrs)
        if (in.op == Opcode::MOV && !in.dsts.empty() && !in.srcs.empty() &&
            in.srcs[0].kind == Operand::Kind::Reg && in.dsts[0].kind == Operand::Kind::Reg &&
            compared.count(in.dsts[0].reg))
          changed |= compared.insert(in.srcs[0].reg).second;
  }
  std::vector<IndexUse> out;
  for (const Block &b : kernel.blocks)
    for (const Instr &in : b.instrs) {
      if (!(in.info().flags & MEMORY) || in.srcs.empty())
        continue;
      const Operand &a = in.srcs[0];
      if (a.kind != Operand::Kind::Mem || !a.hasReg)
        continue;
      std::optional<Form> f = flow.of(Operand::reg_(a.reg));
      if (!f || f->unknown)
        continue;
      Form full = *f;
      if (!a.sym.empty())
        full = add(full, flow.of(Operand::symbol(a.sym)).value_or(unknownForm()), false);
      if (full.unknown || !full.var || full.slot < 0 || full.scale <= 0)
        continue;
      IndexUse u;
      u.var = full.var;
      u.paramOffset = uint64_t(full.slot);
      u.scale = full.scale;
      u.disp = full.disp + a.imm;
      u.width = isAtomic(in.op) ? atomicBytes(in.mods) : accessWidth(in);
      bool isLoad = in.op == Opcode::LD || in.op == Opcode::LDG;
      u.bound = isLoad && !in.dsts.empty() && in.dsts[0].kind == Operand::Kind::Reg &&
                compared.count(in.dsts[0].reg);
      out.push_back(u);
    }
  return out;
}

} // namespace ori::auto_detail

// ---------------------------------------------------------------- polynomial forms (PolyFlow)

namespace ori::auto_detail {
namespace {

constexpr int64_t kMaxCoef = int64_t(1) << 40; // larger coefficients: unknown
constexpr size_t kMaxTerms = 12;

// a * b, or nullopt past kMaxCoef.
std::optional<int64_t> mul(int64_t a, int64_t b) {
  __int128 r = __int128(a) * b;
  if (r > kMaxCoef || r < -kMaxCoef)
    return std::nullopt;
  return int64_t(r);
}

Poly unknownPoly() {
  Poly p;
  p.unknown = true;
  return p;
}

// p stays known only with few, small terms.
Poly checked(Poly p) {
  if (p.unknown)
    return p;
  std::erase_if(p.terms, [](const auto &kv) { return kv.second == 0; });
  if (p.terms.size() > kMaxTerms || p.disp > kMaxCoef || p.disp < -kMaxCoef)
    return unknownPoly();
  for (const auto &kv : p.terms)
    if (kv.second > kMaxCoef || kv.second < -kMaxCoef)
      return unknownPoly();
  return p;
}

Poly plus(const Poly &a, const Poly &b) {
  if (a.unknown || b.unknown || (a.var && b.var))
    return unknownPoly();
  Poly r = a;
  if (b.var)
    r.var = b.var;
  for (const auto &[k, c] : b.terms)
    r.terms[k] += c;
  r.disp += b.disp;
  return checked(std::move(r));
}

Poly scaled(const Poly &a, int64_t k) {
  if (a.unknown || (a.var && k != 1))
    return unknownPoly();
  Poly r = a;
  for (auto &kv : r.terms) {
    auto v = mul(kv.second, k);
    if (!v)
      return unknownPoly();
    kv.second = *v;
  }
  auto d = mul(r.disp, k);
  if (!d)
    return unknownPoly();
  r.disp = *d;
  return checked(std::move(r));
}

bool isConstant(const Poly &p) { return !p.unknown && !p.var && p.terms.empty(); }

Poly product(const Poly &a, const Poly &b) {
  if (a.unknown || b.unknown || a.var || b.var)
    return unknownPoly();
  if (isConstant(a))
    return scaled(b, a.disp);
  if (isConstant(b))
    return scaled(a, b.disp);
  Poly r;
  for (const auto &[ka, ca] : a.terms) {
    if (ka.second != kNoAtom)
      return unknownPoly();
    for (const auto &[kb, cb] : b.terms) {
      if (kb.second != kNoAtom)
        return unknownPoly();
      auto c = mul(ca, cb);
      if (!c)
        return unknownPoly();
      r.terms[{std::min(ka.first, kb.first), std::max(ka.first, kb.first)}] += *c;
    }
  }
  Poly da = scaled(a, b.disp), db = scaled(b, a.disp);
  Poly s = plus(r, da);
  s = plus(s, db);
  if (s.unknown)
    return s;
  auto dd = mul(a.disp, b.disp);
  if (!dd)
    return unknownPoly();
  s.disp -= *dd; // a.disp * b.disp was added twice (in da and db)
  return checked(std::move(s));
}

} // namespace

PolyFlow::PolyFlow(const Module &m, const Function &f) : m_(m), f_(f) {
  for (int round = 0; round < 16; ++round) {
    bool changed = false;
    for (const Block &b : f.blocks)
      for (const Instr &in : b.instrs) {
        if (in.dsts.empty())
          continue;
        std::optional<Poly> v = eval(in);
        if (!v)
          continue; // a source not known yet
        for (size_t k = 0; k < in.dsts.size(); ++k) {
          if (in.dsts[k].kind != Operand::Kind::Reg || in.dsts[k].reg.isConst() ||
              !in.dsts[k].reg.isGeneral())
            continue;
          Poly nv = k == 0 && !in.isGuarded() ? *v : unknownPoly();
          auto [it, fresh] = forms_.emplace(in.dsts[k].reg, nv);
          if (!fresh && !(it->second == nv) && !it->second.unknown) {
            it->second = unknownPoly();
            changed = true;
          }
          changed |= fresh;
        }
      }
    if (!changed)
      break;
  }
}

std::optional<Poly> PolyFlow::of(const Operand &o) const {
  std::optional<Poly> r;
  switch (o.kind) {
  case Operand::Kind::Imm: {
    Poly c;
    c.disp = o.imm;
    r = checked(c);
    break;
  }
  case Operand::Kind::Reg: {
    if (o.reg.isConst())
      return Poly{};
    auto it = forms_.find(o.reg);
    if (it == forms_.end() || it->second.unknown)
      return std::nullopt;
    r = o.neg ? scaled(it->second, -1) : it->second;
    break;
  }
  case Operand::Kind::CBank:
    if (o.bank == 0 && !o.hasReg && o.imm >= 0) {
      Poly s;
      s.terms[{o.imm, kNoAtom}] = 1;
      r = s;
    }
    break;
  case Operand::Kind::SReg:
    switch (o.sreg) {
    case SpecialReg::TID_X:
    case SpecialReg::TID_Y:
    case SpecialReg::TID_Z:
    case SpecialReg::CTAID_X:
    case SpecialReg::CTAID_Y:
    case SpecialReg::CTAID_Z:
    case SpecialReg::NTID_X:
    case SpecialReg::NTID_Y:
    case SpecialReg::NTID_Z:
    case SpecialReg::NCTAID_X:
    case SpecialReg::NCTAID_Y:
    case SpecialReg::NCTAID_Z:
    case SpecialReg::LANEID: {
      Poly s;
      s.terms[{sregAtom(o.sreg), kNoAtom}] = 1;
      r = s;
      break;
    }
    default:
      break;
    }
    break;
  case Operand::Kind::Symbol: {
    const Variable *v = findVariable(m_, f_, o.sym);
    if (v && (v->space == Space::Global || v->space == Space::Const)) {
      Poly a;
      a.var = v;
      r = a;
    }
    break;
  }
  default:
    break;
  }
  if (!r || r->unknown)
    return std::nullopt;
  return r;
}

std::optional<Poly> PolyFlow::address(const Operand &a) const {
  if (a.kind != Operand::Kind::Mem)
    return std::nullopt;
  Poly p;
  p.disp = a.imm;
  if (a.hasReg) {
    std::optional<Poly> r = of(Operand::reg_(a.reg));
    if (!r)
      return std::nullopt;
    p = plus(p, *r);
  }
  if (!a.sym.empty()) {
    std::optional<Poly> s = of(Operand::symbol(a.sym));
    if (!s)
      return std::nullopt;
    p = plus(p, *s);
  }
  if (p.unknown)
    return std::nullopt;
  return p;
}

std::optional<Poly> PolyFlow::eval(const Instr &in) const {
  // nullopt: a source not known yet (no definition seen); unknownPoly(): not a Poly.
  bool pending = false;
  auto src = [&](size_t k) -> Poly {
    if (k >= in.srcs.size())
      return Poly{};
    const Operand &o = in.srcs[k];
    if (o.kind == Operand::Kind::Reg && !o.reg.isConst() && !forms_.count(o.reg)) {
      pending = true;
      return unknownPoly();
    }
    return of(o).value_or(unknownPoly());
  };
  Poly r = unknownPoly();
  switch (in.op) {
  case Opcode::MOV:
  case Opcode::S2R:
    r = src(0);
    break;
  case Opcode::LDC:
    if (in.srcs.size() == 1 && in.srcs[0].kind == Operand::Kind::CBank)
      r = src(0);
    break;
  case Opcode::IADD3:
    r = plus(plus(src(0), src(1)), src(2));
    break;
  case Opcode::IMAD:
    if (!in.has(Mod::HI))
      r = plus(product(src(0), src(1)), src(2));
    break;
  case Opcode::SHL: {
    Poly a = src(0), b = src(1);
    if (isConstant(b) && b.disp >= 0 && b.disp <= 30)
      r = scaled(a, int64_t(1) << b.disp);
    break;
  }
  case Opcode::LEA: {
    Poly a = src(0), b = src(1), s = src(2);
    if (!in.has(Mod::HI) && isConstant(s) && s.disp >= 0 && s.disp <= 30)
      r = plus(scaled(a, int64_t(1) << s.disp), b);
    break;
  }
  case Opcode::LOP3: {
    // not a: truth table bit 4 (a=1, b=c=0) clear and bit 0 (a=b=c=0) set, b and c zero.
    Poly a = src(0);
    const bool zeroBC = in.srcs.size() == 4 && isConstant(src(1)) && src(1).disp == 0 &&
                        isConstant(src(2)) && src(2).disp == 0 &&
                        in.srcs[3].kind == Operand::Kind::Imm;
    if (zeroBC && (in.srcs[3].imm & 0x11) == 0x01)
      r = plus(scaled(a, -1), checked(Poly{nullptr, {}, -1, false}));
    break;
  }
  default:
    break;
  }
  if (pending)
    return std::nullopt;
  return r;
}

std::optional<std::pair<int64_t, int64_t>>
polyRange(const Poly &p,
          const std::function<std::optional<std::pair<int64_t, int64_t>>(int64_t)> &range) {
  if (p.unknown)
    return std::nullopt;
  constexpr int64_t kLimit = int64_t(1) << 62;
  __int128 lo = p.disp, hi = p.disp;
  for (const auto &[k, c] : p.terms) {
    auto a = range(k.first);
    if (!a)
      return std::nullopt;
    __int128 tlo = a->first, thi = a->second;
    if (k.second != kNoAtom) {
      auto b = range(k.second);
      if (!b)
        return std::nullopt;
      __int128 v[4] = {tlo * b->first, tlo * b->second, thi * b->first, thi * b->second};
      tlo = std::min({v[0], v[1], v[2], v[3]});
      thi = std::max({v[0], v[1], v[2], v[3]});
    }
    __int128 x = tlo * c, y = thi * c;
    lo += std::min(x, y);
    hi += std::max(x, y);
    if (lo < -kLimit || hi > kLimit)
      return std::nullopt;
  }
  return std::pair<int64_t, int64_t>{int64_t(lo), int64_t(hi)};
}

std::optional<std::pair<int64_t, int64_t>> sregRange(int64_t atom, const Dim3 &threads,
                                                     const Dim3 &ctas) {
  if (atom >= 0)
    return std::nullopt;
  const uint32_t t[3] = {threads.x, threads.y, threads.z}, c[3] = {ctas.x, ctas.y, ctas.z};
  switch (SpecialReg(-1 - atom)) {
  case SpecialReg::TID_X:
    return std::pair<int64_t, int64_t>{0, int64_t(t[0]) - 1};
  case SpecialReg::TID_Y:
    return std::pair<int64_t, int64_t>{0, int64_t(t[1]) - 1};
  case SpecialReg::TID_Z:
    return std::pair<int64_t, int64_t>{0, int64_t(t[2]) - 1};
  case SpecialReg::CTAID_X:
    return std::pair<int64_t, int64_t>{0, int64_t(c[0]) - 1};
  case SpecialReg::CTAID_Y:
    return std::pair<int64_t, int64_t>{0, int64_t(c[1]) - 1};
  case SpecialReg::CTAID_Z:
    return std::pair<int64_t, int64_t>{0, int64_t(c[2]) - 1};
  case SpecialReg::NTID_X:
    return std::pair<int64_t, int64_t>{t[0], t[0]};
  case SpecialReg::NTID_Y:
    return std::pair<int64_t, int64_t>{t[1], t[1]};
  case SpecialReg::NTID_Z:
    return std::pair<int64_t, int64_t>{t[2], t[2]};
  case SpecialReg::NCTAID_X:
    return std::pair<int64_t, int64_t>{c[0], c[0]};
  case SpecialReg::NCTAID_Y:
    return std::pair<int64_t, int64_t>{c[1], c[1]};
  case SpecialReg::NCTAID_Z:
    return std::pair<int64_t, int64_t>{c[2], c[2]};
  case SpecialReg::LANEID:
    return std::pair<int64_t, int64_t>{0, 31};
  default:
    return std::nullopt;
  }
}

} // namespace ori::auto_detail
