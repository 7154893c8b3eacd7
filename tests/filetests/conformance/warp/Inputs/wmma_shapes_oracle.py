#!/usr/bin/env python3
"""Host oracle of wmma_shapes.test: for a kernel of Inputs/wmma_shapes.cu (by its name:
type_mMnNkK_{r,c}a_{r,c}b_{r,c}c[_ctype | _d32c16 | _d16c32]) writes OUT.a, OUT.b, OUT.c (A, B, C in the layouts
the name gives) and OUT.check (FileCheck lines for d = a * b + c). Small integers: exact in
every type and every order of accumulation."""
import re
import struct
import sys

name, out = sys.argv[1], sys.argv[2]
m = re.match(r"(h|bf|s8|u8|tf|d|s4|u4|b1and|b1xor)_m(\d+)n(\d+)k(\d+)_([rc])a_([rc])b_([rc])c(?:_(f16|f32|d32c16|d16c32))?$", name)
kind, M, N, K, la, lb, lc, ct = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), m.group(5), m.group(6), m.group(7), m.group(8)
ab_fmt = {"h": "<e", "s8": "<b", "u8": "<B", "tf": "<f", "d": "<d"}.get(kind)
c_fmt = {"h": "<f" if ct in ("f32", "d16c32") else "<e", "bf": "<f", "tf": "<f", "d": "<d"}.get(kind, "<i")
d_fmt = {"d32c16": "<f", "d16c32": "<e"}.get(ct, c_fmt)  # the mixed kernels: D's type, then C's
lo, hi = {"s8": (-128, 127), "u8": (0, 255), "s4": (-8, 7), "u4": (0, 15), "b1and": (0, 1), "b1xor": (0, 1)}.get(kind, (-3, 3))
bits = {"s4": 4, "u4": 4, "b1and": 1, "b1xor": 1}.get(kind, 0)  # sub-byte: packed, element 0 in the lowest bits


def enc_ab(v):
    if kind == "bf":
        return struct.pack("<I", struct.unpack("<I", struct.pack("<f", float(v)))[0])[2:]  # the high half
    return struct.pack(ab_fmt, v if kind in ("s8", "u8") else float(v))


def enc_c(v):
    return struct.pack(c_fmt, v if c_fmt == "<i" else float(v))


def enc_d(v):
    return struct.pack(d_fmt, v if d_fmt == "<i" else float(v))


seed = [sum(map(ord, name))]


def draw(a, b):
    seed[0] = (seed[0] * 1103515245 + 12345) % (1 << 31)
    return a + seed[0] % (b - a + 1)


A = [[draw(lo, hi) for _ in range(K)] for _ in range(M)]
B = [[draw(lo, hi) for _ in range(N)] for _ in range(K)]
C = [[draw(-5, 5) for _ in range(N)] for _ in range(M)]
if kind.startswith("b1"):  # the popc of the AND / XOR of row i of A and column j of B
    op = (lambda x, y: x & y) if kind == "b1and" else (lambda x, y: x ^ y)
    D = [[C[i][j] + sum(op(A[i][k], B[k][j]) for k in range(K)) for j in range(N)] for i in range(M)]
else:
    D = [[C[i][j] + sum(A[i][k] * B[k][j] for k in range(K)) for j in range(N)] for i in range(M)]


def layout(mat, rows, cols, row_major, enc):
    if bits and enc is enc_ab:  # packed sub-byte elements, in element order
        order = [(i, j) for i in range(rows) for j in range(cols)] if row_major else [(i, j) for j in range(cols) for i in range(rows)]
        v = 0
        for n, (i, j) in enumerate(order):
            v |= (mat[i][j] & ((1 << bits) - 1)) << (n * bits)
        return v.to_bytes(len(order) * bits // 8, "little")
    if row_major:
        return b"".join(enc(mat[i][j]) for i in range(rows) for j in range(cols))
    return b"".join(enc(mat[i][j]) for j in range(cols) for i in range(rows))


open(out + ".a", "wb").write(layout(A, M, K, la == "r", enc_ab))
open(out + ".b", "wb").write(layout(B, K, N, lb == "r", enc_ab))
open(out + ".c", "wb").write(layout(C, M, N, lc == "r", enc_c))
d = layout(D, M, N, lc == "r", enc_d)
with open(out + ".check", "w") as f:
    f.write(f"CHECK: exit: ok threads=32\nCHECK-NEXT: buffer d {len(d)}: {d.hex()}\n")
print(len(d))
