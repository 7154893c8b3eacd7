// The SIMT runner (interp/interp.h, docs/interpreter.md "Warps"): CTAs one
// after another, each as warps of 32 lanes in lockstep. A warp keeps a
// reconvergence stack (GPGPU-Sim's PDOM model): the top entry runs its
// instruction for its active lanes; a branch whose lanes disagree turns the
// top entry into a wait at the reconvergence point and pushes one entry per
// side; an entry ends when its lanes reach that point, or when all of them
// have left (EXIT, or RET to the caller). The reconvergence point is the
// target of the innermost BSSY region open in the entry, else the branch
// block's immediate post-dominator.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <map>
#include <utility>

#include "interp/interp_impl.h"
#include "ir/ori.h"

namespace ori {
namespace interp_detail {
namespace {

constexpr uint32_t kBarriers = 16; // barrier resources per CTA (PTX: 0..15)

// ---------------------------------------------------------------- warps

struct Region {
  uint32_t barrier = 0; // the B register of the BSSY
  uint32_t target = 0;  // the block of its BSYNC (the BSSY's label)
};

// One entry of a warp's reconvergence stack.
struct Entry {
  const Function *f = nullptr;
  uint32_t bix = 0, idx = 0;   // next instruction
  int64_t rpc = kNoBlock;      // the entry ends when it enters this block (kNoBlock: never)
  uint32_t mask = 0;           // its active lanes
  bool callBase = false;       // pushed by CALL: its lanes return to the entry below at RET
  bool parked = false;         // a divergence with no reconvergence point: it has no pc and
                               // ends when its lanes have all left
  std::vector<Region> regions; // BSSY regions open here, innermost last
};

struct Warp {
  uint32_t index = 0; // in the CTA (SR_WARPID); lane l is thread 32 * index + l
  uint32_t lanes = 0; // the lanes that exist (the last warp may be partial)
  uint32_t exited = 0;
  std::vector<Entry> stack;
  enum class State { Ready, Waiting, Done } state = State::Ready;
  uint32_t barrier = 0;            // Waiting: on which barrier
  const Instr *barInstr = nullptr; // Waiting: the BAR (for BAR.RED's result and for reports)
  uint32_t redLanes = 0;           // BAR.RED: the lanes that receive the result
};

struct Barrier {
  uint32_t arrived = 0; // threads arrived (a warp counts its lanes that have not exited)
  uint32_t expected =
      0; // a thread count given by the BAR; 0: every thread of the CTA that has not exited
  uint32_t popc = 0;   // BAR.RED: participating threads whose predicate is true
  uint32_t voters = 0; // BAR.RED: participating threads
};

class CtaRunner {
public:
  CtaRunner(Machine &m, uint64_t maxSteps, RunResult &res) : m_(m), maxSteps_(maxSteps), res_(res) {
    m_.steps = &steps_;
  }
  const Instr *current() const { return cur_; }

  // A lane that faults leaves, like one that exits but without ending ok, and the others go
  // on: the run reports the lowest-numbered thread that faulted (with its address), which is
  // the same whichever side of a branch runs first.
  struct FirstFault {
    uint64_t thread = UINT64_MAX, addr = 0;
    std::string message;
    const Instr *in = nullptr;
    const Function *f = nullptr;
    uint64_t warpBase = 0; // the linear index of lane 0 of the warp
    uint32_t lanes = 0;    // the lanes of the warp that faulted there
  };
  // The instruction being run and the warp running it (a Stop's place).
  const Function *currentFunction() const { return curF_; }
  uint64_t currentWarpBase() const { return curWarpBase_; }
  uint32_t currentLanes() const { return curLanes_; }
  const FirstFault &firstFault() const { return fault_; }

