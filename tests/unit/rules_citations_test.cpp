// Every obligation a rule of rules/ cites (issue 41: "each rule is cited by the Z3 obligation
// that proves it") is one oriverify proves, and it holds (not a wrong-* variant). The
// citations are read from the headers' text, so a renamed or removed obligation fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "verify/obligations.h"

namespace {

namespace fs = std::filesystem;

TEST(RulesCitations, EveryCitedObligationExistsAndHolds) {
  std::map<std::string, bool> holds; // name -> expected to hold
  for (const ori::verify::ObligationInfo &o : ori::verify::listObligations())
    holds[o.name] = o.name.find(".wrong") == std::string::npos;
  const std::regex cited(R"(\b((?:go|lop3|plop3|spec003|switch)\.[a-z0-9][a-z0-9.-]*[a-z0-9]))");
  std::set<std::string> seen;
  size_t headers = 0;
  for (const fs::directory_entry &e :
       fs::directory_iterator(fs::path(ORIOPT_SOURCE_DIR) / "rules")) {
    if (e.path().extension() != ".h")
      continue;
    ++headers;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    for (std::sregex_iterator it(text.begin(), text.end(), cited), end; it != end; ++it) {
      std::string name = (*it)[1];
      if (name.ends_with(".h") || name.ends_with(".cpp") || name.ends_with(".md"))
        continue; // a file
      seen.insert(name);
      // "go.evaluate.*" style prefixes name a family: some obligation starts with them.
      const bool family = std::any_of(holds.begin(), holds.end(), [&](const auto &h) {
        return h.first.starts_with(name + ".") && h.second;
      });
      auto it2 = holds.find(name);
      EXPECT_TRUE((it2 != holds.end() && it2->second) || family)
          << e.path().filename().string() << " cites '" << name
          << "', which oriverify does not prove";
    }
  }
  EXPECT_GE(headers, 15u);
  // The rules with obligations cite them: the copy rules, the SEL rules, the evaluate rules,
  // the LUT algebra and the switch lowerings.
  for (const char *name :
       {"go.copy32-zext", "go.predicate-copy", "go.plop3-constant", "go.sel-known",
        "go.guarded-move", "go.evaluate.fold", "lop3.compose", "switch.jump-table"})
    EXPECT_TRUE(seen.count(name)) << "no rules/ header cites " << name;
}

} // namespace
