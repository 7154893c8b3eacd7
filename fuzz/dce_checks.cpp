// Dead-code elimination and live-range splitting checks (fuzz/dce_checks.h).
#include "fuzz/dce_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <random>

#include "fuzz/kernel_gen.h"
#include "ir/facts.h"
#include "ir/ori.h"
#include "ir/verify.h"
#include "optimized/optimized.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori::checks {
namespace {

uint32_t runOptimized(Function &f, int phase) {
  if (phase == 10)
    return optimized::earlyOriSimpleLiveDead(f);
  if (phase == 19)
    return optimized::oriSplitLiveRanges(f);
  return optimized::oriPerformLiveDead(f);
}

#if defined(ORIOPT_HAVE_REFERENCE)
uint32_t runReference(Function &f, int phase) {
  if (phase == 10)
    return reference::earlyOriSimpleLiveDead(f);
  if (phase == 19)
    return reference::oriSplitLiveRanges(f);
  return reference::oriPerformLiveDead(f);
}
#endif

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    size_t end = std::min(text.find('\n', i), text.size());
    out.push_back(text.substr(i, end - i));
    i = end + 1;
  }
  return out;
}

std::vector<const Instr *> flatten(const Function &f) {
  std::vector<const Instr *> out;
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs)
      out.push_back(&in);
  return out;
}

// out must be `in` with some instructions deleted, each one keptWhenDead
// lets go. Compared as text: labels print by name, and dropped empty blocks
// renumber the bixes label operands hold.
std::string onlyDeadDeleted(const Function &in, const Function &out, int phase) {
  const std::vector<const Instr *> a = flatten(in), b = flatten(out);
  size_t j = 0;
  for (const Instr *i : a) {
    if (j < b.size() && printInstr(out, *b[j]) == printInstr(in, *i)) {
      ++j;
      continue;
    }
    if (keptWhenDead(*i))
      return fmt::format("phase {} deleted '{}', which has effects", phase, printInstr(in, *i));
  }
  if (j != b.size())
    return fmt::format("phase {} output has '{}', not in its input in that order", phase,
                       printInstr(out, *b[j]));
  return "";
}

// A dead instruction left in f by global liveness (optimized half), if any.
std::string deadLeft(const Function &f) {
  const LivenessFacts live = optimized::computeLiveness(f, optimized::computeCfg(f));
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    std::vector<Reg> now = live.liveOut[b];
    auto has = [&](Reg r) { return std::find(now.begin(), now.end(), r) != now.end(); };
    const auto &instrs = f.blocks[b].instrs;
    for (size_t i = instrs.size(); i-- > 0;) {
      const Instr &in = instrs[i];
      const std::vector<Reg> defs = in.defs();
      if (!keptWhenDead(in) && std::none_of(defs.begin(), defs.end(), has))
        return fmt::format("after phase 16, bix{} still has the dead '{}'", b, printInstr(f, in));
      if (!in.isGuarded())
        std::erase_if(now,
                      [&](Reg r) { return std::find(defs.begin(), defs.end(), r) != defs.end(); });
      for (Reg r : in.uses())
        if (!has(r))
          now.push_back(r);
    }
  }
  return "";
}

// Phase 19: each block of out is its block of in with MOV.64 copies added.
std::string onlyCopiesAdded(const Function &in, const Function &out) {
  if (in.blocks.size() != out.blocks.size())
    return "phase 19 changed the number of blocks";
  for (size_t b = 0; b < in.blocks.size(); ++b) {
    const auto &x = in.blocks[b].instrs, &y = out.blocks[b].instrs;
    size_t i = 0;
    for (const Instr &added : y) {
      if (i < x.size() && added == x[i]) {
        ++i;
        continue;
      }
      const bool isCopy = added.op == Opcode::MOV && added.has(Mod::W64) && !added.guard &&
                          added.dsts.size() == 1 && added.srcs.size() == 1 &&
                          added.dsts[0].isReg() && added.srcs[0].isReg();
      if (!isCopy)
        return fmt::format("phase 19 added '{}' to bix{}, not a register copy",
                           printInstr(out, added), b);
    }
    if (i != x.size())
      return fmt::format("phase 19 lost '{}' from bix{}", printInstr(in, x[i]), b);
  }
  return "";
}

