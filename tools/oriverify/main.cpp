// oriverify: proves the Z3 obligations (docs/verifier.md) and prints one line
// each, `proved NAME` or `refuted NAME: counterexample ...`, then
// `N passed, N failed`; with --crosscheck it compares the opcode models with
// the interpreter instead. Exit status 1 if anything is not as expected: an
// obligation that should hold does not, a wrong variant is not refuted, or a
// model disagrees with the interpreter.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "ir/canonical.h"
#include "ir/ori.h"
#include "pipeline/oriopt.h"
#include "pipeline/verdicts.h"
#include "verify/crosscheck.h"
#include "verify/obligations.h"
#include "verify/tv.h"

namespace {

int runObligations(const std::string &only, bool list, bool timing) {
  using ori::verify::ObligationInfo;
  std::vector<ObligationInfo> selected;
  for (const ObligationInfo &o : ori::verify::listObligations())
    if (ori::verify::nameMatches(only, o.name))
      selected.push_back(o);
  if (selected.empty()) {
    fmt::print(stderr, "oriverify: error: no obligation matches '{}' (see --list)\n", only);
    return 1;
  }
  if (list) {
    for (const ObligationInfo &o : selected)
      fmt::print("{} [{}] {}\n", o.name, o.expectHolds ? "holds" : "refuted", o.statement);
    return 0;
  }
  size_t passed = 0, failed = 0;
  for (const ObligationInfo &o : selected) {
    ori::verify::ObligationResult r = ori::verify::checkObligation(o.name);
    std::string line = ori::verify::formatResult(o, r);
    if (timing)
      line += fmt::format(" ({:.2f} s)", r.seconds);
    fmt::print("{}\n", line);
    if (r.asExpected(o)) {
      ++passed;
    } else {
      ++failed;
      fmt::print("unexpected {}: {}\n", o.name,
                 o.expectHolds ? "expected to hold" : "expected a counterexample");
    }
    std::fflush(stdout);
  }
  fmt::print("{} passed, {} failed\n", passed, failed);
  return failed ? 1 : 0;
}

int runCrossCheck(const std::string &only, uint64_t samples, uint64_t seed, bool verbose) {
  ori::verify::CrossCheckOptions opts;
  opts.only = only;
  opts.samples = samples;
  opts.seed = seed;
  auto start = std::chrono::steady_clock::now();
  ori::verify::CrossCheckReport r =
      ori::verify::crossCheck(opts, [&](const ori::verify::CombinationResult &c) {
        if (verbose || c.mismatches)
          fmt::print("crosscheck {}: {} inputs, {} mismatches\n", c.name, c.samples, c.mismatches);
        std::fflush(stdout);
      });
  if (verbose)
    for (const std::string &u : r.uninterpreted)
      fmt::print("crosscheck {}: uninterpreted, not compared\n", u);
  if (r.combinations.empty() && r.uninterpreted.empty()) {
    fmt::print(stderr, "oriverify: error: no opcode/modifier combination matches '{}'\n", only);
    return 1;
  }
  for (const std::string &m : r.mismatches)
    fmt::print("mismatch {}\n", m);
  size_t failed = 0;
  for (const auto &c : r.combinations)
    failed += c.mismatches ? 1 : 0;
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("crosscheck: {} combinations, {} inputs, {} mismatches, {:.1f} s\n",
             r.combinations.size(), r.samples, r.mismatchCount, secs);
  if (!r.uninterpreted.empty())
    fmt::print("crosscheck: {} combinations of uninterpreted models (the warp-level matrix "
               "instructions) not compared\n",
               r.uninterpreted.size());
  fmt::print("{} passed, {} failed\n", r.combinations.size() - failed, failed);
  return failed ? 1 : 0;
}

// PTX (a .ptx file, or text whose first directive is .version) is lowered as oriopt lowers it;
// anything else is read as .ori (pipeline/oriopt.h, InputKind::Auto). The PTX reader's
// warnings (an instruction kept as OPAQUE) are printed, and with --strict they are errors.
std::optional<ori::Module> readModule(const std::string &path, bool strict) {
  ori::ParseResult r = ori::parseModuleFile(path);
  for (const ori::Warning &w : r.warnings)
    fmt::print(stderr, "{}\n", w.str(strict && !w.note));
  if (r.error) {
    fmt::print(stderr, "{}\n", r.error->str());
    return std::nullopt;
  }
  if (strict && !r.warnings.empty())
    return std::nullopt;
  return std::move(*r.module);
}

// Translation validation: one line per function; exit status 1 if any is refuted.
// `opts`: the bounds as oriopt --verify takes them (sized from each function when neither
// --timeout nor --budget is given, --verify-deadline). The closing line goes to standard error.
int runTv(const std::vector<std::string> &files, const std::string &function,
          const ori::verify::TvOptions &opts, bool canonical, bool strict) {
  const auto start = std::chrono::steady_clock::now();
  std::optional<ori::Module> src = readModule(files[0], strict), tgt = readModule(files[1], strict);
  if (!src || !tgt)
    return 1;
  if (canonical) { // registers read before written pair up (ir/canonical.h)
    src = ori::canonicalModule(*src);
    tgt = ori::canonicalModule(*tgt);
  }
  std::optional<std::string> only;
  if (!function.empty()) {
    if (!src->findFunction(function) && !tgt->findFunction(function)) {
      fmt::print(stderr, "oriverify: error: no function '{}' in either file\n", function);
      return 1;
    }
    only = function;
  }
  bool refuted = false;
  ori::VerdictLog log;
  for (const ori::verify::TvResult &r : ori::verify::validateModule(*src, *tgt, opts, only)) {
    ori::VerdictRecord rec;
    rec.step = "--tv";
    rec.function = r.function;
    rec.verdict = r.verdict;
    rec.reason = r.reason;
    rec.seconds = r.seconds;
    log.add(std::move(rec));
    std::string line = r.line();
    if (r.verdict == ori::verify::TvResult::Verdict::Refuted && !r.replayArgs.empty() &&
        !canonical) {
      // the replay command names both files
      line = line.substr(0, line.rfind("; replay: ")) +
             fmt::format("; replay: oriopt --run {} {} and oriopt --run {} {}", r.replayArgs,
                         files[0], r.replayArgs, files[1]);
    }
    fmt::print("{}\n", line);
    refuted = refuted || r.verdict == ori::verify::TvResult::Verdict::Refuted;
  }
  std::fflush(stdout);
  fmt::print(stderr, "{}\n",
             log.closingLine(
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()));
  return refuted ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{
      "oriverify: Z3 proofs of the LOP3 algebra, the spec's LOP3 claims and switch lowerings; "
      "the opcode models against the interpreter (docs/verifier.md)"};
  std::string only;
  bool list = false, timing = false, crosscheck = false, verbose = false;
  uint64_t samples = 10000, seed = 1;
  app.add_option("--only", only,
                 "run only names matching PATTERN (a glob with * ? [ ], else a substring)")
      ->type_name("PATTERN");
  app.add_flag("--list", list,
               "list the obligations (name, expected outcome, statement) without proving them");
  app.add_flag("--time", timing, "print each obligation's time");
  app.add_flag("--crosscheck", crosscheck,
               "compare every opcode model with the interpreter instead");
  app.add_option("--samples", samples, "inputs per opcode/modifier combination (--crosscheck)")
      ->check(CLI::Range(uint64_t(1), uint64_t(1000000)));
  app.add_option("--seed", seed, "random seed (--crosscheck)");
  app.add_flag("-v,--verbose", verbose, "print every combination (--crosscheck)");
  std::vector<std::string> tvFiles;
  std::string function;
  ori::verify::TvOptions tvOpts;
  double deadline = -1;
  bool canonical = false;
  app.add_option("--tv", tvFiles,
                 "translation validation: does TARGET refine SOURCE, function by function (paired "
                 "by name)? Each "
                 "is .ori or PTX (lowered as oriopt lowers it), in any mix")
      ->expected(2)
      ->type_name("SOURCE TARGET");
  app.add_flag("--canonical-registers", canonical,
               "number the registers of both inputs in order of first appearance, as oriopt "
               "--check-roundtrip "
               "does, so that registers read before written pair up (--tv; a refutation then has "
               "no replay line)");
  app.add_option("--function", function, "only this function (--tv)");
  app.add_option("--unroll,--verify-unroll", tvOpts.unroll,
                 "back edges a path may take before the verdict is unknown (--tv)")
      ->check(CLI::Range(0u, 64u));
  app.add_option(
         "--inline-depth,--verify-inline-depth", tvOpts.inlineDepth,
         "nested calls to functions of the module inlined; deeper ones are uninterpreted (--tv)")
      ->check(CLI::Range(0u, 16u));
  app.add_option("--timeout,--verify-timeout", tvOpts.timeoutSeconds,
                 "seconds per Z3 query (--tv; default: from the function's size, as oriopt "
                 "--verify, docs/verifier.md)")
      ->check(CLI::Range(1u, 3600u));
  app.add_option("--budget,--verify-budget", tvOpts.budgetSeconds,
                 "seconds per function, all its Z3 queries together (--tv; default: from the "
                 "function's size)")
      ->check(CLI::Range(1u, 86400u));
  app.add_option("--deadline,--verify-deadline", deadline,
                 "seconds for the whole module; what is left after it is unknown (deadline); 0: "
                 "nothing is asked of Z3 (--tv)")
      ->check(CLI::Range(0.0, 1e7));
  app.set_version_flag("--version", std::string("oriverify ") + ORIOPT_VERSION);
  bool strict = false;
  app.add_flag(
      "--strict", strict,
      "--tv on .ptx files: the PTX reader's warnings (an instruction kept as OPAQUE) are errors");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == 0)
      return app.exit(e);
    fmt::print(stderr, "oriverify: error: {}\n", e.what());
    return 1;
  }
  try {
    if (!tvFiles.empty()) {
      tvOpts.sizedBounds = !app.count("--timeout") && !app.count("--budget");
      if (deadline >= 0)
        tvOpts.deadline =
            std::chrono::steady_clock::now() + std::chrono::milliseconds(int64_t(deadline * 1000));
      return runTv(tvFiles, function, tvOpts, canonical, strict);
    }
    return crosscheck ? runCrossCheck(only, samples, seed, verbose)
                      : runObligations(only, list, timing);
  } catch (const std::exception &e) {
    fmt::print(stderr, "oriverify: error: {}\n", e.what());
    return 1;
  }
}
