// The translation validator's parts (verify/tv.cpp says how it works): the inputs both sides
// read, one side's symbolic execution (SideEncoder: tv_side.cpp walks the unrolled CFG,
// tv_side_access.cpp encodes memory, constant banks and calls), the inductive proof of loops
// (tv_induction.cpp) and the counterexample a run replays (tv_replay.cpp). Private to verify/.
#pragma once

#include <z3++.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "interp/interp.h"
#include "ir/ir.h"
#include "verify/opcode_model.h"
#include "verify/smt.h"
#include "verify/tv.h"

namespace ori::verify::tv_detail {

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
  // The functions of instructions without a model (SideEncoder::uninterpreted), by name.
  std::map<std::string, z3::func_decl> opFunctions;
  unsigned inlineDepth = 0; // calls to module functions inlined up to this depth
  // Calls to module functions left as uninterpreted effects (beyond the inline depth,
  // indirect): a difference may then come from an effect the real callee does not have,
  // so a counterexample is not a refutation.
  std::set<std::string> approximations;
  // Set by quickRefutation when it found a counterexample within this many back edges: the
  // bounded check then unrolls no further (SideEncoder's bound), and the inductive proof is
  // skipped (quickCounterexample is its reason).
  std::optional<unsigned> refutableWithin;
  std::optional<std::string> quickCounterexample;

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
  z3::func_decl opFunction(const std::string &name, const z3::sort_vector &domain,
                           const z3::sort &range) {
    auto it = opFunctions.find(name);
    if (it == opFunctions.end())
      it = opFunctions.emplace(name, smt.ctx().function(name.c_str(), domain, range)).first;
    return it->second;
  }
};

// A little-endian 64-bit word of `mem` at `addr`; the low `bytes` bytes of `word` written there.
z3::expr readWord(Smt &smt, const z3::expr &mem, const z3::expr &addr);
z3::expr writeWord(Smt &smt, z3::expr mem, const z3::expr &addr, const z3::expr &word,
                   unsigned bytes);
unsigned accessBytes(const Instr &in); // the bytes a memory instruction moves
// Does the instruction read its float immediates as binary64?
bool readsF64(const Instr &in);
// Thread-private memory: the local window and .param storage.
z3::expr isPrivate(Smt &smt, const z3::expr &a);

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

LocalProvenance localProvenance(const Function &f);

// One side: the function's states over the unrolled CFG.
class SideEncoder {
public:
  // `source`: the side whose behaviour is the specification; only it assumes local
  // provenance (LocalProvenance: an access that breaks it faults there, as undefined behaviour
  // does in Alive2's source), so the rule can never make the target fault.
  SideEncoder(Inputs &x, const Module &m, const Function &f, unsigned unroll, bool source = false)
      : fault(x.smt.boolVal(false)), bound(x.smt.boolVal(false)), exited(x.smt.boolVal(false)),
        trapped(x.smt.boolVal(false)), exitMem(x.mem0), exitPriv(x.priv0),
        exitBarriers(x.smt.bv(0, 32)), x_(x), smt_(x.smt), m_(m), f_(f),
        unroll_(x.refutableWithin ? std::min(unroll, *x.refutableWithin) : unroll), frame_(f.name),
        provenance_(source ? localProvenance(f) : LocalProvenance{}), source_(source),
        encoded_(&ownEncoded_) {}

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
    // Warp-level instructions executed so far on this path (BV32): with the block, the
    // dynamic instance of a warp-collective instruction, its "execution context"
    // (tv_uninterpreted.cpp). Not observable; both sides start from the same value.
    z3::expr collectives;
  };
  // The shared memory at a barrier: under `when`, barrier number `index` saw `mem`.
  struct Snapshot {
    z3::expr when, index, mem;
  };
  std::vector<Snapshot> snapshots;
  // The memory the k-th barrier saw (`before` for barriers no snapshot here records).
  z3::expr snapshotAt(const z3::expr &k, const z3::expr &before) const;

  // The whole function from bix0 and the interpreter's initial state, loops unrolled.
  void run();

  // A segment: from block `start` in state `init` until control reaches a block of `cuts`
  // (recorded in `arrivals`, not entered) or ends. With cuts covering every cycle and
  // unroll 0, no path is cut short (`bound` stays false).
  void runSegment(uint32_t start, const State &init, const std::set<uint32_t> &cuts);
  std::map<uint32_t, std::vector<State>> arrivals;

  State mergeStates(const std::vector<State> &in) { return merge(in); }
  // Registers the function mentions.
  std::set<Reg> registers() const;
  // Blocks entered by a retreating edge of the depth-first order from bix0: every cycle
  // reachable from the entry passes through one.
  std::set<uint32_t> loopHeaders();

