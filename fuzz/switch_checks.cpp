// Checks of the switch phases (fuzz/switch_checks.h).
#include "fuzz/switch_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "fuzz/dce_checks.h"
#include "fuzz/switch_gen.h"
#include "interp/interp.h"
#include "ir/ori.h"
#include "ir/verify.h"
#include "optimized/optimized.h"
#include "verify/switch_extract.h"
#if defined(ORIOPT_HAVE_REFERENCE)
#include "reference/reference.h"
#endif

namespace ori::checks {
namespace {

uint32_t countOp(const Function &f, Opcode op) {
  uint32_t n = 0;
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs)
      n += in.op == op;
  return n;
}

// One run of the switch pass in both halves; "" or the first difference.
std::string bothHalves(const Function &f, const SwitchOptOptions &o, const char *what,
                       Function &out, SwitchOptCounts &counts) {
  out = f;
  counts = optimized::doSwitchOpt(out, o);
  if (std::vector<std::string> problems = verifyFunction(out); !problems.empty())
    return fmt::format("{} leaves a malformed function: {}", what, problems.front());
  if (countOp(out, Opcode::JMX) != countOp(f, Opcode::JMX) + counts.jumpTables)
    return fmt::format("{}: {} jump tables but {} new JMX", what, counts.jumpTables,
                       countOp(out, Opcode::JMX) - countOp(f, Opcode::JMX));
#if defined(ORIOPT_HAVE_REFERENCE)
  Function r = f;
  const SwitchOptCounts rc = reference::doSwitchOpt(r, o);
  if (std::string d = firstTextDifference(r, out, "reference", "optimized"); !d.empty())
    return fmt::format("{}: halves differ: {}", what, d);
  for (size_t b = 0; b < r.blocks.size(); ++b)
    if (r.blocks[b].labelId != out.blocks[b].labelId)
      return fmt::format("{}: label id of bix{} differs", what, b);
  if (!(rc == counts))
    return fmt::format(
        "{}: counts differ: reference {} switches, {} tables, {} BSTs; optimized {}, {}, {}", what,
        rc.switches, rc.jumpTables, rc.bsts, counts.switches, counts.jumpTables, counts.bsts);
#endif
  return "";
}

// Block counts for a profile run: every labelled block gets a count made from
// its position, so hot and cold bodies fall in varied orders across kernels.
std::map<std::string, uint64_t> madeUpProfile(const Function &f) {
  std::map<std::string, uint64_t> counts;
  for (size_t b = 0; b < f.blocks.size(); ++b)
    if (!f.blocks[b].label.empty())
      counts[f.blocks[b].label] = (b * 7919 + f.blocks.size() * 31) % 97;
  return counts;
}

} // namespace

std::string switchDiff(const Function &f, SwitchOptCounts *countsOut) {
  SwitchOptOptions second, narrow, first, bits;
  narrow.budget = 3;
  narrow.extendedPatternMatch = false;
  first.secondPass = false;
  bits.bitTests = true;
  const std::map<std::string, uint64_t> blockCounts = madeUpProfile(f);
  SwitchOptOptions profiled;
  profiled.blockCounts = &blockCounts;
  const std::pair<const char *, SwitchOptOptions> runs[] = {
      {"phase 30", second},
      {"phase 30 (budget 3, no extended matching)", narrow},
      {"phase 14", first},
      {"phase 30 with bit tests", bits},
      {"phase 30 with a profile", profiled}};
  for (const auto &[what, o] : runs) {
    Function out;
    SwitchOptCounts counts;
    if (std::string d = bothHalves(f, o, what, out, counts); !d.empty())
      return d;
    if (countsOut && &o == &runs[0].second)
      *countsOut = counts;
    if (countsOut && &o == &runs[3].second)
      countsOut->bitTests = counts.bitTests;
    if (countsOut && &o == &runs[4].second)
      countsOut->reordered = counts.reordered;
    if (&o == &runs[4].second && counts.lowered() != counts.reordered)
      return "with a profile, phase 30 lowered a switch other than by reordering (the PGO exit)";
    Function expanded = out;
    const uint32_t jmx = countOp(out, Opcode::JMX);
    // Phase 80 is one rule for both halves (rules/do_switch_opt.h): nothing to compare.
    if (expandJmxComputation(expanded) != jmx || countOp(expanded, Opcode::JMX) != 0)
      return fmt::format("{} then phase 80: a JMX is left", what);
  }
  return "";
}

