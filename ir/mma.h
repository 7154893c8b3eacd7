// The warp-level matrix instructions' shapes (ir/opcodes.def): what the modifiers of an
// HMMA, IMMA, DMMA or BMMA (PTX mma.sync.aligned) say about its operands, and how many
// matrices an LDSM or STSM moves. The lowering, the .ori checks (checkShape), the
// interpreter and the emitter all read them here.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "ir/opcodes.h"

namespace ori {

// The element type of a matrix.
enum class MmaElem : uint8_t { F16, BF16, TF32, E4M3, E5M2, F32, F64, S32, U8, S8, U4, S4, B1 };

unsigned mmaElemBits(MmaElem e);    // 16, 32, 8, 4, 1, 64
const char *mmaElemName(MmaElem e); // the PTX type: "f16", "tf32", "e4m3", "s32", "b1"

// One PTX mma.sync form: D (m x n) = A (m x k) * B (k x n) + C, each fragment spread over the
// warp as the PTX ISA's "Matrix Fragments for mma.mMnNkK" sections lay it out.
struct MmaForm {
  unsigned m = 0, n = 0, k = 0;
  MmaElem a = MmaElem::F16, b = MmaElem::F16, c = MmaElem::F32, d = MmaElem::F32;
  // Registers per lane (a binary64 element is one 64-bit register; narrower elements pack
  // into 32-bit registers, the lowest index in the lowest bits).
  unsigned aRegs = 0, bRegs = 0, cRegs = 0, dRegs = 0;
  // m8n8k4 with .f16 inputs: four independent 8x8x4 products, computation q by lanes 4q..4q+3
  // and 4q+16..4q+19; the only shape with layouts other than A row-major, B column-major.
  bool quad = false;
  bool aColMajor = false, bRowMajor = false;
  bool satfinite = false; // IMMA .SAT
  bool bitAnd = false;    // BMMA: .AND (else .XOR)
};

// The form HMMA/IMMA/DMMA/BMMA's modifiers name (a form ptxas 13.0 accepts for sm_90), or
// a message saying what is missing or wrong.
std::variant<MmaForm, std::string> mmaForm(Opcode op, const ModSet &mods);
inline bool isMma(Opcode op) {
  return op == Opcode::HMMA || op == Opcode::IMMA || op == Opcode::DMMA || op == Opcode::BMMA;
}
// Where element i of a lane's fragment of A, B or C/D sits (PTX ISA 9.0, 9.7.14.5.1 to
// 9.7.14.5.13, "Matrix Fragments for mma.mMnNkK"): product q (0 but for m8n8k4 .f16), row and
// column in that matrix (A: m x k, B: k x n, C and D: m x n). Element i of a fragment is in
// register i / (32 / bits) at bit (i % (32 / bits)) * bits (a binary64 element: register i).
enum class MmaOperand : uint8_t { A, B, C, D };
struct MmaCoord {
  unsigned q = 0, row = 0, col = 0;
};
MmaCoord mmaCoord(const MmaForm &f, MmaOperand which, unsigned lane, unsigned i);
// Elements of the operand per lane.
unsigned mmaElems(const MmaForm &f, MmaOperand which);

// Every modifier set of `op` that names a form (mmaForm accepts it), in a fixed order:
// HMMA's shapes x inputs x accumulators (and m8n8k4's layouts and .CF16), IMMA's shapes x A x
// B types x .SAT, DMMA's shapes x roundings (none, .RN .RZ .RM .RP), BMMA's shapes x .AND/.XOR.
std::vector<ModSet> mmaForms(Opcode op);

// The .ori spelling of the shape: "16816".
std::string mmaShapeText(const MmaForm &f);

// LDSM/STSM: how many 8x8 matrices (.2, .4; none: one).
inline unsigned matrixCount(const ModSet &m) {
  return m.test(Mod::X4) ? 4 : m.test(Mod::X2) ? 2 : 1;
}

} // namespace ori
