// One batch of cuda-host-diff: write the kernels as one .cu and one host .cpp,
// compile them (nvcc once per build, g++ once), run the host program, lower
// each build's PTX and run every kernel in the interpreter with the host's
// launch, and compare the output bytes slot by slot.
#include <fmt/format.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "fuzz/cuda_diff_impl.h"
#include "fuzz/cuda_render.h"
#include "interp/interp.h"
#include "ptx/ptx.h"

namespace ori::cudagen {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::string which(const std::string &name) {
  const char *path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  for (std::string dir; std::getline(ss, dir, ':');) {
    if (dir.empty())
      continue;
    fs::path p = fs::path(dir) / name;
    if (::access(p.c_str(), X_OK) == 0)
      return p.string();
  }
  return "";
}

std::string readFile(const fs::path &p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void writeFile(const fs::path &p, const std::string &text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Runs `cmd` with its output in `log`; "" or the failure with the log's head.
std::string run(const std::string &cmd, const fs::path &log) {
  int rc = std::system(fmt::format("{} > '{}' 2>&1", cmd, log.string()).c_str());
  if (rc == 0)
    return "";
  std::string text = readFile(log);
  if (text.size() > 4000)
    text = text.substr(0, 4000) + "\n...";
  return fmt::format("`{}` failed (status {}):\n{}", cmd, rc, text);
}

struct WorkDir {
  fs::path path;
  bool keep;
  WorkDir(const DiffOptions &o) : keep(o.keepWork) {
    static std::atomic<unsigned> counter{0};
    fs::path base = o.workDir.empty() ? fs::temp_directory_path() : fs::path(o.workDir);
    path = base / fmt::format("orifuzz-cuda-{}-{}", ::getpid(), counter++);
    fs::create_directories(path);
  }
  ~WorkDir() {
    std::error_code ec;
    if (!keep)
      fs::remove_all(path, ec);
  }
};

std::string hexValue(const uint8_t *p, int bytes) {
  std::string s = "0x";
  for (int i = bytes; i-- > 0;)
    s += fmt::format("{:02x}", p[i]);
  return s;
}

bool isNaN(Ty t, const uint8_t *p) {
  if (t == Ty::F16) {
    uint16_t v = uint16_t(p[0] | p[1] << 8);
    return (v & 0x7c00) == 0x7c00 && (v & 0x3ff);
  }
  if (t == Ty::F32) {
    float f;
    std::memcpy(&f, p, 4);
    return std::isnan(f);
  }
  if (t == Ty::F64) {
    double d;
    std::memcpy(&d, p, 8);
    return std::isnan(d);
  }
  return false;
}

// Slot by slot; two NaNs of a float slot are equal whatever their payloads.
Verdict compare(const Kernel &k, const uint8_t *host, const std::vector<uint8_t> &dev) {
  Verdict v;
  if (dev.size() != k.outputBytes()) {
    v.kind = Verdict::Kind::Failed;
    v.detail =
        fmt::format("the output buffer has {} bytes, expected {}", dev.size(), k.outputBytes());
    return v;
  }
  std::vector<Ty> types = k.slotTypes();
  std::vector<std::string> names = k.slotNames();
  const uint32_t n = k.slots();
  size_t differing = 0;
  for (uint64_t t = 0; t < uint64_t(k.threads) * k.ctas; ++t)
    for (uint32_t s = 0; s < n; ++s) {
      const size_t at = (t * n + s) * 8;
      const uint8_t *h = host + at, *d = dev.data() + at;
      if (std::memcmp(h, d, 8) == 0 || (isNaN(types[s], h) && isNaN(types[s], d)))
        continue;
      if (differing++ < 12) {
        int bytes = std::max(1, info(types[s]).bits / 8);
        std::string line = fmt::format("cta {} thread {}: {} ({}): host {} device {}",
                                       t / k.threads, t % k.threads, names[s], info(types[s]).c,
                                       hexValue(h, bytes), hexValue(d, bytes));
        if (v.detail.empty())
          v.detail = line;
        v.report += line + "\n";
      }
    }
  if (differing) {
    v.kind = Verdict::Kind::Differ;
    v.detail = fmt::format("{} of {} slots differ; first: {}", differing,
                           uint64_t(n) * k.threads * k.ctas, v.detail);
  }
  return v;
}

// Where PTX line `line` (1-based) begins, or npos.
size_t lineStart(const std::string &ptx, uint32_t line) {
  if (line == 0)
    return std::string::npos;
  size_t pos = 0;
  for (uint32_t l = 1; l < line; ++l) {
    pos = ptx.find('\n', pos);
    if (pos == std::string::npos)
      return pos;
    ++pos;
  }
  return pos;
}

// The opcode (e.g. "mul.hi.s64") of PTX line `line` (1-based), past a guard.
std::string ptxOpcode(const std::string &ptx, uint32_t line) {
  size_t pos = lineStart(ptx, line);
  if (pos == std::string::npos)
    return "";
  std::istringstream ss(ptx.substr(pos, ptx.find('\n', pos) - pos));
  std::string tok;
  while (ss >> tok) {
    if (tok[0] == '{')
      tok = tok.substr(1);
    if (!tok.empty() && tok[0] != '@')
      return tok;
  }
  return "";
}

// The kernel whose entry holds PTX line `line` (1-based), or -1.
int kernelAtLine(const std::string &ptx, uint32_t line, const std::vector<const Kernel *> &ks) {
  size_t pos = lineStart(ptx, line);
  if (pos == std::string::npos)
    return -1;
  size_t entry = ptx.rfind(".entry ", pos);
  size_t closed = ptx.rfind("\n}", pos);
  if (entry == std::string::npos || (closed != std::string::npos && closed > entry))
    return -1;
  size_t nameEnd = ptx.find('(', entry);
  std::string name = ptx.substr(entry + 7, nameEnd - entry - 7);
  for (size_t i = 0; i < ks.size(); ++i)
    if (ks[i]->name == name)
      return int(i);
  return -1;
}

// Blanks the entry of `name` (keeping the line count) so that the rest can still lower.
void blankEntry(std::string &ptx, const std::string &name) {
  size_t at = ptx.find(".entry " + name + "(");
  if (at == std::string::npos)
    return;
  size_t begin = ptx.rfind('\n', at) + 1, end = ptx.find("\n}", at);
  end = end == std::string::npos ? ptx.size() : end + 2;
  for (size_t i = begin; i < end; ++i)
    if (ptx[i] != '\n')
      ptx[i] = ' ';
}

} // namespace

std::optional<Tools> findTools(const DiffOptions &o) {
  Tools t;
  t.nvcc = which("nvcc");
  t.gxx = which("g++");
  if (t.nvcc.empty() || t.gxx.empty()) {
    std::cerr << fmt::format("orifuzz: cuda-host-diff: SKIPPED: {} not found on PATH\n",
                             t.nvcc.empty() ? "nvcc" : "g++");
    return std::nullopt;
  }
  std::error_code ec;
  fs::path inc = fs::canonical(t.nvcc, ec).parent_path().parent_path() / "include";
  if (!fs::exists(inc / "cuda_fp16.h")) {
    std::cerr << fmt::format("orifuzz: cuda-host-diff: SKIPPED: no cuda_fp16.h in {}\n",
                             inc.string());
    return std::nullopt;
  }
  t.cudaInclude = inc.string();
  (void)o;
  return t;
}

BatchResult runBatch(const std::vector<const Kernel *> &ks, const std::vector<std::string> &builds,
                     const DiffOptions &o, const Tools &tools, Stats &stats) {
  BatchResult r;
  WorkDir w(o);
  auto t0 = Clock::now();
  writeFile(w.path / "batch.cu", deviceFile(ks));
  writeFile(w.path / "host.cpp", hostFile(ks));
  std::string inputs;
  for (const Kernel *k : ks)
    inputs.append(k->input.begin(), k->input.end());
  writeFile(w.path / "inputs.bin", inputs);
  // The host: no contraction into fma, no fast math, SSE arithmetic (x86-64), IEEE rounding.
  std::string err = run(
      fmt::format("'{}' -std=c++17 -O0 -ffp-contract=off -fno-fast-math -frounding-math -w {} "
                  "-I'{}' '{}' -o '{}'",
                  tools.gxx, o.hostUbsan ? "-fsanitize=undefined -fno-sanitize-recover=all" : "",
                  tools.cudaInclude, (w.path / "host.cpp").string(), (w.path / "host").string()),
      w.path / "gxx.log");
  if (err.empty())
    err = run(fmt::format("'{}' '{}' '{}'", (w.path / "host").string(),
                          (w.path / "inputs.bin").string(), (w.path / "outputs.bin").string()),
              w.path / "host.log");
  stats.host += since(t0);
  if (!err.empty()) {
    r.error = "the host side: " + err + (o.keepWork ? "" : " (keep the files with --keep-work)");
    return r;
  }
  std::string outputs = readFile(w.path / "outputs.bin");
  std::vector<size_t> offsets;
  size_t total = 0;
  for (const Kernel *k : ks)
    offsets.push_back(total), total += k->outputBytes();
  if (o.corruptHost && !outputs.empty())
    outputs[0] = char(outputs[0] ^ 1);
  if (outputs.size() != total) {
    r.error = fmt::format("the host program wrote {} bytes, expected {}", outputs.size(), total);
    return r;
  }
  for (const std::string &b : builds) {
    auto t1 = Clock::now();
    fs::path ptxPath = w.path / fmt::format("batch-{}.ptx", b);
    err = run(fmt::format("'{}' -arch=sm_90 -ptx -fmad=false -w {} '{}' -o '{}'", tools.nvcc,
                          buildFlags(b), (w.path / "batch.cu").string(), ptxPath.string()),
              w.path / fmt::format("nvcc-{}.log", b));
    stats.nvcc += since(t1);
    if (!err.empty()) {
      r.error = "nvcc: " + err;
      return r;
    }
    std::string ptx = readFile(ptxPath);
    r.ptx[b] = ptx;
    std::vector<Verdict> &out = r.verdicts[b];
    out.assign(ks.size(), Verdict{});
    std::vector<bool> decided(ks.size(), false);
    auto t2 = Clock::now();
    std::optional<Module> m;
    for (size_t attempt = 0; attempt <= ks.size() && !m; ++attempt) {
      ParseResult pr = ptx::parseAndLower(ptx, ptxPath.filename().string());
      if (pr.module) {
        m = std::move(pr.module);
        break;
      }
      std::string msg = pr.error ? pr.error->str() : "unknown error";
      int at = pr.error ? kernelAtLine(ptx, pr.error->line, ks) : -1;
      if (at < 0 || decided[size_t(at)]) { // not inside one kernel: every kernel fails
        for (size_t i = 0; i < ks.size(); ++i)
          if (!decided[i])
            out[i] = {Verdict::Kind::Failed, "the PTX module does not lower: " + msg, msg + "\n"};
        decided.assign(ks.size(), true);
        break;
      }
      out[size_t(at)] = {Verdict::Kind::Failed, "the PTX does not lower: " + msg, msg + "\n"};
      decided[size_t(at)] = true;
      blankEntry(ptx, ks[size_t(at)]->name);
    }
    stats.lower += since(t2);
    if (!m)
      continue;
    auto t3 = Clock::now();
    for (size_t i = 0; i < ks.size(); ++i) {
      if (decided[i])
        continue;
      const Kernel &k = *ks[i];
      RunConfig cfg;
      cfg.entry = k.name;
      cfg.threads = Dim3(k.threads / k.threadsY, k.threadsY, 1);
      cfg.ctas = Dim3(k.ctas);
      cfg.maxSteps = 50'000'000;
      cfg.buffers[k.name + "_param_0"] = k.input;
      cfg.buffers[k.name + "_param_1"] = std::vector<uint8_t>(k.outputBytes(), 0);
      RunResult rr = runKernel(*m, cfg);
      if (rr.kind == RunResult::Kind::Unsupported) {
        out[i] = {Verdict::Kind::Unsupported, rr.mnemonic + " " + ptxOpcode(ptx, rr.line),
                  formatExit(rr, ptxPath.filename().string()) + "\n"};
      } else if (rr.kind != RunResult::Kind::Ok) {
        std::string exit = formatExit(rr, ptxPath.filename().string());
        out[i] = {Verdict::Kind::Failed, exit + (rr.message.empty() ? "" : " (" + rr.message + ")"),
                  exit + "\n"};
      } else {
        out[i] = compare(k, reinterpret_cast<const uint8_t *>(outputs.data()) + offsets[i],
                         rr.buffers[k.name + "_param_1"]);
      }
    }
    stats.interp += since(t3);
  }
  return r;
}

} // namespace ori::cudagen
