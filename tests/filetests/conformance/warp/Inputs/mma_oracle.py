#!/usr/bin/env python3
"""The oracle of the mma.sync conformance kernels: a host matrix product written from the
PTX ISA 9.0 fragment tables (section 9.7.14.5, "Matrix Fragments for mma.mMnNkK"), sharing
no code with oriopt (ir/mma.cpp's layouts are one generalised formula; these are the ISA's
formulas as printed, one per section, with the one misprint noted).

    mma_oracle.py FORM OUT

FORM is the PTX form without mma.sync.aligned (m16n8k16.row.col.f16.f16.f16.f16). Writes
OUT.in, the bytes of the kernels' `in` buffer (per lane, lane after lane: the A, B and C
registers as the lane holds them, 4 bytes each, 8 for .f64), and OUT.check, a FileCheck file
expecting the `out` buffer (per lane the D registers) of D = A * B + C. The matrices hold
small integers (bits for .b1) from a fixed pseudo-random sequence: every product and sum is
exact in every type and every order of accumulation, so the result is the one the ISA allows.
"""
import struct
import sys

# ---------------------------------------------------------------- layouts (the ISA's formulas)
# Each returns (row, col) of element i of lane `lane`; m8n8k4 .f16 returns (q, row, col) below.


def gt(lane):
    return lane >> 2, lane % 4  # groupID, threadID_in_group


def a_layout(shape, atype):
    """Multiplicand A: (lane, i) -> (row, col)."""
    def f(lane, i):
        g, t = gt(lane)
        if shape == "m16n8k16" and atype in ("f16", "bf16"):  # 9.7.14.5.8, Figure 79
            row = g if (0 <= i < 2 or 4 <= i < 6) else g + 8
            col = (t * 2) + (i & 1) if i < 4 else (t * 2) + (i & 1) + 8
        elif shape == "m16n8k16" and atype == "f64":  # Figure 80
            row = g if i % 2 == 0 else g + 8
            col = (i * 2) + t if i % 2 == 0 else (i * 2) - 2 + t
        elif shape == "m16n8k16":  # 9.7.14.5.9 (.u8/.s8/.e4m3/.e5m2), Figure 84
            row = g if i < 4 else g + 8
            col = (t * 4) + (i & 3)
        elif shape == "m16n8k8" and atype in ("f16", "bf16"):  # 9.7.14.5.7, Figure 71
            row = g if i < 2 else g + 8
            col = t * 2 + (i & 1)
        elif shape == "m16n8k8":  # .tf32 (Figure 72), .f64 (Figure 73)
            row = g if i in (0, 2) else g + 8
            col = t if i < 2 else t + 4
        elif shape == "m16n8k4":  # 9.7.14.5.6 (.tf32 Figure 65, .f64 Figure 66)
            row = g if i == 0 else g + 8
            col = t
        elif shape == "m8n8k4":  # 9.7.14.5.2 (.f64), Figure 53
            row, col = lane >> 2, lane % 4
        elif shape == "m8n8k16":  # 9.7.14.5.3, Figure 56
            row, col = g, (t * 4) + i
        elif shape == "m8n8k32":  # 9.7.14.5.4, Figure 59
            row, col = g, (t * 8) + i
        elif shape == "m8n8k128":  # 9.7.14.5.5, Figure 62
            row, col = g, (t * 32) + i
        elif shape == "m16n8k32" and atype in ("u4", "s4"):  # 9.7.14.5.10, Figure 87
            row = g if i < 8 else g + 8
            col = (t * 8) + (i & 7)
        elif shape == "m16n8k32":  # Figure 88 (.u8/.s8/.e4m3/.e5m2)
            row = g if (0 <= i < 4 or 8 <= i < 12) else g + 8
            col = (t * 4) + (i & 3) if i < 8 else (t * 4) + (i & 3) + 16
        elif shape == "m16n8k64":  # 9.7.14.5.11, Figure 93
            row = g if (0 <= i < 8 or 16 <= i < 24) else g + 8
            col = (t * 8) + (i & 7) if i < 16 else (t * 8) + (i & 7) + 32
        elif shape == "m16n8k128":  # 9.7.14.5.12, Figure 97
            row = g if i < 32 else g + 8
            col = (t * 32) + (i & 0x1F)
        elif shape == "m16n8k256":  # 9.7.14.5.13, Figure 100. The ISA prints the column of
            # 32 <= i < 64 as (t * 32) + i, which puts those elements onto the next thread's
            # columns and leaves columns 0..31 of rows 8..15 to no one: (i & 0x1F) is meant,
            # as in m16n8k128 and for i >= 64.
            row = g if (0 <= i < 32 or 64 <= i < 96) else g + 8
            col = (t * 32) + (i & 0x1F) if i < 64 else (t * 32) + (i & 0x1F) + 128
        else:
            raise SystemExit(f"no A layout for {shape} {atype}")
        return row, col
    return f


