// `oriopt --json` against its schema, docs/oriopt-output.schema.json, with a validator for the
// subset of JSON Schema the schema uses (type, const, enum, minimum, required, properties,
// additionalProperties: false, items, $ref to #/$defs); any other keyword in the schema fails
// the test, so the schema cannot grow past what is checked.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

const std::set<std::string> kChecked = {
    "type",  "const", "enum", "minimum", "required", "properties", "additionalProperties",
    "items", "$ref"};
const std::set<std::string> kAnnotations = {"$schema", "$id", "$defs", "title", "description"};

json readJson(const std::string &path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

bool hasType(const json &v, const std::string &t) {
  if (t == "object")
    return v.is_object();
  if (t == "array")
    return v.is_array();
  if (t == "string")
    return v.is_string();
  if (t == "integer")
    return v.is_number_integer();
  if (t == "number")
    return v.is_number();
  if (t == "boolean")
    return v.is_boolean();
  if (t == "null")
    return v.is_null();
  return false;
}

// Appends "path: problem" for each way `v` breaks `schema`.
void validate(const json &root, const json &schema, const json &v, const std::string &path,
              std::vector<std::string> &errors) {
  auto fail = [&](const std::string &what) {
    errors.push_back((path.empty() ? "/" : path) + ": " + what);
  };
  if (schema.contains("$ref")) {
    const std::string ref = schema["$ref"];
    const std::string prefix = "#/$defs/";
    if (ref.rfind(prefix, 0) != 0 || !root["$defs"].contains(ref.substr(prefix.size()))) {
      fail("unresolvable $ref " + ref);
      return;
    }
    validate(root, root["$defs"][ref.substr(prefix.size())], v, path, errors);
  }
  if (schema.contains("type")) {
    std::vector<std::string> types;
    if (schema["type"].is_string())
      types.push_back(schema["type"]);
    else
      for (const json &t : schema["type"])
        types.push_back(t);
    bool ok = false;
    for (const std::string &t : types)
      ok = ok || hasType(v, t);
    if (!ok)
      fail("is not of type " + schema["type"].dump());
  }
  if (schema.contains("const") && v != schema["const"])
    fail("is not " + schema["const"].dump());
  if (schema.contains("enum")) {
    bool found = false;
    for (const json &e : schema["enum"])
      found = found || e == v;
    if (!found)
      fail(v.dump() + " is not one of " + schema["enum"].dump());
  }
  if (schema.contains("minimum") && v.is_number() &&
      v.get<double>() < schema["minimum"].get<double>())
    fail(v.dump() + " is below the minimum " + schema["minimum"].dump());
  if (v.is_object()) {
    if (schema.contains("required"))
      for (const json &k : schema["required"])
        if (!v.contains(k.get<std::string>()))
          fail("lacks the required key " + k.get<std::string>());
    const json props = schema.value("properties", json::object());
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (props.contains(it.key()))
        validate(root, props[it.key()], it.value(), path + "/" + it.key(), errors);
      else if (schema.contains("additionalProperties") && schema["additionalProperties"] == false)
        fail("has the key " + it.key() + ", which the schema does not allow");
    }
  }
  if (v.is_array() && schema.contains("items"))
    for (size_t i = 0; i < v.size(); ++i)
      validate(root, schema["items"], v[i], path + "/" + std::to_string(i), errors);
}

std::vector<std::string> validate(const json &schema, const json &v) {
  std::vector<std::string> errors;
  validate(schema, schema, v, "", errors);
  return errors;
}

// Every keyword of every schema object is one the validator checks or an annotation.
void checkSubset(const json &schema, const std::string &path, std::vector<std::string> &out) {
  if (!schema.is_object())
    return;
  for (auto it = schema.begin(); it != schema.end(); ++it) {
    const std::string &k = it.key();
    if (!kChecked.count(k) && !kAnnotations.count(k))
      out.push_back(path + "/" + k);
    if (k == "properties" || k == "$defs")
      for (auto p = it.value().begin(); p != it.value().end(); ++p)
        checkSubset(p.value(), path + "/" + k + "/" + p.key(), out);
    if (k == "items")
      checkSubset(it.value(), path + "/items", out);
  }
}

json schema() {
  return readJson(std::string(ORIOPT_SOURCE_DIR) + "/docs/oriopt-output.schema.json");
}

// Runs oriopt with `args` and parses its standard output; its exit status must be `status`.
json runOriopt(const std::string &args, int status = 0) {
  const std::string cmd = std::string(ORIOPT_BIN_DIR) + "/oriopt " + args + " 2>/dev/null";
  FILE *p = popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr) << cmd;
  std::string out;
  char buf[4096];
  for (size_t n; p && (n = fread(buf, 1, sizeof buf, p)) > 0;)
    out.append(buf, n);
  const int waited = p ? pclose(p) : -1;
  EXPECT_TRUE(WIFEXITED(waited) && WEXITSTATUS(waited) == status) << cmd;
  return json::parse(out, nullptr, /*allow_exceptions=*/false);
}

