#!/usr/bin/env python3
"""Writes the ldmatrix/stmatrix/movmatrix conformance kernels of this folder (run once; the
kernels, with their expected buffers, are committed). The expected values follow the PTX ISA
9.0 text (9.7.14.5.15 to .17): for an 8x8 matrix of 16-bit elements "each thread in a warp
loads fragments of a row, with thread 0 receiving the first fragment in its register ... a
group of four threads loads an entire row": lane l holds row l/4, columns 2(l%4) (low half)
and 2(l%4)+1 (high half); matrix j of .x2/.x4 in register j, its rows at the addresses of
lanes 8j..8j+7; .trans loads the matrix column-major: lane l holds column l/4, rows 2(l%4) and
2(l%4)+1. movmatrix's result is the transpose of the matrix its source fragments hold."""
import os
import struct

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def elem(j, r, c):  # matrix j, row r, column c: distinct 16-bit values
    return 0x100 * (j + 1) + 0x10 * r + c


def frag(j, lane, trans):
    g, t = lane // 4, lane % 4
    if trans:
        return elem(j, 2 * t, g) | elem(j, 2 * t + 1, g) << 16
    return elem(j, g, 2 * t) | elem(j, g, 2 * t + 1) << 16


def header(what, extra_runs, regs):
    return f"""// {what}
// Expected values: Inputs/make_ldmatrix_kernels.py, from the PTX ISA 9.0 text (9.7.14.5.15-17):
// lane l holds row l/4, columns 2(l%4) and 2(l%4)+1 of an 8x8 matrix (.trans: column l/4,
// rows 2(l%4) and 2(l%4)+1); matrix j in register j, its rows at the addresses of lanes 8j..8j+7.
// Element (j, r, c) of the matrices is 0x100 * (j + 1) + 0x10 * r + c; row r of matrix j is
// stored at byte 128 * j + 16 * (7 - r) of the shared array (rows in reverse order).
// REQUIRES: ptxas
// RUN: %ptxas -arch=sm_90 %s -o %t.in.cubin
// RUN: %oriopt --run --threads 32 --buffer out={32 * 4 * regs} --dump-buffer out %s | FileCheck %s
// RUN: %oriopt --emit=ptx %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %oriopt --run --threads 32 --buffer out={32 * 4 * regs} --dump-buffer out %t.ptx | FileCheck %s
// RUN: %oriopt --pipeline=ptxas -O3 --run --threads 32 --buffer out={32 * 4 * regs} --dump-buffer out %s | FileCheck %s
{extra_runs}"""


def words(lane, regs_fn):
    return b"".join(struct.pack("<I", w) for w in regs_fn(lane))


def fill_lines():
    # thread l stores row r = l % 8 of matrix j = l // 8: four words, word c2 = element(j, r, 2 c2)
    # | element(j, r, 2 c2 + 1) << 16 = (base + 2 c2) | (base + 2 c2 + 1) << 16 with base =
    # 0x100 (j + 1) + 0x10 r, that is base * 0x10001 + 0x10000 + 2 c2 * 0x10001.
    return """  mov.u32 %lane, %laneid;
  shr.u32 %j, %lane, 3;
  and.b32 %r, %lane, 7;
  shl.b32 %off, %j, 7;
  sub.u32 %t0, 7, %r;
  shl.b32 %t0, %t0, 4;
  add.u32 %off, %off, %t0;
  mov.u32 %addr, sm;
  add.u32 %addr, %addr, %off;
  add.u32 %t0, %j, 1;
  shl.b32 %t0, %t0, 8;
  shl.b32 %t1, %r, 4;
  add.u32 %t0, %t0, %t1;
  mul.lo.u32 %w, %t0, 0x10001;
  add.u32 %w, %w, 0x10000;
  st.shared.u32 [%addr], %w;
  add.u32 %w, %w, 0x20002;
  st.shared.u32 [%addr+4], %w;
  add.u32 %w, %w, 0x20002;
  st.shared.u32 [%addr+8], %w;
  add.u32 %w, %w, 0x20002;
  st.shared.u32 [%addr+12], %w;
  bar.sync 0;
"""


DECLS = """  .reg .b32 %lane, %j, %r, %off, %t0, %t1, %w, %addr, %q<4>;
  .reg .b64 %rd<6>, %gaddr;
  .shared .align 16 .b8 sm[512];
"""

