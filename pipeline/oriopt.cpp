// oriopt as a library (pipeline/oriopt.h).
#include "pipeline/oriopt.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace ori {

namespace {
// The first directive after comments and blanks is .version (every PTX module starts so).
bool startsLikePtx(std::string_view t) {
  size_t i = 0;
  while (i < t.size()) {
    if (std::isspace(static_cast<unsigned char>(t[i])))
      ++i;
    else if (t.substr(i, 2) == "//")
      i = std::min(t.size(), t.find('\n', i));
    else if (t.substr(i, 2) == "/*") {
      // An unterminated comment ends the text (npos + 2 would wrap round to 1: a hang that
      // fuzz_pipeline found).
      const size_t end = t.find("*/", i + 2);
      i = end == std::string_view::npos ? t.size() : end + 2;
    } else
      break;
  }
  return t.substr(i, 8) == ".version";
}
} // namespace

ParseResult parseModule(std::string_view text, std::string_view fileName, InputKind kind) {
  if (kind == InputKind::Auto)
    kind = fileName.ends_with(".ptx") || startsLikePtx(text) ? InputKind::Ptx : InputKind::Ori;
  return kind == InputKind::Ptx ? ptx::parseAndLower(text, fileName) : parseOri(text, fileName);
}

ParseResult parseModuleFile(const std::string &path, InputKind kind) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return parseModule(text, "<stdin>", kind);
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  if (!in || !(ss << in.rdbuf())) {
    ParseResult r;
    r.error = Diagnostic{path, 0, 0, "cannot read file"};
    return r;
  }
  text = ss.str();
  return parseModule(text, path, kind);
}

PhaseRunResult runPhases(Module &m, std::string_view phases, PassContext &ctx) {
  PhaseRunResult r;
  std::vector<const PipelineEntry *> list;
  if (phases.empty()) {
    list = defaultPhases();
  } else {
    auto parsed = parsePhaseList(phases);
    if (auto *err = std::get_if<std::string>(&parsed)) {
      r.error = *err;
      return r;
    }
    list = std::get<0>(parsed);
  }
  r.stats = runPhases(m, list, ctx);
  r.error = ctx.error;
  return r;
}

std::variant<AllFacts, std::string> computeFacts(const Function &f, Impl impl) {
  auto facts = analyzeFunction(f, impl);
  if (auto *err = std::get_if<std::string>(&facts))
    return *err;
  FunctionFacts &ff = std::get<FunctionFacts>(facts);
  auto live = analyzeLiveness(f, ff.cfg, impl);
  if (auto *err = std::get_if<std::string>(&live))
    return *err;
  return AllFacts{std::move(ff.cfg), std::move(ff.dom), std::move(ff.loops),
                  std::move(std::get<LivenessFacts>(live))};
}

} // namespace ori