const char *kAllDumps =
    "--print-edges --dump-rpo --dump-dom --dump-loops --dump-cfg-dot --dump-liveness "
    "--dump-pressure --dump-annotations --dump-rpo-slots";

TEST(CliJson, SchemaUsesOnlyTheCheckedSubset) {
  std::vector<std::string> unchecked;
  checkSubset(schema(), "", unchecked);
  EXPECT_TRUE(unchecked.empty()) << "keywords the validator does not check: "
                                 << ::testing::PrintToString(unchecked);
}

TEST(CliJson, OutputWithEveryDumpValidates) {
  const std::string src = ORIOPT_SOURCE_DIR;
  for (const std::string &args :
       {std::string("--json ") + kAllDumps + " " + src + "/examples/saxpy.ori",
        std::string("--json --pipeline=ptxas -O1 ") + kAllDumps + " " + src +
            "/examples/reduce.ori",
        std::string("--json --pipeline=ptxas -O3 --impl=both ") + src + "/examples/switch.ori",
        std::string("--json --phases=16,15 --function use_clamp --dump-loops ") + src +
            "/examples/call.ori"}) {
    json out = runOriopt(args);
    ASSERT_FALSE(out.is_discarded()) << args;
    EXPECT_EQ(validate(schema(), out), std::vector<std::string>{}) << args;
    EXPECT_FALSE(out["phases"].empty()) << args;
  }
}

// Issue 41: whatever dump is asked for, --json writes one JSON document on standard output and
// nothing else there (runOriopt parses all of standard output as one document), and it
// validates. Each dump option alone, then all at once, with the phases that make fold marks.
TEST(CliJson, EveryDumpOptionGivesOneDocument) {
  const std::string src = ORIOPT_SOURCE_DIR;
  const std::string input = src + "/examples/consumer/dead.ptx";
  const std::vector<std::string> options = {"--print-edges",
                                            "--dump-rpo",
                                            "--dump-dom",
                                            "--dump-loops",
                                            "--dump-cfg-dot",
                                            "--dump-liveness",
                                            "--dump-pressure",
                                            "--dump-annotations",
                                            "--dump-rpo-slots",
                                            "--dump-fold-marks",
                                            "--rpo=ptxas-iterative --dump-rpo",
                                            "--print-changed",
                                            "--print-after=all",
                                            "--stats",
                                            std::string("--dump-fold-marks ") + kAllDumps};
  for (const std::string &option : options) {
    const std::string args = "--json --pipeline=ptxas -O3 --impl=both " + option + " " + input;
    json out = runOriopt(args);
    ASSERT_FALSE(out.is_discarded()) << args << ": standard output is not one JSON document";
    EXPECT_EQ(validate(schema(), out), std::vector<std::string>{}) << args;
    EXPECT_EQ(out.contains("foldMarks"), option.find("--dump-fold-marks") != std::string::npos)
        << args;
  }
}

TEST(CliJson, GatedPhasesSayWhy) {
  json out = runOriopt(std::string("--json --pipeline=ptxas -O1 ") + ORIOPT_SOURCE_DIR +
                       "/examples/saxpy.ori");
  ASSERT_FALSE(out.is_discarded());
  bool sawGated = false;
  for (const json &p : out["phases"])
    if (p["phase"] == 15) {
      sawGated = true;
      EXPECT_EQ(p["ran"], false);
      EXPECT_EQ(p["gatedBy"], "-O1 is below -O2");
      EXPECT_TRUE(p["rewrites"].is_null()); // gated: no count
    }
  EXPECT_TRUE(sawGated);
  EXPECT_EQ(out["pipeline"], "ptxas");
}

// Rewrites come from the phases' own counters: phase 16 on saxpy's dead-free code counts 0,
// phase 3 (an analysis) and 112 have no counter (null), phase 10 counts what it removed.
TEST(CliJson, RewritesPerPhase) {
  json out = runOriopt(std::string("--json --phases=3,10,16,112 ") + ORIOPT_SOURCE_DIR +
                       "/examples/saxpy.ori");
  ASSERT_FALSE(out.is_discarded());
  ASSERT_EQ(out["phases"].size(), 4u);
  for (const json &p : out["phases"]) {
    if (p["phase"] == 3 || p["phase"] == 112)
      EXPECT_TRUE(p["rewrites"].is_null()) << p.dump();
    else
      EXPECT_EQ(p["rewrites"], p["instrs"]["removed"])
          << p.dump(); // DCE: one rewrite per removed instruction
  }
}