  // Runs the CTA m_.ctaid, whose first thread has the linear index `base`; `only` (an index
  // in the CTA) restricts it to that one thread. Throws Stop when a run must end at once
  // (timeout, unsupported, deadlock, malformed IR).
  void run(uint64_t base, std::optional<uint32_t> only) {
    base_ = base;
    const uint32_t n = uint32_t(m_.ntid.count());
    threads_.resize(n);
    warps_.clear();
    barriers_.fill(Barrier{});
    live_ = 0;
    m_.startCta();
    for (uint32_t t = 0; t < n; ++t) {
      if (only && t != *only)
        continue;
      Thread &th = threads_[t];
      th.index = t;
      th.tid = Dim3(t % m_.ntid.x, t / m_.ntid.x % m_.ntid.y, t / (m_.ntid.x * m_.ntid.y));
      m_.th = &th;
      m_.startThread(th);
      if (warps_.empty() || warps_.back().index != t / 32) {
        warps_.emplace_back();
        warps_.back().index = t / 32;
      }
      warps_.back().lanes |= uint32_t(1) << (t % 32);
      ++live_;
    }
    for (Warp &w : warps_)
      w.stack.push_back(Entry{m_.entry, 0, 0, kNoBlock, w.lanes, false, false, {}});
    // Warps take turns in index order, each until it waits at a barrier or finishes; after each
    // round, barriers whose threads have all arrived release. Turns change only at barriers
    // and exits, never after a count of instructions, so a phase that removes or adds
    // instructions cannot change which warp's memory accesses come first (a warp that spins
    // on a location another warp writes times out instead).
    for (;;) {
      bool progress = false, allDone = true;
      for (Warp &w : warps_) {
        if (w.state == Warp::State::Ready) {
          runWarp(w);
          progress = true;
        }
        if (w.state != Warp::State::Done)
          allDone = false;
      }
      if (allDone)
        return;
      for (uint32_t b = 0; b < kBarriers; ++b)
        if (releasable(b)) {
          release(b);
          progress = true;
        }
      if (!progress)
        deadlock();
    }
  }

private:
  Thread *lanesOf(const Warp &w) { return &threads_[size_t(w.index) * 32]; }

  const std::vector<int64_t> &ipdomOf(const Function *f) {
    auto it = ipdom_.find(f);
    if (it == ipdom_.end())
      it = ipdom_.emplace(f, immediatePostDominators(*f)).first;
    return it->second;
  }

  // Where the lanes of a branch in block `bix` of the top entry reconverge: at the BSYNC of
  // the innermost BSSY region open in the entry (lanes that exit on the way are gone; a BSYNC
  // waits for the others), else at the immediate post-dominator.
  int64_t reconvergence(const Entry &e, uint32_t bix) {
    if (!e.regions.empty())
      return e.regions.back().target;
    return ipdomOf(e.f)[bix];
  }

  struct Side {
    uint32_t mask, bix, idx;
  };
  // The top entry's lanes split into `sides` (in the order they run); it waits at the
  // reconvergence point.
  void diverge(Warp &w, const std::vector<Side> &sides) {
    Entry &e = w.stack.back();
    int64_t rpc = reconvergence(e, e.bix);
    if (rpc == kNoBlock)
      e.parked = true;
    else {
      e.bix = uint32_t(rpc);
      e.idx = 0;
    }
    Entry child{e.f, 0, 0, rpc, 0, false, false, e.regions};
    for (size_t k = sides.size(); k-- > 0;) {
      child.mask = sides[k].mask;
      child.bix = sides[k].bix;
      child.idx = sides[k].idx;
      w.stack.push_back(child);
    }
  }

  // Lanes `gone` leave: EXIT (every entry) or RET (the entries of the current call); lanes
  // that fault leave as EXIT does, without counting as ended ok.
  void leave(Warp &w, uint32_t gone, bool exiting, bool ok = true) {
    for (size_t k = w.stack.size(); k-- > 0;) {
      w.stack[k].mask &= ~gone;
      if (!exiting && w.stack[k].callBase)
        break;
    }
    if (exiting) {
      w.exited |= gone;
      if (ok)
        res_.threadsRun += uint32_t(std::popcount(gone));
      live_ -= uint32_t(std::popcount(gone));
    }
  }