def b_layout(shape, btype):
    def f(lane, i):
        g, t = gt(lane)
        col = g
        if shape == "m16n8k16" and btype in ("f16", "bf16"):  # Figure 81
            row = (t * 2) + (i & 1) if i < 2 else (t * 2) + (i & 1) + 8
        elif shape == "m16n8k16" and btype == "f64":  # Figure 82
            row = t + (i * 4)
        elif shape == "m16n8k16":  # Figure 85
            row = (t * 4) + i
        elif shape == "m16n8k8" and btype in ("f16", "bf16"):  # Figure 74
            row = (t * 2) + i
        elif shape == "m16n8k8":  # Figures 75, 76
            row = t if i == 0 else t + 4
        elif shape == "m16n8k4":  # Figures 67, 68
            row = t
        elif shape == "m8n8k4":  # Figure 54
            row, col = lane % 4, lane >> 2
        elif shape == "m8n8k16":  # Figure 57
            row = (t * 4) + i
        elif shape == "m8n8k32":  # Figure 60
            row = (t * 8) + i
        elif shape == "m8n8k128":  # Figure 63
            row = (t * 32) + i
        elif shape == "m16n8k32" and btype in ("u4", "s4"):  # Figure 89
            row = (t * 8) + (i & 7)
        elif shape == "m16n8k32":  # Figures 90, 91
            row = (t * 4) + (i & 3) if i < 4 else (t * 4) + (i & 3) + 16
        elif shape == "m16n8k64":  # Figures 94, 95
            row = (t * 8) + (i & 7) if i < 8 else (t * 8) + (i & 7) + 32
        elif shape == "m16n8k128":  # Figure 98
            row = (t * 32) + i
        elif shape == "m16n8k256":  # Figures 101, 102
            row = (t * 32) + (i & 0x1F) if i < 32 else (t * 32) + (i & 0x1F) + 128
        else:
            raise SystemExit(f"no B layout for {shape} {btype}")
        return row, col
    return f


def c_layout(shape):
    def f(lane, i):
        g, t = gt(lane)
        if shape.startswith("m8n8"):  # Figures 55, 58, 61, 64
            return g, (t * 2) + i
        return (g if i < 2 else g + 8), (t * 2) + (i & 1)  # Figures 69, 77, 83, 86, 92, 96, 99, 103
    return f


# m8n8k4 .f16 (9.7.14.5.1): four products; product q by lanes 4q..4q+3 (low group) and
# 4q+16..4q+19 (high group). Layouts by %laneid.
def quad_of(lane):
    return (lane % 16) // 4


def quad_a(alayout):
    def f(lane, i):
        if alayout == "row":  # Figure 46
            row = lane % 4 if lane < 16 else (lane % 4) + 4
            return quad_of(lane), row, i
        row = i % 4 if lane < 16 else (i % 4) + 4  # Figure 47
        return quad_of(lane), row, lane % 4
    return f


def quad_b(blayout):
    def f(lane, i):
        if blayout == "row":  # Figure 48
            return quad_of(lane), lane % 4, (i if lane < 16 else i + 4)
        return quad_of(lane), i, (lane % 4 if lane < 16 else (lane % 4) + 4)  # Figure 49
    return f


def quad_c(ctype):
    def f(lane, i):
        if ctype == "f16":  # Figure 50
            return quad_of(lane), (lane % 4 if lane < 16 else (lane % 4) + 4), i
        x = (lane & 1) + (i & 2)  # Figures 51, 52
        return quad_of(lane), (x if lane < 16 else x + 4), (i & 4) + (lane & 2) + (i & 1)
    return f


# ---------------------------------------------------------------- element encodings

BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "e4m3": 8, "e5m2": 8,
        "s32": 32, "s8": 8, "u8": 8, "s4": 4, "u4": 4, "b1": 1}


def encode(t, v):
    """The bits of value v (an exact small integer; 0/1 for .b1) in type t."""
    if t == "f16":
        return struct.unpack("<H", struct.pack("<e", float(v)))[0]
    if t == "bf16":
        return struct.unpack("<I", struct.pack("<f", float(v)))[0] >> 16  # exact: no rounding needed
    if t in ("f32", "tf32"):
        return struct.unpack("<I", struct.pack("<f", float(v)))[0]
    if t == "f64":
        return struct.unpack("<Q", struct.pack("<d", float(v)))[0]
    if t == "e4m3":  # 1 sign, 4 exponent (bias 7), 3 fraction bits (PTX ISA 5.2.3)
        return fp8(v, 4, 7)
    if t == "e5m2":  # 1 sign, 5 exponent (bias 15), 2 fraction bits
        return fp8(v, 5, 15)
    if t in ("s32", "s8", "s4"):
        return v & ((1 << BITS[t]) - 1)
    return v  # u8, u4, b1


def fp8(v, ebits, bias):
    mbits = 7 - ebits
    if v == 0:
        return 0
    s = 0x80 if v < 0 else 0
    a = abs(v)
    e = a.bit_length() - 1  # a = 2^e * (1 + f / 2^mbits), exactly (the values are chosen so)
    frac = (a - (1 << e)) * (1 << mbits) // (1 << e)
    assert (1 << e) + frac * (1 << e) // (1 << mbits) == a, "value not exact in the format"
    return s | ((e + bias) << mbits) | frac


