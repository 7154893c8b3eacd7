// The Z3 wrapper (verify/smt.h).
#include "verify/smt.h"

#include <fmt/format.h>

#include <stdexcept>

namespace ori::verify {

z3::expr Smt::bv(uint64_t v, unsigned width) {
  if (width <= 64)
    return ctx_.bv_val(uint64_t(width == 64 ? v : v & ((uint64_t(1) << width) - 1)), width);
  return z3::zext(ctx_.bv_val(v, 64), width - 64);
}

z3::expr Smt::zext(const z3::expr &e, unsigned width) {
  unsigned w = e.get_sort().bv_size();
  if (w == width)
    return e;
  if (w > width)
    return e.extract(width - 1, 0);
  return z3::zext(e, width - w);
}

z3::expr Smt::sext(const z3::expr &e, unsigned width) {
  unsigned w = e.get_sort().bv_size();
  if (w == width)
    return e;
  if (w > width)
    return e.extract(width - 1, 0);
  return z3::sext(e, width - w);
}

z3::sort Smt::floatSort(unsigned width) {
  if (width == 32)
    return ctx_.fpa_sort(8, 24);
  if (width == 64)
    return ctx_.fpa_sort(11, 53);
  throw std::invalid_argument(fmt::format("no IEEE binary format of {} bits here", width));
}

z3::expr Smt::fromBits(const z3::expr &bits) {
  return bits.mk_from_ieee_bv(floatSort(bits.get_sort().bv_size()));
}

z3::sort Smt::floatSort(unsigned expBits, unsigned sigBits) {
  return ctx_.fpa_sort(expBits, sigBits);
}

z3::expr Smt::fromBits(const z3::expr &bits, const z3::sort &s) { return bits.mk_from_ieee_bv(s); }

z3::expr Smt::floatVal(double v, const z3::sort &s) {
  return z3::expr(ctx_, Z3_mk_fpa_numeral_double(ctx_, v, s));
}

z3::expr Smt::fpDiv(Rounding r, const z3::expr &a, const z3::expr &b) {
  return z3::expr(ctx_, Z3_mk_fpa_div(ctx_, rm(r), a, b));
}
z3::expr Smt::fpSqrt(Rounding r, const z3::expr &a) {
  return z3::expr(ctx_, Z3_mk_fpa_sqrt(ctx_, rm(r), a));
}
z3::expr Smt::fpConvert(Rounding r, const z3::expr &a, const z3::sort &to) {
  return z3::expr(ctx_, Z3_mk_fpa_to_fp_float(ctx_, rm(r), a, to));
}

z3::expr Smt::floatVal(double v, unsigned width) {
  z3::sort s = floatSort(width);
  return z3::expr(ctx_, Z3_mk_fpa_numeral_double(ctx_, v, s));
}

z3::expr Smt::rm(Rounding r) {
  switch (r) {
  case Rounding::NearestEven:
    return z3::expr(ctx_, Z3_mk_fpa_rne(ctx_));
  case Rounding::TowardZero:
    return z3::expr(ctx_, Z3_mk_fpa_rtz(ctx_));
  case Rounding::Down:
    return z3::expr(ctx_, Z3_mk_fpa_rtn(ctx_));
  case Rounding::Up:
    return z3::expr(ctx_, Z3_mk_fpa_rtp(ctx_));
  case Rounding::NearestAway:
    return z3::expr(ctx_, Z3_mk_fpa_rna(ctx_));
  }
  throw std::invalid_argument("bad rounding direction");
}

z3::expr Smt::fpAdd(Rounding r, const z3::expr &a, const z3::expr &b) {
  return z3::expr(ctx_, Z3_mk_fpa_add(ctx_, rm(r), a, b));
}
z3::expr Smt::fpMul(Rounding r, const z3::expr &a, const z3::expr &b) {
  return z3::expr(ctx_, Z3_mk_fpa_mul(ctx_, rm(r), a, b));
}
z3::expr Smt::fpFma(Rounding r, const z3::expr &a, const z3::expr &b, const z3::expr &c) {
  return z3::expr(ctx_, Z3_mk_fpa_fma(ctx_, rm(r), a, b, c));
}
z3::expr Smt::fpRoundToIntegral(Rounding r, const z3::expr &x) {
  return z3::expr(ctx_, Z3_mk_fpa_round_to_integral(ctx_, rm(r), x));
}
z3::expr Smt::fpToSigned(const z3::expr &x, unsigned width) {
  return z3::expr(ctx_, Z3_mk_fpa_to_sbv(ctx_, rm(Rounding::TowardZero), x, width));
}
z3::expr Smt::fpToUnsigned(const z3::expr &x, unsigned width) {
  return z3::expr(ctx_, Z3_mk_fpa_to_ubv(ctx_, rm(Rounding::TowardZero), x, width));
}
z3::expr Smt::intToFp(Rounding r, const z3::expr &v, bool isSigned, unsigned width) {
  z3::sort s = floatSort(width);
  return z3::expr(ctx_, isSigned ? Z3_mk_fpa_to_fp_signed(ctx_, rm(r), v, s)
                                 : Z3_mk_fpa_to_fp_unsigned(ctx_, rm(r), v, s));
}
z3::expr Smt::intToFp(Rounding r, const z3::expr &v, bool isSigned, const z3::sort &s) {
  return z3::expr(ctx_, isSigned ? Z3_mk_fpa_to_fp_signed(ctx_, rm(r), v, s)
                                 : Z3_mk_fpa_to_fp_unsigned(ctx_, rm(r), v, s));
}
z3::expr Smt::fpLt(const z3::expr &a, const z3::expr &b) {
  return z3::expr(ctx_, Z3_mk_fpa_lt(ctx_, a, b));
}
z3::expr Smt::fpEq(const z3::expr &a, const z3::expr &b) {
  return z3::expr(ctx_, Z3_mk_fpa_eq(ctx_, a, b));
}

uint64_t Smt::valueOf(const z3::expr &ground) {
  z3::expr v = ground.simplify();
  uint64_t out = 0;
  if (!v.is_numeral() || !Z3_get_numeral_uint64(ctx_, v, &out))
    throw std::runtime_error("term does not simplify to a 64-bit numeral: " + v.to_string());
  return out;
}

bool Smt::truthOf(const z3::expr &ground) {
  z3::expr v = ground.simplify();
  if (v.is_true())
    return true;
  if (v.is_false())
    return false;
  throw std::runtime_error("term does not simplify to true or false: " + v.to_string());
}

namespace {
std::vector<std::pair<std::string, std::string>> valuesIn(const z3::model &m, const Shown &shown) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto &[name, term] : shown)
    out.emplace_back(name, formatValue(m.eval(term, true)));
  return out;
}
} // namespace

