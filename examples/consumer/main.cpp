// consumer: reads a PTX (or .ori) file, runs phase 16 OriPerformLiveDeadFirst with the
// optimized half and prints how many instructions it removed. Built against the installed
// package (CMakeLists.txt beside this file).
#include <iostream>

#include "pipeline/oriopt.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: consumer KERNEL.ptx\n";
    return 1;
  }
  ori::ParseResult parsed = ori::parseModuleFile(argv[1]);
  if (parsed.error) {
    std::cerr << parsed.error->str() << "\n";
    return 1;
  }
  ori::PassContext ctx; // -O3, default knobs
  ctx.half = ori::PassContext::Half::Optimized;
  ori::PhaseRunResult run = ori::runPhases(*parsed.module, "OriPerformLiveDeadFirst", ctx);
  if (!run.ok()) {
    std::cerr << "consumer: " << run.error << "\n";
    return 1;
  }
  std::cout << "removed " << run.stats.at(0).instrsRemoved() << " instructions\n";
  return 0;
}
