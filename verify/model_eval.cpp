// Concrete evaluation of the opcode models (verify/model_eval.h): each
// instruction shape is modelled once on symbolic inputs; an evaluation
// substitutes constants and simplifies to numerals.
#include "verify/model_eval.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "verify/opcode_model.h"

namespace ori::verify {

namespace {

// What the model of `in` depends on besides its input values: opcode,
// modifiers, operand kinds and flags, the guard's polarity, constant dests.
std::string shapeKey(const Instr &in) {
  std::string k = fmt::format("{}:", int(in.op));
  for (Mod m : in.mods.list())
    k += fmt::format("{},", int(m));
  auto operand = [&](const Operand &o) {
    k += fmt::format("|{}{}{}{}", int(o.kind), o.neg ? "-" : "", o.abs ? "a" : "",
                     o.kind == Operand::Kind::Reg
                         ? fmt::format("{}{}", int(o.reg.file), o.reg.isConst() ? "c" : "")
                     : o.kind == Operand::Kind::SReg ? fmt::format("s{}", int(o.sreg))
                                                     : "");
  };
  for (const Operand &o : in.srcs)
    operand(o);
  k += "/";
  for (const Operand &o : in.dsts)
    operand(o);
  k += in.guard ? (in.guard->neg ? "/@!" : "/@") : "/";
  return k;
}

// Input slots of ConcreteInputs, in the order evaluate() binds them.
enum Slot : size_t { kGuard, kMemory, kTid, kCtaid, kNtid, kNctaid, kSources };

struct Built {
  std::optional<ModelInputs> x;
  std::optional<ModelOutputs> out;
  // Every output (Booleans as one bit, memory last) in one term, so one
  // substitution evaluates them all; the free constants it mentions, each
  // with its input slot (kSources + i: source i; after the sources: old
  // destinations).
  std::optional<z3::expr> all;
  std::vector<unsigned> widths;
  std::vector<std::pair<size_t, z3::expr>> vars;
};

// The uninterpreted constants of `e` (a DAG walked with an explicit stack).
std::vector<z3::expr> freeConstants(const z3::expr &e) {
  std::vector<z3::expr> out, stack{e};
  std::set<unsigned> seen;
  while (!stack.empty()) {
    z3::expr t = stack.back();
    stack.pop_back();
    if (!seen.insert(t.id()).second)
      continue;
    if (t.is_const() && t.decl().decl_kind() == Z3_OP_UNINTERPRETED)
      out.push_back(t);
    if (t.is_app())
      for (unsigned i = 0; i < t.num_args(); ++i)
        stack.push_back(t.arg(i));
  }
  return out;
}

} // namespace

struct ModelEvaluator::Impl {
  Smt smt;
  std::map<std::string, Built> cache;

  Built &build(const Instr &in) {
    std::string key = shapeKey(in);
    auto it = cache.find(key);
    if (it != cache.end())
      return it->second;
    Built b;
    b.x = freshInputs(smt, in);
    b.out = modelInstr(smt, in, *b.x);
    if (b.out) {
      z3::expr_vector parts(smt.ctx());
      auto add = [&](const z3::expr &t) {
        parts.push_back(t.is_bool() ? smt.bit(t) : t);
        b.widths.push_back(t.is_bool() ? 1 : t.get_sort().bv_size());
      };
      for (const z3::expr &d : b.out->dsts)
        add(d);
      if (b.out->memory)
        add(*b.out->memory);
      if (!parts.empty()) {
        b.all = parts.size() == 1 ? parts[0] : z3::concat(parts);
        std::vector<z3::expr> slots = {b.x->guard, b.x->memory, b.x->tid,
                                       b.x->ctaid, b.x->ntid,   b.x->nctaid};
        for (const z3::expr &s : b.x->srcs)
          slots.push_back(s);
        for (const z3::expr &d : b.x->oldDsts)
          slots.push_back(d);
        for (const z3::expr &v : freeConstants(*b.all))
          for (size_t i = 0; i < slots.size(); ++i)
            if (z3::eq(v, slots[i]))
              b.vars.emplace_back(i, v);
      }
    }
    return cache.emplace(key, std::move(b)).first->second;
  }
};

ModelEvaluator::ModelEvaluator() : impl_(std::make_unique<Impl>()) {}
ModelEvaluator::~ModelEvaluator() = default;

std::optional<ConcreteOutputs> ModelEvaluator::evaluate(const Instr &in, const ConcreteInputs &c) {
  Built &b = impl_->build(in);
  if (!b.out)
    return std::nullopt;
  Smt &smt = impl_->smt;
  const ModelInputs &x = *b.x;
  if (c.srcs.size() != x.srcs.size() || c.oldDsts.size() != x.oldDsts.size())
    throw std::invalid_argument(fmt::format(
        "model inputs: {} sources and {} destinations given, the instruction has {} and {}",
        c.srcs.size(), c.oldDsts.size(), x.srcs.size(), x.oldDsts.size()));
  ConcreteOutputs r;
  if (!b.all)
    return r;
  z3::expr_vector from(smt.ctx()), to(smt.ctx());
  for (const auto &[slot, var] : b.vars) {
    uint64_t v = slot == kGuard                    ? c.guard
                 : slot == kMemory                 ? c.memory
                 : slot == kTid                    ? c.tid
                 : slot == kCtaid                  ? c.ctaid
                 : slot == kNtid                   ? c.ntid
                 : slot == kNctaid                 ? c.nctaid
                 : slot - kSources < c.srcs.size() ? c.srcs[slot - kSources]
                                                   : c.oldDsts[slot - kSources - c.srcs.size()];
    from.push_back(var);
    to.push_back(var.is_bool() ? smt.boolVal(v != 0) : smt.bv(v, var.get_sort().bv_size()));
  }
  z3::expr value = z3::expr(*b.all).substitute(from, to).simplify();
  // The numeral's binary digits, most significant first, without leading zeros.
  Z3_string digits = value.is_numeral() ? Z3_get_numeral_binary_string(smt.ctx(), value) : nullptr;
  if (!digits)
    throw std::runtime_error("model output does not simplify to a numeral: " + value.to_string());
  std::string_view bits(digits);
  size_t pos = 0; // bits consumed from the right
  std::vector<uint64_t> fields(b.widths.size());
  for (size_t k = b.widths.size(); k-- > 0;) {
    uint64_t f = 0;
    for (unsigned j = 0; j < b.widths[k]; ++j, ++pos)
      if (pos < bits.size() && bits[bits.size() - 1 - pos] == '1')
        f |= uint64_t(1) << j;
    fields[k] = f;
  }
  r.dsts.assign(fields.begin(), fields.begin() + ptrdiff_t(b.out->dsts.size()));
  if (b.out->memory)
    r.memory = fields.back();
  return r;
}

bool hasModel(Opcode op) { return findModelEntry(op) != nullptr; }

} // namespace ori::verify
