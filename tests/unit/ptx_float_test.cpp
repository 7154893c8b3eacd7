// Floating-point conversions and the float instructions of ptx/lower_float.cpp and
// ptx/lower_cvt.cpp: each case is one PTX computation on the parameters a, b, c (as
// %f1..3 for binary32, %fd1..3 for binary64, %r1..3 for packed halves), lowered and run,
// then run again after --emit=ptx (which ptxas must assemble). Every expected value is
// worked out by hand in the comment beside it from IEEE 754 and the PTX ISA; where PTX
// leaves a result open (NaN bits, .approx) the value is the one docs/interpreter.md defines.
#include <gtest/gtest.h>

#include "ptx_kernel_runner.h"

namespace {

using ptxtest::Case;
class FloatOps : public testing::TestWithParam<Case> {};
TEST_P(FloatOps, RunAsIeeeAndThePtxIsaSay) { ptxtest::checkCase(GetParam()); }

// ---------------------------------------------------------------- conversions between formats
const Case kConvert[] = {
    // 1.0f is binary16 0x3c00.
    {"cvt.rn.f16.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x3f800000, 0, 0, 0x3c00},
    // 1 + 2^-11 lies halfway between binary16 1.0 (0x3c00) and 1 + 2^-10 (0x3c01): .rn takes
    // the even one, .rp the upper.
    {"cvt.rn.f16.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x3f801000, 0, 0, 0x3c00},
    {"cvt.rp.f16.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x3f801000, 0, 0, 0x3c01},
    // 1 + 3 * 2^-11: halfway between 0x3c01 and 0x3c02, the even one is 0x3c02.
    {"cvt.rn.f16.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x3f803000, 0, 0, 0x3c02},
    // 65520 is halfway between the largest binary16 (65504, odd significand) and 65536:
    // .rn rounds to the even 65536, which overflows to +inf; .rz keeps 65504 (0x7bff).
    {"cvt.rn.f16.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x477ff000, 0, 0, 0x7c00},
    {"cvt.rz.f16.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x477ff000, 0, 0, 0x7bff},
    // 2^-24 is the smallest binary16 subnormal (0x0001); 2^-25 is halfway to 0: even is 0.
    {"cvt.rn.f16.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x33800000, 0, 0, 0x0001},
    {"cvt.rn.f16.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x33000000, 0, 0, 0x0000},
    // A NaN becomes the canonical binary16 NaN 0x7fff.
    {"cvt.rn.f16.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x7fc00000, 0, 0, 0x7fff},
    // binary16 0x3555: exponent 13 (2^-2), significand 1 + 341/1024 -> binary32 exponent 125,
    // fraction 341 << 13 = 0x2aa000: 0x3eaaa000.
    {"cvt.u16.u32 %h1, %r1; cvt.f32.f16 %f0, %h1; mov.b32 %r0, %f0;", 0x3555, 0, 0, 0x3eaaa000},
    // The binary16 subnormal 0x0001 is 2^-24 = binary32 0x33800000.
    {"cvt.u16.u32 %h1, %r1; cvt.f32.f16 %f0, %h1; mov.b32 %r0, %f0;", 0x0001, 0, 0, 0x33800000},
    // bfloat16 keeps binary32's top 16 bits: 1 + 2^-8 (0x3f808000) is halfway between 0x3f80
    // and 0x3f81 (even: 0x3f80); 1 + 3 * 2^-8 halfway between 0x3f81 and 0x3f82 (0x3f82);
    // 0x3f808001 is just above half: 0x3f81.
    {"cvt.rn.bf16.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x3f808000, 0, 0, 0x3f80},
    {"cvt.rn.bf16.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x3f818000, 0, 0, 0x3f82},
    {"cvt.rn.bf16.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x3f808001, 0, 0, 0x3f81},
    // bfloat16 0x4049 widens to 0x40490000.
    {"cvt.u16.u32 %h1, %r1; cvt.f32.bf16 %f0, %h1; mov.b32 %r0, %f0;", 0x4049, 0, 0, 0x40490000},
    // .sat with a bfloat16 side (ptxas has no such form; --emit=ptx clamps in binary32 first):
    // 1.5 clamps to 1.0 (bfloat16 0x3f80); -2 and NaN give +0; 0x3e99999a (0.3) is below 1 and
    // rounds to nearest: its low half 0x999a is above 0x8000, so 0x3e99 rounds up to 0x3e9a.
    {"cvt.rn.sat.bf16.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x3fc00000, 0, 0, 0x3f80},
    {"cvt.rn.sat.bf16.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0xc0000000, 0, 0, 0x0000},
    {"cvt.rn.sat.bf16.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x7fc00000, 0, 0, 0x0000},
    {"cvt.rn.sat.bf16.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x3e99999a, 0, 0, 0x3e9a},
    // bfloat16 2.0 (0x4000) saturates to binary32 1.0; bfloat16 -1 (0xbf80) to +0.
    {"cvt.u16.u32 %h1, %r1; cvt.sat.f32.bf16 %f0, %h1; mov.b32 %r0, %f0;", 0x4000, 0, 0,
     0x3f800000},
    {"cvt.u16.u32 %h1, %r1; cvt.sat.f32.bf16 %f0, %h1; mov.b32 %r0, %f0;", 0xbf80, 0, 0,
     0x00000000},
    // binary16 2.0 (0x4000) to bfloat16 with .sat: 1.0 = 0x3f80.
    {"cvt.u16.u32 %h1, %r1; cvt.rn.sat.bf16.f16 %h0, %h1; cvt.u32.u16 %r0, %h0;", 0x4000, 0, 0,
     0x3f80},
    // binary32 0x3eaaaaab (exponent -2, fraction 0x2aaaab) widens exactly: binary64 exponent
    // 1021 (0x3fd), fraction 0x2aaaab << 29 = 0x5555560000000.
    {"cvt.f64.f32 %fd0, %f1; mov.b64 %rd9, %fd0;", 0x3eaaaaab, 0, 0, 0, 0x3fd5555560000000ull},
    // binary64 1/3 narrows to 0x3eaaaaab (.rn: the dropped bits 1010... are above half) and
    // to 0x3eaaaaaa (.rz).
    {"cvt.rn.f32.f64 %f0, %fd1; mov.b32 %r0, %f0;", 0x3fd5555555555555ull, 0, 0, 0x3eaaaaab},
    {"cvt.rz.f32.f64 %f0, %fd1; mov.b32 %r0, %f0;", 0x3fd5555555555555ull, 0, 0, 0x3eaaaaaa},
    // .sat clamps to [0, 1]: -0.5 -> +0, 1.5 -> 1.0, NaN -> +0, 0.25 stays.
    {"cvt.sat.f32.f32 %f0, %f1; mov.b32 %r0, %f0;", 0xbf000000, 0, 0, 0},
    {"cvt.sat.f32.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x3fc00000, 0, 0, 0x3f800000},
    {"cvt.sat.f32.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x7fc00000, 0, 0, 0},
    {"cvt.sat.f32.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x3e800000, 0, 0, 0x3e800000},
    // .ftz flushes a subnormal to a zero of its sign.
    {"cvt.ftz.f32.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x80000001, 0, 0, 0x80000000},
    // Rounding to an integral value: 2.5 -> 2 and 3.5 -> 4 (even), -2.5 -> -2; .rmi of -0.5
    // is -1, .rpi of -0.5 is -0.0, .rzi of -1.7 is -1.
    {"cvt.rni.f32.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x40200000, 0, 0, 0x40000000},
    {"cvt.rni.f32.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x40600000, 0, 0, 0x40800000},
    {"cvt.rni.f32.f32 %f0, %f1; mov.b32 %r0, %f0;", 0xc0200000, 0, 0, 0xc0000000},
    {"cvt.rmi.f32.f32 %f0, %f1; mov.b32 %r0, %f0;", 0xbf000000, 0, 0, 0xbf800000},
    {"cvt.rpi.f32.f32 %f0, %f1; mov.b32 %r0, %f0;", 0xbf000000, 0, 0, 0x80000000},
    {"cvt.rzi.f32.f32 %f0, %f1; mov.b32 %r0, %f0;", 0xbfd9999a, 0, 0, 0xbf800000},
    {"cvt.rni.f64.f64 %fd0, %fd1; mov.b64 %rd9, %fd0;", 0x4004000000000000ull, 0, 0, 0,
     0x4000000000000000ull},
    // To 8/16-bit integers, saturating: 300.5 -> 255 (u8); 2.5 -> 2 (.rni, even); -3.5 -> 0 (u8);
    // -40000.5 -> -32768 (s16), sign-extended by cvt.s32.s16.
    {"cvt.rni.u8.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x43964000, 0, 0, 255},
    {"cvt.rni.u8.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0x40200000, 0, 0, 2},
    {"cvt.rni.u8.f32 %h0, %f1; cvt.u32.u16 %r0, %h0;", 0xc0600000, 0, 0, 0},
    {"cvt.rzi.s16.f32 %h0, %f1; cvt.s32.s16 %r0, %h0;", 0xc71c4080, 0, 0, 0xffff8000u},
};
INSTANTIATE_TEST_SUITE_P(Convert, FloatOps, testing::ValuesIn(kConvert));

// ---------------------------------------------------------------- division, square root
const Case kDivide[] = {
    // 1/3 = 0.010101...b: the bits after binary32's 24 are 1010..., above half, so .rn and
    // .rp round up (0x3eaaaaab), .rz and .rm truncate (0x3eaaaaaa).
    {"div.rn.f32 %f0, %f1, %f2; mov.b32 %r0, %f0;", 0x3f800000, 0x40400000, 0, 0x3eaaaaab},
    {"div.rz.f32 %f0, %f1, %f2; mov.b32 %r0, %f0;", 0x3f800000, 0x40400000, 0, 0x3eaaaaaa},
    {"div.rm.f32 %f0, %f1, %f2; mov.b32 %r0, %f0;", 0x3f800000, 0x40400000, 0, 0x3eaaaaaa},
    {"div.rp.f32 %f0, %f1, %f2; mov.b32 %r0, %f0;", 0x3f800000, 0x40400000, 0, 0x3eaaaaab},
    // x/0: 1/+0 = +inf, -1/+0 = -inf, 0/0 = NaN (canonical 0x7fffffff).
    {"div.rn.f32 %f0, %f1, %f2; mov.b32 %r0, %f0;", 0x3f800000, 0, 0, 0x7f800000},
    {"div.rn.f32 %f0, %f1, %f2; mov.b32 %r0, %f0;", 0xbf800000, 0, 0, 0xff800000},
    {"div.rn.f32 %f0, %f1, %f2; mov.b32 %r0, %f0;", 0, 0, 0, 0x7fffffff},
    // .ftz: the subnormal divisor 0x00000001 reads as +0, so 1/it is +inf.
    {"div.rn.ftz.f32 %f0, %f1, %f2; mov.b32 %r0, %f0;", 0x3f800000, 0x00000001, 0, 0x7f800000},
    // rcp.rn: 1/3 as above; binary64 1/3 is 0x3fd5555555555555.
    {"rcp.rn.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x40400000, 0, 0, 0x3eaaaaab},
    {"rcp.rn.f64 %fd0, %fd1; mov.b64 %rd9, %fd0;", 0x4008000000000000ull, 0, 0, 0,
     0x3fd5555555555555ull},
    {"div.rn.f64 %fd0, %fd1, %fd2; mov.b64 %rd9, %fd0;", 0x3ff0000000000000ull,
     0x4008000000000000ull, 0, 0, 0x3fd5555555555555ull},
    // sqrt(2) = 1.41421356237...; binary32 0x3fb504f3 is 1.4142135381698..., below it and the
    // nearest, so .rn and .rz give 0x3fb504f3 and .rp the next value up.
    {"sqrt.rn.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x40000000, 0, 0, 0x3fb504f3},
    {"sqrt.rz.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x40000000, 0, 0, 0x3fb504f3},
    {"sqrt.rp.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x40000000, 0, 0, 0x3fb504f4},
    // sqrt(-1) is NaN; sqrt(-0) is -0 (IEEE 754).
    {"sqrt.rn.f32 %f0, %f1; mov.b32 %r0, %f0;", 0xbf800000, 0, 0, 0x7fffffff},
    {"sqrt.rn.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x80000000, 0, 0, 0x80000000},
    // binary64 sqrt(2) = 0x3ff6a09e667f3bcd.
    {"sqrt.rn.f64 %fd0, %fd1; mov.b64 %rd9, %fd0;", 0x4000000000000000ull, 0, 0, 0,
     0x3ff6a09e667f3bcdull},
    // .approx (docs/interpreter.md: MUFU.RCP = RN(1/x), MUFU.SQRT = RN(sqrt x),
    // MUFU.RSQ = RN(1/RN(sqrt x))): 1/4, sqrt 16 and 1/sqrt 4 are exact.
    {"rcp.approx.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x40800000, 0, 0, 0x3e800000},
    {"sqrt.approx.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x41800000, 0, 0, 0x40800000},
    {"rsqrt.approx.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x40800000, 0, 0, 0x3f000000},
    // .ftz flushes the subnormal source: 1/+0 = +inf.
    {"rcp.approx.ftz.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x00000001, 0, 0, 0x7f800000},
    // div.approx a/b = a * RN(1/b): 6 * 0x3eaaaaab (0.3333333432...) = 2.0000000596..., a
    // quarter ulp above 2.0, which RN gives.
    {"div.approx.f32 %f0, %f1, %f2; mov.b32 %r0, %f0;", 0x40c00000, 0x40400000, 0, 0x40000000},
};
INSTANTIATE_TEST_SUITE_P(Divide, FloatOps, testing::ValuesIn(kDivide));

// ---------------------------------------------------------------- ex2 lg2 sin cos .approx
// docs/interpreter.md defines MUFU.EX2/LG2/SIN/COS (ir/approx_math.h); where the exact
// result is a binary32 value the definition gives it, which these cases check.
const Case kTranscendental[] = {
    // 2^3 = 8: n = 3, f = 0, the polynomial is 1 at 0.
    {"ex2.approx.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x40400000, 0, 0, 0x41000000},
    // 2^-130 is the subnormal 2^19 * 2^-149 = 0x00080000; .ftz flushes it to +0.
    {"ex2.approx.f32 %f0, %f1; mov.b32 %r0, %f0;", 0xc3020000, 0, 0, 0x00080000},
    {"ex2.approx.ftz.f32 %f0, %f1; mov.b32 %r0, %f0;", 0xc3020000, 0, 0, 0x00000000},
    // 2^128 overflows to +inf; 2^-inf is +0; NaN gives the canonical NaN.
    {"ex2.approx.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x43000000, 0, 0, 0x7f800000},
    {"ex2.approx.ftz.f32 %f0, %f1; mov.b32 %r0, %f0;", 0xff800000, 0, 0, 0x00000000},
    {"ex2.approx.f32 %f0, %f1; mov.b32 %r0, %f0;", 0xffc00001, 0, 0, 0x7fffffff},
    // log2 8 = 3 (0x40400000); log2 2^-149 = -149 = -1.1640625 * 2^7 = 0xc3150000, but .ftz
    // flushes that subnormal to +0 first: -inf.
    {"lg2.approx.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x41000000, 0, 0, 0x40400000},
    {"lg2.approx.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x00000001, 0, 0, 0xc3150000},
    {"lg2.approx.ftz.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x00000001, 0, 0, 0xff800000},
    // log2 of -1 is NaN, of -0 is -inf, of +inf is +inf.
    {"lg2.approx.f32 %f0, %f1; mov.b32 %r0, %f0;", 0xbf800000, 0, 0, 0x7fffffff},
    {"lg2.approx.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x80000000, 0, 0, 0xff800000},
    {"lg2.approx.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x7f800000, 0, 0, 0x7f800000},
    // sin(-0) = -0, cos(+0) = 1, sin(+inf) and cos(-inf) are NaN.
    {"sin.approx.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x80000000, 0, 0, 0x80000000},
    {"cos.approx.ftz.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x00000000, 0, 0, 0x3f800000},
    {"sin.approx.ftz.f32 %f0, %f1; mov.b32 %r0, %f0;", 0x7f800000, 0, 0, 0x7fffffff},
    {"cos.approx.f32 %f0, %f1; mov.b32 %r0, %f0;", 0xff800000, 0, 0, 0x7fffffff},
};
INSTANTIATE_TEST_SUITE_P(Transcendental, FloatOps, testing::ValuesIn(kTranscendental));

// ---------------------------------------------------------------- min/max.f64, copysign, mad.f32
const Case kOther[] = {
    // min(-0, +0) is -0; max(NaN, 1) is 1; two NaNs give the canonical 0xfff8000000000000.
    {"min.f64 %fd0, %fd1, %fd2; mov.b64 %rd9, %fd0;", 0x8000000000000000ull, 0, 0, 0,
     0x8000000000000000ull},
    {"max.f64 %fd0, %fd1, %fd2; mov.b64 %rd9, %fd0;", 0x7ff8000000000000ull, 0x3ff0000000000000ull,
     0, 0, 0x3ff0000000000000ull},
    {"min.f64 %fd0, %fd1, %fd2; mov.b64 %rd9, %fd0;", 0x7ff8000000000001ull, 0xfff0000000000001ull,
     0, 0, 0xfff8000000000000ull},
    // copysign d, a, b: b's magnitude with a's sign. a = -0, b = 1.5 -> -1.5; a = +1 and
    // b = -NaN: the NaN keeps its payload, loses its sign.
    {"copysign.f32 %f0, %f1, %f2; mov.b32 %r0, %f0;", 0x80000000, 0x3fc00000, 0, 0xbfc00000},
    {"copysign.f32 %f0, %f1, %f2; mov.b32 %r0, %f0;", 0x3f800000, 0xffc00001, 0, 0x7fc00001},
    {"copysign.f64 %fd0, %fd1, %fd2; mov.b64 %rd9, %fd0;", 0x8000000000000000ull,
     0x4000000000000000ull, 0, 0, 0xc000000000000000ull},
    // mad.f32 without rounding is fma.rn: (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly (fused),
    // binary32 2^-11 * (1 + 2^-13): exponent 116 (0x3a000000), fraction bit 10 (0x400).
    // Unfused, the square would round (a tie, to even) to 1 + 2^-11 and give 2^-11 alone.
    {"mad.f32 %f0, %f1, %f1, %f2; mov.b32 %r0, %f0;", 0x3f800800, 0xbf800000, 0, 0x3a000400},
};
INSTANTIATE_TEST_SUITE_P(Other, FloatOps, testing::ValuesIn(kOther));

// ---------------------------------------------------------------- packed halves
const Case kPacked[] = {
    // {lo 1.0, hi 2.0} + {0.5, 0.25} = {1.5 (0x3e00), 2.25 (0x4080)}.
    {"add.rn.f16x2 %r0, %r1, %r2;", 0x40003c00, 0x34003800, 0, 0x40803e00},
    // 2048 + 1 = 2049, halfway between 2048 and 2050: even 2048 (0x6800); 2050 + 1 = 2051,
    // halfway between 2050 (odd significand) and 2052 (0x6802): 2052.
    {"add.rn.f16x2 %r0, %r1, %r2;", 0x68016800, 0x3c003c00, 0, 0x68026800},
    // {3, 1} - {1, 1} = {2 (0x4000), +0}.
    {"sub.rn.f16x2 %r0, %r1, %r2;", 0x42003c00, 0x3c003c00, 0, 0x40000000},
    // 256 * 256 = 65536 overflows binary16 to +inf (0x7c00); 2 * 3 = 6 (0x4600).
    {"mul.rn.f16x2 %r0, %r1, %r2;", 0x40005c00, 0x42005c00, 0, 0x46007c00},
    // Rounded once: (1 + 2^-10)(1 - 2^-11) - 1 = 2^-11 - 2^-21 = 2^-12 * (1 + 1022/1024), exactly
    // binary16 0x0ffe (a rounded product would be 1.0 and the sum 0); hi: 1 * 2 + 1 = 3 (0x4200).
    {"fma.rn.f16x2 %r0, %r1, %r2, %r3;", 0x3c003c01, 0x40003bff, 0x3c00bc00, 0x42000ffe},
    // .sat: 1 + 1 = 2 clamps to 1.0 (0x3c00); -1 + 0.5 = -0.5 clamps to +0.
    {"add.rn.sat.f16x2 %r0, %r1, %r2;", 0x3c00bc00, 0x3c003800, 0, 0x3c000000},
    // bfloat16: 1 + 2^-8 is halfway between 1.0 (0x3f80) and 1 + 2^-7: even 0x3f80; 1 + 1 = 2
    // (0x4000).
    {"add.rn.bf16x2 %r0, %r1, %r2;", 0x3f803f80, 0x3f803b80, 0, 0x40003f80},
};
INSTANTIATE_TEST_SUITE_P(Packed, FloatOps, testing::ValuesIn(kPacked));

} // namespace
