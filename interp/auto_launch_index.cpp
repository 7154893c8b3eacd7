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
  const Variable* var = nullptr;
  int64_t slot = -1; // bank-0 offset of the parameter slot, or -1
  int64_t scale = 0, disp = 0;
  bool unknown = false;
  friend bool operator==(const Form&, const Form&) = default;
};

Form unknownForm() {
  Form f;
  f.unknown = true;
  return f;
}

Form add(const Form& a, const Form& b, bool negB) {
  if (a.unknown || b.unknown) return unknownForm();
  if (negB && b.var) return unknownForm();
  Form r = a;
  if (b.var) {
    if (r.var) return unknownForm();
    r.var = b.var;
  }
  int64_t bs = negB ? -b.scale : b.scale;
  if (b.slot >= 0) {
    if (r.slot >= 0 && r.slot != b.slot) return unknownForm();
    r.slot = b.slot;
    r.scale += bs;
  }
  r.disp += negB ? -b.disp : b.disp;
  return r;
}

bool isConst(const Form& f) { return !f.unknown && !f.var && f.slot < 0; }

Form times(const Form& f, int64_t k) {
  if (f.unknown || f.var) return unknownForm();
  Form r = f;
  r.scale *= k;
  r.disp *= k;
  return r;
}

class IndexFlow {
public:
  IndexFlow(const Module& m, const Function& f) : m_(m), f_(f) {
    for (int round = 0; round < 16; ++round) {
      bool changed = false;
      for (const Block& b : f.blocks)
        for (const Instr& in : b.instrs) {
          if (in.dsts.empty() || in.dsts[0].kind != Operand::Kind::Reg || !in.dsts[0].reg.isGeneral() ||
              in.dsts[0].reg.isConst())
            continue;
          std::optional<Form> v = eval(in);
          if (!v) continue; // a source not known yet
          for (size_t k = 0; k < in.dsts.size(); ++k) {
            if (in.dsts[k].kind != Operand::Kind::Reg || in.dsts[k].reg.isConst()) continue;
            Form nv = k == 0 ? *v : unknownForm();
            auto [it, fresh] = forms_.emplace(in.dsts[k].reg, nv);
            if (!fresh && !(it->second == nv) && !it->second.unknown) {
              it->second = unknownForm();
              changed = true;
            }
            changed |= fresh;
          }
        }
      if (!changed) break;
    }
  }

  std::optional<Form> of(const Operand& o) const {
    switch (o.kind) {
    case Operand::Kind::Imm: {
      Form c;
      c.disp = o.imm;
      return c;
    }
    case Operand::Kind::Reg: {
      if (o.reg.isConst()) return Form{};
      auto it = forms_.find(o.reg);
      if (it == forms_.end()) return std::nullopt;
      Form r = it->second;
      if (o.neg) r = times(r, -1);
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
      const Variable* v = findVariable(m_, f_, o.sym);
      if (!v || (v->space != Space::Global && v->space != Space::Const)) return unknownForm();
      Form a;
      a.var = v;
      return a;
    }
    default: return unknownForm();
    }
  }

private:
  std::optional<Form> eval(const Instr& in) const {
    auto src = [&](size_t k) -> std::optional<Form> { return k < in.srcs.size() ? of(in.srcs[k]) : std::optional<Form>(Form{}); };
    switch (in.op) {
    case Opcode::MOV: case Opcode::LDC:
      if (in.op == Opcode::LDC && !(in.srcs.size() == 1 && in.srcs[0].kind == Operand::Kind::CBank)) return unknownForm();
      return src(0);
    case Opcode::IADD3: {
      std::optional<Form> a = src(0), b = src(1), c = src(2);
      if (!a || !b || !c) return std::nullopt;
      Form a2 = *a; // `-a` was applied by of()
      return add(add(a2, *b, false), *c, false);
    }
    case Opcode::IMAD: {
      if (in.has(Mod::HI)) return unknownForm();
      std::optional<Form> a = src(0), b = src(1), c = src(2);
      if (!a || !b || !c) return std::nullopt;
      Form p = isConst(*b) ? times(*a, b->disp) : isConst(*a) ? times(*b, a->disp) : unknownForm();
      return add(p, *c, false);
    }
    case Opcode::SHL: {
      std::optional<Form> a = src(0), b = src(1);
      if (!a || !b) return std::nullopt;
      if (!isConst(*b) || b->disp < 0 || b->disp > 30) return unknownForm();
      return times(*a, int64_t(1) << b->disp);
    }
    case Opcode::LEA: {
      std::optional<Form> a = src(0), b = src(1), s = src(2);
      if (!a || !b || !s) return std::nullopt;
      if (!isConst(*s) || s->disp < 0 || s->disp > 30) return unknownForm();
      return add(times(*a, int64_t(1) << s->disp), *b, false);
    }
    default: return unknownForm();
    }
  }

  const Module& m_;
  const Function& f_;
  std::map<Reg, Form> forms_;
};

unsigned accessWidth(const Instr& in) {
  if (in.has(Mod::W64)) return 8;
  if (in.has(Mod::U8) || in.has(Mod::S8)) return 1;
  if (in.has(Mod::U16) || in.has(Mod::S16)) return 2;
  return 4;
}

} // namespace

std::vector<IndexUse> indexUses(const Module& m, const Function& kernel) {
  IndexFlow flow(m, kernel);
  // Registers whose value is compared: ISETP sources, and what MOV copies into them.
  std::set<Reg> compared;
  for (const Block& b : kernel.blocks)
    for (const Instr& in : b.instrs)
      if (in.op == Opcode::ISETP)
        for (size_t k = 0; k < 2 && k < in.srcs.size(); ++k)
          if (in.srcs[k].kind == Operand::Kind::Reg) compared.insert(in.srcs[k].reg);
  for (bool changed = true; changed;) {
    changed = false;
    for (const Block& b : kernel.blocks)
      for (const Instr& in : b.instrs)
        if (in.op == Opcode::MOV && !in.dsts.empty() && !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Reg &&
            in.dsts[0].kind == Operand::Kind::Reg && compared.count(in.dsts[0].reg))
          changed |= compared.insert(in.srcs[0].reg).second;
  }
  std::vector<IndexUse> out;
  for (const Block& b : kernel.blocks)
    for (const Instr& in : b.instrs) {
      if (!(in.info().flags & MEMORY) || in.srcs.empty()) continue;
      const Operand& a = in.srcs[0];
      if (a.kind != Operand::Kind::Mem || !a.hasReg) continue;
      std::optional<Form> f = flow.of(Operand::reg_(a.reg));
      if (!f || f->unknown) continue;
      Form full = *f;
      if (!a.sym.empty()) full = add(full, flow.of(Operand::symbol(a.sym)).value_or(unknownForm()), false);
      if (full.unknown || !full.var || full.slot < 0 || full.scale <= 0) continue;
      IndexUse u;
      u.var = full.var;
      u.paramOffset = uint64_t(full.slot);
      u.scale = full.scale;
      u.disp = full.disp + a.imm;
      u.width = in.op == Opcode::ATOM || in.op == Opcode::RED ? (in.has(Mod::W64) ? 8 : 4) : accessWidth(in);
      bool isLoad = in.op == Opcode::LD || in.op == Opcode::LDG;
      u.bound = isLoad && !in.dsts.empty() && in.dsts[0].kind == Operand::Kind::Reg && compared.count(in.dsts[0].reg);
      out.push_back(u);
    }
  return out;
}

} // namespace ori::auto_detail
