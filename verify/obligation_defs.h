// How obligations are defined (internal to verify/): a name, a statement,
// the expected outcome, and a builder that states the claim as a Z3 formula
// plus the terms a counterexample shows.
#pragma once

#include <functional>
#include <vector>

#include "verify/obligations.h"
#include "verify/smt.h"
#include "verify/switch_dispatch.h"

namespace ori::verify {

struct Claim {
  z3::expr holds; // must be true for every value of its free constants
  Shown shown;    // printed when it is not
  // If not empty: `holds` is their conjunction, and each is proved on its own
  // (per result bit for bitwise identities: many small queries are much
  // faster than one query with a 32-way disjunction in its negation).
  std::vector<z3::expr> parts = {};
};

// lhs == rhs on bit-vectors, as one part per bit.
Claim bitwiseEqual(const z3::expr &lhs, const z3::expr &rhs, Shown shown);

struct ObligationDef {
  ObligationInfo info;
  std::function<Claim(Smt &)> build;
};

// By family: verify/obligations_lop3.cpp, obligations_spec003.cpp, obligations_switch.cpp.
std::vector<ObligationDef> lop3Obligations();
std::vector<ObligationDef> spec002Obligations();
std::vector<ObligationDef>
evaluateObligations(); // verify/obligations_evaluate.cpp: --fold=evaluate
std::vector<ObligationDef> spec003Obligations();
std::vector<ObligationDef> switchObligations();

// The LOP3 and PLOP3 opcode models (verify/opcode_model.h) on symbolic
// operands: 32-bit a, b, c and an 8-bit LUT; Boolean p, q, r with `!` flags.
z3::expr lop3Term(Smt &smt, const z3::expr &a, const z3::expr &b, const z3::expr &c,
                  const z3::expr &lut);
z3::expr plop3Term(Smt &smt, const z3::expr &p, const z3::expr &q, const z3::expr &r,
                   const z3::expr &lut, bool notP = false, bool notQ = false, bool notR = false);

// Both programs send the symbolic selector to the same target (verify/switch_dispatch.cpp).
Claim dispatchClaim(Smt &smt, const DispatchProgram &reference, const DispatchProgram &candidate);

} // namespace ori::verify
