#include "pipeline/report.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "ir/ori.h"
#include "ir/phases.h"

namespace ori {

namespace fs = std::filesystem;

namespace {

std::string phaseTitle(int phase) {
  if (phase < 0)
    return "At start";
  const PhaseInfo *info = findPhase(std::to_string(phase));
  return fmt::format("After phase {} {}", phase, info ? info->name : "?");
}

std::string phaseName(int phase) {
  const PhaseInfo *info = findPhase(std::to_string(phase));
  return fmt::format("{} {}", phase, info ? info->name : "?");
}

// A DOT double-quoted string's contents: the quote and the backslash escaped (so that no
// escape sequence of Graphviz's, \N \G \l ..., comes from user text).
std::string dotEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n' || c == '\r')
      c = ' ';
    out += c;
  }
  return out;
}

std::string pressureText(const RegCounts &c) {
  std::string s;
  for (size_t k = 0; k < c.size(); ++k)
    if (c[k])
      s += fmt::format("{}{} {}", s.empty() ? "" : ", ", regFilePrefix(RegFile(k)), c[k]);
  return s.empty() ? "0" : s;
}

size_t instrCount(const Function &f) {
  size_t n = 0;
  for (const Block &b : f.blocks)
    n += b.instrs.size();
  return n;
}

std::optional<std::string> writeFile(const fs::path &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out || !(out << text) || !(out.flush()))
    return fmt::format("--report: cannot write '{}': {}", path.string(), std::strerror(errno));
  return std::nullopt;
}

// Loop clusters' fill by depth (1, 2, 3, 4 and deeper).
constexpr const char *kShade[] = {"#e3ecfa", "#c9daf5", "#afc8f0", "#95b6eb"};

