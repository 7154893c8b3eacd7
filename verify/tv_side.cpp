// One side of the translation validation (verify/tv_impl.h, SideEncoder): the memory helpers,
// local provenance, and the walk over the CFG unrolled to the bound (blocks, edges, merges,
// faults, barriers). Memory accesses, constant banks and calls: tv_side_access.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "verify/tv_impl.h"

namespace ori::verify::tv_detail {

z3::expr readWord(Smt &smt, const z3::expr &mem, const z3::expr &addr) {
  z3::expr w = z3::select(mem, addr);
  for (unsigned k = 1; k < 8; ++k)
    w = z3::concat(z3::select(mem, addr + smt.bv(k, 64)), w);
  return w;
}
z3::expr writeWord(Smt &smt, z3::expr mem, const z3::expr &addr, const z3::expr &word,
                   unsigned bytes) {
  for (unsigned k = 0; k < bytes; ++k)
    mem = z3::store(mem, addr + smt.bv(k, 64), word.extract(8 * k + 7, 8 * k));
  return mem;
}

unsigned accessBytes(const Instr &in) {
  if (in.has(Mod::U8) || in.has(Mod::S8))
    return 1;
  if (in.has(Mod::U16) || in.has(Mod::S16))
    return 2;
  return in.has(Mod::W64) ? 8 : 4;
}

bool readsF64(const Instr &in) {
  if (in.op == Opcode::F2F)
    return in.has(Mod::SRC_F64);
  switch (in.op) {
  case Opcode::DADD:
  case Opcode::DMUL:
  case Opcode::DFMA:
  case Opcode::DSETP:
  case Opcode::DMNMX:
    return true;
  default: // MUFU.RCP64H/RSQ64H read a binary64 too (its high word)
    return in.has(Mod::F64) || in.has(Mod::RCP64H) || in.has(Mod::RSQ64H);
  }
}

z3::expr isPrivate(Smt &smt, const z3::expr &a) {
  auto in = [&](uint64_t base, uint64_t size) {
    return z3::ult(a - smt.bv(base, 64), smt.bv(size, 64));
  };
  return in(kLocalWindow, kLocalSize) || in(kParamWindow, kParamSize);
}

LocalProvenance localProvenance(const Function &f) {
  LocalProvenance lp;
  std::set<std::string> locals, escaping;
  for (const Variable &v : f.variables)
    if (v.space == Space::Local)
      locals.insert(v.name);
  if (locals.empty())
    return lp;
  auto from = [&](const Operand &o, std::set<std::string> &out) {
    if ((o.kind == Operand::Kind::Symbol || o.kind == Operand::Kind::Mem) && locals.count(o.sym))
      out.insert(o.sym);
    if (auto r = o.regRead(); r && !r->isConst())
      if (auto it = lp.derived.find(*r); it != lp.derived.end())
        out.insert(it->second.begin(), it->second.end());
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const Block &b : f.blocks)
      for (const Instr &in : b.instrs) {
        // What a load or an atomic returns is memory's, not its address's (a pointer stored
        // to memory escapes at the store).
        const bool memory = in.info().is(MEMORY);
        std::set<std::string> all;
        for (size_t k = 0; k < in.srcs.size(); ++k)
          if (!(memory && k == 0 && in.srcs[k].kind == Operand::Kind::Mem))
            from(in.srcs[k], all);
        if (in.info().is(MEMORY) || isAtomic(in.op)) {
          for (size_t k = 1; k < in.srcs.size(); ++k) { // the address (source 0) is no escape
            std::set<std::string> value;
            from(in.srcs[k], value);
            escaping.insert(value.begin(), value.end());
          }
        }
        if (in.op == Opcode::CALL || in.op == Opcode::OPAQUE)
          escaping.insert(all.begin(), all.end());
        if (all.empty())
          continue;
        for (Reg d : in.defs()) {
          std::set<std::string> &to = lp.derived[d];
          const size_t before = to.size();
          to.insert(all.begin(), all.end());
          changed = changed || to.size() != before;
        }
      }
  }
  for (const Variable &v : f.variables)
    if (v.space == Space::Local && !escaping.count(v.name))
      lp.owned.push_back(&v);
  return lp;
}

z3::expr SideEncoder::snapshotAt(const z3::expr &k, const z3::expr &before) const {
  z3::expr m = before;
  for (const Snapshot &sn : snapshots)
    m = z3::ite(sn.when && sn.index == k, sn.mem, m);
  return m;
}

