// Translation validation (verify/tv.h, docs/verifier.md "Translation validation").
//
// Each side (source, target) is executed symbolically over its CFG unrolled to a bound:
// a node is (block, number of retreating edges taken so far), nodes are visited in
// (count, reverse postorder) order, and the states reaching a node are merged with
// if-then-else on their path conditions. An edge that would exceed the bound adds its path
// condition to `bound`. Instructions are the opcode models of verify/model_*.cpp. Memory is
// one byte array indexed by the interpreter's generic addresses (shared, local and const
// data in their windows; .param storage in a window of its own), so every state space
// aliases exactly as it does in the interpreter; kernel parameters and other constant banks
// are read-only arrays. Both sides share one Z3 context, so the inputs (initial memory,
// banks, thread ids, initial registers, variable addresses, call effects) are the same
// terms on both.
#include "verify/tv.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "verify/opcode_model.h"
#include "verify/smt.h"

namespace ori::verify {
namespace {

// The interpreter's windows (docs/interpreter.md, "Memory"); kParamWindow is the TV's own
// place for .param storage.
constexpr uint64_t kConstWindow = 0x7c0000000000, kSharedWindow = 0x7e0000000000,
                   kLocalWindow = 0x7f0000000000;
constexpr uint64_t kParamWindow = 0x7b0000000000, kFunctionBase = 0x7d0000000000;
constexpr uint64_t kSharedSize = 0x38000, kLocalSize = 0x80000, kParamSize = uint64_t(1) << 32;

struct Unmodelled {
  std::string what;
};

// What both sides read: one set of terms in one context.
class Inputs {
public:
  explicit Inputs(Smt &smt)
      : smt(smt), bytes(smt.ctx().array_sort(smt.ctx().bv_sort(64), smt.ctx().bv_sort(8))),
        mem0(smt.ctx().constant("memory", bytes)),
        priv0(smt.ctx().constant("private memory", bytes)),
        valid(smt.ctx().function("mapped", smt.ctx().bv_sort(64), smt.ctx().bv_sort(32),
                                 smt.ctx().bool_sort())),
        tid(smt.bvVar("tid.x", 32)), ctaid(smt.bvVar("ctaid.x", 32)), ntid(smt.bvVar("ntid.x", 32)),
        nctaid(smt.bvVar("nctaid.x", 32)), assumptions(smt.boolVal(true)),
        others(smt.ctx().function("memory after barrier", smt.ctx().bv_sort(32), bytes)),
        history(smt.ctx().constant("memory at earlier barriers", bytes)) {
    assumptions = z3::ult(tid, ntid) && z3::ult(ctaid, nctaid);
  }

  Smt &smt;
  z3::sort bytes;      // Array(BV64, BV8)
  z3::expr mem0;       // memory other threads share (global, shared, const)
  z3::expr priv0;      // the thread's own: the local window and .param storage
  z3::func_decl valid; // mapped(address, bytes): an access there does not fault
  z3::expr tid, ctaid, ntid, nctaid;
  z3::expr assumptions; // facts about the inputs (thread ids in range, windows of variables)
  z3::func_decl others; // barrier number -> the shared memory other threads leave there
  z3::expr history;     // stands for memory at barriers before a segment (the same on both sides)
  std::map<uint32_t, z3::expr> banks;
  std::map<std::string, z3::expr> bases; // variable and parameter addresses by key
  std::map<Reg, z3::expr> initRegs;
  std::map<std::string, z3::func_decl> functions; // call effects by name
  unsigned inlineDepth = 0; // calls to module functions inlined up to this depth
  // Calls to module functions left as uninterpreted effects (beyond the inline depth,
  // indirect): a difference may then come from an effect the real callee does not have,
  // so a counterexample is not a refutation.
  std::set<std::string> approximations;

  z3::expr bank(uint32_t b) {
    auto it = banks.find(b);
    if (it == banks.end())
      it = banks.emplace(b, smt.ctx().constant(fmt::format("c{}", b).c_str(), bytes)).first;
    return it->second;
  }
  // The address of a variable or parameter in its space (an offset for windowed spaces, a
  // generic address for .global), unconstrained but aligned as the interpreter aligns it and,
  // with its `size` bytes, inside its window.
  z3::expr base(const std::string &key, std::optional<uint64_t> windowSize, uint64_t align,
                uint64_t size) {
    auto it = bases.find(key);
    if (it != bases.end())
      return it->second;
    z3::expr b = smt.bvVar("&" + key, 64);
    if (windowSize)
      assumptions =
          assumptions && z3::ult(b, smt.bv(*windowSize, 64)) &&
          (size <= *windowSize ? z3::ule(b, smt.bv(*windowSize - size, 64)) : smt.boolVal(true));
    if (align > 1 && (align & (align - 1)) == 0)
      assumptions = assumptions && (b & smt.bv(align - 1, 64)) == smt.bv(0, 64);
    return bases.emplace(key, b).first->second;
  }
  z3::expr initReg(Reg r) {
    auto it = initRegs.find(r);
    if (it != initRegs.end())
      return it->second;
    std::string name = fmt::format("initial {}{}", regFilePrefix(r.file), r.num);
    z3::expr v = r.isPredicate() ? smt.boolVar(name) : smt.bvVar(name, 64);
    return initRegs.emplace(r, v).first->second;
  }
  // mapped(address, bytes), remembered: a replayable counterexample pins every use down.
  std::vector<std::pair<z3::expr, unsigned>> mappedUses;
  z3::expr mapped(const z3::expr &addr, unsigned bytes) {
    mappedUses.emplace_back(addr, bytes);
    return valid(addr, smt.bv(bytes, 32));
  }
  z3::func_decl function(const std::string &name, const z3::sort_vector &domain,
                         const z3::sort &range) {
    auto it = functions.find(name);
    if (it == functions.end())
      it = functions.emplace(name, smt.ctx().function(name.c_str(), domain, range)).first;
    return it->second;
  }
};

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

// Does the instruction read its float immediates as binary64?
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

// Thread-private memory: the local window and .param storage.
z3::expr isPrivate(Smt &smt, const z3::expr &a) {
  auto in = [&](uint64_t base, uint64_t size) {
    return z3::ult(a - smt.bv(base, 64), smt.bv(size, 64));
  };
  return in(kLocalWindow, kLocalSize) || in(kParamWindow, kParamSize);
}

// Alive2's rule for allocas, for a function's own .local variables (docs/verifier.md,
// "Local variables"): a variable whose address never leaves the function's registers (no
// value computed from it is stored, atomically written, or read by a CALL or an OPAQUE
// instruction) can be reached only through an address computed from it. An access through
// another address that would touch its bytes faults: no program can make one (its address
// is known to no one else), so a pass may hold such a variable in registers (phase 37).
// `derived` over-approximates which variables each register's value is computed from
// (through every instruction), which only makes fewer accesses fault.
struct LocalProvenance {
  std::vector<const Variable *> owned; // the function's .local variables that do not escape
  std::map<Reg, std::set<std::string>> derived;
  bool derivedFrom(const Operand &address, const std::string &var) const {
    if (address.sym == var)
      return true;
    if (!address.hasReg)
      return false;
    auto it = derived.find(address.reg);
    return it != derived.end() && it->second.count(var);
  }
};

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

// One side: the function's states over the unrolled CFG.
class SideEncoder {
public:
  // `source`: the side whose behaviour is the specification; only it assumes local
  // provenance (LocalProvenance: an access that breaks it faults there, as undefined behaviour
  // does in Alive2's source), so the rule can never make the target fault.
  SideEncoder(Inputs &x, const Module &m, const Function &f, unsigned unroll, bool source = false)
      : fault(x.smt.boolVal(false)), bound(x.smt.boolVal(false)), exited(x.smt.boolVal(false)),
        trapped(x.smt.boolVal(false)), exitMem(x.mem0), exitPriv(x.priv0),
        exitBarriers(x.smt.bv(0, 32)), x_(x), smt_(x.smt), m_(m), f_(f), unroll_(unroll),
        frame_(f.name), provenance_(source ? localProvenance(f) : LocalProvenance{}),
        source_(source), encoded_(&ownEncoded_) {}

  z3::expr fault, bound, exited, exitMem, exitPriv, exitBarriers;
  // A path ended by TRAP (the grid aborts: nothing after it is observable, so only whether it
  // trapped is compared; such a path is not `exited`).
  z3::expr trapped;
  std::vector<std::pair<std::string, z3::expr>>
      faultSites; // where `fault` comes from (for reasons)
  std::optional<std::string> unmodelled;

  struct State {
    z3::expr pc;
    std::map<Reg, z3::expr> regs; // registers written so far (all of them in a segment)
    z3::expr mem;                 // shared memory (Inputs::mem0)
    z3::expr priv;                // private memory (Inputs::priv0)
    z3::expr barriers;            // barriers passed (BV32)
  };
  // The shared memory at a barrier: under `when`, barrier number `index` saw `mem`.
  struct Snapshot {
    z3::expr when, index, mem;
  };
  std::vector<Snapshot> snapshots;
  // The memory the k-th barrier saw (`before` for barriers no snapshot here records).
  z3::expr snapshotAt(const z3::expr &k, const z3::expr &before) const {
    z3::expr m = before;
    for (const Snapshot &sn : snapshots)
      m = z3::ite(sn.when && sn.index == k, sn.mem, m);
    return m;
  }

  // The whole function from bix0 and the interpreter's initial state, loops unrolled.
  void run() {
    State init{smt_.boolVal(true), {}, x_.mem0, x_.priv0, smt_.bv(0, 32)};
    runFrom(0, init);
  }

  // A segment: from block `start` in state `init` until control reaches a block of `cuts`
  // (recorded in `arrivals`, not entered) or ends. With cuts covering every cycle and
  // unroll 0, no path is cut short (`bound` stays false).
  void runSegment(uint32_t start, const State &init, const std::set<uint32_t> &cuts) {
    cuts_ = cuts;
    runFrom(start, init);
  }
  std::map<uint32_t, std::vector<State>> arrivals;

