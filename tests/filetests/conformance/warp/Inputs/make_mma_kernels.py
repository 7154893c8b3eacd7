#!/usr/bin/env python3
"""Writes the mma_*.ptx conformance kernels of this folder (run once; the kernels are committed).
Each kernel: lane l loads its A, B and C registers from in + l * (their bytes), runs one mma.sync
and stores its D registers to out + l * (their bytes). mma_oracle.py computes what `out` holds."""
import os

FORMS = [
    ("m16n8k16.row.col.f16.f16.f16.f16", 4, 2, 2, 2),
    ("m16n8k16.row.col.f32.f16.f16.f32", 4, 2, 4, 4),
    ("m16n8k8.row.col.f16.f16.f16.f16", 2, 1, 2, 2),
    ("m16n8k8.row.col.f32.f16.f16.f32", 2, 1, 4, 4),
    ("m8n8k4.row.col.f16.f16.f16.f16", 2, 2, 4, 4),
    ("m8n8k4.col.row.f32.f16.f16.f32", 2, 2, 8, 8),
    ("m8n8k4.row.row.f32.f16.f16.f16", 2, 2, 4, 8),
    ("m8n8k4.col.col.f16.f16.f16.f16", 2, 2, 4, 4),
    ("m16n8k16.row.col.f32.bf16.bf16.f32", 4, 2, 4, 4),
    ("m16n8k8.row.col.f32.bf16.bf16.f32", 2, 1, 4, 4),
    ("m16n8k4.row.col.f32.tf32.tf32.f32", 2, 1, 4, 4),
    ("m16n8k8.row.col.f32.tf32.tf32.f32", 4, 2, 4, 4),
    ("m16n8k32.row.col.f32.e4m3.e5m2.f32", 4, 2, 4, 4),
    ("m16n8k32.row.col.f16.e5m2.e4m3.f16", 4, 2, 2, 2),
    ("m16n8k16.row.col.f32.e4m3.e4m3.f32", 2, 1, 4, 4),
    ("m8n8k4.row.col.f64.f64.f64.f64", 1, 1, 2, 2),
    ("m16n8k4.row.col.rz.f64.f64.f64.f64", 2, 1, 4, 4),
    ("m16n8k8.row.col.f64.f64.f64.f64", 4, 2, 4, 4),
    ("m16n8k16.row.col.f64.f64.f64.f64", 8, 4, 4, 4),
    ("m8n8k16.row.col.s32.s8.u8.s32", 1, 1, 2, 2),
    ("m16n8k16.row.col.satfinite.s32.u8.s8.s32", 2, 1, 4, 4),
    ("m16n8k32.row.col.satfinite.s32.s8.s8.s32", 4, 2, 4, 4),
    ("m16n8k32.row.col.s32.u8.u8.s32", 4, 2, 4, 4),
    ("m8n8k32.row.col.satfinite.s32.s4.u4.s32", 1, 1, 2, 2),
    ("m16n8k32.row.col.s32.u4.s4.s32", 2, 1, 4, 4),
    ("m16n8k64.row.col.satfinite.s32.s4.s4.s32", 4, 2, 4, 4),
    ("m8n8k128.row.col.s32.b1.b1.s32.xor.popc", 1, 1, 2, 2),
    ("m16n8k128.row.col.s32.b1.b1.s32.and.popc", 2, 1, 4, 4),
    ("m16n8k256.row.col.s32.b1.b1.s32.xor.popc", 4, 2, 4, 4),
]


EDGES = [
    ("m16n8k8.row.col.f32.f16.f16.f32", 2, 1, 4, 4),
    ("m16n8k8.row.col.f16.f16.f16.f16", 2, 1, 2, 2),
    ("m8n8k4.row.col.f64.f64.f64.f64", 1, 1, 2, 2),
    ("m8n8k4.row.col.rz.f64.f64.f64.f64", 1, 1, 2, 2),
    ("m8n8k4.row.col.rm.f64.f64.f64.f64", 1, 1, 2, 2),
    ("m8n8k4.row.col.rp.f64.f64.f64.f64", 1, 1, 2, 2),
]