constexpr const char *kStyle = R"(body{font-family:sans-serif;margin:1.5em;color:#222}
code,td.num,pre{font-family:monospace}
table{border-collapse:collapse;margin:.5em 0 1.5em}
th,td{border:1px solid #bbb;padding:2px 8px;text-align:left}
td.num,th.num{text-align:right}
tr.gated td{color:#888}
.legend span{display:inline-block;padding:1px 8px;margin-right:1em;border:1px solid #888;border-radius:4px}
.legend .changed{border:3px solid #d62728}
.legend .added{border:3px dashed #d62728}
.legend .loop1{background:#e3ecfa}.legend .loop2{background:#c9daf5}
section{border-top:1px solid #ccc;margin-top:1.5em}
.cfg{overflow:auto}
p.note{color:#a33}
)";

std::string pageHead(const std::string &title) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n"
      "<style>\n{}</style>\n</head>\n<body>\n",
      htmlEscape(title), kStyle);
}

// The statistics as --stats prints them, as a table.
std::string statsTable(std::span<const PhaseStats> stats) {
  std::string out =
      "<table class=\"stats\">\n<tr><th>Phase</th><th class=\"num\">Time (ms)</th>"
      "<th class=\"num\">Instrs</th>"
      "<th class=\"num\">-Instrs</th><th class=\"num\">+Instrs</th><th class=\"num\">Blocks</th>"
      "<th class=\"num\">-Blocks</th><th class=\"num\">+Blocks</th><th class=\"num\">Rewrites</th>"
      "<th class=\"num\">Functions</th><th>Gated</th></tr>\n";
  auto num = [](const std::optional<size_t> &v) {
    return v ? std::to_string(*v) : std::string("-");
  };
  double total = 0;
  size_t rewrites = 0;
  ModuleChanges sum;
  for (const PhaseStats &s : stats) {
    const bool ran = s.gatedBy.empty();
    const std::optional<ModuleChanges> &c = s.changes;
    auto field = [&](size_t ModuleChanges::*m) {
      return ran && c ? std::optional<size_t>((*c).*m) : std::nullopt;
    };
    total += s.seconds;
    rewrites += s.rewrites.value_or(0);
    if (c) {
      sum.instrsRemoved += c->instrsRemoved;
      sum.instrsAdded += c->instrsAdded;
      sum.blocksRemoved += c->blocksRemoved;
      sum.blocksAdded += c->blocksAdded;
    }
    out += fmt::format(
        "<tr{}><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
        ran ? "" : " class=\"gated\"", htmlEscape(phaseName(s.phase)),
        ran ? fmt::format("{:.3f}", s.seconds * 1000) : "-", s.after.instrs,
        num(field(&ModuleChanges::instrsRemoved)), num(field(&ModuleChanges::instrsAdded)),
        s.after.blocks, num(field(&ModuleChanges::blocksRemoved)),
        num(field(&ModuleChanges::blocksAdded)), num(ran ? s.rewrites : std::nullopt),
        num(field(&ModuleChanges::functionsChanged)), htmlEscape(s.gatedBy));
  }
  if (!stats.empty())
    out += fmt::format(
        "<tr><th>Total ({} phases)</th><td class=\"num\">{:.3f}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td></td><td></td></tr>\n",
        stats.size(), total * 1000, stats.back().after.instrs, sum.instrsRemoved, sum.instrsAdded,
        stats.back().after.blocks, sum.blocksRemoved, sum.blocksAdded, rewrites);
  return out + "</table>\n";
}

} // namespace

std::string htmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text)
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  return out;
}

std::string reportPageName(size_t index, std::string_view name) {
  std::string safe;
  for (char c : name.substr(0, 64))
    safe += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '_';
  return fmt::format("f{}-{}.html", index, safe);
}

ReportRecorder::ReportRecorder(const Module &start, std::string only) {
  for (size_t i = 0; i < start.functions.size(); ++i) {
    const Function &f = start.functions[i];
    if (f.isDeclaration() || (!only.empty() && f.name != only))
      continue;
    functions_.push_back(FunctionRun{i, {Snapshot{-1, f}}});
  }
}

void ReportRecorder::afterPhase(const PipelineEntry &e, const Module &after) {
  for (FunctionRun &run : functions_) {
    if (run.index >= after.functions.size())
      continue;
    const Function &now = after.functions[run.index];
    // The last snapshot is the function as the phase found it.
    if (!(run.snapshots.back().f == now))
      run.snapshots.push_back(Snapshot{e.phase, now});
  }
}

BlockChanges diffBlocks(const Function &before, const Function &after) {
  BlockChanges out;
  out.changed.assign(after.blocks.size(), false);
  out.added.assign(after.blocks.size(), false);
  std::map<uint32_t, std::vector<uint32_t>> byId; // label id -> bixes of `before`, ascending
  for (uint32_t b = 0; b < before.blocks.size(); ++b)
    byId[before.blocks[b].labelId].push_back(b);
  std::map<uint32_t, size_t> taken;
  std::vector<bool> matched(before.blocks.size(), false);
  for (uint32_t b = 0; b < after.blocks.size(); ++b) {
    const Block &blk = after.blocks[b];
    auto it = byId.find(blk.labelId);
    size_t &k = taken[blk.labelId];
    if (it == byId.end() || k >= it->second.size()) {
      out.added[b] = out.changed[b] = true;
      continue;
    }
    const uint32_t old = it->second[k++];
    matched[old] = true;
    const Block &was = before.blocks[old];
    bool same = was.instrs.size() == blk.instrs.size();
    for (size_t i = 0; same && i < blk.instrs.size(); ++i)
      same = printInstr(before, was.instrs[i]) == printInstr(after, blk.instrs[i]);
    out.changed[b] = !same;
  }
  for (uint32_t b = 0; b < before.blocks.size(); ++b)
    if (!matched[b])
      out.removed.push_back(b);
  return out;
}

std::string reportDot(const Function &f, const AllFacts &facts, const BlockChanges *changes,
                      const ReportOptions &opts) {
  const std::vector<Loop> &loops = facts.loops.loops;
  // Each block in the cluster of its innermost loop; each loop in the cluster of the loop one
  // level out that holds its header (natural loops with different headers nest or are disjoint).
  std::vector<int> innermost(f.blocks.size(), -1);
  for (size_t l = 0; l < loops.size(); ++l)
    for (uint32_t b : loops[l].body)
      if (b < innermost.size() &&
          (innermost[b] < 0 || loops[size_t(innermost[b])].depth < loops[l].depth))
        innermost[b] = int(l);
  std::vector<int> parent(loops.size(), -1);
  std::vector<std::vector<size_t>> children(loops.size());
  std::vector<size_t> roots;
  for (size_t l = 0; l < loops.size(); ++l) {
    for (size_t o = 0; o < loops.size() && parent[l] < 0; ++o)
      if (loops[o].depth + 1 == loops[l].depth &&
          std::binary_search(loops[o].body.begin(), loops[o].body.end(), loops[l].header))
        parent[l] = int(o);
    if (parent[l] < 0)
      roots.push_back(l);
    else
      children[size_t(parent[l])].push_back(l);
  }
  std::vector<std::vector<uint32_t>> members(loops.size());
  std::vector<uint32_t> outside;
  for (uint32_t b = 0; b < f.blocks.size(); ++b)
    (innermost[b] < 0 ? outside : members[size_t(innermost[b])]).push_back(b);

  auto node = [&](uint32_t b) {
    const Block &blk = f.blocks[b];
    std::string label = fmt::format("bix{}(L{:x}){}\\l", b, blk.labelId,
                                    blk.label.empty() ? "" : " " + dotEscape(blk.label));
    if (b < facts.liveness.pressure.size())
      label += fmt::format("pressure: {}\\l", pressureText(facts.liveness.pressure[b]));
    const size_t shown = std::min(blk.instrs.size(), opts.maxLinesPerBlock);
    for (size_t i = 0; i < shown; ++i)
      label += "  " + dotEscape(printInstr(f, blk.instrs[i])) + "\\l";
    if (shown < blk.instrs.size())
      label += fmt::format("  ... {} more\\l", blk.instrs.size() - shown);
    std::string attrs;
    if (changes && b < changes->changed.size() && changes->changed[b])
      attrs = changes->added[b]
                  ? ",class=\"changed "
                    "new\",color=\"#d62728\",penwidth=3,style=\"rounded,filled,dashed\""
                  : ",class=\"changed\",color=\"#d62728\",penwidth=3";
    return fmt::format("\"bix{}\"\n[label=\"{}\"{}]\n", b, label, attrs);
  };
  std::string out =
      "digraph f {\n"
      "node "
      "[fontname=\"Courier\",fontsize=10,shape=box,style=\"rounded,filled\",fillcolor=white];\n";
  // Clusters, outermost first (the nesting is at most maxBlocks deep: recursion is bounded).
  auto cluster = [&](auto &self, size_t l) -> void {
    const Loop &loop = loops[l];
    out += fmt::format(
        "subgraph cluster_loop{} {{\nstyle=filled;\nfillcolor=\"{}\";\ncolor=\"#6f8fc8\";\n"
        "label=\"loop bix{} (depth {})\";\nlabeljust=l;\nfontname=\"Helvetica\";\nfontsize=10;\n",
        loop.header, kShade[std::min<size_t>(loop.depth, 4) - 1], loop.header, loop.depth);
    for (uint32_t b : members[l])
      out += node(b);
    for (size_t c : children[l])
      self(self, c);
    out += "}\n";
  };
  for (size_t l : roots)
    cluster(cluster, l);
  for (uint32_t b : outside)
    out += node(b);
  for (uint32_t b = 0; b < f.blocks.size() && b < facts.cfg.succs.size(); ++b)
    for (uint32_t s : facts.cfg.succs[b]) {
      const bool back = std::find(facts.cfg.backedges.begin(), facts.cfg.backedges.end(),
                                  std::make_pair(b, s)) != facts.cfg.backedges.end();
      out += fmt::format("bix{} -> bix{}{}\n", b, s, back ? " [color=\"#1f5fbf\",penwidth=2]" : "");
    }
  return out + "}\n";
}

std::optional<std::string> findDot(const std::string &dot) {
  auto executable = [](const fs::path &p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
  };
  if (dot.empty())
    return std::nullopt;
  if (dot.find('/') != std::string::npos)
    return executable(dot) ? std::optional<std::string>(dot) : std::nullopt;
  const char *path = std::getenv("PATH");
  std::string_view rest = path ? path : "";
  while (!rest.empty()) {
    const size_t colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    if (!dir.empty() && executable(fs::path(dir) / dot))
      return (fs::path(dir) / dot).string();
  }
  return std::nullopt;
}

SvgResult renderSvg(const std::string &dotPath, const std::string &dotText,
                    const ReportOptions &opts) {
  SvgResult r;
  // The DOT goes through a temporary file rather than a pipe, so that writing it cannot raise
  // SIGPIPE in this process when dot exits early.
  std::error_code ec;
  std::string input = (fs::temp_directory_path(ec) / "oriopt-report-XXXXXX").string();
  const int fd = mkstemp(input.data());
  if (fd < 0) {
    r.error = fmt::format("cannot create a temporary file for dot: {}", std::strerror(errno));
    return r;
  }
  struct Unlink {
    const std::string &path;
    ~Unlink() { unlink(path.c_str()); }
  } unlinkInput{input};
  for (size_t at = 0; at < dotText.size();) {
    const ssize_t n = write(fd, dotText.data() + at, dotText.size() - at);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      r.error = fmt::format("cannot write a temporary file for dot: {}", std::strerror(errno));
      close(fd);
      return r;
    }
    at += size_t(n);
  }
  close(fd);

  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    r.error = fmt::format("cannot run dot: pipe: {}", std::strerror(errno));
    return r;
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    r.error = fmt::format("cannot run dot: pipe: {}", std::strerror(errno));
    close(out[0]);
    close(out[1]);
    return r;
  }
  std::string arg0 = dotPath, arg1 = "-Tsvg";
  char *argv[] = {arg0.data(), arg1.data(), input.data(), nullptr};
  const rlim_t cpu = rlim_t(std::ceil(opts.dotSeconds)) + 1;
  const pid_t pid = fork();
  if (pid == 0) { // the child: only async-signal-safe calls until exec
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0)
      dup2(devnull, 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    struct rlimit lim = {cpu, cpu};
    setrlimit(RLIMIT_CPU, &lim);
    execv(argv[0], argv);
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    r.error = fmt::format("cannot run dot: fork: {}", std::strerror(errno));
    close(out[0]);
    close(err[0]);
    return r;
  }
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(opts.dotSeconds);
  std::string svg, errors;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int openFds = 2;
  bool killed = false;
  while (openFds > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      r.error = fmt::format("dot took more than {} seconds", opts.dotSeconds);
      killed = r.limit = true;
      break;
    }
    for (pollfd &p : fds)
      p.revents = 0;
    const int ready = poll(fds, 2, int(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) {
      r.error = fmt::format("cannot run dot: poll: {}", std::strerror(errno));
      killed = true;
      break;
    }
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char buf[65536];
      const ssize_t n = read(fds[k].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        close(fds[k].fd);
        fds[k].fd = -1;
        --openFds;
        continue;
      }
      std::string &into = k == 0 ? svg : errors;
      if (k == 1 && errors.size() > 4096)
        continue; // enough of dot's complaints
      into.append(buf, size_t(n));
    }
    if (svg.size() > opts.maxSvgBytes) {
      r.error = fmt::format("dot made more than {} bytes of SVG", opts.maxSvgBytes);
      killed = r.limit = true;
      break;
    }
  }
  for (pollfd &p : fds)
    if (p.fd >= 0)
      close(p.fd);
  if (killed)
    kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (killed)
    return r;
  while (!errors.empty() && (errors.back() == '\n' || errors.back() == ' '))
    errors.pop_back();
  if (WIFSIGNALED(status)) {
    r.error = WTERMSIG(status) == SIGXCPU
                  ? fmt::format("dot took more than {} seconds of CPU", cpu - 1)
                  : fmt::format("dot was killed by signal {}", WTERMSIG(status));
    r.limit = WTERMSIG(status) == SIGXCPU;
    return r;
  }
  if (WEXITSTATUS(status) == 127) {
    r.error = fmt::format("cannot run dot ('{}')", dotPath);
    return r;
  }
  if (WEXITSTATUS(status) != 0) {
    r.error = fmt::format("dot failed (exit status {}){}", WEXITSTATUS(status),
                          errors.empty() ? "" : ": " + errors);
    return r;
  }
  const size_t start = svg.find("<svg"), end = svg.rfind("</svg>");
  if (start == std::string::npos || end == std::string::npos || end < start) {
    r.error = "dot's output holds no <svg> element";
    return r;
  }
  r.svg = svg.substr(start, end + 6 - start);
  return r;
}

