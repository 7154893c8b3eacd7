// oriopt: reads a kernel, runs ptxas phases on it, prints or runs the result.
// Exit status: 0 success, 1 bad input or usage, 2 a --run that did not end ok.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>

#include "interp/auto_launch.h"
#include "interp/interp.h"
#include "ir/ori.h"
#include "ptx/ptx.h"
#include "ir/verify.h"
#include "pipeline/oriopt.h"
#include "pipeline/report.h"
#include "pipeline/verify_phases.h"
#include "cli.h"
#include "verify/nested_cond_check.h"
#include "optimized/optimized.h"

[[noreturn]] void oriopt_cli::usageError(const std::string& msg) {
  std::cerr << "oriopt: error: " << msg << "\n";
  std::exit(1);
}

namespace {

using namespace ori;
using namespace oriopt_cli;



bool readFile(const std::string& path, std::string& out) {
  if (path == "-") {
    out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

// "NAME=VALUE" -> {NAME, VALUE}.
std::pair<std::string, std::string> splitAssignment(const std::string& flag, const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    usageError(fmt::format("{} {}: expected NAME=VALUE", flag, text));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::optional<uint64_t> parseInteger(const std::string& s) {
  if (s.empty()) return std::nullopt;
  bool neg = s[0] == '-';
  std::string digits = neg ? s.substr(1) : s;
  if (digits.empty() || !std::isdigit(static_cast<unsigned char>(digits[0]))) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  uint64_t v = std::strtoull(digits.c_str(), &end, 0);
  if (errno == ERANGE || *end != '\0') return std::nullopt;
  if (neg && v > (uint64_t(1) << 63)) return std::nullopt;
  return neg ? uint64_t(0) - v : v;
}

// Binds --param/--buffer to the entry's parameters. Float parameters also
// take float text ("2.5"), stored as their IEEE bits.
// "32", "32x4", "32x4x2" -> a launch dimension (x, y, z).
Dim3 parseDim3(const std::string& flag, const std::string& text) {
  uint32_t v[3] = {1, 1, 1};
  size_t k = 0, at = 0;
  for (;; ++k) {
    size_t x = text.find('x', at);
    std::string part = text.substr(at, x == std::string::npos ? std::string::npos : x - at);
    std::optional<uint64_t> n = parseInteger(part);
    if (k >= 3 || !n || part[0] == '-' || *n == 0 || *n > UINT32_MAX)
      usageError(fmt::format("{} {}: expected X, XxY or XxYxZ with each a positive integer", flag, text));
    v[k] = uint32_t(*n);
    if (x == std::string::npos) break;
    at = x + 1;
  }
  return Dim3(v[0], v[1], v[2]);
}

RunConfig makeRunConfig(const Options& o, const Module& m) {
  RunConfig cfg;
  cfg.entry = o.entry;
  const AutoLaunchOptions autoDefaults;
  cfg.threads = o.threads.empty() ? (o.autoParams ? autoDefaults.threads : Dim3(1)) : parseDim3("--threads", o.threads);
  cfg.ctas = o.ctas.empty() ? (o.autoParams ? autoDefaults.ctas : Dim3(1)) : parseDim3("--ctas", o.ctas);
  cfg.maxSteps = o.maxSteps ? *o.maxSteps : o.autoParams ? autoDefaults.maxSteps : 10'000'000;
  const Function* entry = nullptr;
  for (const Function& f : m.functions)
    if (f.isEntry && (o.entry.empty() || f.name == o.entry)) entry = entry ? entry : &f;
  for (const std::string& p : o.params) {
    auto [name, value] = splitAssignment("--param", p);
    const Param* param = nullptr;
    if (entry)
      for (const Param& q : entry->params)
        if (q.name == name) param = &q;
    std::optional<uint64_t> bits = parseInteger(value);
    if (!bits && param && (param->type == "f32" || param->type == "f64")) {
      char* end = nullptr;
      double d = std::strtod(value.c_str(), &end);
      if (!value.empty() && *end == '\0')
        bits = param->type == "f32" ? uint64_t(std::bit_cast<uint32_t>(float(d))) : std::bit_cast<uint64_t>(d);
    }
    if (!bits) usageError(fmt::format("--param {}: '{}' is not an integer", name, value));
    cfg.params[name] = *bits;
  }
  for (const std::string& b : o.buffers) {
    auto [name, value] = splitAssignment("--buffer", b);
    std::vector<uint8_t> bytes;
    if (!value.empty() && value[0] == '@') {
      std::string content;
      if (!readFile(value.substr(1), content))
        usageError(fmt::format("--buffer {}: cannot read '{}'", name, value.substr(1)));
      bytes.assign(content.begin(), content.end());
    } else if (value.starts_with("hex:")) { // the bytes themselves, as oriverify's replay lines give them
      std::string h = value.substr(4);
      bool ok = h.size() % 2 == 0 && h.size() / 2 <= (size_t(1) << 30) &&
                std::all_of(h.begin(), h.end(), [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)); });
      if (!ok) usageError(fmt::format("--buffer {}: 'hex:' must be followed by pairs of hex digits", name));
      for (size_t k = 0; k < h.size(); k += 2) bytes.push_back(uint8_t(std::stoul(h.substr(k, 2), nullptr, 16)));
    } else {
      auto size = parseInteger(value);
      if (!size || value[0] == '-' || *size > (uint64_t(1) << 30))
        usageError(fmt::format("--buffer {}: size '{}' must be an integer from 0 to 2^30", name, value));
      bytes.assign(*size, 0);
    }
    if (!cfg.buffers.emplace(name, std::move(bytes)).second)
      usageError(fmt::format("--buffer {} is given twice", name));
  }
  for (const std::string& r : o.regs) {
    auto [name, value] = splitAssignment("--reg", r);
    // R5, UR3, P1, UP0 as the .ori reader reads them (the validator prints them so); RZ and PT
    // cannot hold a value
    std::optional<Reg> reg = parseRegisterName(name);
    if (!reg || reg->isConst()) usageError(fmt::format("--reg {}: '{}' is not a register (R5, UR3, P1, UP0)", r, name));
    std::optional<uint64_t> bits = value == "true" ? 1 : value == "false" ? 0 : parseInteger(value);
    if (!bits) usageError(fmt::format("--reg {}: '{}' is not an integer", name, value));
    if (!cfg.initialRegs.emplace(*reg, *bits).second) usageError(fmt::format("--reg {} is given twice", name));
  }
  cfg.onlyThread = o.onlyThread;
  cfg.sharedDynamic = o.sharedDynamic;
  // --auto-params: every parameter --param and --buffer leave unbound, as autoLaunch binds it
  // (interp/auto_launch.h); the choices go to standard error.
  if (o.autoParams && entry) {
    AutoLaunchOptions ao;
    ao.threads = cfg.threads;
    ao.ctas = cfg.ctas;
    ao.maxSteps = cfg.maxSteps;
    std::vector<AutoBinding> chosen = bindAuto(m, *entry, autoBindings(m, *entry, ao), cfg);
    std::cerr << fmt::format("auto-params ({} threads x {} CTAs): {}\n", formatDim3(cfg.threads), formatDim3(cfg.ctas),
                             chosen.empty() ? "nothing to bind" : formatBindings(chosen));
  }
  for (const std::string& d : o.dumpBuffers)
    if (!cfg.buffers.count(d)) usageError(fmt::format("--dump-buffer {}: no --buffer {} was given", d, d));
  return cfg;
}

std::string hexBytes(const std::vector<uint8_t>& bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

std::string summarize(const Module& m, const std::string& file) {
  size_t total = 0, opaque = 0;
  for (const Function& f : m.functions)
    for (const Block& b : f.blocks)
      for (const Instr& in : b.instrs) {
        ++total;
        opaque += in.op == Opcode::OPAQUE;
      }
  std::string out = fmt::format("{}: {} function{}, {} instructions, {} OPAQUE ({:.1f}% native)\n", file,
                                m.functions.size(), m.functions.size() == 1 ? "" : "s", total, opaque,
                                total ? 100.0 * double(total - opaque) / double(total) : 100.0);
  for (const Function& f : m.functions) {
    if (f.isDeclaration()) {
      out += fmt::format(".func {}: declaration\n", f.name);
      continue;
    }
    out += fmt::format("{} {}: {} blocks, {} instructions\n", f.isEntry ? ".entry" : ".func", f.name,
                       f.blocks.size(), f.instrCount());
    for (const Param& p : f.params)
      out += fmt::format("  param .{} {}{} at {}\n", p.type, p.name, p.count ? fmt::format("[{}]", p.count) : "",
                         f.isEntry ? fmt::format("c[0x0][0x{:x}]", p.offset) : fmt::format("param+0x{:x}", p.offset));
    std::string regs;
    for (int file = 0; file < kNumRegFiles; ++file)
      if (f.nextReg[file]) regs += fmt::format(" {}0-{}{}", regFilePrefix(RegFile(file)), regFilePrefix(RegFile(file)), f.nextReg[file] - 1);
    out += fmt::format("  registers:{}\n", regs.empty() ? " none" : regs);
    std::map<std::string_view, int> histogram;
    for (size_t b = 0; b < f.blocks.size(); ++b) {
      const Block& blk = f.blocks[b];
      out += fmt::format("  bix{} (L{:x}){}: {} instructions", b, blk.labelId,
                         blk.label.empty() ? "" : " " + blk.label, blk.instrs.size());
      if (!blk.instrs.empty()) out += ", ends with " + printInstr(f, blk.instrs.back());
      out += "\n";
      for (const Instr& in : blk.instrs) ++histogram[in.info().name];
    }
    out += "  opcodes:";
    for (auto [name, n] : histogram) out += fmt::format(" {} {}", name, n);
    out += "\n";
  }
  return out;
}

void writeOutput(const Options& o, const std::string& text) {
  if (o.output.empty() || o.output == "-") {
    std::cout << text;
    return;
  }
  std::ofstream out(o.output, std::ios::binary);
  if (!(out << text)) usageError(fmt::format("cannot write '{}'", o.output));
}

int runMain(const Options& o) {
  if (o.listPhases) {
    std::cout << formatPipelinePhaseTable();
    return 0;
  }
  if (o.listKnobs) {
    std::cout << formatKnobTable();
    return 0;
  }
  if (o.input.empty()) usageError("no input file (see --help)");

  PassContext ctx;
  ctx.optLevel = o.optLevel;
  ctx.arch = findArch(o.arch);
  ctx.switchBitTests = o.switchBitTests;
  ctx.foldEvaluate = o.fold == "evaluate";
  if (!ctx.arch) {
    std::string known;
    for (const ArchInfo& a : allArchs()) known += " " + std::string(a.name);
    usageError(fmt::format("unknown architecture '{}'; known:{}", o.arch, known));
  }
  for (const std::string& k : o.knobs)
    if (auto err = ctx.knobs.setFromAssignment(k)) usageError(fmt::format("--knob {}: {}", k, *err));
  if (o.json && (o.run || o.summary)) usageError(fmt::format("--json cannot be given with {}", o.run ? "--run" : "--summary"));
  std::vector<const PipelineEntry*> phases;
  if (o.pipeline == "ptxas") {
    if (!o.phases.empty()) usageError("--pipeline=ptxas and --phases are exclusive: give one or the other");
    phases = ptxasPhases();
  } else if (!o.phases.empty()) {
    auto parsed = parsePhaseList(o.phases);
    if (auto* err = std::get_if<std::string>(&parsed)) usageError("--phases: " + *err);
    phases = std::get<0>(parsed);
  } else {
    phases = defaultPhases();
  }

  std::string fileName = o.input == "-" ? "<stdin>" : o.input;
  std::string text;
  if (!readFile(o.input, text)) usageError(fmt::format("cannot read '{}'", o.input));
  ParseResult parsed = parseModule(text, fileName);
  // The reader's warnings (an instruction kept as OPAQUE); --strict: errors, exit status 1.
  for (const Warning& w : parsed.warnings) std::cerr << w.str(o.strict && !w.note) << "\n";
  if (parsed.error) {
    std::cerr << parsed.error->str() << "\n";
    return 1;
  }
  if (o.strict && !parsed.warnings.empty()) return 1;
  Module& m = *parsed.module;
  BlockProfile profile;
  if (!o.profile.empty()) {
    std::string profileText;
    if (!readFile(o.profile, profileText)) usageError(fmt::format("cannot read '{}'", o.profile));
    auto read = parseProfile(profileText, o.profile, m);
    if (auto* d = std::get_if<Diagnostic>(&read)) {
      std::cerr << d->str() << "\n";
      return 1;
    }
    profile = std::move(std::get<BlockProfile>(read));
    ctx.profile = &profile;
  }

  ctx.half = o.impl == "reference" ? PassContext::Half::Reference
             : o.impl == "both"    ? PassContext::Half::Both
                                   : PassContext::Half::Optimized;
  if (o.unsplitBlocks) {
    if (std::none_of(phases.begin(), phases.end(), [](const PipelineEntry* e) { return e->phase == 6; }))
      usageError("--unsplit-blocks leaves control flow inside blocks: run phase 6 (--phases=6,...) to split them again");
    for (Function& f : m.functions) unsplitBlocks(f);
  }
  if (!o.reorderBlocks.empty()) {
    std::vector<uint32_t> order;
    for (size_t i = 0; i <= o.reorderBlocks.size();) {
      size_t end = std::min(o.reorderBlocks.find(',', i), o.reorderBlocks.size());
      std::optional<uint64_t> v = parseInteger(o.reorderBlocks.substr(i, end - i));
      if (!v || *v >= (uint64_t(1) << 31)) usageError(fmt::format("--reorder-blocks {}: expected bix numbers separated by commas", o.reorderBlocks));
      order.push_back(uint32_t(*v));
      i = end + 1;
    }
    std::vector<bool> seen(order.size());
    for (uint32_t b : order)
      if (b >= order.size() || seen[b] || order[0] != 0)
        usageError(fmt::format("--reorder-blocks {}: expected 0 first, then every other bix once", o.reorderBlocks));
      else
        seen[b] = true;
    for (Function& f : m.functions) {
      if (f.isDeclaration() || (!o.function.empty() && f.name != o.function)) continue;
      if (f.blocks.size() != order.size())
        usageError(fmt::format("--reorder-blocks {}: function {} has {} blocks", o.reorderBlocks, f.name, f.blocks.size()));
      reorderBlocksPass(f, ctx, order);
    }
  }
  PhaseObserver observer(o, ctx);
  // --verify: each step's output against its input, before the next step runs.
  auto checkStep = [&](const Module& before, const std::string& step) {
    if (!o.verify || !ctx.error.empty()) return;
    VerifyReport rep = verifyStep(before, m, step, o.verifyOpts, observer.verifyProgress(step));
    std::cerr << rep.lines;
    if (rep.refuted) {
      std::cerr << "oriopt: error: " << step << " changed the behaviour of a function (above)\n";
      std::exit(1);
    }
  };
  // --verify: each phase 38 combination is proved when it is made (verify/nested_cond_check.h).
  bool combinationRefuted = false;
  if (o.verify)
    ctx.nestedCondObserver = [&](const Function& before, const Function& after, uint32_t outerLabelId) {
      const LivenessFacts live = optimized::computeLiveness(before, optimized::computeCfg(before));
      verify::NestedCondCheck c = verify::checkNestedCondCombination(m, before, after, outerLabelId, live, o.verifyOpts);
      std::cerr << "verify phase 38 OptimizeNestedCondBranches: " << c.line << "\n";
      combinationRefuted = combinationRefuted || c.verdict == verify::TvResult::Verdict::Refuted;
    };
  if (o.dumpFoldMarks)
    ctx.foldMarksObserver = [](const Function& f, std::string_view phase, const std::vector<FoldMark>& marks) {
      std::cout << "fold-marks: function " << f.name << " phase " << phase << ": " << marks.size() << " marked\n"
                << formatFoldMarks(marks);
    };
  // --report=DIR: dot found and DIR made before any phase runs; the functions recorded as they change.
  ReportOptions reportOpts;
  std::optional<ReportRecorder> recorder;
  if (!o.report.empty()) {
    reportOpts.title = fmt::format("oriopt report: {}", fileName);
    reportOpts.run = fmt::format("--pipeline={}{} -O{} --arch {} --impl={}", o.pipeline,
                                 o.phases.empty() ? "" : " --phases=" + o.phases, o.optLevel, o.arch, o.impl);
    reportOpts.impl = o.impl == "reference" ? Impl::Reference : o.impl == "both" ? Impl::Both : Impl::Optimized;
    if (auto problem = prepareReport(o.report, reportOpts)) usageError(*problem);
    if (!o.function.empty() && !m.findFunction(o.function))
      usageError(fmt::format("--function {}: no such function in {}", o.function, fileName));
    recorder.emplace(m, o.function);
  }
  RunOptions run;
  run.keepBefore = o.verify || o.printChanged;
  run.countChanges = o.stats || o.json || recorder;
  observer.install(run, [&](const PipelineEntry& e, const Module* before, const Module& after) {
    if (recorder) recorder->afterPhase(e, after);
    if (combinationRefuted) {
      std::cerr << "oriopt: error: phase 38 OptimizeNestedCondBranches made a combination that changes behaviour (above)\n";
      std::exit(1);
    }
    if (before) {
      const PhaseInfo* info = findPhase(std::to_string(e.phase));
      checkStep(*before, fmt::format("phase {} {}", e.phase, info ? info->name : ""));
    }
    return true;
  });
  observer.atStart(m);
  const std::vector<PhaseStats> stats = runPhases(m, phases, ctx, run);
  if (o.stats) std::cerr << formatStatsTable(stats);
  if (recorder) {
    reportOpts.progress = observer.reportProgress();
    ReportResult written = writeReport(o.report, *recorder, stats, reportOpts);
    for (const std::string& w : written.warnings) std::cerr << "oriopt: warning: " << w << "\n";
    if (!written.ok()) usageError(written.error);
  }
  if (o.eraseUnreachable) {
    std::optional<Module> before;
    if (o.verify) before = m;
    for (Function& f : m.functions) eraseUnreachablePass(f, ctx);
    if (before) checkStep(*before, "--erase-unreachable");
  }
  if (!ctx.error.empty()) {
    std::cerr << "oriopt: error: " << ctx.error << "\n";
    return 1;
  }
  if (auto problems = verifyModule(m); !problems.empty()) {
    for (const std::string& p : problems) std::cerr << "oriopt: internal error: " << p << "\n";
    return 1;
  }

  if (o.json) {
    nlohmann::json functions = nlohmann::json::array();
    if (wantsDumps(o) && !writeDumps(o, m, ctx, fileName, nullptr, &functions)) return 1;
    nlohmann::json j = {{"oriopt", 1},
                        {"input", fileName},
                        {"optLevel", o.optLevel},
                        {"arch", o.arch},
                        {"impl", o.impl},
                        {"pipeline", o.pipeline == "ptxas" ? "ptxas" : o.phases.empty() ? "default" : "phases"},
                        {"phases", statsJson(stats)},
                        {"functions", std::move(functions)}};
    writeOutput(o, j.dump(2) + "\n");
    return 0;
  }
  if (wantsDumps(o)) {
    std::string out;
    if (!writeDumps(o, m, ctx, fileName, &out, nullptr)) return 1;
    writeOutput(o, out);
    return 0;
  }

  if (o.run) {
    RunConfig cfg = makeRunConfig(o, m);
    RunResult r = runKernel(m, cfg);
    if (r.kind == RunResult::Kind::Error) usageError(r.message);
    std::string out = formatExit(r, fileName) + "\n";
    if (o.dumpLayout) out += formatLayout(m, cfg);
    // --run-stats: the instructions executed; for an ok run whether it did real work (more than
    // every warp leaving through the first block, interp/auto_launch.h), for the others the detail.
    if (o.runStats) {
      out += fmt::format("steps: warp={} lane={}\n", r.warpSteps, r.laneSteps);
      out += fmt::format("branches: executed={} divergent={}\n", r.branches, r.divergentBranches);
      const Function* k = nullptr;
      for (const Function& f : m.functions)
        if (f.isEntry && (o.entry.empty() || f.name == o.entry)) k = k ? k : &f;
      if (r.kind == RunResult::Kind::Ok && k)
        out += didRealWork(*k, cfg, r) ? "work: real\n"
                                       : fmt::format("work: left through its first block ({} warp instructions per warp)\n",
                                                     firstBlockExitSteps(*k));
      if (r.kind != RunResult::Kind::Ok && !r.message.empty()) {
        std::string detail = r.message;
        std::replace(detail.begin(), detail.end(), '\n', ' ');
        out += "detail: " + detail + "\n";
      }
    }
    for (const std::string& d : o.dumpBuffers) {
      const auto& bytes = r.buffers[d];
      out += fmt::format("buffer {} {}: {}\n", d, bytes.size(), hexBytes(bytes));
    }
    writeOutput(o, out);
    return r.kind == RunResult::Kind::Ok ? 0 : 2;
  }
  if (o.summary) {
    writeOutput(o, summarize(m, fileName));
  } else if (o.emit == "ptx") {
    ptx::EmitResult emitted = ptx::emit(m);
    if (emitted.error) {
      std::cerr << emitted.error->str() << "\n";
      return 1;
    }
    writeOutput(o, emitted.text);
  } else {
    writeOutput(o, printModule(m));
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"oriopt: an executable, checked model of ptxas 13.0's control-flow and dataflow phases"};
  app.footer(R"(Examples:
  oriopt examples/saxpy.ori                       parse, run the pipeline, print .ori
  oriopt --summary examples/saxpy.ori             blocks, registers and opcodes per function
  oriopt --list-phases                            every ptxas phase: implemented, default, gate
  oriopt --pipeline=ptxas -O2 --stats k.ptx       ptxas's phase order under the gates; a table on stderr
  oriopt --phases=15,16 --print-changed k.ori     each function after every phase that changed it
  oriopt --knob 464=4 -O2 --arch sm_80 k.ori -o out.ori
  oriopt --run --threads 4 --param n=4 --param a=2.0 --buffer x=@x.bin \
         --buffer y=@y.bin --dump-buffer y examples/saxpy.ori

Exit status: 0 on success, 1 on bad input or usage, 2 when --run does not end ok.)");
  Options o;
  addOptions(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "oriopt: error: " << e.what() << " (see --help)\n";
    return 1;
  }
  try {
    return runMain(o);
  } catch (const std::bad_alloc&) {
    std::cerr << "oriopt: error: out of memory\n";
    return 1;
  }
}