  // Lanes `lanes` of `w` fault with `s` in `in` (a Stop of another kind ends the run).
  void faultLanes(Warp &w, uint32_t lanes, const Stop &s, const Instr &in) {
    if (s.kind != RunResult::Kind::Fault)
      throw s;
    lanes &= ~w.exited;
    if (!lanes)
      return;
    const uint64_t thread = base_ + 32 * uint64_t(w.index) + firstLane(lanes);
    const uint64_t warpBase = base_ + 32 * uint64_t(w.index);
    if (thread < fault_.thread)
      fault_ = FirstFault{thread, s.addr, s.message, &in, curF_, warpBase, lanes};
    else if (fault_.in == &in && fault_.warpBase == warpBase)
      fault_.lanes |= lanes; // more lanes of the same warp fault in the same instruction
    leave(w, lanes, true, false);
  }

  // Runs f(lane) for each lane of `exec`; a lane whose f faults leaves. Returns the lanes that
  // did not fault.
  template <typename F> uint32_t perLane(Warp &w, const Instr &in, uint32_t exec, F f) {
    Thread *lanes = lanesOf(w);
    uint32_t done = exec;
    for (uint32_t k = exec; k; k &= k - 1) {
      const uint32_t l = firstLane(k);
      m_.th = &lanes[l];
      try {
        f(l);
      } catch (const Stop &s) {
        faultLanes(w, uint32_t(1) << l, s, in);
        done &= ~(uint32_t(1) << l);
      }
    }
    return done;
  }

  uint32_t firstLane(uint32_t mask) const { return uint32_t(std::countr_zero(mask)); }

