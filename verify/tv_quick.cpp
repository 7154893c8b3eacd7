// Refutations first (verify/tv_impl.h, quickRefutation; docs/verifier.md, "Refutations
// first"): for a function with loops, once the cheap proof attempt (the register pairs both
// sides compute alike) has failed, and before Houdini's rounds and the unrolling to the full
// bound, a bounded check with few back edges and a short timeout looks for a
// counterexample. A wrong rewrite usually shows on the first pass or the first iteration,
// and these queries are small where the proof's many queries, and the full unrolling, are
// not. When it finds one, the rest of the induction is skipped and the bounded check the
// driver runs next uses the bound it was found at (Inputs::refutableWithin), so the
// refutation and its replay take seconds.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "verify/tv_impl.h"

namespace ori::verify::tv_detail {

z3::expr misbehaves(Smt &smt, Inputs &x, const Function &fs, const SideEncoder &s,
                    const SideEncoder &t) {
  z3::expr a = smt.bvVar("differing address", 64);
  auto inRange = [&](const z3::expr &base, uint64_t size) {
    return z3::ult(a - base, smt.bv(size, 64));
  };
  z3::expr memDiffers = !isPrivate(smt, a) && z3::select(s.exitMem, a) != z3::select(t.exitMem, a);
  for (const Param &p : fs.returns) {
    z3::expr base = smt.bv(kParamWindow, 64) + x.base(fmt::format("{}.param {}", fs.name, p.name),
                                                      kParamSize, p.align, p.size);
    memDiffers = memDiffers ||
                 (inRange(base, p.size) && z3::select(s.exitPriv, a) != z3::select(t.exitPriv, a));
  }
  z3::expr kb = smt.bvVar("differing barrier", 32);
  z3::expr barriersDiffer = s.exitBarriers != t.exitBarriers;
  z3::expr atBarrierDiffers =
      z3::ult(kb, s.exitBarriers) && !isPrivate(smt, a) &&
      z3::select(s.snapshotAt(kb, x.mem0), a) != z3::select(t.snapshotAt(kb, x.mem0), a);
  z3::expr ending = t.fault || s.trapped != t.trapped || (!s.trapped && !t.exited);
  return (!s.bound && !t.bound &&
          (ending || (!s.trapped && (barriersDiffer || atBarrierDiffers || memDiffers))))
      .simplify();
}

std::optional<std::string> quickRefutation(Smt &smt, Inputs &x, const Module &src,
                                           const Function &fs, const Module &tgt,
                                           const Function &ft, const TvOptions &opts,
                                           std::chrono::steady_clock::time_point deadline) {
  for (unsigned k = 0; k <= std::min(opts.unroll, kQuickBackEdges); ++k) {
    const long long left = std::chrono::duration_cast<std::chrono::milliseconds>(
                               deadline - std::chrono::steady_clock::now())
                               .count();
    // A share of the induction's time (a third, at least a second, or a quarter of the
    // budget when that is less, even when the failed proof used it all): this is a search,
    // not a proof, and its queries are small (tens of milliseconds where a counterexample
    // exists).
    const long long floor = std::min<long long>(1000, opts.budgetSeconds * 250);
    const unsigned ms = unsigned(
        std::min<long long>({(long long)kQuickQueryMs, (long long)opts.timeoutSeconds * 1000,
                             std::max<long long>(left / 3, floor)}));

    const auto started = std::chrono::steady_clock::now();
    SideEncoder s(x, src, fs, k, true), t(x, tgt, ft, k);
    s.run();
    if (s.unmodelled)
      return std::nullopt;
    t.run();
    if (t.unmodelled)
      return std::nullopt;
    z3::solver solver = makeSolver(smt);
    solver.add(x.assumptions && !s.fault);
    solver.add(misbehaves(smt, x, fs, s, t));
    const z3::check_result r = checkWithFallback(smt, solver, ms);
    if (traceEnabled())
      fmt::print(stderr, "tv: {}: quick check within {} back edges: {} in {:.2f} s\n", fs.name, k,
                 r == z3::sat     ? "sat"
                 : r == z3::unsat ? "unsat"
                                  : "unknown",
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    if (r == z3::sat) {
      x.refutableWithin = k;
      x.quickCounterexample =
          fmt::format("a counterexample within {} back edge{}, found before the inductive proof", k,
                      k == 1 ? "" : "s");
      return x.quickCounterexample;
    }
    if (r == z3::unknown) // more back edges would not be faster
      break;
  }
  return std::nullopt;
}

} // namespace ori::verify::tv_detail
