// PTX -> Ori: surface loads and stores (docs/interpreter.md, "Surfaces").
//   suld.b.{1d,2d,3d}[.v2|.v4].{b8,b16,b32,b64}[.trap|.clamp|.zero] d, [h, coords]
//     -> SULD.{1D,2D,3D}[.V2|.V4][.U8|.U16|.64].{TRAP,CLAMP,ZERO} d0[, d1, ...], h, x[, y[, z]]
//   sust.b.... [h, coords], v -> SUST.... h, x[, y[, z]], v0[, v1, ...]
// h is a .u64 register holding a surface object; x is a byte offset (suld.b/sust.b do not
// scale it). PTX's mode defaults to .trap. A 3d coordinate vector has four elements, the last
// ignored. Stay OPAQUE: formatted accesses (suld.p, sust.p), surface arrays (.a1d, .a2d,
// .a2dms ...), .surfref symbols as the handle, and cache hints. A coordinate or value count
// that does not match the geometry or the vector is an error at the operand.
//   tex{.level|.grad}.{1d,2d,3d}.v4.{f32,u32,s32}.{f32,s32} d, [h, coords]{, lod}{, dx, dy}
//     -> TEX.{1D,2D,3D}.{F32,U32,S32}[.ICOORD][.LOD|.GRAD] d0, d1, d2, d3, h, x[, y[, z]]
//        [, lod][, dx.., dy..]
// on a texture object in a .u64 register, or on a module's `.global .texref` (the old form,
// `[tex, {x, y, z, w}]`: the symbol itself is the handle operand). Stay OPAQUE: separate samplers,
// arrays and cube maps, the sparse form (d|p), offsets and depth compares, tld4, and the
// element types other than .f32/.u32/.s32.
#include <fmt/format.h>

#include "ptx/lowering.h"

