// Hand-made switch lowerings for oriverify (verify/switch_dispatch.h): one
// switch over signed cases lowered as a jump table and as a balanced BST, one
// over small values lowered as bit-test clusters, and three jump tables with
// classic mistakes.
#include <algorithm>
#include <memory>

#include "verify/obligation_defs.h"
#include "verify/switch_dispatch.h"

namespace ori::verify {
namespace {

constexpr uint32_t kDefault = 99;

// case -2: 10, -1: 11, 0: 12, 1: 13, 3: 14, 4: 15, 5: 10, default: 99.
std::vector<std::pair<uint32_t, uint32_t>> signedCases() {
  return {{uint32_t(-2), 10}, {uint32_t(-1), 11}, {0, 12}, {1, 13}, {3, 14}, {4, 15}, {5, 10}};
}

// v = sel + 2 indexes [10, 11, 12, 13, 99 (the gap at 2), 14, 15, 10]
// behind the bound check `v <u 8` (one check covers both ends).
DispatchProgram jumpTable(DispatchCmp boundCmp, uint32_t bound, bool signedBound,
                          uint32_t gapFill) {
  DispatchProgram p;
  uint32_t deflt = p.target(kDefault);
  uint32_t table = p.table(uint32_t(-2), {10, 11, 12, 13, gapFill, 14, 15, 10});
  p.compare(boundCmp, signedBound, bound, table, deflt, uint32_t(-2));
  return p;
}

// A balanced BST on the sorted cases: `sel < pivot` splits, leaves test equality.
uint32_t bst(DispatchProgram &p, std::vector<std::pair<uint32_t, uint32_t>> cases, bool isSigned,
             uint32_t deflt) {
  if (cases.size() == 1)
    return p.compare(DispatchCmp::EQ, false, cases[0].first, p.target(cases[0].second), deflt);
  size_t mid = cases.size() / 2;
  uint32_t pivot = cases[mid].first;
  uint32_t lo = bst(p, {cases.begin(), cases.begin() + ptrdiff_t(mid)}, isSigned, deflt);
  uint32_t hi = bst(p, {cases.begin() + ptrdiff_t(mid), cases.end()}, isSigned, deflt);
  return p.compare(DispatchCmp::LT, isSigned, pivot, lo, hi);
}

DispatchProgram balancedBst(std::vector<std::pair<uint32_t, uint32_t>> cases, bool isSigned) {
  std::sort(cases.begin(), cases.end(), [&](const auto &x, const auto &y) {
    return isSigned ? int32_t(x.first) < int32_t(y.first) : x.first < y.first;
  });
  DispatchProgram p;
  uint32_t deflt = p.target(kDefault);
  bst(p, cases, isSigned, deflt);
  return p;
}

// case 0, 2, 4, 6: 20; 1, 3, 5: 21; 9: 22; default: 99. Range check v <u 10,
// then one bit test per target: masks 0x55, 0x2a, 0x200.
std::vector<std::pair<uint32_t, uint32_t>> clusterCases() {
  return {{0, 20}, {2, 20}, {4, 20}, {6, 20}, {1, 21}, {3, 21}, {5, 21}, {9, 22}};
}
DispatchProgram bitTests() {
  DispatchProgram p;
  uint32_t deflt = p.target(kDefault);
  uint32_t a = p.target(20), b = p.target(21), c = p.target(22);
  uint32_t bt = p.bitTest(0, {{0x55, a}, {0x2a, b}, {0x200, c}}, deflt);
  p.compare(DispatchCmp::LT, false, 10, bt, deflt);
  return p;
}

} // namespace

std::vector<SwitchExample> switchExamples() {
  DispatchProgram ref = cascade(signedCases(), kDefault);
  return {
      {"switch.jump-table",
       "cases -2..5 with a gap at 2: bias -2, bound v <u 8, gap filled with the default", ref,
       jumpTable(DispatchCmp::LT, 8, false, kDefault), true},
      {"switch.bst", "the same cases as a balanced BST of signed compares", ref,
       balancedBst(signedCases(), true), true},
      {"switch.bit-test", "0,2,4,6 / 1,3,5 / 9 as three bit-test clusters behind v <u 10",
       cascade(clusterCases(), kDefault), bitTests(), true},
      {"switch.jump-table.wrong-off-by-one-bound", "bound v <=u 8: selector 6 reads past the table",
       ref, jumpTable(DispatchCmp::LE, 8, false, kDefault), false},
      {"switch.jump-table.wrong-signed-bound", "bound v <s 8: v >= 2^31 passes the check", ref,
       jumpTable(DispatchCmp::LT, 8, true, kDefault), false},
      {"switch.jump-table.wrong-missing-gap-fill", "the gap at selector 2 left as block 0", ref,
       jumpTable(DispatchCmp::LT, 8, false, 0), false},
  };
}

namespace {
// x <=u bx and d = LOP3.LUT x, M, RZ give d <=u min(bx, M), for every LUT whose entries with the
// RZ source 0 (indexes 0, 2, 4, 6: the mask 0x55) are `entries` (DoSwitchOpt's bound step).
Claim lop3BoundClaim(Smt &s, uint32_t entries) {
  z3::expr x = s.bvVar("x", 32), bx = s.bvVar("bx", 32), m = s.bvVar("M", 32),
           lut = s.bvVar("lut", 8);
  z3::expr lutIs = (lut & s.bv(0x55, 8)) == s.bv(entries, 8);
  z3::expr d = lop3Term(s, x, m, s.bv(0, 32), lut);
  z3::expr least = z3::ite(z3::ult(bx, m), bx, m);
  return Claim{z3::implies(z3::ule(x, bx) && lutIs, z3::ule(d, least)),
               {{"x", x}, {"bx", bx}, {"M", m}, {"lut", lut}, {"d", d}}};
}
} // namespace

std::vector<ObligationDef> switchObligations() {
  std::vector<ObligationDef> v;
  for (SwitchExample &e : switchExamples()) {
    auto ex = std::make_shared<SwitchExample>(std::move(e));
    v.push_back({{ex->name, ex->description, ex->equivalent},
                 [ex](Smt &smt) { return dispatchClaim(smt, ex->reference, ex->candidate); }});
  }
  // The two steps of DoSwitchOpt's selector bound (rules/do_switch_opt.h, boundOf).
  v.push_back({{"switch.bound-and",
                "x <=u bx and LOP3.LUT d, x, M, RZ with a LUT that is x AND M where RZ is 0 give "
                "d <=u min(bx, M)",
                true},
               [](Smt &s) { return lop3BoundClaim(s, 0x40); }}); // only a & b (entry 6) is 1
  // ... and why the AND step asks for AND: ~x & M (LUT entry 2) stays within M, not within x.
  v.push_back({{"switch.wrong-bound-and-not",
                "x <=u bx and LOP3.LUT d, x, M, RZ computing ~x & M give d <=u min(bx, M)", false},
               [](Smt &s) { return lop3BoundClaim(s, 0x04); }});
  v.push_back(
      {{"switch.bound-shr", "x <=u bx and k < 32 give (x >> k) <=u (bx >> k), unsigned", true},
       [](Smt &s) {
         z3::expr x = s.bvVar("x", 32), bx = s.bvVar("bx", 32), k = s.bvVar("k", 32);
         return Claim{z3::implies(z3::ule(x, bx) && z3::ult(k, s.bv(32, 32)),
                                  z3::ule(z3::lshr(x, k), z3::lshr(bx, k))),
                      {{"x", x}, {"bx", bx}, {"k", k}}};
       }});
  return v;
}

} // namespace ori::verify