std::optional<std::vector<std::pair<std::string, std::string>>>
Smt::findModel(const z3::expr &formula, const Shown &shown, unsigned timeoutMs) {
  z3::solver s(ctx_);
  if (timeoutMs) {
    z3::params p(ctx_);
    p.set("timeout", timeoutMs);
    s.set(p);
  }
  s.add(formula);
  switch (s.check()) {
  case z3::sat:
    return valuesIn(s.get_model(), shown);
  case z3::unsat:
    return std::nullopt;
  default:
    throw std::runtime_error("Z3 gave up: " + s.reason_unknown());
  }
}

Validity Smt::prove(const z3::expr &claim, const Shown &shown, unsigned timeoutMs) {
  Validity v;
  try {
    auto cex = findModel(!claim, shown, timeoutMs);
    if (!cex) {
      v.kind = Validity::Kind::Valid;
    } else {
      v.kind = Validity::Kind::Invalid;
      v.counterexample = std::move(*cex);
    }
  } catch (const std::runtime_error &e) {
    v.reason = e.what();
  } catch (const z3::exception &e) {
    v.reason = e.msg();
  }
  return v;
}

std::string formatValue(const z3::expr &value) {
  if (value.is_true())
    return "true";
  if (value.is_false())
    return "false";
  if (value.is_bv() && value.is_numeral()) {
    uint64_t u = 0;
    if (Z3_get_numeral_uint64(value.ctx(), value, &u))
      return fmt::format("0x{:x}", u);
  }
  return value.to_string();
}

} // namespace ori::verify