  State mergeStates(const std::vector<State> &in) { return merge(in); }
  // Registers the function mentions.
  std::set<Reg> registers() const {
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
  // Blocks entered by a retreating edge of the depth-first order from bix0: every cycle
  // reachable from the entry passes through one.
  std::set<uint32_t> loopHeaders() {
    computeOrder(0);
    std::set<uint32_t> hs;
    for (uint32_t b : order_)
      for (uint32_t t : successors(b))
        if (rpoNum_[t] <= rpoNum_[b])
          hs.insert(t);
    return hs;
  }

private:
  void runFrom(uint32_t start, const State &init) {
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

  std::set<uint32_t> cuts_;
  static constexpr size_t kMaxEncodedInstrs = 20000;

  Inputs &x_;
  Smt &smt_;
  const Module &m_;
  const Function &f_;
  unsigned unroll_;
  // The frame: the function's name, or for an inlined callee the call path
  // ("kernel>f>g"), which keys its .local and .param variables (Inputs::base) apart from
  // other frames'. A callee's registers start at zero (a fresh register file, as in the
  // interpreter) and its RETs return to the caller (`returns_`) instead of ending the thread.
  std::string frame_;
  LocalProvenance provenance_; // of f_, on the source side only
  bool source_ = false;
  unsigned depth_ = 0;
  std::vector<State> returns_;
  size_t ownEncoded_ = 0;
  size_t *encoded_;             // instructions encoded so far (unrolled copies and callees counted)
  std::vector<uint32_t> order_; // blocks in reverse postorder from bix0
  std::vector<uint32_t> rpoNum_; // position in order_, or UINT32_MAX
  std::vector<std::vector<State>> incoming_;

  // Successor blocks as the instructions say (branch targets anywhere in the block, the
  // jump tables of BRX, the next block when the last instruction can fall through).
  std::vector<uint32_t> successors(uint32_t b) const {
    std::vector<uint32_t> s;
    bool fallsThrough = true;
    for (const Instr &in : f_.blocks[b].instrs) {
      if (in.op == Opcode::BRA && !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Label)
        s.push_back(in.srcs[0].target);
      if (isTableBranch(in.op) && in.srcs.size() > 1 &&
          in.srcs[1].kind == Operand::Kind::JumpTable && in.srcs[1].target < f_.jumpTables.size())
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

  // Reverse postorder by an explicit-stack depth-first search from bix0.
  void computeOrder(uint32_t start) {
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

  State merge(const std::vector<State> &in) {
    if (in.size() == 1)
      return in[0];
    State s{in.back().pc, {}, in.back().mem, in.back().priv, in.back().barriers};
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
      for (Reg r : written)
        s.regs.at(r) = iteOf(t.pc, regOf(t, r), s.regs.at(r));
    }
    return s;
  }

  // ite(c, a, b), without the ite when both are the same term (Z3 shares equal terms, so
  // a value no path changed stays one term however many paths merge).
  static z3::expr iteOf(const z3::expr &c, const z3::expr &a, const z3::expr &b) {
    return z3::eq(a, b) ? a : z3::ite(c, a, b);
  }
  // a || b for path conditions, folding the two halves of a branch (p && g, p && !g) back
  // into p. Z3's simplify would find this too, but it walks the whole term each time, and
  // path conditions grow with the function: quadratic time on long functions.
  static z3::expr orPc(const z3::expr &a, const z3::expr &b) {
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

  z3::expr regOf(const State &s, Reg r) {
    if (r.isConst())
      return r.isPredicate() ? smt_.boolVal(true) : smt_.bv(0, 64);
    auto it = s.regs.find(r);
    if (it != s.regs.end())
      return it->second;
    if (depth_ > 0)
      return r.isPredicate() ? smt_.boolVal(false) : smt_.bv(0, 64);
    return x_.initReg(r);
  }

  void edge(uint32_t from, unsigned k, uint32_t to, State s) {
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

  void addFault(const Instr &in, const z3::expr &cond) {
    fault = fault || cond;
    faultSites.push_back(
        {fmt::format("{} at line {}",
                     in.op == Opcode::OPAQUE ? "OPAQUE" : std::string(in.info().name), in.loc.line),
         cond});
  }

  void exit(const State &s) {
    exited = exited || s.pc;
    exitMem = z3::ite(s.pc, s.mem, exitMem);
    exitPriv = z3::ite(s.pc, s.priv, exitPriv);
    exitBarriers = z3::ite(s.pc, s.barriers, exitBarriers);
  }

  // BAR: the shared memory now is observed (other threads may read it after the barrier)
  // and becomes what they left: the barrier's snapshot of `others`, the same on both sides.
  // The thread's private memory stays.
  void barrier(const z3::expr &g, State &s) {
    snapshots.push_back({s.pc && g, s.barriers, s.mem});
    s.mem = z3::ite(g, x_.others(s.barriers), s.mem);
    s.barriers = z3::ite(g, s.barriers + smt_.bv(1, 32), s.barriers);
  }

  z3::expr guardOf(const Instr &in, const State &s) {
    if (!in.guard)
      return smt_.boolVal(true);
    z3::expr g = regOf(s, in.guard->reg);
    if (!in.guard->neg)
      return g;
    return g.is_true() ? smt_.boolVal(false) : g.is_false() ? smt_.boolVal(true) : !g;
  }
  // pc && g and pc && !g, kept literal when g is a constant (an unguarded branch ends the path).
  z3::expr taken(const z3::expr &pc, const z3::expr &g) {
    return g.is_true() ? pc : g.is_false() ? smt_.boolVal(false) : pc && g;
  }
  z3::expr notTaken(const z3::expr &pc, const z3::expr &g) {
    return g.is_true() ? smt_.boolVal(false) : g.is_false() ? pc : pc && !g;
  }

  void runBlock(uint32_t b, unsigned k, State s) {
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
        // BAR.RED's result comes from the other threads: unmodelled, like any barrier but 0.
        if (!in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Imm && in.srcs[0].imm == 0 &&
            (in.srcs.size() == 1) && in.dsts.empty() && !in.has(Mod::RED) &&
            (in.has(Mod::SYNC) || in.has(Mod::ARV)))
          barrier(g, s);
        else
          unmodelledAt(in, "a barrier other than BAR.SYNC 0 (named barriers with thread counts and "
                           "BAR.RED's reductions are not modelled)");
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
        memoryAccess(in, g, s);
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
        constantLoad(in, g, s);
        break;
      case Opcode::SULD:
      case Opcode::SUST:
      case Opcode::TEX:
        unmodelledAt(in, "surface and texture memory are not modelled");
      case Opcode::LDGSTS:
      case Opcode::LDGDEPBAR:
      case Opcode::DEPBAR:
        unmodelledAt(in, "asynchronous copies are not modelled");
      case Opcode::LDSM:
      case Opcode::STSM:
        unmodelledAt(in, "warp-level matrix loads and stores are not modelled");
      case Opcode::ACQBULK:
      case Opcode::PREEXIT:
      case Opcode::SETMAXREG:
        break; // one grid, no register budget: nothing happens (docs/interpreter.md)
      case Opcode::MOV:
        if (in.srcs.size() == 1 && in.srcs[0].kind == Operand::Kind::Symbol &&
            in.dsts.size() == 1) {
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
        compute(in, s, smt_.bv(0, 64));
        break;
      default:
        compute(in, s, smt_.bv(0, 64));
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

  [[noreturn]] void unmodelledAt(const Instr &in, const std::string &why) {
    throw Unmodelled{fmt::format("{} at line {} ({})",
                                 in.op == Opcode::OPAQUE ? "OPAQUE" : std::string(in.info().name),
                                 in.loc.line, why)};
  }

  // The raw value of source i as the models take it (opcode_model.h, ModelInputs).
  z3::expr sourceValue(const Instr &in, size_t i, const State &s) {
    const Operand &o = in.srcs[i];
    switch (o.kind) {
    case Operand::Kind::Reg:
      return regOf(s, o.reg);
    case Operand::Kind::Imm:
      return smt_.bv(uint64_t(o.imm), 64);
    case Operand::Kind::FImm:
      if (in.op == Opcode::HADD2 || in.op == Opcode::HMUL2 || in.op == Opcode::HFMA2)
        unmodelledAt(in, "a float immediate of a half-precision pair");
      return readsF64(in) ? smt_.bv(std::bit_cast<uint64_t>(o.fimm), 64)
                          : smt_.bv(std::bit_cast<uint32_t>(float(o.fimm)), 64);
    case Operand::Kind::CBank:
      return readWord(smt_, bankArray(in, o, s), bankOffset(o, s));
    case Operand::Kind::Symbol:
      return symbolValue(in, o);
    default:
      return smt_.bv(0, 64); // special registers, labels, tables: the model reads them otherwise
    }
  }

  z3::expr bankOffset(const Operand &o, const State &s) {
    z3::expr off = smt_.bv(uint64_t(o.imm), 64);
    if (o.hasReg)
      off = off + Smt::zext(Smt::low(regOf(s, o.reg), 32), 64);
    return off;
  }
  // Bank 3 is the module's .const data: the const window of memory (docs/interpreter.md).
  z3::expr bankArray(const Instr &in, const Operand &o, const State &s) {
    (void)in;
    return o.bank == 3 ? s.mem : x_.bank(o.bank);
  }

  // MOV R, sym: a variable's address in its space, a function's address.
  z3::expr symbolValue(const Instr &in, const Operand &o) {
    const Param *param = nullptr;
    const Variable *v = findVariable(m_, f_, o.sym, &param);
    if (v || param)
      return variableBase(in, o.sym, v, param).first;
    for (size_t i = 0; i < m_.functions.size(); ++i)
      if (m_.functions[i].name == o.sym)
        return smt_.bv(kFunctionBase + 16 * i, 64);
    unmodelledAt(in, fmt::format("undefined symbol '{}'", o.sym));
  }

  // A variable's address in its space and the window it lives in (0 for .global).
  std::pair<z3::expr, uint64_t> variableBase(const Instr &in, const std::string &name,
                                             const Variable *v, const Param *param) {
    bool fnScope = v && std::any_of(f_.variables.begin(), f_.variables.end(),
                                    [&](const Variable &w) { return &w == v; });
    uint64_t align = v ? v->align : param->align, size = v ? v->size() : param->size;
    if (param || (v && v->space == Space::Param))
      return {x_.base(fmt::format("{}.param {}", frame_, name), kParamSize, align, size),
              kParamWindow};
    switch (v->space) {
    case Space::Global:
      return {x_.base(fmt::format("global {}", name), std::nullopt, align, size), 0};
    case Space::Const:
      return {x_.base(fmt::format("const {}", name), uint64_t(64) << 20, align, size),
              kConstWindow};
    case Space::Shared:
      return {x_.base(fnScope ? fmt::format("{}.shared {}", f_.name, name)
                              : fmt::format("shared {}", name),
                      kSharedSize, align, size),
              kSharedWindow};
    case Space::Local:
      return {x_.base(fmt::format("{}.local {}", frame_, name), kLocalSize, align, size),
              kLocalWindow};
    default:
      unmodelledAt(in, "a variable of an unknown space");
    }
  }

  // Runs the model of `in` with `word` as the memory word it reaches; writes destinations;
  // returns the memory word afterwards (stores and atomics).
  std::optional<z3::expr> compute(const Instr &in, State &s, const z3::expr &word) {
    ModelInputs mi{{}, smt_.boolVal(true), {}, word, x_.tid, x_.ctaid, x_.ntid, x_.nctaid};
    for (size_t i = 0; i < in.srcs.size(); ++i)
      mi.srcs.push_back(sourceValue(in, i, s));
    if (in.guard)
      mi.guard = regOf(s, in.guard->reg);
    for (const Operand &d : in.dsts) {
      if (d.kind != Operand::Kind::Reg)
        unmodelledAt(in, "a destination that is not a register");
      mi.oldDsts.push_back(regOf(s, d.reg));
    }
    std::optional<ModelOutputs> out;
    bool warp = in.op == Opcode::VOTE || in.op == Opcode::SHFL || in.op == Opcode::MATCH ||
                in.op == Opcode::REDUX;
    if (in.op != Opcode::OPAQUE && !warp)
      out = modelInstr(smt_, in, mi);
    if (!out) {
      std::string why = in.op == Opcode::OPAQUE ? "its meaning is unknown"
                        : warp                  ? "warp-level values are not modelled"
                                                : "no model for this modifier combination";
      unmodelledAt(in, why);
    }
    // A warp-level matrix instruction's model is uninterpreted functions of its inputs
    // (verify/model_matrix.cpp): a difference they allow is no counterexample.
    if (const ModelEntry *e = findModelEntry(in.op); e && e->uninterpreted)
      x_.approximations.insert(fmt::format("{} at line {} (a warp-level matrix instruction)",
                                           in.info().name, in.loc.line));
    for (size_t i = 0; i < in.dsts.size(); ++i)
      if (!in.dsts[i].reg.isConst())
        s.regs.insert_or_assign(in.dsts[i].reg, out->dsts[i]);
    return out->memory;
  }

  void memoryAccess(const Instr &in, const z3::expr &g, State &s) {
    const Operand &o = in.srcs.empty() ? Operand{} : in.srcs[0];
    if (o.kind != Operand::Kind::Mem)
      unmodelledAt(in, "an address that is not [R+imm]");
    bool atomic = isAtomic(in.op);
    bool isStore = atomic || in.op == Opcode::ST || in.op == Opcode::STG || in.op == Opcode::STS ||
                   in.op == Opcode::STL;
    unsigned bytes = atomic ? atomicBytes(in.mods) : accessBytes(in);
    if (bytes > 8)
      unmodelledAt(in, "128-bit atomics are not modelled");
    z3::expr a = smt_.bv(uint64_t(o.imm), 64);
    if (o.hasReg)
      a = a + regOf(s, o.reg);
    enum class Sp {
      Global,
      Shared,
      Local,
      Generic
    } sp = in.op == Opcode::LDG || in.op == Opcode::STG || in.op == Opcode::ATOMG ||
                   in.op == Opcode::REDG
               ? Sp::Global
           : in.op == Opcode::LDS || in.op == Opcode::STS || in.op == Opcode::ATOMS ? Sp::Shared
           : in.op == Opcode::LDL || in.op == Opcode::STL                           ? Sp::Local
                                                                                    : Sp::Generic;
    z3::expr addr = a;                  // the generic address
    z3::expr bad = smt_.boolVal(false); // this access faults
    auto windowFault = [&](const z3::expr &off, uint64_t size) {
      return !z3::ule(off, smt_.bv(size - bytes, 64));
    };
    if (!o.sym.empty()) {
      const Param *param = nullptr;
      const Variable *v = findVariable(m_, f_, o.sym, &param);
      if (!v && !param)
        unmodelledAt(in, fmt::format("undefined symbol '{}'", o.sym));
      auto [base, window] = variableBase(in, o.sym, v, param);
      Space space = param ? Space::Param : v->space;
      bool fits = sp == Sp::Generic || (sp == Sp::Global && space == Space::Global) ||
                  (sp == Sp::Shared && space == Space::Shared) ||
                  (sp == Sp::Local && space == Space::Local);
      if (!fits)
        unmodelledAt(in, "a variable of another state space");
      z3::expr off = base + a;
      addr = smt_.bv(window, 64) + off;
      // Within the variable's own bytes no access faults (but for alignment, below); the
      // interpreter allocates every variable.
      uint32_t size = v ? v->size() : param->size;
      z3::expr inside = size >= bytes ? z3::ule(a, smt_.bv(size - bytes, 64)) : smt_.boolVal(false);
      if (space == Space::Shared)
        bad = windowFault(off, kSharedSize);
      else if (space == Space::Local)
        bad = windowFault(off, kLocalSize);
      else
        bad = !inside && !x_.mapped(addr, bytes);
      if (isStore && space == Space::Const)
        bad = smt_.boolVal(true);
    } else if (sp == Sp::Shared) {
      addr = smt_.bv(kSharedWindow, 64) + a;
      bad = windowFault(a, kSharedSize);
    } else if (sp == Sp::Local) {
      addr = smt_.bv(kLocalWindow, 64) + a;
      bad = windowFault(a, kLocalSize);
    } else {
      auto inWindow = [&](uint64_t base, uint64_t size) {
        return z3::ult(a - smt_.bv(base, 64), smt_.bv(size, 64));
      };
      z3::expr shared = inWindow(kSharedWindow, kSharedSize),
               local = inWindow(kLocalWindow, kLocalSize);
      bad = z3::ite(shared, windowFault(a - smt_.bv(kSharedWindow, 64), kSharedSize),
                    z3::ite(local, windowFault(a - smt_.bv(kLocalWindow, 64), kLocalSize),
                            !x_.mapped(a, bytes)));
      if (isStore && sp == Sp::Generic)
        bad = bad || inWindow(kConstWindow, uint64_t(64) << 20);
      // A global access faults in every window: the interpreter's global accesses reach
      // buffers and .global variables only.
      if (sp == Sp::Global)
        bad = bad || shared || local || inWindow(kConstWindow, uint64_t(64) << 20);
    }
    bad = bad || (addr & smt_.bv(bytes - 1, 64)) != smt_.bv(0, 64);
    // The function's own local variables that do not escape: only addresses computed from
    // them reach them (LocalProvenance).
    for (const Variable *v : provenance_.owned) {
      if (provenance_.derivedFrom(o, v->name))
        continue;
      const z3::expr start =
          smt_.bv(kLocalWindow, 64) + variableBase(in, v->name, v, nullptr).first;
      bad = bad || z3::ult(addr - start, smt_.bv(v->size(), 64)) ||
            z3::ult(start - addr, smt_.bv(bytes, 64));
    }
    addFault(in, s.pc && g && bad);
    z3::expr priv = isPrivate(smt_, addr);
    std::optional<z3::expr> word =
        compute(in, s, readWord(smt_, z3::ite(priv, s.priv, s.mem), addr));
    if (isStore) {
      if (!word)
        unmodelledAt(in, "a store without a memory result");
      s.mem = z3::ite(priv, s.mem, writeWord(smt_, s.mem, addr, *word, bytes));
      s.priv = z3::ite(priv, writeWord(smt_, s.priv, addr, *word, bytes), s.priv);
    }
  }

  void constantLoad(const Instr &in, const z3::expr &g, State &s) {
    if (in.srcs.empty() || in.srcs[0].kind != Operand::Kind::CBank)
      unmodelledAt(in, "LDC without a constant-bank operand");
    const Operand &o = in.srcs[0];
    unsigned bytes = accessBytes(in);
    z3::expr off = bankOffset(o, s);
    z3::expr bad = (off & smt_.bv(bytes - 1, 64)) != smt_.bv(0, 64);
    z3::expr word = smt_.bv(0, 64);
    if (o.bank == 3) {
      z3::expr addr = smt_.bv(kConstWindow, 64) + off;
      bad = bad || !x_.mapped(addr, bytes);
      word = readWord(smt_, s.mem, addr);
    } else {
      word = readWord(smt_, x_.bank(o.bank), off);
    }
    addFault(in, s.pc && g && bad);
    compute(in, s, word);
  }

  // A call to a function of the module with a body, its arguments and results .param
  // variables: inlined up to Inputs::inlineDepth, with the interpreter's semantics
  // (docs/interpreter.md, "Calls"). Any other call: an uninterpreted effect of the callee
  // (named, or the address in the register) on memory and on the register results; it may
  // also end the thread or fault. Calls with the same callee and the same memory and
  // arguments have the same effect on both sides.
  void call(const Instr &in, const z3::expr &g, State &s) {
    if (in.srcs.empty())
      unmodelledAt(in, "CALL without a target");
    const Operand &t = in.srcs[0];
    std::string callee = t.kind == Operand::Kind::Symbol ? t.sym
                         : t.kind == Operand::Kind::Reg  ? "(indirect)"
                                                         : "";
    if (callee.empty())
      unmodelledAt(in, "CALL without a target");
    const Function *fn = t.kind == Operand::Kind::Symbol ? m_.findFunction(t.sym) : nullptr;
    bool hasBody = fn && !fn->isEntry && !fn->isDeclaration();
    bool paramLists =
        std::all_of(in.srcs.begin() + 1, in.srcs.end(),
                    [](const Operand &o) { return o.kind == Operand::Kind::Symbol; }) &&
        std::all_of(in.dsts.begin(), in.dsts.end(),
                    [](const Operand &o) { return o.kind == Operand::Kind::Symbol; });
    bool small = hasBody && frameBytes(*fn) <= kMaxFrameBytes;
    if (hasBody && paramLists && small && depth_ < x_.inlineDepth) {
      inlineCall(in, g, s, *fn);
      return;
    }
    if (hasBody)
      x_.approximations.insert(
          fmt::format("the call to {} at line {} ({})", fn->name, in.loc.line,
                      !paramLists ? "registers as arguments or results"
                      : !small    ? fmt::format("a frame larger than {} bytes", kMaxFrameBytes)
                                  : std::string("beyond the inline depth")));
    else if (t.kind == Operand::Kind::Reg)
      x_.approximations.insert(fmt::format("the indirect call at line {}", in.loc.line));
    z3::context &c = smt_.ctx();
    z3::sort_vector domain(c);
    z3::expr_vector args(c);
    domain.push_back(x_.bytes);
    args.push_back(s.mem);
    domain.push_back(x_.bytes);
    args.push_back(s.priv);
    domain.push_back(c.bv_sort(64));
    args.push_back(t.kind == Operand::Kind::Reg ? regOf(s, t.reg) : smt_.bv(0, 64));
    for (size_t i = 1; i < in.srcs.size(); ++i) {
      if (in.srcs[i].kind != Operand::Kind::Reg)
        continue; // .param arguments are in memory
      z3::expr v = regOf(s, in.srcs[i].reg);
      domain.push_back(v.get_sort());
      args.push_back(v);
    }
    std::string sig = fmt::format("{}/{}", callee, args.size());
    z3::expr memAfter = x_.function("call " + sig + " memory", domain, x_.bytes)(args);
    z3::expr privAfter = x_.function("call " + sig + " private memory", domain, x_.bytes)(args);
    z3::expr ends = x_.function("call " + sig + " exits", domain, c.bool_sort())(args);
    z3::expr faults = x_.function("call " + sig + " faults", domain, c.bool_sort())(args);
    addFault(in, s.pc && g && faults);
    for (size_t i = 0; i < in.dsts.size(); ++i) {
      const Operand &d = in.dsts[i];
      if (d.kind != Operand::Kind::Reg || d.reg.isConst())
        continue;
      z3::sort r = d.reg.isPredicate() ? c.bool_sort() : c.bv_sort(64);
      z3::expr v = x_.function(fmt::format("call {} result {}", sig, i), domain, r)(args);
      s.regs.insert_or_assign(d.reg, z3::ite(g, v, regOf(s, d.reg)));
    }
    State done = s;
    done.pc = s.pc && g && ends;
    done.mem = memAfter;
    done.priv = privAfter;
    exit(done);
    s.mem = z3::ite(g, memAfter, s.mem);
    s.priv = z3::ite(g, privAfter, s.priv);
    s.pc = s.pc && !(g && ends);
  }

  // The .param or .local variable (or formal parameter) `name` of this frame: base, size.
  std::pair<z3::expr, uint32_t> frameVariable(const Instr &in, const std::string &name) {
    const Param *param = nullptr;
    const Variable *v = findVariable(m_, f_, name, &param);
    if (!v && !param)
      unmodelledAt(in, fmt::format("undefined symbol '{}'", name));
    if (v && v->space != Space::Param && v->space != Space::Local)
      unmodelledAt(in, fmt::format("'{}' is not a .param variable", name));
    return {variableBase(in, name, v, param).first, v ? v->size() : param->size};
  }

  // A callee's frame is zeroed byte by byte at each inlined call: larger ones are not inlined.
  static constexpr uint64_t kMaxFrameBytes = 4096;
  static uint64_t frameBytes(const Function &fn) {
    uint64_t n = 0;
    for (const auto *list : {&fn.params, &fn.returns})
      for (const Param &p : *list)
        n += p.size;
    for (const Variable &v : fn.variables)
      if (v.space == Space::Param || v.space == Space::Local)
        n += v.size();
    return n;
  }

  // Inlines `fn` at `in`: a fresh frame (registers zero; .local and .param storage zero but
  // for initializers), each argument copied into the parameter of its position (the
  // smaller size), the callee run to its RETs, each return value copied into the result
  // variable of its position. EXIT in the callee ends the thread; faults, unrolling bounds
  // and barriers count as the caller's.
  void inlineCall(const Instr &in, const z3::expr &g, State &s, const Function &fn) {
    size_t nargs = in.srcs.size() - 1;
    if ((nargs != 0 && nargs != fn.params.size()) ||
        (!in.dsts.empty() && in.dsts.size() != fn.returns.size()))
      unmodelledAt(in, fmt::format("a call whose lists do not match {}'s signature", fn.name));
    SideEncoder callee(x_, m_, fn, unroll_, source_);
    callee.frame_ = frame_ + ">" + fn.name;
    callee.depth_ = depth_ + 1;
    callee.encoded_ = encoded_;
    auto pb = [&](const z3::expr &base, uint64_t k) {
      return smt_.bv(kParamWindow, 64) + base + smt_.bv(k, 64);
    };
    // Arguments, read before the callee's frame is written.
    std::vector<std::vector<z3::expr>> argBytes;
    for (size_t k = 0; k < nargs; ++k) {
      auto [base, size] = frameVariable(in, in.srcs[k + 1].sym);
      std::vector<z3::expr> bytes;
      for (uint32_t i = 0; i < std::min(size, fn.params[k].size); ++i)
        bytes.push_back(z3::select(s.priv, pb(base, i)));
      argBytes.push_back(std::move(bytes));
    }
    // The fresh frame (at most kMaxFrameBytes: call() checked).
    z3::expr priv = s.priv;
    auto clear = [&](const z3::expr &addr0, uint32_t size, const std::vector<uint8_t> &init) {
      for (uint32_t i = 0; i < size; ++i)
        priv = z3::store(priv, addr0 + smt_.bv(i, 64), smt_.bv(i < init.size() ? init[i] : 0, 8));
    };
    for (const Param &p : fn.params)
      clear(pb(callee.frameVariable(in, p.name).first, 0), p.size, {});
    for (const Param &p : fn.returns)
      clear(pb(callee.frameVariable(in, p.name).first, 0), p.size, {});
    for (const Variable &v : fn.variables)
      if (v.space == Space::Param)
        clear(pb(callee.frameVariable(in, v.name).first, 0), v.size(), v.init);
      else if (v.space == Space::Local)
        clear(smt_.bv(kLocalWindow, 64) + callee.frameVariable(in, v.name).first, v.size(), v.init);
    for (size_t k = 0; k < nargs; ++k) {
      z3::expr base = callee.frameVariable(in, fn.params[k].name).first;
      for (size_t i = 0; i < argBytes[k].size(); ++i)
        priv = z3::store(priv, pb(base, i), argBytes[k][i]);
    }
    callee.runFrom(0, State{taken(s.pc, g), {}, s.mem, priv, s.barriers});
    if (callee.unmodelled)
      throw Unmodelled{
          fmt::format("{} (in {}, called at line {})", *callee.unmodelled, fn.name, in.loc.line)};
    fault = fault || callee.fault;
    faultSites.insert(faultSites.end(), callee.faultSites.begin(), callee.faultSites.end());
    bound = bound || callee.bound;
    trapped = trapped || callee.trapped;
    snapshots.insert(snapshots.end(), callee.snapshots.begin(), callee.snapshots.end());
    if (!callee.exited.is_false()) {
      exited = exited || callee.exited;
      exitMem = z3::ite(callee.exited, callee.exitMem, exitMem);
      exitPriv = z3::ite(callee.exited, callee.exitPriv, exitPriv);
      exitBarriers = z3::ite(callee.exited, callee.exitBarriers, exitBarriers);
    }
    // Back in the caller: its registers, the callee's memory, the results copied.
    std::vector<State> after;
    if (!callee.returns_.empty()) {
      State r = callee.merge(callee.returns_);
      // (each result variable with the bytes it gets, all read before any is written)
      std::vector<std::pair<z3::expr, std::vector<z3::expr>>> results;
      for (size_t k = 0; k < in.dsts.size(); ++k) {
        auto [from, size] = callee.frameVariable(in, fn.returns[k].name);
        auto [to, room] = frameVariable(in, in.dsts[k].sym);
        std::vector<z3::expr> bytes;
        for (uint32_t i = 0; i < std::min(size, room); ++i)
          bytes.push_back(z3::select(r.priv, pb(from, i)));
        results.emplace_back(to, std::move(bytes));
      }
      for (const auto &[to, bytes] : results)
        for (size_t i = 0; i < bytes.size(); ++i)
          r.priv = z3::store(r.priv, pb(to, i), bytes[i]);
      after.push_back(State{r.pc, s.regs, r.mem, r.priv, r.barriers});
    }
    State skipped = s;
    skipped.pc = notTaken(s.pc, g);
    if (!skipped.pc.is_false() || after.empty())
      after.push_back(skipped);
    s = merge(after);
  }
};

// ORIOPT_TV_TRACE=1: each Z3 query of the inductive proof on standard error, with its time.
bool traceEnabled() {
  static const bool on = [] {
    const char *t = std::getenv("ORIOPT_TV_TRACE");
    return t && *t && std::string(t) != "0";
  }();
  return on;
}

// Z3's solver for arrays, uninterpreted functions and bit-vectors: on these queries it is
// orders of magnitude faster than the default (a loop unrolled twice: 0.3 s against 55 s).
// ORIOPT_TV_LOGIC names another logic, for experiments.
z3::solver makeSolver(Smt &smt) {
  const char *logic = std::getenv("ORIOPT_TV_LOGIC");
  return z3::solver(smt.ctx(), logic && *logic ? logic : "QF_AUFBV");
}

// solver.check() within `timeoutMs`, by turns on the QF_AUFBV solver and on Z3's default
// solver: neither is always the faster (the QF_AUFBV solver is incomplete on the arrays of
// arrays that hold barrier snapshots and gives up; on some long segments it takes a minute
// where the default solver takes 0.2 s, on loops unrolled twice the reverse). Each gets 2 s
// first (at most a quarter of the time), then half of what is left. The model of a sat answer
// is in `solver` afterwards.
z3::check_result checkWithFallback(Smt &smt, z3::solver &solver, unsigned timeoutMs) {
  // Taken before check(): a tactic solver that gives up leaves its assertions preprocessed
  // (variables solved away), and a model of those does not assign the eliminated ones.
  const z3::expr_vector asserted = solver.assertions();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
  const unsigned first = std::max(1u, std::min(2000u, timeoutMs / 4));
  auto attempt = [&](bool general, unsigned ms) {
    z3::solver q = general ? z3::solver(smt.ctx()) : makeSolver(smt);
    z3::params p(smt.ctx());
    p.set("timeout", std::max(1u, ms));
    q.set(p);
    for (const z3::expr &e : asserted)
      q.add(e);
    z3::check_result r = q.check();
    solver = q; // its model, or why it gave up
    if (r == z3::sat) {
      // The QF_AUFBV solver's models do not always evaluate every term (uninterpreted
      // functions and arrays); a counterexample must, so such a model does not count.
      z3::model m = q.get_model();
      for (const z3::expr &e : asserted)
        if (!m.eval(e, true).is_true())
          return z3::unknown;
    }
    return r;
  };
  auto left = [&] {
    long long ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                       deadline - std::chrono::steady_clock::now())
                       .count();
    return unsigned(std::max<long long>(ms, 1));
  };
  for (auto [general, ms] : {std::pair{false, first}, std::pair{true, first}}) {
    z3::check_result r = attempt(general, ms);
    if (r != z3::unknown)
      return r;
  }
  z3::check_result r = attempt(false, left() / 2);
  if (r != z3::unknown)
    return r;
  return attempt(true, left());
}

// Where the target may fault and the source may not: the target's fault sites but those whose
// condition is the same term as one of the source's (which `!source.fault` makes false).
// Equal terms are common (a pass keeps most instructions as they were), and without them Z3
// need not bit-blast the conditions to see that each implies itself.
z3::expr newFaults(const SideEncoder &s, const SideEncoder &t, z3::context &c) {
  std::set<unsigned> sourceSites;
  for (const auto &[where, cond] : s.faultSites)
    sourceSites.insert(cond.id());
  z3::expr f = c.bool_val(false);
  for (const auto &[where, cond] : t.faultSites)
    if (!sourceSites.count(cond.id()))
      f = f || cond;
  return f;
}

// The observable state two sides must agree on where they end (exit or return).
struct Observation {
  z3::expr differs;
};

// For loops whose inputs need more back edges than the bound: an inductive proof. The
// source's loop headers are cut points, matched to the target's blocks of the same label;
// at each, the two states are assumed related (the same memory, barrier history, and equal
// values for a set of register pairs) and every loop-free segment from a cut point (or the
// entry) to the next cut point or the end must keep the relation and end the same way. The
// register pairs are found Houdini-style: start from every pair (r, r) and every pair a copy
// makes, drop the pairs a counterexample breaks, repeat. Success proves refinement for
// every input; failure only means no such relation was found (the verdict stays unknown).
std::optional<std::string> inductiveProof(Smt &smt, Inputs &x, const Module &src,
                                          const Function &fs, const Module &tgt, const Function &ft,
                                          const TvOptions &opts,
                                          std::chrono::steady_clock::time_point deadline,
                                          bool syntacticFirst) {
  const double secondsGiven = std::max(
      0.0, std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count());
  SideEncoder probe(x, src, fs, 0);
  std::set<uint32_t> headers = probe.loopHeaders();
  std::map<uint32_t, uint32_t> corr; // source header -> target block
  std::set<uint32_t> tgtCuts;
  for (uint32_t h : headers) {
    const std::string &label = fs.blocks[h].label;
    std::optional<uint32_t> t = label.empty() ? std::nullopt : ft.findBlock(label);
    if (!t)
      return fmt::format("loop header bix{} has no block of the same label in the target", h);
    corr[h] = *t;
    tgtCuts.insert(*t);
  }
  std::set<Reg> regsS = SideEncoder(x, src, fs, 0).registers(),
                regsT = SideEncoder(x, tgt, ft, 0).registers();
  // Candidate pairs (source register, target register).
  std::set<std::pair<Reg, Reg>> start;
  for (Reg r : regsS)
    if (regsT.count(r))
      start.insert({r, r});
  auto copies = [](const Function &f, auto add) {
    for (const Block &b : f.blocks)
      for (const Instr &in : b.instrs)
        if (in.op == Opcode::MOV && !in.isGuarded() && in.dsts.size() == 1 && in.srcs.size() == 1 &&
            in.srcs[0].isReg() && in.dsts[0].isReg() && !in.srcs[0].neg && !in.srcs[0].abs &&
            !in.srcs[0].reg.isConst() && !in.dsts[0].reg.isConst() &&
            in.srcs[0].reg.isPredicate() == in.dsts[0].reg.isPredicate())
          add(in.dsts[0].reg, in.srcs[0].reg);
  };
  copies(ft, [&](Reg d, Reg a) {
    if (regsS.count(a))
      start.insert({a, d});
  });
  copies(fs, [&](Reg d, Reg a) {
    if (regsT.count(a))
      start.insert({d, a});
  });
  std::map<uint32_t, std::set<std::pair<Reg, Reg>>> cand;
  for (uint32_t h : headers)
    cand[h] = start;

  // The states at each cut point: one memory and barrier history, and registers by the
  // current candidates: the registers of a class of pairs (joined through shared members)
  // start as one variable on both sides. That assumes them equal, as asserting the equalities
  // would, but a computation the two sides repeat then gives them the same term, which Z3
  // shares, instead of two terms whose equality it must prove (a float multiplication
  // bit-blasted twice took minutes). The states are rebuilt whenever the candidates change.
  using State = SideEncoder::State;
  auto entryState = [&]() { return State{smt.boolVal(true), {}, x.mem0, x.priv0, smt.bv(0, 32)}; };
  std::map<uint32_t, std::pair<State, State>> at;
  auto buildStates = [&] {
    at.clear();
    for (uint32_t h : headers) {
      std::string tag = fmt::format("@bix{} ", h);
      z3::expr mem = smt.ctx().constant(("memory" + tag).c_str(), x.bytes);
      z3::expr privMem = smt.ctx().constant(("private memory" + tag).c_str(), x.bytes);
      z3::expr bars = smt.bvVar("barriers" + tag, 32);
      State a{smt.boolVal(true), {}, mem, privMem, bars}, b = a;
      // Union-find over (side, register): 0 source, 1 target.
      std::map<std::pair<int, Reg>, std::pair<int, Reg>> parent;
      std::function<std::pair<int, Reg>(std::pair<int, Reg>)> find = [&](std::pair<int, Reg> k) {
        auto it = parent.find(k);
        if (it == parent.end() || it->second == k)
          return k;
        return it->second = find(it->second);
      };
      for (const auto &[ra, rb] : cand[h]) {
        if (ra.isConst() || rb.isConst())
          continue;
        auto ka = find({0, ra}), kb2 = find({1, rb});
        if (ka != kb2)
          parent[kb2] = ka;
      }
      std::map<std::pair<int, Reg>, z3::expr> vars;
      auto varOf = [&](int side, Reg r) {
        auto root = find({side, r});
        auto it = vars.find(root);
        if (it != vars.end())
          return it->second;
        std::string n = fmt::format("{}{}{}{}", root.first == 0 ? "source" : "target", tag,
                                    regFilePrefix(root.second.file), root.second.num);
        z3::expr v = r.isPredicate() ? smt.boolVar(n) : smt.bvVar(n, 64);
        vars.emplace(root, v);
        return v;
      };
      for (Reg r : regsS)
        if (!r.isConst())
          a.regs.emplace(r, varOf(0, r));
      for (Reg r : regsT)
        if (!r.isConst())
          b.regs.emplace(r, varOf(1, r));
      at.emplace(h, std::make_pair(a, b));
    }
  };
  auto regIn = [&](const State &st, Reg r) -> z3::expr {
    if (r.isConst())
      return r.isPredicate() ? smt.boolVal(true) : smt.bv(0, 64);
    auto it = st.regs.find(r);
    return it != st.regs.end() ? it->second : x.initReg(r);
  };
  auto relation = [&](uint32_t h, const State &a, const State &b) {
    z3::expr e = smt.boolVal(true);
    for (const auto &[ra, rb] : cand[h])
      e = e && regIn(a, ra) == regIn(b, rb);
    return e;
  };

  // One encoding per segment and set of candidates.
  struct Segment {
    std::unique_ptr<SideEncoder> s, t;
    std::optional<uint32_t> from; // nullopt: the entry
  };
  std::vector<Segment> segments;
  auto addSegment = [&](std::optional<uint32_t> h) {
    Segment g{std::make_unique<SideEncoder>(x, src, fs, 0, true),
              std::make_unique<SideEncoder>(x, tgt, ft, 0), h};
    g.s->runSegment(h ? *h : 0, h ? at.at(*h).first : entryState(), headers);
    g.t->runSegment(h ? corr.at(*h) : 0, h ? at.at(*h).second : entryState(), tgtCuts);
    segments.push_back(std::move(g));
  };
  auto buildSegments = [&]() -> std::optional<std::string> {
    buildStates();
    segments.clear();
    addSegment(std::nullopt);
    for (uint32_t h : headers)
      addSegment(h);
    for (const Segment &g : segments) {
      if (g.s->unmodelled)
        return "source: unmodelled " + *g.s->unmodelled;
      if (g.t->unmodelled)
        return "target: unmodelled " + *g.t->unmodelled;
    }
    return std::nullopt;
  };

  z3::expr a = smt.bvVar("address", 64), kb = smt.bvVar("barrier", 32);
  // Shared memory and its history; with `withPrivate`, the thread's own memory too.
  // (Barriers before the segment saw the same memory by assumption: `history` on both sides.)
  auto sameMemory = [&](const State &p, const State &q, bool withPrivate, const SideEncoder &es,
                        const SideEncoder &et) {
    z3::expr memDiff = z3::select(p.mem, a) != z3::select(q.mem, a);
    if (withPrivate)
      memDiff = memDiff || z3::select(p.priv, a) != z3::select(q.priv, a);
    z3::expr seenDiff = z3::ult(kb, p.barriers) && z3::select(es.snapshotAt(kb, x.history), a) !=
                                                       z3::select(et.snapshotAt(kb, x.history), a);
    return !(memDiff || seenDiff || p.barriers != q.barriers);
  };
  // Rounds: encode with the current candidates, check every segment; a counterexample drops
  // the pairs it breaks and starts a new round (the encodings assumed those pairs). A round
  // without a drop proves the relation inductive.
  for (int round = 0; round < 10000; ++round) {
    if (auto why = buildSegments())
      return why;
    // With `syntacticFirst`, a pair whose two values are not the same term where a segment
    // reaches a cut point is dropped without asking Z3 (dropping a pair is always sound; it
    // may lose a proof, so the caller retries without this when it fails). Z3 then sees only
    // the pairs the two sides compute alike, and the relation check is trivial for it: on a
    // 1,700-instruction kernel the first counterexample alone took Z3 more than a minute.
    if (syntacticFirst) {
      bool dropped = false;
      for (const Segment &g : segments)
        for (uint32_t h : headers) {
          auto is = g.s->arrivals.find(h);
          auto it = g.t->arrivals.find(corr.at(h));
          if (is == g.s->arrivals.end() || it == g.t->arrivals.end())
            continue;
          State ss = g.s->mergeStates(is->second), st = g.t->mergeStates(it->second);
          for (auto p = cand[h].begin(); p != cand[h].end();) {
            if (!z3::eq(regIn(ss, p->first), regIn(st, p->second))) {
              p = cand[h].erase(p);
              dropped = true;
            } else {
              ++p;
            }
          }
        }
      if (traceEnabled())
        fmt::print(stderr, "tv: {}: induction round {}: syntactic pass{}\n", fs.name, round,
                   dropped ? ", pairs dropped" : ", nothing dropped");
      if (dropped)
        continue;
    }
    bool changed = false;
    for (const Segment &g : segments) {
      if (changed)
        break;
      State s0 = g.from ? at.at(*g.from).first : entryState(),
            t0 = g.from ? at.at(*g.from).second : entryState();
      z3::expr assume =
          x.assumptions && !g.s->fault && (g.from ? relation(*g.from, s0, t0) : smt.boolVal(true));
      // What must hold whatever the candidates: no new fault, no cut-short path, the same
      // cut point or end reached, the same memory there.
      z3::expr fixedBad = newFaults(*g.s, *g.t, smt.ctx()) || g.s->bound || g.t->bound ||
                          g.s->exited != g.t->exited || g.s->trapped != g.t->trapped;
      State exitS{g.s->exited, {}, g.s->exitMem, g.s->exitPriv, g.s->exitBarriers};
      State exitT{g.t->exited, {}, g.t->exitMem, g.t->exitPriv, g.t->exitBarriers};
      z3::expr exitBad = g.s->exited && !sameMemory(exitS, exitT, false, *g.s, *g.t);
      for (const Param &p : fs.returns) { // a .func's return values (in .param storage)
        z3::expr base =
            smt.bv(kParamWindow, 64) +
            x.base(fmt::format("{}.param {}", fs.name, p.name), kParamSize, p.align, p.size);
        exitBad = exitBad || (g.s->exited && z3::ult(a - base, smt.bv(p.size, 64)) &&
                              z3::select(g.s->exitPriv, a) != z3::select(g.t->exitPriv, a));
      }
      std::vector<std::tuple<uint32_t, z3::expr, State, State>> arrive; // cut, reached, states
      for (uint32_t h : headers) {
        auto is = g.s->arrivals.find(h);
        auto it = g.t->arrivals.find(corr.at(h));
        z3::expr ps = smt.boolVal(false), pt = smt.boolVal(false);
        std::optional<State> ss, st;
        if (is != g.s->arrivals.end()) {
          ss = g.s->mergeStates(is->second);
          ps = ss->pc;
        }
        if (it != g.t->arrivals.end()) {
          st = g.t->mergeStates(it->second);
          pt = st->pc;
        }
        fixedBad = fixedBad || ps != pt;
        if (ss && st) {
          fixedBad = fixedBad || (ps && !sameMemory(*ss, *st, true, *g.s, *g.t));
          arrive.emplace_back(h, ps, *ss, *st);
        }
      }
      for (;;) {
        z3::solver solver = makeSolver(smt);
        z3::params prm(smt.ctx());
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                        deadline - std::chrono::steady_clock::now())
                        .count();
        if (left <= 0)
          return fmt::format("the inductive proof ran out of the {:.0f} s it had", secondsGiven);
        unsigned queryMs =
            unsigned(std::min<long long>(left, (long long)opts.timeoutSeconds * 1000));
        prm.set("timeout", queryMs);
        solver.set(prm);
        solver.add(assume);
        // candBad is rebuilt from the current candidates
        z3::expr cb = smt.boolVal(false);
        for (auto &[h, reached, ss, st] : arrive)
          cb = cb || (reached && !relation(h, ss, st));
        // simplify: terms the two sides share make most disjuncts false outright
        solver.add((fixedBad || exitBad || cb).simplify());
        auto qStart = std::chrono::steady_clock::now();
        z3::check_result res = checkWithFallback(smt, solver, queryMs);
        if (traceEnabled()) {
          size_t pairs = 0;
          for (const auto &[h, c] : cand)
            pairs += c.size();
          fmt::print(
              stderr, "tv: {}: induction round {}, segment from {}: {} in {:.2f} s ({} pairs)\n",
              fs.name, round, g.from ? fmt::format("bix{}", *g.from) : "the entry",
              res == z3::sat     ? "sat"
              : res == z3::unsat ? "unsat"
                                 : "unknown",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - qStart).count(),
              pairs);
        }
        if (res == z3::unknown)
          return "timeout in the inductive proof: " + solver.reason_unknown();
        if (res == z3::unsat)
          break;
        z3::model m = solver.get_model();
        auto holds = [&](const z3::expr &e) { return m.eval(e, true).is_true(); };
        if (holds(fixedBad) || holds(exitBad))
          return g.from
                     ? fmt::format("no inductive relation at bix{} keeps the two in step", *g.from)
                     : std::string("the two do not stay in step up to the first loop header");
        bool dropped = false;
        for (auto &[h, reached, ss, st] : arrive) {
          if (!holds(reached))
            continue;
          for (auto it = cand[h].begin(); it != cand[h].end();) {
            if (!holds(regIn(ss, it->first) == regIn(st, it->second))) {
              it = cand[h].erase(it);
              dropped = true;
            } else {
              ++it;
            }
          }
        }
        if (!dropped)
          return "the inductive proof made no progress";
        changed = true;
        break;
      }
    }
    if (!changed)
      return std::nullopt;
  }
  return "the inductive proof did not converge";
}

std::string hex(uint64_t v) { return fmt::format("0x{:x}", v); }

uint64_t numeral(const z3::expr &e) {
  uint64_t u = 0;
  if (e.is_numeral())
    Z3_get_numeral_uint64(e.ctx(), e, &u);
  return u;
}

// A counterexample `oriopt --run` replays (docs/verifier.md, "Replaying a counterexample"):
// the query is narrowed to the launch the interpreter makes. One thread runs, alone (other
// threads would run too, and their faults or stores could hide the difference): the only one
// of a one-thread launch with registers zero; or, given a counterexample `hint`, its thread of
// its launch (--only-thread) with its registers read before written (--reg). Leaving the
// thread and the registers free instead makes queries Z3 does not finish in minutes. Each
// parameter by value, or each 8-byte one a buffer of kReplayBufferBytes bytes (as many as
// fuzz/kernel_gen.h's kernels use) whose contents the solver picks; variables and buffers
// where layoutLaunch puts them, with their initial bytes, and nothing else of global memory
// mapped. The difference must be one a run shows: a fault, a different end, or a byte of a
// buffer.
constexpr uint64_t kReplayBufferBytes = 256;

// The inputs a replay's launch fixes, and their values: `valid` applications first (their
// values mention other inputs), then the inputs themselves.
struct Substitution {
  z3::expr_vector mappedUses, mapped, inputs, values;
  z3::expr operator()(z3::expr e) {
    e = e.substitute(mappedUses, mapped);
    return e.substitute(inputs, values);
  }
};

struct Replay {
  z3::model model; // of the fixed query: evaluate terms through `fixed`
  Substitution fixed;
  RunConfig cfg;
  std::string args;
};

// The key Inputs::base gives a variable (SideEncoder::variableBase).
std::string baseKey(const Function *owner, const Variable &v) {
  switch (v.space) {
  case Space::Global:
    return "global " + v.name;
  case Space::Const:
    return "const " + v.name;
  case Space::Shared:
    return owner ? fmt::format("{}.shared {}", owner->name, v.name) : "shared " + v.name;
  case Space::Local:
    return owner ? fmt::format("{}.local {}", owner->name, v.name) : "";
  case Space::Param:
    return owner ? fmt::format("{}.param {}", owner->name, v.name) : "";
  }
  return "";
}

// The interpreter's address of a variable of an inlined callee's frame, keyed
// "k>f>g.local v" or "k>f>g.param v" (SideEncoder::frame_): each frame's local area right
// above its caller's, aligned (interp/interp_mem.cpp, pushFrame); parameter areas, which only the
// validator gives addresses, at depth << 24 in its own window, so frames never overlap.
std::optional<uint64_t> frameAddress(const Module &m, const LaunchLayout &L,
                                     const std::string &key) {
  bool local = true;
  size_t dot = key.rfind(".local ");
  if (dot == std::string::npos) {
    local = false;
    dot = key.rfind(".param ");
  }
  if (dot == std::string::npos)
    return std::nullopt;
  std::string name = key.substr(dot + 7);
  std::vector<const LaunchLayout::Frame *> path;
  const Function *g = nullptr;
  for (size_t from = 0; from <= dot;) {
    size_t to = std::min(key.find('>', from), dot);
    g = m.findFunction(key.substr(from, to - from));
    auto it = g ? L.frames.find(g) : L.frames.end();
    if (it == L.frames.end())
      return std::nullopt;
    path.push_back(&it->second);
    from = to + 1;
  }
  uint64_t base = 0;
  for (size_t i = 1; i < path.size(); ++i) {
    uint64_t align = path[i]->localAlign, end = base + path[i - 1]->localSize;
    base = (end + align - 1) / align * align;
  }
  uint64_t paramBase = uint64_t(path.size() - 1) << 24;
  for (const Variable &v : g->variables)
    if (v.name == name && v.space == (local ? Space::Local : Space::Param)) {
      auto it = L.variables.find(&v);
      if (it == L.variables.end())
        return std::nullopt;
      return (local ? base : paramBase) + it->second;
    }
  if (auto it = path.back()->params.find(name); !local && it != path.back()->params.end())
    return paramBase + it->second;
  return std::nullopt;
}

std::string hexBytes(const std::vector<uint8_t> &b) {
  std::string out;
  for (uint8_t c : b)
    out += fmt::format("{:02x}", c);
  return out;
}

// Replay constraints for one way of binding the parameters (`asBuffers`: the 8-byte ones
// are buffers); nullopt with `why` set when the launch cannot express the encoding.
std::optional<Replay> findReplay(Smt &smt, Inputs &x, const Module &src, const Module &tgt,
                                 const Function &f, const SideEncoder &es, const SideEncoder &et,
                                 const z3::expr &base, const z3::expr &endsDiffer,
                                 const z3::expr &a, const z3::expr &byteDiffers, bool asBuffers,
                                 const z3::model *hint, unsigned timeoutMs, std::string &why) {
  RunConfig cfg;
  cfg.entry = f.name;
  // An aggregate (array) parameter gets what --param gives it: at most 8 bytes, the rest 0.
  for (const Param &p : f.params) {
    if (asBuffers && p.size == 8 && p.count == 0)
      cfg.buffers[p.name].assign(kReplayBufferBytes, 0);
    else
      cfg.params[p.name] = 0;
  }
  auto laid = layoutLaunch(src, cfg), laidT = layoutLaunch(tgt, cfg);
  if (auto *e = std::get_if<std::string>(&laid)) {
    why = "the interpreter cannot launch it: " + *e;
    return std::nullopt;
  }
  const LaunchLayout &L = std::get<LaunchLayout>(laid);
  if (!std::holds_alternative<LaunchLayout>(laidT) ||
      std::get<LaunchLayout>(laidT).global.size() != L.global.size() ||
      std::get<LaunchLayout>(laidT).cbank0 != L.cbank0) {
    why = "the two modules' variables are laid out differently";
    return std::nullopt;
  }
  // The launch: --threads and --ctas take 1 to 2^20, and at most 2^32-1 threads in all.
  constexpr uint64_t kMaxDim = uint64_t(1) << 20;
  // The scalar inputs the launch fixes (thread, registers, variable addresses, what is
  // mapped) are substituted by their values (`fix`): asserted as equalities instead, the
  // queries with a counterexample's thread and registers took Z3 minutes. The memories are
  // asserted equal to their contents: substituted, every read becomes a read through the
  // buffers' store chains, and a loop unrolled 12 times no longer finishes.
  z3::context &c = smt.ctx();
  Substitution fixed{z3::expr_vector(c), z3::expr_vector(c), z3::expr_vector(c),
                     z3::expr_vector(c)};
  auto fix = [&](const z3::expr &input, const z3::expr &value) {
    fixed.inputs.push_back(input);
    fixed.values.push_back(value);
  };
  z3::expr pin = smt.boolVal(true);
  if (hint) {
    auto value = [&](const z3::expr &e) { return hint->eval(e, true); };
    const uint64_t ntid = numeral(value(x.ntid)), nctaid = numeral(value(x.nctaid));
    if (ntid == 0 || ntid > kMaxThreadsPerCta || nctaid == 0 || nctaid > kMaxDim ||
        ntid * nctaid > kMaxLaunchThreads) {
      why = fmt::format("the counterexample's launch ({} x {} threads) is larger than the "
                        "interpreter takes",
                        ntid, nctaid);
      return std::nullopt;
    }
    for (const z3::expr &e : {x.tid, x.ctaid, x.ntid, x.nctaid})
      fix(e, value(e));
    for (const auto &[reg, e] : x.initRegs)
      fix(e, value(e));
  } else { // the plainest replay: one thread, registers zero, as the interpreter starts them
    fix(x.tid, smt.bv(0, 32));
    fix(x.ctaid, smt.bv(0, 32));
    fix(x.ntid, smt.bv(1, 32));
    fix(x.nctaid, smt.bv(1, 32));
    for (const auto &[reg, e] : x.initRegs)
      fix(e, e.is_bool() ? smt.boolVal(false) : smt.bv(0, 64));
  }
  auto zeros = [&] { return z3::const_array(c.bv_sort(64), smt.bv(0, 8)); };
  auto storeBytes = [&](z3::expr mem, uint64_t at, const std::vector<uint8_t> &bytes) {
    for (size_t k = 0; k < bytes.size(); ++k)
      if (bytes[k] != 0)
        mem = z3::store(mem, smt.bv(at + k, 64), smt.bv(bytes[k], 8));
    return mem;
  };
  // Global memory: variables with their bytes, buffers with the solver's; the const window.
  z3::expr mem = zeros();
  std::map<std::string, std::vector<z3::expr>> bufferBytes;
  z3::expr mappedRegion = smt.boolVal(false); // as a function of a placeholder address/size
  z3::expr pa = smt.bvVar("replay address", 64), pn = smt.bvVar("replay size", 64);
  // [pa, pa + pn) inside [b, b + size), without wrapping around 2^64 (pa + pn would: an
  // access at 0xff..fe looked mapped, and the replay faulted where the source did not).
  auto within = [&](uint64_t b, uint64_t size) {
    return z3::uge(pa, smt.bv(b, 64)) && z3::ule(pn, smt.bv(size, 64)) &&
           z3::ule(pa - smt.bv(b, 64), smt.bv(size, 64) - pn);
  };
  z3::expr inBuffer = smt.boolVal(false);
  for (size_t i = 0; i < L.global.size(); ++i) {
    const auto &g = L.global[i];
    mappedRegion = mappedRegion || within(g.at, g.bytes.size());
    if (cfg.buffers.count(L.globalNames[i])) {
      auto &v = bufferBytes[L.globalNames[i]];
      for (uint64_t k = 0; k < g.bytes.size(); ++k) {
        v.push_back(smt.bvVar(fmt::format("buffer {}[{}]", L.globalNames[i], k), 8));
        mem = z3::store(mem, smt.bv(g.at + k, 64), v.back());
      }
      inBuffer = inBuffer || within(g.at, g.bytes.size());
    } else {
      mem = storeBytes(mem, g.at, g.bytes);
    }
  }
  mappedRegion = mappedRegion || within(kConstWindow, L.constData.size());
  mem = storeBytes(mem, kConstWindow, L.constData);
  for (const auto &b : L.sharedInit)
    mem = storeBytes(mem, kSharedWindow + b.at, b.bytes);
  pin = pin && x.mem0 == mem;
  z3::expr priv = zeros();
  for (const auto &b : L.localInit)
    priv = storeBytes(priv, kLocalWindow + b.at, b.bytes);
  for (const auto &b : L.paramInit)
    priv = storeBytes(priv, kParamWindow + b.at, b.bytes);
  pin = pin && x.priv0 == priv;
  for (const auto &[a, n] : x.mappedUses) {
    z3::expr_vector here(c), use(c);
    here.push_back(pa);
    here.push_back(pn);
    use.push_back(a);
    use.push_back(smt.bv(n, 64));
    z3::expr region = mappedRegion;
    fixed.mappedUses.push_back(x.valid(a, smt.bv(n, 32)));
    fixed.mapped.push_back(region.substitute(here, use));
  }
  // Bank 0: the interpreter's bytes, with the by-value parameters the solver's.
  std::map<uint64_t, z3::expr> paramBytes;
  z3::expr bank0 = zeros();
  for (size_t k = 0; k < L.cbank0.size(); ++k)
    if (L.cbank0[k] != 0)
      bank0 = z3::store(bank0, smt.bv(k, 64), smt.bv(L.cbank0[k], 8));
  for (const Param &p : f.params)
    if (cfg.params.count(p.name))
      for (uint32_t k = 0; k < std::min<uint32_t>(p.size, 8); ++k) {
        z3::expr b = smt.bvVar(fmt::format("param {}[{}]", p.name, k), 8);
        paramBytes.emplace(p.offset + k, b);
        bank0 = z3::store(bank0, smt.bv(p.offset + k, 64), b);
      }
  for (const auto &[b, arr] : x.banks)
    pin = pin && arr == (b == 0 ? bank0 : zeros());
  // Barriers: the replay runs one thread, so what the other threads leave at a barrier is the
  // memory the thread itself had there, on both sides.
  for (const SideEncoder *side : {&es, &et})
    for (const SideEncoder::Snapshot &sn : side->snapshots)
      pin = pin && z3::implies(sn.when, x.others(sn.index) == sn.mem);
  // Variable addresses.
  std::map<std::string, uint64_t> at;
  for (const Variable &v : src.variables)
    if (auto it = L.variables.find(&v); it != L.variables.end())
      at[baseKey(nullptr, v)] = it->second;
  for (const Function &g : src.functions)
    for (const Variable &v : g.variables)
      if (auto it = L.variables.find(&v);
          it != L.variables.end() &&
          (&g == src.findFunction(f.name) || v.space == Space::Global || v.space == Space::Const))
        at.emplace(baseKey(v.space == Space::Global || v.space == Space::Const ? nullptr : &g, v),
                   it->second);
  const LaunchLayout &LT = std::get<LaunchLayout>(laidT);
  for (const auto &[key, e] : x.bases) {
    if (key.find('>') != std::string::npos) {
      std::optional<uint64_t> s = frameAddress(src, L, key), t = frameAddress(tgt, LT, key);
      if (!s || s != t) {
        why = fmt::format("the two modules lay out the callee frame of '{}' differently", key);
        return std::nullopt;
      }
      fix(e, smt.bv(*s, 64));
      continue;
    }
    auto it = at.find(key);
    if (it == at.end()) {
      why = fmt::format("the interpreter has no address for '{}'", key);
      return std::nullopt;
    }
    fix(e, smt.bv(it->second, 64));
  }
  z3::solver solver = makeSolver(smt);
  z3::params prm(c);
  prm.set("timeout", timeoutMs);
  solver.set(prm);
  // A run shows its end and its buffers' bytes: the byte at `a` must be in a buffer.
  z3::expr_vector from(c), to(c);
  from.push_back(pa);
  from.push_back(pn);
  to.push_back(a);
  to.push_back(smt.bv(1, 64));
  z3::expr query = base && pin && (endsDiffer || (inBuffer.substitute(from, to) && byteDiffers));
  solver.add(fixed(query));
  z3::check_result res = checkWithFallback(smt, solver, timeoutMs);
  if (res != z3::sat) {
    why = res == z3::unsat
              ? "no counterexample fits the interpreter's launch (one thread alone, parameters "
                "by value or as 256-byte buffers)"
              : "timeout looking for a counterexample the interpreter can run";
    return std::nullopt;
  }
  z3::model m = solver.get_model();
  auto num = [&](const z3::expr &e) {
    uint64_t u = 0;
    z3::expr v = m.eval(fixed(e), true);
    if (v.is_numeral())
      Z3_get_numeral_uint64(c, v, &u);
    return u;
  };
  cfg.threads = uint32_t(num(x.ntid));
  cfg.ctas = uint32_t(num(x.nctaid));
  std::string args =
      fmt::format("--threads {} --ctas {}", formatDim3(cfg.threads), formatDim3(cfg.ctas));
  if (hint) {
    cfg.onlyThread = uint32_t(num(x.ctaid) * cfg.threads.x + num(x.tid));
    args += fmt::format(" --only-thread {}", *cfg.onlyThread);
  }
  for (const auto &[reg, e] : x.initRegs) {
    z3::expr v = m.eval(fixed(e), true);
    uint64_t bits = v.is_bool() ? uint64_t(v.is_true()) : num(e);
    if (bits == 0)
      continue;
    cfg.initialRegs[reg] = bits;
    args += fmt::format(" --reg {}{}=0x{:x}", regFilePrefix(reg.file), reg.num, bits);
  }
  for (const Param &p : f.params) {
    if (!cfg.params.count(p.name))
      continue;
    uint64_t v = 0;
    for (uint32_t k = 0; k < std::min<uint32_t>(p.size, 8); ++k)
      v |= num(paramBytes.at(p.offset + k)) << (8 * k);
    cfg.params[p.name] = v;
    args += fmt::format(" --param {}=0x{:x}", p.name, v);
  }
  for (auto &[name, bytes] : bufferBytes) {
    std::vector<uint8_t> &out = cfg.buffers[name];
    for (size_t k = 0; k < bytes.size(); ++k)
      out[k] = uint8_t(num(bytes[k]));
    args += fmt::format(" --buffer {}=hex:{} --dump-buffer {}", name, hexBytes(out), name);
  }
  return Replay{m, fixed, cfg, args};
}
} // namespace

std::string TvResult::line() const {
  switch (verdict) {
  case Verdict::Proved:
    return reason.empty() ? fmt::format("proved {}", function)
                          : fmt::format("proved {} ({})", function, reason);
  case Verdict::Unknown:
    return fmt::format("unknown {}: {}", function, reason);
  case Verdict::Refuted: {
    std::string s = fmt::format("refuted {}: {}", function, reason);
    if (!inputs.empty()) {
      s += "; counterexample:";
      for (const auto &[k, v] : inputs)
        s += fmt::format(" {}={}", k, v);
    }
    if (!replayArgs.empty())
      s += fmt::format("; replay: oriopt --run {} FILE", replayArgs);
    else if (!noReplay.empty() && !inputs.empty())
      s += fmt::format("; no replay: {}", noReplay);
    return s;
  }
  }
  return {};
}

namespace {
// `approximated`: whether a call to a module function stayed uninterpreted.
TvResult validateWith(const Module &src, const Module &tgt, const std::string &name,
                      const TvOptions &opts, bool &approximated) {
  auto start = std::chrono::steady_clock::now();
  TvResult r;
  r.function = name;
  auto finish = [&](TvResult::Verdict v, std::string reason) {
    r.verdict = v;
    r.reason = std::move(reason);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  };
  const Function *fs = src.findFunction(name);
  const Function *ft = tgt.findFunction(name);
  if (!fs)
    return finish(TvResult::Verdict::Unknown, "not in the source");
  if (!ft) {
    r.noReplay = "no input is needed";
    return finish(TvResult::Verdict::Refuted, "missing in the target");
  }
  if (fs->isDeclaration() != ft->isDeclaration() || fs->isEntry != ft->isEntry ||
      fs->params != ft->params || fs->returns != ft->returns) {
    r.noReplay = "no input is needed";
    return finish(TvResult::Verdict::Refuted, "the signature differs");
  }
  if (*fs == *ft)
    return finish(TvResult::Verdict::Proved, "unchanged");

  Smt smt;
  Inputs x(smt);
  x.inlineDepth = opts.inlineDepth;
  struct Report { // on every return
    Inputs &x;
    bool &out;
    ~Report() { out = !x.approximations.empty(); }
  } report{x, approximated};
  auto deadline = start + std::chrono::seconds(opts.budgetSeconds);
  // With loops, induction first: its queries are loop-free segments, small where the
  // unrolled function is large, and a correct pass usually keeps equal registers equal.
  // When it fails, the unrolling below looks for a real counterexample; induction may use
  // half the budget, so that search always has the other half.
  std::optional<std::string> inductionFailed;
  if (!SideEncoder(x, src, *fs, 0).loopHeaders().empty()) {
    auto inductionDeadline = start + std::chrono::milliseconds(opts.budgetSeconds * 500);
    inductionFailed = inductiveProof(smt, x, src, *fs, tgt, *ft, opts, inductionDeadline, true);
    // The pairs the two sides compute alike were not enough: Houdini from every pair.
    if (inductionFailed && !inductionFailed->starts_with("timeout") &&
        !inductionFailed->starts_with("the inductive proof ran out") &&
        inductionFailed->find("unmodelled") == std::string::npos &&
        std::chrono::steady_clock::now() < inductionDeadline)
      inductionFailed = inductiveProof(smt, x, src, *fs, tgt, *ft, opts, inductionDeadline, false);
    if (!inductionFailed)
      return finish(TvResult::Verdict::Proved, "by induction over the loops");
  }
  SideEncoder s(x, src, *fs, opts.unroll, true), t(x, tgt, *ft, opts.unroll);
  s.run();
  auto unmodelledReason = [&](const char *side, const std::string &what) {
    std::string r = what.starts_with("the unrolled function")
                        ? fmt::format("{}: {}", side, what)
                        : fmt::format("{}: unmodelled {}", side, what);
    if (inductionFailed && *inductionFailed != r)
      r += "; " + *inductionFailed;
    return r;
  };
  if (s.unmodelled)
    return finish(TvResult::Verdict::Unknown, unmodelledReason("source", *s.unmodelled));
  t.run();
  if (t.unmodelled)
    return finish(TvResult::Verdict::Unknown, unmodelledReason("target", *t.unmodelled));

  // Observable memory: everything but the local window and .param storage, except the
  // return values of a .func (its caller reads them).
  z3::expr a = smt.bvVar("differing address", 64);
  auto inRange = [&](const z3::expr &base, uint64_t size) {
    return z3::ult(a - base, smt.bv(size, 64));
  };
  // Shared memory (the private part of the address space is never written there), and of
  // the private memory only a .func's return values, which its caller reads.
  z3::expr memDiffers = !isPrivate(smt, a) && z3::select(s.exitMem, a) != z3::select(t.exitMem, a);
  for (const Param &p : fs->returns) {
    z3::expr base = smt.bv(kParamWindow, 64) +
                    x.base(fmt::format("{}.param {}", name, p.name), kParamSize, p.align, p.size);
    memDiffers = memDiffers ||
                 (inRange(base, p.size) && z3::select(s.exitPriv, a) != z3::select(t.exitPriv, a));
  }
  // At each barrier both passed, what other threads may read must agree; and they must pass
  // the same number.
  z3::expr kb = smt.bvVar("differing barrier", 32);
  z3::expr barriersDiffer = s.exitBarriers != t.exitBarriers;
  z3::expr atBarrierDiffers =
      z3::ult(kb, s.exitBarriers) && !isPrivate(smt, a) &&
      z3::select(s.snapshotAt(kb, x.mem0), a) != z3::select(t.snapshotAt(kb, x.mem0), a);

  // Each query: its own timeout, within what is left of the function's budget.
  auto queryMs = [&] {
    long long left = std::chrono::duration_cast<std::chrono::milliseconds>(
                         deadline - std::chrono::steady_clock::now())
                         .count();
    return unsigned(std::clamp<long long>(left, 1, (long long)opts.timeoutSeconds * 1000));
  };
  auto newSolver = [&](const z3::expr &query) {
    z3::solver solver = makeSolver(smt);
    z3::params p(smt.ctx());
    p.set("timeout", queryMs());
    solver.set(p);
    solver.add(x.assumptions && !s.fault);
    solver.add(query);
    return solver;
  };
  // A trap ends the run: the other side must trap too, and then nothing else is compared.
  z3::expr ending = t.fault || s.trapped != t.trapped || (!s.trapped && !t.exited);
  z3::expr wrong = (!s.bound && !t.bound &&
                    (ending || (!s.trapped && (barriersDiffer || atBarrierDiffers || memDiffers))))
                       .simplify();
  z3::solver solver = newSolver(wrong);
  z3::check_result res = checkWithFallback(smt, solver, queryMs());
  if (res == z3::unknown)
    return finish(TvResult::Verdict::Unknown,
                  "timeout or Z3 gave up: " + solver.reason_unknown() +
                      (inductionFailed ? "; " + *inductionFailed : std::string()));
  if (res == z3::sat && !x.approximations.empty())
    return finish(TvResult::Verdict::Unknown,
                  fmt::format("a difference that may come from {}, an uninterpreted effect",
                              *x.approximations.begin()));
  if (res == z3::sat) {
    // A counterexample the interpreter replays, when the launch can express it; else one
    // with a small launch, else any.
    std::optional<Replay> replay;
    bool small = false;
    auto useSmallLaunch = [&] {
      if (small)
        return;
      small = true;
      z3::solver q =
          newSolver(wrong && z3::ule(x.ntid, smt.bv(32, 32)) && z3::ule(x.nctaid, smt.bv(2, 32)));
      if (checkWithFallback(smt, q, queryMs()) == z3::sat)
        solver = q;
    };
    if (!fs->isEntry)
      r.noReplay = "a .func cannot be launched";
    else if (!x.functions.empty())
      r.noReplay = "its calls are uninterpreted";
    else {
      z3::expr base = x.assumptions && !s.fault && !s.bound && !t.bound;
      z3::expr byteDiffers =
          !s.trapped && !isPrivate(smt, a) && z3::select(s.exitMem, a) != z3::select(t.exitMem, a);
      // The plainest launch first: one thread, registers zero, pointers as buffers; then the
      // thread and registers of a counterexample with a small launch (else of any).
      auto tryReplay = [&](const z3::model *hint) {
        for (bool asBuffers : {true, false})
          if (!replay)
            replay = findReplay(smt, x, src, tgt, *fs, s, t, base, ending, a, byteDiffers,
                                asBuffers, hint, queryMs(), r.noReplay);
      };
      tryReplay(nullptr);
      if (!replay) {
        useSmallLaunch();
        z3::model hint = solver.get_model();
        tryReplay(&hint);
      }
      if (replay)
        r.noReplay.clear();
    }
    if (!replay)
      useSmallLaunch();
    z3::model mdl = replay ? replay->model : solver.get_model();
    auto val = [&](const z3::expr &e) { return mdl.eval(replay ? replay->fixed(e) : e, true); };
    std::string reason;
    if (val(t.fault).is_true()) {
      reason = "the target faults where the source does not";
      for (const auto &[where, c] : t.faultSites)
        if (val(c).is_true()) {
          reason += ": " + where;
          break;
        }
    } else if (val(s.trapped).is_true() != val(t.trapped).is_true())
      reason = val(s.trapped).is_true() ? "the source traps where the target does not"
                                        : "the target traps where the source does not";
    else if (!val(t.exited).is_true())
      reason = "the target does not end where the source does";
    else if (val(barriersDiffer).is_true())
      reason = fmt::format("the source passes {} barriers, the target {}",
                           numeral(val(s.exitBarriers)), numeral(val(t.exitBarriers)));
    else if (val(atBarrierDiffers).is_true())
      reason = fmt::format("memory at {} differs at barrier {}: source {}, target {}",
                           hex(numeral(val(a))), numeral(val(kb)),
                           hex(numeral(val(z3::select(s.snapshotAt(kb, x.mem0), a)))),
                           hex(numeral(val(z3::select(t.snapshotAt(kb, x.mem0), a)))));
    else
      reason = fmt::format(
          "memory at {} differs at the end: source {}, target {}", hex(numeral(val(a))),
          hex(numeral(val(z3::select(z3::ite(isPrivate(smt, a), s.exitPriv, s.exitMem), a)))),
          hex(numeral(val(z3::select(z3::ite(isPrivate(smt, a), t.exitPriv, t.exitMem), a)))));
    // The inputs: parameters (bank 0 bytes), the thread, initial registers read.
    for (const Param &prm : fs->params) {
      if (!fs->isEntry)
        break;
      uint64_t v = 0;
      for (uint32_t k = 0; k < std::min<uint32_t>(prm.size, 8); ++k)
        v |= numeral(val(z3::select(x.bank(0), smt.bv(prm.offset + k, 64)))) << (8 * k);
      r.inputs.push_back({"param " + prm.name, hex(v)});
    }
    r.inputs.push_back({"tid.x", hex(numeral(val(x.tid)))});
    r.inputs.push_back({"ntid.x", hex(numeral(val(x.ntid)))});
    r.inputs.push_back({"ctaid.x", hex(numeral(val(x.ctaid)))});
    r.inputs.push_back({"nctaid.x", hex(numeral(val(x.nctaid)))});
    for (const auto &[reg, e] : x.initRegs) {
      z3::expr v = val(e);
      if (v.is_bool() ? v.is_true() : numeral(v) != 0)
        r.inputs.push_back({fmt::format("initial {}{}", regFilePrefix(reg.file), reg.num),
                            v.is_bool() ? "true" : hex(numeral(v))});
    }
    if (replay) {
      r.replay = replay->cfg;
      r.replayArgs = replay->args;
    }
    return finish(TvResult::Verdict::Refuted, reason);
  }
  // Proved within the bound; any input that needs more back edges makes it unknown.
  solver = newSolver(s.bound || t.bound);
  z3::check_result more = checkWithFallback(smt, solver, queryMs());
  if (more == z3::unsat)
    return finish(TvResult::Verdict::Proved, "");
  if (more == z3::sat)
    return finish(TvResult::Verdict::Unknown,
                  fmt::format("unroll bound: some input takes more than {} back edges, and {}",
                              opts.unroll, inductionFailed.value_or("no loop header was found")));
  return finish(TvResult::Verdict::Unknown,
                "timeout deciding the unroll bound: " + solver.reason_unknown());
}

} // namespace

// Calls uninterpreted first, with half the budget: the effect of a call is then the same on
// both sides when its inputs are, which proves most changes around calls, cheaply (inlining
// every call of a module with 400 of them ran past 20 minutes). A proof holds for every
// callee, so for the real one. Only when that attempt met a call to a module function and did
// not prove, the calls are inlined, with what is left of the budget.
TvResult validateFunction(const Module &src, const Module &tgt, const std::string &name,
                          const TvOptions &opts) {
  bool approximated = false;
  if (opts.inlineDepth == 0)
    return validateWith(src, tgt, name, opts, approximated);
  TvOptions flat = opts;
  flat.inlineDepth = 0;
  flat.budgetSeconds = std::max(1u, opts.budgetSeconds / 2);
  TvResult r = validateWith(src, tgt, name, flat, approximated);
  if (!approximated || r.verdict == TvResult::Verdict::Proved)
    return r;
  TvOptions deep = opts;
  deep.budgetSeconds = unsigned(std::max(1.0, opts.budgetSeconds - r.seconds));
  TvResult r2 = validateWith(src, tgt, name, deep, approximated);
  r2.seconds += r.seconds;
  if (r2.verdict == TvResult::Verdict::Unknown && r2.reason != r.reason)
    r2.reason += "; with calls uninterpreted: " + r.reason;
  return r2;
}

std::vector<TvResult> validateModule(const Module &src, const Module &tgt, const TvOptions &opts,
                                     const std::optional<std::string> &only) {
  std::vector<TvResult> out;
  for (const Function &f : src.functions) {
    if (only && f.name != *only)
      continue;
    out.push_back(validateFunction(src, tgt, f.name, opts));
  }
  for (const Function &f : tgt.functions) {
    if ((only && f.name != *only) || src.findFunction(f.name))
      continue;
    TvResult r;
    r.function = f.name;
    r.reason = "new function in the target";
    out.push_back(r);
  }
  return out;
}

} // namespace ori::verify
