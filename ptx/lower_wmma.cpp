// PTX -> Ori, one instruction: wmma.load, wmma.store and wmma.mma (PTX ISA 9.0, 9.7.14.4), as
// ptxas compiles them for sm_80 and later: each thread's loads and stores of its fragment, and
// mma.sync tiles (HMMA/IMMA/DMMA/BMMA) for the product.
//
// The ISA leaves the fragments of wmma "unspecified and architecture dependent" (9.7.14.4.1):
// only wmma.load, wmma.mma and wmma.store of one shape, layout and type must agree on them.
// Here a fragment is the mma.sync fragments of the tiles the shape splits into, one after the
// other (docs/ptx.md, "Tensor cores"):
//   m16n16k16 .f16/.bf16: m16n8k16 tiles, A one (4 registers), B two (n 0-7, 8-15), C/D two;
//   m32n8k16: A two tiles (rows 0-15, 16-31), B one, C/D two;
//   m8n32k16: four tiles along n; A and C/D are the rows 0-7 of m16n8k16 tiles (the A and C
//     registers of rows 8-15 are RZ in the mma, its D registers of rows 8-15 RZ as well);
//   .s8/.u8: the same shapes with m16n8k16 integer tiles; m16n16k8 .tf32: m16n8k8 tiles;
//   m8n8k4 .f64, m8n8k32 .s4/.u4, m8n8k128 .b1: one m8n8kK mma.
// The .f16 A and B fragments of PTX have 8 registers where the tiles use fewer: the others
// repeat them (register k holds what register k mod n does), so uniform operations on the
// fragment's registers (9.7.14.4.1, "Manipulating fragment contents") keep them consistent.
// wmma.load reads each register's elements at p + (row * stride + col) * size (row-major;
// column-major: col * stride + row), one 32-bit (.f64: 64-bit) access where they are
// consecutive in memory, else one access per element packed with PRMT; wmma.store writes
// them back alike. .global gives LDG/STG, .shared LDS/STS, none the generic LD/ST.
// Mixed .f16/.f32 C and D: .f32 tiles, C widened first, D rounded after. Stay OPAQUE:
// .satfinite on .f16/.f32 (removed from PTX 6.5).
#include <fmt/format.h>

#include <map>

#include "ir/mma.h"
#include "ptx/lowering.h"

