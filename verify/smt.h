// A small wrapper over Z3's C++ API: bit-vectors, Booleans and IEEE binary32/
// binary64 terms, evaluation on constants, and validity checks with
// counterexamples. Internal to verify/ (the only folder that includes
// z3++.h); tools and tests use the headers without Z3 types.
#pragma once

#include <z3++.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ori::verify {

// IEEE rounding directions (PTX .rn .rz .rm .rp).
enum class Rounding : uint8_t { NearestEven, TowardZero, Down, Up, NearestAway };

// A term shown in a counterexample, with the name it is printed under.
using Shown = std::vector<std::pair<std::string, z3::expr>>;

struct Validity {
  enum class Kind { Valid, Invalid, Unknown };
  Kind kind = Kind::Unknown;
  // Invalid: the shown terms' values under a falsifying model ("a=0x1 p=true").
  std::vector<std::pair<std::string, std::string>> counterexample;
  std::string reason; // Unknown: why Z3 gave up
};

class Smt {
public:
  Smt() = default;
  Smt(const Smt &) = delete;
  Smt &operator=(const Smt &) = delete;

  z3::context &ctx() { return ctx_; }

  // Bit-vectors and Booleans.
  z3::expr bv(uint64_t v, unsigned width);
  z3::expr bvVar(const std::string &name, unsigned width) {
    return ctx_.bv_const(name.c_str(), width);
  }
  z3::expr boolVal(bool b) { return ctx_.bool_val(b); }
  z3::expr boolVar(const std::string &name) { return ctx_.bool_const(name.c_str()); }
  // The low `bits` bits. Z3 does not simplify terms as they are built, and the translation
  // validator needs a copy to give its source's very term: the whole of a value is the value,
  // and the low bits of a zero-extended value are the value extended.
  static z3::expr low(const z3::expr &e, unsigned bits) {
    if (e.get_sort().bv_size() == bits)
      return e;
    if (e.is_app() && e.decl().decl_kind() == Z3_OP_ZERO_EXT &&
        e.arg(0).get_sort().bv_size() == bits)
      return e.arg(0);
    return e.extract(bits - 1, 0);
  }
  static z3::expr zext(const z3::expr &e, unsigned width);
  static z3::expr sext(const z3::expr &e, unsigned width);
  // 1 bit -> Boolean and back.
  z3::expr isSet(const z3::expr &bit1) { return bit1 == bv(1, 1); }
  z3::expr bit(const z3::expr &b) { return z3::ite(b, bv(1, 1), bv(0, 1)); }

  // Floats: sorts by width (32 or 64), conversions from and to IEEE bit patterns.
  z3::sort floatSort(unsigned width);
  z3::expr fromBits(const z3::expr &bits);                // bits of width 32 or 64
  z3::sort floatSort(unsigned expBits, unsigned sigBits); // sigBits counts the hidden bit
  z3::expr fromBits(const z3::expr &bits, const z3::sort &s);
  z3::expr floatVal(double v, const z3::sort &s);
  z3::expr fpDiv(Rounding r, const z3::expr &a, const z3::expr &b);
  z3::expr fpSqrt(Rounding r, const z3::expr &a);
  z3::expr fpConvert(Rounding r, const z3::expr &a, const z3::sort &to); // between formats
  static z3::expr toBits(const z3::expr &fp) { return fp.mk_to_ieee_bv(); }
  z3::expr floatVal(double v, unsigned width);
  z3::expr rm(Rounding r);
  z3::expr fpAdd(Rounding r, const z3::expr &a, const z3::expr &b);
  z3::expr fpMul(Rounding r, const z3::expr &a, const z3::expr &b);
  z3::expr fpFma(Rounding r, const z3::expr &a, const z3::expr &b, const z3::expr &c);
  z3::expr fpRoundToIntegral(Rounding r, const z3::expr &x);
  // Exact conversion of an integral float in range to a bit-vector of `width` bits.
  z3::expr fpToSigned(const z3::expr &x, unsigned width);
  z3::expr fpToUnsigned(const z3::expr &x, unsigned width);
  // A signed or unsigned bit-vector rounded to a float of `width` bits.
  z3::expr intToFp(Rounding r, const z3::expr &bv, bool isSigned, unsigned width);
  z3::expr intToFp(Rounding r, const z3::expr &bv, bool isSigned, const z3::sort &to);
  z3::expr fpLt(const z3::expr &a, const z3::expr &b);
  z3::expr fpEq(const z3::expr &a, const z3::expr &b);

  // Values of ground terms (no free constants): simplified to a numeral.
  uint64_t valueOf(const z3::expr &ground);
  bool truthOf(const z3::expr &ground);

  // Is `claim` true for every value of its free constants? Invalid: the shown
  // terms' values in a falsifying model. `timeoutMs` = 0: no limit.
  Validity prove(const z3::expr &claim, const Shown &shown, unsigned timeoutMs = 60000);
  // Is `formula` satisfiable? Returns the shown terms' values in a model if so.
  std::optional<std::vector<std::pair<std::string, std::string>>>
  findModel(const z3::expr &formula, const Shown &shown, unsigned timeoutMs = 60000);

private:
  z3::context ctx_;
};

// "0x1f" for bit-vectors, "true"/"false" for Booleans, the numeral otherwise.
std::string formatValue(const z3::expr &value);

} // namespace ori::verify
