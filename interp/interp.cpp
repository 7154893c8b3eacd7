// The interpreter (interp/interp.h, docs/interpreter.md): configuration, the
// thread loop and control flow, and operand access. Variables, call frames
// and memory are in interp/interp_mem.cpp, integer semantics in
// interp/interp_alu.cpp, floating point in interp/interp_float.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <utility>

#include "interp/interp_impl.h"

namespace ori {
namespace interp_detail {

void unsupported(std::string why) { throw Stop{RunResult::Kind::Unsupported, 0, std::move(why)}; }
void fault(uint64_t addr, std::string why) { throw Stop{RunResult::Kind::Fault, addr, std::move(why)}; }
void malformed(std::string why) { throw Stop{RunResult::Kind::Error, 0, "malformed IR: " + std::move(why)}; }

std::string mnemonic(const Instr& in) {
  std::string s(in.info().name);
  for (Mod m : in.mods.list()) s += fmt::format(".{}", modText(m));
  return s;
}

std::optional<Mod> modOf(const Instr& in, ModGroup g) {
  static const auto groups = [] {
    std::array<std::vector<Mod>, 64> t{};
    for (int m = 0; m < kNumMods; ++m)
      if (size_t(modGroup(Mod(m))) < t.size()) t[size_t(modGroup(Mod(m)))].push_back(Mod(m));
    return t;
  }();
  if (size_t(g) >= groups.size()) return in.mods.inGroup(g);
  for (Mod m : groups[size_t(g)])
    if (in.mods.test(m)) return m;
  return std::nullopt;
}

// ---------------------------------------------------------------- registers

uint64_t Registers::get(Reg r) const {
  if (r.isConst()) return r.isPredicate() ? 1 : 0;
  size_t f = size_t(r.file);
  if (f >= dense_.size()) malformed("register of an unknown file");
  if (r.num < kDense) return r.num < dense_[f].size() ? dense_[f][r.num] : 0;
  auto it = sparse_[f].find(r.num);
  return it == sparse_[f].end() ? 0 : it->second;
}

void Registers::set(Reg r, uint64_t v) {
  if (r.isConst()) return; // writes to RZ/PT are discarded
  size_t f = size_t(r.file);
  if (f >= dense_.size()) malformed("register of an unknown file");
  if (r.num < kDense) {
    std::vector<uint64_t>& d = dense_[f];
    if (r.num >= d.size()) d.resize(std::max<size_t>(r.num + 1, std::min<size_t>(2 * d.size(), kDense)), 0);
    d[r.num] = v;
  } else {
    sparse_[f][r.num] = v;
  }
}

void Registers::clear() {
  for (auto& d : dense_) std::fill(d.begin(), d.end(), 0);
  for (auto& s : sparse_) s.clear();
}

// ---------------------------------------------------------------- operands

const Operand& Machine::src(const Instr& in, size_t i) const {
  if (i >= in.srcs.size()) malformed(fmt::format("{} at line {} lacks source operand {}", in.info().name, in.loc.line, i + 1));
  return in.srcs[i];
}

const Operand& Machine::dst(const Instr& in, size_t i) const {
  if (i >= in.dsts.size()) malformed(fmt::format("{} at line {} lacks destination {}", in.info().name, in.loc.line, i + 1));
  return in.dsts[i];
}

namespace {
[[noreturn]] void badKind(const Instr& in, size_t i, const char* what) {
  malformed(fmt::format("operand {} of {} at line {} must be {}", i + 1, in.info().name, in.loc.line, what));
}
} // namespace

uint64_t Machine::readCBank(const Operand& o, unsigned bytes) const {
  int64_t off = o.imm;
  if (o.hasReg) {
    if (!o.reg.isGeneral()) malformed("a constant-bank index register must be of file R or UR");
    off += int64_t(uint32_t(regs.get(o.reg))); // the index register is 32-bit unsigned
  }
  if (uint64_t(off) % bytes != 0)
    fault(uint64_t(off), fmt::format("misaligned {}-byte constant-bank read at c[0x{:x}][0x{:x}]", bytes, o.bank, off));
  if (o.bank == kConstDataBank) { // the module's .const data, as PTX ld.const reads it
    if (off < 0 || uint64_t(off) + bytes > constData.size())
      fault(uint64_t(off), fmt::format("constant address 0x{:x} is outside [0, 0x{:x})", off, constData.size()));
    uint64_t v = 0;
    for (unsigned k = 0; k < bytes; ++k) v |= uint64_t(constData[size_t(off) + k]) << (8 * k);
    return v;
  }
  uint64_t v = 0;
  for (unsigned k = 0; k < bytes; ++k) {
    int64_t pos = off + int64_t(k);
    if (o.bank == 0 && pos >= 0 && uint64_t(pos) < cbank0.size()) v |= uint64_t(cbank0[size_t(pos)]) << (8 * k);
  }
  return v;
}

uint64_t Machine::readInt(const Instr& in, size_t i, unsigned bits) const {
  const Operand& o = src(in, i);
  uint64_t v = 0;
  switch (o.kind) {
  case Operand::Kind::Reg:
    if (!o.reg.isGeneral()) badKind(in, i, "a register of file R or UR");
    v = regs.get(o.reg);
    break;
  case Operand::Kind::Imm: v = uint64_t(o.imm); break;
  case Operand::Kind::CBank: v = readCBank(o, bits / 8); break;
  case Operand::Kind::Symbol: v = symbolAddress(o); break; // MOV R, sym
  default: badKind(in, i, "an integer register, immediate or constant");
  }
  if (o.abs) badKind(in, i, "an integer operand without |..|");
  if (o.neg) v = uint64_t(0) - v;
  return maskTo(v, bits);
}

int64_t Machine::readImm(const Instr& in, size_t i) const {
  const Operand& o = src(in, i);
  if (o.kind != Operand::Kind::Imm) badKind(in, i, "an integer immediate");
  return o.imm;
}

bool Machine::readPred(const Instr& in, size_t i) const {
  const Operand& o = src(in, i);
  if (o.kind != Operand::Kind::Reg || !o.reg.isPredicate()) badKind(in, i, "a predicate");
  return (regs.get(o.reg) & 1) != o.neg;
}

uint32_t Machine::readF32Bits(const Instr& in, size_t i) const {
  const Operand& o = src(in, i);
  uint32_t v = 0;
  switch (o.kind) {
  case Operand::Kind::Reg:
    if (!o.reg.isGeneral()) badKind(in, i, "a register of file R or UR");
    v = uint32_t(regs.get(o.reg));
    break;
  case Operand::Kind::FImm: v = std::bit_cast<uint32_t>(float(o.fimm)); break;
  case Operand::Kind::CBank: v = uint32_t(readCBank(o, 4)); break;
  default: badKind(in, i, "a float register, immediate or constant");
  }
  if (o.abs) v &= 0x7fffffffu;
  if (o.neg) v ^= 0x80000000u;
  return v;
}

uint64_t Machine::readF64Bits(const Instr& in, size_t i) const {
  const Operand& o = src(in, i);
  uint64_t v = 0;
  switch (o.kind) {
  case Operand::Kind::Reg:
    if (!o.reg.isGeneral()) badKind(in, i, "a register of file R or UR");
    v = regs.get(o.reg);
    break;
  case Operand::Kind::FImm: v = std::bit_cast<uint64_t>(o.fimm); break;
  case Operand::Kind::CBank: v = readCBank(o, 8); break;
  default: badKind(in, i, "a float register, immediate or constant");
  }
  constexpr uint64_t kSign = uint64_t(1) << 63;
  if (o.abs) v &= ~kSign;
  if (o.neg) v ^= kSign;
  return v;
}

void Machine::writeInt(const Instr& in, size_t d, uint64_t v, unsigned bits) {
  const Operand& o = dst(in, d);
  if (o.kind != Operand::Kind::Reg || !o.reg.isGeneral())
    malformed(fmt::format("destination {} of {} at line {} must be a register of file R or UR", d + 1, in.info().name, in.loc.line));
  regs.set(o.reg, maskTo(v, bits));
}

void Machine::writePred(const Instr& in, size_t d, bool v) {
  const Operand& o = dst(in, d);
  if (o.kind != Operand::Kind::Reg || !o.reg.isPredicate())
    malformed(fmt::format("destination {} of {} at line {} must be a predicate", d + 1, in.info().name, in.loc.line));
  regs.set(o.reg, v ? 1 : 0);
}

// ---------------------------------------------------------------- threads

namespace {

struct Pc {
  const Function* f;
  uint32_t bix, idx;
};

class Runner {
public:
  Runner(Machine& m, uint64_t maxSteps) : m_(m), maxSteps_(maxSteps) {}
  const Instr* current() const { return cur_; }

