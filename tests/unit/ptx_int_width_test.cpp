// Integers of every width and the multi-operation integer instructions
// (ptx/lower_int.cpp): each case is one PTX computation in a kernel whose
// inputs are the parameters a, b, c and whose outputs are %r0 and %rd9. It is
// lowered and run, and run again after --emit=ptx (the emitted PTX must also
// assemble). Every expected value is worked out by hand in the comment beside
// it, from the PTX ISA's definition of the instruction.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "ptx_kernel_runner.h"

namespace {

using ptxtest::Case;
class IntWidth : public testing::TestWithParam<Case> {};
TEST_P(IntWidth, RunsAsThePtxIsaSays) { ptxtest::checkCase(GetParam()); }

// ---------------------------------------------------------------- 16-bit arithmetic
const Case kArith16[] = {
    // 0x7fff + 1 = 0x8000 (-32768): wraps at 16 bits; cvt.s32.s16 sign-extends it.
    {"add.s16 %h0, %h1, %h2; cvt.s32.s16 %r0, %h0;", 0x7fff, 1, 0, 0xffff8000u},
    // 0xffff + 1 = 0x10000, of which 16 bits are kept: 0.
    {"add.u16 %h0, %h1, %h2; cvt.u32.u16 %r0, %h0;", 0xffff, 1, 0, 0},
    // 0 - 1 = 0xffff.
    {"sub.u16 %h0, %h1, %h2; cvt.u32.u16 %r0, %h0;", 0, 1, 0, 0xffff},
    // An immediate -1 is 0xffff at 16 bits: 5 + 0xffff = 4 (mod 2^16).
    {"add.s16 %h0, %h1, -1; cvt.u32.u16 %r0, %h0;", 5, 0, 0, 4},
    // 0x100 * 0x100 = 0x10000: the low 16 bits are 0.
    {"mul.lo.s16 %h0, %h1, %h2; cvt.u32.u16 %r0, %h0;", 0x100, 0x100, 0, 0},
    // -2 * 3 = -6 = 0xfffffffa as 32 bits: the high half is 0xffff.
    {"mul.hi.s16 %h0, %h1, %h2; cvt.u32.u16 %r0, %h0;", 0xfffe, 3, 0, 0xffff},
    // 0xffff * 0xffff = 0xfffe0001: high half 0xfffe.
    {"mul.hi.u16 %h0, %h1, %h2; cvt.u32.u16 %r0, %h0;", 0xffff, 0xffff, 0, 0xfffe},
    // mul.wide.s16: -2 * 3 = -6 as 32 bits.
    {"mul.wide.s16 %r0, %h1, %h2;", 0xfffe, 3, 0, 0xfffffffau},
    // mul.wide.u16: 0xffff * 0xffff = 0xfffe0001.
    {"mul.wide.u16 %r0, %h1, %h2;", 0xffff, 0xffff, 0, 0xfffe0001u},
    // mad.lo.s16: 0x7fff * 2 + 3 = 0x10001: 16 bits keep 1.
    {"mad.lo.s16 %h0, %h1, %h2, %h3; cvt.u32.u16 %r0, %h0;", 0x7fff, 2, 3, 1},
    // shl.b16 by 16: every bit leaves the field: 0. By 15: 1 << 15 = 0x8000.
    {"shl.b16 %h0, %h1, 16; cvt.u32.u16 %r0, %h0;", 1, 0, 0, 0},
    {"shl.b16 %h0, %h1, %r2; cvt.u32.u16 %r0, %h0;", 1, 15, 0, 0x8000},
    // shr.s16 of 0x8000 (-32768) by 20: past the width, the sign fills: 0xffff.
    {"shr.s16 %h0, %h1, %r2; cvt.u32.u16 %r0, %h0;", 0x8000, 20, 0, 0xffff},
    // shr.s16 by 1: -16384 = 0xc000. shr.u16 by 15: 1.
    {"shr.s16 %h0, %h1, 1; cvt.u32.u16 %r0, %h0;", 0x8000, 0, 0, 0xc000},
    {"shr.u16 %h0, %h1, 15; cvt.u32.u16 %r0, %h0;", 0x8000, 0, 0, 1},
    // min.s16(-32768, 5) = -32768; min.u16(0x8000, 5) = 5; max.s16(-1, 0) = 0.
    {"min.s16 %h0, %h1, %h2; cvt.u32.u16 %r0, %h0;", 0x8000, 5, 0, 0x8000},
    {"min.u16 %h0, %h1, %h2; cvt.u32.u16 %r0, %h0;", 0x8000, 5, 0, 5},
    {"max.s16 %h0, %h1, %h2; cvt.u32.u16 %r0, %h0;", 0xffff, 0, 0, 0},
    // abs.s16(-32768) = -32768 (no positive counterpart); abs.s16(-5) = 5; neg.s16(5) = 0xfffb.
    {"abs.s16 %h0, %h1; cvt.u32.u16 %r0, %h0;", 0x8000, 0, 0, 0x8000},
    {"abs.s16 %h0, %h1; cvt.u32.u16 %r0, %h0;", 0xfffb, 0, 0, 5},
    {"neg.s16 %h0, %h1; cvt.u32.u16 %r0, %h0;", 5, 0, 0, 0xfffb},
    // and/or/xor/not on .b16: not 0x00ff = 0xff00 (the upper register bits stay clear).
    {"not.b16 %h0, %h1; cvt.u32.u16 %r0, %h0;", 0x00ff, 0, 0, 0xff00},
    {"or.b16 %h0, %h1, 0x8000; and.b16 %h0, %h0, 0xff0f; xor.b16 %h0, %h0, -1; cvt.u32.u16 %r0, "
     "%h0;",
     0x1234, 0, 0, 0x6dfb}, // 0x1234 | 0x8000 = 0x9234; & 0xff0f = 0x9204; ^ 0xffff = 0x6dfb
    // div/rem on 16 bits: 5 / 0 gives all ones at 16 bits; -32768 / -1 wraps to -32768.
    {"div.u16 %h0, %h1, %h2; cvt.u32.u16 %r0, %h0;", 5, 0, 0, 0xffff},
    {"div.s16 %h0, %h1, %h2; cvt.u32.u16 %r0, %h0;", 0x8000, 0xffff, 0, 0x8000},
    // -7 % 2 = -1 (the remainder takes the dividend's sign).
    {"rem.s16 %h0, %h1, %h2; cvt.s32.s16 %r0, %h0;", 0xfff9, 2, 0, 0xffffffffu},
};
INSTANTIATE_TEST_SUITE_P(Arith16, IntWidth, testing::ValuesIn(kArith16));

// ---------------------------------------------------------------- compares, selects
const Case kCompare[] = {
    // setp.gt.s16: -32768 > 5 is false; setp.gt.u16: 0x8000 > 5 is true.
    {"setp.gt.s16 %p1, %h1, %h2; selp.u32 %r0, 1, 2, %p1;", 0x8000, 5, 0, 2},
    {"setp.gt.u16 %p1, %h1, %h2; selp.u32 %r0, 1, 2, %p1;", 0x8000, 5, 0, 1},
    // setp.eq.s16 with -1: the immediate is 0xffff at 16 bits.
    {"setp.eq.s16 %p1, %h1, -1; selp.u32 %r0, 1, 2, %p1;", 0xffff, 0, 0, 1},
    // setp.lt.s16 with p|q and .and: (-1 < 1) & (0 == 0).
    {"setp.eq.s32 %p3, %r3, 0; setp.lt.and.s16 %p1|%p2, %h1, %h2, %p3; selp.u32 %r0, 1, 2, %p1; "
     "selp.u32 %r4, 4, 8, "
     "%p2; add.u32 %r0, %r0, %r4;",
     0xffff, 1, 0, 1 + 8},
    // setp.hi.s16 is an unsigned order: 0xffff > 1.
    {"setp.hi.s16 %p1, %h1, %h2; selp.u32 %r0, 1, 2, %p1;", 0xffff, 1, 0, 1},
    // selp.b16 and selp.u16 with an immediate: -1 is 0xffff.
    {"setp.ne.u32 %p1, %r3, 0; selp.b16 %h0, %h1, -1, %p1; cvt.u32.u16 %r0, %h0;", 7, 0, 0, 0xffff},
    {"setp.ne.u32 %p1, %r3, 0; selp.u16 %h0, %h1, %h2, %p1; cvt.u32.u16 %r0, %h0;", 7, 9, 1, 7},
    // set: all ones (.u32) or 1.0f (.f32) when the comparison holds, else 0.
    {"set.gt.u32.s32 %r0, %r1, %r2;", 5, 3, 0, 0xffffffffu},
    {"set.gt.u32.s32 %r0, %r1, %r2;", 0xffffffff, 3, 0, 0}, // -1 > 3 is false
    {"set.gt.f32.s32 %f0, %r1, %r2; mov.b32 %r0, %f0;", 5, 3, 0, 0x3f800000u},
    {"set.lt.u32.f32 %r0, %f1, %f2;", 0x7fc00000, 0x3f800000, 0, 0}, // NaN < 1.0 is false
    {"set.ltu.u32.f32 %r0, %f1, %f2;", 0x7fc00000, 0x3f800000, 0, 0xffffffffu}, // unordered: true
    {"setp.eq.s32 %p3, %r3, 1; set.ne.or.u32.u32 %r0, %r1, %r2, %p3;", 4, 4, 1,
     0xffffffffu}, // false | true
    // slct.u32.s32: c >= 0 picks a; slct.u32.f32: -0.0 >= 0 picks a, NaN picks b.
    {"slct.u32.s32 %r0, %r1, %r2, %r3;", 10, 20, 0xffffffff, 20},
    {"slct.u32.s32 %r0, %r1, %r2, %r3;", 10, 20, 0, 10},
    {"slct.u32.f32 %r0, %r1, %r2, %f3;", 10, 20, 0x80000000, 10},
    {"slct.u32.f32 %r0, %r1, %r2, %f3;", 10, 20, 0x7fc00000, 20},
};
INSTANTIATE_TEST_SUITE_P(Compare, IntWidth, testing::ValuesIn(kCompare));

// ---------------------------------------------------------------- votes in a warp of one thread
// A CTA of one thread is a warp of one lane (0): the ballot is bit 0 = the predicate, all/any
// give the predicate, uni is true, activemask is 1.
const Case kVote[] = {
    {"setp.ne.u32 %p1, %r1, 0; vote.sync.ballot.b32 %r0, %p1, 0xffffffff;", 5, 0, 0, 1},
    {"setp.ne.u32 %p1, %r1, 0; vote.sync.ballot.b32 %r0, %p1, 0xffffffff;", 0, 0, 0, 0},
    {"setp.ne.u32 %p1, %r1, 0; vote.sync.all.pred %p2, %p1, 0xffffffff; selp.u32 %r0, 1, 2, %p2;",
     0, 0, 0, 2},
    {"setp.ne.u32 %p1, %r1, 0; vote.sync.any.pred %p2, !%p1, 0xffffffff; selp.u32 %r0, 1, 2, %p2;",
     0, 0, 0, 1},
    {"setp.ne.u32 %p1, %r1, 0; vote.sync.uni.pred %p2, %p1, 0xffffffff; selp.u32 %r0, 1, 2, %p2;",
     7, 0, 0, 1},
    {"activemask.b32 %r0;", 0, 0, 0, 1},
};
INSTANTIATE_TEST_SUITE_P(Vote, IntWidth, testing::ValuesIn(kVote));

TEST(IntWidthVote, SeveralThreadsShareTheWarp) {
  // Five threads are lanes 0-4 of one warp: each sees the same active mask 0b11111 and
  // stores it to out[0] (the same word).
  ptxtest::Kernel k = ptxtest::lowerAndReEmit(ptxtest::caseKernel("activemask.b32 %r0;"));
  ori::RunConfig cfg;
  cfg.threads = 5;
  cfg.params = {{"a", 0}, {"b", 0}, {"c", 0}};
  cfg.buffers["out"] = std::vector<uint8_t>(16, 0);
  ori::RunResult r = ori::runKernel(k.lowered, cfg);
  ASSERT_EQ(int(r.kind), int(ori::RunResult::Kind::Ok)) << r.message;
  EXPECT_EQ(r.buffers["out"][0], 0x1f);
  EXPECT_EQ(r.buffers["out"][1], 0);
}

// ---------------------------------------------------------------- conversions
const Case kConvert[] = {
    // Sign extension of a negative half: 0x8000 -> 0xffff8000 and 0xffffffffffff8000.
    {"cvt.s32.s16 %r0, %h1; cvt.s64.s16 %rd9, %h1;", 0x8000, 0, 0, 0xffff8000u,
     0xffffffffffff8000ull},
    // cvt.u16.u32 truncates; cvt.u32.u16 zero-extends: 0x12345678 -> 0x5678.
    {"cvt.u16.u32 %h0, %r1; cvt.u32.u16 %r0, %h0;", 0x12345678, 0, 0, 0x5678},
    // .sat clamps to the destination's range: -5 -> 0 and 300 -> 255 (u8); 40000 -> 32767 and
    // -40000 -> -32768 (s16); 0x80000000 (u32) -> 0x7fffffff (s32); -1 (s32) -> 0 (u32).
    {"cvt.sat.u8.s32 %h0, %r1; cvt.u32.u16 %r0, %h0;", 0xfffffffb, 0, 0, 0},
    {"cvt.sat.u8.s32 %h0, %r1; cvt.u32.u16 %r0, %h0;", 300, 0, 0, 255},
    {"cvt.sat.s16.s32 %h0, %r1; cvt.s32.s16 %r0, %h0;", 40000, 0, 0, 32767},
    {"cvt.sat.s16.s32 %h0, %r1; cvt.s32.s16 %r0, %h0;", uint32_t(-40000), 0, 0, 0xffff8000u},
    {"cvt.sat.s32.u32 %r0, %r1;", 0x80000000, 0, 0, 0x7fffffff},
    {"cvt.sat.u32.s32 %r0, %r1;", 0xffffffff, 0, 0, 0},
    // 64-bit sources: -1 (s64) saturates to 0 as u32, 2^40 to 0xffffffff.
    {"cvt.sat.u32.s64 %r0, %rd1;", 0xffffffffffffffffull, 0, 0, 0},
    {"cvt.sat.u32.s64 %r0, %rd1;", 0x10000000000ull, 0, 0, 0xffffffffu},
    // cvt.s8.s32 of 0x80: -128, sign-extended into the 16-bit register (0xff80).
    {"cvt.s8.s32 %h0, %r1; cvt.u32.u16 %r0, %h0;", 0x80, 0, 0, 0xff80},
    // cvt.u8.u32 keeps the low byte; cvt.s32.s8 reads it back signed: 0x1f0 -> 0xf0 -> -16.
    {"cvt.u8.u32 %h0, %r1; cvt.s32.s8 %r0, %h0;", 0x1f0, 0, 0, 0xfffffff0u},
    // Packing: {0x1234, 0xabcd} -> 0xabcd1234; and back into halves.
    {"mov.b32 %r0, {%h1, %h2};", 0x1234, 0xabcd, 0, 0xabcd1234u},
    {"mov.b32 {%h4, %h5}, %r1; cvt.u32.u16 %r4, %h4; cvt.u32.u16 %r5, %h5; sub.u32 %r0, %r5, %r4;",
     0x00090004, 0, 0, 5},
    {"mov.b64 %rd9, {%h1, %h2, %h3, %h1};", 0x1111, 0x2222, 0x3333, 0, 0x1111333322221111ull},
    {"mov.b64 {%h4, _, %h5, %h6}, %rd1; cvt.u32.u16 %r0, %h6;", 0x4444333322221111ull, 0, 0,
     0x4444},
};
INSTANTIATE_TEST_SUITE_P(Convert, IntWidth, testing::ValuesIn(kConvert));

// ---------------------------------------------------------------- division
const Case kDivide[] = {
    // Division and remainder by zero give all ones (ptxas's expansion, docs/ptx.md).
    {"div.s32 %r0, %r1, %r2;", 7, 0, 0, 0xffffffffu},
    {"rem.u32 %r0, %r1, %r2;", 7, 0, 0, 0xffffffffu},
    {"div.u64 %rd9, %rd1, %rd2;", 7, 0, 0, 0, 0xffffffffffffffffull},
    // INT_MIN / -1 wraps to INT_MIN; INT_MIN % -1 is 0.
    {"div.s32 %r0, %r1, %r2;", 0x80000000, 0xffffffff, 0, 0x80000000u},
    {"rem.s32 %r0, %r1, %r2;", 0x80000000, 0xffffffff, 0, 0},
    {"div.s64 %rd9, %rd1, %rd2;", 0x8000000000000000ull, 0xffffffffffffffffull, 0, 0,
     0x8000000000000000ull},
    // -7 / 2 = -3 (towards zero), -7 % 2 = -1; 7 % -2 = 1.
    {"div.s32 %r0, %r1, %r2;", uint32_t(-7), 2, 0, uint32_t(-3)},
    {"rem.s32 %r0, %r1, %r2;", uint32_t(-7), 2, 0, 0xffffffffu},
    {"rem.s32 %r0, %r1, %r2;", 7, uint32_t(-2), 0, 1},
    // Unsigned: 0xffffffff / 2 = 0x7fffffff.
    {"div.u32 %r0, %r1, 2;", 0xffffffff, 0, 0, 0x7fffffff},
};
INSTANTIATE_TEST_SUITE_P(Divide, IntWidth, testing::ValuesIn(kDivide));

// ---------------------------------------------------------------- bits and bytes
const Case kBits[] = {
    // prmt: bytes {b, a} = 0x77665544_33221100; selector 0x5410 takes bytes 0, 1, 4, 5.
    {"prmt.b32 %r0, %r1, %r2, %r3;", 0x33221100, 0x77665544, 0x5410, 0x55441100u},
    // Nibble 8 (bit 3 set) replicates the sign of byte 0 (0xf0): 0xff; nibbles 0 copy it.
    {"prmt.b32 %r0, %r1, %r2, 0x0008;", 0xf0, 0, 0, 0xf0f0f0ffu},
    // .f4e with sel 1: bytes 1, 2, 3, 4 = 0x44332211; .b4e with sel 0: bytes 0, 7, 6, 5.
    {"prmt.b32.f4e %r0, %r1, %r2, 1;", 0x33221100, 0x77665544, 0, 0x44332211u},
    {"prmt.b32.b4e %r0, %r1, %r2, 0;", 0x33221100, 0x77665544, 0, 0x55667700u},
    {"prmt.b32.rc16 %r0, %r1, %r2, 1;", 0x33221100, 0x77665544, 0, 0x33223322u},
    // shf .wrap takes the amount mod 32: 33 shifts by 1.
    // {hi, lo} = {1, 0x80000001} << 1: high word 3; >> 1: low word 0xc0000000.
    {"shf.l.wrap.b32 %r0, %r1, %r2, %r3;", 0x80000001, 1, 33, 3},
    {"shf.r.wrap.b32 %r0, %r1, %r2, %r3;", 0x80000001, 1, 33, 0xc0000000u},
    // .clamp: 33 shifts by 32: the high word is lo itself.
    {"shf.l.clamp.b32 %r0, %r1, %r2, %r3;", 0x80000001, 1, 33, 0x80000001u},
    // popc: 0xf0f0 has 8 bits set; -1 as 64 bits has 64.
    {"popc.b32 %r0, %r1;", 0xf0f0, 0, 0, 8},
    {"popc.b64 %r0, %rd1;", 0xffffffffffffffffull, 0, 0, 64},
    // clz: of 0, the width; of 1, width - 1.
    {"clz.b32 %r0, %r1;", 0, 0, 0, 32},
    {"clz.b32 %r0, %r1;", 1, 0, 0, 31},
    {"clz.b64 %r0, %rd1;", 1, 0, 0, 63},
    {"clz.b64 %r0, %rd1;", 0, 0, 0, 64},
    // brev: bit 0 goes to bit 31 (63).
    {"brev.b32 %r0, %r1;", 1, 0, 0, 0x80000000u},
    {"brev.b64 %rd9, %rd1;", 3, 0, 0, 0, 0xc000000000000000ull},
    // bfind: 0 has no bit (0xffffffff); 0x80 has bit 7; .shiftamt gives 31 - 7 = 24; a signed -1
    // has no non-sign bit; -256 = ~0xff: bit 7.
    {"bfind.u32 %r0, %r1;", 0, 0, 0, 0xffffffffu},
    {"bfind.u32 %r0, %r1;", 0x80, 0, 0, 7},
    {"bfind.shiftamt.u32 %r0, %r1;", 0x80, 0, 0, 24},
    {"bfind.s32 %r0, %r1;", 0xffffffff, 0, 0, 0xffffffffu},
    {"bfind.s32 %r0, %r1;", 0xffffff00, 0, 0, 7},
    {"bfind.u64 %r0, %rd1;", 0x8000000000000000ull, 0, 0, 63},
    // bfe.u32 0xabcd1234, pos 8, len 8: 0x12. bfe.s32 0x8000, 8, 8: field 0x80, sign-extended.
    {"bfe.u32 %r0, %r1, 8, 8;", 0xabcd1234, 0, 0, 0x12},
    {"bfe.s32 %r0, %r1, %r2, %r3;", 0x8000, 8, 8, 0xffffff80u},
    // Past the width: unsigned 0; signed the sign bit a[31] everywhere; len 0 gives 0.
    {"bfe.u32 %r0, %r1, %r2, %r3;", 0xffffffff, 40, 4, 0},
    {"bfe.s32 %r0, %r1, %r2, %r3;", 0x80000000, 40, 4, 0xffffffffu},
    {"bfe.s32 %r0, %r1, %r2, %r3;", 0xffffffff, 4, 0, 0},
    // pos 28, len 8 reaches past bit 31: bits 28..31 of 0xf0000000 = 0xf, zero-filled.
    {"bfe.u32 %r0, %r1, %r2, %r3;", 0xf0000000, 28, 8, 0xf},
    // Only the low 8 bits of pos and len count: pos 0x108 is 8.
    {"bfe.u32 %r0, %r1, %r2, %r3;", 0xabcd1234, 0x108, 8, 0x12},
    {"bfe.s64 %rd9, %rd1, 60, 8;", 0x8000000000000000ull, 0, 0, 0,
     0xfffffffffffffff8ull}, // 0x8 >> 0, sign 1
    // bfi.b32 f=0xff into b=0x12345678 at pos 8, len 4: 0x12345f78.
    {"bfi.b32 %r0, %r1, %r2, 8, 4;", 0xff, 0x12345678, 0, 0x12345f78u},
    // pos 30, len 8: only bits 30 and 31 fit; they come from f's low bits (0b11): 0xd2345678.
    {"bfi.b32 %r0, %r1, %r2, %r3, 8;", 0xff, 0x12345678, 30, 0xd2345678u},
    // pos 40: nothing fits; b unchanged.
    {"bfi.b32 %r0, %r1, %r2, %r3, 8;", 0xff, 0x12345678, 40, 0x12345678u},
    {"bfi.b64 %rd9, %rd1, %rd2, 60, 8;", 0xff, 0, 0, 0, 0xf000000000000000ull},
    // bfe.u64 and bfi.b64 with the length in a register (their 64-bit masks are shifts, not
    // SGXT): 0xabcdef0123456789 from bit 4, 8 bits: 0x78; 2^63 from bit 60, length 200: 8;
    // f = 0xff into 0 at bit 20 for 20 bits: 0xff << 20.
    {"bfe.u64 %rd9, %rd1, %r2, %r3;", 0xabcdef0123456789ull, 4, 8, 0, 0x78},
    {"bfe.u64 %rd9, %rd1, %r2, %r3;", 0x8000000000000000ull, 60, 200, 0, 8},
    {"bfi.b64 %rd9, %rd1, %rd2, %r3, %r3;", 0xff, 0, 20, 0, 0xff00000},
    // cnot: 1 for 0, else 0 (a 16-bit operand is its low 16 bits).
    {"cnot.b32 %r0, %r1;", 0, 0, 0, 1},
    {"cnot.b32 %r0, %r1;", 5, 0, 0, 0},
    {"cvt.u16.u32 %h1, %r1; cnot.b16 %h0, %h1; cvt.u32.u16 %r0, %h0;", 0x10000, 0, 0, 1},
    {"cnot.b64 %rd9, %rd1;", 0x100000000ull, 0, 0, 0, 0},
    {"cnot.b64 %rd9, %rd1;", 0, 0, 0, 0, 1},
    // mul24.lo.u32: the low 24 bits of each (2 and 3): 6. mul24.hi.u32: 0xffffff^2 =
    // 0xfffffe000001, bits 47..16 = 0xfffffe00. mul24.lo.s32: 0xffffff is -1 as 24 bits: -2.
    {"mul24.lo.u32 %r0, %r1, %r2;", 0x01000002, 3, 0, 6},
    {"mul24.hi.u32 %r0, %r1, %r2;", 0xffffff, 0xffffff, 0, 0xfffffe00u},
    {"mul24.lo.s32 %r0, %r1, %r2;", 0x00ffffff, 2, 0, 0xfffffffeu},
    {"mad24.lo.u32 %r0, %r1, %r2, %r3;", 2, 3, 4, 10},
    // vmax.s32.s32.s32.max: max(max(1, 5), 3) = 5; vmin ... .min: min(min(1, 5), 3) = 1;
    // vmax ... .min: min(max(-1, -5), -3) = -3.
    {"vmax.s32.s32.s32.max %r0, %r1, %r2, %r3;", 1, 5, 3, 5},
    {"vmin.s32.s32.s32.min %r0, %r1, %r2, %r3;", 1, 5, 3, 1},
    {"vmax.s32.s32.s32.min %r0, %r1, %r2, %r3;", uint32_t(-1), uint32_t(-5), uint32_t(-3),
     uint32_t(-3)},
};
INSTANTIATE_TEST_SUITE_P(Bits, IntWidth, testing::ValuesIn(kBits));

// A 16-bit register loaded with ld.s8 holds the byte sign-extended to 16 bits.
TEST(IntWidthLoad, SignedByteIntoA16BitRegister) {
  ptxtest::checkCase({"ld.param.s8 %h0, [a]; cvt.u32.u16 %r0, %h0;", 0x80, 0, 0, 0xff80});
  ptxtest::checkCase({"ld.param.s16 %h0, [a]; cvt.u32.u16 %r0, %h0;", 0x8000, 0, 0, 0x8000});
}

} // namespace