void SideEncoder::run() {
  State init{smt_.boolVal(true), {}, x_.mem0, x_.priv0, smt_.bv(0, 32), smt_.bv(0, 32)};
  runFrom(0, init);
}

void SideEncoder::runSegment(uint32_t start, const State &init, const std::set<uint32_t> &cuts) {
  cuts_ = cuts;
  runFrom(start, init);
}

std::set<Reg> SideEncoder::registers() const {
  std::set<Reg> rs;
  for (const Block &b : f_.blocks)
    for (const Instr &in : b.instrs) {
      for (Reg r : in.defs())
        rs.insert(r);
      for (Reg r : in.uses())
        rs.insert(r);
    }
  return rs;
}

std::set<uint32_t> SideEncoder::loopHeaders() {
  computeOrder(0);
  std::set<uint32_t> hs;
  for (uint32_t b : order_)
    for (uint32_t t : successors(b))
      if (rpoNum_[t] <= rpoNum_[b])
        hs.insert(t);
  return hs;
}

void SideEncoder::runFrom(uint32_t start, const State &init) {
  computeOrder(start);
  size_t n = f_.blocks.size();
  incoming_.assign((unroll_ + 1) * n, {});
  incoming_[start].push_back(init);
  for (unsigned k = 0; k <= unroll_ && !unmodelled; ++k)
    for (uint32_t b : order_) {
      std::vector<State> &in = incoming_[k * n + b];
      if (in.empty())
        continue;
      State s = merge(in);
      in.clear();
      try {
        runBlock(b, k, s);
      } catch (const Unmodelled &u) {
        unmodelled = u.what;
        return;
      }
    }
}

std::vector<uint32_t> SideEncoder::successors(uint32_t b) const {
  std::vector<uint32_t> s;
  bool fallsThrough = true;
  for (const Instr &in : f_.blocks[b].instrs) {
    if (in.op == Opcode::BRA && !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Label)
      s.push_back(in.srcs[0].target);
    if (isTableBranch(in.op) && in.srcs.size() > 1 && in.srcs[1].kind == Operand::Kind::JumpTable &&
        in.srcs[1].target < f_.jumpTables.size())
      for (uint32_t t : f_.jumpTables[in.srcs[1].target].targets)
        s.push_back(t);
    bool unconditional = !in.isGuarded();
    if (unconditional && (in.op == Opcode::BRA || isTableBranch(in.op) || in.op == Opcode::EXIT ||
                          in.op == Opcode::RET))
      fallsThrough = false;
  }
  if (fallsThrough && b + 1 < f_.blocks.size())
    s.push_back(b + 1);
  std::vector<uint32_t> valid;
  for (uint32_t t : s)
    if (t < f_.blocks.size())
      valid.push_back(t);
  return valid;
}

void SideEncoder::computeOrder(uint32_t start) {
  size_t n = f_.blocks.size();
  std::vector<std::vector<uint32_t>> succ(n);
  for (uint32_t b = 0; b < n; ++b)
    succ[b] = successors(b);
  std::vector<uint8_t> seen(n, 0);
  std::vector<uint32_t> post;
  std::vector<std::pair<uint32_t, size_t>> stack{{start, 0}};
  seen[start] = 1;
  while (!stack.empty()) {
    auto &[b, i] = stack.back();
    if (i < succ[b].size()) {
      uint32_t t = succ[b][i++];
      if (!seen[t] && !(cuts_.count(t) && t != start)) {
        seen[t] = 1;
        stack.push_back({t, 0});
      }
    } else {
      post.push_back(b);
      stack.pop_back();
    }
  }
  order_.assign(post.rbegin(), post.rend());
  rpoNum_.assign(n, UINT32_MAX);
  for (uint32_t i = 0; i < order_.size(); ++i)
    rpoNum_[order_[i]] = i;
}

SideEncoder::State SideEncoder::merge(const std::vector<State> &in) {
  if (in.size() == 1)
    return in[0];
  State s{in.back().pc,         {}, in.back().mem, in.back().priv, in.back().barriers,
          in.back().collectives};
  std::set<Reg> written;
  for (const State &t : in)
    for (const auto &[r, v] : t.regs)
      written.insert(r);
  for (Reg r : written)
    s.regs.emplace(r, regOf(in.back(), r));
  for (size_t i = in.size() - 1; i-- > 0;) {
    const State &t = in[i];
    s.pc = orPc(s.pc, t.pc);
    s.mem = iteOf(t.pc, t.mem, s.mem);
    s.priv = iteOf(t.pc, t.priv, s.priv);
    s.barriers = iteOf(t.pc, t.barriers, s.barriers);
    s.collectives = iteOf(t.pc, t.collectives, s.collectives);
    for (Reg r : written)
      s.regs.at(r) = iteOf(t.pc, regOf(t, r), s.regs.at(r));
  }
  return s;
}