  // Runs the current thread to its end; throws Stop when it does not end Ok.
  void run() {
    cur_ = nullptr;
    m_.startThread(); // the kernel's frame: its local and parameter areas
    Pc pc{m_.entry, 0, 0};
    uint64_t steps = 0;
    for (;;) {
      for (;;) { // falling off the end of a block enters the next one
        if (pc.bix >= pc.f->blocks.size())
          malformed(fmt::format("control falls off the end of function '{}'", pc.f->name));
        if (pc.idx < pc.f->blocks[pc.bix].instrs.size()) break;
        ++pc.bix;
        pc.idx = 0;
      }
      const Instr& in = pc.f->blocks[pc.bix].instrs[pc.idx];
      cur_ = &in;
      if (steps >= maxSteps_)
        throw Stop{RunResult::Kind::Timeout, 0, fmt::format("more than {} instructions executed", maxSteps_)};
      ++steps;
      if (in.guard) {
        const Operand& g = *in.guard;
        if (g.kind != Operand::Kind::Reg || !g.reg.isPredicate())
          malformed(fmt::format("guard of {} at line {} is not a predicate", in.info().name, in.loc.line));
        if ((m_.regs.get(g.reg) & 1) == g.neg) { ++pc.idx; continue; } // guard false: nothing happens
      }
      switch (in.op) {
      case Opcode::BRA: pc = {pc.f, label(pc.f, in), 0}; continue;
      case Opcode::BRX: case Opcode::JMX: pc = {pc.f, brx(pc.f, in), 0}; continue;
      case Opcode::EXIT: return;
      case Opcode::RET: {
        if (m_.frames.size() <= 1) return; // the kernel's own RET ends the thread
        Frame done = m_.leaveCall();
        pc = {m_.frames.back().f, done.retBix, done.retIdx};
        continue;
      }
      case Opcode::CALL: {
        const Function* callee = calleeOf(in);
        m_.enterCall(in, callee, pc.bix, pc.idx + 1);
        steps += std::exchange(m_.extraSteps, 0);
        pc = {callee, 0, 0};
        continue;
      }
      default: execute(in); ++pc.idx;
      }
    }
  }

private:
  uint32_t label(const Function* f, const Instr& in) {
    const Operand& o = m_.src(in, 0);
    if (o.kind != Operand::Kind::Label) malformed(fmt::format("BRA at line {} has no label", in.loc.line));
    if (o.target >= f->blocks.size()) malformed(fmt::format("BRA at line {} targets missing bix{}", in.loc.line, o.target));
    return o.target;
  }

