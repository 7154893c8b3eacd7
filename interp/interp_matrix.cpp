// The warp matrix moves LDSM, STSM and MOVM (PTX ldmatrix, stmatrix, movmatrix .m8n8 .b16;
// PTX ISA 9.0, 9.7.14.5.15 to 9.7.14.5.17; docs/interpreter.md, "Matrix instructions").
// An 8x8 matrix of 16-bit elements is held by the warp with lane l holding row l/4, columns
// 2(l%4) (low half) and 2(l%4)+1 (high half) in one register; matrix j of LDSM/STSM .2/.4
// is in the j-th register. Its rows in shared memory start at the addresses of lanes 8j to
// 8j+7 (16 bytes each, 16-byte aligned). .MT88 moves the transpose: lane l's register holds
// column l/4, rows 2(l%4) and 2(l%4)+1.
#include <fmt/format.h>

#include <array>

#include "interp/interp_impl.h"
#include "ir/mma.h"

namespace ori::interp_detail {

Location Machine::sharedLocation(const Instr &in, size_t i) const {
  return location(in, i, OpSpace::Shared);
}

namespace {

using Matrix = std::array<std::array<uint16_t, 8>, 8>; // [row][column]

// The register value lane `lane` holds of matrix x (transposed with .MT88).
uint32_t fragment(const Matrix &x, unsigned lane, bool trans) {
  const unsigned g = lane >> 2, c = 2 * (lane & 3);
  return trans ? uint32_t(x[c][g]) | uint32_t(x[c + 1][g]) << 16
               : uint32_t(x[g][c]) | uint32_t(x[g][c + 1]) << 16;
}

void place(Matrix &x, unsigned lane, bool trans, uint32_t v) {
  const unsigned g = lane >> 2, c = 2 * (lane & 3);
  (trans ? x[c][g] : x[g][c]) = uint16_t(v);
  (trans ? x[c + 1][g] : x[g][c + 1]) = uint16_t(v >> 16);
}

// The shared-memory address of row r of matrix j (lane 8j + r's address operand).
Location rowAddress(Machine &m, const Instr &in, Thread *lanes, unsigned j, unsigned r) {
  m.th = &lanes[8 * j + r];
  Location l = m.sharedLocation(in, 0);
  if (l.addr % 16 != 0)
    fault(l.shown,
          fmt::format("{} at line {}: row {} of matrix {} at 0x{:x} is not 16-byte aligned",
                      mnemonic(in), in.loc.line, r, j, l.shown));
  return l;
}

} // namespace

void execMatrixMove(Machine &m, const Instr &in, Thread *lanes) {
  const bool trans = in.has(Mod::MT88);
  if (in.op == Opcode::MOVM) {
    Matrix x{};
    for (unsigned lane = 0; lane < 32; ++lane) {
      m.th = &lanes[lane];
      place(x, lane, false, uint32_t(m.readInt(in, 0, 32)));
    }
    for (unsigned lane = 0; lane < 32; ++lane) {
      m.th = &lanes[lane];
      m.writeInt(in, 0, fragment(x, lane, true), 32);
    }
    return;
  }
  if (!trans && !in.has(Mod::M88))
    malformed(fmt::format("{} at line {} needs .M88 or .MT88", mnemonic(in), in.loc.line));
  const unsigned n = matrixCount(in.mods);
  std::array<Matrix, 4> xs{};
  if (in.op == Opcode::LDSM) {
    if (in.dsts.size() != n)
      malformed(
          fmt::format("{} at line {} has the wrong number of operands", mnemonic(in), in.loc.line));
    for (unsigned j = 0; j < n; ++j)
      for (unsigned r = 0; r < 8; ++r) {
        Location l = rowAddress(m, in, lanes, j, r);
        for (unsigned half = 0; half < 2; ++half) {
          const uint64_t v = m.load(Location{l.space, l.addr + 8 * half, l.shown + 8 * half}, 8);
          for (unsigned c = 0; c < 4; ++c)
            xs[j][r][4 * half + c] = uint16_t(v >> (16 * c));
        }
      }
    for (unsigned lane = 0; lane < 32; ++lane) {
      m.th = &lanes[lane];
      for (unsigned j = 0; j < n; ++j)
        m.writeInt(in, j, fragment(xs[j], lane, trans), 32);
    }
    return;
  }
  // STSM
  if (in.srcs.size() != 1 + n)
    malformed(
        fmt::format("{} at line {} has the wrong number of operands", mnemonic(in), in.loc.line));
  for (unsigned lane = 0; lane < 32; ++lane) {
    m.th = &lanes[lane];
    for (unsigned j = 0; j < n; ++j)
      place(xs[j], lane, trans, uint32_t(m.readInt(in, 1 + j, 32)));
  }
  for (unsigned j = 0; j < n; ++j)
    for (unsigned r = 0; r < 8; ++r) {
      Location l = rowAddress(m, in, lanes, j, r);
      for (unsigned half = 0; half < 2; ++half) {
        uint64_t v = 0;
        for (unsigned c = 0; c < 4; ++c)
          v |= uint64_t(xs[j][r][4 * half + c]) << (16 * c);
        m.store(Location{l.space, l.addr + 8 * half, l.shown + 8 * half}, 8, v);
      }
    }
}

} // namespace ori::interp_detail