private:
  void runFrom(uint32_t start, const State &init);

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
  std::vector<uint32_t> successors(uint32_t b) const;

  // Reverse postorder by an explicit-stack depth-first search from bix0.
  void computeOrder(uint32_t start);

  State merge(const std::vector<State> &in);

  // ite(c, a, b), without the ite when both are the same term (Z3 shares equal terms, so
  // a value no path changed stays one term however many paths merge).
  static z3::expr iteOf(const z3::expr &c, const z3::expr &a, const z3::expr &b) {
    return z3::eq(a, b) ? a : z3::ite(c, a, b);
  }
  // a || b for path conditions, folding the two halves of a branch (p && g, p && !g) back
  // into p. Z3's simplify would find this too, but it walks the whole term each time, and
  // path conditions grow with the function: quadratic time on long functions.
  static z3::expr orPc(const z3::expr &a, const z3::expr &b);

  z3::expr regOf(const State &s, Reg r);

  void edge(uint32_t from, unsigned k, uint32_t to, State s);

  void addFault(const Instr &in, const z3::expr &cond);

  void exit(const State &s);

  // BAR: the shared memory now is observed (other threads may read it after the barrier)
  // and becomes what they left: the barrier's snapshot of `others`, the same on both sides.
  // The thread's private memory stays.
  void barrier(const z3::expr &g, State &s);

  z3::expr guardOf(const Instr &in, const State &s);
  // pc && g and pc && !g, kept literal when g is a constant (an unguarded branch ends the path).
  z3::expr taken(const z3::expr &pc, const z3::expr &g) {
    return g.is_true() ? pc : g.is_false() ? smt_.boolVal(false) : pc && g;
  }
  z3::expr notTaken(const z3::expr &pc, const z3::expr &g) {
    return g.is_true() ? smt_.boolVal(false) : g.is_false() ? pc : pc && !g;
  }

  void runBlock(uint32_t b, unsigned k, State s);

  // An instruction without a model (tv_uninterpreted.cpp): uninterpreted functions of its
  // opcode, modifiers, immediates and input values, shared by both sides, so the same
  // instruction on the same inputs in the same memory and execution context gives the same
  // results; its memory effects are a function of the memory before them, so they keep
  // their order. Recorded in Inputs::approximations: a difference it allows is no
  // counterexample.
  void uninterpreted(const Instr &in, const z3::expr &g, State &s, uint32_t b);
  // Whether runBlock hands `in` to uninterpreted() (no model of its opcode or modifiers).
  static bool isUninterpreted(const Instr &in);
  struct NoModel {}; // compute(): no model for this modifier combination
  // Runs `encode` (a modelled instruction); when the model has no such modifier combination,
  // undoes what it did and encodes `in` as uninterpreted instead.
  template <class F>
  void withModelOr(const Instr &in, const z3::expr &g, State &s, uint32_t b, F encode) {
    const State before = s;
    const z3::expr faultBefore = fault;
    const size_t sites = faultSites.size();
    try {
      encode();
    } catch (const NoModel &) {
      s = before;
      fault = faultBefore;
      faultSites.resize(sites, {std::string(), faultBefore});
      uninterpreted(in, g, s, b);
    }
  }

  [[noreturn]] void unmodelledAt(const Instr &in, const std::string &why) {
    throw Unmodelled{fmt::format("{} at line {} ({})",
                                 in.op == Opcode::OPAQUE ? "OPAQUE" : std::string(in.info().name),
                                 in.loc.line, why)};
  }

  // The raw value of source i as the models take it (opcode_model.h, ModelInputs).
  z3::expr sourceValue(const Instr &in, size_t i, const State &s);

  z3::expr bankOffset(const Operand &o, const State &s);
  // Bank 3 is the module's .const data: the const window of memory (docs/interpreter.md).
  z3::expr bankArray(const Instr &in, const Operand &o, const State &s);

  // MOV R, sym: a variable's address in its space, a function's address.
  z3::expr symbolValue(const Instr &in, const Operand &o);

  // A variable's address in its space and the window it lives in (0 for .global).
  std::pair<z3::expr, uint64_t> variableBase(const Instr &in, const std::string &name,
                                             const Variable *v, const Param *param);

  // Runs the model of `in` with `word` as the memory word it reaches; writes destinations;
  // returns the memory word afterwards (stores and atomics).
  std::optional<z3::expr> compute(const Instr &in, State &s, const z3::expr &word);

  void memoryAccess(const Instr &in, const z3::expr &g, State &s);

  void constantLoad(const Instr &in, const z3::expr &g, State &s);

  // A call to a function of the module with a body, its arguments and results .param
  // variables: inlined up to Inputs::inlineDepth, with the interpreter's semantics
  // (docs/interpreter.md, "Calls"). Any other call: an uninterpreted effect of the callee
  // (named, or the address in the register) on memory and on the register results; it may
  // also end the thread or fault. Calls with the same callee and the same memory and
  // arguments have the same effect on both sides.
  void call(const Instr &in, const z3::expr &g, State &s);

  // The .param or .local variable (or formal parameter) `name` of this frame: base, size.
  std::pair<z3::expr, uint32_t> frameVariable(const Instr &in, const std::string &name);

  // A callee's frame is zeroed byte by byte at each inlined call: larger ones are not inlined.
  static constexpr uint64_t kMaxFrameBytes = 4096;
  static uint64_t frameBytes(const Function &fn);

  // Inlines `fn` at `in`: a fresh frame (registers zero; .local and .param storage zero but
  // for initializers), each argument copied into the parameter of its position (the
  // smaller size), the callee run to its RETs, each return value copied into the result
  // variable of its position. EXIT in the callee ends the thread; faults, unrolling bounds
  // and barriers count as the caller's.
  void inlineCall(const Instr &in, const z3::expr &g, State &s, const Function &fn);
};

