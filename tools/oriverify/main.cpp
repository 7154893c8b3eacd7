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

#include "verify/crosscheck.h"
#include "verify/obligations.h"

namespace {

int runObligations(const std::string& only, bool list, bool timing) {
  using ori::verify::ObligationInfo;
  std::vector<ObligationInfo> selected;
  for (const ObligationInfo& o : ori::verify::listObligations())
    if (ori::verify::nameMatches(only, o.name)) selected.push_back(o);
  if (selected.empty()) {
    fmt::print(stderr, "oriverify: error: no obligation matches '{}' (see --list)\n", only);
    return 1;
  }
  if (list) {
    for (const ObligationInfo& o : selected)
      fmt::print("{} [{}] {}\n", o.name, o.expectHolds ? "holds" : "refuted", o.statement);
    return 0;
  }
  size_t passed = 0, failed = 0;
  for (const ObligationInfo& o : selected) {
    ori::verify::ObligationResult r = ori::verify::checkObligation(o.name);
    std::string line = ori::verify::formatResult(o, r);
    if (timing) line += fmt::format(" ({:.2f} s)", r.seconds);
    fmt::print("{}\n", line);
    if (r.asExpected(o)) {
      ++passed;
    } else {
      ++failed;
      fmt::print("unexpected {}: {}\n", o.name, o.expectHolds ? "expected to hold" : "expected a counterexample");
    }
    std::fflush(stdout);
  }
  fmt::print("{} passed, {} failed\n", passed, failed);
  return failed ? 1 : 0;
}

int runCrossCheck(const std::string& only, uint64_t samples, uint64_t seed, bool verbose) {
  ori::verify::CrossCheckOptions opts;
  opts.only = only;
  opts.samples = samples;
  opts.seed = seed;
  auto start = std::chrono::steady_clock::now();
  ori::verify::CrossCheckReport r = ori::verify::crossCheck(opts, [&](const ori::verify::CombinationResult& c) {
    if (verbose || c.mismatches) fmt::print("crosscheck {}: {} inputs, {} mismatches\n", c.name, c.samples, c.mismatches);
    std::fflush(stdout);
  });
  if (r.combinations.empty()) {
    fmt::print(stderr, "oriverify: error: no opcode/modifier combination matches '{}'\n", only);
    return 1;
  }
  for (const std::string& m : r.mismatches) fmt::print("mismatch {}\n", m);
  size_t failed = 0;
  for (const auto& c : r.combinations) failed += c.mismatches ? 1 : 0;
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("crosscheck: {} combinations, {} inputs, {} mismatches, {:.1f} s\n", r.combinations.size(), r.samples,
             r.mismatchCount, secs);
  fmt::print("{} passed, {} failed\n", r.combinations.size() - failed, failed);
  return failed ? 1 : 0;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"oriverify: Z3 proofs of the LOP3 algebra, the spec's LOP3 claims and switch lowerings; "
               "the opcode models against the interpreter (docs/verifier.md)"};
  std::string only;
  bool list = false, timing = false, crosscheck = false, verbose = false;
  uint64_t samples = 10000, seed = 1;
  app.add_option("--only", only, "run only names matching PATTERN (a glob with * ? [ ], else a substring)")
      ->type_name("PATTERN");
  app.add_flag("--list", list, "list the obligations (name, expected outcome, statement) without proving them");
  app.add_flag("--time", timing, "print each obligation's time");
  app.add_flag("--crosscheck", crosscheck, "compare every opcode model with the interpreter instead");
  app.add_option("--samples", samples, "inputs per opcode/modifier combination (--crosscheck)")
      ->check(CLI::Range(uint64_t(1), uint64_t(1000000)));
  app.add_option("--seed", seed, "random seed (--crosscheck)");
  app.add_flag("-v,--verbose", verbose, "print every combination (--crosscheck)");
  app.set_version_flag("--version", std::string("oriverify ") + ORIOPT_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    fmt::print(stderr, "oriverify: error: {}\n", e.what());
    return 1;
  }
  try {
    return crosscheck ? runCrossCheck(only, samples, seed, verbose) : runObligations(only, list, timing);
  } catch (const std::exception& e) {
    fmt::print(stderr, "oriverify: error: {}\n", e.what());
    return 1;
  }
}
