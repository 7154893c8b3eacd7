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
#include "verify/tv_impl.h"

namespace ori::verify {

using namespace tv_detail;

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

// docs/verifier.md, "Bounds from the size": 6 s and a second per 150 instructions, at most the
// old fixed 300 s; a query may use half of it, at least 5 s (Z3's two solvers take turns within
// a query, checkWithFallback: below that each gets too little, and under load a replay a
// 0.4 s search finds was missed with 2 s), at most 60 s.
SizedBounds sizedBounds(size_t instrs) {
  unsigned budget = unsigned(std::min<size_t>(300, 6 + instrs / 150));
  return {std::clamp(budget / 2, 5u, 60u), budget};
}

namespace {
using Clock = std::chrono::steady_clock;

// "... at line N" in a fault site's description: N, else 0.
uint32_t lineOf(const std::string &where) {
  size_t at = where.rfind(" at line ");
  return at == std::string::npos ? 0 : uint32_t(std::strtoul(where.c_str() + at + 9, nullptr, 10));
}

// `approximated`: whether a call to a module function stayed uninterpreted.
TvResult validateWith(const Module &src, const Module &tgt, const std::string &name,
                      const TvOptions &opts, bool &approximated) {
  auto start = Clock::now();
  TvResult r;
  r.function = name;
  // The function's budget, cut short by the module's deadline.
  auto deadline = start + std::chrono::seconds(opts.budgetSeconds);
  const bool deadlineFirst = opts.deadline && *opts.deadline < deadline;
  if (deadlineFirst)
    deadline = *opts.deadline;
  auto finish = [&](TvResult::Verdict v, std::string reason) {
    r.verdict = v;
    r.reason = std::move(reason);
    auto now = Clock::now();
    r.seconds = std::chrono::duration<double>(now - start).count();
    // A timeout once the time was gone is the budget's or the deadline's doing (tv_category.h
    // reads these prefixes).
    if (v == TvResult::Verdict::Unknown && r.reason.starts_with("timeout") &&
        now + std::chrono::milliseconds(50) >= deadline)
      r.reason = (deadlineFirst ? "deadline: the module's deadline passed; "
                                : fmt::format("budget: the function's {} s were spent; ",
                                              opts.budgetSeconds)) +
                 r.reason;
    return r;
  };
  auto stage = [&](const char *what) {
    if (opts.progress)
      opts.progress(fmt::format("{}, {:.1f} s", what,
                                std::chrono::duration<double>(Clock::now() - start).count()));
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
  // On every return: whether a call to a module function was left uninterpreted, the only
  // approximation inlining can remove (an indirect call stays one; an uninterpreted
  // instruction is the same model either way).
  struct Report {
    Inputs &x;
    bool &out;
    ~Report() {
      out = std::any_of(x.approximations.begin(), x.approximations.end(),
                        [](const std::string &a) { return a.starts_with("the call to "); });
    }
  } report{x, approximated};
  // With loops, induction first: its queries are loop-free segments, small where the
  // unrolled function is large, and a correct pass usually keeps equal registers equal.
  // When it fails, the unrolling below looks for a real counterexample; induction may use
  // half the budget, so that search always has the other half.
  std::optional<std::string> inductionFailed;
  if (!SideEncoder(x, src, *fs, 0).loopHeaders().empty()) {
    auto inductionDeadline =
        std::min(deadline, start + std::chrono::milliseconds(opts.budgetSeconds * 500));
    stage("induction over the loops");
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
  stage("unrolled encoding");
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
  stage("query: does the target refine the source");
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
    stage("counterexample: looking for a replay");
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
          r.differsAtLine = lineOf(where);
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
  stage("query: does any input need more back edges");
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
                          const TvOptions &given) {
  TvOptions opts = given;
  const Function *fs = src.findFunction(name), *ft = tgt.findFunction(name);
  if (opts.sizedBounds) {
    SizedBounds b = sizedBounds(std::max(fs ? fs->instrCount() : 0, ft ? ft->instrCount() : 0));
    opts.timeoutSeconds = b.timeoutSeconds;
    opts.budgetSeconds = b.budgetSeconds;
  }
  // Past the module's deadline only what needs no Z3 is decided.
  if (opts.deadline && Clock::now() >= *opts.deadline && fs && ft && !(*fs == *ft)) {
    TvResult r;
    r.function = name;
    r.reason = "deadline: the module's deadline passed before this function";
    return r;
  }
  bool approximated = false;
  // Without a call on either side the two attempts below would be the same: one, with the
  // whole budget (it used to get half, the other half never being used).
  auto hasCall = [](const Function *f) {
    if (f)
      for (const Block &b : f->blocks)
        for (const Instr &in : b.instrs)
          if (in.op == Opcode::CALL)
            return true;
    return false;
  };
  if (opts.inlineDepth == 0 || (!hasCall(fs) && !hasCall(ft)))
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