// --verify: the verdicts (issue 42), a clean run and one stopped by a (planted) refutation,
// whose document is still written.
TEST(CliJson, VerifyVerdictsValidate) {
  const std::string src = ORIOPT_SOURCE_DIR;
  json clean = runOriopt("--json --pipeline=ptxas -O3 --verify " + src + "/examples/dispatch.ptx");
  ASSERT_FALSE(clean.is_discarded());
  EXPECT_EQ(validate(schema(), clean), std::vector<std::string>{});
  ASSERT_TRUE(clean.contains("verify"));
  EXPECT_EQ(clean["verify"]["refuted"], 0);
  EXPECT_EQ(clean["verify"]["unknown"], 0);
  EXPECT_EQ(clean["verify"]["proved"], clean["verify"]["verdicts"].size());
  bool sawSwitch = false;
  for (const json &v : clean["verify"]["verdicts"]) {
    EXPECT_EQ(v["verdict"], "proved") << v.dump();
    EXPECT_TRUE(v["category"].is_null()) << v.dump();
    sawSwitch = sawSwitch || v["kind"] == "switch";
  }
  EXPECT_TRUE(sawSwitch); // phase 14's switch proof is a verdict of its own

  // k (a loop, refuted once the bug is planted) and a function whose STACKSAVE the validator
  // does not model (the local stack): unknown, category unmodelled.
  const std::string file = testing::TempDir() + "cli_json_verify.ori";
  std::ofstream(file) << ".entry k(.u32 n, .u64 out)\n{\n  MOV R1, 0x0\n  MOV R2, 0x0\nL1:\n"
                         "  ISETP.GE.U32.AND P0, PT, R1, c[0x0][0x210], PT\n  @P0 BRA L2\n"
                         "  IADD3 R2, R2, R1, RZ\n  IADD3 R3, R2, 0x7, RZ\n"
                         "  IADD3 R1, R1, 0x1, RZ\n  BRA L1\nL2:\n"
                         "  MOV.64 R4, c[0x0][0x218]\n  STG.E [R4], R2\n  EXIT\n}\n"
                         ".entry stack(.u64 out)\n{\n  MOV R1, 0x5\n  STACKSAVE.64 R6\n"
                         "  MOV.64 R4, c[0x0][0x210]\n  STG.E [R4], RZ\n  EXIT\n}\n";
  json stopped = runOriopt("--json --verify=strict --verify-plant-bug --phases=10 " + file, 4);
  ASSERT_FALSE(stopped.is_discarded());
  EXPECT_EQ(validate(schema(), stopped), std::vector<std::string>{});
  EXPECT_EQ(stopped["verify"]["refuted"], 1);
  EXPECT_EQ(stopped["verify"]["strict"], true);
  const json &first = stopped["verify"]["verdicts"][0];
  EXPECT_EQ(first["verdict"], "refuted");
  EXPECT_EQ(first["phase"], 10);
  EXPECT_FALSE(first["counterexample"].empty());
  const json &second = stopped["verify"]["verdicts"][1];
  EXPECT_EQ(second["verdict"], "unknown");
  EXPECT_EQ(second["category"], "unmodelled");
  EXPECT_EQ(stopped["verify"]["unknownByCategory"]["unmodelled"], 1);

  // The schema can fail on the verdicts too.
  json broken = stopped;
  broken["verify"]["verdicts"][0]["verdict"] = "maybe";
  EXPECT_FALSE(validate(schema(), broken).empty());
  broken = stopped;
  broken["verify"]["verdicts"][0]["counterexample"][0].erase("value");
  EXPECT_FALSE(validate(schema(), broken).empty());
  broken = stopped;
  broken["verify"]["verdicts"][0].erase("replay");
  EXPECT_FALSE(validate(schema(), broken).empty());
}

// The validator can fail: each broken copy of real output is caught.
TEST(CliJson, ValidatorRejectsBrokenOutput) {
  json good = runOriopt(std::string("--json --dump-loops --dump-rpo --phases=16 ") +
                        ORIOPT_SOURCE_DIR + "/examples/saxpy.ori");
  ASSERT_FALSE(good.is_discarded());
  ASSERT_TRUE(validate(schema(), good).empty());
  auto broken = [&](auto mutate) {
    json j = good;
    mutate(j);
    return validate(schema(), j);
  };
  EXPECT_FALSE(broken([](json &j) { j.erase("phases"); }).empty());
  EXPECT_FALSE(broken([](json &j) { j["oriopt"] = 2; }).empty());
  EXPECT_FALSE(broken([](json &j) { j["impl"] = "fast"; }).empty());
  EXPECT_FALSE(broken([](json &j) { j["optLevel"] = -1; }).empty());
  EXPECT_FALSE(broken([](json &j) { j["phases"][0]["seconds"] = "fast"; }).empty());
  EXPECT_FALSE(broken([](json &j) { j["phases"][0]["instrs"].erase("added"); }).empty());
  EXPECT_FALSE(broken([](json &j) { j["phases"][0]["extra"] = 1; }).empty());
  EXPECT_FALSE(broken([](json &j) { j["phases"][0]["rewrites"] = -1; }).empty());
  EXPECT_FALSE(broken([](json &j) { j["phases"][0]["rewrites"] = "many"; }).empty());
  EXPECT_FALSE(broken([](json &j) { j["phases"][0].erase("rewrites"); }).empty());
  EXPECT_FALSE(broken([](json &j) { j["functions"][0]["rpo"]["order"][0] = -3; }).empty());
  EXPECT_FALSE(broken([](json &j) {
                 j["functions"][0]["loops"] = json::array({{{"header", 0}}});
               }).empty());
  EXPECT_FALSE(broken([](json &j) { j["functions"][0]["name"] = nullptr; }).empty());
}

} // namespace
