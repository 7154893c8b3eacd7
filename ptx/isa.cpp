// What the PTX reader knows of the PTX ISA as a whole: its instruction names, its versions and
// its targets (lexer.h, "PTX vocabulary"). Anything outside these tables is an error.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "ptx/lexer.h"

namespace ori::ptx {
namespace {

// The instruction names of the PTX ISA 9.0, as its table of reserved instruction keywords
// lists them (PTX ISA 9.0, section 4.3.2 "Instruction Statements"; the chapter "Instruction
// Set", 9.7, describes each). A name is the first word of the opcode: `cp.async.bulk` is `cp`,
// `bar.warp.sync` is `bar`. Each one was checked with ptxas 13.0 (PTX 9.0): none is "Not a
// name of any known instruction" (brx, clusterlaunchcontrol, cp, createpolicy, mad24, madc,
// mbarrier, mul24, multimem, setmaxnreg, shf, suld, sured, sust, tcgen05, tensormap, wgmma and
// wmma with their first modifier, which ptxas counts as part of the name). Sorted.
constexpr std::array<std::string_view, 135> kInstructions = {
    "abs",          "activemask",    "add",       "addc",       "alloca",
    "and",          "applypriority", "atom",      "bar",        "barrier",
    "bfe",          "bfi",           "bfind",     "bmsk",       "bra",
    "brev",         "brkpt",         "brx",       "call",       "clusterlaunchcontrol",
    "clz",          "cnot",          "copysign",  "cos",        "cp",
    "createpolicy", "cvt",           "cvta",      "discard",    "div",
    "dp2a",         "dp4a",          "elect",     "ex2",        "exit",
    "fence",        "fma",           "fns",       "getctarank", "griddepcontrol",
    "isspacep",     "istypep",       "ld",        "ldmatrix",   "ldu",
    "lg2",          "lop3",          "mad",       "mad24",      "madc",
    "mapa",         "match",         "max",       "mbarrier",   "membar",
    "min",          "mma",           "mov",       "movmatrix",  "mul",
    "mul24",        "multimem",      "nanosleep", "neg",        "not",
    "or",           "pmevent",       "popc",      "prefetch",   "prefetchu",
    "prmt",         "rcp",           "red",       "redux",      "rem",
    "ret",          "rsqrt",         "sad",       "selp",       "set",
    "setmaxnreg",   "setp",          "shf",       "shfl",       "shl",
    "shr",          "sin",           "slct",      "sqrt",       "st",
    "stackrestore", "stacksave",     "stmatrix",  "sub",        "subc",
    "suld",         "suq",           "sured",     "sust",       "szext",
    "tanh",         "tcgen05",       "tensormap", "testp",      "tex",
    "tld4",         "trap",          "txq",       "vabsdiff",   "vabsdiff2",
    "vabsdiff4",    "vadd",          "vadd2",     "vadd4",      "vavrg2",
    "vavrg4",       "vmad",          "vmax",      "vmax2",      "vmax4",
    "vmin",         "vmin2",         "vmin4",     "vote",       "vset",
    "vset2",        "vset4",         "vshl",      "vshr",       "vsub",
    "vsub2",        "vsub4",         "wgmma",     "wmma",       "xor",
};
static_assert(std::is_sorted(kInstructions.begin(), kInstructions.end()) &&
              !kInstructions[0].empty());

// PTX ISA versions: those of the ISA's release history up to 9.0, which are also exactly the
// ones ptxas 13.0 accepts (every other X.Y from 1.0 to 9.9 is "Unsupported .version"; 5.1 is
// not in the ISA's history but ptxas takes it, so it is read too).
constexpr std::array<std::string_view, 44> kVersions = {
    "1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "2.0", "2.1", "2.2", "2.3", "3.0",
    "3.1", "3.2", "4.0", "4.1", "4.2", "4.3", "5.0", "5.1", "6.0", "6.1", "6.2",
    "6.3", "6.4", "6.5", "7.0", "7.1", "7.2", "7.3", "7.4", "7.5", "7.6", "7.7",
    "7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0",
};

// SM versions a `.target sm_XY` / `compute_XY` may name: those of the PTX ISA 9.0 `.target`
// directive (section 11.1.2) and the ones ptxas 13.0 lists in `ptxas --help` (sm_88, sm_110),
// with the suffixes they take: 'a' (architecture-specific: sm_90a, sm_100a and later) and 'f'
// (family-specific: sm_100f and later). ptxas 13.0 accepts each of these and rejects sm_14,
// sm_22, sm_31, sm_54, sm_73, sm_81, sm_90f, sm_102, sm_122, sm_75a, sm_80a.
struct Sm {
  unsigned number;
  bool a, f;
};
constexpr Sm kSms[] = {
    {10, 0, 0},  {11, 0, 0},  {12, 0, 0},  {13, 0, 0}, {20, 0, 0},  {21, 0, 0},  {30, 0, 0},
    {32, 0, 0},  {35, 0, 0},  {37, 0, 0},  {50, 0, 0}, {52, 0, 0},  {53, 0, 0},  {60, 0, 0},
    {61, 0, 0},  {62, 0, 0},  {70, 0, 0},  {72, 0, 0}, {75, 0, 0},  {80, 0, 0},  {86, 0, 0},
    {87, 0, 0},  {88, 0, 0},  {89, 0, 0},  {90, 1, 0}, {100, 1, 1}, {101, 1, 1}, {103, 1, 1},
    {110, 1, 1}, {120, 1, 1}, {121, 1, 1},
};

} // namespace

bool isInstruction(std::string_view name) {
  return std::binary_search(kInstructions.begin(), kInstructions.end(), name);
}

bool isKnownVersion(std::string_view v) {
  return std::find(kVersions.begin(), kVersions.end(), v) != kVersions.end();
}

bool isTargetOption(std::string_view t) {
  return t == "texmode_unified" || t == "texmode_independent" || t == "debug" ||
         t == "map_f64_to_f32";
}

bool isKnownTarget(std::string_view t) {
  std::string_view digits;
  if (t.starts_with("sm_"))
    digits = t.substr(3);
  else if (t.starts_with("compute_"))
    digits = t.substr(8);
  else
    return false;
  char suffix = 0;
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) {
    suffix = digits.back();
    digits.remove_suffix(1);
  }
  if (digits.empty() || digits.size() > 3 || digits[0] == '0' ||
      !std::all_of(digits.begin(), digits.end(),
                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return false;
  const unsigned n = unsigned(std::stoul(std::string(digits)));
  for (const Sm &sm : kSms)
    if (sm.number == n)
      return suffix == 0 || (suffix == 'a' && sm.a) || (suffix == 'f' && sm.f);
  return false;
}

std::string knownVersionsText() {
  return "1.0-1.5, 2.0-2.3, 3.0-3.2, 4.0-4.3, 5.0-5.1, 6.0-6.5, 7.0-7.8, 8.0-8.8 and 9.0";
}

std::string knownTargetsText() {
  std::string out = "sm_ or compute_ followed by ";
  for (const Sm &sm : kSms) {
    out += std::to_string(sm.number);
    if (sm.a)
      out += sm.f ? "(a,f)" : "(a)";
    out += ", ";
  }
  return out + "then texmode_unified, texmode_independent, debug, map_f64_to_f32";
}

} // namespace ori::ptx
