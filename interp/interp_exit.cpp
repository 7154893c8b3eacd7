// A run's end as text (interp/interp.h): the exit line and where a fault or an unsupported
// instruction stopped it.
#include <fmt/format.h>

#include "interp/interp_impl.h"

namespace ori {

std::string formatDim3(const Dim3 &d) {
  if (d.z != 1)
    return fmt::format("{}x{}x{}", d.x, d.y, d.z);
  if (d.y != 1)
    return fmt::format("{}x{}", d.x, d.y);
  return fmt::format("{}", d.x);
}

std::string formatExit(const RunResult &r, const std::string &file) {
  switch (r.kind) {
  case RunResult::Kind::Ok:
    return fmt::format("exit: ok threads={}", r.threadsRun);
  case RunResult::Kind::Timeout:
    return fmt::format("exit: timeout thread={}", r.thread);
  case RunResult::Kind::Fault:
    return fmt::format("exit: fault thread={} addr=0x{:x}", r.thread, r.addr);
  case RunResult::Kind::Deadlock:
    return fmt::format("exit: deadlock thread={}", r.thread);
  case RunResult::Kind::Trap:
    return fmt::format("exit: trap thread={}", r.thread);
  case RunResult::Kind::Unsupported:
    return fmt::format("exit: unsupported \"{}\" at {}:{}", r.mnemonic, file, r.line);
  case RunResult::Kind::Error:
    return fmt::format("error: {}", r.message);
  }
  return "error: unknown run result";
}

std::string_view stopKindName(const RunResult &r) {
  return r.kind == RunResult::Kind::Fault  ? "fault"
         : r.kind == RunResult::Kind::Trap ? "trap"
                                           : "unsupported";
}

std::string formatStopPlace(const RunResult &r, const std::string &file) {
  if ((r.kind != RunResult::Kind::Fault && r.kind != RunResult::Kind::Unsupported &&
       r.kind != RunResult::Kind::Trap) ||
      r.instrText.empty())
    return "";
  std::string lanes, threads; // runs: "0-3, 8"
  for (uint32_t l = 0; l < 32;) {
    if (!((r.lanes >> l) & 1)) {
      ++l;
      continue;
    }
    uint32_t e = l;
    while (e + 1 < 32 && ((r.lanes >> (e + 1)) & 1))
      ++e;
    auto run = [&](uint64_t a, uint64_t b) {
      return a == b ? fmt::format("{}", a) : fmt::format("{}-{}", a, b);
    };
    lanes += (lanes.empty() ? "" : ", ") + run(l, e);
    threads += (threads.empty() ? "" : ", ") + run(r.warpFirstThread + l, r.warpFirstThread + e);
    l = e + 1;
  }
  return fmt::format("{}:{}:{}: '{}' in lane{} {} (thread{} {})", file, r.line, r.column,
                     r.instrText, std::popcount(r.lanes) == 1 ? "" : "s",
                     lanes.empty() ? "none" : lanes, std::popcount(r.lanes) == 1 ? "" : "s",
                     threads.empty() ? "none" : threads);
}

} // namespace ori
