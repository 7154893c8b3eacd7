// The truth-table (LUT) algebra of LOP3 and PLOP3 (PTX lop3 convention: the
// LUT of F(a, b, c) is F(0xF0, 0xCC, 0xAA), and bit i of the result is bit
// (a_i << 2 | b_i << 1 | c_i) of the LUT).
//
// Every function is written once over a "Bits" type: the passes use it on
// uint8_t LUTs, and verify/ instantiates the very same code on Z3
// bit-vectors to prove it for all LUTs (the lop3.* obligations in
// docs/verifier.md). A Bits type needs &, |, ^ and a LutOps specialisation.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>

namespace ori::lut {

// The canonical input tables: the LUTs of "a", "b" and "c" themselves.
inline constexpr uint8_t kA = 0xF0, kB = 0xCC, kC = 0xAA;
inline constexpr std::array<uint8_t, 3> kInputs = {kA, kB, kC};

// What the algebra needs of a Bits type besides &, | and ^.
template <class Bits, class = void> struct LutOps;

// Unsigned integers of any width: the LUT, inputs and results are plain values.
template <class U> struct LutOps<U, std::enable_if_t<std::is_unsigned_v<U>>> {
  static U complement(const U &x) { return U(~x); }
  // Bit i of `lut` copied into every bit of a value of the same width as `like`.
  static U spread(const U &lut, unsigned i, const U &) {
    return ((lut >> i) & 1) ? U(~U(0)) : U(0);
  }
  // An 8-bit constant in the type of `like`.
  static U constant(uint8_t v, const U &) { return U(v); }
};

// LOP3 on arbitrary Bits: bit j of the result is bit (a_j<<2 | b_j<<1 | c_j)
// of `lut` (the union of the minterms the LUT selects).
template <class Bits> Bits apply(const Bits &lut, const Bits &a, const Bits &b, const Bits &c) {
  using Ops = LutOps<Bits>;
  Bits na = Ops::complement(a), nb = Ops::complement(b), nc = Ops::complement(c);
  Bits r = Ops::spread(lut, 0, a) & na & nb & nc;
  for (unsigned i = 1; i < 8; ++i)
    r = r | (Ops::spread(lut, i, a) & ((i & 4) ? a : na) & ((i & 2) ? b : nb) & ((i & 1) ? c : nc));
  return r;
}

// The LUT of outer(x, y, z) where x, y, z are themselves LOP3s of the same
// a, b, c with LUTs lx, ly, lz: apply the outer LUT to the inner LUTs (each
// inner LUT is the inner function's value on the canonical inputs).
template <class Bits>
Bits compose(const Bits &outer, const Bits &lx, const Bits &ly, const Bits &lz) {
  return apply(outer, lx, ly, lz);
}

// The LUT of !F.
template <class Bits> Bits negateOutput(const Bits &l) { return LutOps<Bits>::complement(l); }

// The LUT of F with input k (0 = a, 1 = b, 2 = c) complemented: compose with
// the complemented canonical table in slot k.
template <class Bits> Bits negateInput(const Bits &l, unsigned k) {
  using Ops = LutOps<Bits>;
  std::array<Bits, 3> in = {Ops::constant(kA, l), Ops::constant(kB, l), Ops::constant(kC, l)};
  in[k] = Ops::complement(in[k]);
  return compose(l, in[0], in[1], in[2]);
}

// The LUT of G(a, b, c) = F(in[p[0]], in[p[1]], in[p[2]]) where in = (a, b, c):
// slot k of F reads input p[k].
template <class Bits> Bits permute(const Bits &l, const std::array<unsigned, 3> &p) {
  using Ops = LutOps<Bits>;
  return compose(l, Ops::constant(kInputs[p[0]], l), Ops::constant(kInputs[p[1]], l),
                 Ops::constant(kInputs[p[2]], l));
}

// The LUT of F with input k fixed to a constant: RZ / !PT (ones = false) or
// all-ones / PT (ones = true). The result no longer depends on input k.
template <class Bits> Bits foldConstant(const Bits &l, unsigned k, bool ones) {
  using Ops = LutOps<Bits>;
  std::array<Bits, 3> in = {Ops::constant(kA, l), Ops::constant(kB, l), Ops::constant(kC, l)};
  in[k] = Ops::constant(ones ? 0xFF : 0x00, l);
  return compose(l, in[0], in[1], in[2]);
}

} // namespace ori::lut