z3::expr SideEncoder::orPc(const z3::expr &a, const z3::expr &b) {
  if (a.is_false() || b.is_true())
    return b;
  if (b.is_false() || a.is_true())
    return a;
  if (z3::eq(a, b))
    return a;
  auto halves = [](const z3::expr &x, const z3::expr &y) {
    return x.is_and() && y.is_and() && x.num_args() == 2 && y.num_args() == 2 &&
           z3::eq(x.arg(0), y.arg(0)) && y.arg(1).is_not() && z3::eq(y.arg(1).arg(0), x.arg(1));
  };
  if (halves(a, b) || (halves(b, a)))
    return a.arg(0);
  return a || b;
}

z3::expr SideEncoder::regOf(const State &s, Reg r) {
  if (r.isConst())
    return r.isPredicate() ? smt_.boolVal(true) : smt_.bv(0, 64);
  auto it = s.regs.find(r);
  if (it != s.regs.end())
    return it->second;
  if (depth_ > 0)
    return r.isPredicate() ? smt_.boolVal(false) : smt_.bv(0, 64);
  return x_.initReg(r);
}

void SideEncoder::edge(uint32_t from, unsigned k, uint32_t to, State s) {
  if (to >= f_.blocks.size())
    throw Unmodelled{fmt::format("a branch to missing bix{}", to)};
  if (cuts_.count(to)) {
    arrivals[to].push_back(std::move(s));
    return;
  }
  unsigned k2 = k + (rpoNum_[to] <= rpoNum_[from] ? 1 : 0);
  if (k2 > unroll_) {
    bound = bound || s.pc;
    return;
  }
  incoming_[k2 * f_.blocks.size() + to].push_back(std::move(s));
}

void SideEncoder::addFault(const Instr &in, const z3::expr &cond) {
  fault = fault || cond;
  faultSites.push_back(
      {fmt::format("{} at line {}",
                   in.op == Opcode::OPAQUE ? "OPAQUE" : std::string(in.info().name), in.loc.line),
       cond});
}

void SideEncoder::exit(const State &s) {
  exited = exited || s.pc;
  exitMem = z3::ite(s.pc, s.mem, exitMem);
  exitPriv = z3::ite(s.pc, s.priv, exitPriv);
  exitBarriers = z3::ite(s.pc, s.barriers, exitBarriers);
}

void SideEncoder::barrier(const z3::expr &g, State &s) {
  snapshots.push_back({s.pc && g, s.barriers, s.mem});
  s.mem = z3::ite(g, x_.others(s.barriers), s.mem);
  s.barriers = z3::ite(g, s.barriers + smt_.bv(1, 32), s.barriers);
}

z3::expr SideEncoder::guardOf(const Instr &in, const State &s) {
  if (!in.guard)
    return smt_.boolVal(true);
  z3::expr g = regOf(s, in.guard->reg);
  if (!in.guard->neg)
    return g;
  return g.is_true() ? smt_.boolVal(false) : g.is_false() ? smt_.boolVal(true) : !g;
}

