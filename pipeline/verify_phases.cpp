// oriopt --verify (pipeline/verify_phases.h).
#include "pipeline/verify_phases.h"

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>

#include "interp/interp.h"
#include "verify/switch_extract.h"
#include "verify/tv.h"

namespace ori {
namespace {

// The interpreter's verdict on a function Z3 could not decide, by the refinement the
// validator proves (docs/verifier.md): "" when every launch the source ends ok ends ok after
// with the same memory, else the first difference. A launch on which the source faults
// constrains nothing: PTX leaves the faulting access undefined, and a phase may remove it (a
// dead load) so that the run goes on and faults later (nvcc13_GPU-Raytracer_Pathtracer after
// phase 10: 0x28000 before, 0x28004 after, a dead component of a vector load). *compared
// counts the launches compared, *faulting those the source faults on.
std::string interpreterCheck(const Module &before, const Module &after, const Function &f,
                             int *compared, int *faulting) {
  *compared = *faulting = 0;
  for (const RunConfig &cfg : randomLaunches(f, 8)) {
    RunResult a = runKernel(before, cfg), b = runKernel(after, cfg);
    if (a.kind == RunResult::Kind::Fault)
      ++*faulting;
    if (a.kind != RunResult::Kind::Ok)
      continue;
    ++*compared;
    if (b.kind != RunResult::Kind::Ok)
      return fmt::format("before: {}; after: {}", formatExit(a, "before"), formatExit(b, "after"));
    for (const auto &[name, bytes] : a.buffers)
      if (b.buffers.at(name) != bytes)
        return fmt::format("buffer {} differs", name);
    if (a.variables != b.variables)
      return "a .global variable differs";
  }
  return {};
}

// --progress inside one function: each stage of the validator as it starts ("query: ...,
// 3.1 s", the seconds since the function's start), and, while one stage lasts (a Z3 query may
// take up to its timeout), the same stage again every kBeat with the time grown. The repeats
// come from a thread of their own; every call of `print` holds the mutex.
class Heartbeat {
public:
  static constexpr std::chrono::seconds kBeat{10};
  explicit Heartbeat(std::function<void(const std::string &)> print)
      : print_(std::move(print)), thread_([this] { beat(); }) {}
  Heartbeat(const Heartbeat &) = delete;
  Heartbeat &operator=(const Heartbeat &) = delete;
  ~Heartbeat() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  // `what` is "STAGE, T s" (verify/tv.h TvOptions::progress).
  void stage(const std::string &what) {
    std::lock_guard lock(mutex_);
    stage_ = what.substr(0, what.rfind(", "));
    print_(what);
  }

private:
  void beat() {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, kBeat, [this] { return done_; }))
      if (!stage_.empty())
        print_(fmt::format(
            "{}, {:.1f} s", stage_,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count()));
  }
  std::function<void(const std::string &)> print_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::string stage_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::thread thread_; // last: started once the rest is initialized
};

// DoSwitchOptFirst/Second and ExpandJmxComputation rewrite switch dispatch:
// after them each changed switch is also proved on its own (verify/switch_extract.h).
bool isSwitchPhase(const std::string &step) {
  return step.starts_with("phase 14 ") || step.starts_with("phase 30 ") ||
         step.starts_with("phase 80 ");
}

} // namespace

std::optional<int> stepPhase(const std::string &step) {
  if (!step.starts_with("phase "))
    return std::nullopt;
  return std::atoi(step.c_str() + 6);
}

