// Robustness of the .ori parser against damaged input: 2,000 deterministic
// byte-level mutants of the example kernels. Each must parse or be rejected
// with one `file:line:col: error: message` that points inside the input; none
// may crash (CI runs this under ASan/UBSan) or take more than a second. A
// mutant that parses must still round-trip. A second test runs the real
// `oriopt --emit=ori` on 200 of them and checks its exit status and stderr.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "ir/ori.h"

namespace ori {
namespace {

namespace fs = std::filesystem;

std::string envOr(const char *name, const char *fallback) {
  if (const char *v = std::getenv(name); v && *v)
    return v;
  return fallback;
}

std::string sourceDir() {
#ifdef ORIOPT_SOURCE_DIR
  return envOr("ORIOPT_SOURCE_DIR", ORIOPT_SOURCE_DIR);
#else
  return envOr("ORIOPT_SOURCE_DIR", "");
#endif
}

std::string binDir() {
#ifdef ORIOPT_BIN_DIR
  return envOr("ORIOPT_BIN_DIR", ORIOPT_BIN_DIR);
#else
  return envOr("ORIOPT_BIN_DIR", "");
#endif
}

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The example kernels, sorted by name (the seeds of every mutant).
std::vector<std::string> seeds() {
  std::vector<fs::path> paths;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(fs::path(sourceDir()) / "examples", ec))
    if (e.path().extension() == ".ori")
      paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> out;
  for (const fs::path &p : paths)
    out.push_back(readFile(p));
  return out;
}

// splitmix64: the same sequence on every platform (the <random>
// distributions are not specified bit for bit).
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return n ? size_t(next() % n) : 0; }
};

const char *const kTokens[] = {
    "[",
    "]",
    ",",
    ".",
    "@",
    "!",
    "R999999999999",
    "0x",
    "\"",
    "{",
    "}",
    ":",
    "-",
    "|",
    ";",
    "//",
    "\n",
    "c[",
    "0f",
    "0d",
    "P0",
    "BRA L9",
    ".reg",
    ".jumptable",
    "EXIT",
    "@!PT",
    "0xffffffffffffffff",
    "\\",
    "%r1",
    "1e999",
    "RZ",
    "SR_TID.X",
    "\xc3",
    "\xff",
};

// Start and length of each line (without its '\n').
std::vector<std::pair<size_t, size_t>> lines(const std::string &s) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t start = 0;
  for (;;) {
    size_t nl = s.find('\n', start);
    if (nl == std::string::npos) {
      out.emplace_back(start, s.size() - start);
      return out;
    }
    out.emplace_back(start, nl - start);
    start = nl + 1;
  }
}

void mutateOnce(std::string &s, Rng &rng) {
  size_t pos = rng.below(s.size() + 1);
  switch (rng.below(7)) {
  case 0: // flip a bit of a byte (bit 7 one time in eight: mostly stays ASCII)
    if (!s.empty())
      s[rng.below(s.size())] ^= char(1u << rng.below(8));
    break;
  case 1: // delete a byte
    if (!s.empty())
      s.erase(rng.below(s.size()), 1);
    break;
  case 2: // insert a random byte: printable ASCII four times in five
    s.insert(pos, 1, rng.below(5) ? char(0x20 + rng.below(0x5f)) : char(rng.below(256)));
    break;
  case 3: // insert a token
    s.insert(pos, kTokens[rng.below(std::size(kTokens))]);
    break;
  case 4: { // duplicate a line
    auto ls = lines(s);
    auto [start, len] = ls[rng.below(ls.size())];
    s.insert(start, s.substr(start, len) + "\n");
    break;
  }
  case 5: { // delete a line
    auto ls = lines(s);
    auto [start, len] = ls[rng.below(ls.size())];
    s.erase(start, std::min(len + 1, s.size() - start));
    break;
  }
  case 6: // truncate
    s.resize(rng.below(s.size() + 1));
    break;
  }
}

// Mutant number i (1 to 3 mutations of one seed); the same for every run.
std::string mutant(const std::vector<std::string> &seeds, size_t i) {
  Rng rng{0x0515EEDull + i * 0x10001ull};
  std::string s = seeds[rng.below(seeds.size())];
  size_t n = 1 + rng.below(3);
  for (size_t k = 0; k < n; ++k)
    mutateOnce(s, rng);
  return s;
}

constexpr size_t kMutants = 2000;

// Checks a diagnostic for `text` parsed as `file`; returns "" when fine.
std::string badDiagnostic(const Diagnostic &d, const std::string &text, const std::string &file) {
  static const std::regex shape("^mutant\\.ori:[0-9]+:[0-9]+: error: .+$");
  std::string s = d.str();
  if (file == "mutant.ori" && !std::regex_match(s, shape))
    return "malformed diagnostic: " + s;
  if (s.find('\n') != std::string::npos)
    return "diagnostic spans lines: " + s;
  if (d.file != file)
    return "diagnostic names file '" + d.file + "'";
  auto ls = lines(text);
  if (d.line < 1 || d.line > ls.size() + 1)
    return "line outside the input: " + s;
  size_t len = d.line <= ls.size() ? ls[d.line - 1].second : 0;
  if (d.col < 1 || d.col > len + 1)
    return "column outside line " + std::to_string(d.line) + ": " + s;
  return "";
}