const char *kindName(RunResult::Kind k) {
  switch (k) {
  case RunResult::Kind::Ok:
    return "ok";
  case RunResult::Kind::Timeout:
    return "timeout";
  case RunResult::Kind::Fault:
    return "fault";
  case RunResult::Kind::Unsupported:
    return "unsupported";
  case RunResult::Kind::Deadlock:
    return "deadlock";
  case RunResult::Kind::Error:
    return "error";
  case RunResult::Kind::Trap:
    return "trap";
  }
  return "?";
}

} // namespace

std::string firstTextDifference(const Function &a, const Function &b, const char *nameA,
                                const char *nameB) {
  const std::vector<std::string> x = lines(printFunction(a)), y = lines(printFunction(b));
  for (size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    const std::string p = i < x.size() ? x[i] : "<end>", q = i < y.size() ? y[i] : "<end>";
    if (p != q)
      return fmt::format("line {}: {} '{}', {} '{}'", i + 1, nameA, p, nameB, q);
  }
  return "";
}

std::string malformedAfter(const Function &g, const std::string &what) {
  if (std::vector<std::string> problems = verifyFunction(g); !problems.empty())
    return fmt::format("{} leaves a malformed function: {}", what, problems.front());
  return "";
}

std::string halvesDiffer(const Function &r, const Function &o, const std::string &what) {
  if (std::string d = firstTextDifference(r, o, "reference", "optimized"); !d.empty())
    return fmt::format("{}: halves differ: {}", what, d);
  for (size_t b = 0; b < r.blocks.size(); ++b)
    if (r.blocks[b].labelId != o.blocks[b].labelId)
      return fmt::format("{}: label id of bix{} differs", what, b);
  if (r.regTypes != o.regTypes)
    return fmt::format("{}: register types differ", what);
  return "";
}

std::string dcePhaseHalvesAgree([[maybe_unused]] const Function &f, [[maybe_unused]] int phase) {
#if defined(ORIOPT_HAVE_REFERENCE)
  Function r = f, o = f;
  const uint32_t nr = runReference(r, phase), no = runOptimized(o, phase);
  if (std::string d = firstTextDifference(r, o, "reference", "optimized"); !d.empty())
    return fmt::format("phase {}: halves differ: {}", phase, d);
  if (nr != no)
    return fmt::format("phase {}: reference reports {}, optimized {}", phase, nr, no);
  for (size_t b = 0; b < r.blocks.size(); ++b)
    if (r.blocks[b].labelId != o.blocks[b].labelId)
      return fmt::format("phase {}: label id of bix{} differs", phase, b);
#endif
  return "";
}

std::string dceShapeAndIdempotence(const Function &f) {
  for (int phase : {10, 16}) {
    Function once = f;
    runOptimized(once, phase);
    if (std::string d = onlyDeadDeleted(f, once, phase); !d.empty())
      return d;
    Function twice = once;
    if (uint32_t n = runOptimized(twice, phase); n != 0)
      return fmt::format("phase {} run twice deleted {} more instruction(s)", phase, n);
    if (std::string d = firstTextDifference(once, twice, "once", "twice"); !d.empty())
      return fmt::format("phase {} run twice changed the code: {}", phase, d);
    if (phase == 16)
      if (std::string d = deadLeft(once); !d.empty())
        return d;
  }
  Function split = f;
  runOptimized(split, 19);
  return onlyCopiesAdded(f, split);
}

std::string dceDiff(const Function &f) {
  for (int phase : {10, 16, 19})
    if (std::string d = dcePhaseHalvesAgree(f, phase); !d.empty())
      return d;
  return dceShapeAndIdempotence(f);
}

