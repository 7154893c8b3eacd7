// Memory of the interpreter (docs/interpreter.md, "Memory" and "Variables
// and calls"): call frames (fresh registers, .param copies), symbol
// resolution, address spaces and generic addressing, and the memory
// instructions. The launch's layout is in interp_layout.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "interp/interp_impl.h"

namespace ori::interp_detail {

// ---------------------------------------------------------------- sparse memory

uint64_t SparseMemory::read(uint64_t addr, unsigned bytes) const {
  auto it = pages_.find(addr / kPage);
  if (it == pages_.end())
    return 0;
  uint64_t v = 0;
  for (unsigned k = 0; k < bytes; ++k)
    v |= uint64_t((*it->second)[(addr + k) % kPage]) << (8 * k);
  return v;
}

void SparseMemory::write(uint64_t addr, unsigned bytes, uint64_t v) {
  auto &page = pages_[addr / kPage];
  if (!page)
    page = std::make_unique<std::array<uint8_t, kPage>>(std::array<uint8_t, kPage>{});
  for (unsigned k = 0; k < bytes; ++k)
    (*page)[(addr + k) % kPage] = uint8_t(v >> (8 * k));
}

void SparseMemory::zero(uint64_t addr, uint64_t n) {
  while (n > 0) {
    uint64_t off = addr % kPage, k = std::min<uint64_t>(n, kPage - off);
    if (auto it = pages_.find(addr / kPage); it != pages_.end()) {
      if (k == kPage)
        pages_.erase(it);
      else
        std::fill_n(it->second->begin() + off, k, uint8_t(0));
    }
    addr += k;
    n -= k;
  }
}

void SparseMemory::writeBytes(uint64_t addr, const uint8_t *p, size_t n) {
  while (n > 0) {
    uint64_t off = addr % kPage, k = std::min<uint64_t>(n, kPage - off);
    auto &page = pages_[addr / kPage];
    if (!page)
      page = std::make_unique<std::array<uint8_t, kPage>>(std::array<uint8_t, kPage>{});
    std::memcpy(page->data() + off, p, k);
    addr += k;
    p += k;
    n -= k;
  }
}

// ---------------------------------------------------------------- frames

namespace {

// Enters f's frame above the current one: its local area (zeros, then the
// initial bytes) and a parameter area of zeros (then the initial bytes of its
// .param variables).
void pushFrame(Thread &m, const Function *f, const FrameLayout &L,
               const std::unordered_map<const Variable *, uint64_t> &offsets) {
  uint64_t base = 0;
  if (!m.frames.empty()) {
    const Frame &c = m.frames.back();
    base = roundUp(std::max(c.localBase + c.layout->localSize, c.stackTop),
                   L.localAlign); // above its allocas
  }
  if (base > kLocalSize || L.localSize > kLocalSize - base)
    fault(base,
          fmt::format(
              "local memory overflow: the .local variables of '{}' need 0x{:x} bytes at local "
              "offset 0x{:x}; the local window ends at 0x{:x}",
              f->name, L.localSize, base, kLocalSize));
  if (L.paramSize > kMaxParamStack - m.paramStackUsed)
    fault(0,
          fmt::format(
              "param stack overflow: the parameter area of '{}' needs 0x{:x} bytes, 0x{:x} of the "
              "thread's 0x{:x} are in use",
              f->name, L.paramSize, m.paramStackUsed, kMaxParamStack));
  Frame &fr = m.frames.emplace_back(); // in place: a Frame (its Registers) is costly to move
  fr.f = f;
  fr.layout = &L;
  fr.localBase = base;
  fr.params.assign(size_t(L.paramSize), 0);
  m.local.zero(base, L.localSize);
  for (const Variable *v : L.localInits)
    m.local.writeBytes(base + offsets.at(v), v->init.data(), initBytes(*v));
  for (const Variable *v : L.paramInits)
    std::copy_n(v->init.begin(), initBytes(*v), fr.params.begin() + ptrdiff_t(offsets.at(v)));
  m.paramStackUsed += L.paramSize;
}

} // namespace

void Machine::startThread(Thread &t) {
  t.regs.clear();
  for (const auto &[r, v] : initialRegs)
    t.regs.set(r, v);
  t.local.clear();
  t.frames.clear();
  t.paramStackUsed = 0;
  if (!entryLayout_) { // looked up once per run (every thread starts here)
    auto it = layouts_.find(entry);
    if (it == layouts_.end())
      malformed(fmt::format("kernel '{}' has no body", entry->name));
    entryLayout_ = &it->second;
  }
  pushFrame(t, entry, *entryLayout_, varOffset_);
}

namespace {
// A CALL's argument or return operand: a .param variable of the caller.
const SymbolLoc &paramSymbol(const Machine &m, const Instr &call, const Operand &o) {
  if (o.kind == Operand::Kind::Reg)
    unsupported(fmt::format(
        "CALL at line {} passes a register: only functions outside the module take registers",
        call.loc.line));
  if (o.kind != Operand::Kind::Symbol)
    malformed(fmt::format("CALL at line {}: arguments and results must be .param variables",
                          call.loc.line));
  const SymbolLoc &s = m.symbol(o);
  if (s.isFunction || s.space != MemSpace::Param)
    malformed(fmt::format("CALL at line {}: '{}' is not a .param variable", call.loc.line, o.sym));
  return s;
}
} // namespace

void Machine::enterCall(const Instr &call, const Function *callee) {
  // A list, when present, must match the callee; no lists: nothing is copied.
  size_t nargs = call.srcs.size() - 1;
  if (nargs != 0 && nargs != callee->params.size())
    malformed(fmt::format("CALL at line {} passes {} arguments to '{}', which takes {}",
                          call.loc.line, nargs, callee->name, callee->params.size()));
  if (!call.dsts.empty() && call.dsts.size() != callee->returns.size())
    malformed(fmt::format("CALL at line {} takes {} results from '{}', which returns {}",
                          call.loc.line, call.dsts.size(), callee->name, callee->returns.size()));
  std::vector<const SymbolLoc *> args;
  for (size_t k = 0; k < nargs; ++k)
    args.push_back(&paramSymbol(*this, call, call.srcs[k + 1]));
  for (const Operand &r : call.dsts)
    paramSymbol(*this, call, r); // checked now, used at RET
  std::vector<Frame> &frames = th->frames;
  if (frames.size() > kMaxCallDepth)
    fault(0, "call stack overflow");
  auto it = layouts_.find(callee);
  if (it == layouts_.end())
    malformed(fmt::format("function '{}' has no body", callee->name));
  pushFrame(*th, callee, it->second, varOffset_);
  // Clearing and filling the parameter area is work: one step per full 4 KiB.
  extraSteps += it->second.paramSize / SparseMemory::kPage;
  Frame &to = frames.back();
  const Frame &from = frames[frames.size() - 2];
  for (size_t k = 0; k < nargs; ++k) {
    const Param &p = callee->params[k];
    uint64_t n = std::min<uint64_t>(args[k]->size, p.size), at = paramOffset_.at(&p);
    if (args[k]->offset + n > from.params.size() || at + n > to.params.size())
      malformed(fmt::format("CALL at line {}: argument {} lies outside the parameter areas",
                            call.loc.line, k + 1));
    std::copy_n(from.params.begin() + ptrdiff_t(args[k]->offset), n,
                to.params.begin() + ptrdiff_t(at));
  }
  to.call = &call;
  to.callerRegs = std::exchange(th->regs, Registers{});
}

void Machine::leaveCall() {
  std::vector<Frame> &frames = th->frames;
  Frame done = std::move(frames.back());
  frames.pop_back();
  th->paramStackUsed -= done.params.size();
  th->regs = std::move(done.callerRegs);
  const Instr &call = *done.call;
  Frame &to = frames.back();
  for (size_t k = 0; k < call.dsts.size() && k < done.f->returns.size(); ++k) {
    const SymbolLoc &r = paramSymbol(*this, call, call.dsts[k]);
    const Param &ret = done.f->returns[k];
    uint64_t n = std::min<uint64_t>(r.size, ret.size), at = paramOffset_.at(&ret);
    if (r.offset + n > to.params.size() || at + n > done.params.size())
      malformed(fmt::format("CALL at line {}: result {} lies outside the parameter areas",
                            call.loc.line, k + 1));
    std::copy_n(done.params.begin() + ptrdiff_t(at), n, to.params.begin() + ptrdiff_t(r.offset));
  }
}

// ---------------------------------------------------------------- symbols

namespace {
const Param *kernelParamNamed(const Function &f, const Symbol &name) {
  if (!f.isEntry)
    return nullptr;
  for (const Param &p : f.params)
    if (p.name == name.str())
      return &p;
  return nullptr;
}
} // namespace

const SymbolLoc &Machine::symbol(const Operand &o) const {
  if (auto it = symbols_.find(&o); it != symbols_.end())
    return it->second;
  if (th->frames.empty())
    malformed("a symbol outside any function");
  const Param *param = nullptr;
  const Variable *v =
      o.sym.empty() ? nullptr : findVariable(*module, *th->frames.back().f, o.sym, &param);
  SymbolLoc s;
  if (v) {
    auto off = varOffset_.find(v);
    if (off == varOffset_.end())
      malformed(fmt::format("variable '{}' has no storage", o.sym));
    s.space = memSpaceOf(v->space);
    s.inFrame = s.space == MemSpace::Local || s.space == MemSpace::Param;
    s.offset = off->second;
    s.size = v->size();
  } else if (param) {
    auto off = paramOffset_.find(param);
    if (off == paramOffset_.end())
      malformed(fmt::format("parameter '{}' has no storage", o.sym));
    s.space = MemSpace::Param;
    s.inFrame = true;
    s.offset = off->second;
    s.size = param->size;
  } else if (const Param *kp = kernelParamNamed(*th->frames.back().f, o.sym)) {
    s.kernelParam = true;
    s.offset = kp->offset - kParamBase; // in the parameters (constant bank 0 from kParamBase)
    s.size = kp->size;
  } else if (const Function *g = o.sym.empty() ? nullptr : module->findFunction(o.sym)) {
    s.isFunction = true;
    s.offset = uint64_t(g - module->functions.data());
  } else {
    malformed(
        fmt::format("undefined symbol '{}' in function '{}'", o.sym, th->frames.back().f->name));
  }
  return symbols_.emplace(&o, s).first->second;
}

uint64_t Machine::symbolAddress(const Operand &o) const {
  const SymbolLoc &s = symbol(o);
  if (s.isFunction)
    return kFunctionBase + 16 * s.offset; // offset: the function's index
  return s.inFrame && s.space == MemSpace::Local ? th->frames.back().localBase + s.offset
                                                 : s.offset;
}

// ---------------------------------------------------------------- addresses and accesses

Location Machine::location(const Instr &in, size_t i, OpSpace os) const {
  const Operand &o = src(in, i);
  if (o.kind != Operand::Kind::Mem)
    malformed(fmt::format("operand {} of {} at line {} must be an address [R+imm]", i + 1,
                          in.info().name, in.loc.line));
  uint64_t a = uint64_t(o.imm);
  bool narrow = false; // a base register holding a 32-bit value
  if (o.hasReg) {
    if (!o.reg.isGeneral())
      malformed(fmt::format("operand {} of {} at line {} must be an address with an R or UR base",
                            i + 1, in.info().name, in.loc.line));
    const uint64_t r = th->regs.get(o.reg);
    narrow = r >> 32 == 0;
    a += r;
  }
  if (o.sym.empty()) {
    switch (os) {
    case OpSpace::Global:
      return {MemSpace::Global, a, a};
    // LDS/STS/LDL/STL on a 32-bit base (PTX .shared/.local offsets in 32-bit registers):
    // [R+imm] is 32-bit arithmetic, wrapping modulo 2^32, so a register below the window's
    // start plus an offset back inside it (rodinia needle: [temp - 64*tid + 68]) is in. A base
    // past 4 GiB (a generic address given to them) stays a large, faulting address.
    case OpSpace::Shared:
      return {MemSpace::Shared, narrow ? uint32_t(a) : a, narrow ? uint32_t(a) : a};
    case OpSpace::Local:
      return {MemSpace::Local, narrow ? uint32_t(a) : a, narrow ? uint32_t(a) : a};
    case OpSpace::Generic:
      break;
    }
    if (a - kSharedWindowBase < kSharedSize)
      return {MemSpace::Shared, a - kSharedWindowBase, a};
    if (a - kConstWindowBase < kMaxVariableBytes)
      return {MemSpace::Const, a - kConstWindowBase, a};
    if (a - kParamWindowBase < kParamWindowSize)
      return {MemSpace::EntryParams, kParamBase + (a - kParamWindowBase), a};
    if (a - kLocalWindowBase < kLocalSize)
      return {MemSpace::Local, a - kLocalWindowBase, a};
    return {MemSpace::Global, a, a};
  }
  // [sym+off]: the symbol's own state space, whatever the opcode's.
  const SymbolLoc &s = symbol(o);
  if (s.isFunction)
    malformed(
        fmt::format("{} at line {} addresses function '{}'", in.info().name, in.loc.line, o.sym));
  if (s.kernelParam)
    malformed(
        fmt::format("{} at line {} addresses kernel parameter '{}' (read it with LDC c[0x0][...])",
                    in.info().name, in.loc.line, o.sym));
  bool fits = os == OpSpace::Generic || (os == OpSpace::Global && s.space == MemSpace::Global) ||
              (os == OpSpace::Shared && s.space == MemSpace::Shared) ||
              (os == OpSpace::Local && s.space == MemSpace::Local);
  if (!fits)
    throw Stop{RunResult::Kind::Error, 0,
               fmt::format("state space mismatch: {} at line {} addresses '{}', a .{} variable",
                           mnemonic(in), in.loc.line, o.sym,
                           s.space == MemSpace::Const ? "const" : spaceText(s.space))};
  a += s.inFrame && s.space == MemSpace::Local ? th->frames.back().localBase + s.offset : s.offset;
  if (narrow && (s.space == MemSpace::Shared || s.space == MemSpace::Local))
    a = uint32_t(a); // as above
  return {s.space, a, a};
}

Buffer *Machine::findBuffer(uint64_t addr, unsigned bytes) {
  auto it = std::upper_bound(buffers.begin(), buffers.end(), addr,
                             [](uint64_t a, const Buffer &b) { return a < b.base; });
  if (it == buffers.begin())
    return nullptr;
  Buffer &b = *(it - 1);
  uint64_t off = addr - b.base;
  if (off >= b.bytes.size() || b.bytes.size() - off < bytes)
    return nullptr;
  return &b;
}

namespace {
// The bytes of a dense space (constant data, a parameter area) an access
// reaches, or a fault.
uint8_t *denseBytes(std::vector<uint8_t> &mem, const Location &l, unsigned bytes) {
  if (l.addr >= mem.size() || mem.size() - l.addr < bytes)
    fault(l.shown, fmt::format("{} address 0x{:x} is outside [0, 0x{:x})", spaceText(l.space),
                               l.addr, mem.size()));
  return mem.data() + l.addr;
}
} // namespace

uint8_t *Machine::globalBytes(const Location &l, unsigned bytes) {
  Buffer *b = findBuffer(l.addr, bytes);
  if (!b)
    fault(l.shown,
          fmt::format("global address 0x{:x} is outside every buffer and variable", l.addr));
  return b->bytes.data() + (l.addr - b->base);
}

void Machine::checkWindow(const Location &l, unsigned bytes) {
  uint64_t size = l.space == MemSpace::Shared ? sharedLimit : kLocalSize;
  if (l.addr >= size || size - l.addr < bytes)
    fault(l.shown, fmt::format("{} address 0x{:x} is outside [0, 0x{:x})", spaceText(l.space),
                               l.addr, size));
}

uint64_t Machine::load(const Location &l, unsigned bytes) {
  if (l.addr % bytes != 0)
    fault(l.shown, fmt::format("misaligned {}-byte access at 0x{:x}", bytes, l.shown));
  uint64_t v = 0;
  const uint8_t *p = nullptr;
  switch (l.space) {
  case MemSpace::Global:
    p = globalBytes(l, bytes);
    break;
  case MemSpace::Shared:
  case MemSpace::Local: {
    checkWindow(l, bytes);
    return (l.space == MemSpace::Shared ? shared : th->local).read(l.addr, bytes);
  }
  case MemSpace::Const:
    p = denseBytes(constData, l, bytes);
    break;
  case MemSpace::Param:
    p = denseBytes(th->frames.back().params, l, bytes);
    break;
  case MemSpace::EntryParams: // past the parameters: 0, as LDC reads constant bank 0
    for (unsigned k = 0; k < bytes; ++k)
      v |= uint64_t(l.addr + k < cbank0.size() ? cbank0[l.addr + k] : 0) << (8 * k);
    return v;
  }
  for (unsigned k = 0; k < bytes; ++k)
    v |= uint64_t(p[k]) << (8 * k);
  return v;
}

void Machine::store(const Location &l, unsigned bytes, uint64_t v) {
  if (l.addr % bytes != 0)
    fault(l.shown, fmt::format("misaligned {}-byte access at 0x{:x}", bytes, l.shown));
  uint8_t *p = nullptr;
  switch (l.space) {
  case MemSpace::Global:
    p = globalBytes(l, bytes);
    break;
  case MemSpace::Shared:
  case MemSpace::Local: {
    checkWindow(l, bytes);
    (l.space == MemSpace::Shared ? shared : th->local).write(l.addr, bytes, v);
    return;
  }
  case MemSpace::Const:
    fault(l.shown, fmt::format("store to the read-only constant space at 0x{:x}", l.addr));
  case MemSpace::EntryParams:
    fault(l.shown, fmt::format("store to the kernel's read-only parameters at 0x{:x}", l.shown));
  case MemSpace::Param:
    p = denseBytes(th->frames.back().params, l, bytes);
    break;
  }
  for (unsigned k = 0; k < bytes; ++k)
    p[k] = uint8_t(v >> (8 * k));
}

// ---------------------------------------------------------------- memory instructions

// Access, accessOf and extendLoaded: interp/interp_impl.h (the fast path uses them too).

bool Machine::execMemory(const Instr &in) {
  if (execAtomic(in) || execMemorySystem(in))
    return true;
  switch (in.op) {
  case Opcode::LD:
  case Opcode::LDG:
  case Opcode::LDS:
  case Opcode::LDL: {
    OpSpace os = in.op == Opcode::LDG   ? OpSpace::Global
                 : in.op == Opcode::LDS ? OpSpace::Shared
                 : in.op == Opcode::LDL ? OpSpace::Local
                                        : OpSpace::Generic;
    Access a = accessOf(in);
    Location l = location(in, 0, os);
    writeInt(in, 0, extendLoaded(load(l, a.bytes), a), a.bytes == 8 ? 64 : 32);
    return true;
  }
  case Opcode::ST:
  case Opcode::STG:
  case Opcode::STS:
  case Opcode::STL: {
    OpSpace os = in.op == Opcode::STG   ? OpSpace::Global
                 : in.op == Opcode::STS ? OpSpace::Shared
                 : in.op == Opcode::STL ? OpSpace::Local
                                        : OpSpace::Generic;
    Access a = accessOf(in);
    Location l = location(in, 0, os);
    store(l, a.bytes, readInt(in, 1, 64));
    return true;
  }
  case Opcode::LDC: {
    Access a = accessOf(in);
    const Operand &o = src(in, 0);
    if (o.kind != Operand::Kind::CBank || o.neg || o.abs)
      malformed(
          fmt::format("operand 1 of LDC at line {} must be a constant-bank operand", in.loc.line));
    writeInt(in, 0, extendLoaded(readCBank(o, a.bytes), a), a.bytes == 8 ? 64 : 32);
    return true;
  }
  default:
    return false;
  }
}

} // namespace ori::interp_detail