  uint32_t brx(const Function* f, const Instr& in) {
    uint64_t index = m_.readInt(in, 0, 32); // unsigned 32-bit
    const Operand& o = m_.src(in, 1);
    if (o.kind != Operand::Kind::JumpTable || o.target >= f->jumpTables.size())
      malformed(fmt::format("BRX at line {} has no valid jump table", in.loc.line));
    const JumpTable& jt = f->jumpTables[o.target];
    if (index >= jt.targets.size())
      fault(index, fmt::format("BRX index out of range: {} >= {} entries of '{}'", index, jt.targets.size(), jt.name));
    uint32_t t = jt.targets[size_t(index)];
    if (t >= f->blocks.size()) malformed(fmt::format("jump table '{}' targets missing bix{}", jt.name, t));
    return t;
  }

  const Function* calleeOf(const Instr& in) {
    const Operand& o = m_.src(in, 0);
    const Function* callee = nullptr;
    if (o.kind == Operand::Kind::Reg) { // an indirect call: the register holds a function's address
      uint64_t a = m_.readInt(in, 0, 64), k = (a - kFunctionBase) / 16;
      if (a < kFunctionBase || (a - kFunctionBase) % 16 != 0 || k >= m_.module->functions.size())
        fault(a, fmt::format("indirect CALL to 0x{:x}, which is not the address of a function", a));
      callee = &m_.module->functions[size_t(k)];
    } else if (o.kind == Operand::Kind::Symbol) {
      callee = m_.module->findFunction(o.sym);
      if (!callee) unsupported(fmt::format("CALL to unknown function '{}'", o.sym));
    } else {
      malformed(fmt::format("CALL at line {} has no callee", in.loc.line));
    }
    if (callee->isEntry) unsupported(fmt::format("CALL to .entry kernel '{}'", callee->name));
    if (callee->isDeclaration()) unsupported(fmt::format("call to external function {}", callee->name));
    return callee;
  }