// ORIOPT_TV_TRACE=1: each Z3 query of the inductive proof on standard error, with its time.
bool traceEnabled();

// Z3's solver for arrays, uninterpreted functions and bit-vectors: on these queries it is
// orders of magnitude faster than the default (a loop unrolled twice: 0.3 s against 55 s).
// ORIOPT_TV_LOGIC names another logic, for experiments.
z3::solver makeSolver(Smt &smt);

// solver.check() within `timeoutMs`, by turns on the QF_AUFBV solver and on Z3's default
// solver: neither is always the faster (the QF_AUFBV solver is incomplete on the arrays of
// arrays that hold barrier snapshots and gives up; on some long segments it takes a minute
// where the default solver takes 0.2 s, on loops unrolled twice the reverse). Each gets 2 s
// first (at most a quarter of the time), then half of what is left. The model of a sat answer
// is in `solver` afterwards.
z3::check_result checkWithFallback(Smt &smt, z3::solver &solver, unsigned timeoutMs);

// Where the target may fault and the source may not: the target's fault sites but those whose
// condition is the same term as one of the source's (which `!source.fault` makes false).
// Equal terms are common (a pass keeps most instructions as they were), and without them Z3
// need not bit-blast the conditions to see that each implies itself.
z3::expr newFaults(const SideEncoder &s, const SideEncoder &t, z3::context &c);

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
                                          bool syntacticFirst);

// What the bounded check looks for (the same as the driver's query, verify/tv.cpp): within
// the bound, on an input where the source does not fault, the target faults, traps where the
// source does not (or the reverse), does not end, passes another number of barriers, or
// leaves other memory at a barrier or at the end (for a .func, other return values).
z3::expr misbehaves(Smt &smt, Inputs &x, const Function &fs, const SideEncoder &s,
                    const SideEncoder &t);

// Refutations first (tv_quick.cpp; inductiveProof calls it when its first, cheap attempt
// fails): the bounded check with 0, then 1 back edges, each query at most kQuickQueryMs (a
// third of what is left before `deadline`, at least a second). On a counterexample it sets
// Inputs::refutableWithin and returns why the rest of the inductive proof is skipped.
constexpr unsigned kQuickBackEdges = 1, kQuickQueryMs = 2000;
std::optional<std::string> quickRefutation(Smt &smt, Inputs &x, const Module &src,
                                           const Function &fs, const Module &tgt,
                                           const Function &ft, const TvOptions &opts,
                                           std::chrono::steady_clock::time_point deadline);

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

std::string hex(uint64_t v);                         // "0x..."
uint64_t numeral(const z3::expr &e);                 // a numeral's value (0 for other terms)
std::string hexBytes(const std::vector<uint8_t> &b); // two hex digits a byte

// Replay constraints for one way of binding the parameters (`asBuffers`: the 8-byte ones
// are buffers); nullopt with `why` set when the launch cannot express the encoding.
std::optional<Replay> findReplay(Smt &smt, Inputs &x, const Module &src, const Module &tgt,
                                 const Function &f, const SideEncoder &es, const SideEncoder &et,
                                 const z3::expr &base, const z3::expr &endsDiffer,
                                 const z3::expr &a, const z3::expr &byteDiffers, bool asBuffers,
                                 const z3::model *hint, unsigned timeoutMs, std::string &why);

} // namespace ori::verify::tv_detail
