#!/usr/bin/env python3
"""Edge values through mma.sync (the mma_edges_*.ptx kernels), laid out by mma_oracle.py's
layouts (the PTX ISA's fragment tables):

    mma_edges.py FORM OUT

B is the identity (m16n8k8) or has one nonzero element per column (m8n8k4 .f64), so every
element of D is C plus at most one nonzero product, plus products that are zeros: the ISA's
open accumulation order and intermediate rounding cannot change it (IEEE 754: x + 0 is x
for x != 0, a sum with a +0 term and no nonzero one is +0 in round-to-nearest, inf - inf
and anything with NaN is NaN). Each row of A and column of C carries one edge value: +-inf,
NaN, -0, the smallest binary16 subnormal, the largest binary16 finite value, a sum past it
(overflow of a .f16 D); .f64 sums 1 + 2^-60 and -1 - 2^-60 in each rounding, and exact zero
sums (-0 under .rm, IEEE 754 6.3). Expected: the exact sum rounded once to D's type (NaN: the
canonical 0x7fffffff / 0x7fff / 0xfff8000000000000)."""
import math
import struct
import sys
from fractions import Fraction

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, __import__("os").path.dirname(__file__))
import mma_oracle as mo  # noqa: E402

INF, NAN = float("inf"), float("nan")


def f32_bits(v):
    if math.isnan(v):
        return 0x7FFFFFFF
    return struct.unpack("<I", struct.pack("<f", v))[0]


def f16_bits(v):
    if math.isnan(v):
        return 0x7FFF
    if abs(v) >= 65520.0:  # rounds to infinity (65504 is the largest finite, ulp 32)
        return 0x7C00 if v > 0 else 0xFC00
    return struct.unpack("<H", struct.pack("<e", v))[0]


def f64_bits(v):
    if math.isnan(v):
        return 0xFFF8000000000000
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def half_bits(v):
    return f16_bits(v)


def main():
    form, out = sys.argv[1], sys.argv[2]
    if form.startswith("m16n8k8"):
        dtype = form.split(".")[3]
        m, n, k = 16, 8, 8
        # row i's one product: A[i][i % 8] * 1
        avals = [INF, -INF, NAN, -0.0, 2.0**-24, 65504.0, 65504.0, 1.5, -2.5, 3.0, 1.0, 0.5, -1.0, 2.0**-14, 100.0, 7.0]
        cvals = [1.0, INF, 2.0, -0.0, 2.0**-24, 32.0, 16.0, -1.5, 0.25, -3.0, NAN, 0.5, -0.0, 2.0**-14, -100.0, 9.0]
        A = [[avals[i] if x == i % 8 else 0.0 for x in range(k)] for i in range(m)]
        B = [[1.0 if x == j else 0.0 for j in range(n)] for x in range(k)]
        C = [[cvals[i] if j == i % 8 else cvals[(i + j) % 16] for j in range(n)] for i in range(m)]
        atype = ctype = "f16"
        if dtype == "f32":
            ctype = "f32"
        elif dtype != "f16":
            raise SystemExit("m16n8k8 .f16 or .f32")
        # (the f16 C values are all binary16 numbers)
        enc_in = {"f16": half_bits, "f32": f32_bits}
        enc_d = f16_bits if dtype == "f16" else f32_bits
        fa, fb, fc = mo.a_layout("m16n8k8", "f16"), mo.b_layout("m16n8k8", "f16"), mo.c_layout("m16n8k8")
        wide = False
    elif form.startswith("m8n8k4"):
        m, n, k = 8, 8, 4
        # D[i][j] = C[i][j] + A[i][x] * B[x][j] with x = j % 4 for the one nonzero B[x][j] = 1 or 2^-60:
        # 1 + 2^-60 rounds to 1 (.rn .rz .rm) or up (.rp); -1 - 2^-60 to -1 or down (.rm).
        rnd = [p for p in form.split(".") if p in ("rn", "rz", "rm", "rp")]
        rnd = rnd[0] if rnd else "rn"
        A = [[(1.0 if (i + x) % 2 == 0 else -1.0) for x in range(k)] for i in range(m)]
        B = [[(2.0**-60 if j < 4 else 1.0) if x == j % 4 else 0.0 for j in range(n)] for x in range(k)]
        C = [[(1.0 if (i + j) % 2 == 0 else -1.0) if j < 4 else float(i - j) for j in range(n)] for i in range(m)]

        def rounded(c, p):  # the exact c + p rounded to binary64 as the modifier says
            exact = Fraction(c) + Fraction(p)
            if exact == 0:  # IEEE 754 6.3: an exact zero sum is +0, but -0 rounding towards -inf
                return -0.0 if rnd == "rm" else 0.0
            near = float(exact)  # round to nearest even
            if Fraction(near) == exact:
                return near
            lo = near if Fraction(near) < exact else math.nextafter(near, -INF)
            hi = near if Fraction(near) > exact else math.nextafter(near, INF)
            if rnd == "rn":
                return near
            if rnd == "rm":
                return lo
            if rnd == "rp":
                return hi
            return lo if exact > 0 else hi  # rz
        atype = ctype = "f64"
        enc_in = {"f64": f64_bits}
        fa, fb, fc = mo.a_layout("m8n8k4", "f64"), mo.b_layout("m8n8k4", "f64"), mo.c_layout("m8n8k4")
        enc_d = f64_bits
        wide = True
    else:
        raise SystemExit("unknown edge form")

    def lane_words(mat, layout, t, elems):
        bits = {"f16": 16, "f32": 32, "f64": 64}[t]
        per = 1 if bits == 64 else 32 // bits
        enc = enc_in[t] if mat is not None else None
        res = []
        for lane in range(32):
            words = [0] * ((elems + per - 1) // per)
            for i in range(elems):
                r, c = layout(lane, i)
                words[i // per] |= enc(mat[r][c]) << ((i % per) * bits)
            res.append(words)
        return res

    ea, eb, ec = m * k // 32, k * n // 32, m * n // 32
    ra, rb, rc = lane_words(A, fa, atype, ea), lane_words(B, fb, atype, eb), lane_words(C, fc, ctype, ec)
    if atype == "f64":
        D = [[rounded(C[i][j], sum(A[i][x] * B[x][j] for x in range(k))) for j in range(n)] for i in range(m)]
    else:
        D = [[C[i][j] + sum(A[i][x] * B[x][j] for x in range(k)) for j in range(n)] for i in range(m)]
    dbits = 64 if wide else 16 if enc_d is f16_bits else 32
    per = 1 if dbits == 64 else 32 // dbits
    outw = []
    for lane in range(32):
        words = [0] * ((ec + per - 1) // per)
        for i in range(ec):
            r, c = fc(lane, i)
            words[i // per] |= enc_d(D[r][c]) << ((i % per) * dbits)
        outw.append(words)
    fmt = "<Q" if wide else "<I"
    with open(out + ".in", "wb") as f:
        for lane in range(32):
            for w in ra[lane] + rb[lane] + rc[lane]:
                f.write(struct.pack(fmt, w))
    d = b"".join(struct.pack(fmt, w) for lane in range(32) for w in outw[lane])
    with open(out + ".check", "w") as f:
        f.write(f"CHECK: exit: ok threads=32\nCHECK-NEXT: buffer out {len(d)}: {d.hex()}\n")


if __name__ == "__main__":
    main()