namespace ori::ptx::lowering {

namespace {

const PtxType kU32{PtxType::Unsigned, 32};
const PtxType kB32{PtxType::Bits, 32};
const PtxType kF64{PtxType::Float, 64};

// A wmma shape and types, as mma.sync tiles.
struct Wmma {
  unsigned M = 0, N = 0, K = 0;
  MmaElem a = MmaElem::F16, b = MmaElem::F16, c = MmaElem::F32;
  MmaForm tile;
  Opcode op = Opcode::HMMA;
  ori::ModSet mods; // of the tile's instruction
  unsigned tm = 1, tn = 1;
  bool halfRows = false; // M = 8 on 16-row tiles: rows 0-7 only
  // PTX fragment registers of A, B, C/D.
  unsigned fragA = 0, fragB = 0, fragC = 0;
};

std::optional<MmaElem> elemOf(std::string_view t) {
  static const std::map<std::string_view, MmaElem> k = {
      {"f16", MmaElem::F16}, {"bf16", MmaElem::BF16}, {"tf32", MmaElem::TF32},
      {"f32", MmaElem::F32}, {"f64", MmaElem::F64},   {"s32", MmaElem::S32},
      {"s8", MmaElem::S8},   {"u8", MmaElem::U8},     {"s4", MmaElem::S4},
      {"u4", MmaElem::U4},   {"b1", MmaElem::B1}};
  auto it = k.find(t);
  return it == k.end() ? std::nullopt : std::optional(it->second);
}

// The tiling of shape M x N x K with multiplicands a, b (C type c: only F16 changes a tile).
std::optional<Wmma> tiling(unsigned M, unsigned N, unsigned K, MmaElem a, MmaElem b, MmaElem c) {
  Wmma w;
  w.M = M, w.N = N, w.K = K, w.a = a, w.b = b, w.c = c;
  const bool big = (M == 16 && N == 16 && K == 16) || (M == 32 && N == 8 && K == 16) ||
                   (M == 8 && N == 32 && K == 16);
  auto aMod = [](MmaElem e) {
    return e == MmaElem::S8   ? Mod::A_S8
           : e == MmaElem::U8 ? Mod::A_U8
           : e == MmaElem::S4 ? Mod::A_S4
                              : Mod::A_U4;
  };
  auto bMod = [](MmaElem e) {
    return e == MmaElem::S8   ? Mod::B_S8
           : e == MmaElem::U8 ? Mod::B_U8
           : e == MmaElem::S4 ? Mod::B_S4
                              : Mod::B_U4;
  };
  if (big && (a == MmaElem::F16 || a == MmaElem::BF16) && b == a) {
    w.op = Opcode::HMMA;
    w.mods.set(Mod::MMA16816);
    if (a == MmaElem::BF16)
      w.mods.set(Mod::A_BF16);
    w.mods.set(c == MmaElem::F16 ? Mod::F16 : Mod::F32);
  } else if (big && (a == MmaElem::S8 || a == MmaElem::U8) && b == a) {
    w.op = Opcode::IMMA;
    w.mods.set(Mod::MMA16816);
    w.mods.set(aMod(a));
    w.mods.set(bMod(b));
  } else if (M == 16 && N == 16 && K == 8 && a == MmaElem::TF32 && b == a) {
    w.op = Opcode::HMMA;
    w.mods.set(Mod::MMA1688);
    w.mods.set(Mod::A_TF32);
    w.mods.set(Mod::F32);
  } else if (M == 8 && N == 8 && K == 4 && a == MmaElem::F64 && b == a) {
    w.op = Opcode::DMMA;
    w.mods.set(Mod::MMA884);
  } else if (M == 8 && N == 8 && K == 32 && (a == MmaElem::S4 || a == MmaElem::U4) && b == a) {
    w.op = Opcode::IMMA;
    w.mods.set(Mod::MMA8832);
    w.mods.set(aMod(a));
    w.mods.set(bMod(b));
  } else if (M == 8 && N == 8 && K == 128 && a == MmaElem::B1 && b == a) {
    w.op = Opcode::BMMA;
    w.mods.set(Mod::MMA88128);
    w.mods.set(Mod::XOR); // the operation is wmma.mma's (set there)
  } else {
    return std::nullopt;
  }
  w.tile = std::get<MmaForm>(mmaForm(w.op, w.mods));
  w.halfRows = M == 8 && w.tile.m == 16;
  w.tm = std::max(1u, M / w.tile.m);
  w.tn = N / w.tile.n;
  const unsigned aUsed = w.tm * (w.halfRows ? w.tile.aRegs / 2 : w.tile.aRegs),
                 bUsed = w.tn * w.tile.bRegs;
  w.fragA = a == MmaElem::F16 ? 8 : aUsed;
  w.fragB = a == MmaElem::F16 ? 8 : bUsed;
  w.fragC = w.tm * w.tn * (w.halfRows ? w.tile.cRegs / 2 : w.tile.cRegs);
  return w;
}

// Register r of a tile operand is used: all of it but, for the rows 0-7 of a 16-row tile, the
// A and C registers of rows 8-15 (odd A registers; C: the second half).
bool usedTileReg(const Wmma &w, MmaOperand which, unsigned r) {
  if (!w.halfRows)
    return true;
  if (which == MmaOperand::A)
    return (r & 1) == 0;
  if (which == MmaOperand::B)
    return true;
  const unsigned perReg = w.tile.cRegs == 2 ? 2 : 1; // f16 C: two elements a register
  return r * perReg < 2;
}

// The fragment's registers: for each, the tile index (A: along m; B: along n; C: m-major) and
// the tile register.
std::vector<std::pair<unsigned, unsigned>> fragmentRegs(const Wmma &w, MmaOperand which) {
  std::vector<std::pair<unsigned, unsigned>> out;
  const unsigned tiles = which == MmaOperand::A   ? w.tm
                         : which == MmaOperand::B ? w.tn
                                                  : w.tm * w.tn;
  const unsigned regs = which == MmaOperand::A   ? w.tile.aRegs
                        : which == MmaOperand::B ? w.tile.bRegs
                                                 : w.tile.cRegs;
  for (unsigned t = 0; t < tiles; ++t)
    for (unsigned r = 0; r < regs; ++r)
      if (usedTileReg(w, which, r))
        out.push_back({t, r});
  return out;
}

// Where element i of tile register (tile, reg) is in the whole matrix, as affine functions
// of groupID g and threadID_in_group t: row = rg*g + rt*t + r0, col likewise.
struct Affine {
  int rg = 0, rt = 0, r0 = 0, cg = 0, ct = 0, c0 = 0;
};
Affine placeOf(const Wmma &w, MmaOperand which, unsigned tile, unsigned reg, unsigned i) {
  const MmaElem e = which == MmaOperand::A ? w.a : which == MmaOperand::B ? w.b : w.c;
  const unsigned per =
      e == MmaElem::F64 ? 1 : 32 / mmaElemBits(e == MmaElem::F32 ? MmaElem::F32 : e);
  const unsigned elem = reg * per + i;
  auto at = [&](unsigned lane) {
    MmaCoord c = mmaCoord(w.tile, which, lane, elem);
    unsigned rowOff = 0, colOff = 0;
    if (which == MmaOperand::A)
      rowOff = 16 * tile;
    if (which == MmaOperand::B)
      colOff = 8 * tile;
    if (which == MmaOperand::C)
      rowOff = 16 * (tile / w.tn), colOff = 8 * (tile % w.tn);
    return std::pair<int, int>{int(c.row + rowOff), int(c.col + colOff)};
  };
  auto [r0, c0] = at(0);
  auto [rt, ct] = at(1);
  auto [rg, cg] = at(4);
  Affine a{rg - r0, rt - r0, r0, cg - c0, ct - c0, c0};
  for (unsigned lane = 0; lane < 32; ++lane) { // the tables are affine in g and t
    auto [r, c] = at(lane);
    if (r != a.rg * int(lane >> 2) + a.rt * int(lane & 3) + a.r0 ||
        c != a.cg * int(lane >> 2) + a.ct * int(lane & 3) + a.c0)
      throw NotNative{};
  }
  return a;
}

} // namespace

// wmma.{load,store,mma} modifiers: .sync (.aligned implicit before PTX 6.3), the operand
// (.a .b .c .d), layouts, the shape, the state space, types, and the rest.
struct WmmaMods {
  std::string what; // "a", "b", "c", "d" or "mma"
  std::vector<bool> rowMajor;
  unsigned M = 0, N = 0, K = 0;
  std::optional<ori::Space> space;
  std::vector<MmaElem> types;
  std::optional<Mod> rounding, bitOp;
  bool satfinite = false, popc = false;
};
namespace {

std::optional<WmmaMods> wmmaMods(Lowering &lw) {
  WmmaMods m;
  for (const std::string &s : lw.pi.mods) {
    std::string_view t = std::string_view(s).substr(1);
    if (t == "sync" || t == "aligned")
      continue;
    if (t == "load" || t == "store" || t == "mma") {
      if (!m.what.empty() && m.what != "mma")
        return std::nullopt;
      if (t == "mma")
        m.what = "mma";
    } else if ((t == "a" || t == "b" || t == "c" || t == "d") && m.what.empty())
      m.what = std::string(t);
    else if (t == "row" || t == "col")
      m.rowMajor.push_back(t == "row");
    else if (t == "global")
      m.space = ori::Space::Global;
    else if (t == "shared" || t == "shared::cta")
      m.space = ori::Space::Shared;
    else if (t == "satfinite")
      m.satfinite = true;
    else if (t == "rn" || t == "rz" || t == "rm" || t == "rp")
      m.rounding = t == "rn" ? Mod::RN : t == "rz" ? Mod::RZ : t == "rm" ? Mod::RM : Mod::RP;
    else if (t == "xor" || t == "and")
      m.bitOp = t == "and" ? Mod::AND : Mod::XOR;
    else if (t == "popc")
      m.popc = true;
    else if (auto e = elemOf(t))
      m.types.push_back(*e);
    else if (t.size() > 1 && t[0] == 'm' && t.find('n') != std::string_view::npos &&
             t.find('k') != std::string_view::npos) {
      const size_t n = t.find('n'), k = t.find('k');
      auto num = [&](std::string_view x) {
        unsigned v = 0;
        for (char c : x) {
          if (c < '0' || c > '9')
            return 0u;
          v = v * 10 + unsigned(c - '0');
        }
        return v;
      };
      m.M = num(t.substr(1, n - 1)), m.N = num(t.substr(n + 1, k - n - 1)),
      m.K = num(t.substr(k + 1));
    } else
      return std::nullopt;
  }
  if (!hasMod(lw.pi, ".sync"))
    lw.L.fail(lw.pi.loc, "wmma needs .sync");
  return m;
}

// The default stride (9.7.14.4.2): the leading dimension's size.
unsigned defaultStride(const Wmma &w, MmaOperand which, bool rowMajor) {
  const unsigned rows = which == MmaOperand::A ? w.M : which == MmaOperand::B ? w.K : w.M;
  const unsigned cols = which == MmaOperand::A ? w.K : w.N;
  return rowMajor ? cols : rows;
}

} // namespace

bool Lowering::wmma() {
  std::optional<WmmaMods> mm = wmmaMods(*this);
  if (!mm || mm->what.empty())
    return false;
  return mm->what == "mma" ? wmmaMma(*mm) : wmmaLoadStore(*mm);
}

// wmma.mma.alayout.blayout.shape[.rnd].dtype[.atype.btype].ctype[.satfinite]; .b1: .op.popc
bool Lowering::wmmaMma(const WmmaMods &mm) {
  if (mm.rowMajor.size() != 2 || mm.M == 0)
    return false;
  MmaElem d, a, b, c;
  if (mm.types.size() == 2)
    d = mm.types[0], c = mm.types[1], a = b = MmaElem::F16;
  else if (mm.types.size() == 4)
    d = mm.types[0], a = mm.types[1], b = mm.types[2], c = mm.types[3];
  else
    return false;
  if (mm.satfinite && (a == MmaElem::F16 || a == MmaElem::BF16 || a == MmaElem::TF32))
    return false;
  // A .f16 C with a .f32 D or the reverse: .f32 tiles (their C and D fragments hold the
  // elements the .f16 ones do, two registers for one), C widened exactly before, D rounded
  // to nearest even after (the ISA: accumulation in at least single precision).
  const bool mixed = d != c;
  if (mixed && (a != MmaElem::F16 || (d != MmaElem::F16 && d != MmaElem::F32) ||
                (c != MmaElem::F16 && c != MmaElem::F32)))
    return false;
  std::optional<Wmma> w = tiling(mm.M, mm.N, mm.K, a, b, mixed ? MmaElem::F32 : c);
  if (!w)
    return false;
  if (w->op == Opcode::IMMA && mm.satfinite)
    w->mods.set(Mod::SAT);
  if (w->op == Opcode::DMMA && mm.rounding)
    w->mods.set(*mm.rounding);
  if (w->op == Opcode::BMMA) {
    if (!mm.bitOp || !mm.popc)
      L.fail(pi.loc, "single-bit wmma.mma needs .xor.popc or .and.popc");
    w->mods.reset(Mod::XOR);
    w->mods.set(*mm.bitOp);
  }
  w->tile = std::get<MmaForm>(mmaForm(w->op, w->mods));
  if (ops.size() != 4)
    L.fail(pi.loc, fmt::format("wmma.mma takes 4 operands (d, a, b, c), got {}", ops.size()));
  auto regsOf = [&](size_t i, unsigned n, bool isDst) {
    const Operand &o = ops[i];
    if (o.kind != Operand::Kind::Vector || o.elems.size() != n)
      L.fail(o.loc, fmt::format("wmma.mma: this operand is a vector of {} registers", n));
    std::vector<OOp> out;
    const PtxType t = (isDst || i == 3 ? w->c : w->a) == MmaElem::F64 ? kF64 : kB32;
    for (const Operand &e : o.elems) {
      if (isDst) {
        ori::Reg r = L.destination(e);
        if (!r.isGeneral())
          throw NotNative{};
        out.push_back(reg(r));
      } else {
        out.push_back(L.source(e, t, ori::K_REG));
      }
    }
    return out;
  };
  const unsigned fragD = mixed && d == MmaElem::F16 ? w->fragC / 2 : w->fragC;
  const unsigned fragC = mixed && c == MmaElem::F16 ? w->fragC / 2 : w->fragC;
  std::vector<OOp> dv = regsOf(0, fragD, true), av = regsOf(1, w->fragA, false),
                   bv = regsOf(2, w->fragB, false), cv = regsOf(3, fragC, false);
  std::vector<OOp> dHalf; // a .f16 D: the .f32 results go to temporaries first
  if (mixed &&
      c == MmaElem::F16) { // each f16x2 register: its low half, then its high half, as binary32
    std::vector<OOp> wide;
    for (const OOp &h : cv)
      for (int half = 0; half < 2; ++half) {
        OOp from = h;
        if (half) {
          ori::Reg t = L.newTemp(ori::RegFile::R, "b32");
          emit(make(Opcode::SHR, {Mod::U32}, {reg(t)}, {h, imm(16)}));
          from = reg(t);
        }
        ori::Reg f = L.newTemp(ori::RegFile::R, "f32");
        emit(make(Opcode::F2F, {Mod::F32, Mod::SRC_F16}, {reg(f)}, {from}));
        wide.push_back(reg(f));
      }
    cv = std::move(wide);
  }
  if (mixed && d == MmaElem::F16) {
    dHalf = std::move(dv);
    dv.clear();
    for (unsigned k = 0; k < w->fragC; ++k)
      dv.push_back(reg(L.newTemp(ori::RegFile::R, "f32")));
  }
  // The tiles run one after the other; a D register also read by a later tile is written
  // through a temporary, copied once all have run.
  auto fragIndex = [&](MmaOperand which, unsigned tile, unsigned r) -> std::optional<size_t> {
    auto regs = fragmentRegs(*w, which);
    for (size_t k = 0; k < regs.size(); ++k)
      if (regs[k] == std::pair{tile, r})
        return k;
    return std::nullopt;
  };
  std::vector<ori::Instr> tiles;
  for (unsigned tmI = 0; tmI < w->tm; ++tmI)
    for (unsigned tnI = 0; tnI < w->tn; ++tnI) {
      ori::Instr in;
      in.op = w->op;
      in.mods = w->mods;
      const unsigned ct = tmI * w->tn + tnI;
      for (unsigned r = 0; r < w->tile.aRegs; ++r) {
        auto k = fragIndex(MmaOperand::A, tmI, r);
        in.srcs.push_back(k ? av[*k] : kRZ);
      }
      for (unsigned r = 0; r < w->tile.bRegs; ++r)
        in.srcs.push_back(bv[*fragIndex(MmaOperand::B, tnI, r)]);
      for (unsigned r = 0; r < w->tile.cRegs; ++r) {
        auto k = fragIndex(MmaOperand::C, ct, r);
        in.srcs.push_back(k ? cv[*k] : kRZ);
      }
      for (unsigned r = 0; r < w->tile.dRegs; ++r) {
        auto k = fragIndex(MmaOperand::C, ct, r);
        in.dsts.push_back(k ? dv[*k] : kRZ);
      }
      tiles.push_back(std::move(in));
    }
  // The tiles run one after the other: a D register a later tile reads is written through a
  // temporary, copied once all have run.
  std::vector<std::pair<OOp, OOp>> copies;
  for (size_t ti = 0; ti < tiles.size(); ++ti)
    for (OOp &d : tiles[ti].dsts) {
      if (d.kind == OOp::Kind::Reg && d.reg.isConst())
        continue;
      bool readLater = false;
      for (size_t tj = ti + 1; tj < tiles.size(); ++tj)
        for (const OOp &s : tiles[tj].srcs)
          readLater |= s == d;
      if (!readLater)
        continue;
      ori::Reg t = L.newTemp(ori::RegFile::R, w->c == MmaElem::F64 ? "b64" : "b32");
      copies.push_back({d, reg(t)});
      d = reg(t);
    }
  for (ori::Instr &in : tiles)
    emit(std::move(in));
  for (auto &[to, from] : copies)
    emit(make(Opcode::MOV, {}, {to}, {from}), w->c == MmaElem::F64);
  for (size_t k = 0; k < dHalf.size(); ++k) { // pairs of binary32 results as f16x2
    ori::Reg lo = L.newTemp(ori::RegFile::R, "b32"), hi = L.newTemp(ori::RegFile::R, "b32");
    emit(make(Opcode::F2F, {Mod::F16, Mod::SRC_F32}, {reg(lo)}, {dv[2 * k]}));
    emit(make(Opcode::F2F, {Mod::F16, Mod::SRC_F32}, {reg(hi)}, {dv[2 * k + 1]}));
    emit(make(Opcode::PRMT, {}, {dHalf[k]}, {reg(lo), imm(0x5410), reg(hi)}));
  }
  return true;
}

// wmma.load.{a,b,c} / wmma.store.d
bool Lowering::wmmaLoadStore(const WmmaMods &mm) {
  const bool load = mm.what != "d";
  const MmaOperand which = mm.what == "a"   ? MmaOperand::A
                           : mm.what == "b" ? MmaOperand::B
                                            : MmaOperand::C;
  if (mm.rowMajor.size() != 1 || mm.M == 0 || mm.types.size() != 1)
    return false;
  const MmaElem t = mm.types[0];
  // The multiplicand types a shape pairs with, for the tiling (C's type: the tile's accumulator).
  MmaElem ab = t;
  if (which == MmaOperand::C) {
    if (t == MmaElem::F64)
      ab = MmaElem::F64;
    else if (t == MmaElem::S32)
      ab = mm.K == 32 ? MmaElem::S4 : mm.K == 128 ? MmaElem::B1 : MmaElem::S8;
    else
      ab = mm.K == 8 ? MmaElem::TF32 : MmaElem::F16;
  }
  std::optional<Wmma> w = tiling(mm.M, mm.N, mm.K, ab, ab,
                                 which == MmaOperand::C ? t
                                 : ab == MmaElem::F16   ? MmaElem::F32
                                                        : ab);
  if (!w)
    return false;
  if (which == MmaOperand::C && t != MmaElem::F16 && t != MmaElem::F32 && t != MmaElem::S32 &&
      t != MmaElem::F64)
    return false;
  if (which == MmaOperand::C)
    w->c = t;
  const bool rowMajor = mm.rowMajor[0];
  const unsigned frag = which == MmaOperand::A   ? w->fragA
                        : which == MmaOperand::B ? w->fragB
                                                 : w->fragC;
  const unsigned bits = mmaElemBits(t == MmaElem::TF32 ? MmaElem::F32 : t);
  const bool wide = t == MmaElem::F64;
  if (ops.size() != 2 && ops.size() != 3)
    L.fail(pi.loc, fmt::format("{} takes 2 or 3 operands, got {}",
                               pi.opcode + (load ? ".load" : ".store"), ops.size()));
  const Operand &vec = ops[load ? 0 : 1];
  if (vec.kind != Operand::Kind::Vector || vec.elems.size() != frag)
    L.fail(vec.loc, fmt::format("wmma.{}.{}: the fragment is a vector of {} registers",
                                load ? "load" : "store", mm.what, frag));
  const Operand &a = ops[load ? 1 : 0];
  if (a.kind != Operand::Kind::Address || a.ival < INT32_MIN || a.ival > INT32_MAX ||
      a.name.empty())
    return false;
  // The base address (64-bit) p: a register, or a variable's address.
  NameRef base = L.resolve(a.name);
  OOp p;
  if (base.kind == NameRef::Register && base.reg.isGeneral())
    p = reg(base.reg);
  else if (base.kind == NameRef::Variable) {
    // MOV of its name gives a variable's address in its own space: the access must be there
    // (a .global variable's address is also generic).
    const ori::Variable *v = nullptr;
    for (const auto *vars : {&L.f_.variables, &L.om_.variables})
      for (const ori::Variable &x : *vars)
        if (!v && x.name == base.symbol)
          v = &x;
    if (!v || !(v->space == ori::Space::Global
                    ? !mm.space || *mm.space == ori::Space::Global
                    : v->space == ori::Space::Shared && mm.space == ori::Space::Shared))
      return false;
    ori::Reg r = L.newTemp(ori::RegFile::R, "b64");
    emit(make(Opcode::MOV, {}, {reg(r)}, {OOp::symbol(base.symbol)}), true);
    p = reg(r);
  } else
    return false;
  const Opcode memOp = !mm.space                         ? (load ? Opcode::LD : Opcode::ST)
                       : *mm.space == ori::Space::Global ? (load ? Opcode::LDG : Opcode::STG)
                                                         : (load ? Opcode::LDS : Opcode::STS);
  OOp stride = ops.size() == 3 ? src(2, kU32) : imm(defaultStride(*w, which, rowMajor));
  // lane, g, t
  ori::Reg lane = L.newTemp(ori::RegFile::R, "b32"), g = L.newTemp(ori::RegFile::R, "b32"),
           tt = L.newTemp(ori::RegFile::R, "b32");
  emit(make(Opcode::S2R, {}, {reg(lane)}, {OOp::special(ori::SpecialReg::LANEID)}));
  emit(make(Opcode::SHR, {Mod::U32}, {reg(g)}, {reg(lane), imm(2)}));
  emit(make(Opcode::LOP3, {Mod::LUT}, {reg(tt)}, {reg(lane), imm(3), kRZ, imm(0xc0)}));
  auto regs = fragmentRegs(*w, which);
  const unsigned per = wide ? 1 : 32 / bits;
  // The lane's part of an element's index (leading * stride + inner), the same for every
  // element: from element 0 of the first register.
  const Affine first = placeOf(*w, which, regs[0].first, regs[0].second, 0);
  auto ldOf = [&](const Affine &f) {
    return rowMajor ? std::array<int, 3>{f.rg, f.rt, f.r0} : std::array<int, 3>{f.cg, f.ct, f.c0};
  };
  auto inOf = [&](const Affine &f) {
    return rowMajor ? std::array<int, 3>{f.cg, f.ct, f.c0} : std::array<int, 3>{f.rg, f.rt, f.r0};
  };
  const auto ld0 = ldOf(first), in0 = inOf(first);
  // laneLd = g*ld0[0] + t*ld0[1]; laneIn = g*in0[0] + t*in0[1]; idx = laneLd * stride + laneIn
  ori::Reg laneLd = L.newTemp(ori::RegFile::R, "b32"), laneIn = L.newTemp(ori::RegFile::R, "b32");
  ori::Reg idx = L.newTemp(ori::RegFile::R, "b32"), addr = L.newTemp(ori::RegFile::R, "b64");
  emit(make(Opcode::IMAD, {}, {reg(laneLd)}, {reg(g), imm(ld0[0]), kRZ}));
  emit(make(Opcode::IMAD, {}, {reg(laneLd)}, {reg(tt), imm(ld0[1]), reg(laneLd)}));
  emit(make(Opcode::IMAD, {}, {reg(laneIn)}, {reg(g), imm(in0[0]), kRZ}));
  emit(make(Opcode::IMAD, {}, {reg(laneIn)}, {reg(tt), imm(in0[1]), reg(laneIn)}));
  if (stride.kind == OOp::Kind::Reg)
    emit(make(Opcode::IMAD, {}, {reg(idx)}, {reg(laneLd), stride, reg(laneIn)}));
  else
    emit(make(Opcode::IMAD, {}, {reg(idx)}, {reg(laneLd), imm(stride.imm), reg(laneIn)}));
  // byte offset = idx * bits / 8 (sub-byte elements: the index is a multiple of 8 here)
  if (bits >= 8)
    emit(make(Opcode::IMAD, {Mod::WIDE, Mod::U32}, {reg(addr)}, {reg(idx), imm(bits / 8), p}));
  else {
    ori::Reg bytes = L.newTemp(ori::RegFile::R, "b32");
    emit(make(Opcode::SHR, {Mod::U32}, {reg(bytes)}, {reg(idx), imm(bits == 4 ? 1 : 3)}));
    emit(make(Opcode::IADD3, {}, {reg(addr)}, {p, reg(bytes), kRZ}), true);
  }
  // An element at leading offset dl and inner offset di from the lane's: address addr +
  // (dl * stride + di) * bits / 8; a register immediate when the stride is.
  auto elementAddress = [&](int dl, int di) -> OOp {
    if (bits < 8 && (dl != 0 || di % (8 / bits) != 0))
      throw NotNative{}; // sub-byte: whole bytes (always so)
    if (stride.kind != OOp::Kind::Reg) {
      const int64_t off = (int64_t(dl) * stride.imm + di) * bits / 8;
      return OOp::mem(addr, off);
    }
    ori::Reg o = L.newTemp(ori::RegFile::R, "b32"), at = L.newTemp(ori::RegFile::R, "b64");
    emit(make(Opcode::IMAD, {}, {reg(o)},
              {stride, imm(int64_t(dl) * bits / 8), imm(int64_t(di) * bits / 8)}));
    emit(make(Opcode::IADD3, {}, {reg(at)}, {reg(addr), reg(o), kRZ}), true);
    return OOp::mem(at, 0);
  };
  std::vector<OOp> fragRegs;
  for (const Operand &e : vec.elems) {
    if (load) {
      ori::Reg r = L.destination(e);
      if (!r.isGeneral())
        throw NotNative{};
      fragRegs.push_back(reg(r));
    } else {
      fragRegs.push_back(L.source(e, wide ? kF64 : kB32, ori::K_REG));
    }
  }
  for (size_t k = 0; k < regs.size(); ++k) {
    auto [tile, r] = regs[k];
    // The elements' offsets from the lane's first element.
    std::vector<std::pair<int, int>> offs;
    for (unsigned i = 0; i < per; ++i) {
      const Affine f = placeOf(*w, which, tile, r, i);
      const auto ldI = ldOf(f), inI = inOf(f);
      if (ldI[0] != ld0[0] || ldI[1] != ld0[1] || inI[0] != in0[0] || inI[1] != in0[1])
        throw NotNative{};
      offs.push_back({ldI[2] - ld0[2], inI[2] - in0[2]});
    }
    bool consecutive = true;
    for (unsigned i = 1; i < per; ++i)
      consecutive &= offs[i].first == offs[0].first && offs[i].second == offs[0].second + int(i);
    const OOp &fr = fragRegs[k];
    if (consecutive) {
      OOp at = elementAddress(offs[0].first, offs[0].second);
      ori::Instr in = load ? make(memOp, {}, {fr}, {at}) : make(memOp, {}, {}, {at, fr});
      if (memOp == Opcode::LDG || memOp == Opcode::STG)
        in.mods.set(Mod::E);
      emit(std::move(in), wide);
      continue;
    }
    if (bits != 16 && bits != 8)
      throw NotNative{};
    const Mod width = bits == 16 ? Mod::U16 : Mod::U8;
    if (load) {
      std::vector<ori::Reg> parts;
      for (unsigned i = 0; i < per; ++i) {
        ori::Reg e = L.newTemp(ori::RegFile::R, "b32");
        ori::Instr in =
            make(memOp, {width}, {reg(e)}, {elementAddress(offs[i].first, offs[i].second)});
        if (memOp == Opcode::LDG)
          in.mods.set(Mod::E);
        emit(std::move(in));
        parts.push_back(e);
      }
      if (bits == 16) { // {hi, lo}: bytes 0, 1 of the first and 0, 1 of the second
        emit(make(Opcode::PRMT, {}, {fr}, {reg(parts[0]), imm(0x5410), reg(parts[1])}));
      } else {
        ori::Reg lo = L.newTemp(ori::RegFile::R, "b32"), hi = L.newTemp(ori::RegFile::R, "b32");
        emit(make(Opcode::PRMT, {}, {reg(lo)}, {reg(parts[0]), imm(0x0040), reg(parts[1])}));
        emit(make(Opcode::PRMT, {}, {reg(hi)}, {reg(parts[2]), imm(0x0040), reg(parts[3])}));
        emit(make(Opcode::PRMT, {}, {fr}, {reg(lo), imm(0x5410), reg(hi)}));
      }
    } else {
      for (unsigned i = 0; i < per; ++i) {
        OOp v = fr;
        if (i > 0) {
          ori::Reg s = L.newTemp(ori::RegFile::R, "b32");
          emit(make(Opcode::SHR, {Mod::U32}, {reg(s)}, {fr, imm(int64_t(i * bits))}));
          v = reg(s);
        }
        ori::Instr in =
            make(memOp, {width}, {}, {elementAddress(offs[i].first, offs[i].second), v});
        if (memOp == Opcode::STG)
          in.mods.set(Mod::E);
        emit(std::move(in));
      }
    }
  }
  // The fragment registers the tiles do not use repeat the others (loads only).
  if (load)
    for (size_t k = regs.size(); k < frag; ++k)
      emit(make(Opcode::MOV, {}, {fragRegs[k]}, {fragRegs[k % regs.size()]}), wide);
  return true;
}

} // namespace ori::ptx::lowering