std::optional<std::string> prepareReport(const std::string &dir, const ReportOptions &opts) {
  if (!findDot(opts.dot))
    return fmt::format("--report needs Graphviz's dot to draw the CFGs, and '{}' was not found{} "
                       "(scripts/bootstrap "
                       "installs graphviz)",
                       opts.dot, opts.dot.find('/') == std::string::npos ? " on PATH" : "");
  if (dir.empty())
    return std::string("--report: the directory name is empty");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return fmt::format("--report: cannot create directory '{}': {}", dir, ec.message());
  if (!fs::is_directory(dir, ec))
    return fmt::format("--report: '{}' is not a directory", dir);
  return std::nullopt;
}

ReportResult writeReport(const std::string &dir, const ReportRecorder &run,
                         std::span<const PhaseStats> stats, const ReportOptions &opts) {
  ReportResult result;
  if (auto problem = prepareReport(dir, opts)) {
    result.error = *problem;
    return result;
  }
  const std::string dotPath = *findDot(opts.dot);
  std::string functionRows;
  for (const ReportRecorder::FunctionRun &fr : run.functions()) {
    const Function &first = fr.snapshots.front().f;
    const Function &last = fr.snapshots.back().f;
    const std::string page = reportPageName(fr.index, first.name);
    std::string body = pageHead(fmt::format("{}: {}", opts.title, first.name));
    body += fmt::format(
        "<p><a href=\"index.html\">index</a> &middot; {}</p>\n<h1>function <code>{}</code></h1>\n",
        htmlEscape(opts.title), htmlEscape(first.name));
    body += "<p class=\"legend\"><span class=\"loop1\">loop</span><span class=\"loop2\">nested "
            "loop</span>"
            "<span class=\"changed\">block the phase changed</span><span class=\"added\">block the "
            "phase made</span>"
            "blue edges: back edges; <i>pressure</i>: the most registers live at once in the "
            "block, per file</p>\n";
    std::string nav = "<ol class=\"snapshots\">\n", sections, changedBy;
    for (size_t k = 0; k < fr.snapshots.size(); ++k) {
      const ReportRecorder::Snapshot &s = fr.snapshots[k];
      if (opts.progress)
        opts.progress(size_t(&fr - run.functions().data()), run.functions().size(), k,
                      fr.snapshots.size());
      const std::string title = phaseTitle(s.phase);
      nav += fmt::format("<li><a href=\"#s{}\">{}</a></li>\n", k, htmlEscape(title));
      if (s.phase >= 0)
        changedBy += (changedBy.empty() ? "" : ", ") + htmlEscape(phaseName(s.phase));
      sections += fmt::format("<section id=\"s{}\">\n<h2>{}</h2>\n", k, htmlEscape(title));
      auto facts = computeFacts(s.f, opts.impl);
      if (auto *err = std::get_if<std::string>(&facts)) {
        result.error = fmt::format("--report: function {}: {}", s.f.name, *err);
        return result;
      }
      const AllFacts &af = std::get<AllFacts>(facts);
      std::optional<BlockChanges> changes;
      if (k > 0)
        changes = diffBlocks(fr.snapshots[k - 1].f, s.f);
      std::string line = fmt::format("{} blocks, {} instructions, {} loops, max pressure {}",
                                     s.f.blocks.size(), instrCount(s.f), af.loops.loops.size(),
                                     pressureText(af.liveness.maxPressure));
      if (changes) {
        std::string changed, added, removed;
        for (size_t b = 0; b < changes->changed.size(); ++b)
          if (changes->changed[b])
            (changes->added[b] ? added : changed) += fmt::format(" bix{}", b);
        for (uint32_t b : changes->removed)
          removed += fmt::format(" bix{}(L{:x})", b, fr.snapshots[k - 1].f.blocks[b].labelId);
        line += fmt::format("; changed:{}; new:{}; removed:{}", changed.empty() ? " none" : changed,
                            added.empty() ? " none" : added, removed.empty() ? " none" : removed);
      }
      sections += fmt::format("<p>{}</p>\n", htmlEscape(line));
      std::string why;
      if (s.f.blocks.size() > opts.maxBlocks) {
        why = fmt::format("{} blocks, more than the {} a drawing may have", s.f.blocks.size(),
                          opts.maxBlocks);
      } else {
        SvgResult svg =
            renderSvg(dotPath, reportDot(s.f, af, changes ? &*changes : nullptr, opts), opts);
        if (!svg.error.empty() && !svg.limit) {
          result.error = fmt::format("--report: function {}, {}: {}", s.f.name, title, svg.error);
          return result;
        }
        why = svg.error;
        if (why.empty())
          sections += "<div class=\"cfg\">\n" + svg.svg + "\n</div>\n";
      }
      if (!why.empty()) {
        sections += fmt::format("<p class=\"note\">CFG not drawn: {}</p>\n", htmlEscape(why));
        result.warnings.push_back(
            fmt::format("--report: function {}, {}: CFG not drawn: {}", s.f.name, title, why));
      }
      sections += "</section>\n";
    }
    body += nav + "</ol>\n" + sections + "</body>\n</html>\n";
    if (auto problem = writeFile(fs::path(dir) / page, body)) {
      result.error = *problem;
      return result;
    }
    result.pages.push_back(page);
    functionRows += fmt::format("<tr><td><a href=\"{}\">{}</a></td><td class=\"num\">{}</td><td "
                                "class=\"num\">{}</td><td class=\"num\">{}</td>"
                                "<td class=\"num\">{}</td><td>{}</td></tr>\n",
                                htmlEscape(page), htmlEscape(first.name), first.blocks.size(),
                                last.blocks.size(), instrCount(first), instrCount(last),
                                changedBy.empty() ? "none" : changedBy);
  }
  std::string index = pageHead(opts.title);
  index += fmt::format("<h1>{}</h1>\n", htmlEscape(opts.title));
  if (!opts.run.empty())
    index += fmt::format("<p><code>{}</code></p>\n", htmlEscape(opts.run));
  index += "<h2>Functions</h2>\n<table class=\"functions\">\n<tr><th>Function</th>"
           "<th class=\"num\">Blocks at start</th><th class=\"num\">Blocks at end</th>"
           "<th class=\"num\">Instrs at start</th><th class=\"num\">Instrs at end</th>"
           "<th>Changed by</th></tr>\n" +
           functionRows + "</table>\n";
  index += "<h2>Phase statistics</h2>\n" + statsTable(stats);
  index += "<p>Rewrites: rule applications the phase counted itself (docs/library.md, "
           "\"Rewrites\"); - where "
           "a phase has no counter. A rewritten instruction counts once in -Instrs and once in "
           "+Instrs.</p>\n"
           "</body>\n</html>\n";
  if (auto problem = writeFile(fs::path(dir) / "index.html", index))
    result.error = *problem;
  return result;
}

} // namespace ori
