// consumer: reads a PTX (or .ori) file, runs phase 16 OriPerformLiveDeadFirst with both halves
// compared, checks the result as oriopt does, and prints how many instructions it removed. Built
// against the installed package (CMakeLists.txt beside this file); the calls are those oriopt
// itself makes (docs/library.md, "A run as oriopt makes it").
#include <iostream>

#include "ir/verify.h"
#include "pipeline/dumps.h"
#include "pipeline/oriopt.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: consumer KERNEL.ptx\n";
    return 1;
  }
  ori::ParseResult parsed = ori::parseModuleFile(argv[1]);
  if (parsed.error) {
    std::cerr << parsed.error->str() << "\n";
    return 1;
  }
  ori::Module &m = *parsed.module;
  ori::PassContext ctx;
  ori::ContextOptions options;    // -O3, sm_90, default knobs
  options.impl = ori::Impl::Both; // both halves, compared
  if (auto err = ori::configureContext(ctx, options)) {
    std::cerr << "consumer: " << *err << "\n";
    return 1;
  }
  auto phases = ori::selectPhases(ori::PipelineChoice::Default, "OriPerformLiveDeadFirst");
  if (auto *err = std::get_if<std::string>(&phases)) {
    std::cerr << "consumer: " << *err << "\n";
    return 1;
  }
  const std::vector<ori::PhaseStats> stats = ori::runPhases(m, std::get<0>(phases), ctx);
  if (!ctx.error.empty() || !ori::verifyModule(m).empty()) {
    std::cerr << "consumer: " << ctx.error << "\n";
    return 1;
  }
  // The module still emits as PTX, and its liveness is what both halves compute.
  ori::DumpOptions dump;
  dump.liveness = true;
  dump.impl = ori::Impl::Both;
  if (std::holds_alternative<ori::Diagnostic>(ori::emitModule(m, ori::EmitFormat::Ptx)) ||
      !ori::dumpModule(m, dump).ok()) {
    std::cerr << "consumer: the module does not emit, or the halves' liveness differs\n";
    return 1;
  }
  std::cout << "removed " << stats.at(0).instrsRemoved() << " instructions\n";
  return 0;
}
