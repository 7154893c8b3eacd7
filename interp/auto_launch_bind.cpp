// Automatic launches, the launch itself: the buffers' and surfaces' bytes (autoBufferBytes,
// autoSurface), bindAuto and autoLaunch, formatBindings, and the real-work test
// (firstBlockExitSteps, isStraightLine, didRealWork). The binding rules are in
// interp/auto_launch.h and docs/interpreter.md, "Automatic launches".
#include "interp/auto_launch.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <functional>
#include <map>
#include <optional>
#include <variant>

namespace ori {
namespace {

bool exitOnly(const Instr &in) {
  switch (in.op) {
  case Opcode::NOP:
  case Opcode::BSYNC:
  case Opcode::WARPSYNC:
    return true;
  case Opcode::EXIT:
  case Opcode::RET:
  case Opcode::BRA:
    return !in.isGuarded();
  default:
    return false;
  }
}

// Instructions a warp runs from block b to its exit when every block on the way only leaves
// (exitOnly), or nullopt.
std::optional<uint64_t> exitChain(const Function &f, uint32_t b) {
  uint64_t n = 0;
  for (size_t hops = 0; hops <= f.blocks.size() && b < f.blocks.size(); ++hops) {
    const Block &blk = f.blocks[b];
    uint32_t next = b + 1;
    for (const Instr &in : blk.instrs) {
      if (!exitOnly(in))
        return std::nullopt;
      ++n;
      if (in.op == Opcode::EXIT || in.op == Opcode::RET)
        return n;
      if (in.op == Opcode::BRA) {
        if (in.srcs.empty() || in.srcs[0].kind != Operand::Kind::Label)
          return std::nullopt;
        next = in.srcs[0].target;
        break;
      }
    }
    b = next;
  }
  return std::nullopt;
}

} // namespace

std::vector<uint8_t> autoBufferBytes(uint64_t size, uint32_t floatWords) {
  if (floatWords == 4 || floatWords == 8) { // the same numbers as binary32 / binary64 values
    std::vector<uint8_t> bytes(size_t(size), 0);
    for (size_t k = 0; (k + 1) * floatWords <= size; ++k) {
      uint64_t v = floatWords == 4 ? std::bit_cast<uint32_t>(1.0f) : std::bit_cast<uint64_t>(1.0);
      for (uint32_t b = 0; b < floatWords; ++b)
        bytes[k * floatWords + b] = uint8_t(v >> (8 * b));
    }
    return bytes;
  }
  std::vector<uint8_t> bytes(size_t(size), 0);
  size_t words = size_t(size / 4);
  for (size_t k = 0; k < words; ++k)
    bytes[4 * k] = uint8_t(k % 17 + 1); // the other three bytes are 0
  if (size % 4)
    bytes[4 * words] = uint8_t(words % 17 + 1);
  return bytes;
}

Surface autoSurface(unsigned dims, uint64_t handle, bool texture) {
  Surface s;
  s.handle = handle;
  s.normalized = texture;
  if (dims <= 1)
    s.widthBytes = 1u << 20;
  else if (dims == 2)
    s.widthBytes = 4096, s.height = 256;
  else
    s.widthBytes = 1024, s.height = 64, s.depth = 16;
  s.bytes = autoBufferBytes(uint64_t(s.widthBytes) * s.height * s.depth);
  return s;
}

std::vector<AutoBinding> bindAuto(const Module &m, const Function &kernel,
                                  std::vector<AutoBinding> bindings, RunConfig &cfg) {
  std::erase_if(bindings, [&](const AutoBinding &b) {
    if (b.kind == AutoBinding::Kind::Texture)
      return cfg.surfaces.count(b.name) > 0;
    return b.variable ? cfg.variableBytes.count(b.name) > 0
                      : cfg.params.count(b.name) || cfg.buffers.count(b.name) ||
                            cfg.paramBytes.count(b.name);
  });
  // The buffers of pointer fields first, so that layoutLaunch places them; then their addresses.
  auto bufferName = [](const AutoBinding &b, const AutoField &fd) {
    return fmt::format("{}{}+0x{:x}", b.variable ? "@" : "", b.name, fd.offset);
  };
  // Surface handles as autoBindings numbered them, moved past those cfg has already.
  uint64_t taken = 0;
  for (const auto &kv : cfg.surfaces)
    taken = std::max(taken, kv.second.handle);
  auto childName = [](const std::string &parent, const AutoField &fd) {
    return fmt::format("{}>+0x{:x}", parent, fd.offset);
  };
  std::function<void(const std::string &, const std::vector<AutoField> &)> addChildren =
      [&](const std::string &parent, const std::vector<AutoField> &children) {
        for (const AutoField &fd : children) {
          if (fd.kind == AutoField::Kind::Surface) {
            cfg.surfaces[childName(parent, fd)] =
                autoSurface(fd.dims, fd.value + taken, fd.texture);
            continue;
          }
          cfg.extraBuffers[childName(parent, fd)] = autoBufferBytes(fd.value, fd.floatWords);
          addChildren(childName(parent, fd), fd.children);
        }
      };
  for (AutoBinding &b : bindings) {
    if (b.kind == AutoBinding::Kind::Buffer) {
      cfg.buffers[b.name] = autoBufferBytes(b.value, b.floatWords);
      addChildren(b.name, b.children);
    }
    if (b.kind == AutoBinding::Kind::Texture) {
      for (AutoField &fd : b.fields) {
        fd.value += taken;
        cfg.surfaces[b.name] = autoSurface(fd.dims, fd.value, false);
      }
      continue;
    }
    for (AutoField &fd : b.fields) {
      if (fd.kind == AutoField::Kind::Pointer) {
        cfg.extraBuffers[bufferName(b, fd)] = autoBufferBytes(fd.value, fd.floatWords);
        addChildren(bufferName(b, fd), fd.children);
      }
      if (fd.kind == AutoField::Kind::Surface) {
        fd.value += taken;
        cfg.surfaces[bufferName(b, fd)] = autoSurface(fd.dims, fd.value, fd.texture);
      }
    }
  }
  std::map<std::string, uint64_t> address;
  if (!cfg.extraBuffers.empty()) {
    RunConfig probe = cfg;
    probe.entry = kernel.name;
    for (const Param &p : kernel.params) // every parameter bound, for layoutLaunch's checks
      if (!probe.params.count(p.name) && !probe.buffers.count(p.name) &&
          !probe.paramBytes.count(p.name))
        probe.params[p.name] = 0;
    auto layout = layoutLaunch(m, probe);
    if (auto *L = std::get_if<LaunchLayout>(&layout))
      for (size_t i = 0; i < L->global.size() && i < L->globalNames.size(); ++i)
        if (cfg.extraBuffers.count(L->globalNames[i]))
          address[L->globalNames[i]] = L->global[i].at;
  }
  // Pointers inside buffers: each child buffer's address into its parent's bytes.
  std::function<void(std::vector<uint8_t> &, const std::string &, const std::vector<AutoField> &)>
      patch = [&](std::vector<uint8_t> &bytes, const std::string &parent,
                  const std::vector<AutoField> &children) {
        for (const AutoField &fd : children) {
          const std::string name = childName(parent, fd);
          uint64_t v = fd.value + taken; // a handle
          if (fd.kind == AutoField::Kind::Pointer) {
            auto it = address.find(name);
            v = it == address.end() ? 0 : it->second + fd.pointerOffset;
          }
          for (uint64_t at = fd.everyWord ? fd.offset % 8 : fd.offset; at + 8 <= bytes.size();
               at += 8) {
            for (uint32_t k = 0; k < 8; ++k)
              bytes[size_t(at + k)] = uint8_t(v >> (8 * k));
            if (!fd.everyWord)
              break;
          }
          if (fd.kind == AutoField::Kind::Pointer)
            patch(cfg.extraBuffers[name], name, fd.children);
        }
      };
  for (const AutoBinding &b : bindings) {
    if (b.kind == AutoBinding::Kind::Buffer)
      patch(cfg.buffers[b.name], b.name, b.children);
    for (const AutoField &fd : b.fields)
      if (fd.kind == AutoField::Kind::Pointer)
        patch(cfg.extraBuffers[bufferName(b, fd)], bufferName(b, fd), fd.children);
  }
  for (const AutoBinding &b : bindings) {
    switch (b.kind) {
    case AutoBinding::Kind::Buffer:
    case AutoBinding::Kind::Texture:
      break;
    case AutoBinding::Kind::Integer:
    case AutoBinding::Kind::Float:
      cfg.params[b.name] = b.value;
      break;
    case AutoBinding::Kind::Bytes: {
      std::vector<uint8_t> bytes(size_t(b.size), 0);
      for (const AutoField &fd : b.fields) {
        uint64_t v = fd.value;
        if (fd.kind == AutoField::Kind::Pointer) {
          auto it = address.find(bufferName(b, fd));
          v = it == address.end() ? 0 : it->second + fd.pointerOffset;
        }
        for (uint32_t k = 0; k < fd.width && fd.offset + k < bytes.size(); ++k)
          bytes[size_t(fd.offset + k)] = uint8_t(v >> (8 * k));
      }
      (b.variable ? cfg.variableBytes : cfg.paramBytes)[b.name] = std::move(bytes);
      break;
    }
    }
  }
  return bindings;
}

RunConfig autoLaunch(const Module &m, const Function &kernel, const AutoLaunchOptions &o) {
  RunConfig cfg;
  cfg.entry = kernel.name;
  cfg.threads = o.threads;
  cfg.ctas = o.ctas;
  cfg.maxSteps = o.maxSteps;
  bindAuto(m, kernel, autoBindings(m, kernel, o), cfg);
  return cfg;
}

namespace {
std::string floatText(const std::string &type, uint64_t bits) {
  if (type == "f64")
    return fmt::format("{}:f64", std::bit_cast<double>(bits));
  if (type == "f32")
    return fmt::format("{}:f32", double(std::bit_cast<float>(uint32_t(bits))));
  return fmt::format("0x{:04x}:f16", bits);
}
} // namespace

namespace {
// ":f32" / ":f64" for a buffer of floats, else "".
std::string floatText(uint32_t floatWords) {
  return floatWords == 4 ? ":f32" : floatWords == 8 ? ":f64" : "";
}
// "{+0:buf[4194304] +8:buf[4194304]}": the pointers a buffer holds, or "".
std::string formatChildren(const std::vector<AutoField> &children) {
  std::string out;
  for (const AutoField &fd : children) {
    out +=
        fmt::format("{}{}+{}:", out.empty() ? "{" : " ", fd.everyWord ? "every8" : "", fd.offset);
    if (fd.kind == AutoField::Kind::Surface)
      out += fmt::format("{}{}d#{}", fd.texture ? "tex" : "surf", fd.dims, fd.value);
    else
      out += fmt::format("buf[{}]{}{}{}", fd.value, floatText(fd.floatWords),
                         fd.pointerOffset ? fmt::format("+{}", fd.pointerOffset) : "",
                         formatChildren(fd.children));
  }
  return out.empty() ? out : out + "}";
}
} // namespace

std::string formatBindings(const std::vector<AutoBinding> &bindings) {
  std::string out;
  for (const AutoBinding &b : bindings) {
    if (!out.empty())
      out += ' ';
    out += (b.variable ? "@" : "") + b.name + "=";
    switch (b.kind) {
    case AutoBinding::Kind::Buffer:
      out += fmt::format("buf[{}]{}{}{}", b.value, floatText(b.floatWords),
                         b.unsure ? "(unsure call)" : "", formatChildren(b.children));
      break;
    case AutoBinding::Kind::Integer:
      out += fmt::format("{}", b.value);
      break;
    case AutoBinding::Kind::Float:
      out += floatText(b.type, b.value);
      break;
    case AutoBinding::Kind::Texture:
      out += b.fields.empty() ? "texref"
                              : fmt::format("texref{}d#{}", b.fields[0].dims, b.fields[0].value);
      break;
    case AutoBinding::Kind::Bytes: {
      std::string fields;
      for (const AutoField &fd : b.fields) {
        if (!fields.empty())
          fields += ' ';
        fields += fmt::format("+{}:", fd.offset);
        switch (fd.kind) {
        case AutoField::Kind::Pointer:
          fields += fmt::format("buf[{}]{}{}{}", fd.value, floatText(fd.floatWords),
                                fd.pointerOffset ? fmt::format("+{}", fd.pointerOffset) : "",
                                formatChildren(fd.children));
          break;
        case AutoField::Kind::Surface:
          fields += fmt::format("{}{}d#{}", fd.texture ? "tex" : "surf", fd.dims, fd.value);
          break;
        case AutoField::Kind::Integer:
          fields += fmt::format("{}", fd.value);
          break;
        case AutoField::Kind::Float:
          fields += floatText(fd.width == 8 ? "f64" : fd.width == 4 ? "f32" : "f16", fd.value);
          break;
        }
      }
      out += fields.empty() ? fmt::format("zero[{}]", b.size) : "{" + fields + "}";
      break;
    }
    }
  }
  return out;
}

uint64_t firstBlockExitSteps(const Function &kernel) {
  if (kernel.blocks.empty())
    return 0;
  const Block &b0 = kernel.blocks[0];
  uint64_t extra = 0;
  bool falls = true;
  for (const Instr &in : b0.instrs) {
    if (in.op == Opcode::BRA && !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Label)
      if (auto n = exitChain(kernel, in.srcs[0].target))
        extra = std::max(extra, *n);
    if ((in.info().flags & TERMINATOR) && !in.isGuarded())
      falls = false;
  }
  if (falls)
    if (auto n = exitChain(kernel, 1))
      extra = std::max(extra, *n);
  return b0.instrs.size() + extra;
}

bool isStraightLine(const Function &kernel) {
  if (kernel.blocks.size() != 1)
    return false;
  bool stores = false;
  for (const Instr &in : kernel.blocks[0].instrs) {
    if ((in.info().flags & BRANCH) ||
        ((in.op == Opcode::EXIT || in.op == Opcode::RET) && in.isGuarded()))
      return false;
    const bool store = in.op == Opcode::ST || in.op == Opcode::STG || in.op == Opcode::STS ||
                       in.op == Opcode::STL || isAtomic(in.op) || in.op == Opcode::SUST;
    stores |= store && !in.isGuarded();
  }
  return stores;
}

bool didRealWork(const Function &kernel, const RunConfig &cfg, const RunResult &r) {
  if (r.kind != RunResult::Kind::Ok)
    return false;
  if (isStraightLine(kernel))
    return r.warpSteps > 0;
  uint64_t warps = (cfg.threads.count() + 31) / 32 * cfg.ctas.count();
  if (cfg.onlyThread)
    warps = 1;
  return r.warpSteps > firstBlockExitSteps(kernel) * warps;
}

} // namespace ori
