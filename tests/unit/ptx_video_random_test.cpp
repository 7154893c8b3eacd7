// The video instructions on random forms and random inputs, against the PTX ISA's pseudocode
// written out here in C++ (PTX ISA 9.0, 9.7.16 "Video Instructions": partSelectSignExtend,
// optSaturate, optSecondaryOp, optMerge; extractAndSignExt_2/_4 and the SIMD mask; vmad's
// 128-bit tmp). Each batch of forms is one kernel: lowered (and printed back with --emit=ptx
// and lowered again), run in the interpreter on 64 threads of random operands, and compared
// lane by lane with the host. vshl's value past 34
// bits is as ptxas 13.0 computes it (docs/ptx.md, "Video instructions"): .s34 for .sat, all
// 64 bits of ta << tb for .min/.max.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "interp/interp.h"
#include "ir/ori.h"
#include "ptx/ptx.h"
#include "tests/unit/ptx_kernel_runner.h"

namespace ori {
namespace {

using u32 = uint32_t;
using u64 = uint64_t;
using i64 = int64_t;
using Rng = std::mt19937_64;

i64 ext(u64 v, int bits, bool s) {
  v &= bits == 64 ? ~u64(0) : (u64(1) << bits) - 1;
  return s && bits < 64 && (v >> (bits - 1)) & 1 ? i64(v) - (i64(1) << bits) : i64(v);
}
i64 clampTo(i64 v, i64 lo, i64 hi) { return v < lo ? lo : v > hi ? hi : v; }

// A video form and how the host computes it.
struct Form {
  std::string text; // with %d %a %b %c for the operands (selectors and `-` included)
  std::function<u32(u32, u32, u32)> ref;
};

// ---------------------------------------------------------------- scalar (9.7.16.1)
// sel: "" (word), ".b0".. ".b3", ".h0", ".h1".
i64 partSelect(u32 x, bool s, const std::string &sel) {
  if (sel.empty())
    return ext(x, 32, s);
  int k = sel[2] - '0';
  return sel[1] == 'b' ? ext(x >> (8 * k), 8, s) : ext(x >> (16 * k), 16, s);
}

Form scalarForm(Rng &rng) {
  static const char *kOps[] = {"vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vset"};
  static const char *kSels[] = {"", "", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1"};
  static const char *kCmps[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  const std::string op = kOps[rng() % 8];
  const bool set = op == "vset", shift = op == "vshl" || op == "vshr";
  const bool dS = rng() & 1, aS = rng() & 1, bS = !shift && (rng() & 1);
  const std::string asel = kSels[rng() % 8], bsel = kSels[rng() % 8];
  std::string cmp = set ? kCmps[rng() % 6] : "";
  const std::string mode = shift ? (rng() & 1 ? "clamp" : "wrap") : "";
  // The variant: plain, .sat, op2 (.add .min .max, maybe with .sat), or a merge (maybe .sat).
  int variant = int(rng() % 4);
  bool sat = !set && (rng() & 1);
  std::string op2, dsel;
  if (variant == 2)
    op2 = std::vector<std::string>{"add", "min", "max"}[rng() % 3];
  if (variant == 3)
    dsel = kSels[2 + rng() % 6];
  auto t = [](bool s) { return s ? ".s32" : ".u32"; };
  std::string text = op + (set ? "" : t(dS)) + t(aS) + (shift ? ".u32" : t(bS));
  if (set)
    text += "." + cmp;
  if (sat)
    text += ".sat";
  if (shift)
    text += "." + mode;
  if (!op2.empty())
    text += "." + op2;
  text +=
      " %d" + dsel + ", %a" + asel + ", %b" + bsel + (op2.empty() && dsel.empty() ? ";" : ", %c;");
  auto ref = [=](u32 a, u32 b, u32 c) -> u32 {
    i64 ta = partSelect(a, aS, asel), tb = partSelect(b, bS, bsel), r = 0;
    if (shift) {
      if (mode == "clamp" && tb > 32)
        tb = 32;
      if (mode == "wrap")
        tb &= 31;
    }
    if (op == "vadd")
      r = ta + tb;
    else if (op == "vsub")
      r = ta - tb;
    else if (op == "vabsdiff")
      r = ta > tb ? ta - tb : tb - ta;
    else if (op == "vmin")
      r = std::min(ta, tb);
    else if (op == "vmax")
      r = std::max(ta, tb);
    else if (op == "vshl")
      r = i64(u64(ta) << tb); // all 64 bits (.min/.max), .s34 with .sat below
    else if (op == "vshr")
      r = ta >> tb;
    else {
      bool v = cmp == "eq"   ? ta == tb
               : cmp == "ne" ? ta != tb
               : cmp == "lt" ? ta < tb
               : cmp == "le" ? ta <= tb
               : cmp == "gt" ? ta > tb
                             : ta >= tb;
      r = v;
    }
    const bool dSigned = !set && dS;
    if (sat && op == "vshl")
      r = ext(u64(r), 34, true); // the .s34 intermediate, as ptxas does
    if (sat) {
      int w = dsel.empty() ? 32 : dsel[1] == 'b' ? 8 : 16;
      r = dSigned ? clampTo(r, -(i64(1) << (w - 1)), (i64(1) << (w - 1)) - 1)
                  : clampTo(r, 0, (i64(1) << w) - 1);
    }
    const i64 cc = ext(c, 32, dSigned);
    if (op2 == "add")
      r += cc;
    else if (op2 == "min")
      r = std::min(r, cc);
    else if (op2 == "max")
      r = std::max(r, cc);
    else if (!dsel.empty()) {
      int k = dsel[2] - '0';
      u32 m = dsel[1] == 'h' ? 0xffffu << (16 * k) : 0xffu << (8 * k);
      return (u32(u64(r) << (dsel[1] == 'h' ? 16 * k : 8 * k)) & m) | (c & ~m);
    }
    return u32(u64(r));
  };
  return {text, ref};
}

// ---------------------------------------------------------------- SIMD (9.7.16.2)
Form simdForm(Rng &rng) {
  static const char *kOps[] = {"vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset"};
  static const char *kCmps[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  const std::string op = kOps[rng() % 7];
  const int lanes = rng() & 1 ? 2 : 4, w = 32 / lanes, elems = 2 * lanes;
  const bool set = op == "vset";
  const bool dS = rng() & 1, aS = rng() & 1, bS = rng() & 1;
  const int variant = int(rng() % 3); // merge, .sat merge, .add
  const bool add = variant == 2, sat = variant == 1 && !set;
  const std::string cmp = set ? kCmps[rng() % 6] : "";
  std::vector<int> asel(lanes), bsel(lanes);
  std::string as = lanes == 2 ? ".h" : ".b", bs = as;
  for (int i = lanes; i-- > 0;) { // the selector's last digit is lane 0
    asel[i] = int(rng() % elems), bsel[i] = int(rng() % elems);
    as += char('0' + asel[i]), bs += char('0' + bsel[i]);
  }
  unsigned mask = 0;
  while (!mask)
    mask = unsigned(rng()) & ((1u << lanes) - 1);
  std::string ms = lanes == 2 ? ".h" : ".b";
  for (int i = lanes; i-- > 0;)
    if ((mask >> i) & 1)
      ms += char('0' + i);
  auto t = [](bool s) { return s ? ".s32" : ".u32"; };
  std::string text = op + std::to_string(lanes) + (set ? "" : t(dS)) + t(aS) + t(bS) +
                     (set ? "." + cmp : "") + (sat ? ".sat" : "") + (add ? ".add" : "") + " %d" +
                     ms + ", %a" + as + ", %b" + bs + ", %c;";
  auto ref = [=](u32 a, u32 b, u32 c) -> u32 {
    const u64 ab = u64(b) << 32 | a;
    std::vector<i64> tv(lanes);
    for (int i = 0; i < lanes; ++i) {
      i64 x = ext(ab >> (w * asel[i]), w, aS), y = ext(ab >> (w * bsel[i]), w, bS), r;
      if (op == "vadd")
        r = x + y;
      else if (op == "vsub")
        r = x - y;
      else if (op == "vavrg")
        r = x + y >= 0 ? (x + y + 1) >> 1 : (x + y) >> 1;
      else if (op == "vabsdiff")
        r = x > y ? x - y : y - x;
      else if (op == "vmin")
        r = std::min(x, y);
      else if (op == "vmax")
        r = std::max(x, y);
      else
        r = cmp == "eq"   ? x == y
            : cmp == "ne" ? x != y
            : cmp == "lt" ? x < y
            : cmp == "le" ? x <= y
            : cmp == "gt" ? x > y
                          : x >= y;
      if (sat)
        r = dS ? clampTo(r, -(i64(1) << (w - 1)), (i64(1) << (w - 1)) - 1)
               : clampTo(r, 0, (i64(1) << w) - 1);
      tv[i] = r;
    }
    if (add) {
      i64 d = c;
      for (int i = 0; i < lanes; ++i)
        if ((mask >> i) & 1)
          d += tv[i];
      return u32(u64(d));
    }
    u32 d = 0, m = (1u << w) - 1;
    for (int i = 0; i < lanes; ++i)
      d |= (((mask >> i) & 1 ? u32(u64(tv[i])) : c >> (w * i)) & m) << (w * i);
    return d;
  };
  return {text, ref};
}

// ---------------------------------------------------------------- vmad (9.7.16.1.4)
Form vmadForm(Rng &rng) {
  static const char *kSels[] = {"", "", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1"};
  const bool dS = rng() & 1, aS = rng() & 1, bS = rng() & 1;
  const std::string asel = kSels[rng() % 8], bsel = kSels[rng() % 8];
  const bool po = rng() % 4 == 0, sat = rng() & 1;
  const int scale = int(rng() % 3); // none, .shr7, .shr15
  bool na = false, nb = false, nc = false;
  if (!po) {
    switch (rng() % 4) {
    case 1:
      (rng() & 1 ? na : nb) = true;
      break; // the product negated
    case 2:
      nc = true;
      break;
    default:
      break;
    }
  }
  auto t = [](bool s) { return s ? ".s32" : ".u32"; };
  std::string text = std::string("vmad") + t(dS) + t(aS) + t(bS) + (po ? ".po" : "") +
                     (sat ? ".sat" : "") +
                     (scale == 1   ? ".shr7"
                      : scale == 2 ? ".shr15"
                                   : "") +
                     " %d, " + (na ? "-" : "") + "%a" + asel + ", " + (nb ? "-" : "") + "%b" +
                     bsel + ", " + (nc ? "-" : "") + "%c;";
  auto ref = [=](u32 a, u32 b, u32 c) -> u32 {
    using u128 = unsigned __int128;
    const i64 ta = partSelect(a, aS, asel), tb = partSelect(b, bS, bsel);
    const bool sf = aS || bS || na != nb || nc;
    u128 tmp = u128(__int128(ta) * __int128(tb));
    unsigned lsb = 0;
    if (po)
      lsb = 1;
    else if (na != nb)
      tmp = ~tmp, lsb = 1;
    else if (nc)
      c = ~c, lsb = 1;
    const u128 c128 = sf ? u128(__int128(int32_t(c))) : u128(c);
    tmp = tmp + c128 + lsb;
    u64 r = u64(scale == 1 ? tmp >> 7 : scale == 2 ? tmp >> 15 : tmp);
    if (sat)
      r = sf ? u64(clampTo(i64(r), INT32_MIN, INT32_MAX)) : std::min<u64>(r, UINT32_MAX);
    return u32(r);
  };
  return {text, ref};
}

// One kernel of `forms`, run on 64 threads of random a, b, c; every result against the host.
void checkBatch(const std::vector<Form> &forms, Rng &rng, bool checkPtxas) {
  std::string body;
  for (size_t k = 0; k < forms.size(); ++k) {
    std::string t = forms[k].text;
    auto put = [&](const std::string &from, const std::string &to) {
      for (size_t at; (at = t.find(from)) != std::string::npos;)
        t.replace(at, from.size(), to);
    };
    put("%d", fmt::format("%r{}", 10 + k));
    put("%a", "%r2");
    put("%b", "%r3");
    put("%c", "%r4");
    body += "\t" + t + "\n" + fmt::format("\tst.global.u32 [%rd6+{}], %r{};\n", 4 * k, 10 + k);
  }
  const std::string text = fmt::format(R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry v(.param .u64 out, .param .u64 in)
{{
	.reg .b32 %r<{}>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [in];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 12;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u32 %r2, [%rd4];
	ld.global.u32 %r3, [%rd4+4];
	ld.global.u32 %r4, [%rd4+8];
	mul.wide.u32 %rd5, %r1, {};
	add.s64 %rd6, %rd1, %rd5;
{}	ret;
}}
)",
                                       10 + forms.size(), 4 * forms.size(), body);
  // Lowered, and printed back with --emit=ptx and lowered again: both must compute the ISA's
  // values; the first batch's printed PTX must assemble.
  ptxtest::Kernel kernel = ptxtest::lowerAndReEmit(text);
  ASSERT_FALSE(kernel.lowered.functions.empty() || kernel.reEmitted.functions.empty()) << text;
  for (const Block &bl : kernel.lowered.functions[0].blocks)
    for (const Instr &in : bl.instrs)
      ASSERT_NE(in.op, Opcode::OPAQUE) << in.opaqueText;
  if (checkPtxas && ptxtest::havePtxas())
    EXPECT_EQ(ptxtest::ptxasErrors(kernel.emittedPtx), "");
  constexpr u32 kThreads = 64;
  static const u32 kEdges[] = {0,          1,          0x7f,       0x80,       0xff,
                               0x7fff,     0x8000,     0xffff,     0x7fffffff, 0x80000000,
                               0xffffffff, 0x80008000, 0x7fff7fff, 0x80808080, 0x7f7f7f7f,
                               0x00ff00ff, 31,         32,         33};
  std::vector<u32> in(3 * kThreads);
  for (u32 &v : in)
    v = rng() % 3 == 0 ? kEdges[rng() % std::size(kEdges)] : u32(rng());
  RunConfig cfg;
  cfg.threads = kThreads;
  cfg.buffers["in"].resize(4 * in.size());
  for (size_t k = 0; k < in.size(); ++k)
    for (int i = 0; i < 4; ++i)
      cfg.buffers["in"][4 * k + size_t(i)] = uint8_t(in[k] >> (8 * i));
  cfg.buffers["out"] = std::vector<uint8_t>(4 * kThreads * forms.size());
  for (const Module *m : {&kernel.lowered, &kernel.reEmitted}) {
    SCOPED_TRACE(m == &kernel.lowered ? "lowered" : "after --emit=ptx");
    RunResult res = runKernel(*m, cfg);
    ASSERT_EQ(int(res.kind), int(RunResult::Kind::Ok)) << res.message;
    const std::vector<uint8_t> &out = res.buffers["out"];
    for (u32 t = 0; t < kThreads; ++t)
      for (size_t k = 0; k < forms.size(); ++k) {
        const size_t at = 4 * (t * forms.size() + k);
        const u32 got =
            u32(out[at]) | u32(out[at + 1]) << 8 | u32(out[at + 2]) << 16 | u32(out[at + 3]) << 24;
        const u32 a = in[3 * t], b = in[3 * t + 1], c = in[3 * t + 2];
        const u32 want = forms[k].ref(a, b, c);
        ASSERT_EQ(got, want) << forms[k].text
                             << fmt::format("  a=0x{:x} b=0x{:x} c=0x{:x}", a, b, c);
      }
  }
}

TEST(PtxVideoRandom, ScalarFormsMatchTheIsaPseudocode) {
  Rng rng(39001);
  for (int batch = 0; batch < 12; ++batch) {
    std::vector<Form> forms;
    for (int k = 0; k < 16; ++k)
      forms.push_back(scalarForm(rng));
    checkBatch(forms, rng, batch == 0);
  }
}

TEST(PtxVideoRandom, SimdFormsMatchTheIsaPseudocode) {
  Rng rng(39002);
  for (int batch = 0; batch < 12; ++batch) {
    std::vector<Form> forms;
    for (int k = 0; k < 16; ++k)
      forms.push_back(simdForm(rng));
    checkBatch(forms, rng, batch == 0);
  }
}

TEST(PtxVideoRandom, VmadFormsMatchTheIsaPseudocode) {
  Rng rng(39003);
  for (int batch = 0; batch < 8; ++batch) {
    std::vector<Form> forms;
    for (int k = 0; k < 16; ++k)
      forms.push_back(vmadForm(rng));
    checkBatch(forms, rng, batch == 0);
  }
}

} // namespace
} // namespace ori