STORE = """  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %lane, {bytes};
  add.s64 %rd3, %rd1, %rd2;
"""


def ldmatrix(n, trans, generic):
    form = f"ldmatrix.sync.aligned.m8n8.x{n}{'.trans' if trans else ''}{'' if generic else '.shared'}.b16"
    name = f"ldmatrix_x{n}{'_trans' if trans else ''}{'_generic' if generic else ''}"
    exp = b"".join(words(l, lambda l: [frag(j, l, trans) for j in range(n)]) for l in range(32))
    checks = f"// CHECK: exit: ok threads=32\n// CHECK-NEXT: buffer out {len(exp)}: {exp.hex()}\n"
    addr = "[%gaddr]" if generic else "[%addr]"
    body = [".version 8.8", ".target sm_90", ".address_size 64", "",
            f".visible .entry {name}(.param .u64 out)", "{", DECLS.rstrip("\n"), fill_lines().rstrip("\n")]
    body.append("  // lane 8j + r gives the address of row r of matrix j")
    if generic:
        body += ["  cvt.u64.u32 %rd4, %addr;", "  cvta.shared.u64 %gaddr, %rd4;"]
    regs = "{" + ", ".join(f"%q{j}" for j in range(n)) + "}"
    body.append(f"  {form} {regs}, {addr};")
    body.append(STORE.format(bytes=4 * n).rstrip("\n"))
    for j in range(n):
        body.append(f"  st.global.u32 [%rd3+{4 * j}], %q{j};")
    body += ["  ret;", "}", ""]
    what = f"{form}: {n} matri{'ces' if n > 1 else 'x'} from shared memory{' (a generic address)' if generic else ''}."
    text = header(what, f"// RUN: FileCheck %s --check-prefix=EMIT < %t.ptx\n// EMIT: ldmatrix.sync.aligned.m8n8.x{n}{'.trans' if trans else ''}.shared.b16\n", n)
    return name, text + checks + "\n" + "\n".join(body)


def stmatrix(n, trans):
    # Each lane writes fragments frag(j, lane, trans) of matrices 0..n-1; stmatrix stores them
    # (the inverse of ldmatrix), so row r of matrix j in memory is elements (j, r, 0..7); then
    # ld.shared reads back row (lane % 8) of matrix (lane // 8) word by word (4 words).
    form = f"stmatrix.sync.aligned.m8n8.x{n}{'.trans' if trans else ''}.shared.b16"
    name = f"stmatrix_x{n}{'_trans' if trans else ''}"
    def row_words(lane):
        j, r = lane // 8, lane % 8
        if j >= n:
            return [0, 0, 0, 0]
        return [elem(j, r, 2 * c) | elem(j, r, 2 * c + 1) << 16 for c in range(4)]
    exp = b"".join(words(l, row_words) for l in range(32))
    checks = f"// CHECK: exit: ok threads=32\n// CHECK-NEXT: buffer out {len(exp)}: {exp.hex()}\n"
    body = [".version 8.8", ".target sm_90", ".address_size 64", "",
            f".visible .entry {name}(.param .u64 out)", "{", DECLS.rstrip("\n"),
            "  mov.u32 %lane, %laneid;", "  shr.u32 %j, %lane, 3;", "  and.b32 %r, %lane, 7;",
            "  // the fragment of matrix m: lo = 0x100 (m + 1) + 0x10 row + col, hi = lo + (trans ? 0x10 : 1)"]
    # fragment values computed in the kernel from the lane: g = lane / 4, t = lane % 4
    body += ["  shr.u32 %t0, %lane, 2;", "  and.b32 %t1, %lane, 3;", "  shl.b32 %t1, %t1, 1;"]
    for m in range(n):
        if trans:  # lo = elem(m, 2t, g) = 0x100(m+1) + 0x10 * 2t + g, hi = elem(m, 2t+1, g) = lo + 0x10
            body += [f"  shl.b32 %w, %t1, 4;", f"  add.u32 %w, %w, %t0;", f"  add.u32 %w, %w, {0x100 * (m + 1)};",
                     f"  mul.lo.u32 %q{m}, %w, 0x10001;", f"  add.u32 %q{m}, %q{m}, 0x100000;"]
        else:  # lo = elem(m, g, 2t) = 0x100(m+1) + 0x10 g + 2t, hi = lo + 1
            body += [f"  shl.b32 %w, %t0, 4;", f"  add.u32 %w, %w, %t1;", f"  add.u32 %w, %w, {0x100 * (m + 1)};",
                     f"  mul.lo.u32 %q{m}, %w, 0x10001;", f"  add.u32 %q{m}, %q{m}, 0x10000;"]
    body += ["  // lane 8j + r gives the address of row r of matrix j: 128 j + 16 r",
             "  shl.b32 %off, %lane, 4;", "  mov.u32 %addr, sm;", "  add.u32 %addr, %addr, %off;"]
    regs = "{" + ", ".join(f"%q{j}" for j in range(n)) + "}"
    body.append(f"  {form} [%addr], {regs};")
    body.append("  bar.sync 0;")
    body += ["  ld.shared.u32 %q0, [%addr];", "  ld.shared.u32 %q1, [%addr+4];", "  ld.shared.u32 %q2, [%addr+8];",
             "  ld.shared.u32 %q3, [%addr+12];"]
    body.append(STORE.format(bytes=16).rstrip("\n"))
    for j in range(4):
        body.append(f"  st.global.u32 [%rd3+{4 * j}], %q{j};")
    body += ["  ret;", "}", ""]
    what = f"{form}: {n} matri{'ces' if n > 1 else 'x'} to shared memory, read back row by row."
    text = header(what, f"// RUN: FileCheck %s --check-prefix=EMIT < %t.ptx\n// EMIT: {form}\n", 4)
    text = text.replace("Element (j, r, c) of the matrices is", "Lane l's fragment of matrix j holds (as above) element (j, r, c) =")
    text = text.replace("row r of matrix j is\n// stored at byte 128 * j + 16 * (7 - r) of the shared array (rows in reverse order).",
                        "lane l reads back the\n// 16 bytes at 16 l: row l % 8 of matrix l / 8 (zeros past the matrices stored).")
    return name, text + checks + "\n" + "\n".join(body)


