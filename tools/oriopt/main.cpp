// oriopt: reads a kernel, runs ptxas phases on it, prints or runs the result. The work is the
// library's (pipeline/: docs/library.md); this file reads the options and prints.
// Exit status: 0 success, 1 bad input or usage (or a --verify refutation), 2 a --run that did
// not end ok; --verify=strict: 4 when a verdict is refuted, else 3 when one is unknown.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>

#include "cli.h"
#include "interp/interp.h"
#include "ir/verify.h"
#include "pipeline/dumps.h"
#include "pipeline/oriopt.h"
#include "pipeline/report.h"
#include "pipeline/roundtrip_check.h"
#include "pipeline/run_checks.h"
#include "pipeline/run_output.h"
#include "pipeline/stats.h"
#include "pipeline/summary.h"
#include "pipeline/verdicts.h"

[[noreturn]] void oriopt_cli::usageError(const std::string &msg) {
  std::cerr << "oriopt: error: " << msg << "\n";
  std::exit(1);
}

namespace {

using namespace ori;
using namespace oriopt_cli;

template <class T>
T orUsageError(std::variant<T, std::string> v) { // the value, or exit with the message
  if (auto *err = std::get_if<std::string>(&v))
    usageError(*err);
  return std::move(std::get<T>(v));
}

bool readFile(const std::string &path, std::string &out) { // "-": standard input
  std::ifstream file(path == "-" ? "" : path, std::ios::binary);
  std::istream &in = path == "-" ? std::cin : file;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return path == "-" || file.is_open();
}

void writeOutput(const Options &o, const std::string &text) {
  if (o.output.empty() || o.output == "-") {
    std::cout << text;
    return;
  }
  std::ofstream out(o.output, std::ios::binary);
  if (!(out << text))
    usageError(fmt::format("cannot write '{}'", o.output));
}

// --run: the launch, its exit line (and --run-stats), the buffers asked for. Returns the status.
int runAndPrint(const Options &o, const Module &m, const std::string &fileName) {
  const LaunchPlan plan = orUsageError(planLaunch(m, o.launch));
  if (!plan.autoBindings.empty())
    std::cerr << plan.autoBindings << "\n";
  std::vector<BufferDump> dumps;
  for (const std::string &d : o.dumpBuffers)
    dumps.push_back(orUsageError(parseBufferDump(m, plan.config, d)));
  std::vector<std::pair<std::string, std::string>> saves;
  for (const std::string &s : o.saveBuffers)
    saves.push_back(orUsageError(parseBufferSave(m, plan.config, s)));
  RunResult r = runKernel(m, plan.config);
  if (r.kind == RunResult::Kind::Error)
    usageError(r.message);
  std::string out = formatExit(r, fileName) + "\n";
  if (o.dumpLayout)
    out += formatLaunchLayout(m, plan.config);
  if (o.runStats) // the instructions executed, whether it did real work or why it stopped
    out += formatRunStats(m, o.launch.entry, plan.config, r);
  for (const BufferDump &d : dumps)
    out += formatBufferDump(d, r.buffers[d.name]);
  for (const auto &[name, file] : saves)
    if (!saveBufferFile(r.buffers[name], file))
      usageError(fmt::format("--save-buffer {}: cannot write '{}'", name, file));
  writeOutput(o, out);
  // Where a fault or an unsupported instruction stopped it: on standard error, after the rest,
  // so that the exit line and the buffers stay as they were.
  if (std::string at = formatStopPlace(r, fileName); !at.empty()) {
    std::cout.flush();
    std::cerr << "oriopt: " << stopKindName(r) << " at " << at
              << (r.message.empty() ? "" : ": " + r.message) << "\n";
  }
  return r.kind == RunResult::Kind::Ok ? 0 : 2;
}

// --verify=strict's status for a run that otherwise succeeded (set by finishVerify).
int verifyExitStatus = 0;

// After the phases under --verify: the SARIF log (--sarif) and the closing line on standard
// error (pipeline/verdicts.h).
void finishVerify(const Options &o, const VerdictLog &log, double seconds,
                  const std::string &fileName) {
  if (!o.verify)
    return;
  if (!o.sarif.empty()) {
    std::ofstream out(o.sarif, std::ios::binary);
    if (!(out << log.sarif(fileName, ORIOPT_VERSION, seconds).dump(2) << "\n"))
      usageError(fmt::format("cannot write '{}'", o.sarif));
  }
  std::cerr << log.closingLine(seconds) << "\n";
  verifyExitStatus = o.verifyStrict ? strictExitStatus(log) : 0;
}

int runMain(const Options &o) {
  if (o.listPhases || o.listKnobs) {
    std::cout << (o.listPhases ? formatPipelinePhaseTable() : formatKnobTable());
    return 0;
  }
  if (o.input.empty())
    usageError("no input file (see --help)");
  PassContext ctx;
  if (auto err = configureContext(
          ctx, {o.optLevel, o.arch, o.knobs, o.impl, o.foldEvaluate, o.switchBitTests}))
    usageError(*err);
  if (!o.sarif.empty() && !o.verify)
    usageError("--sarif needs --verify");
  if (o.json && (o.run || o.summary))
    usageError(fmt::format("--json cannot be given with {}", o.run ? "--run" : "--summary"));
  // --check-roundtrip without --phases or --pipeline=ptxas: the module as read
  const bool asRead = o.checkRoundTrip && o.phases.empty() && o.pipeline == PipelineChoice::Default;
  const std::vector<const PipelineEntry *> phases =
      asRead ? std::vector<const PipelineEntry *>{}
             : orUsageError(selectPhases(o.pipeline, o.phases));

  const std::string fileName = o.input == "-" ? "<stdin>" : o.input;
  std::string text;
  if (!readFile(o.input, text))
    usageError(fmt::format("cannot read '{}'", o.input));
  ParseResult parsed = parseModule(text, fileName);
  // The reader's warnings (an instruction kept as OPAQUE); --strict: errors, exit status 1.
  for (const Warning &w : parsed.warnings)
    std::cerr << w.str(o.strict && !w.note) << "\n";
  if (parsed.error) {
    std::cerr << parsed.error->str() << "\n";
    return 1;
  }
  if (o.strict && !parsed.warnings.empty())
    return 1;
  Module &m = *parsed.module;
  if (o.emitLowered) // every instruction through the Ori -> PTX emitter (ir/ptx_origin.h)
    for (Function &f : m.functions)
      f.ptxOrigins.reset();
  BlockProfile profile;
  if (!o.profile.empty()) {
    std::string profileText;
    if (!readFile(o.profile, profileText))
      usageError(fmt::format("cannot read '{}'", o.profile));
    auto read = parseProfile(profileText, o.profile, m);
    if (auto *d = std::get_if<Diagnostic>(&read)) {
      std::cerr << d->str() << "\n";
      return 1;
    }
    profile = std::move(std::get<BlockProfile>(read));
    ctx.profile = &profile;
  }
  if (o.unsplitBlocks)
    if (auto err = unsplitModuleBlocks(m, phases))
      usageError(*err);
  if (!o.reorderBlocks.empty())
    if (auto err = reorderModuleBlocks(m, ctx, o.reorderBlocks, o.function))
      usageError(*err);

  PhaseObserver observer(o, ctx);
  FoldMarksLog foldMarks; // with --json the marks go into the document, else to stdout at once
  if (o.dumpFoldMarks)
    foldMarks.install(
        ctx, o.json ? std::function<void(const std::string &)>()
                    : [](const std::string &t) { std::cout << t; });
  // --report=DIR: dot found and DIR made before any phase runs; the functions recorded as they
  // change.
  ReportOptions reportOpts;
  std::optional<ReportRecorder> recorder;
  if (!o.report.empty()) {
    reportOpts.title = fmt::format("oriopt report: {}", fileName);
    reportOpts.run = fmt::format("--pipeline={}{} -O{} --arch {} --impl={}",
                                 o.pipeline == PipelineChoice::Ptxas ? "ptxas" : "default",
                                 o.phases.empty() ? "" : " --phases=" + o.phases, o.optLevel,
                                 o.arch, implName(o.impl));
    reportOpts.impl = o.impl;
    if (auto problem = prepareReport(o.report, reportOpts))
      usageError(*problem);
    if (!o.function.empty() && !m.findFunction(o.function))
      usageError(fmt::format("--function {}: no such function in {}", o.function, fileName));
    recorder.emplace(m, o.function);
  }
  // --verify: each step's output against its input, before the next step runs.
  verify::TvOptions tv = o.verifyOpts;
  const auto verifyStart = std::chrono::steady_clock::now();
  if (o.verifyDeadline >= 0)
    tv.deadline = verifyStart + std::chrono::milliseconds(int64_t(o.verifyDeadline * 1000));
  RunChecks checks(m, ctx,
                   {o.verify, tv, [](const std::string &t) { std::cerr << t; },
                    [&](const std::string &step) { return observer.verifyProgress(step); },
                    recorder ? &*recorder : nullptr, o.verifyPlantBug});
  auto verifySeconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - verifyStart).count();
  };
  // With --json the document says what the validator decided (docs/oriopt-output.schema.json).
  auto document = [&](const std::vector<PhaseStats> &stats, nlohmann::json functions,
                      const FoldMarksLog *marks) {
    nlohmann::json j = runDocument(
        {fileName, o.optLevel, o.arch, o.impl, std::string(pipelineName(o.pipeline, o.phases))},
        stats, std::move(functions), marks);
    if (o.verify)
      j["verify"] = checks.verdicts().toJson(verifySeconds(), o.verifyStrict);
    return j.dump(2) + "\n";
  };
  RunOptions run;
  run.keepBefore = checks.keepBefore() || o.printChanged;
  run.countChanges = o.stats || o.json || recorder;
  observer.install(run, [&](const PipelineEntry &e, const Module *before, const Module &after) {
    return checks.afterPhase(e, before, after);
  });
  observer.atStart(m);
  const std::vector<PhaseStats> stats = runPhases(m, phases, ctx, run);
  // A refutation stops the run: the verdicts so far, then the error (exit status 1, or 4).
  auto stopOnRefutation = [&] {
    if (!checks.error())
      return;
    if (o.json)
      writeOutput(o, document(stats, nlohmann::json::array(), nullptr));
    finishVerify(o, checks.verdicts(), verifySeconds(), fileName);
    std::cerr << "oriopt: error: " << *checks.error() << "\n";
    std::exit(o.verifyStrict ? 4 : 1);
  };
  stopOnRefutation();
  if (o.stats)
    std::cerr << formatStatsTable(stats);
  if (recorder) {
    reportOpts.progress = observer.reportProgress();
    ReportResult written = writeReport(o.report, *recorder, stats, reportOpts);
    for (const std::string &w : written.warnings)
      std::cerr << "oriopt: warning: " << w << "\n";
    if (!written.ok())
      usageError(written.error);
  }
  if (o.eraseUnreachable)
    checks.eraseUnreachable(m);
  stopOnRefutation();
  finishVerify(o, checks.verdicts(), verifySeconds(), fileName);
  if (!ctx.error.empty())
    usageError(ctx.error);
  if (auto problems = verifyModule(m); !problems.empty()) {
    for (const std::string &p : problems)
      std::cerr << "oriopt: internal error: " << p << "\n";
    return 1;
  }

  if (o.checkRoundTrip) {
    RoundTripOptions rto;
    rto.tv = o.verifyOpts;
    rto.prove = o.roundTripProve == "all";
    if (!o.function.empty()) {
      if (!m.findFunction(o.function))
        usageError(fmt::format("--function {}: no such function in {}", o.function, fileName));
      rto.proveOnly = [&](const std::string &name) { return name == o.function; };
    }
    RoundTripReport rep = checkRoundTrip(m, rto);
    if (rep.error) {
      std::cerr << fmt::format("oriopt: error: round trip: {}: {}\n", rep.stage, rep.error->str());
      return 1;
    }
    const RoundTripListing listing = listRoundTrip(rep, fileName, o.function);
    writeOutput(o, listing.text);
    return listing.ok ? 0 : 1;
  }
  const DumpOptions dumps = dumpOptions(o, ctx.knobs.getBool("DisableAnalyzeControlFlow"));
  if (o.json || dumps.any()) {
    if (dumps.any() && !o.function.empty() && !m.findFunction(o.function))
      usageError(fmt::format("--function {}: no such function in {}", o.function, fileName));
    DumpResult d = dumps.any() ? dumpModule(m, dumps) : DumpResult{};
    for (const std::string &w : d.warnings)
      std::cerr << "oriopt: warning: " << w << "\n";
    if (!d.ok())
      usageError(d.error);
    writeOutput(
        o, o.json ? document(stats, std::move(d.functions), o.dumpFoldMarks ? &foldMarks : nullptr)
                  : d.text);
    return 0;
  }
  if (o.run)
    return runAndPrint(o, m, fileName);
  if (o.summary) {
    writeOutput(o, summarizeModule(m, fileName));
    return 0;
  }
  auto emitted = emitModule(m, o.emit);
  if (auto *d = std::get_if<Diagnostic>(&emitted)) {
    std::cerr << d->str() << "\n";
    return 1;
  }
  writeOutput(o, std::get<std::string>(emitted));
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{
      "oriopt: an executable, checked model of ptxas 13.0's control-flow and dataflow phases"};
  app.footer(R"(Examples:
  oriopt examples/saxpy.ori                       parse, run the pipeline, print .ori
  oriopt --summary examples/saxpy.ori             blocks, registers and opcodes per function
  oriopt --list-phases                            every ptxas phase: implemented, default, gate
  oriopt --pipeline=ptxas -O2 --stats k.ptx       ptxas's phase order under the gates; a table on stderr
  oriopt --phases=15,16 --print-changed k.ori     each function after every phase that changed it
  oriopt --knob 464=4 -O2 --arch sm_80 k.ori -o out.ori
  oriopt --run --threads 4 --param n=4 --param a=2.0 --buffer x=@x.bin \
         --buffer y=@y.bin --dump-buffer y examples/saxpy.ori
  oriopt --run --threads 4 --arg 0=4 --arg 1=2.0 --arg 2=f32:1,2,3,4 --arg 3=zeros:16 \
         --dump-buffer 3:f32 examples/saxpy.ori

Exit status: 0 on success, 1 on bad input or usage or when --verify refutes a step, 2 when --run
does not end ok; with --verify=strict, 4 when a verdict is refuted, else 3 when one is unknown.)");
  app.set_version_flag("--version", "oriopt " ORIOPT_VERSION);
  Options o;
  addOptions(app, o);
  try {
    app.parse(argc, argv);
    o.verify = !o.verifyMode.empty();
    o.verifyStrict = o.verifyMode == "strict";
    // No bound given: both chosen per function from its size (docs/verifier.md).
    o.verifyOpts.sizedBounds = !app.count("--verify-timeout") && !app.count("--verify-budget");
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::cerr << "oriopt: error: " << e.what() << " (see --help)\n";
    return 1;
  }
  try {
    const int status = runMain(o);
    return status != 0 ? status : verifyExitStatus;
  } catch (const std::bad_alloc &) {
    std::cerr << "oriopt: error: out of memory\n";
    return 1;
  }
}