def value_range(t):
    """Small values, exact in the type, whose products and sums stay exact."""
    return {"f16": (-3, 3), "bf16": (-3, 3), "tf32": (-3, 3), "f64": (-3, 3), "e4m3": (-3, 3),
            "e5m2": (-3, 3), "s8": (-128, 127), "u8": (0, 255), "s4": (-8, 7), "u4": (0, 15), "b1": (0, 1),
            "f32": (-20, 20), "s32": (-1000, 1000)}[t]


class Rng:  # a fixed linear congruential sequence: the same matrices every run
    def __init__(self, seed):
        self.x = seed

    def draw(self, lo, hi):
        self.x = (self.x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return lo + (self.x >> 33) % (hi - lo + 1)


# ---------------------------------------------------------------- the product


def main():
    form, out = sys.argv[1], sys.argv[2]
    parts = form.split(".")
    shape, alay, blay = parts[0], parts[1], parts[2]
    rest = [p for p in parts[3:] if p not in ("satfinite", "rn", "rz", "rm", "rp", "xor", "and", "popc")]
    dtype, atype, btype, ctype = rest
    bitop = "and" if "and" in parts else "xor"
    m = int(shape[1:shape.index("n")])
    n = int(shape[shape.index("n") + 1:shape.index("k")])
    k = int(shape[shape.index("k") + 1:])
    quad = shape == "m8n8k4" and atype == "f16"
    nq = 4 if quad else 1
    rng = Rng(sum(map(ord, form)))
    A = [[[rng.draw(*value_range(atype)) for _ in range(k)] for _ in range(m)] for _ in range(nq)]
    B = [[[rng.draw(*value_range(btype)) for _ in range(n)] for _ in range(k)] for _ in range(nq)]
    C = [[[rng.draw(*value_range(ctype)) for _ in range(n)] for _ in range(m)] for _ in range(nq)]
    if dtype == "f16" or ctype == "f16":  # keep D exact in binary16 (|d| <= 2048)
        C = [[[v % 7 - 3 for v in row] for row in mat] for mat in C]
    if ctype == "s32":  # a third of C near INT32_MAX or INT32_MIN: sums that overflow (wrap or .satfinite)
        C = [[[(2**31 - 1 - rng.draw(0, 3000) if (r + c) % 2 else -2**31 + rng.draw(0, 3000)) if (r + c) % 3 == 0 else v
               for c, v in enumerate(row)] for r, row in enumerate(mat)] for mat in C]
    D = [[[C[q][r][c] + sum((A[q][r][x] & B[q][x][c]) if bitop == "and" else (A[q][r][x] ^ B[q][x][c])
                            for x in range(k)) if atype == "b1"
           else C[q][r][c] + sum(A[q][r][x] * B[q][x][c] for x in range(k))
           for c in range(n)] for r in range(m)] for q in range(nq)]
    sat = "satfinite" in parts

    def clamp(v):
        if dtype == "s32":
            return max(-2**31, min(2**31 - 1, v)) if sat else ((v + 2**31) % 2**32) - 2**31
        return v
    D = [[[clamp(v) for v in row] for row in mat] for mat in D]

    lanes_per = 8 if quad else 32
    if quad:
        la, lb, lc, ld = quad_a(alay), quad_b(blay), quad_c(ctype), quad_c(dtype)
    else:
        fa, fb, fc = a_layout(shape, atype), b_layout(shape, btype), c_layout(shape)
        la = lambda lane, i: (0,) + fa(lane, i)
        lb = lambda lane, i: (0,) + fb(lane, i)
        lc = ld = lambda lane, i: (0,) + fc(lane, i)

    def regs(mats, layout, t, rows, cols):
        """Per lane, the register words of a fragment (each element placed by the layout)."""
        elems = rows * cols // lanes_per
        bits = BITS[t]
        per = 1 if bits == 64 else 32 // bits
        out = []
        seen = set()
        for lane in range(32):
            words = [0] * ((elems + per - 1) // per)
            for i in range(elems):
                q, r, c = layout(lane, i)
                assert (q, r, c) not in seen, f"two elements at {(q, r, c)}"
                seen.add((q, r, c))
                words[i // per] |= encode(t, mats[q][r][c]) << ((i % per) * bits)
            out.append(words)
        assert len(seen) == nq * rows * cols, "the layout misses elements"
        return out

    ra = regs(A, la, atype, m, k)
    rb = regs(B, lb, btype, k, n)
    rc = regs(C, lc, ctype, m, n)
    rd = regs(D, ld, dtype, m, n)
    wide = atype == "f64"
    fmt = "<Q" if wide else "<I"
    with open(out + ".in", "wb") as f:
        for lane in range(32):
            for w in ra[lane] + rb[lane] + rc[lane]:
                f.write(struct.pack(fmt, w))
    d = b"".join(struct.pack(fmt, w) for lane in range(32) for w in rd[lane])
    with open(out + ".check", "w") as f:
        f.write(f"CHECK: exit: ok threads=32\nCHECK-NEXT: buffer out {len(d)}: {d.hex()}\n")


if __name__ == "__main__":
    main()