  void runWarp(Warp &w) {
    Thread *lanes = lanesOf(w);
    for (;;) {
      if (w.stack.empty()) {
        w.state = Warp::State::Done;
        return;
      }
      Entry &e = w.stack.back();
      if (e.mask == 0) {
        w.stack.pop_back();
        continue;
      }
      if (e.parked)
        malformed("a warp resumed a divergence that has no reconvergence point while lanes remain");
      const std::vector<Block> &blocks = e.f->blocks;
      bool popped = false;
      for (;;) { // falling off the end of a block enters the next one
        if (e.idx == 0 && int64_t(e.bix) == e.rpc) {
          popped = true;
          break;
        }
        if (e.bix >= blocks.size())
          malformed(fmt::format("control falls off the end of function '{}'", e.f->name));
        if (e.idx < blocks[e.bix].instrs.size())
          break;
        ++e.bix;
        e.idx = 0;
      }
      if (popped) {
        w.stack.pop_back();
        continue;
      }
      const Instr &in = blocks[e.bix].instrs[e.idx];
      cur_ = &in;
      curF_ = e.f;
      curWarpBase_ = base_ + 32 * uint64_t(w.index);
      curLanes_ = e.mask;
      m_.th = &lanes[firstLane(e.mask)];
      if (steps_ >= maxSteps_)
        throw Stop{
            RunResult::Kind::Timeout, 0,
            fmt::format("more than {} warp instructions executed (the next: {} at line {} of {})",
                        maxSteps_, mnemonic(in), in.loc.line, e.f->name)};
      ++steps_;
      uint32_t exec = e.mask;
      if (in.guard) {
        const Operand &g = *in.guard;
        if (g.kind != Operand::Kind::Reg || !g.reg.isPredicate())
          malformed(fmt::format("guard of {} at line {} is not a predicate", in.info().name,
                                in.loc.line));
        for (uint32_t k = e.mask; k; k &= k - 1) {
          uint32_t l = firstLane(k);
          if ((lanes[l].regs.get(g.reg) & 1) == g.neg)
            exec &= ~(uint32_t(1) << l);
        }
      }
      res_.laneSteps += uint64_t(std::popcount(e.mask)); // the active lanes, guard true or not
      if (exec == 0 && !isBranch(in.op)) {
        ++e.idx;
        continue;
      }
      if (exec)
        m_.th = &lanes[firstLane(exec)];
      switch (in.op) {
      case Opcode::BRA: {
        uint32_t target = label(e.f, in), rest = e.mask & ~exec;
        ++res_.branches;
        res_.divergentBranches += rest && exec;
        if (rest == 0) {
          e.bix = target;
          e.idx = 0;
        } else if (exec == 0)
          ++e.idx;
        else
          diverge(w, {{rest, e.bix, e.idx + 1},
                      {exec, target, 0}}); // documented order: fall-through first
        continue;
      }
      case Opcode::BRX:
      case Opcode::JMX: {
        std::map<uint32_t, uint32_t> groups; // target block -> lanes, run in ascending block order
        perLane(w, in, exec, [&](uint32_t l) { groups[brx(e.f, in)] |= uint32_t(1) << l; });
        if (e.mask == 0)
          continue; // every lane faulted
        exec &= e.mask;
        std::vector<Side> sides;
        if (uint32_t rest = e.mask & ~exec)
          sides.push_back({rest, e.bix, e.idx + 1});
        for (auto [t, mask] : groups)
          sides.push_back({mask, t, 0});
        ++res_.branches;
        res_.divergentBranches += sides.size() > 1;
        if (sides.size() == 1) {
          e.bix = sides[0].bix;
          e.idx = sides[0].idx;
        } else
          diverge(w, sides);
        continue;
      }
      case Opcode::TRAP: // the grid aborts (PTX ISA 9.0 "trap"); the lanes that ran it
        curLanes_ = exec;
        throw Stop{RunResult::Kind::Trap, 0,
                   fmt::format("trap at line {} of {}", in.loc.line, e.f->name)};
      case Opcode::EXIT:
        leave(w, exec, true);
        if (w.stack.back().mask)
          ++w.stack.back().idx;
        continue;
      case Opcode::RET: {
        if (m_.th->frames.size() <= 1) { // the kernel's own RET ends the thread
          leave(w, exec, true);
          if (w.stack.back().mask)
            ++w.stack.back().idx;
          continue;
        }
        for (uint32_t k = exec; k; k &= k - 1) {
          m_.th = &lanes[firstLane(k)];
          m_.leaveCall();
        }
        leave(w, exec, false);
        if (w.stack.back().mask)
          ++w.stack.back().idx;
        continue;
      }
      case Opcode::CALL: {
        std::map<const Function *, uint32_t>
            groups; // callee -> lanes (an indirect call may differ per lane)
        std::vector<const Function *> order;
        uint64_t extra = 0;
        perLane(w, in, exec, [&](uint32_t l) {
          const Function *callee = calleeOf(in);
          m_.enterCall(in, callee);
          extra = std::max(extra, std::exchange(m_.extraSteps, 0));
          if (!groups.count(callee))
            order.push_back(callee);
          groups[callee] |= uint32_t(1) << l;
        });
        steps_ += extra;
        if (e.mask == 0)
          continue; // every lane faulted
        ++e.idx;    // where every lane of the entry resumes once the calls return
        for (size_t k = order.size(); k-- > 0;) // callees in the order their first lanes come
          w.stack.push_back(Entry{order[k], 0, 0, kNoBlock, groups[order[k]], true, false, {}});
        continue;
      }
      case Opcode::BSSY: {
        const Operand &b = m_.dst(in, 0);
        const Operand &t = m_.src(in, 0);
        if (b.kind != Operand::Kind::Reg || t.kind != Operand::Kind::Label ||
            t.target >= blocks.size())
          malformed(fmt::format("BSSY at line {} needs a B register and a label", in.loc.line));
        std::erase_if(e.regions, [&](const Region &r) { return r.barrier == b.reg.num; });
        e.regions.push_back({b.reg.num, t.target});
        ++e.idx;
        continue;
      }
      case Opcode::BSYNC: {
        const Operand &b = m_.src(in, 0);
        if (b.kind != Operand::Kind::Reg)
          malformed(fmt::format("BSYNC at line {} needs a B register", in.loc.line));
        for (size_t k = e.regions.size(); k-- > 0;)
          if (e.regions[k].barrier == b.reg.num) {
            e.regions.erase(e.regions.begin() + ptrdiff_t(k));
            break;
          }
        ++e.idx;
        continue;
      }
      case Opcode::NANOSLEEP: // the warp sleeps: its turn ends (docs/interpreter.md, "Warps take
                              // turns")
        perLane(w, in, exec, [&](uint32_t) { execute(in); });
        if (!w.stack.empty())
          ++w.stack.back().idx;
        return;
      case Opcode::BAR: {
        ++e.idx;
        bool waits = false;
        try {
          waits = arrive(w, in, exec);
        } catch (
            const Stop &s) { // a barrier that does not exist: every lane that executed it faults
          faultLanes(w, exec, s, in);
        }
        if (waits)
          return; // the warp waits
        continue;
      }
      default: {
        bool done = false;
        try {
          done = execFast(m_, in, lanes, exec) || execWarpLevel(m_, in, lanes, exec);
        } catch (const Stop &s) { // only from operands the same in every lane (a constant bank)
          faultLanes(w, exec, s, in);
          done = true;
        }
        if (!done)
          perLane(w, in, exec, [&](uint32_t) { execute(in); });
        if (!w.stack.empty())
          ++w.stack.back().idx;
      }
      }
    }
  }

