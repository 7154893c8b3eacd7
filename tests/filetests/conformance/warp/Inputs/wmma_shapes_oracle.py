#!/usr/bin/env python3
"""Host oracle of wmma_shapes.test: for a kernel of Inputs/wmma_shapes.cu (by its name:
type_mMnNkK_{r,c}a_{r,c}b_{r,c}c[_ctype]) writes OUT.a, OUT.b, OUT.c (A, B, C in the layouts
the name gives) and OUT.check (FileCheck lines for d = a * b + c). Small integers: exact in
every type and every order of accumulation."""
import re
import struct
import sys

name, out = sys.argv[1], sys.argv[2]
m = re.match(r"(h|bf|s8|u8|tf|d)_m(\d+)n(\d+)k(\d+)_([rc])a_([rc])b_([rc])c(?:_(f16|f32))?$", name)
kind, M, N, K, la, lb, lc, ct = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), m.group(5), m.group(6), m.group(7), m.group(8)
ab_fmt = {"h": "<e", "bf": None, "s8": "<b", "u8": "<B", "tf": "<f", "d": "<d"}[kind]
c_fmt = {"h": "<f" if ct == "f32" else "<e", "bf": "<f", "s8": "<i", "u8": "<i", "tf": "<f", "d": "<d"}[kind]
lo, hi = {"s8": (-128, 127), "u8": (0, 255)}.get(kind, (-3, 3))


def enc_ab(v):
    if kind == "bf":
        return struct.pack("<I", struct.unpack("<I", struct.pack("<f", float(v)))[0])[2:]  # the high half
    return struct.pack(ab_fmt, v if kind in ("s8", "u8") else float(v))


def enc_c(v):
    return struct.pack(c_fmt, v if kind in ("s8", "u8") else float(v))


seed = [sum(map(ord, name))]


def draw(a, b):
    seed[0] = (seed[0] * 1103515245 + 12345) % (1 << 31)
    return a + seed[0] % (b - a + 1)


A = [[draw(lo, hi) for _ in range(K)] for _ in range(M)]
B = [[draw(lo, hi) for _ in range(N)] for _ in range(K)]
C = [[draw(-5, 5) for _ in range(N)] for _ in range(M)]
D = [[C[i][j] + sum(A[i][k] * B[k][j] for k in range(K)) for j in range(N)] for i in range(M)]


def layout(mat, rows, cols, row_major, enc):
    if row_major:
        return b"".join(enc(mat[i][j]) for i in range(rows) for j in range(cols))
    return b"".join(enc(mat[i][j]) for j in range(cols) for i in range(rows))


open(out + ".a", "wb").write(layout(A, M, K, la == "r", enc_ab))
open(out + ".b", "wb").write(layout(B, K, N, lb == "r", enc_ab))
open(out + ".c", "wb").write(layout(C, M, N, lc == "r", enc_c))
d = layout(D, M, N, lc == "r", enc_c)
with open(out + ".check", "w") as f:
    f.write(f"CHECK: exit: ok threads=32\nCHECK-NEXT: buffer d {len(d)}: {d.hex()}\n")
print(len(d))