std::string switchBehaviour(const Function &f) {
  if (!f.isEntry || f.isDeclaration())
    return "";
  Module before;
  before.functions.push_back(f);
  Module after30 = before;
  optimized::doSwitchOpt(after30.functions[0], SwitchOptOptions{});
  Module after80 = after30, after15 = after30, afterBits = before, afterProfile = before;
  expandJmxComputation(after80.functions[0]);
  optimized::oriBranchOpt(after15.functions[0], -1);
  SwitchOptOptions bits, profiled;
  bits.bitTests = true;
  optimized::doSwitchOpt(afterBits.functions[0], bits);
  const std::map<std::string, uint64_t> blockCounts = madeUpProfile(f);
  profiled.blockCounts = &blockCounts;
  optimized::doSwitchOpt(afterProfile.functions[0], profiled);
  const std::pair<const char *, const Module *> afters[] = {
      {"phase 30", &after30},
      {"phases 30, 80", &after80},
      {"phases 30, 15", &after15},
      {"phase 30 with bit tests", &afterBits},
      {"phase 30 with a profile", &afterProfile}};
  for (uint32_t sel : gen::interestingSelectors(f)) {
    RunConfig cfg;
    cfg.entry = f.name;
    cfg.maxSteps = 100'000;
    for (const Param &p : f.params)
      if (p.size == 8)
        cfg.buffers[p.name] = std::vector<uint8_t>(64, 0);
      else
        cfg.params[p.name] = sel;
    const RunResult a = runKernel(before, cfg);
    for (const auto &[what, m] : afters)
      if (std::string d = compareRuns(a, runKernel(*m, cfg)); !d.empty())
        return fmt::format("after {}, selector {:#x}: {}", what, sel, d);
  }
  return "";
}

std::string switchProof(const Function &f, SwitchOptCounts *countsOut) {
  const std::map<std::string, uint64_t> blockCounts = madeUpProfile(f);
  SwitchOptOptions plain, bits, profiled;
  bits.bitTests = true;
  profiled.blockCounts = &blockCounts;
  const std::pair<const char *, const SwitchOptOptions *> runs[] = {
      {"", &plain}, {" with bit tests", &bits}, {" with a profile", &profiled}};
  for (const auto &[how, o] : runs) {
    Function after = f;
    const SwitchOptCounts counts = optimized::doSwitchOpt(after, *o);
    if (countsOut && o == &plain)
      *countsOut = counts;
    if (countsOut && o == &bits)
      countsOut->bitTests = counts.bitTests;
    if (countsOut && o == &profiled)
      countsOut->reordered = counts.reordered;
    uint32_t proved = 0;
    for (const verify::SwitchCheckResult &r : verify::checkSwitchRewrites(f, after)) {
      using V = verify::SwitchCheckResult::Verdict;
      if (r.verdict == V::Refuted || r.verdict == V::Unknown)
        return fmt::format("phase 30{}: {}", how, r.line);
      proved += r.verdict == V::Proved;
    }
    // A compare block before a lowered head sees a changed dispatch too and is
    // proved as well: at least one proof per lowering.
    if (proved < counts.lowered())
      return fmt::format("phase 30{} lowered {} switches but the checker proved {}", how,
                         counts.lowered(), proved);
  }
  return "";
}

namespace {

// Whether the checker refutes `m` against `f` with a selector that the two
// extracted programs really send to different places; else what went wrong.
std::string refutedForReal(const Function &f, const Function &m, const std::string &what) {
  bool refuted = false;
  for (const verify::SwitchCheckResult &r : verify::checkSwitchRewrites(f, m)) {
    if (r.verdict != verify::SwitchCheckResult::Verdict::Refuted)
      continue;
    verify::SwitchExtractor before(f), after(m);
    auto p = before.extract(r.headBix, r.selector);
    auto q = after.extract(*after.blockWithId(r.headLabelId), r.selector);
    if (p.index() != 0 || q.index() != 0 || !r.counterexample)
      return fmt::format("{}: refuted without programs", what);
    if (verify::dispatchTarget(std::get<0>(p), *r.counterexample) ==
        verify::dispatchTarget(std::get<0>(q), *r.counterexample))
      return fmt::format("{}: the counterexample {:#x} goes to one place in both", what,
                         *r.counterexample);
    refuted = true;
  }
  return refuted ? "" : what + " is not refuted";
}

// Two wrong bit-test lowerings made from each bit-test block phase 30 makes
// with bit tests on: a mask missing its lowest case (that case now goes to a
// later test or the default: the masks are disjoint and name distinct targets),
// and the bounds check one too tight (the largest case value, always a case,
// now goes to the default).
std::string bitTestMutants(const Function &f, uint32_t &built) {
  Function good = f;
  SwitchOptOptions o;
  o.bitTests = true;
  if (optimized::doSwitchOpt(good, o).bitTests == 0)
    return "";
  for (uint32_t b = 1; b < good.blocks.size(); ++b) {
    const std::vector<Instr> &here = good.blocks[b].instrs;
    // The first test block of a lowering: MOV one, 0x1; SHL bit, one, index; LOP3 ...
    if (here.size() < 3 || here[0].op != Opcode::MOV || here[1].op != Opcode::SHL ||
        here[2].op != Opcode::LOP3)
      continue;
    const std::vector<Instr> &prev = good.blocks[b - 1].instrs;
    if (prev.size() < 2 || prev[prev.size() - 2].op != Opcode::ISETP)
      return fmt::format("no bounds check before the bit tests of bix{}", b);
    Function missing = good, tight = good;
    Operand &mask = missing.blocks[b].instrs[2].srcs[1];
    mask.imm = int64_t(int32_t(uint32_t(mask.imm) & (uint32_t(mask.imm) - 1)));
    tight.blocks[b - 1].instrs[prev.size() - 2].srcs[1].imm -= 1;
    const std::pair<const char *, const Function *> mutants[] = {
        {"a bit-test mask missing its lowest case", &missing},
        {"a bit-test bound one too tight", &tight}};
    for (const auto &[what, m] : mutants) {
      ++built;
      if (std::string d = refutedForReal(f, *m, fmt::format("{} (bix{})", what, b)); !d.empty())
        return d;
    }
  }
  return "";
}

} // namespace

