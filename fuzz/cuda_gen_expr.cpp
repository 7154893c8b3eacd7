// The expression generator of the CUDA kernel generator. Every expression has
// defined behaviour in C++ on both compilers: integer arithmetic goes through
// the wrappers of the prelude (fuzz/cuda_prelude.cpp: unsigned arithmetic of
// at least 32 bits, shifts masked, division guarded), floats become integers
// only through saturating wrappers, and no float is reinterpreted as bits (NaN
// payloads are not compared: docs/cuda-host-diff.md).
#include "fuzz/cuda_gen_expr.h"

#include <fmt/format.h>

namespace ori::cudagen {

const TyInfo &info(Ty t) {
  static const TyInfo table[kTyCount] = {
      {"bool", 8, false, false, false},
      {"int8_t", 8, true, true, false},
      {"uint8_t", 8, false, true, false},
      {"int16_t", 16, true, true, false},
      {"uint16_t", 16, false, true, false},
      {"int", 32, true, true, false},
      {"unsigned", 32, false, true, false},
      // long long, not int64_t (long on Linux): CUDA's atomics and shuffles have no long overloads.
      {"long long", 64, true, true, false},
      {"unsigned long long", 64, false, true, false},
      {"__half", 16, false, false, true},
      {"float", 32, false, false, true},
      {"double", 64, false, false, true},
  };
  return table[int(t)];
}

namespace detail {

size_t Rng::weighted(const std::vector<int> &w) {
  int total = 0;
  for (int x : w)
    total += x;
  int v = int(below(uint32_t(total)));
  for (size_t i = 0; i < w.size(); ++i) {
    if (v < w[i])
      return i;
    v -= w[i];
  }
  return 0;
}

namespace {

bool is64(Ty t) { return info(t).bits == 64 && info(t).isInt; }

std::string intLiteral(Ty t, uint64_t bits) {
  const TyInfo &i = info(t);
  if (i.bits < 64)
    bits &= (uint64_t(1) << i.bits) - 1;
  if (i.isSigned) {
    int64_t v = i.bits < 64 && (bits >> (i.bits - 1))
                    ? int64_t(bits | ~((uint64_t(1) << i.bits) - 1))
                    : int64_t(bits);
    if (v > -1000000 && v < 1000000)
      return fmt::format("({})({})", i.c, v);
  }
  return fmt::format("({})0x{:x}ull", i.c, bits);
}

} // namespace

Ty ExprGen::randomType(bool withBool) {
  static const std::vector<int> weights = {6, 5, 5, 5, 5, 14, 14, 9, 9, 6, 12, 9};
  for (;;) {
    Ty t = Ty(r_.weighted(weights));
    if (t == Ty::Bool && !withBool)
      continue;
    if (t == Ty::F16 && !k_.usesHalf)
      continue;
    return t;
  }
}

std::vector<int> ExprGen::varsOf(Ty t) const {
  std::vector<int> out;
  for (size_t i = 0; i < k_.vars.size(); ++i)
    if (k_.vars[i] == t)
      out.push_back(int(i));
  return out;
}

std::string ExprGen::constant(Ty t) {
  const TyInfo &i = info(t);
  if (t == Ty::Bool)
    return r_.chance(50) ? "true" : "false";
  if (i.isInt) {
    uint64_t top = uint64_t(1) << (i.bits - 1);
    std::vector<uint64_t> edges = {0,
                                   1,
                                   ~uint64_t(0),
                                   top,
                                   top - 1,
                                   top + 1,
                                   2,
                                   7,
                                   31,
                                   32,
                                   33,
                                   63,
                                   64,
                                   255,
                                   0x8000,
                                   0x7fffffff,
                                   0x80000000,
                                   0xffffffffull,
                                   0x100000000ull};
    switch (r_.below(4)) {
    case 0:
      return intLiteral(t, r_.pick(edges));
    case 1:
      return intLiteral(t, r_.next());
    case 2:
      return intLiteral(t, uint64_t(r_.range(-40, 40)));
    default:
      return intLiteral(t, (uint64_t(1) << r_.below(uint32_t(i.bits))) + uint64_t(r_.range(-1, 1)));
    }
  }
  if (t == Ty::F16) {
    static const std::vector<uint16_t> edges = {
        0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x4000, 0x7c00, 0xfc00, 0x7e00, 0x7bff,
        0xfbff, 0x0400, 0x0001, 0x8001, 0x03ff, 0x3555, 0x5640, 0x1400, 0x6800, 0x3bff};
    uint16_t b = r_.chance(60) ? r_.pick(edges) : uint16_t(r_.next());
    if (r_.chance(30))
      b = uint16_t(0x3000 + r_.below(0x1800)) ^ (r_.chance(50) ? 0x8000 : 0); // moderate magnitudes
    return fmt::format("bits_f16(0x{:04x}u)", b);
  }
  if (t == Ty::F32) {
    static const std::vector<uint32_t> edges = {
        0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f000000, 0x40000000, 0x40500000,
        0x7f800000, 0xff800000, 0x7fc00000, 0x7f7fffff, 0xff7fffff, 0x00800000, 0x00000001,
        0x80000001, 0x007fffff, 0x3dcccccd, 0x4b800001, 0x4f000000, 0xcf000000, 0x5f000000,
        0x4b000000, 0x3f7fffff, 0x33800000, 0x47000000, 0x477fe000};
    uint32_t b = r_.chance(55) ? r_.pick(edges) : uint32_t(r_.next());
    if (r_.chance(30))
      b = uint32_t(0x3a000000 + r_.below(0x0c000000)) ^ (r_.chance(50) ? 0x80000000u : 0);
    return fmt::format("bits_f32(0x{:08x}u)", b);
  }
  static const std::vector<uint64_t> edges = {0,
                                              0x8000000000000000ull,
                                              0x3ff0000000000000ull,
                                              0xbff0000000000000ull,
                                              0x3fe0000000000000ull,
                                              0x7ff0000000000000ull,
                                              0xfff0000000000000ull,
                                              0x7ff8000000000000ull,
                                              0x7fefffffffffffffull,
                                              0x0010000000000000ull,
                                              0x0000000000000001ull,
                                              0x000fffffffffffffull,
                                              0x3fb999999999999aull,
                                              0x43e0000000000000ull,
                                              0xc3e0000000000000ull,
                                              0x41e0000000000000ull,
                                              0x4330000000000001ull,
                                              0x36a0000000000000ull,
                                              0x47efffffe0000000ull,
                                              0x3810000000000000ull,
                                              0x380fffffffffffffull};
  uint64_t b = r_.chance(55) ? r_.pick(edges) : r_.next();
  if (r_.chance(30))
    b = (0x3f00000000000000ull + (r_.next() % 0x0180000000000000ull)) ^
        (r_.chance(50) ? 1ull << 63 : 0);
  return fmt::format("bits_f64(0x{:016x}ull)", b);
}

std::string ExprGen::index(int depth) {
  if (inFunc_)
    return fmt::format("(unsigned)({})", expr(Ty::U32, depth));
  switch (r_.below(5)) {
  case 0:
    return "TID";
  case 1:
    return fmt::format("{}u", r_.below(300));
  case 2:
    if (!s_.loopVars.empty())
      return fmt::format("(unsigned){}", r_.pick(s_.loopVars));
    [[fallthrough]];
  default:
    return fmt::format("(unsigned)({})", expr(r_.chance(50) ? Ty::U32 : Ty::I32, depth));
  }
}

std::string ExprGen::uniformInt() {
  std::vector<std::string> leaves = {"BID", "NCTA", "NTID", fmt::format("{}u", r_.below(5))};
  for (const std::string &u : s_.uniformVars)
    leaves.push_back(fmt::format("(unsigned){}", u));
  std::string a = r_.pick(leaves), b = r_.pick(leaves);
  switch (r_.below(4)) {
  case 0:
    return a;
  case 1:
    return fmt::format("({} + {})", a, b);
  case 2:
    return fmt::format("({} & {}u)", a, r_.range(1, 3));
  default:
    return fmt::format("({} % {}u)", a, r_.range(2, 3));
  }
}

std::string ExprGen::uniformCond() {
  static const std::vector<std::string> ops = {"==", "!=", "<", ">="};
  return fmt::format("{} {} {}", uniformInt(), r_.pick(ops), uniformInt());
}

std::string ExprGen::arrayRead(Ty t, int depth) {
  std::vector<std::string> options;
  for (size_t i = 0; i < k_.locals.size(); ++i)
    if (k_.locals[i].ty == t)
      options.push_back(
          fmt::format("@{}[({}) & {}u]", i, index(depth), k_.locals[i].perThread - 1));
  for (size_t i = 0; i < k_.shared.size(); ++i) {
    if (k_.shared[i].ty != t)
      continue;
    int p = k_.shared[i].perThread;
    if (s_.shMode[i] == Mode::Own)
      options.push_back(fmt::format("sh{}[TID * {}u + (({}) & {}u)]", i, p, index(depth), p - 1));
    else if (s_.shMode[i] == Mode::Read)
      options.push_back(fmt::format("sh{}[({}) % (NTID * {}u)]", i, index(depth), p));
  }
  return options.empty() ? "" : r_.pick(options);
}

std::string ExprGen::leaf(Ty t, int depth) {
  const TyInfo &i = info(t);
  for (int attempt = 0; attempt < 4; ++attempt) {
    switch (r_.weighted({40, 14, 14, 10, 12, 10})) {
    case 0: {
      std::vector<int> vs = varsOf(t);
      if (!vs.empty())
        return fmt::format("${}", r_.pick(vs));
      break;
    }
    case 1:
      return constant(t);
    case 2:
      if (inFunc_)
        break; // a device function sees its parameters only
      if (t == Ty::Bool)
        return fmt::format("((ld<uint8_t>(in, {}) & 1u) != 0)", index(0));
      return fmt::format("ld<{}>(in, {})", i.c, index(0));
    case 3:
      if (i.isInt && !inFunc_) {
        std::vector<std::string> b = {"TID", "BID", "LANE", "WID", "NTID"};
        for (const std::string &v : s_.loopVars)
          b.push_back(v);
        for (const std::string &v : s_.uniformVars)
          b.push_back(v);
        return fmt::format("({})({})", i.c, r_.pick(b));
      }
      break;
    case 4:
      if (inFunc_)
        break;
      if (std::string a = arrayRead(t, 0); !a.empty())
        return a;
      break;
    default: {
      Ty from = randomType(true);
      std::vector<int> vs = varsOf(from);
      if (from != t && !vs.empty())
        return convert(t, from, fmt::format("${}", r_.pick(vs)));
      break;
    }
    }
  }
  (void)depth;
  return constant(t);
}

// A value of type `from` (the text e) as type `to`, defined for every value.
std::string ExprGen::convert(Ty to, Ty from, const std::string &e) {
  const TyInfo &ti = info(to), &fi = info(from);
  static const std::vector<std::string> rnd = {"rn", "rz", "rd", "ru"};
  if (to == from)
    return e;
  if (to == Ty::Bool) {
    if (fi.isInt)
      return fmt::format("(({}) != 0)", e);
    if (from == Ty::F16)
      return fmt::format("__hne({}, bits_f16(0x0000u))", e);
    return fmt::format("(({}) != 0)", e); // float: NaN != 0 is true, as in C++
  }
  if (from == Ty::Bool) {
    if (to == Ty::F16)
      return fmt::format("__float2half((float)({}))", e);
    return fmt::format("({})({})", ti.c, e);
  }
  if (ti.isInt && fi.isInt)
    return fmt::format("({})({})", ti.c, e);
  if (ti.isInt) { // from a float
    if (from == Ty::F16) {
      static const char *names[] = {nullptr, "char", "uchar", "short", "ushort",
                                    "int",   "uint", "ll",    "ull"};
      if (r_.chance(50))
        return fmt::format("__half2{}_rz({})", names[int(to)], e);
      return fmt::format("f2i<{}>(__half2float({}))", ti.c, e);
    }
    if (from == Ty::F32 && (to == Ty::I32 || to == Ty::U32 || to == Ty::I64 || to == Ty::U64) &&
        r_.chance(40)) {
      static const char *names[] = {nullptr, nullptr, nullptr, nullptr, nullptr,
                                    "int",   "uint",  "ll",    "ull"};
      return fmt::format("__float2{}_{}({})", names[int(to)], r_.pick(rnd), e);
    }
    if (from == Ty::F64 && (to == Ty::I32 || to == Ty::U32) && r_.chance(40))
      return fmt::format("__double2{}_{}({})", to == Ty::I32 ? "int" : "uint", r_.pick(rnd), e);
    return fmt::format("f2i<{}>({})", ti.c, e);
  }
  if (to == Ty::F16) {
    if (fi.isInt) {
      static const char *names[] = {nullptr, "short", "ushort", "short", "ushort",
                                    "int",   "uint",  "ll",     "ull"};
      const char *n = names[int(from)];
      std::string arg =
          info(from).bits == 8
              ? fmt::format("({})({})", from == Ty::I8 ? "short" : "unsigned short", e)
              : e;
      return fmt::format("__{}2half_{}({})", n, r_.pick(rnd), arg);
    }
    if (from == Ty::F32)
      return fmt::format("__float2half_{}({})", r_.pick(rnd), e);
    return fmt::format("__double2half({})", e);
  }
  // to float or double
  if (from == Ty::F16)
    return fmt::format("({})__half2float({})", ti.c, e);
  if (r_.chance(40)) { // with a rounding mode
    static const char *names[] = {nullptr, nullptr, nullptr, nullptr, nullptr,
                                  "int",   "uint",  "ll",    "ull"};
    if (to == Ty::F32 && fi.isInt && fi.bits >= 32)
      return fmt::format("__{}2float_{}({})", names[int(from)], r_.pick(rnd), e);
    if (to == Ty::F64 && fi.isInt && fi.bits == 64)
      return fmt::format("__{}2double_{}({})", names[int(from)], r_.pick(rnd), e);
    if (to == Ty::F32 && from == Ty::F64)
      return fmt::format("__double2float_{}({})", r_.pick(rnd), e);
  }
  return fmt::format("({})({})", ti.c, e);
}

std::string ExprGen::intrinsic(Ty t, int depth) {
  const TyInfo &i = info(t);
  auto u32 = [&] { return fmt::format("(unsigned)({})", expr(Ty::U32, depth - 1)); };
  auto s32 = [&] { return fmt::format("(int)({})", expr(Ty::I32, depth - 1)); };
  auto u64 = [&] { return fmt::format("(unsigned long long)({})", expr(Ty::U64, depth - 1)); };
  auto s64 = [&] { return fmt::format("(long long)({})", expr(Ty::I64, depth - 1)); };
  std::string call;
  uint32_t pick = r_.below(20);
  while ((o_.avoidSad && (pick == 8 || pick == 9)) || (o_.avoidMulHi64 && pick >= 18))
    pick = r_.below(18);
  // 24-bit multiplies. nvcc 13.0 -O3 makes __mul24 a 32-bit multiply of the sign-extended
  // 24-bit values that may not overflow (LLVM's `mul nsw`: it folds `__mul24(v, v) >= 0` to
  // true, where CUDA's documented low 32 bits of the 48-bit product can be negative; seed 3,
  // kernel 230), so the signed form gets 16-bit arguments, whose product fits.
  if (r_.chance(8))
    return fmt::format(
        "({})({})", i.c,
        r_.chance(50) ? fmt::format("__mul24((int)(short)({}), (int)(short)({}))", s32(), s32())
                      : fmt::format("__umul24({}, {})", u32(), u32()));
  switch (pick) {
  case 0:
    call = fmt::format("__popc({})", u32());
    break;
  case 1:
    call = fmt::format("__clz({})", s32());
    break;
  case 2:
    call = fmt::format("__ffs({})", s32());
    break;
  case 3:
    call = fmt::format("__brev({})", u32());
    break;
  case 4:
    call = fmt::format("__byte_perm({}, {}, ({}) & 0x7777u)", u32(), u32(), u32());
    break;
  case 5: {
    static const std::vector<std::string> f = {"__funnelshift_l", "__funnelshift_r",
                                               "__funnelshift_lc", "__funnelshift_rc"};
    call = fmt::format("{}({}, {}, {})", r_.pick(f), u32(), u32(), u32());
    break;
  }
  case 6:
    call = fmt::format("__umulhi({}, {})", u32(), u32());
    break;
  case 7:
    call = fmt::format("__mulhi({}, {})", s32(), s32());
    break;
  case 8:
    call = fmt::format("__sad({}, {}, {})", s32(), s32(), u32());
    break;
  case 9:
    call = fmt::format("__usad({}, {}, {})", u32(), u32(), u32());
    break;
  case 10:
    call = fmt::format("__hadd({}, {})", s32(), s32());
    break;
  case 11:
    call = fmt::format("__rhadd({}, {})", s32(), s32());
    break;
  case 12:
    call = fmt::format("__uhadd({}, {})", u32(), u32());
    break;
  case 13:
    call = fmt::format("__urhadd({}, {})", u32(), u32());
    break;
  case 14:
    call = fmt::format("__popcll({})", u64());
    break;
  case 15:
    call = fmt::format("__clzll({})", s64());
    break;
  case 16:
    call = fmt::format("__ffsll({})", s64());
    break;
  case 17:
    call = fmt::format("__brevll({})", u64());
    break;
  case 18:
    call = fmt::format("__umul64hi({}, {})", u64(), u64());
    break;
  default:
    call = fmt::format("__mul64hi({}, {})", s64(), s64());
    break;
  }
  return fmt::format("({})({})", i.c, call);
}

std::string ExprGen::intOp(Ty t, int depth) {
  const char *c = info(t).c;
  auto sub = [&] { return expr(t, depth - 1); };
  static const std::vector<std::string> wrapped = {"w_add", "w_sub", "w_mul", "w_div",
                                                   "w_rem", "w_min", "w_max"};
  switch (r_.weighted({30, 14, 8, 8, 6, 10, 6})) {
  case 0: {
    const std::string &f = r_.pick(wrapped);
    if (o_.avoidMulHi64 && info(t).bits == 64 && (f == "w_div" || f == "w_rem") && inFunc_)
      return fmt::format("w_add<{}>({}, {})", c, sub(), sub()); // no input to make it opaque
    if (o_.avoidMulHi64 && info(t).bits == 64 &&
        (f == "w_div" || f == "w_rem")) // a divisor nvcc cannot fold
      return fmt::format("{}<{}>({}, ({})({} | ld<{}>(in, {})))", f, c, sub(), c, sub(), c,
                         index(0));
    return fmt::format("{}<{}>({}, {})", f, c, sub(), sub());
  }
  case 1: {
    static const std::vector<std::string> ops = {"&", "|", "^"};
    return fmt::format("({})({} {} {})", c, sub(), r_.pick(ops), sub());
  }
  case 2:
    return fmt::format("{}<{}>({}, (unsigned)({}))", r_.chance(50) ? "w_shl" : "w_shr", c, sub(),
                       r_.chance(50) ? expr(Ty::U32, depth - 1)
                                     : std::to_string(r_.below(70)) + "u");
  case 3: {
    static const std::vector<std::string> u = {"w_neg", "w_not", "w_abs"};
    return fmt::format("{}<{}>({})", r_.pick(u), c, sub());
  }
  case 4:
    return fmt::format("({} ? {} : {})", boolExpr(depth - 1), sub(), sub());
  case 5:
    return intrinsic(t, depth);
  default: {
    Ty from = randomType(false);
    return convert(t, from, expr(from, depth - 1));
  }
  }
}

// CUDA's float and double arithmetic with a rounding mode: __fadd_rz, __dmul_ru, ...
std::string ExprGen::roundedOp(Ty t, int depth) {
  auto sub = [&] { return expr(t, depth - 1); };
  static const std::vector<std::string> rnd = {"rn", "rz", "rd", "ru"};
  const bool f = t == Ty::F32;
  switch (r_.below(f ? 8 : 7)) {
  case 0:
    return fmt::format("{}_{}({}, {})", f ? "__fadd" : "__dadd", r_.pick(rnd), sub(), sub());
  case 1:
    return fmt::format("{}_{}({}, {})", f ? "__fsub" : "__dsub", r_.pick(rnd), sub(), sub());
  case 2:
    return fmt::format("{}_{}({}, {})", f ? "__fmul" : "__dmul", r_.pick(rnd), sub(), sub());
  case 3:
    return fmt::format("{}_{}({}, {})", f ? "__fdiv" : "__ddiv", r_.pick(rnd), sub(), sub());
  case 4:
    return fmt::format("{}_{}({})", f ? "__fsqrt" : "__dsqrt", r_.pick(rnd), sub());
  case 5:
    return fmt::format("{}_{}({}, {}, {})", f ? "__fmaf" : "__fma", r_.pick(rnd), sub(), sub(),
                       sub());
  case 6:
    return fmt::format("{}_{}({})", f ? "__frcp" : "__drcp", r_.pick(rnd), sub());
  default:
    return fmt::format("__saturatef({})", sub());
  }
}

std::string ExprGen::floatOp(Ty t, int depth) {
  auto sub = [&] { return expr(t, depth - 1); };
  switch (r_.weighted({30, 6, 5, 8, 5, 6, 6, 8, 8, 4})) {
  case 0: {
    static const std::vector<std::string> ops = {"+", "-", "*", "/"};
    return fmt::format("({} {} {})", sub(), r_.pick(ops), sub());
  }
  case 1:
    return fmt::format("xfma({}, {}, {})", sub(), sub(), sub());
  case 2:
    return fmt::format("xsqrt({})", sub());
  case 3:
    return fmt::format("{}({}, {})", r_.chance(50) ? "xmin" : "xmax", sub(), sub());
  case 4: {
    static const std::vector<std::string> u = {"xabs", "xfloor", "xceil", "xtrunc", "xrint"};
    return fmt::format("{}({})", r_.pick(u), sub());
  }
  case 5:
    return fmt::format("(-{})", sub());
  case 6:
    return fmt::format("({} ? {} : {})", boolExpr(depth - 1), sub(), sub());
  case 8:
    return roundedOp(t, depth);
  case 9:
    return r_.chance(50) ? fmt::format("xround({})", sub())
                         : fmt::format("xcopysign({}, {})", sub(), sub());
  default: {
    Ty from = randomType(false);
    return convert(t, from, expr(from, depth - 1));
  }
  }
}

std::string ExprGen::halfOp(int depth) {
  auto sub = [&] { return expr(Ty::F16, depth - 1); };
  switch (r_.weighted({30, 8, 8, 6, 10})) {
  case 0: {
    static const std::vector<std::string> ops = {"__hadd",     "__hsub",     "__hmul",
                                                 "__hdiv",     "__hmin",     "__hmax",
                                                 "__hadd_sat", "__hmul_sat", "__hsub_sat"};
    return fmt::format("{}({}, {})", r_.pick(ops), sub(), sub());
  }
  case 1:
    return fmt::format("{}({})", r_.chance(50) ? "__hneg" : "__habs", sub());
  case 2:
    return fmt::format("({} ? {} : {})", boolExpr(depth - 1), sub(), sub());
  case 3:
    return fmt::format("__hfma({}, {}, {})", sub(), sub(), sub());
  default: {
    Ty from = randomType(false);
    return convert(Ty::F16, from, expr(from, depth - 1));
  }
  }
}

std::string ExprGen::boolExpr(int depth) {
  if (depth <= 0 || r_.chance(20))
    return leaf(Ty::Bool, depth);
  switch (r_.weighted({40, 8, 10, 10, 6})) {
  case 0: {
    Ty t = randomType(false);
    static const std::vector<std::string> ops = {"<", "<=", ">", ">=", "==", "!="};
    if (t == Ty::F16) {
      static const std::vector<std::string> h = {"__hlt", "__hle",  "__hgt",  "__hge",  "__heq",
                                                 "__hne", "__hltu", "__hgeu", "__hequ", "__hneu"};
      return fmt::format("{}({}, {})", r_.pick(h), expr(t, depth - 1), expr(t, depth - 1));
    }
    return fmt::format("({} {} {})", expr(t, depth - 1), r_.pick(ops), expr(t, depth - 1));
  }
  case 1:
    return fmt::format("(!{})", boolExpr(depth - 1));
  case 2:
    return fmt::format("({} {} {})", boolExpr(depth - 1), r_.chance(50) ? "&&" : "||",
                       boolExpr(depth - 1));
  case 3: {
    if (k_.usesHalf && r_.chance(30))
      return fmt::format("({}({}) != 0)", r_.chance(50) ? "__hisnan" : "__hisinf",
                         expr(Ty::F16, depth - 1));
    return fmt::format("xisnan({})", expr(r_.chance(50) ? Ty::F32 : Ty::F64, depth - 1));
  }
  default:
    return fmt::format("({} != {})", boolExpr(depth - 1), boolExpr(depth - 1));
  }
}

std::string ExprGen::expr(Ty t, int depth) {
  if (!inFunc_ && depth > 0 && r_.chance(15)) // a call of one of the kernel's device functions
    for (size_t f = 0; f < k_.funcs.size(); ++f)
      if (k_.funcs[f].ret == t || (info(t).isInt && info(k_.funcs[f].ret).isInt && r_.chance(50))) {
        std::string call = fmt::format("{}_f{}(", k_.name, f);
        for (size_t a = 0; a < k_.funcs[f].params.size(); ++a)
          call += (a ? ", " : "") + expr(k_.funcs[f].params[a], depth - 1);
        call += ")";
        return k_.funcs[f].ret == t ? call : fmt::format("({})({})", info(t).c, call);
      }
  if (t == Ty::Bool)
    return boolExpr(depth);
  if (depth <= 0 || r_.chance(25))
    return leaf(t, depth);
  if (info(t).isInt)
    return intOp(t, depth);
  if (t == Ty::F16)
    return halfOp(depth);
  (void)is64;
  return floatOp(t, depth);
}

} // namespace detail
} // namespace ori::cudagen
