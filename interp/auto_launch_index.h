// Index expressions of automatic launches (interp/auto_launch.cpp; docs/interpreter.md,
// "Automatic launches"): where a kernel addresses a module variable at an index that an
// integer parameter gives, `&var + scale * param + disp`, found by following each register's
// value as a linear form over one parameter slot. Internal to oriopt_interp.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "interp/auto_launch.h"
#include "interp/interp.h"
#include "ir/ir.h"

namespace ori::auto_detail {

struct IndexUse {
  const Variable *var = nullptr; // the module variable addressed
  uint64_t paramOffset = 0;    // the parameter slot (its offset in constant bank 0) that indexes it
  int64_t scale = 0, disp = 0; // the access is at var + scale * value + disp
  unsigned width = 4;          // bytes accessed
  bool bound = false;          // a load whose value is compared (an ISETP source): a count
};

// Every access of the kernel (not its callees) at such an address, with scale > 0.
std::vector<IndexUse> indexUses(const Module &m, const Function &kernel);

// A polynomial of degree at most 2 over atoms, plus at most one module variable's address:
// `&var + sum coef * a * b + disp`. An atom is a parameter slot (its offset in constant bank
// 0, >= 0) or a special register (sregAtom); a monomial of degree 1 has kNoAtom second.
constexpr int64_t kNoAtom = INT64_MIN;
inline int64_t sregAtom(SpecialReg s) { return -1 - int64_t(s); }
struct Poly {
  const Variable *var = nullptr;
  std::map<std::pair<int64_t, int64_t>, int64_t>
      terms; // (atom, atom or kNoAtom) -> coefficient, none 0
  int64_t disp = 0;
  bool unknown = false;
  friend bool operator==(const Poly &, const Poly &) = default;
};

// Each register's value of a function as a Poly, to a fixed point, flow-insensitively: MOV and
// LDC of a parameter slot, S2R of a thread or CTA index or size, MOV of a .global/.const
// variable's address; IADD3 (negated sources too), IMAD and IMAD.WIDE (not .HI) when the
// product stays of degree 2 and has no address, SHL and LEA by constants, LOP3 `not` (-a - 1).
// Anything else, or two definitions with different values, make a register unknown (nullopt
// from of()). Sign and zero extensions and 32-bit wrap-around are ignored: the forms serve to
// choose launch parameters, never to run anything.
class PolyFlow {
public:
  PolyFlow(const Module &m, const Function &f);
  // The operand's value (a register, immediate, bank-0 slot, special register or symbol), or
  // nullopt when unknown.
  std::optional<Poly> of(const Operand &o) const;
  // The address of a memory operand [R + sym + imm], or nullopt.
  std::optional<Poly> address(const Operand &mem) const;

private:
  std::optional<Poly> eval(const Instr &in) const;
  const Module &m_;
  const Function &f_;
  std::map<Reg, Poly> forms_;
};

// The smallest and largest value of p's terms plus disp (not its variable) when each atom
// takes any value in range(atom) (inclusive bounds; nullopt: unbounded). nullopt when some
// atom is unbounded or a bound leaves 62 bits.
std::optional<std::pair<int64_t, int64_t>>
polyRange(const Poly &p,
          const std::function<std::optional<std::pair<int64_t, int64_t>>(int64_t)> &range);

// The range of a special register in a launch of `threads` x `ctas` (tid, ctaid, ntid, nctaid,
// laneid), or nullopt.
std::optional<std::pair<int64_t, int64_t>> sregRange(int64_t atom, const Dim3 &threads,
                                                     const Dim3 &ctas);

// Bytes a load or store accesses (1, 2, 4 or 8: its width modifier).
unsigned accessWidth(const Instr &in);

// Rule 6 (auto_launch.h, interp/auto_launch_products.cpp): products of integer parameters in a
// buffer's address. `out` holds the parameters' bindings, in order; `chosen` the integer ones
// by bank offset (both updated).
void boundProducts(const Module &m, const Function &kernel, const AutoLaunchOptions &o,
                   std::vector<AutoBinding> &out, std::map<uint64_t, uint64_t> &chosen);

// Rule 6b: products of integer counts (parameters and fields of .const variables) in a shared
// address, by where the factors' values come from. `out`: every binding (parameters and
// variables), whose integer values it lowers.
void boundCountProducts(const Module &m, const Function &kernel, const AutoLaunchOptions &o,
                        std::vector<AutoBinding> &out);

} // namespace ori::auto_detail