VerifyReport verifyStep(const Module &before, const Module &after, const std::string &step,
                        const verify::TvOptions &given, const VerifyProgress &progress) {
  VerifyReport rep;
  const std::optional<int> phase = stepPhase(step);
  for (const Function &f : before.functions) {
    const size_t index = size_t(&f - before.functions.data()), count = before.functions.size();
    if (progress)
      progress(index, count, "");
    const Function *g = after.findFunction(f.name);
    if (g && *g == f)
      continue;
    verify::TvOptions opts = given;
    std::optional<Heartbeat> heartbeat;
    if (progress) {
      heartbeat.emplace([&](const std::string &stage) {
        progress(index, count,
                 fmt::format("{} ({} instructions): {}", f.name, f.instrCount(), stage));
      });
      opts.progress = [&](const std::string &stage) { heartbeat->stage(stage); };
    }
    verify::TvResult r = verify::validateFunction(before, after, f.name, opts);
    heartbeat.reset();
    VerdictRecord rec;
    rec.step = step;
    rec.phase = phase;
    rec.function = f.name;
    rec.verdict = r.verdict;
    rec.reason = r.reason;
    rec.seconds = r.seconds;
    rec.inputs = r.inputs;
    rec.replayArgs = r.replayArgs;
    rec.noReplay = r.noReplay;
    rec.functionLine = f.loc.line;
    rec.differsAtLine = r.differsAtLine;
    std::string line = fmt::format("verify {}: {}", step, r.line());
    if (r.verdict == verify::TvResult::Verdict::Refuted)
      rep.refuted = true;
    const bool pastDeadline = opts.deadline && std::chrono::steady_clock::now() >= *opts.deadline;
    if (r.verdict == verify::TvResult::Verdict::Unknown && g) {
      std::string &seen = rec.interpreter; // what the interpreter saw, appended to the line
      if (!f.isEntry) {
        seen = "not run in the interpreter (not a kernel)";
      } else if (pastDeadline) {
        seen = "not run in the interpreter (past the deadline)";
      } else {
        int compared = 0, faulting = 0;
        std::string diff = interpreterCheck(before, after, f, &compared, &faulting);
        std::string faults =
            faulting
                ? fmt::format(" ({} where the source faults, which constrain nothing)", faulting)
                : "";
        if (!diff.empty()) {
          rep.refuted = true;
          rec.interpreterDiffers = true;
          seen = "the interpreter sees a difference: " + diff;
        } else if (compared == 0) {
          seen = "the interpreter ended ok in none of 8 random launches (unsupported, out of "
                 "steps, or a fault in the "
                 "source): not checked";
        } else {
          seen = fmt::format("the interpreter: {} of 8 random launches compared, all the same{}",
                             compared, faults);
        }
      }
      line += "; " + seen;
    }
    rep.lines += line + "\n";
    rec.line = line.substr(fmt::format("verify {}: ", step).size());
    rep.verdicts.push_back(std::move(rec));
    if (g && isSwitchPhase(step)) {
      // One line per switch the phase changed; an unchanged one is not a check.
      for (const verify::SwitchCheckResult &s : verify::checkSwitchRewrites(f, *g)) {
        if (s.verdict == verify::SwitchCheckResult::Verdict::Unchanged)
          continue;
        if (s.verdict == verify::SwitchCheckResult::Verdict::Refuted)
          rep.refuted = true;
        rep.lines += fmt::format("verify {}: {}\n", step, s.line);
        using V = verify::SwitchCheckResult::Verdict;
        VerdictRecord sw;
        sw.step = step;
        sw.phase = phase;
        sw.function = f.name;
        sw.kind = "switch";
        sw.what = s.head;
        sw.verdict = s.verdict == V::Proved    ? verify::TvResult::Verdict::Proved
                     : s.verdict == V::Refuted ? verify::TvResult::Verdict::Refuted
                                               : verify::TvResult::Verdict::Unknown;
        sw.reason = s.verdict == V::Refuted ? s.line.substr(s.line.find(": ") + 2) : s.reason;
        sw.functionLine = f.loc.line;
        sw.line = s.line;
        rep.verdicts.push_back(std::move(sw));
      }
    }
  }
  return rep;
}

std::vector<RunConfig> randomLaunches(const Function &k, int count) {
  std::mt19937_64 rng(std::hash<std::string>{}(k.name));
  std::vector<RunConfig> out;
  for (int i = 0; i < count; ++i) {
    RunConfig cfg;
    cfg.entry = k.name;
    const uint32_t shapes[] = {1 + uint32_t(rng() % 4), 32, 33 + uint32_t(rng() % 31), 64};
    cfg.threads = shapes[i % 4];
    cfg.ctas = 1 + uint32_t(rng() % 2);
    cfg.maxSteps = 200'000;
    for (const Param &p : k.params) {
      if (p.size == 8 && p.count == 0) {
        std::vector<uint8_t> bytes(4096);
        for (uint8_t &b : bytes)
          b = uint8_t(rng());
        cfg.buffers[p.name] = std::move(bytes);
      } else {
        cfg.params[p.name] = rng() % 64;
      }
    }
    out.push_back(std::move(cfg));
  }
  return out;
}

} // namespace ori