def kernel(form, na, nb, nc, nd, oracle="mma_oracle.py", prefix="mma_"):
    f64 = ".f64." in "." + form + "."
    types = [p for p in form.split(".") if p in ("f16", "f32", "f64", "s32", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "s4", "u4", "b1")]
    dtype, ctype = types[0], types[3]
    w = 8 if f64 else 4
    reg = lambda t: ".f64" if t == "f64" else ".f32" if t == "f32" else ".b32"
    ld = lambda t: "f64" if t == "f64" else "f32" if t == "f32" else "b32"
    name = prefix + form.replace(".", "_")
    lines = [
        f"// mma.sync.aligned.{form} by one warp; D = A * B + C from the ISA's fragment tables.",
        f"// The expected `out` comes from Inputs/{oracle}, a host matrix product written from",
        "// the PTX ISA 9.0 layout formulas (9.7.14.5), sharing no code with oriopt"
        + ("." if oracle == "mma_oracle.py" else "; edge values (its docstring says which and why)."),
        "// REQUIRES: ptxas",
        f"// RUN: %python %S/Inputs/{oracle} {form} %t",
        "// RUN: %ptxas -arch=sm_90 %s -o %t.in.cubin",
        f"// RUN: %oriopt --run --threads 32 --buffer in=@%t.in --buffer out={32 * nd * w} --dump-buffer out %s | FileCheck %t.check",
        "// RUN: %oriopt --emit=ptx %s -o %t.ptx",
        "// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin",
        f"// RUN: %oriopt --run --threads 32 --buffer in=@%t.in --buffer out={32 * nd * w} --dump-buffer out %t.ptx | FileCheck %t.check",
        f"// RUN: %oriopt --pipeline=ptxas -O3 --run --threads 32 --buffer in=@%t.in --buffer out={32 * nd * w} --dump-buffer out %s | FileCheck %t.check",
        "// RUN: FileCheck %s --check-prefix=EMIT < %t.ptx",
        f"// EMIT: mma.sync.aligned.{form} ",
        "",
        ".version 8.8",
        ".target sm_90",
        ".address_size 64",
        "",
        f".visible .entry {name}(.param .u64 in, .param .u64 out)",
        "{",
        "  .reg .b32 %lane;",
        "  .reg .b64 %rd<7>;",
        f"  .reg {reg(types[1])} %a<{na}>;",
        f"  .reg {reg(types[2])} %b<{nb}>;",
        f"  .reg {reg(ctype)} %c<{nc}>;",
        f"  .reg {reg(dtype)} %d<{nd}>;",
        "  ld.param.u64 %rd1, [in];",
        "  ld.param.u64 %rd2, [out];",
        "  cvta.to.global.u64 %rd1, %rd1;",
        "  cvta.to.global.u64 %rd2, %rd2;",
        "  mov.u32 %lane, %laneid;",
        f"  mul.wide.u32 %rd3, %lane, {(na + nb + nc) * w};",
        "  add.s64 %rd4, %rd1, %rd3;",
    ]
    off = 0
    for p, n, t in (("a", na, types[1]), ("b", nb, types[2]), ("c", nc, ctype)):
        for i in range(n):
            lines.append(f"  ld.global.{ld(t)} %{p}{i}, [%rd4+{off}];")
            off += w
    vec = lambda p, n: "{" + ", ".join(f"%{p}{i}" for i in range(n)) + "}"
    lines.append(f"  mma.sync.aligned.{form} {vec('d', nd)}, {vec('a', na)}, {vec('b', nb)}, {vec('c', nc)};")
    lines += [f"  mul.wide.u32 %rd5, %lane, {nd * w};", "  add.s64 %rd6, %rd2, %rd5;"]
    for i in range(nd):
        lines.append(f"  st.global.{ld(dtype)} [%rd6+{i * w}], %d{i};")
    lines += ["  ret;", "}", ""]
    return name, "\n".join(lines)


here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for form in FORMS:
    name, text = kernel(*form)
    with open(os.path.join(here, name + ".ptx"), "w") as f:
        f.write(text)
for form in EDGES:
    name, text = kernel(*form, oracle="mma_edges.py", prefix="mma_edges_")
    with open(os.path.join(here, name + ".ptx"), "w") as f:
        f.write(text)