  static bool isBranch(Opcode op) {
    return op == Opcode::BRA || op == Opcode::BRX || op == Opcode::JMX;
  }

  // BAR.RED's operation (.POPC, .AND, .OR), or none for BAR.SYNC and BAR.ARV.
  static std::optional<Mod> reduction(const Instr &in) {
    if (!in.has(Mod::RED))
      return std::nullopt;
    if (in.has(Mod::POPC))
      return Mod::POPC;
    if (in.has(Mod::AND))
      return Mod::AND;
    if (in.has(Mod::OR))
      return Mod::OR;
    malformed(fmt::format("BAR.RED at line {} needs .POPC, .AND or .OR", in.loc.line));
  }

  // BAR.SYNC/ARV/RED by lanes `exec` of `w`; true when the warp now waits.
  bool arrive(Warp &w, const Instr &in, uint32_t exec) {
    uint64_t id = m_.readInt(in, 0, 32);
    if (id >= kBarriers)
      fault(id, fmt::format("barrier {} does not exist (a CTA has barriers 0..15)", id));
    const std::optional<Mod> red = reduction(in);
    bool hasCount = red ? in.srcs.size() > 2 : in.srcs.size() > 1;
    uint32_t count = hasCount ? uint32_t(m_.readInt(in, 1, 32)) : 0;
    if (hasCount && (count == 0 || count % 32 != 0 || count > m_.ntid.count() + 31))
      fault(count,
            fmt::format("barrier thread count {} is not a positive multiple of 32 within the CTA",
                        count));
    bool arv = in.has(Mod::ARV);
    if (arv && !hasCount)
      malformed(fmt::format("BAR.ARV at line {} needs a thread count", in.loc.line));
    Barrier &b = barriers_[id];
    if (hasCount)
      b.expected = count;
    // PTX: a barrier instruction marks its warp's arrival, for all threads of the warp that have
    // not exited.
    b.arrived += uint32_t(std::popcount(w.lanes & ~w.exited));
    if (red) {
      Thread *lanes = lanesOf(w);
      size_t p = in.srcs.size() - 1;
      for (uint32_t k = exec; k; k &= k - 1) {
        m_.th = &lanes[firstLane(k)];
        b.popc += m_.readPred(in, p) ? 1 : 0;
        ++b.voters;
      }
      w.redLanes = exec;
    }
    if (arv)
      return false;
    w.state = Warp::State::Waiting;
    w.barrier = uint32_t(id);
    w.barInstr = &in;
    return true;
  }

  uint32_t expected(const Barrier &b) const { return b.expected ? b.expected : live_; }
  bool releasable(uint32_t id) const {
    const Barrier &b = barriers_[id];
    return b.arrived > 0 && b.arrived >= expected(b);
  }

