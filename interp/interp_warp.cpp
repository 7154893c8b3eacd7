// The warp-level instructions (docs/interpreter.md, "Warp-level
// instructions"): each reads its sources in every executing lane before any
// lane writes, so a destination that is also a source reads the old values.
// A lane that does not execute the instruction (inactive, or its guard false)
// takes no part: VOTE and REDUX reduce over the executing lanes only, and a
// SHFL or MATCH never reads an inactive lane (PTX leaves such a result
// undefined; here SHFL gives the lane its own value).
#include <fmt/format.h>

#include <array>
#include <bit>

#include "interp/interp_impl.h"

namespace ori::interp_detail {
namespace {

uint32_t lane0(uint32_t mask) { return uint32_t(std::countr_zero(mask)); }

// VOTE.ALL/ANY/EQ Rd, Pd, Pa: Rd gets the ballot (the executing lanes whose a is true),
// Pd whether a holds in all of them, in any, or is the same in all.
void vote(Machine &m, const Instr &in, Thread *lanes, uint32_t exec) {
  auto mode = modOf(in, ModGroup::VoteOp);
  if (!mode)
    malformed(fmt::format("VOTE at line {} needs .ALL, .ANY or .EQ", in.loc.line));
  uint32_t ballot = 0;
  for (uint32_t k = exec; k; k &= k - 1) {
    m.th = &lanes[lane0(k)];
    if (m.readPred(in, 0))
      ballot |= uint32_t(1) << lane0(k);
  }
  bool p = *mode == Mod::ALL   ? ballot == exec
           : *mode == Mod::ANY ? ballot != 0
                               : (ballot == 0 || ballot == exec);
  for (uint32_t k = exec; k; k &= k - 1) {
    m.th = &lanes[lane0(k)];
    m.writeInt(in, 0, ballot, 32);
    m.writePred(in, 1, p);
  }
}

// SHFL.IDX/UP/DOWN/BFLY Pd, Rd, Ra, b, c, as PTX's shfl.sync defines the source lane j:
// c holds the clamp in bits 4..0 and the segment mask in bits 12..8; a j outside the
// segment's bounds makes Pd false and the lane reads its own a.
void shfl(Machine &m, const Instr &in, Thread *lanes, uint32_t exec) {
  auto mode = modOf(in, ModGroup::ShflOp);
  if (!mode)
    malformed(fmt::format("SHFL at line {} needs .IDX, .UP, .DOWN or .BFLY", in.loc.line));
  std::array<uint32_t, 32> a{}, src{};
  std::array<bool, 32> inRange{};
  for (uint32_t k = exec; k; k &= k - 1) {
    uint32_t lane = lane0(k);
    m.th = &lanes[lane];
    a[lane] = uint32_t(m.readInt(in, 0, 32));
    int32_t b = int32_t(m.readInt(in, 1, 32) & 0x1f);
    uint32_t c = uint32_t(m.readInt(in, 2, 32));
    int32_t clamp = int32_t(c & 0x1f), seg = int32_t((c >> 8) & 0x1f);
    int32_t maxLane = (int32_t(lane) & seg) | (clamp & ~seg), minLane = int32_t(lane) & seg;
    int32_t j = 0;
    bool p = false;
    switch (*mode) {
    case Mod::UP:
      j = int32_t(lane) - b;
      p = j >= maxLane;
      break;
    case Mod::DOWN:
      j = int32_t(lane) + b;
      p = j <= maxLane;
      break;
    case Mod::BFLY:
      j = int32_t(lane) ^ b;
      p = j <= maxLane;
      break;
    default:
      j = minLane | (b & ~seg);
      p = j <= maxLane;
      break; // IDX
    }
    src[lane] = p ? uint32_t(j) : lane;
    inRange[lane] = p;
  }
  for (uint32_t k = exec; k; k &= k - 1) {
    uint32_t lane = lane0(k), j = src[lane];
    m.th = &lanes[lane];
    m.writePred(in, 0, inRange[lane]);
    m.writeInt(in, 1, (exec >> j) & 1 ? a[j] : a[lane], 32);
  }
}

// MATCH.ANY Rd, PT, Ra: the executing lanes whose Ra equals this lane's. MATCH.ALL Rd, Pd,
// Ra: the executing lanes when all their Ra are equal (Pd true), else 0 (Pd false).
void match(Machine &m, const Instr &in, Thread *lanes, uint32_t exec) {
  bool all = in.has(Mod::ALL);
  if (!all && !in.has(Mod::ANY))
    malformed(fmt::format("MATCH at line {} needs .ANY or .ALL", in.loc.line));
  unsigned bits = in.has(Mod::U64) ? 64 : 32;
  std::array<uint64_t, 32> a{};
  for (uint32_t k = exec; k; k &= k - 1) {
    m.th = &lanes[lane0(k)];
    a[lane0(k)] = m.readInt(in, 0, bits);
  }
  bool same = true;
  for (uint32_t k = exec; k; k &= k - 1)
    same = same && a[lane0(k)] == a[lane0(exec)];
  for (uint32_t k = exec; k; k &= k - 1) {
    uint32_t lane = lane0(k), peers = 0;
    for (uint32_t j = exec; j; j &= j - 1)
      if (a[lane0(j)] == a[lane])
        peers |= uint32_t(1) << lane0(j);
    m.th = &lanes[lane];
    m.writeInt(in, 0, all ? (same ? exec : 0) : peers, 32);
    m.writePred(in, 1, all ? same : true);
  }
}

// REDUX.SUM/MIN/MAX/AND/OR/XOR Rd, Ra: the operation over the executing lanes' 32-bit Ra
// (SUM wraps; MIN and MAX unsigned unless .S32), given to each of them.
void redux(Machine &m, const Instr &in, Thread *lanes, uint32_t exec) {
  std::optional<Mod> op =
      in.has(Mod::SUM) ? std::optional<Mod>(Mod::SUM) : modOf(in, ModGroup::AtomOp);
  if (!op)
    malformed(fmt::format("REDUX at line {} needs an operation", in.loc.line));
  bool isSigned = in.has(Mod::S32);
  uint32_t acc = 0;
  bool first = true;
  for (uint32_t k = exec; k; k &= k - 1) {
    m.th = &lanes[lane0(k)];
    uint32_t v = uint32_t(m.readInt(in, 0, 32));
    auto less = [&](uint32_t x, uint32_t y) { return isSigned ? int32_t(x) < int32_t(y) : x < y; };
    switch (*op) {
    case Mod::SUM:
      acc += v;
      break;
    case Mod::MIN:
      acc = first || less(v, acc) ? v : acc;
      break;
    case Mod::MAX:
      acc = first || less(acc, v) ? v : acc;
      break;
    case Mod::ATOM_AND:
      acc = first ? v : acc & v;
      break;
    case Mod::ATOM_OR:
      acc |= v;
      break;
    case Mod::ATOM_XOR:
      acc ^= v;
      break;
    default:
      malformed(fmt::format("REDUX at line {}: .{} is not a reduction", in.loc.line, modText(*op)));
    }
    first = false;
  }
  for (uint32_t k = exec; k; k &= k - 1) {
    m.th = &lanes[lane0(k)];
    m.writeInt(in, 0, acc, 32);
  }
}

// ELECT Rd, Pd, a: Rd = the lowest lane of the member mask a (0xffffffff for none), Pd
// whether that is this lane. PTX elect.sync elects one lane of the mask and requires every
// lane of it to execute the instruction (and the executing lane to be in it): the lowest is
// the choice here, deterministic as the ISA asks, and a function of the lane's own a.
void elect(Machine &m, const Instr &in, Thread *lanes, uint32_t exec) {
  for (uint32_t k = exec; k; k &= k - 1) {
    const uint32_t lane = lane0(k);
    m.th = &lanes[lane];
    const uint32_t mask = uint32_t(m.readInt(in, 0, 32));
    const uint32_t leader = mask ? lane0(mask) : 0xffffffffu;
    m.writeInt(in, 0, leader, 32);
    m.writePred(in, 1, leader == lane);
  }
}

// PTX's .sync.aligned: every lane of the warp executes the instruction together. A lane
// that has exited, is inactive or has its guard false leaves the others without it: the
// ISA's undefined behaviour is a fault here, never a value.
void requireWholeWarp(const Instr &in, uint32_t exec) {
  if (exec != 0xffffffffu)
    fault(0, fmt::format("{} at line {} needs all 32 lanes of the warp (.sync.aligned); lanes "
                         "0x{:08x} execute it",
                         mnemonic(in), in.loc.line, exec));
}

} // namespace

bool execWarpLevel(Machine &m, const Instr &in, Thread *lanes, uint32_t exec) {
  switch (in.op) {
  case Opcode::VOTE:
    vote(m, in, lanes, exec);
    return true;
  case Opcode::SHFL:
    shfl(m, in, lanes, exec);
    return true;
  case Opcode::MATCH:
    match(m, in, lanes, exec);
    return true;
  case Opcode::REDUX:
    redux(m, in, lanes, exec);
    return true;
  case Opcode::ELECT:
    elect(m, in, lanes, exec);
    return true;
  case Opcode::HMMA:
  case Opcode::IMMA:
  case Opcode::DMMA:
  case Opcode::BMMA:
    requireWholeWarp(in, exec);
    execMma(m, in, lanes);
    return true;
  case Opcode::LDSM:
  case Opcode::STSM:
  case Opcode::MOVM:
    requireWholeWarp(in, exec);
    execMatrixMove(m, in, lanes);
    return true;
  default:
    return false;
  }
}

} // namespace ori::interp_detail
