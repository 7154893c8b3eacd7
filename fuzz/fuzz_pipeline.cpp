// libFuzzer harness for the pipeline (OSS-Fuzz / ClusterFuzzLite, .clusterfuzzlite/): whatever
// the reader accepts (PTX or .ori text, told apart as oriopt does) runs through ptxas's whole
// pipeline (--pipeline=ptxas -O3) with --impl=both, so the reference and the optimized half run
// every phase and must agree. A difference between the halves, a module the phases leave
// invalid, a crash, a sanitizer report, a hang or a runaway allocation is a finding; an input
// the reader rejects is not (fuzz_ptx_parser and fuzz_ori_parser test the diagnostics).
//
//   make fuzz && build-fuzz/bin/fuzz_pipeline fuzz/corpus/ori examples
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ir/verify.h"
#include "pipeline/oriopt.h"

namespace {

// Inputs bigger than this are skipped: each run must stay well under libFuzzer's timeout.
constexpr size_t kMaxInstrs = 400;

[[noreturn]] void die(const char *what, const std::string &detail) {
  std::fprintf(stderr, "fuzz_pipeline: %s\n%s\n", what, detail.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  ori::ParseResult parsed = ori::parseModule(text, "fuzz.input");
  if (!parsed.module)
    return 0;
  ori::Module &m = *parsed.module;
  size_t instrs = 0;
  for (const ori::Function &f : m.functions)
    instrs += f.instrCount();
  if (instrs > kMaxInstrs || !ori::verifyModule(m).empty())
    return 0;

  ori::PassContext ctx;
  ori::ContextOptions options;
  options.impl = ori::Impl::Both;
  if (auto err = ori::configureContext(ctx, options))
    die("configureContext failed", *err);
  auto phases = ori::selectPhases(ori::PipelineChoice::Ptxas, "");
  if (auto *err = std::get_if<std::string>(&phases))
    die("selectPhases failed", *err);
  ori::runPhases(m, std::get<std::vector<const ori::PipelineEntry *>>(phases), ctx);
  if (!ctx.error.empty())
    die("the pipeline stopped (with --impl=both: the halves differ)", ctx.error);
  if (auto problems = ori::verifyModule(m); !problems.empty())
    die("the pipeline left an invalid module", problems.front());
  return 0;
}