  void release(uint32_t id) {
    Barrier &b = barriers_[id];
    for (Warp &w : warps_) {
      if (w.state != Warp::State::Waiting || w.barrier != id)
        continue;
      w.state = Warp::State::Ready;
      const Instr &in = *w.barInstr;
      if (std::optional<Mod> red =
              reduction(in)) { // BAR.RED.POPC R / .AND P / .OR P over the participants
        Thread *lanes = lanesOf(w);
        for (uint32_t k = w.redLanes; k; k &= k - 1) {
          m_.th = &lanes[firstLane(k)];
          if (*red == Mod::AND)
            m_.writePred(in, 0, b.popc == b.voters);
          else if (*red == Mod::OR)
            m_.writePred(in, 0, b.popc != 0);
          else
            m_.writeInt(in, 0, b.popc, 32);
        }
      }
      w.redLanes = 0;
    }
    b = Barrier{};
  }

  [[noreturn]] void deadlock() {
    std::string why;
    const Warp *first = nullptr;
    for (const Warp &w : warps_) {
      if (w.state != Warp::State::Waiting)
        continue;
      if (!first)
        first = &w;
      const Barrier &b = barriers_[w.barrier];
      why += fmt::format("{}warp {} waits at barrier {} (line {}: {} of {} threads arrived)",
                         why.empty() ? "" : "; ", w.index, w.barrier, w.barInstr->loc.line,
                         b.arrived, expected(b));
    }
    if (first) {
      m_.th = &lanesOf(*first)[firstLane(first->lanes & ~first->exited)];
      cur_ = first->barInstr;
    }
    throw Stop{RunResult::Kind::Deadlock, 0, why};
  }

  uint32_t label(const Function *f, const Instr &in) {
    const Operand &o = m_.src(in, 0);
    if (o.kind != Operand::Kind::Label)
      malformed(fmt::format("BRA at line {} has no label", in.loc.line));
    if (o.target >= f->blocks.size())
      malformed(fmt::format("BRA at line {} targets missing bix{}", in.loc.line, o.target));
    return o.target;
  }

  uint32_t brx(const Function *f, const Instr &in) {
    uint64_t index = m_.readInt(in, 0, 32); // unsigned 32-bit
    const Operand &o = m_.src(in, 1);
    if (o.kind != Operand::Kind::JumpTable || o.target >= f->jumpTables.size())
      malformed(fmt::format("BRX at line {} has no valid jump table", in.loc.line));
    const JumpTable &jt = f->jumpTables[o.target];
    if (index >= jt.targets.size())
      fault(index, fmt::format("BRX index out of range: {} >= {} entries of '{}'", index,
                               jt.targets.size(), jt.name));
    uint32_t t = jt.targets[size_t(index)];
    if (t >= f->blocks.size())
      malformed(fmt::format("jump table '{}' targets missing bix{}", jt.name, t));
    return t;
  }

  const Function *calleeOf(const Instr &in) {
    const Operand &o = m_.src(in, 0);
    const Function *callee = nullptr;
    if (o.kind == Operand::Kind::Reg) { // an indirect call: the register holds a function's address
      uint64_t a = m_.readInt(in, 0, 64), k = (a - kFunctionBase) / 16;
      if (a < kFunctionBase || (a - kFunctionBase) % 16 != 0 || k >= m_.module->functions.size())
        fault(a, fmt::format("indirect CALL to 0x{:x}, which is not the address of a function", a));
      callee = &m_.module->functions[size_t(k)];
    } else if (o.kind == Operand::Kind::Symbol) {
      callee = m_.module->findFunction(o.sym);
      if (!callee)
        unsupported(fmt::format("CALL to unknown function '{}'", o.sym));
    } else {
      malformed(fmt::format("CALL at line {} has no callee", in.loc.line));
    }
    if (callee->isEntry)
      unsupported(fmt::format("CALL to .entry kernel '{}'", callee->name));
    if (callee->isDeclaration())
      unsupported(fmt::format("call to external function {}", callee->name));
    return callee;
  }

