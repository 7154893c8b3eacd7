// The reducer of cuda-host-diff: greedy statement deletion in the manner of
// C-Reduce's first passes. Each round compiles, in one batch, every variant
// of the current kernel that deletes one removable statement or replaces an
// if by one of its branches, plus (when an earlier round found several
// deletions that keep the failure) the variant that makes all of them at
// once and its two halves. The smallest variant that still fails the same
// way is kept, until none does or the budget is spent. Barriers, the
// initialisation of shared memory and the epilogue are never deleted, so
// every variant keeps the generator's guarantees (no race, defined C++).
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <map>

#include "fuzz/cuda_diff_impl.h"

namespace ori::cudagen {

namespace {

using Clock = std::chrono::steady_clock;

enum class EditOp { Remove, Then, Else };
using Edits = std::map<uint32_t, EditOp>;

std::vector<Stmt> applyEdits(const std::vector<Stmt> &v, const Edits &e) {
  std::vector<Stmt> out;
  for (const Stmt &s : v) {
    auto it = e.find(s.id);
    if (it != e.end() && s.removable) {
      if (it->second == EditOp::Remove)
        continue;
      if (s.kind == Stmt::Kind::If || s.kind == Stmt::Kind::UIf) {
        std::vector<Stmt> branch = applyEdits(it->second == EditOp::Then ? s.body : s.els, e);
        out.insert(out.end(), branch.begin(), branch.end());
        continue;
      }
    }
    Stmt c = s;
    c.body = applyEdits(s.body, e);
    c.els = applyEdits(s.els, e);
    for (Stmt::Case &k : c.cases)
      k.body = applyEdits(k.body, e);
    out.push_back(std::move(c));
  }
  return out;
}

void singles(const std::vector<Stmt> &v, std::vector<Edits> &out) {
  for (const Stmt &s : v) {
    if (s.removable) {
      out.push_back({{s.id, EditOp::Remove}});
      if (s.kind == Stmt::Kind::If || s.kind == Stmt::Kind::UIf) {
        if (!s.body.empty())
          out.push_back({{s.id, EditOp::Then}});
        if (!s.els.empty())
          out.push_back({{s.id, EditOp::Else}});
      }
    }
    singles(s.body, out);
    singles(s.els, out);
    for (const Stmt::Case &c : s.cases)
      singles(c.body, out);
  }
}

// "exit: fault thread=3 ..." -> "exit: fault"; the kind of failure a variant must keep.
std::string failureClass(const Verdict &v) {
  if (v.kind != Verdict::Kind::Failed)
    return "";
  size_t sp = v.detail.find(' ');
  size_t end = sp == std::string::npos ? std::string::npos : v.detail.find(' ', sp + 1);
  return v.detail.substr(0, end);
}

bool sameFailure(const Verdict &a, const Verdict &b) {
  return a.kind == b.kind &&
         (a.kind == Verdict::Kind::Differ || failureClass(a) == failureClass(b));
}

} // namespace

Reduced reduceKernel(const DiffOptions &o, const Tools &tools, const Kernel &k,
                     const std::string &build, const Verdict &v, Stats &stats) {
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::seconds(300);
  Reduced r{k, v, "", 0, 0};
  std::vector<Edits> lastGood; // single deletions that kept the failure in the last round
  DiffOptions quiet = o;
  while (r.rounds < 60 && Clock::now() < deadline) {
    ++r.rounds;
    std::vector<Edits> cands;
    if (lastGood.size() > 1) {
      Edits all, lo, hi;
      for (size_t i = 0; i < lastGood.size(); ++i) {
        all.insert(lastGood[i].begin(), lastGood[i].end());
        (i < lastGood.size() / 2 ? lo : hi).insert(lastGood[i].begin(), lastGood[i].end());
      }
      cands.push_back(all);
      cands.push_back(lo);
      cands.push_back(hi);
    }
    singles(r.kernel.body, cands);
    std::vector<Kernel> variants;
    for (size_t i = 0; i < cands.size(); ++i) {
      Kernel c = r.kernel;
      c.name = fmt::format("{}_{}", k.name, i);
      c.body = applyEdits(r.kernel.body, cands[i]);
      variants.push_back(std::move(c));
    }
    std::vector<const Kernel *> ptrs;
    for (const Kernel &c : variants)
      ptrs.push_back(&c);
    r.variants += variants.size();
    BatchResult b = runBatch(ptrs, {build}, quiet, tools, stats);
    if (!b.error.empty()) {
      std::cerr << "orifuzz: reducer: a variant does not compile (a generator bug): " << b.error
                << "\n";
      break;
    }
    const std::vector<Verdict> &vs = b.verdicts[build];
    int best = -1;
    std::vector<Edits> good;
    for (size_t i = 0; i < variants.size(); ++i) {
      if (!sameFailure(vs[i], v))
        continue;
      if (cands[i].size() == 1 && cands[i].begin()->second == EditOp::Remove)
        good.push_back(cands[i]);
      if (best < 0 || variants[i].statements() < variants[size_t(best)].statements())
        best = int(i);
    }
    if (best < 0)
      break;
    r.kernel.body = std::move(variants[size_t(best)].body);
    r.verdict = vs[size_t(best)];
    // Deletions of statements that are gone now are dropped with them.
    lastGood.clear();
    for (Edits &e : good)
      if (!(cands[size_t(best)].count(e.begin()->first)))
        lastGood.push_back(std::move(e));
    std::cerr << fmt::format(
        "orifuzz: reducer round {}: {} variants, {} still fail; now {} statements\n", r.rounds,
        variants.size(), good.size(), r.kernel.statements());
  }
  stats.reduce += std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

} // namespace ori::cudagen