  void execute(const Instr& in) {
    if (m_.execInteger(in) || m_.execFloat(in) || m_.execMemory(in)) return;
    switch (in.op) {
    case Opcode::NOP:
    case Opcode::BSSY:     // convergence: one thread at a time reconverges trivially
    case Opcode::BSYNC:
    case Opcode::WARPSYNC: return;
    case Opcode::BAR:
      if (m_.threads > 1 && !m_.alone)
        unsupported("barrier with several threads per CTA (threads run one at a time)");
      return;
    case Opcode::OPAQUE: unsupported(fmt::format("OPAQUE \"{}\"", in.opaqueText));
    case Opcode::VOTE: {
      // A warp of one thread: the only active lane is this one (docs/interpreter.md).
      if (m_.threads > 1 && !m_.alone) unsupported("VOTE with several threads per CTA (threads run one at a time)");
      auto mode = modOf(in, ModGroup::VoteOp);
      if (!mode) malformed(fmt::format("VOTE at line {} needs .ALL, .ANY or .EQ", in.loc.line));
      bool a = m_.readPred(in, 0);
      m_.writeInt(in, 0, a ? uint64_t(1) << (m_.tid % 32) : 0, 32);
      m_.writePred(in, 1, *mode == Mod::EQ_V ? true : a);
      return;
    }
    case Opcode::SHFL: unsupported(fmt::format("{} is a warp-level operation", in.info().name));
    default: unsupported(fmt::format("{} is not modelled", in.info().name));
    }
  }

