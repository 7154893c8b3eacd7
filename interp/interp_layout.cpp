// The launch's layout (docs/interpreter.md, "Memory" and "Variables and calls"): module and
// function variables (the static .shared ones in declaration order, then the dynamic shared
// memory; address initializers), kernel parameter binding into constant bank 0, buffers, the
// frame layouts of the functions.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "interp/interp_impl.h"

namespace ori::interp_detail {

std::string Machine::setUp(const RunConfig &cfg) {
  const Function &f = *entry;
  clockFromSteps = cfg.clockFromSteps;
  // Kernel parameters: check the configuration before allocating anything.
  auto known = [&](const std::string &name) {
    return std::any_of(f.params.begin(), f.params.end(),
                       [&](const Param &p) { return p.name == name; });
  };
  for (const auto &kv : cfg.params)
    if (!known(kv.first))
      return fmt::format("kernel '{}' has no parameter '{}'", f.name, kv.first);
  for (const auto &kv : cfg.buffers)
    if (!known(kv.first))
      return fmt::format("kernel '{}' has no parameter '{}'", f.name, kv.first);
  for (const auto &kv : cfg.paramBytes)
    if (!known(kv.first))
      return fmt::format("kernel '{}' has no parameter '{}'", f.name, kv.first);
  for (const auto &kv : cfg.extraBuffers)
    if (known(kv.first))
      return fmt::format("extra buffer '{}' has the name of a parameter", kv.first);
  for (const Param &p : f.params) {
    bool byValue = cfg.params.count(p.name), byBuffer = cfg.buffers.count(p.name),
         byBytes = cfg.paramBytes.count(p.name);
    if (byValue && byBuffer)
      return fmt::format("parameter '{}' is bound twice (by --param and by --buffer)", p.name);
    if (byBytes && (byValue || byBuffer))
      return fmt::format("parameter '{}' is bound twice (by its bytes and by a value or buffer)",
                         p.name);
    if (!byValue && !byBuffer && !byBytes)
      return p.size == 8
                 ? fmt::format(
                       "parameter '{}' is not bound (use --param {}=INT or --buffer {}=SIZE)",
                       p.name, p.name, p.name)
                 : fmt::format("parameter '{}' is not bound (use --param {}=VALUE)", p.name,
                               p.name);
    if (byBuffer && p.size != 8)
      return fmt::format("parameter '{}' holds {} bytes, a buffer address needs 8", p.name, p.size);
    if (byBytes && cfg.paramBytes.at(p.name).size() > p.size)
      return fmt::format("parameter '{}' holds {} bytes, {} given", p.name, p.size,
                         cfg.paramBytes.at(p.name).size());
  }
  for (const auto &[name, bytes] : cfg.variableBytes) {
    const Variable *v = nullptr;
    for (const Variable &w : module->variables)
      if (w.name == name)
        v = &w;
    for (const Function &g : module->functions)
      for (const Variable &w : g.variables)
        if (!v && w.name == name)
          v = &w;
    if (!v || (v->space != Space::Global && v->space != Space::Const))
      return fmt::format("the module has no .global or .const variable '{}'", name);
    if (bytes.size() > v->size())
      return fmt::format("variable '{}' holds {} bytes, {} given", name, v->size(), bytes.size());
  }
  // A variable's initial bytes: those the configuration gives, else its initializer's.
  auto initOf = [&](const Variable &v) -> std::pair<const uint8_t *, size_t> {
    if (auto it = cfg.variableBytes.find(v.name); it != cfg.variableBytes.end())
      return {it->second.data(), it->second.size()};
    return {v.init.data(), initBytes(v)};
  };

  // Statically placed variables: the module's, then function-scope .global,
  // .const and .shared ones in module order (.shared only of the .funcs and
  // the kernel that runs: other kernels never share its CTA).
  // The dynamic shared memory starts at a multiple of 16 at least: ptxas 13.0 puts it there
  // (docs/interpreter.md, "Memory", gives the experiment).
  uint64_t next = kGlobalBase, constEnd = 0, sharedEnd = 0, total = 0, dynamicAlign = 16;
  std::vector<std::pair<uint64_t, const Variable *>> constInits;
  std::vector<const Variable *> dynamicShared; // the .extern .shared arrays
  auto place = [&](const Variable &v, bool withShared) -> std::string {
    uint64_t size = v.size(), align = std::max<uint64_t>(v.align, 1);
    switch (v.space) {
    case Space::Global:
    case Space::Const:
      total += size;
      if (total > kMaxVariableBytes)
        return fmt::format("the module's .global and .const variables need more than the {} MiB "
                           "the interpreter allows",
                           kMaxVariableBytes >> 20);
      if (v.space == Space::Const) {
        varOffset_[&v] = constEnd = roundUp(constEnd, align);
        constInits.emplace_back(constEnd, &v);
        constEnd += size;
        if (constEnd > kMaxVariableBytes) // alignment padding is allocated too
          return fmt::format(
              "the module's .const variables need more than the {} MiB the interpreter allows",
              kMaxVariableBytes >> 20);
        return {};
      } else {
        // Each variable in a mapped region of its own, followed by an unmapped page.
        Buffer b{v.name, roundUp(next, std::max<uint64_t>(align, SparseMemory::kPage)),
                 std::vector<uint8_t>(size), true};
        auto [init, n] = initOf(v);
        std::copy_n(init, n, b.bytes.begin());
        next = roundUp(b.base + size, SparseMemory::kPage) + SparseMemory::kPage;
        if (next >= kSharedWindowBase)
          return "the module's .global variables do not fit below the shared window";
        varOffset_[&v] = b.base;
        buffers.push_back(std::move(b));
        return {};
      }
    case Space::Shared:
      if (!withShared)
        return {};
      if (v.linkage == "extern") { // dynamic shared memory: placed after every static variable
        dynamicShared.push_back(&v);
        dynamicAlign = std::max(dynamicAlign, align);
        return {};
      }
      varOffset_[&v] = sharedEnd = roundUp(sharedEnd, align);
      if (!v.init.empty())
        sharedInits_.emplace_back(sharedEnd, &v);
      sharedEnd += size;
      if (sharedEnd > kSharedSize)
        return fmt::format("the .shared variables need more than the 0x{:x}-byte shared window",
                           kSharedSize);
      return {};
    default:
      return {};
    }
  };
  for (const Variable &v : module->variables) {
    if (v.space == Space::Local || v.space == Space::Param)
      return fmt::format("malformed IR: module variable '{}' is in the .{} space", v.name,
                         spaceName(v.space));
    if (std::string e = place(v, true); !e.empty())
      return e;
  }
  for (const Function &g : module->functions)
    for (const Variable &v : g.variables)
      if (std::string e = place(v, !g.isEntry || &g == entry); !e.empty())
        return e;
  constData.assign(size_t(constEnd), 0);
  for (auto [off, v] : constInits) {
    auto [init, n] = initOf(*v);
    std::copy_n(init, n, constData.begin() + ptrdiff_t(off));
  }
  // CUDA's shared layout: the static variables in declaration order, each at its alignment
  // (above); then the dynamic memory, aligned to 16 or the largest alignment an .extern
  // .shared declaration asks for if larger, where every .extern .shared array starts.
  sharedStatic = sharedEnd;
  sharedDynamicBase = roundUp(sharedEnd, dynamicAlign);
  for (const Variable *v : dynamicShared)
    varOffset_[v] = sharedDynamicBase;
  const uint64_t room = sharedDynamicBase <= kSharedSize ? kSharedSize - sharedDynamicBase : 0;
  const uint64_t dynamicSize = cfg.sharedDynamic ? *cfg.sharedDynamic : room;
  if (dynamicSize > room)
    return fmt::format(
        "the dynamic shared memory (0x{:x} bytes at 0x{:x}, after the static .shared variables) "
        "does not fit in the 0x{:x}-byte shared window",
        dynamicSize, sharedDynamicBase, kSharedSize);
  sharedLimit = sharedDynamicBase + dynamicSize;
  if (std::string e = placeAddressInitializers(cfg); !e.empty())
    return e;

  // Frame layouts of every function with a body.
  for (const Function &g : module->functions) {
    if (g.isDeclaration())
      continue;
    FrameLayout &L = layouts_[&g];
    for (const Variable &v : g.variables) {
      if (v.space != Space::Local)
        continue;
      uint64_t align = std::max<uint64_t>(v.align, 1);
      varOffset_[&v] = L.localSize = roundUp(L.localSize, align);
      L.localSize += v.size();
      L.localAlign = std::max(L.localAlign, align);
      if (!v.init.empty())
        L.localInits.push_back(&v);
    }
    uint64_t end = 0;
    if (!g.isEntry) { // a kernel's parameters are in constant bank 0 instead
      uint64_t retAlign = 1;
      for (const Param &p : g.params) {
        paramOffset_[&p] = p.offset;
        end = std::max<uint64_t>(end, uint64_t(p.offset) + p.size);
      }
      for (const Param &r : g.returns)
        retAlign = std::max<uint64_t>(retAlign, r.align);
      L.returnsBase = end = roundUp(end, retAlign);
      for (const Param &r : g.returns) {
        paramOffset_[&r] = L.returnsBase + r.offset;
        end = std::max<uint64_t>(end, L.returnsBase + r.offset + r.size);
      }
    }
    for (const Variable &v : g.variables) {
      if (v.space != Space::Param)
        continue;
      varOffset_[&v] = end = roundUp(end, std::max<uint64_t>(v.align, 1));
      end += v.size();
      if (!v.init.empty())
        L.paramInits.push_back(&v);
    }
    L.paramSize = end;
  }

  // Kernel parameters into constant bank 0; buffers after the .global variables.
  uint64_t cbEnd = kParamBase;
  for (const Param &p : f.params)
    cbEnd = std::max<uint64_t>(cbEnd, uint64_t(p.offset) + p.size);
  cbank0.assign(size_t(cbEnd), 0);
  for (uint32_t k = 0; k < 8; ++k) // cvta.param's window (kParamWindowPointer)
    cbank0[kParamWindowPointer + k] = uint8_t(kParamWindowBase >> (8 * k));
  for (const Param &p : f.params) {
    if (auto pv = cfg.params.find(p.name); pv != cfg.params.end()) {
      for (uint32_t k = 0; k < p.size && k < 8; ++k)
        cbank0[p.offset + k] = uint8_t(pv->second >> (8 * k));
      continue;
    }
    if (auto pb = cfg.paramBytes.find(p.name); pb != cfg.paramBytes.end()) {
      std::copy(pb->second.begin(), pb->second.end(), cbank0.begin() + p.offset);
      continue;
    }
    Buffer b{p.name, next, cfg.buffers.at(p.name), false};
    // The next buffer starts on a page boundary at least one unmapped page later.
    next = roundUp(next + b.bytes.size(), SparseMemory::kPage) + SparseMemory::kPage;
    if (next >= kSharedWindowBase)
      return "the buffers do not fit below the shared window";
    for (uint32_t k = 0; k < 8; ++k)
      cbank0[p.offset + k] = uint8_t(b.base >> (8 * k));
    buffers.push_back(std::move(b));
  }
  for (const auto &[name, bytes] : cfg.extraBuffers) {
    Buffer b{name, next, bytes, false};
    next = roundUp(next + b.bytes.size(), SparseMemory::kPage) + SparseMemory::kPage;
    if (next >= kSharedWindowBase)
      return "the buffers do not fit below the shared window";
    buffers.push_back(std::move(b));
  }
  return {};
}

// The address an initializer element names (ir.h, Variable::AddrInit), or nullopt.
std::optional<uint64_t> Machine::initAddress(const Variable::AddrInit &a) const {
  auto ofVariable = [&](const Variable &v) -> std::optional<uint64_t> {
    auto off = varOffset_.find(&v);
    if (off == varOffset_.end())
      return std::nullopt;
    switch (v.space) {
    case Space::Global:
      return off->second; // a generic address
    case Space::Const:
      return (a.generic ? kConstWindowBase : 0) + off->second;
    case Space::Shared:
      return (a.generic ? kSharedWindowBase : 0) + off->second;
    default:
      return std::nullopt;
    }
  };
  for (const Variable &v : module->variables)
    if (v.name == a.symbol)
      return ofVariable(v);
  for (const Function &g : module->functions)
    for (const Variable &v : g.variables)
      if (v.name == a.symbol &&
          (v.space == Space::Global || v.space == Space::Const || v.space == Space::Shared))
        return ofVariable(v);
  if (const Function *g = module->findFunction(a.symbol))
    return kFunctionBase + 16 * uint64_t(g - module->functions.data());
  return std::nullopt;
}

// Writes the addresses of the .global and .const variables' address initializers (unless the
// configuration gives the variable's bytes).
std::string Machine::placeAddressInitializers(const RunConfig &cfg) {
  auto patch = [&](const Variable &v) -> std::string {
    if (v.addrInit.empty() || cfg.variableBytes.count(v.name))
      return {};
    if (v.space != Space::Global && v.space != Space::Const)
      return fmt::format("malformed IR: .{} variable '{}' has an address initializer",
                         spaceName(v.space), v.name);
    auto off = varOffset_.find(&v);
    if (off == varOffset_.end())
      return {};
    uint8_t *bytes = nullptr;
    if (v.space == Space::Const) {
      bytes = constData.data() + off->second;
    } else {
      for (Buffer &b : buffers)
        if (b.isVariable && b.base == off->second)
          bytes = b.bytes.data();
      if (!bytes)
        return {};
    }
    for (const Variable::AddrInit &a : v.addrInit) {
      std::optional<uint64_t> at = initAddress(a);
      if (!at)
        return fmt::format("malformed IR: the initializer of '{}' names '{}', which has no address",
                           v.name, a.symbol);
      if (uint64_t(a.offset) + v.elemSize > v.size())
        return fmt::format("malformed IR: an address initializer of '{}' lies outside it", v.name);
      uint64_t value = *at + uint64_t(a.addend);
      if (a.byte >= 0) // one byte of the address (AddrInit::byte)
        value = (value >> (8 * a.byte)) & 0xFF;
      for (uint32_t k = 0; k < v.elemSize && k < 8; ++k)
        bytes[a.offset + k] = uint8_t(value >> (8 * k));
    }
    return {};
  };
  for (const Variable &v : module->variables)
    if (std::string e = patch(v); !e.empty())
      return e;
  for (const Function &g : module->functions)
    for (const Variable &v : g.variables)
      if (std::string e = patch(v); !e.empty())
        return e;
  return {};
}

LaunchLayout Machine::layout() const {
  LaunchLayout L;
  L.sharedStatic = sharedStatic;
  L.sharedDynamicBase = sharedDynamicBase;
  L.sharedDynamicSize = sharedLimit - sharedDynamicBase;
  for (const Buffer &b : buffers) {
    L.global.push_back({b.base, b.bytes});
    L.globalNames.push_back(b.name);
  }
  for (auto [v, off] : varOffset_)
    L.variables[v] = off;
  L.constData = constData;
  for (auto [off, v] : sharedInits_)
    L.sharedInit.push_back(
        {off, std::vector<uint8_t>(v->init.begin(), v->init.begin() + ptrdiff_t(initBytes(*v)))});
  const FrameLayout &F = layouts_.at(entry);
  for (const Variable *v : F.localInits)
    L.localInit.push_back(
        {varOffset_.at(v),
         std::vector<uint8_t>(v->init.begin(), v->init.begin() + ptrdiff_t(initBytes(*v)))});
  for (const Variable *v : F.paramInits)
    L.paramInit.push_back(
        {varOffset_.at(v),
         std::vector<uint8_t>(v->init.begin(), v->init.begin() + ptrdiff_t(initBytes(*v)))});
  L.cbank0 = cbank0;
  for (const auto &[g, FL] : layouts_) {
    LaunchLayout::Frame &fr = L.frames[g];
    fr.localSize = FL.localSize;
    fr.localAlign = FL.localAlign;
    if (g->isEntry)
      continue;
    for (const auto *list : {&g->params, &g->returns})
      for (const Param &p : *list)
        fr.params[p.name] = paramOffset_.at(&p);
  }
  return L;
}

void Machine::startCta() {
  shared.clear();
  for (auto [off, v] : sharedInits_)
    shared.writeBytes(off, v->init.data(), initBytes(*v));
}

} // namespace ori::interp_detail