std::string compareRuns(const RunResult &before, const RunResult &after, bool *compared) {
  if (compared)
    *compared = false;
  if (before.kind == RunResult::Kind::Unsupported || before.kind == RunResult::Kind::Timeout ||
      before.kind == RunResult::Kind::Error)
    return "";
  if (compared)
    *compared = true;
  if (after.kind != before.kind)
    return fmt::format("ended {} ({}), now {} ({})", kindName(before.kind), before.message,
                       kindName(after.kind), after.message);
  if (before.kind == RunResult::Kind::Ok && before.threadsRun != after.threadsRun)
    return fmt::format("{} threads ran, now {}", before.threadsRun, after.threadsRun);
  if (before.kind == RunResult::Kind::Fault &&
      (before.thread != after.thread || before.addr != after.addr))
    return fmt::format("faulted in thread {} at 0x{:x}, now in thread {} at 0x{:x}", before.thread,
                       before.addr, after.thread, after.addr);
  for (const auto &[name, bytes] : before.buffers)
    if (after.buffers.count(name) == 0 || after.buffers.at(name) != bytes)
      return fmt::format("buffer {} differs", name);
  if (before.variables != after.variables)
    return "a .global variable differs";
  return "";
}

std::string dceKeepsBehaviour(const Module &m, const std::vector<RunConfig> &inputs,
                              size_t *compared) {
  size_t entry = m.functions.size();
  for (size_t i = 0; i < m.functions.size(); ++i)
    if (m.functions[i].isEntry && !m.functions[i].isDeclaration())
      entry = entry < m.functions.size() ? entry : i;
  if (entry == m.functions.size())
    return "";
  struct Variant {
    const char *name;
    std::vector<int> phases;
  };
  const Variant variants[] = {
      {"phase 10", {10}}, {"phase 16", {16}}, {"phase 19", {19}}, {"phases 16,19", {16, 19}}};
  std::vector<RunResult> before;
  for (const RunConfig &in : inputs)
    before.push_back(runKernel(m, in));
  for (const Variant &v : variants) {
    Module changed = m;
    for (int phase : v.phases)
      runOptimized(changed.functions[entry], phase);
    for (size_t k = 0; k < inputs.size(); ++k) {
      const RunResult after = runKernel(changed, inputs[k]);
      bool wasCompared = false;
      if (std::string d = compareRuns(before[k], after, &wasCompared); !d.empty())
        return fmt::format("after {}, input {} (threads {}): {}", v.name, k,
                           formatDim3(inputs[k].threads), d);
      if (compared)
        *compared += wasCompared;
    }
  }
  return "";
}

std::vector<RunConfig> inputsFor(const Function &f, int count, uint32_t bufferBytes) {
  std::mt19937_64 rng(std::hash<std::string>{}(printFunction(f)));
  std::vector<RunConfig> out;
  for (int k = 0; k < count; ++k) {
    RunConfig cfg;
    cfg.entry = f.name;
    cfg.threads = gen::launchThreads(uint32_t(rng()), 1 + uint32_t(rng() % 3));
    cfg.maxSteps = gen::kMaxSteps;
    for (const Param &p : f.params) {
      if (p.size == 8 && p.count == 0) {
        std::vector<uint8_t> bytes(bufferBytes);
        for (uint8_t &b : bytes)
          b = uint8_t(rng());
        cfg.buffers[p.name] = std::move(bytes);
      } else {
        cfg.params[p.name] =
            k % 2 ? uint32_t(rng()) : rng() % 64; // small values keep data-bound loops short
      }
    }
    out.push_back(std::move(cfg));
  }
  return out;
}

std::vector<RunConfig> oneThreadInputs(std::vector<RunConfig> inputs) {
  for (RunConfig &cfg : inputs)
    cfg.threads = 1;
  return inputs;
}

std::string dceBehaviour(const Function &f) {
  Module m;
  m.functions.push_back(f);
  return dceKeepsBehaviour(m, inputsFor(f, 3, gen::kLaunchBufferBytes));
}

} // namespace ori::checks