std::string excerpt(const std::string &text) {
  std::string out;
  for (unsigned char c : text.substr(0, 4000)) {
    if (c == '\n' || (c >= 0x20 && c < 0x7f))
      out += char(c);
    else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

TEST(OriMutation, SeedsExistAndParse) {
  std::vector<std::string> s = seeds();
  ASSERT_GE(s.size(), 2u) << "no example kernels under " << sourceDir() << "/examples";
  for (const std::string &text : s)
    EXPECT_TRUE(parseOri(text, "seed.ori").module);
}

TEST(OriMutation, MutantsAreRejectedCleanlyOrRoundTrip) {
  std::vector<std::string> s = seeds();
  ASSERT_FALSE(s.empty());
  size_t rejected = 0, accepted = 0, failures = 0;
  for (size_t i = 0; i < kMutants && failures < 10; ++i) {
    std::string text = mutant(s, i);
    auto t0 = std::chrono::steady_clock::now();
    ParseResult r = parseOri(text, "mutant.ori");
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string problem;
    if (secs > 1.0)
      problem = "took " + std::to_string(secs) + " s";
    else if (r.module.has_value() == r.error.has_value())
      problem = "exactly one of module and error expected";
    else if (r.error) {
      problem = badDiagnostic(*r.error, text, "mutant.ori");
      ++rejected;
    } else {
      ++accepted;
      std::string printed = printModule(*r.module);
      ParseResult r2 = parseOri(printed, "printed.ori");
      if (!r2.module)
        problem = "accepted, but its print does not parse: " + r2.error->str();
      else if (!(*r2.module == *r.module))
        problem = "accepted, but parse(print(m)) != m";
      else if (printModule(*r2.module) != printed)
        problem = "accepted, but print is not stable";
    }
    if (!problem.empty()) {
      ++failures;
      ADD_FAILURE() << "mutant " << i << ": " << problem << "\n--- input ---\n" << excerpt(text);
    }
  }
  EXPECT_EQ(failures, 0u);
  // The mutations are strong enough to reject most inputs, but not all.
  EXPECT_GT(rejected, kMutants / 2);
  EXPECT_GT(accepted, 0u);
}

// ---------------------------------------------------------------------------
// The command line: `oriopt --emit=ori FILE` exits 0 or 1, and 1 comes with
// FILE:LINE:COL: error: on stderr (the parser's own diagnostic when the
// parser rejects the file).

struct RunOutput {
  int status = -1; // exit status, or -1 when killed by a signal
  int signal = 0;
  std::string err;
};

RunOutput run(const std::string &cmd, const fs::path &errFile) {
  RunOutput out;
  int raw = std::system((cmd + " >/dev/null 2>'" + errFile.string() + "'").c_str());
  if (raw != -1 && WIFEXITED(raw))
    out.status = WEXITSTATUS(raw);
  else if (raw != -1 && WIFSIGNALED(raw))
    out.signal = WTERMSIG(raw);
  out.err = readFile(errFile);
  return out;
}

TEST(OriMutation, CommandLineOnMutants) {
  fs::path bin = fs::path(binDir()) / "oriopt";
  if (binDir().empty() || !fs::exists(bin))
    GTEST_SKIP() << "no oriopt binary at " << bin;
  std::vector<std::string> s = seeds();
  ASSERT_FALSE(s.empty());
  fs::path dir = fs::temp_directory_path() / ("oriopt_mutants_" + std::to_string(getpid()));
  fs::create_directories(dir);
  size_t failures = 0, ones = 0;
  for (size_t i = 0; i < kMutants && failures < 5; i += kMutants / 200) {
    std::string text = mutant(s, i);
    fs::path file = dir / ("m" + std::to_string(i) + ".ori");
    {
      std::ofstream o(file, std::ios::binary);
      o << text;
    }
    RunOutput r =
        run("'" + bin.string() + "' --emit=ori '" + file.string() + "'", dir / "stderr.txt");
    ParseResult inProcess = parseOri(text, file.string());
    std::string problem;
    static const std::regex diag("(^|\n)[^\n]*:[0-9]+:[0-9]+: error: [^\n]+");
    if (r.signal)
      problem = "killed by signal " + std::to_string(r.signal);
    else if (r.status != 0 && r.status != 1)
      problem = "exit status " + std::to_string(r.status);
    else if (r.status == 1 && r.err.find(file.string() + ":") == std::string::npos)
      problem = "status 1 without a diagnostic naming the file";
    else if (r.status == 1 && !std::regex_search(r.err, diag))
      problem = "status 1 without file:line:col: error:";
    else if (inProcess.error && r.status != 1)
      problem = "the parser rejects it but oriopt exits 0";
    else if (inProcess.error && r.err.find(inProcess.error->str()) == std::string::npos)
      problem = "stderr lacks the parser's diagnostic '" + inProcess.error->str() + "'";
    if (r.status == 1)
      ++ones;
    if (!problem.empty()) {
      ++failures;
      ADD_FAILURE() << "mutant " << i << " (" << file << "): " << problem << "\n--- stderr ---\n"
                    << r.err << "--- input ---\n"
                    << excerpt(text);
    }
  }
  EXPECT_EQ(failures, 0u);
  EXPECT_GT(ones, 0u);
  std::error_code ec;
  if (failures == 0)
    fs::remove_all(dir, ec);
}

} // namespace
} // namespace ori