void SideEncoder::runBlock(uint32_t b, unsigned k, State s) {
  *encoded_ += f_.blocks[b].instrs.size();
  if (*encoded_ > kMaxEncodedInstrs)
    throw Unmodelled{
        fmt::format("the unrolled function exceeds {} instructions", kMaxEncodedInstrs)};
  for (const Instr &in : f_.blocks[b].instrs) {
    if (s.pc.is_false())
      return;
    z3::expr g = guardOf(in, s);
    switch (in.op) {
    case Opcode::BRA: {
      if (in.srcs.empty() || in.srcs[0].kind != Operand::Kind::Label)
        throw Unmodelled{"BRA without a label"};
      State t = s;
      t.pc = taken(s.pc, g);
      edge(b, k, in.srcs[0].target, t);
      s.pc = notTaken(s.pc, g);
      break;
    }
    case Opcode::BRX:
    case Opcode::JMX: {
      if (in.srcs.size() < 2 || in.srcs[1].kind != Operand::Kind::JumpTable ||
          in.srcs[1].target >= f_.jumpTables.size())
        throw Unmodelled{"BRX without a jump table"};
      const std::vector<uint32_t> &targets = f_.jumpTables[in.srcs[1].target].targets;
      z3::expr idx = Smt::low(regOf(s, in.srcs[0].reg), 32);
      for (size_t j = 0; j < targets.size(); ++j) {
        State t = s;
        t.pc = taken(s.pc, g) && idx == smt_.bv(j, 32);
        edge(b, k, targets[j], t);
      }
      addFault(in, taken(s.pc, g) && z3::uge(idx, smt_.bv(targets.size(), 32)));
      s.pc = notTaken(s.pc, g);
      break;
    }
    case Opcode::EXIT:
    case Opcode::RET: {
      State t = s;
      t.pc = taken(s.pc, g);
      if (in.op == Opcode::RET && depth_ > 0)
        returns_.push_back(t);
      else
        exit(t);
      s.pc = notTaken(s.pc, g);
      break;
    }
    case Opcode::TRAP:
      trapped = trapped || taken(s.pc, g);
      s.pc = notTaken(s.pc, g);
      break;
    case Opcode::CALL:
      call(in, g, s);
      break;
    case Opcode::BAR:
      // BAR.RED's result comes from the other threads, a named barrier's memory from the
      // threads it waits for: uninterpreted (tv_uninterpreted.cpp), like any barrier but 0.
      if (isUninterpreted(in))
        uninterpreted(in, g, s, b);
      else
        barrier(g, s);
      break;
    case Opcode::NOP:
    case Opcode::BSSY:
    case Opcode::BSYNC:
    case Opcode::WARPSYNC:
      break;
    case Opcode::LD:
    case Opcode::LDG:
    case Opcode::LDS:
    case Opcode::LDL:
    case Opcode::ST:
    case Opcode::STG:
    case Opcode::STS:
    case Opcode::STL:
    case Opcode::ATOM:
    case Opcode::ATOMG:
    case Opcode::ATOMS:
    case Opcode::RED:
    case Opcode::REDG:
      withModelOr(in, g, s, b, [&] { memoryAccess(in, g, s); });
      break;
    case Opcode::MEMBAR:
    case Opcode::FENCE:
    case Opcode::NANOSLEEP:
    case Opcode::CCTL:
      break; // one thread's view: no ordering, waiting or caching to model (docs/interpreter.md)
    case Opcode::ALLOCA:
    case Opcode::STACKSAVE:
    case Opcode::STACKRESTORE:
      unmodelledAt(in, "the local stack (alloca) is not modelled");
    case Opcode::LDC:
      withModelOr(in, g, s, b, [&] { constantLoad(in, g, s); });
      break;
    case Opcode::ACQBULK:
    case Opcode::PREEXIT:
    case Opcode::SETMAXREG:
      break; // one grid, no register budget: nothing happens (docs/interpreter.md)
    case Opcode::MOV:
      if (in.srcs.size() == 1 && in.srcs[0].kind == Operand::Kind::Symbol && in.dsts.size() == 1) {
        // MOV R, sym: the address (the models leave symbols to the encoder)
        const Operand &d = in.dsts[0];
        if (d.kind != Operand::Kind::Reg || !d.reg.isGeneral())
          unmodelledAt(in, "MOV of an address into a predicate");
        z3::expr v = symbolValue(in, in.srcs[0]);
        if (!in.has(Mod::W64))
          v = Smt::zext(Smt::low(v, 32), 64);
        if (!d.reg.isConst())
          s.regs.insert_or_assign(d.reg, z3::ite(g, v, regOf(s, d.reg)));
        break;
      }
      withModelOr(in, g, s, b, [&] { compute(in, s, smt_.bv(0, 64)); });
      break;
    default:
      if (isUninterpreted(in)) { // SULD, TEX, VOTE, OPAQUE, ... (verify/tv_uninterpreted.cpp)
        uninterpreted(in, g, s, b);
        break;
      }
      withModelOr(in, g, s, b, [&] { compute(in, s, smt_.bv(0, 64)); });
      break;
    }
  }
  if (s.pc.is_false())
    return;
  if (b + 1 < f_.blocks.size()) {
    edge(b, k, b + 1, s);
  } else {
    fault = fault || s.pc; // control falls off the end of the function: an error
    faultSites.push_back({fmt::format("falling off the end of bix{}", b), s.pc});
  }
}

} // namespace ori::verify::tv_detail
