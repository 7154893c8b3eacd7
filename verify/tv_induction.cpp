// The inductive proof of loops for translation validation (verify/tv_impl.h, inductiveProof),
// and the solver it and the bounded proof use.
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

bool traceEnabled() {
  static const bool on = [] {
    const char *t = std::getenv("ORIOPT_TV_TRACE");
    return t && *t && std::string(t) != "0";
  }();
  return on;
}

z3::solver makeSolver(Smt &smt) {
  const char *logic = std::getenv("ORIOPT_TV_LOGIC");
  return z3::solver(smt.ctx(), logic && *logic ? logic : "QF_AUFBV");
}

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
    const auto t0 = std::chrono::steady_clock::now();
    z3::check_result r = q.check();
    if (traceEnabled())
      fmt::print(stderr, "tv:   {} solver: {} in {:.2f} s (of {} ms)\n",
                 general ? "default" : "QF_AUFBV",
                 r == z3::sat     ? "sat"
                 : r == z3::unsat ? "unsat"
                                  : "unknown",
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), ms);
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

namespace {
std::optional<std::string> inductionRounds(Smt &smt, Inputs &x, const Module &src,
                                           const Function &fs, const Module &tgt,
                                           const Function &ft, const TvOptions &opts,
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
  auto entryState = [&]() {
    return State{smt.boolVal(true), {}, x.mem0, x.priv0, smt.bv(0, 32), smt.bv(0, 32)};
  };
  std::map<uint32_t, std::pair<State, State>> at;
  auto buildStates = [&] {
    at.clear();
    for (uint32_t h : headers) {
      std::string tag = fmt::format("@bix{} ", h);
      z3::expr mem = smt.ctx().constant(("memory" + tag).c_str(), x.bytes);
      z3::expr privMem = smt.ctx().constant(("private memory" + tag).c_str(), x.bytes);
      z3::expr bars = smt.bvVar("barriers" + tag, 32);
      z3::expr warp = smt.bvVar("collectives" + tag, 32);
      State a{smt.boolVal(true), {}, mem, privMem, bars, warp}, b = a;
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
    return !(memDiff || seenDiff || p.barriers != q.barriers || p.collectives != q.collectives);
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
      // (how many warp-collective instructions each side ran is not observable at the end)
      State exitS{g.s->exited, {}, g.s->exitMem, g.s->exitPriv, g.s->exitBarriers, smt.bv(0, 32)};
      State exitT{g.t->exited, {}, g.t->exitMem, g.t->exitPriv, g.t->exitBarriers, smt.bv(0, 32)};
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
} // namespace

// Refutations first: when the cheap attempt (the pairs both sides compute alike) fails, the
// quick bounded check looks for a counterexample before Houdini's rounds and the unrolling
// to the full bound (tv_quick.cpp). A correct rewrite is mostly proved by that attempt, so
// it pays nothing for the check (run first, the check cost 2.4 s per function with loops on
// gpuocelot_thrust_histogram.ptx, whose proofs take 0.01 s).
std::optional<std::string> inductiveProof(Smt &smt, Inputs &x, const Module &src,
                                          const Function &fs, const Module &tgt, const Function &ft,
                                          const TvOptions &opts,
                                          std::chrono::steady_clock::time_point deadline,
                                          bool syntacticFirst) {
  if (x.quickCounterexample)
    return x.quickCounterexample;
  std::optional<std::string> why =
      inductionRounds(smt, x, src, fs, tgt, ft, opts, deadline, syntacticFirst);
  if (why && syntacticFirst && why->find("unmodelled") == std::string::npos)
    if (auto found = quickRefutation(smt, x, src, fs, tgt, ft, opts, deadline))
      return found;
  return why;
}

} // namespace ori::verify::tv_detail