namespace ori::ptx::lowering {

bool Lowering::surface() {
  const bool isLoad = pi.opcode == "suld";
  onlyMods(pi, {".b", ".1d", ".2d", ".3d", ".v2", ".v4", ".trap", ".clamp", ".zero"});
  if (!hasMod(pi, ".b"))
    return false;
  need(2);
  const unsigned dims = hasMod(pi, ".1d") ? 1 : hasMod(pi, ".2d") ? 2 : hasMod(pi, ".3d") ? 3 : 0;
  if (dims == 0)
    return false;
  const unsigned elems = hasMod(pi, ".v4") ? 4 : hasMod(pi, ".v2") ? 2 : 1;
  const PtxType t = lastType(pi);
  if (!t.isInt() || (t.bits != 8 && t.bits != 16 && t.bits != 32 && t.bits != 64))
    return false;
  if (types(pi).size() != 1)
    return false;
  if (elems == 4 && t.bits == 64)
    L.fail(pi.loc, "surface accesses have no .v4 of .b64 elements");
  const Operand &addr = isLoad ? ops[1] : ops[0];
  const Operand &data = isLoad ? ops[0] : ops[1];
  if (addr.kind != Operand::Kind::Address || addr.name.empty() || addr.ival != 0 ||
      addr.elems.size() != 1)
    return false;
  NameRef h = L.resolve(addr.name);
  if (h.kind != NameRef::Register || !h.reg.isGeneral())
    return false; // a .surfref: stays OPAQUE
  // The coordinates: {x}, x, {x, y} or {x, y, z, _} (the fourth of a 3d vector is ignored).
  std::vector<const Operand *> coords;
  const Operand &c = addr.elems[0];
  if (c.kind == Operand::Kind::Vector)
    for (const Operand &e : c.elems)
      coords.push_back(&e);
  else
    coords.push_back(&c);
  const size_t wantCoords = dims == 3 ? 4 : dims;
  if (coords.size() != wantCoords)
    L.fail(c.loc, fmt::format("a {}d surface takes {} coordinate{}, not {}", dims, wantCoords,
                              wantCoords > 1 ? "s" : "", coords.size()));
  coords.resize(dims);
  std::vector<const Operand *> values;
  if (data.kind == Operand::Kind::Vector)
    for (const Operand &e : data.elems)
      values.push_back(&e);
  else
    values.push_back(&data);
  if (values.size() != elems)
    L.fail(data.loc, fmt::format("{} takes {} {}, not {}", isLoad ? "suld" : "sust", elems,
                                 isLoad ? (elems > 1 ? "destinations" : "destination")
                                        : (elems > 1 ? "values" : "value"),
                                 values.size()));
  const PtxType s32{PtxType::Signed, 32};
  std::vector<OOp> srcs{reg(h.reg)};
  for (const Operand *k : coords) {
    if (k->kind == Operand::Kind::Sink)
      L.fail(k->loc, "a surface coordinate cannot be '_'");
    srcs.push_back(L.source(*k, s32, ori::K_REG | ori::K_IMM));
  }
  std::vector<OOp> dsts;
  const PtxType vt = t.bits < 32 ? PtxType{PtxType::Bits, 32} : t;
  for (const Operand *v : values) {
    if (isLoad)
      dsts.push_back(reg(L.destination(*v)));
    else if (v->kind == Operand::Kind::Sink)
      L.fail(v->loc, "sust cannot store '_'");
    else
      srcs.push_back(L.source(*v, vt, ori::K_REG | ori::K_IMM));
  }
  static constexpr Mod kDims[] = {Mod::D1, Mod::D2, Mod::D3};
  Mod mode = hasMod(pi, ".clamp") ? Mod::CLAMP : hasMod(pi, ".zero") ? Mod::ZERO : Mod::TRAP;
  ori::Instr in = make(isLoad ? Opcode::SULD : Opcode::SUST, {kDims[dims - 1], mode},
                       std::move(dsts), std::move(srcs));
  if (elems == 2)
    in.mods.set(Mod::V2);
  if (elems == 4)
    in.mods.set(Mod::V4);
  if (t.bits == 8)
    in.mods.set(Mod::U8);
  if (t.bits == 16)
    in.mods.set(Mod::U16);
  if (t.bits == 64)
    in.mods.set(Mod::W64);
  emit(std::move(in));
  return true;
}

bool Lowering::texture() {
  onlyMods(pi, {".1d", ".2d", ".3d", ".v4", ".level", ".grad"});
  const unsigned dims = hasMod(pi, ".1d") ? 1 : hasMod(pi, ".2d") ? 2 : hasMod(pi, ".3d") ? 3 : 0;
  if (dims == 0 || !hasMod(pi, ".v4"))
    return false;
  const bool level = hasMod(pi, ".level"), grad = hasMod(pi, ".grad");
  if ((level && grad) || (grad && dims == 3))
    return false;
  std::vector<PtxType> ts = types(pi);
  if (ts.size() != 2)
    return false;
  const PtxType rt = ts[0], ct = ts[1];
  if (rt.bits != 32 ||
      (rt.kind != PtxType::Float && rt.kind != PtxType::Unsigned && rt.kind != PtxType::Signed))
    return false;
  if (ct.bits != 32 || (ct.kind != PtxType::Float && ct.kind != PtxType::Signed))
    return false;
  if (ops.size() != size_t(2 + (level ? 1 : 0) + (grad ? 2 : 0)))
    return false;
  const Operand &d = ops[0];
  const Operand &addr = ops[1];
  if (d.kind != Operand::Kind::Vector)
    return false;
  if (addr.kind != Operand::Kind::Address || addr.name.empty() || addr.ival != 0 ||
      addr.elems.size() != 1)
    return false;
  NameRef h = L.resolve(addr.name);
  // The handle: a texture object in a .u64 register, or a module's .texref by name (the old
  // form; the host binds the reference, the interpreter a surface of that name).
  const bool texref = h.kind == NameRef::None && L.isTexref(addr.name);
  if (!texref && (h.kind != NameRef::Register || !h.reg.isGeneral()))
    return false;
  if (d.elems.size() != 4)
    L.fail(d.loc, fmt::format("tex.v4 takes 4 destinations, not {}", d.elems.size()));
  auto elemsOf = [](const Operand &o) {
    std::vector<const Operand *> out;
    if (o.kind == Operand::Kind::Vector)
      for (const Operand &e : o.elems)
        out.push_back(&e);
    else
      out.push_back(&o);
    return out;
  };
  std::vector<const Operand *> coords = elemsOf(addr.elems[0]);
  const size_t wantCoords = dims == 3 ? 4 : dims;
  // The old .texref form gives every geometry a four-element vector; the ones past the
  // geometry's are ignored (PTX ISA 1.x tex).
  if (texref && coords.size() == 4 && !level && !grad)
    coords.resize(wantCoords);
  if (coords.size() != wantCoords)
    L.fail(addr.elems[0].loc, fmt::format("a {}d texture takes {} coordinate{}, not {}", dims,
                                          wantCoords, wantCoords > 1 ? "s" : "", coords.size()));
  coords.resize(dims);
  const uint16_t k = ct.kind == PtxType::Float ? ori::K_REG | ori::K_FIMM : ori::K_REG | ori::K_IMM;
  std::vector<OOp> srcs{texref ? OOp::symbol(addr.name) : reg(h.reg)};
  for (const Operand *c : coords) {
    if (c->kind == Operand::Kind::Sink)
      L.fail(c->loc, "a texture coordinate cannot be '_'");
    srcs.push_back(L.source(*c, ct, k));
  }
  const PtxType f32{PtxType::Float, 32};
  if (level)
    srcs.push_back(L.source(ops[2], f32, ori::K_REG | ori::K_FIMM));
  if (grad)
    for (size_t g = 2; g < 4; ++g) {
      std::vector<const Operand *> v = elemsOf(ops[g]);
      if (v.size() != dims)
        L.fail(ops[g].loc, fmt::format("a {}d gradient has {} element{}, not {}", dims, dims,
                                       dims > 1 ? "s" : "", v.size()));
      for (const Operand *e : v)
        srcs.push_back(L.source(*e, f32, ori::K_REG | ori::K_FIMM));
    }
  std::vector<OOp> dsts;
  for (const Operand &e : d.elems)
    dsts.push_back(reg(L.destination(e)));
  static constexpr Mod kDims[] = {Mod::D1, Mod::D2, Mod::D3};
  Mod type = rt.kind == PtxType::Float      ? Mod::F32
             : rt.kind == PtxType::Unsigned ? Mod::U32
                                            : Mod::S32;
  ori::Instr in = make(Opcode::TEX, {kDims[dims - 1], type}, std::move(dsts), std::move(srcs));
  if (ct.kind == PtxType::Signed)
    in.mods.set(Mod::ICOORD);
  if (level)
    in.mods.set(Mod::LOD);
  if (grad)
    in.mods.set(Mod::GRAD);
  emit(std::move(in));
  return true;
}

// cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::64B|128B|256B} [d], [s], cp-size
// [, src-size | , ignore-src][, cache-policy] -> LDGSTS[.64|.128].CA|.CG [d], [s][, n | , p]
// [, policy] (cp-size 4, 8 or 16; .cg only with 16); cp.async.commit_group -> LDGDEPBAR;
// cp.async.wait_group n -> DEPBAR n; cp.async.wait_all -> LDGDEPBAR; DEPBAR 0. Stay OPAQUE:
// .shared::cluster, bulk copies.
bool Lowering::asyncCopy() {
  if (!hasMod(pi, ".async"))
    return false;
  if (hasMod(pi, ".commit_group") || hasMod(pi, ".wait_all")) {
    onlyMods(pi, {".async", ".commit_group", ".wait_all"});
    need(0);
    emit(make(Opcode::LDGDEPBAR, {}, {}, {}));
    if (hasMod(pi, ".wait_all"))
      emit(make(Opcode::DEPBAR, {}, {}, {imm(0)}));
    return true;
  }
  if (hasMod(pi, ".wait_group")) {
    onlyMods(pi, {".async", ".wait_group"});
    need(1);
    if (ops[0].kind != Operand::Kind::Int || ops[0].ival < 0 || ops[0].ival > 63)
      L.fail(ops[0].loc, "cp.async.wait_group takes an integer constant from 0 to 63");
    emit(make(Opcode::DEPBAR, {}, {}, {imm(ops[0].ival)}));
    return true;
  }
  onlyMods(pi, {".async", ".ca", ".cg", ".shared", ".shared::cta", ".global", ".L2::cache_hint",
                ".L2::64B", ".L2::128B", ".L2::256B"});
  const size_t hint = hasMod(pi, ".L2::cache_hint") ? 1 : 0;
  if (!(hasMod(pi, ".shared") || hasMod(pi, ".shared::cta")) || !hasMod(pi, ".global") ||
      hasMod(pi, ".ca") == hasMod(pi, ".cg"))
    return false;
  if (hasMod(pi, ".L2::64B") + hasMod(pi, ".L2::128B") + hasMod(pi, ".L2::256B") > 1)
    return false;
  if (ops.size() != 3 + hint && ops.size() != 4 + hint)
    return false;
  if (ops[2].kind != Operand::Kind::Int)
    return false;
  const int64_t n = ops[2].ival;
  if (n != 4 && n != 8 && n != 16)
    L.fail(ops[2].loc, fmt::format("cp.async copies 4, 8 or 16 bytes, not {}", n));
  if (hasMod(pi, ".cg") && n != 16)
    L.fail(ops[2].loc, "cp.async.cg copies 16 bytes");
  std::vector<OOp> srcs;
  for (size_t k = 0; k < 2; ++k) {
    const Operand &a = ops[k];
    if (a.kind != Operand::Kind::Address || a.name.empty() || a.ival < INT32_MIN ||
        a.ival > INT32_MAX)
      return false;
    NameRef r = L.resolve(a.name);
    if (r.kind != NameRef::Register || !r.reg.isGeneral())
      return false;
    srcs.push_back(OOp::mem(r.reg, a.ival));
  }
  if (ops.size() == 4 + hint) {
    if (ops[3].kind == Operand::Kind::Int && (ops[3].ival < 0 || ops[3].ival > n))
      L.fail(ops[3].loc, fmt::format("src-size {} is not in 0..{}", ops[3].ival, n));
    NameRef r = ops[3].kind == Operand::Kind::Name ? L.resolve(ops[3].name) : NameRef{};
    if (r.kind == NameRef::Register && r.reg.isPredicate())
      srcs.push_back(reg(r.reg, ops[3].negated)); // ignore-src
    else
      srcs.push_back(src(3, PtxType{PtxType::Unsigned, 32}));
  }
  if (hint)
    srcs.push_back(src(ops.size() - 1, PtxType{PtxType::Unsigned, 64}, ori::K_REG));
  ori::Instr in =
      make(Opcode::LDGSTS, {hasMod(pi, ".ca") ? Mod::CA : Mod::CG}, {}, std::move(srcs));
  if (n == 8)
    in.mods.set(Mod::W64);
  if (n == 16)
    in.mods.set(Mod::W128);
  if (hint)
    in.mods.set(Mod::HINT);
  if (hasMod(pi, ".L2::64B"))
    in.mods.set(Mod::L2_64B);
  if (hasMod(pi, ".L2::128B"))
    in.mods.set(Mod::L2_128B);
  if (hasMod(pi, ".L2::256B"))
    in.mods.set(Mod::L2_256B);
  emit(std::move(in));
  return true;
}

} // namespace ori::ptx::lowering
