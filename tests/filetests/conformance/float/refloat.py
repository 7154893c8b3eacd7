"""Reference values for the float conformance kernels, from the PTX ISA's definitions.

Exact rational arithmetic (fractions.Fraction) rounded once to the destination format, written
for these tests from the ISA's text and IEEE 754, sharing no code with oriopt. gen_conformance.py
uses it to write the expected outputs into the kernels; each kernel's comments say which ISA
section defines the instruction.
"""
from fractions import Fraction
import math
import struct


class Fmt:
    def __init__(self, name, exp_bits, man_bits, ieee=True, nan=None):
        self.name, self.e, self.m, self.ieee = name, exp_bits, man_bits, ieee
        self.bias = (1 << (exp_bits - 1)) - 1
        self.width = 1 + exp_bits + man_bits
        self.sign = 1 << (self.width - 1)
        # E4M3: the top exponent is finite; S.1111.111 is NaN (OCP FP8, PTX "Alternate formats").
        self.emax = self.bias if ieee else self.bias + 1
        self.nan = nan if nan is not None else (((1 << exp_bits) - 1) << man_bits) | ((1 << man_bits) - 1)

    def is_nan(self, b):
        mag = b & (self.sign - 1)
        if not self.ieee:
            return mag == (self.sign - 1)
        return (mag >> self.m) == (1 << self.e) - 1 and (mag & ((1 << self.m) - 1)) != 0

    def max_finite(self):
        if not self.ieee:
            return (self.sign - 1) - 1
        return ((((1 << self.e) - 2) << self.m) | ((1 << self.m) - 1))


F16 = Fmt("f16", 5, 10, nan=0x7fff)
BF16 = Fmt("bf16", 8, 7, nan=0x7fff)
F32 = Fmt("f32", 8, 23, nan=0x7fffffff)
E4M3 = Fmt("e4m3", 4, 3, ieee=False, nan=0x7f)
E5M2 = Fmt("e5m2", 5, 2, nan=0x7f)
TF32 = Fmt("tf32", 8, 10, nan=0x3ffff)
F64 = Fmt("f64", 11, 52, nan=0xfff8000000000000)

NAN = "nan"


def decode(b, f):
    """bits -> Fraction, or ('inf', sign) / NAN; zeros as (0, sign)."""
    neg = bool(b & f.sign)
    mag = b & (f.sign - 1)
    if f.is_nan(b):
        return NAN
    e, m = mag >> f.m, mag & ((1 << f.m) - 1)
    if f.ieee and e == (1 << f.e) - 1:
        return ("inf", neg)
    if e == 0:
        v = Fraction(m, 1) * Fraction(2) ** (1 - f.bias - f.m)
    else:
        v = Fraction(m + (1 << f.m), 1) * Fraction(2) ** (e - f.bias - f.m)
    if v == 0:
        return (0, neg)
    return -v if neg else v


def value(x):
    """A Python float (or Fraction) as the reference's value (NaN, infinities, signed zeros)."""
    if isinstance(x, (Fraction, tuple)) or x == NAN:
        return x
    if math.isnan(x):
        return NAN
    if math.isinf(x):
        return ("inf", x < 0)
    if x == 0:
        return (0, math.copysign(1, x) < 0)
    return Fraction(x)