def movmatrix():
    name = "movmatrix_trans"
    # lane l's source: the row-major fragment of matrix 0; its result: the transpose's fragment,
    # that is frag(0, l, trans=True).
    exp = b"".join(words(l, lambda l: [frag(0, l, True)]) for l in range(32))
    checks = f"// CHECK: exit: ok threads=32\n// CHECK-NEXT: buffer out {len(exp)}: {exp.hex()}\n"
    body = [".version 8.8", ".target sm_90", ".address_size 64", "",
            f".visible .entry {name}(.param .u64 out)", "{", "  .reg .b32 %lane, %t0, %t1, %w, %a, %d;",
            "  .reg .b64 %rd<4>;", "  mov.u32 %lane, %laneid;",
            "  // a = element (0, g, 2t) | element (0, g, 2t + 1) << 16 with g = lane / 4, t = lane % 4",
            "  shr.u32 %t0, %lane, 2;", "  and.b32 %t1, %lane, 3;", "  shl.b32 %t1, %t1, 1;",
            "  shl.b32 %w, %t0, 4;", "  add.u32 %w, %w, %t1;", "  add.u32 %w, %w, 0x100;",
            "  mul.lo.u32 %a, %w, 0x10001;", "  add.u32 %a, %a, 0x10000;",
            "  movmatrix.sync.aligned.m8n8.trans.b16 %d, %a;",
            STORE.format(bytes=4).rstrip("\n"), "  st.global.u32 [%rd3], %d;", "  ret;", "}", ""]
    text = header("movmatrix.sync.aligned.m8n8.trans.b16: the transpose of the matrix the lanes hold.",
                  "// RUN: FileCheck %s --check-prefix=EMIT < %t.ptx\n// EMIT: movmatrix.sync.aligned.m8n8.trans.b16\n", 1)
    text = text.replace("Element (j, r, c) of the matrices is", "Element (0, r, c) of the source matrix is")
    text = text.replace("; row r of matrix j is\n// stored at byte 128 * j + 16 * (7 - r) of the shared array (rows in reverse order).",
                        " (the lanes compute\n// their row-major fragments); the result is the transposed layout (.trans above).")
    return name, text + checks + "\n" + "\n".join(body)


for name, text in [ldmatrix(4, False, False), ldmatrix(4, True, False), ldmatrix(2, False, False),
                   ldmatrix(1, True, True), stmatrix(4, False), stmatrix(2, True), stmatrix(1, False), movmatrix()]:
    with open(os.path.join(HERE, name + ".ptx"), "w") as f:
        f.write(text)