std::string switchMutants(const Function &f, uint32_t *made) {
  Function good = f;
  optimized::doSwitchOpt(good, SwitchOptOptions{});
  uint32_t built = 0;
  if (std::string d = bitTestMutants(f, built); !d.empty())
    return d;
  // The bounds check of each JMX: the ISETP on its index in the block before.
  for (uint32_t b = 1; b < good.blocks.size(); ++b) {
    const std::vector<Instr> &here = good.blocks[b].instrs;
    if (here.size() != 1 || here[0].op != Opcode::JMX)
      continue;
    std::vector<Instr> &prev = good.blocks[b - 1].instrs;
    size_t check = prev.size();
    for (size_t k = 0; k < prev.size(); ++k)
      if (prev[k].op == Opcode::ISETP && prev[k].srcs[0].isReg() &&
          prev[k].srcs[0].reg == here[0].srcs[0].reg)
        check = k;
    if (check == prev.size())
      return fmt::format("no bounds check before the JMX of bix{}", b);
    const JumpTable &table = good.jumpTables[here[0].srcs[1].target];
    // A mutant is wrong only if a value S can have reaches what it changed: under a
    // bound S <= U read from the head (a narrowed selector, verify::selectorBound), the
    // value past the table or a negative index may be impossible, and the checker
    // rightly proves such a mutant. S is the index itself or the source of its IADD3.
    const Reg index = here[0].srcs[0].reg;
    Reg selector = index;
    uint32_t min = 0;
    for (const Instr &in : prev)
      if (in.op == Opcode::IADD3 && in.dsts[0].isReg() && in.dsts[0].reg == index &&
          in.srcs[0].isReg() && in.srcs[1].kind == Operand::Kind::Imm)
        selector = in.srcs[0].reg, min = 0u - uint32_t(in.srcs[1].imm);
    const uint32_t bound = verify::selectorBound(good, b - 1, selector).max;
    // The largest index S - min (mod 2^32) over 0 <= S <= bound.
    const uint32_t topIndex = min == 0 ? bound : bound >= min - 1 ? UINT32_MAX : bound - min;
    std::vector<std::pair<const char *, Function>> mutants;
    Function loose = good, isSigned = good, gap = good;
    loose.blocks[b - 1].instrs[check].srcs[1].imm += 1;
    // The selector one past the table (mod 2^32: a signed hull wraps) is what the loose bound lets
    // in.
    if (uint32_t(min + table.targets.size()) <= bound)
      mutants.push_back({"bound one too loose", loose});
    Instr &s32 = isSigned.blocks[b - 1].instrs[check];
    s32.mods.reset(Mod::U32);
    s32.mods.set(Mod::S32);
    if (topIndex >= 0x80000000u)
      mutants.push_back({"signed bound", isSigned});
    // The default is where the bounds check branches.
    const uint32_t deflt = prev.back().srcs[0].target;
    auto hole = std::find(table.targets.begin(), table.targets.end(), deflt);
    auto other = std::find_if(table.targets.begin(), table.targets.end(),
                              [&](uint32_t t) { return t != deflt; });
    if (hole != table.targets.end() && other != table.targets.end() &&
        uint32_t(min + uint32_t(hole - table.targets.begin())) <= bound) {
      gap.jumpTables[here[0].srcs[1].target].targets[size_t(hole - table.targets.begin())] = *other;
      mutants.push_back({"a gap not filled with the default", gap});
    }
    for (const auto &[what, m] : mutants) {
      ++built;
      // The counterexample must really be sent apart: both programs run on it.
      if (std::string d = refutedForReal(f, m, fmt::format("{} (JMX of bix{})", what, b));
          !d.empty())
        return d;
    }
  }
  if (made)
    *made = built;
  return "";
}

} // namespace ori::checks