def encode(v, f, mode="rn", satfinite=False, relu=False):
    """Round v to format f (IEEE 754: rn, rz, rm, rp, rna). NaN gives f's canonical NaN."""
    if v == NAN:
        return f.nan
    if isinstance(v, tuple):
        kind, neg = v
        if relu and neg:
            return 0
        if kind == 0:
            return f.sign if neg else 0
        if satfinite:
            return (f.sign if neg else 0) | f.max_finite()
        return (f.sign if neg else 0) | (((1 << f.e) - 1) << f.m)
    neg = v < 0
    if relu and neg:
        return 0
    a = -v if neg else v
    sgn = f.sign if neg else 0
    maxv = decode(f.max_finite(), f)
    if satfinite and a >= maxv:
        return sgn | f.max_finite()
    emin = 1 - f.bias
    e = math.floor(math.log2(a))
    # correct floor(log2) for exactness
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, emin)
    q = Fraction(2) ** (e - f.m)
    k = math.floor(a / q)
    rest = a / q - k
    up = {"rn": rest > Fraction(1, 2) or (rest == Fraction(1, 2) and k % 2 == 1),
          "rna": rest >= Fraction(1, 2), "rz": False,
          "rm": neg and rest > 0, "rp": (not neg) and rest > 0}[mode]
    if up:
        k += 1
    r = k * q
    if r >= Fraction(2) ** (f.emax + 1) or (not f.ieee and r > maxv):
        to_inf = mode in ("rn", "rna") or (mode == "rp" and not neg) or (mode == "rm" and neg)
        if to_inf and f.ieee:
            return sgn | (((1 << f.e) - 1) << f.m)
        return sgn | f.max_finite()
    if r < Fraction(2) ** emin:
        return sgn | k  # subnormal (or zero)
    re = e if k < (1 << (f.m + 1)) else e + 1
    mant = int(r / Fraction(2) ** (re - f.m)) - (1 << f.m)
    return sgn | ((re + f.bias) << f.m) | mant


def f32bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def neg_of(v):
    if v == NAN:
        return NAN
    if isinstance(v, tuple):
        return (v[0], not v[1])
    return -v


def is_neg(v):
    return (isinstance(v, tuple) and v[1]) or (not isinstance(v, tuple) and v != NAN and v < 0)


def add(x, y):
    """Exact x + y of reference values (NaN, infinities, signed zeros as IEEE 754, RN signs)."""
    if x == NAN or y == NAN:
        return NAN
    if isinstance(x, tuple) and x[0] == "inf":
        if isinstance(y, tuple) and y[0] == "inf" and y[1] != x[1]:
            return NAN
        return x
    if isinstance(y, tuple) and y[0] == "inf":
        return y
    xv = 0 if isinstance(x, tuple) else x
    yv = 0 if isinstance(y, tuple) else y
    s = xv + yv
    if s == 0:
        if isinstance(x, tuple) and isinstance(y, tuple):
            return (0, x[1] and y[1])  # -0 + -0 = -0, else +0 (round to nearest)
        return (0, False)
    return s


def mul(x, y):
    if x == NAN or y == NAN:
        return NAN
    xi, yi = isinstance(x, tuple) and x[0] == "inf", isinstance(y, tuple) and y[0] == "inf"
    xz, yz = isinstance(x, tuple) and x[0] == 0, isinstance(y, tuple) and y[0] == 0
    neg = is_neg(x) != is_neg(y)
    if (xi and yz) or (yi and xz):
        return NAN
    if xi or yi:
        return ("inf", neg)
    if xz or yz:
        return (0, neg)
    return x * y


def fma(x, y, z):
    return add(mul(x, y), z)


def cmp(op, x, y):
    """PTX setp comparisons (ISA 9.7.7.2): ordered ones false on NaN, u-forms true."""
    un = x == NAN or y == NAN
    def num(v):
        if isinstance(v, tuple):
            return 0 if v[0] == 0 else (-math.inf if v[1] else math.inf)
        return v
    if op == "num":
        return not un
    if op == "nan":
        return un
    base, u = (op[:-1], True) if op.endswith("u") and op not in ("nu",) and len(op) == 3 else (op, False)
    if un:
        return u
    a, b = num(x), num(y)
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[base]


def minmax(takemin, a, b, f, nan_mode=False, xorsign=False):
    """PTX min/max (ISA 9.7.4.7/8) on bit patterns of format f."""
    xs = (a ^ b) & f.sign
    if xorsign:
        a &= ~f.sign
        b &= ~f.sign
    na, nb = f.is_nan(a), f.is_nan(b)
    if (na and nb) or (nan_mode and (na or nb)):
        return f.nan
    if na:
        r = b
    elif nb:
        r = a
    else:
        x, y = decode(a, f), decode(b, f)
        def key(v, bits):
            if isinstance(v, tuple):
                if v[0] == "inf":
                    return (-math.inf if v[1] else math.inf, 0)
                return (0, -1 if v[1] else 0)  # -0 < +0
            return (v, 0)
        kx, ky = key(x, a), key(y, b)
        r = (a if kx <= ky else b) if takemin else (a if kx >= ky else b)
    if xorsign:
        r = (r & ~f.sign) | xs
    return r