  Machine& m_;
  uint64_t maxSteps_;
  const Instr* cur_ = nullptr;
};

std::string selectEntry(const Module& mod, const RunConfig& cfg, const Function*& entry) {
  if (!cfg.entry.empty()) {
    entry = mod.findFunction(cfg.entry);
    if (!entry) return fmt::format("no kernel named '{}' in the module", cfg.entry);
    if (!entry->isEntry) return fmt::format("'{}' is a .func, not an .entry kernel", cfg.entry);
    return {};
  }
  std::string names;
  size_t count = 0;
  for (const Function& f : mod.functions)
    if (f.isEntry) {
      names += (count++ ? ", " : "") + f.name;
      entry = &f;
    }
  if (count == 0) return "the module has no .entry kernel to run";
  if (count > 1) return fmt::format("the module has {} .entry kernels ({}): choose one with --entry", count, names);
  return {};
}

} // namespace
} // namespace interp_detail

using namespace interp_detail;

std::variant<LaunchLayout, std::string> layoutLaunch(const Module& mod, const RunConfig& cfg) {
  Machine m;
  m.module = &mod;
  if (std::string e = selectEntry(mod, cfg, m.entry); !e.empty()) return e;
  if (m.entry->blocks.empty()) return fmt::format("kernel '{}' has no blocks", m.entry->name);
  if (std::string e = m.setUp(cfg); !e.empty()) return e;
  return m.layout();
}

RunResult runKernel(const Module& mod, const RunConfig& cfg) {
  RunResult res;
  auto error = [&](std::string msg) {
    res.kind = RunResult::Kind::Error;
    res.message = std::move(msg);
    return res;
  };
  Machine m;
  m.module = &mod;
  if (std::string e = selectEntry(mod, cfg, m.entry); !e.empty()) return error(e);
  if (m.entry->blocks.empty()) return error(fmt::format("kernel '{}' has no blocks", m.entry->name));
  if (cfg.threads == 0) return error("the thread count must be at least 1");
  if (cfg.ctas == 0) return error("the CTA count must be at least 1");
  if (uint64_t(cfg.threads) * cfg.ctas > UINT32_MAX)
    return error(fmt::format("{} threads x {} CTAs is more than 2^32-1 threads", cfg.threads, cfg.ctas));
  if (cfg.onlyThread && *cfg.onlyThread >= uint64_t(cfg.threads) * cfg.ctas)
    return error(fmt::format("thread {} is not in a launch of {} threads x {} CTAs", *cfg.onlyThread, cfg.threads, cfg.ctas));
  for (const auto& [r, v] : cfg.initialRegs)
    if (r.isConst()) return error(fmt::format("register {}{} is a constant and cannot be given a value", regFilePrefix(r.file), r.isPredicate() ? "T" : "Z"));
  if (std::string e = m.setUp(cfg); !e.empty()) return error(e);
  m.threads = cfg.threads;
  m.ctas = cfg.ctas;
  m.alone = cfg.onlyThread.has_value();
  m.initialRegs = cfg.initialRegs;

  // The float semantics assume the host rounds to nearest between operations
  // (interp/interp_float.cpp); whatever mode the caller uses is restored on return.
  struct RoundingGuard {
    int saved = std::fegetround();
    RoundingGuard() { std::fesetround(FE_TONEAREST); }
    ~RoundingGuard() { std::fesetround(saved); }
  } rounding;
  Runner runner(m, cfg.maxSteps);
  // Every thread, CTA by CTA; or only the one RunConfig::onlyThread names.
  const uint32_t c0 = cfg.onlyThread ? *cfg.onlyThread / cfg.threads : 0, c1 = cfg.onlyThread ? c0 + 1 : cfg.ctas;
  const uint32_t t0 = cfg.onlyThread ? *cfg.onlyThread % cfg.threads : 0, t1 = cfg.onlyThread ? t0 + 1 : cfg.threads;
  for (uint32_t c = c0; c < c1 && res.kind == RunResult::Kind::Ok; ++c) {
    m.startCta();
    for (uint32_t t = t0; t < t1; ++t) {
      m.ctaid = c;
      m.tid = t;
      try {
        runner.run();
        ++res.threadsRun;
      } catch (const Stop& s) {
        res.kind = s.kind;
        res.thread = c * cfg.threads + t;
        res.addr = s.addr;
        res.message = s.message;
        if (const Instr* in = runner.current()) {
          res.mnemonic = mnemonic(*in);
          res.line = in->loc.line;
        }
        break;
      }
    }
  }
  for (Buffer& b : m.buffers) (b.isVariable ? res.variables : res.buffers)[b.name] = std::move(b.bytes);
  return res;
}

std::string formatExit(const RunResult& r, const std::string& file) {
  switch (r.kind) {
  case RunResult::Kind::Ok: return fmt::format("exit: ok threads={}", r.threadsRun);
  case RunResult::Kind::Timeout: return fmt::format("exit: timeout thread={}", r.thread);
  case RunResult::Kind::Fault: return fmt::format("exit: fault thread={} addr=0x{:x}", r.thread, r.addr);
  case RunResult::Kind::Unsupported: return fmt::format("exit: unsupported \"{}\" at {}:{}", r.mnemonic, file, r.line);
  case RunResult::Kind::Error: return fmt::format("error: {}", r.message);
  }
  return "error: unknown run result";
}

} // namespace ori
