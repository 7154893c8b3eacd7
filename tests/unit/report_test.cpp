// The HTML report (pipeline/report.h, oriopt --report): escaping, page names, which blocks a
// phase changed, the DOT of a snapshot, the recorder (a function no phase changes keeps only
// its first drawing), whole reports written with Graphviz's dot, and dot's bounds.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "parse_one.h"
#include "pipeline/oriopt.h"
#include "pipeline/report.h"

namespace ori {
namespace {

namespace fs = std::filesystem;

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

std::string readText(const fs::path &p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path freshDir(const std::string &name) {
  fs::path d =
      fs::path(::testing::TempDir()) / ("oriopt-report-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  return d;
}

// At -O2 phase 15 deletes [@P0 BRA B] (B is next): block A (bix1) changes, bix0 and B do not.
const char *kBranch = R"(.entry k()
{
  S2R R0, SR_TID.X
  ISETP.EQ.U32.AND P0, PT, R0, RZ, PT
A:
  @P0 BRA B
B:
  EXIT
}
)";

TEST(Report, HtmlEscape) {
  EXPECT_EQ(htmlEscape("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(htmlEscape("plain R1, c[0x0][0x160]"), "plain R1, c[0x0][0x160]");
}

TEST(Report, PageNames) {
  EXPECT_EQ(reportPageName(3, "k$1%x.y"), "f3-k_1_x_y.html");
  EXPECT_EQ(reportPageName(0, "_Z6kernelv"), "f0-_Z6kernelv.html");
  EXPECT_EQ(reportPageName(7, std::string(100, 'a')), "f7-" + std::string(64, 'a') + ".html");
}

TEST(Report, DiffBlocksFindsTheBlockPhase15Changed) {
  Function before = parseOne(kBranch);
  Module m;
  m.functions.push_back(before);
  PassContext ctx;
  ctx.optLevel = 2;
  ASSERT_TRUE(runPhases(m, "15", ctx).ok());
  const Function &after = m.functions[0];
  ASSERT_EQ(after.blocks.size(), 3u);
  BlockChanges c = diffBlocks(before, after);
  EXPECT_EQ(c.changed, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(c.added, (std::vector<bool>{false, false, false}));
  EXPECT_TRUE(c.removed.empty());
  // Nothing changed: nothing marked.
  BlockChanges same = diffBlocks(before, before);
  EXPECT_EQ(same.changed, (std::vector<bool>{false, false, false}));
}

// A block phase 6 splits off is new; the block it came from changed.
TEST(Report, DiffBlocksMarksNewBlocks) {
  Function f = parseOne(
      ".entry k()\n{\n  S2R R0, SR_TID.X\n  ISETP.EQ.U32.AND P0, PT, R0, RZ, PT\n  @P0 EXIT\n"
      "  MOV R1, R0\n  EXIT\n}\n");
  unsplitBlocks(f);
  ASSERT_EQ(f.blocks.size(), 1u);
  Module m;
  m.functions.push_back(f);
  PassContext ctx;
  ASSERT_TRUE(runPhases(m, "6", ctx).ok());
  ASSERT_EQ(m.functions[0].blocks.size(), 2u);
  BlockChanges c = diffBlocks(f, m.functions[0]);
  EXPECT_EQ(c.changed, (std::vector<bool>{true, true}));
  EXPECT_EQ(c.added, (std::vector<bool>{false, true}));
  // Backwards: the split-off block is removed.
  BlockChanges back = diffBlocks(m.functions[0], f);
  EXPECT_EQ(back.removed, (std::vector<uint32_t>{1}));
}

TEST(Report, DotMarksChangedBlocksAndShadesLoops) {
  Function before = parseOne(kBranch);
  Module m;
  m.functions.push_back(before);
  PassContext ctx;
  ctx.optLevel = 2;
  ASSERT_TRUE(runPhases(m, "15", ctx).ok());
  auto facts = computeFacts(m.functions[0]);
  ASSERT_TRUE(std::holds_alternative<AllFacts>(facts));
  const BlockChanges c = diffBlocks(before, m.functions[0]);
  const std::string dot = reportDot(m.functions[0], std::get<AllFacts>(facts), &c, {});
  EXPECT_EQ(dot.rfind("digraph f {\n", 0), 0u) << dot;
  EXPECT_NE(dot.find("\"bix1\"\n[label=\"bix1(L20) A\\lpressure: 0\\l\",class=\"changed\""),
            std::string::npos)
      << dot;
  EXPECT_EQ(count(dot, "class=\"changed\""), 1u) << dot;
  EXPECT_NE(dot.find("\"bix0\"\n[label=\"bix0(L0)\\lpressure: R 1, P 1\\l  S2R R0, SR_TID.X\\l"),
            std::string::npos)
      << dot;
  EXPECT_EQ(dot.find("cluster"), std::string::npos) << dot;
  // The first snapshot marks nothing.
  const std::string first =
      reportDot(before, std::get<AllFacts>(computeFacts(before)), nullptr, {});
  EXPECT_EQ(first.find("changed"), std::string::npos) << first;

  // A loop at bix1 nested in none: one cluster holding bix1 only.
  Function loop =
      parseOne(".entry l()\n{\n  S2R R0, SR_TID.X\nL:\n  ISETP.EQ.U32.AND P0, PT, R0, RZ, PT\n"
               "  @P0 BRA L\n  EXIT\n}\n");
  const std::string ldot = reportDot(loop, std::get<AllFacts>(computeFacts(loop)), nullptr, {});
  EXPECT_EQ(count(ldot, "subgraph cluster_loop"), 1u) << ldot;
  const size_t open = ldot.find("subgraph cluster_loop1 {"), close = ldot.find("}\n", open);
  ASSERT_NE(open, std::string::npos) << ldot;
  EXPECT_NE(ldot.find("label=\"loop bix1 (depth 1)\""), std::string::npos) << ldot;
  const size_t bix1 = ldot.find("\"bix1\"\n"), bix0 = ldot.find("\"bix0\"\n");
  EXPECT_TRUE(bix1 > open && bix1 < close) << ldot;
  EXPECT_TRUE(bix0 > close) << ldot;
  EXPECT_NE(ldot.find("bix1 -> bix1 [color="), std::string::npos) << ldot; // the back edge
}

TEST(Report, DotEscapesQuotesAndBackslashes) {
  Function f = parseOne(".entry k()\n{\n  OPAQUE \"say \\\"hi\\\" \\\\N\" def(R1)\n  EXIT\n}\n");
  const std::string dot = reportDot(f, std::get<AllFacts>(computeFacts(f)), nullptr, {});
  // The .ori printer writes OPAQUE "say \"hi\" \\N"; DOT gets each " and \ escaped again.
  EXPECT_NE(dot.find(R"(OPAQUE \"say \\\"hi\\\" \\\\N\")"), std::string::npos) << dot;
}

TEST(Report, RecorderKeepsOnlyChangingPhases) {
  ParseResult p = parseOri(std::string(kBranch) + ".entry u()\n{\n  EXIT\n}\n", "t.ori");
  ASSERT_TRUE(p.module);
  Module &m = *p.module;
  ReportRecorder rec(m);
  PassContext ctx;
  ctx.optLevel = 2;
  RunOptions run;
  run.afterPhase = [&](const PipelineEntry &e, const Module *, const Module &after) {
    rec.afterPhase(e, after);
    return true;
  };
  auto phases = std::get<0>(parsePhaseList("3,15,16"));
  runPhases(m, phases, ctx, run);
  ASSERT_EQ(rec.functions().size(), 2u);
  const auto &k = rec.functions()[0].snapshots;
  ASSERT_EQ(k.size(), 3u); // start, 15, 16 (the ISETP and S2R left dead)
  EXPECT_EQ(k[0].phase, -1);
  EXPECT_EQ(k[1].phase, 15);
  EXPECT_EQ(k[2].phase, 16);
  EXPECT_EQ(rec.functions()[1].snapshots.size(), 1u);
  EXPECT_EQ(rec.functions()[1].index, 1u);
  ReportRecorder only(m, "u");
  ASSERT_EQ(only.functions().size(), 1u);
  EXPECT_EQ(only.functions()[0].snapshots[0].f.name, "u");
}

// A whole report: one <svg> per drawing, nothing user-derived unescaped, links that resolve.
TEST(Report, WritesSelfContainedEscapedPages) {
  const std::string odd =
      ".entry k$1%x.y()\n{\n  OPAQUE \"<script>alert('x')</script> & more\" def(R1)\n  EXIT\n}\n";
  ParseResult p = parseOri(std::string(kBranch) + odd, "t.ori");
  ASSERT_TRUE(p.module) << (p.error ? p.error->str() : "");
  Module &m = *p.module;
  ReportRecorder rec(m);
  PassContext ctx;
  ctx.optLevel = 2;
  RunOptions run;
  run.countChanges = true;
  run.afterPhase = [&](const PipelineEntry &e, const Module *, const Module &after) {
    rec.afterPhase(e, after);
    return true;
  };
  auto stats = runPhases(m, std::get<0>(parsePhaseList("15,16")), ctx, run);
  const fs::path dir = freshDir("pages");
  ReportOptions opts;
  opts.title = "oriopt report: <t.ori>";
  ReportResult r = writeReport(dir.string(), rec, stats, opts);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.warnings.empty());
  ASSERT_EQ(r.pages, (std::vector<std::string>{"f0-k.html", "f1-k_1_x_y.html"}));

  const std::string index = readText(dir / "index.html");
  EXPECT_NE(index.find("<a href=\"f0-k.html\">k</a>"), std::string::npos) << index;
  EXPECT_NE(index.find("<a href=\"f1-k_1_x_y.html\">k$1%x.y</a>"), std::string::npos) << index;
  EXPECT_NE(index.find("<h1>oriopt report: &lt;t.ori&gt;</h1>"), std::string::npos) << index;
  EXPECT_NE(index.find("<td>15 OriBranchOpt</td>"), std::string::npos) << index;
  EXPECT_EQ(count(index, "<svg"), 0u);

  const std::string k = readText(dir / "f0-k.html");
  EXPECT_EQ(count(k, "<svg"), 3u) << k; // start, 15, 16
  EXPECT_EQ(count(k, "</svg>"), 3u);
  EXPECT_NE(k.find("<h2>After phase 15 OriBranchOpt</h2>"), std::string::npos);
  EXPECT_NE(k.find("changed: bix1; new: none; removed: none"), std::string::npos) << k;
  EXPECT_EQ(k.find("<?xml"), std::string::npos); // the prologue dropped: the SVG is inline
  EXPECT_EQ(k.find("<!DOCTYPE svg"), std::string::npos);
  // Graphviz puts the classes on the node's group, then its title.
  EXPECT_NE(k.find("class=\"node changed\">\n<title>bix1</title>"), std::string::npos) << k;

  const std::string page = readText(dir / "f1-k_1_x_y.html");
  EXPECT_EQ(count(page, "<svg"), 1u) << page; // no phase changed it: only its first drawing
  EXPECT_EQ(page.find("<script"), std::string::npos) << page;
  EXPECT_NE(page.find("&lt;script&gt;alert("), std::string::npos) << page;
  EXPECT_NE(page.find("<code>k$1%x.y</code>"), std::string::npos) << page;
  fs::remove_all(dir);
}

TEST(Report, PrepareReportErrors) {
  ReportOptions missing;
  missing.dot = "oriopt-no-such-dot";
  auto err = prepareReport(freshDir("nodot").string(), missing);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("'oriopt-no-such-dot' was not found on PATH"), std::string::npos) << *err;

  const fs::path file = freshDir("file");
  std::ofstream(file.string()) << "x";
  err = prepareReport((file / "sub").string(), {});
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("cannot create directory"), std::string::npos) << *err;
  fs::remove(file);
}

// dot's bounds: a dot that never ends is killed, one that writes without end is cut off, and
// a failing one's message is passed on.
TEST(Report, RenderSvgBounds) {
  const fs::path dir = freshDir("fakedot");
  fs::create_directories(dir);
  auto script = [&](const std::string &name, const std::string &body) {
    const fs::path p = dir / name;
    std::ofstream(p.string()) << "#!/bin/sh\n" << body << "\n";
    chmod(p.c_str(), 0755);
    return p.string();
  };
  ReportOptions opts;
  opts.dotSeconds = 0.5;
  SvgResult slow = renderSvg(script("slow", "exec sleep 20"), "digraph f {}\n", opts);
  EXPECT_TRUE(slow.limit);
  EXPECT_NE(slow.error.find("dot took more than 0.5 seconds"), std::string::npos) << slow.error;

  opts.dotSeconds = 10;
  opts.maxSvgBytes = 100000;
  SvgResult big = renderSvg(script("big", "exec yes"), "digraph f {}\n", opts);
  EXPECT_TRUE(big.limit);
  EXPECT_NE(big.error.find("more than 100000 bytes"), std::string::npos) << big.error;

  SvgResult bad = renderSvg(script("bad", "echo 'Error: syntax' >&2; exit 3"), "x", opts);
  EXPECT_FALSE(bad.limit);
  EXPECT_EQ(bad.error, "dot failed (exit status 3): Error: syntax");

  SvgResult none = renderSvg((dir / "absent").string(), "digraph f {}\n", opts);
  EXPECT_NE(none.error.find("cannot run dot"), std::string::npos) << none.error;

  // The real one.
  auto dot = findDot("dot");
  ASSERT_TRUE(dot) << "Graphviz's dot is not on PATH (scripts/bootstrap installs graphviz)";
  SvgResult real =
      renderSvg(*dot, "digraph f {\n\"bix0\"\n[label=\"bix0(L0)\"]\nbix0 -> bix0\n}\n", {});
  ASSERT_TRUE(real.error.empty()) << real.error;
  EXPECT_EQ(real.svg.rfind("<svg", 0), 0u);
  EXPECT_TRUE(real.svg.ends_with("</svg>"));
  EXPECT_NE(real.svg.find("<title>bix0</title>"), std::string::npos);
  fs::remove_all(dir);
}

} // namespace
} // namespace ori