  // One lane's instruction (everything but control flow, barriers and the warp-level ones).
  void execute(const Instr &in) {
    if (m_.execInteger(in) || m_.execFloat(in) || m_.execMemory(in) || m_.execSurface(in))
      return;
    switch (in.op) {
    case Opcode::NOP:
    case Opcode::WARPSYNC:
      return; // lanes run in lockstep: nothing to wait for (docs/interpreter.md)
    case Opcode::ACQBULK:
    case Opcode::PREEXIT: // one grid: no prerequisite grid, no dependent
    case Opcode::SETMAXREG:
      return; // registers are not a budget here
    case Opcode::OPAQUE:
      unsupported(fmt::format("OPAQUE \"{}\"", in.opaqueText));
    default:
      unsupported(fmt::format("{} is not modelled", in.info().name));
    }
  }

  Machine &m_;
  uint64_t maxSteps_;
  RunResult &res_;
  uint64_t steps_ = 0;
  const Instr *cur_ = nullptr;
  const Function *curF_ = nullptr;
  uint64_t curWarpBase_ = 0;
  uint32_t curLanes_ = 0;
  std::vector<Thread> threads_;
  std::vector<Warp> warps_;
  std::array<Barrier, kBarriers> barriers_{};
  uint32_t live_ = 0; // threads of the CTA that have not exited
  std::map<const Function *, std::vector<int64_t>> ipdom_;
  uint64_t base_ = 0; // linear index of the CTA's first thread
  FirstFault fault_;

public:
  uint64_t steps() const { return steps_; }
};

std::string selectEntry(const Module &mod, const RunConfig &cfg, const Function *&entry) {
  if (!cfg.entry.empty()) {
    entry = mod.findFunction(cfg.entry);
    if (!entry)
      return fmt::format("no kernel named '{}' in the module", cfg.entry);
    if (!entry->isEntry)
      return fmt::format("'{}' is a .func, not an .entry kernel", cfg.entry);
    return {};
  }
  std::string names;
  size_t count = 0;
  for (const Function &f : mod.functions)
    if (f.isEntry) {
      names += (count++ ? ", " : "") + f.name;
      entry = &f;
    }
  if (count == 0)
    return "the module has no .entry kernel to run";
  if (count > 1)
    return fmt::format("the module has {} .entry kernels ({}): choose one with --entry", count,
                       names);
  return {};
}

// The launch's shape against the interpreter's bounds (interp.h); "" when it is fine.
std::string checkLaunch(const RunConfig &cfg) {
  const Dim3 &t = cfg.threads, &c = cfg.ctas;
  if (t.x == 0 || t.y == 0 || t.z == 0)
    return "every thread dimension must be at least 1";
  if (c.x == 0 || c.y == 0 || c.z == 0)
    return "every CTA dimension must be at least 1";
  if (t.count() > kMaxThreadsPerCta || t.z > 64)
    return fmt::format("{}x{}x{} threads per CTA: at most {} (and z at most 64)", t.x, t.y, t.z,
                       kMaxThreadsPerCta);
  if (c.y > 65535 || c.z > 65535)
    return fmt::format("{}x{}x{} CTAs: y and z are at most 65535", c.x, c.y, c.z);
  if (c.count() > kMaxLaunchThreads || t.count() * c.count() > kMaxLaunchThreads)
    return fmt::format("{} threads in all: the interpreter runs at most {}", t.count() * c.count(),
                       kMaxLaunchThreads);
  return {};
}

} // namespace
} // namespace interp_detail

using namespace interp_detail;

std::variant<LaunchLayout, std::string> layoutLaunch(const Module &mod, const RunConfig &cfg) {
  Machine m;
  m.module = &mod;
  if (std::string e = selectEntry(mod, cfg, m.entry); !e.empty())
    return e;
  if (m.entry->blocks.empty())
    return fmt::format("kernel '{}' has no blocks", m.entry->name);
  if (std::string e = m.setUp(cfg); !e.empty())
    return e;
  return m.layout();
}

RunResult runKernel(const Module &mod, const RunConfig &cfg) {
  RunResult res;
  auto error = [&](std::string msg) {
    res.kind = RunResult::Kind::Error;
    res.message = std::move(msg);
    return res;
  };
  Machine m;
  m.module = &mod;
  if (std::string e = selectEntry(mod, cfg, m.entry); !e.empty())
    return error(e);
  if (m.entry->blocks.empty())
    return error(fmt::format("kernel '{}' has no blocks", m.entry->name));
  if (std::string e = checkLaunch(cfg); !e.empty())
    return error(e);
  const uint64_t perCta = cfg.threads.count(), total = perCta * cfg.ctas.count();
  if (cfg.onlyThread && *cfg.onlyThread >= total)
    return error(fmt::format("thread {} is not in a launch of {} threads x {} CTAs",
                             *cfg.onlyThread, formatDim3(cfg.threads), formatDim3(cfg.ctas)));
  for (const auto &[r, v] : cfg.initialRegs)
    if (r.isConst())
      return error(fmt::format("register {}{} is a constant and cannot be given a value",
                               regFilePrefix(r.file), r.isPredicate() ? "T" : "Z"));
  if (std::string e = m.setUp(cfg); !e.empty())
    return error(e);
  if (std::string e = m.setUpSurfaces(cfg); !e.empty())
    return error(e);
  m.ntid = cfg.threads;
  m.nctaid = cfg.ctas;
  m.warpsPerCta = uint32_t((perCta + 31) / 32);
  m.initialRegs = cfg.initialRegs;

  // The float semantics assume the host rounds to nearest between operations
  // (interp/interp_float.cpp); whatever mode the caller uses is restored on return.
  struct RoundingGuard {
    int saved = std::fegetround();
    RoundingGuard() { std::fesetround(FE_TONEAREST); }
    ~RoundingGuard() { std::fesetround(saved); }
  } rounding;
  CtaRunner runner(m, cfg.maxSteps, res);
  // Every CTA in order (x fastest), or only the one RunConfig::onlyThread names.
  const uint64_t c0 = cfg.onlyThread ? *cfg.onlyThread / perCta : 0,
                 c1 = cfg.onlyThread ? c0 + 1 : cfg.ctas.count();
  for (uint64_t c = c0; c < c1; ++c) {
    m.ctaid = Dim3(uint32_t(c % cfg.ctas.x), uint32_t(c / cfg.ctas.x % cfg.ctas.y),
                   uint32_t(c / (uint64_t(cfg.ctas.x) * cfg.ctas.y)));
    m.th = nullptr;
    try {
      std::optional<uint32_t> only;
      if (cfg.onlyThread)
        only = uint32_t(*cfg.onlyThread % perCta);
      runner.run(c * perCta, only);
    } catch (const Stop &s) {
      res.kind = s.kind;
      res.thread = uint32_t(c * perCta + (m.th ? m.th->index : 0));
      res.addr = s.addr;
      res.message = s.message;
      if (const Instr *in = runner.current()) {
        res.mnemonic = mnemonic(*in);
        res.line = in->loc.line;
        res.column = in->loc.col;
        if (runner.currentFunction())
          res.instrText = printInstr(*runner.currentFunction(), *in);
        res.warpFirstThread = runner.currentWarpBase();
        res.lanes = runner.currentLanes();
      }
      break;
    }
  }
  if (const auto &f = runner.firstFault(); f.in && res.kind == RunResult::Kind::Ok) {
    res.kind = RunResult::Kind::Fault;
    res.thread = uint32_t(f.thread);
    res.addr = f.addr;
    res.message = f.message;
    res.mnemonic = mnemonic(*f.in);
    res.line = f.in->loc.line;
    res.column = f.in->loc.col;
    if (f.f)
      res.instrText = printInstr(*f.f, *f.in);
    res.warpFirstThread = f.warpBase;
    res.lanes = f.lanes;
  }
  res.warpSteps = runner.steps();
  for (Buffer &b : m.buffers)
    (b.isVariable ? res.variables : res.buffers)[b.name] = std::move(b.bytes);
  for (auto &[name, s] : m.surfaces)
    res.surfaces[name] = std::move(s.bytes);
  return res;
}

} // namespace ori
