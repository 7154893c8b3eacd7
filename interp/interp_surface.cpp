// Surface memory: SULD and SUST (docs/interpreter.md, "Surfaces"). A surface is an array of
// widthBytes x height x depth bytes that RunConfig::surfaces binds under a handle; the x
// coordinate is a byte offset (PTX suld.b/sust.b), y a row, z a slice. An access of N bytes
// (element size x elements) must have x aligned to N. Out of bounds, .TRAP (the default)
// faults, .CLAMP moves each coordinate to the nearest in-bounds element, .ZERO reads 0 and
// drops the store. LDGSTS (cp.async) copies at once (LDGDEPBAR and DEPBAR: nothing to wait for).
// TEX reads one texel of four 32-bit channels (16 bytes) at the point its coordinates name:
// f32 coordinates (times the extent when the texture is normalized) rounded down, s32 ones
// (.ICOORD) as they are, each clamped to the edge (NaN: 0); .LOD and .GRAD operands change
// nothing (one level of detail). The handle is a register holding a texture's handle, or the
// name of a module's .texref: the surface bound under that name.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "interp/interp_impl.h"

namespace ori::interp_detail {

std::string Machine::setUpSurfaces(const RunConfig &cfg) {
  surfaces.clear();
  for (const auto &[name, s] : cfg.surfaces) {
    if (s.handle == 0)
      return fmt::format("surface '{}' has handle 0 (a handle must not be 0)", name);
    for (const auto &[other, t] : surfaces)
      if (t.handle == s.handle)
        return fmt::format("surfaces '{}' and '{}' have the same handle 0x{:x}", other, name,
                           s.handle);
    if (s.widthBytes == 0 || s.height == 0 || s.depth == 0)
      return fmt::format("surface '{}' is empty ({}x{}x{})", name, s.widthBytes, s.height, s.depth);
    uint64_t size = uint64_t(s.widthBytes) * s.height * s.depth;
    if (size > kMaxSurfaceBytes)
      return fmt::format("surface '{}' needs {} bytes, more than the {} MiB a surface may hold",
                         name, size, kMaxSurfaceBytes >> 20);
    if (s.bytes.size() > size)
      return fmt::format("surface '{}' holds {} bytes, {} given", name, size, s.bytes.size());
    Surface full = s;
    full.bytes.resize(size_t(size), 0);
    surfaces.emplace_back(name, std::move(full));
  }
  return "";
}

namespace {
int64_t texelIndex(double v, int64_t extent) {
  if (std::isnan(v))
    return 0;
  return int64_t(std::clamp(std::floor(v), 0.0, double(extent - 1)));
}
} // namespace

bool Machine::execTexture(const Instr &in) {
  const unsigned dims = surfaceDims(in.mods);
  if (dims == 0)
    malformed(fmt::format("TEX at line {} needs .1D, .2D or .3D", in.loc.line));
  const size_t want = 1 + dims + (in.has(Mod::LOD) ? 1 : 0) + (in.has(Mod::GRAD) ? 2 * dims : 0);
  if (in.srcs.size() != want || in.dsts.size() != 4)
    malformed(fmt::format("TEX at line {} has the wrong number of operands", in.loc.line));
  // A .texref symbol names the surface RunConfig::surfaces binds under that name.
  const Operand &h = src(in, 0);
  const bool byName = h.kind == Operand::Kind::Symbol;
  const uint64_t handle = byName ? 0 : readInt(in, 0, 64);
  auto it = std::find_if(surfaces.begin(), surfaces.end(), [&](const auto &s) {
    return byName ? s.first == h.sym : s.second.handle == handle;
  });
  if (it == surfaces.end()) {
    if (byName) // as a handle that names no texture: a fault (at 0), not a configuration error
      fault(0,
            fmt::format(
                "TEX at line {}: texture reference '{}' is not bound (bind a surface of that name)",
                in.loc.line, h.sym));
    fault(handle, fmt::format("TEX at line {}: 0x{:x} is not the handle of a texture", in.loc.line,
                              handle));
  }
  const Surface &s = it->second;
  const int64_t extent[3] = {std::max<int64_t>(1, s.widthBytes / 16), int64_t(s.height),
                             int64_t(s.depth)};
  int64_t c[3] = {0, 0, 0};
  for (unsigned k = 0; k < dims; ++k) {
    if (in.has(Mod::ICOORD)) {
      c[k] = std::clamp<int64_t>(signExtend(readInt(in, 1 + k, 32), 32), 0, extent[k] - 1);
    } else {
      double v = std::bit_cast<float>(readF32Bits(in, 1 + k));
      c[k] = texelIndex(s.normalized ? v * double(extent[k]) : v, extent[k]);
    }
  }
  if (s.widthBytes < 16)
    fault(handle, fmt::format("TEX at line {}: texture '{}' is narrower than one 16-byte texel",
                              in.loc.line, it->first));
  const size_t at = size_t(((c[2] * extent[1] + c[1]) * int64_t(s.widthBytes)) + c[0] * 16);
  uint32_t texel[4];
  for (unsigned k = 0; k < 4; ++k) {
    texel[k] = 0;
    for (unsigned b = 0; b < 4; ++b)
      texel[k] |= uint32_t(s.bytes[at + 4 * k + b]) << (8 * b);
  }
  for (unsigned k = 0; k < 4; ++k)
    writeInt(in, k, texel[k], 32);
  return true;
}

bool Machine::execSurface(const Instr &in) {
  if (in.op == Opcode::TEX)
    return execTexture(in);
  if (in.op == Opcode::LDGDEPBAR || in.op == Opcode::DEPBAR)
    return true; // the copies are done
  if (in.op == Opcode::LDGSTS) {
    // cp.async, at once: n bytes from global memory to shared memory, zeros past src-size.
    const uint64_t n = in.has(Mod::W128) ? 16 : in.has(Mod::W64) ? 8 : 4;
    const Location dst = location(in, 0, OpSpace::Shared), src = location(in, 1, OpSpace::Global);
    // The third source: src-size, or a predicate (PTX's ignore-src: true copies zeros); .HINT
    // adds a cache policy last, a hint only.
    const bool third = in.srcs.size() > (in.has(Mod::HINT) ? 3u : 2u);
    const bool ignore =
        third && this->src(in, 2).kind == Operand::Kind::Reg && this->src(in, 2).reg.isPredicate();
    const uint64_t size = ignore ? (readPred(in, 2) ? 0 : n) : third ? readInt(in, 2, 32) : n;
    if (size > n)
      fault(size, fmt::format("LDGSTS at line {}: src-size {} is larger than the {}-byte copy",
                              in.loc.line, size, n));
    if (src.addr % n)
      fault(src.shown, fmt::format("misaligned {}-byte copy from 0x{:x}", n, src.shown));
    if (dst.addr % n)
      fault(dst.shown, fmt::format("misaligned {}-byte copy to 0x{:x}", n, dst.shown));
    uint8_t bytes[16] = {};
    for (uint64_t k = 0; k < size; ++k)
      bytes[k] = uint8_t(load({src.space, src.addr + k, src.shown + k}, 1));
    for (uint64_t k = 0; k < n; ++k)
      store({dst.space, dst.addr + k, dst.shown + k}, 1, bytes[k]);
    return true;
  }
  if (in.op != Opcode::SULD && in.op != Opcode::SUST)
    return false;
  const bool isLoad = in.op == Opcode::SULD;
  const char *name = isLoad ? "SULD" : "SUST";
  const unsigned dims = surfaceDims(in.mods), elems = surfaceElems(in.mods),
                 bytes = surfaceBytes(in.mods);
  if (dims == 0)
    malformed(fmt::format("{} at line {} needs .1D, .2D or .3D", name, in.loc.line));
  if (in.srcs.size() != 1 + dims + (isLoad ? 0 : elems) || (isLoad && in.dsts.size() != elems))
    malformed(fmt::format("{} at line {} has the wrong number of operands", name, in.loc.line));
  const uint64_t handle = readInt(in, 0, 64);
  auto it = std::find_if(surfaces.begin(), surfaces.end(),
                         [&](const auto &s) { return s.second.handle == handle; });
  if (it == surfaces.end())
    fault(handle, fmt::format("{} at line {}: 0x{:x} is not the handle of a surface", name,
                              in.loc.line, handle));
  Surface &s = it->second;
  int64_t c[3] = {0, 0, 0};
  for (unsigned k = 0; k < dims; ++k)
    c[k] = signExtend(readInt(in, 1 + k, 32), 32);
  const int64_t n = int64_t(bytes) * elems;
  const int64_t limit[3] = {int64_t(s.widthBytes), int64_t(s.height), int64_t(s.depth)};
  if ((c[0] % n + n) % n != 0)
    fault(uint64_t(c[0]),
          fmt::format("{} at line {}: byte offset x = {} is not a multiple of the {}-byte access",
                      name, in.loc.line, c[0], n));
  const bool inside = c[0] >= 0 && c[0] + n <= limit[0] && c[1] >= 0 && c[1] < limit[1] &&
                      c[2] >= 0 && c[2] < limit[2];
  if (!inside) {
    if (in.has(Mod::ZERO)) {
      if (isLoad)
        for (unsigned k = 0; k < elems; ++k)
          writeInt(in, k, 0, bytes == 8 ? 64 : 32);
      return true;
    }
    if (!in.has(Mod::CLAMP) || n > limit[0])
      fault(uint64_t(c[0]),
            fmt::format("{} at line {}: ({}, {}, {}) is outside surface '{}' ({}x{}x{} bytes)",
                        name, in.loc.line, c[0], c[1], c[2], it->first, s.widthBytes, s.height,
                        s.depth));
    c[0] = std::clamp<int64_t>(c[0], 0, (limit[0] - n) / n * n);
    c[1] = std::clamp<int64_t>(c[1], 0, limit[1] - 1);
    c[2] = std::clamp<int64_t>(c[2], 0, limit[2] - 1);
  }
  const size_t at = size_t((c[2] * limit[1] + c[1]) * limit[0] + c[0]);
  for (unsigned k = 0; k < elems; ++k) {
    uint8_t *p = s.bytes.data() + at + size_t(k) * bytes;
    if (isLoad) {
      uint64_t v = 0;
      for (unsigned b = 0; b < bytes; ++b)
        v |= uint64_t(p[b]) << (8 * b);
      writeInt(in, k, v, bytes == 8 ? 64 : 32);
    } else {
      uint64_t v = readInt(in, 1 + dims + k, bytes == 8 ? 64 : 32);
      for (unsigned b = 0; b < bytes; ++b)
        p[b] = uint8_t(v >> (8 * b));
    }
  }
  return true;
}

} // namespace ori::interp_detail
