// Automatic launches, rule 6 (interp/auto_launch.h): products of integer counts in addresses,
// bounded so that the addresses stay inside their buffer or the shared window. The binding
// rules are in interp/auto_launch.h and docs/interpreter.md, "Automatic launches".
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "interp/auto_launch.h"
#include "interp/auto_launch_index.h"
#include "interp/interp_impl.h"

namespace ori::auto_detail {

void boundProducts(const Module &m, const Function &kernel, const AutoLaunchOptions &o,
                   std::vector<AutoBinding> &out, std::map<uint64_t, uint64_t> &chosen) {
  using auto_detail::kNoAtom;
  std::set<int64_t> buffers; // bank offsets of 8-byte pointer parameters bound to buffers
  for (size_t i = 0; i < kernel.params.size() && i < out.size(); ++i)
    if (out[i].kind == AutoBinding::Kind::Buffer)
      buffers.insert(int64_t(kernel.params[i].offset));
  if (buffers.empty() || chosen.size() < 1)
    return;
  struct Use {
    auto_detail::Poly offset; // from the buffer's start
    unsigned width;
  };
  std::vector<Use> uses;
  const auto_detail::PolyFlow flow(m, kernel);
  for (const Block &b : kernel.blocks)
    for (const Instr &in : b.instrs) {
      if (!(in.info().flags & MEMORY) || in.srcs.empty() || in.srcs[0].kind != Operand::Kind::Mem ||
          !in.srcs[0].hasReg)
        continue;
      std::optional<auto_detail::Poly> p = flow.address(in.srcs[0]);
      if (!p || p->var)
        continue;
      // The base: one buffer parameter, added once.
      int64_t base = -1;
      bool ok = true, product = false;
      for (const auto &[k, c] : p->terms) {
        if (k.second == kNoAtom && buffers.count(k.first) && c == 1 && base < 0) {
          base = k.first;
          continue;
        }
        for (int64_t a : {k.first, k.second})
          if (a >= 0 && !chosen.count(uint64_t(a)))
            ok = false; // a pointer, float, struct ...
        product |= k.first >= 0 && k.second >= 0;
      }
      if (base < 0 || !ok || !product)
        continue;
      p->terms.erase({base, kNoAtom});
      uses.push_back({*p, accessWidth(in)});
    }
  if (uses.empty())
    return;
  const int64_t floor = int64_t(o.threads.count());
  auto range = [&](int64_t atom) -> std::optional<std::pair<int64_t, int64_t>> {
    if (atom < 0)
      return auto_detail::sregRange(atom, o.threads, o.ctas);
    int64_t v = int64_t(chosen.at(uint64_t(atom)));
    return std::pair<int64_t, int64_t>{v, v};
  };
  for (int round = 0; round < 64; ++round) {
    bool halved = false;
    for (const Use &u : uses) {
      auto r = auto_detail::polyRange(u.offset, range);
      if (r && r->second + int64_t(u.width) <= int64_t(o.bufferBytes))
        continue;
      // The largest parameter of a product of parameters, above the floor.
      int64_t pick = -1;
      for (const auto &[k, c] : u.offset.terms)
        if (k.first >= 0 && k.second >= 0)
          for (int64_t a : {k.first, k.second})
            if (int64_t(chosen[uint64_t(a)]) > floor &&
                (pick < 0 || chosen[uint64_t(a)] > chosen[uint64_t(pick)]))
              pick = a;
      if (pick < 0)
        continue;
      chosen[uint64_t(pick)] =
          uint64_t(std::max<int64_t>(floor, int64_t(chosen[uint64_t(pick)]) / 2));
      halved = true;
      break;
    }
    if (!halved)
      break;
  }
  for (size_t i = 0; i < kernel.params.size() && i < out.size(); ++i)
    if (out[i].kind == AutoBinding::Kind::Integer)
      if (auto it = chosen.find(kernel.params[i].offset); it != chosen.end())
        out[i].value = it->second;
}

namespace {

// An integer slot a count comes from: a parameter (var null, its bank-0 offset) or a field of a
// .const variable (its offset in it).
struct Atom {
  const Variable *var = nullptr;
  uint64_t offset = 0;
  friend auto operator<=>(const Atom &, const Atom &) = default;
};

bool isReg(const Operand &o) { return o.kind == Operand::Kind::Reg && !o.reg.isConst(); }

// A destination register of `in` (not RZ/PT), or null.
const Reg *destReg(const Instr &in) {
  if (in.dsts.empty() || !isReg(in.dsts[0]))
    return nullptr;
  return &in.dsts[0].reg;
}

constexpr int64_t kMaxScale = int64_t(1) << 24; // a product's scale past this: kept there

} // namespace

// Rule 6b. Three flows over the kernel, flow-insensitively to a fixed point:
//  - the counts a register's value may grow with ("from"): a count slot itself, carried by MOV,
//    IADD3 (sources not negated), SEL, IMNMX, the addend of IMAD and LEA, and a factor of IMAD,
//    SHL or LEA the other factor of which is a constant (a negated source, a quotient, a
//    remainder, a shift right only make a value smaller or say nothing);
//  - the products of two such registers (IMAD a, b with both factors from counts) that reach
//    a register, with the largest constant they are multiplied by on the way (IMAD[.WIDE] and
//    SHL by constants, LEA), carried as above;
//  - the registers holding a shared address (a .shared variable's address, SR_SWINBASE),
//    carried by MOV, IADD3 and the addends of IMAD and LEA.
// An access to shared memory (LDS/STS, [shared variable + ...], or a shared address register)
// at a register a product reaches with scale k passes the window when k * a * b + width >
// kSharedSize, a and b the largest counts the factors come from; then the largest of those
// counts above one CTA's threads is halved, until none passes or none can be.
void boundCountProducts(const Module &m, const Function &kernel, const AutoLaunchOptions &o,
                        std::vector<AutoBinding> &out) {
  std::map<Atom, uint64_t *> value; // the count slots, and where their bound value is
  for (size_t i = 0; i < out.size(); ++i) {
    AutoBinding &b = out[i];
    if (!b.variable && b.kind == AutoBinding::Kind::Integer && i < kernel.params.size())
      value[{nullptr, kernel.params[i].offset}] = &b.value;
    if (!b.variable || b.kind != AutoBinding::Kind::Bytes)
      continue;
    const Variable *v = nullptr;
    for (const Variable &x : m.variables)
      if (x.name == b.name)
        v = &x;
    if (!v || v->space != Space::Const)
      continue;
    for (AutoField &fd : b.fields)
      if (fd.kind == AutoField::Kind::Integer && fd.width >= 4)
        value[{v, fd.offset}] = &fd.value;
  }
  if (value.empty())
    return;
  auto isShared = [&](const std::string &sym) {
    const Variable *v = sym.empty() ? nullptr : findVariable(m, kernel, sym);
    return v && v->space == Space::Shared;
  };
  // A count slot an operand reads directly: c[0x0][off] of an integer parameter.
  auto slotOf = [&](const Operand &s) -> std::optional<Atom> {
    if (s.kind == Operand::Kind::CBank && s.bank == 0 && !s.hasReg && s.imm >= 0 &&
        value.count({nullptr, uint64_t(s.imm)}))
      return Atom{nullptr, uint64_t(s.imm)};
    return std::nullopt;
  };
  std::map<Reg, std::set<Atom>> from;
  std::map<Reg, std::map<size_t, int64_t>> reach; // product id -> largest scale
  std::set<Reg> shared;
  std::vector<std::pair<std::set<Atom>, std::set<Atom>>> products;
  std::map<const Instr *, size_t> productId;
  auto fromOf = [&](const Operand &s) {
    std::set<Atom> r;
    if (auto a = slotOf(s))
      r.insert(*a);
    if (isReg(s) && !s.neg)
      if (auto it = from.find(s.reg); it != from.end())
        r = it->second;
    return r;
  };
  auto isConstFactor = [](const Operand &s) { return s.kind == Operand::Kind::Imm && s.imm > 0; };
  for (bool changed = true; changed;) {
    changed = false;
    for (const Block &blk : kernel.blocks)
      for (const Instr &in : blk.instrs) {
        const Reg *d = destReg(in);
        if (!d)
          continue;
        auto src = [&](size_t k) -> const Operand * {
          return k < in.srcs.size() ? &in.srcs[k] : nullptr;
        };
        std::set<Atom> f;
        std::map<size_t, int64_t> r;
        bool sh = false;
        auto carry = [&](size_t k, int64_t scale, bool sharedToo) {
          const Operand *s = src(k);
          if (!s)
            return;
          std::set<Atom> a = fromOf(*s);
          f.insert(a.begin(), a.end());
          if (!isReg(*s) || s->neg)
            return;
          if (auto it = reach.find(s->reg); it != reach.end())
            for (auto [id, k2] : it->second) {
              int64_t v = std::min(kMaxScale, k2 * scale);
              r[id] = std::max(r[id], v);
            }
          if (sharedToo && shared.count(s->reg))
            sh = true;
        };
        switch (in.op) {
        case Opcode::MOV:
          carry(0, 1, true);
          if (in.srcs.size() == 1 && in.srcs[0].kind == Operand::Kind::Symbol &&
              isShared(in.srcs[0].sym))
            sh = true;
          break;
        case Opcode::S2R:
          sh = !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::SReg &&
               in.srcs[0].sreg == SpecialReg::SWINBASE;
          break;
        case Opcode::LD:
        case Opcode::LDC:
          if (!in.srcs.empty()) {
            const Operand &a = in.srcs[0];
            if (a.kind == Operand::Kind::Mem && !a.hasReg && a.imm >= 0 && !a.sym.empty()) {
              const Variable *v = findVariable(m, kernel, a.sym);
              if (v && value.count({v, uint64_t(a.imm)}))
                f.insert({v, uint64_t(a.imm)});
            } else if (auto s = slotOf(a)) {
              f.insert(*s);
            }
          }
          break;
        case Opcode::IADD3:
          for (size_t k = 0; k < 3; ++k)
            carry(k, 1, true);
          break;
        case Opcode::SEL:
        case Opcode::IMNMX:
          carry(0, 1, false);
          carry(1, 1, false);
          break;
        case Opcode::SHL:
          if (src(1) && src(1)->kind == Operand::Kind::Imm && src(1)->imm >= 0 && src(1)->imm <= 24)
            carry(0, int64_t(1) << src(1)->imm, false);
          break;
        case Opcode::LEA:
          if (src(2) && src(2)->kind == Operand::Kind::Imm && src(2)->imm >= 0 &&
              src(2)->imm <= 24 && !in.has(Mod::HI))
            carry(0, int64_t(1) << src(2)->imm, false);
          carry(1, 1, true);
          break;
        case Opcode::IMAD: {
          if (in.has(Mod::HI))
            break;
          const Operand *a = src(0), *b = src(1);
          if (a && b && isConstFactor(*b))
            carry(0, b->imm, false);
          else if (a && b && isConstFactor(*a))
            carry(1, a->imm, false);
          else if (a && b) {
            std::set<Atom> fa = fromOf(*a), fb = fromOf(*b);
            if (!fa.empty() && !fb.empty()) {
              auto [it, fresh] = productId.emplace(&in, products.size());
              if (fresh)
                products.push_back({fa, fb});
              else if (products[it->second] != std::pair{fa, fb})
                products[it->second] = {fa, fb};
              r[it->second] = std::max<int64_t>(r[it->second], 1);
            }
          }
          carry(2, 1, true);
          break;
        }
        default:
          break;
        }
        if (!f.empty()) {
          auto &x = from[*d];
          const size_t n = x.size();
          x.insert(f.begin(), f.end());
          changed |= x.size() != n;
        }
        for (auto [id, k] : r) {
          int64_t &y = reach[*d][id];
          if (k > y)
            y = k, changed = true;
        }
        if (sh)
          changed |= shared.insert(*d).second;
      }
  }
  // The shared accesses a product reaches: (product id, scale, width).
  struct Use {
    size_t id;
    int64_t scale;
    unsigned width;
  };
  std::vector<Use> uses;
  for (const Block &blk : kernel.blocks)
    for (const Instr &in : blk.instrs) {
      if (!(in.info().flags & MEMORY) || in.srcs.empty())
        continue;
      const Operand &a = in.srcs[0];
      if (a.kind != Operand::Kind::Mem || !a.hasReg || a.reg.isConst())
        continue;
      const bool sh =
          in.op == Opcode::LDS || in.op == Opcode::STS || isShared(a.sym) || shared.count(a.reg);
      auto it = reach.find(a.reg);
      if (!sh || it == reach.end())
        continue;
      for (auto [id, k] : it->second)
        uses.push_back({id, k, accessWidth(in)});
    }
  const uint64_t floor = o.threads.count();
  auto largest = [&](const std::set<Atom> &s) {
    uint64_t v = 0;
    for (const Atom &a : s)
      v = std::max(v, *value.at(a));
    return v;
  };
  for (int round = 0; round < 64; ++round) {
    bool halved = false;
    for (const Use &u : uses) {
      const auto &[fa, fb] = products[u.id];
      const __int128 top = __int128(u.scale) * largest(fa) * largest(fb) + u.width;
      if (top <= __int128(interp_detail::kSharedSize))
        continue;
      const Atom *pick = nullptr;
      for (const std::set<Atom> *s : {&fa, &fb})
        for (const Atom &a : *s)
          if (*value.at(a) > floor && (!pick || *value.at(a) > *value.at(*pick)))
            pick = &a;
      if (!pick)
        continue;
      *value.at(*pick) = std::max(floor, *value.at(*pick) / 2);
      halved = true;
      break;
    }
    if (!halved)
      break;
  }
}

} // namespace ori::auto_detail
