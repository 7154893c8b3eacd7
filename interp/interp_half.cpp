// Packed binary16/bfloat16 opcodes of the interpreter besides the arithmetic (which is in
// interp_float.cpp): HMNMX2 (PTX min/max on .f16 .f16x2 .bf16 .bf16x2, ISA 9.7.4.7/8), HSETP2
// and HSET2 (setp/set, ISA 9.7.7.1/2). Each works lane by lane on the low 32 bits of its
// sources: lane 0 is bits 15..0, lane 1 bits 31..16.
#include <fmt/format.h>

#include "interp/interp_float_impl.h"
#include "ir/float_format.h"

namespace ori::interp_detail {
namespace {

uint64_t lane(uint64_t v, unsigned i) { return (v >> (16 * i)) & 0xffff; }

} // namespace

bool Machine::execHalf(const Instr &in) {
  switch (in.op) {
  case Opcode::HMNMX2: {
    fp::Format f = in.has(Mod::BF16) ? fp::kBFloat16 : fp::kHalf;
    bool ftz = in.has(Mod::FTZ);
    uint64_t a = readInt(in, 0, 32), b = readInt(in, 1, 32);
    bool takeMin = readPred(in, 2);
    uint64_t r = 0;
    for (unsigned i = 0; i < 2; ++i) {
      uint64_t x = lane(a, i), y = lane(b, i);
      if (ftz) {
        x = fp::flush(x, f);
        y = fp::flush(y, f);
      }
      uint64_t m =
          minMaxBits(x, y, takeMin, in.has(Mod::NANMM), in.has(Mod::XORSIGN), f, kCanonicalNaN16);
      r |= (ftz ? fp::flush(m, f) : m) << (16 * i);
    }
    writeInt(in, 0, r, 32);
    return true;
  }
  case Opcode::HSETP2:
  case Opcode::HSET2: {
    auto cmp = modOf(in, ModGroup::Cmp);
    if (!cmp)
      unsupported(fmt::format("{} without a comparison (.LT, .EQU, ...)", in.info().name));
    fp::Format f = in.has(Mod::BF16) ? fp::kBFloat16 : fp::kHalf;
    bool ftz = in.has(Mod::FTZ);
    uint64_t a = readInt(in, 0, 32), b = readInt(in, 1, 32);
    bool c = readPred(in, 2);
    bool r[2];
    for (unsigned i = 0; i < 2; ++i) {
      uint64_t x = lane(a, i), y = lane(b, i);
      if (ftz) {
        x = fp::flush(x, f);
        y = fp::flush(y, f);
      }
      r[i] = combinePredicate(in, floatCompare(*cmp, fp::decode(x, f), fp::decode(y, f)), c);
    }
    if (in.op == Opcode::HSETP2) {
      writePred(in, 0, r[0]);
      writePred(in, 1, r[1]);
      return true;
    }
    uint64_t one =
        in.has(Mod::BFV) ? fp::encode(1.0, f, fp::Round::NearestEven, kCanonicalNaN16) : 0xffff;
    writeInt(in, 0, (r[0] ? one : 0) | (r[1] ? one : 0) << 16, 32);
    return true;
  }
  default:
    return false;
  }
}

} // namespace ori::interp_detail
