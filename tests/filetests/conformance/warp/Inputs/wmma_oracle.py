#!/usr/bin/env python3
"""Host oracle of wmma_nvcc.test: the matrices of Inputs/wmma_gemm.cu and their products,
computed here (small integers: every sum is exact in f16 and f32, in any order).

    wmma_oracle.py OUT LDA

Writes OUT.a (A row-major with leading dimension LDA, f16), OUT.b (B column-major, f16),
OUT.ch (Ch column-major, f16) and OUT.check (FileCheck lines for the buffers c and ch after
the kernel: c = 2 * (A * B + 1) row-major f32, ch = Ch + A * B column-major f16)."""
import struct
import sys

out, lda = sys.argv[1], int(sys.argv[2])
A = [[(3 * i + 5 * k) % 7 - 3 for k in range(16)] for i in range(16)]
B = [[(2 * k + 3 * j) % 5 - 2 for j in range(16)] for k in range(16)]
Ch = [[(i + 2 * j) % 9 - 4 for j in range(16)] for i in range(16)]
AB = [[sum(A[i][k] * B[k][j] for k in range(16)) for j in range(16)] for i in range(16)]
h = lambda v: struct.pack("<e", float(v))
with open(out + ".a", "wb") as f:
    f.write(b"".join(h(A[i][k]) if k < 16 else h(0) for i in range(16) for k in range(lda)))
with open(out + ".b", "wb") as f:
    f.write(b"".join(h(B[k][j]) for j in range(16) for k in range(16)))
with open(out + ".ch", "wb") as f:
    f.write(b"".join(h(Ch[i][j]) for j in range(16) for i in range(16)))
c = b"".join(struct.pack("<f", 2.0 * (AB[i][j] + 1)) for i in range(16) for j in range(16))
ch = b"".join(h(Ch[i][j] + AB[i][j]) for j in range(16) for i in range(16))
with open(out + ".check", "w") as f:
    f.write("CHECK: exit: ok threads=32\n")
    f.write(f"CHECK-NEXT: buffer c 1024: {c.hex()}\n")
    f.write(f"CHECK-NEXT: buffer ch 512: {ch.hex()}\n")
