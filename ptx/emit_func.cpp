// Ori -> PTX: one function (emit_impl.h). Register names and widths,
// operands (width bridging, constant-bank parameters, float source
// modifiers), destinations, guards, and the function's declarations and
// prologue. The opcode families are in emit_alu.cpp, emit_float.cpp and
// emit_mem.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>

#include "ir/ori.h"
#include "ir/param_window.h"
#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {
namespace {

std::string sanitize(const std::string &s) {
  std::string out;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '$';
    out += ok ? c : '_';
  }
  return out;
}

// Identifiers a register name must not take: PTX's special registers.
bool isSpecialRegisterName(const std::string &s) {
  static constexpr std::string_view kSpecial[] = {
      "%tid",
      "%ntid",
      "%laneid",
      "%warpid",
      "%nwarpid",
      "%ctaid",
      "%nctaid",
      "%smid",
      "%nsmid",
      "%gridid",
      "%lanemask_eq",
      "%lanemask_le",
      "%lanemask_lt",
      "%lanemask_ge",
      "%lanemask_gt",
      "%clock",
      "%clock_hi",
      "%clock64",
      "%globaltimer",
      "%globaltimer_lo",
      "%globaltimer_hi",
      "%total_smem_size",
      "%aggr_smem_size",
      "%dynamic_smem_size",
      "%current_graph_exec",
      "%is_explicit_cluster",
      "%clusterid",
      "%nclusterid",
      "%cluster_ctaid",
      "%cluster_nctaid",
      "%cluster_ctarank",
      "%cluster_nctarank",
  };
  for (std::string_view k : kSpecial)
    if (s == k)
      return true;
  return s.starts_with("%pm") || s.starts_with("%envreg") || s.starts_with("%reserved_smem");
}

// An offset as .ori prints it: 0x10, -0x10.
std::string hexOff(int64_t v) {
  return v < 0 ? fmt::format("-0x{:x}", uint64_t(0) - uint64_t(v)) : fmt::format("0x{:x}", v);
}

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// Directives that go between the parameter list and the body.
bool isHeaderDirective(const std::string &d) {
  static constexpr std::string_view kHeader[] = {
      ".maxntid",         ".reqntid",           ".minnctapersm",   ".maxnctapersm",
      ".maxnreg",         ".noreturn",          ".maxclusterrank", ".reqnctapercluster",
      ".explicitcluster", ".blocksareclusters", ".abi_preserve",   ".abi_preserve_control",
  };
  for (std::string_view k : kHeader)
    if (d.starts_with(k) &&
        (d.size() == k.size() || !std::isalnum(static_cast<unsigned char>(d[k.size()]))))
      return true;
  return false;
}

} // namespace

// ------------------------------------------------------------------ set-up

FnEmitter::FnEmitter(const ModuleCtx &c, const Function &fn) : ctx(c), m(*c.m), f(fn) {
  origins_ = f.ptxOrigins.get();
  declareNames();
  classifySlots();
}

std::string FnEmitter::uniqueName(std::string base) {
  std::string s = base;
  // Not a name the function's own .reg lines declare either (emit_origin.cpp).
  for (int k = 1; used_.count(s) || declaredBy(s); ++k)
    s = fmt::format("{}_{}", base, k);
  used_.insert(s);
  return s;
}

void FnEmitter::declareNames() {
  // Identifiers the function cannot give to registers or labels.
  for (const Variable &v : m.variables)
    used_.insert(v.name);
  for (const Function &g : m.functions)
    used_.insert(g.name);
  for (const auto *list : {&f.params, &f.returns})
    for (const Param &p : *list)
      used_.insert(p.name);
  for (const Variable &v : f.variables)
    used_.insert(v.name);

  // The registers: every one mentioned.
  std::set<Reg> regs;
  auto note = [&](Reg r) {
    if (!r.isConst() && r.file != RegFile::B)
      regs.insert(r);
  };
  std::set<uint32_t> targets;
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs) {
      for (Reg r : in.defs())
        note(r);
      for (Reg r : in.uses())
        note(r);
      if (in.op == Opcode::BRA && !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Label)
        targets.insert(in.srcs[0].target);
    }
  for (const JumpTable &jt : f.jumpTables)
    targets.insert(jt.targets.begin(), jt.targets.end());
  noteOriginRegisters(regs);

  // Source names first (valid, unique, not a special register), then the rest.
  std::vector<Reg> unnamed;
  for (Reg r : regs) {
    auto it = f.regNames.find(r);
    if (it != f.regNames.end() && isPtxIdent(it->second) && !used_.count(it->second) &&
        !isSpecialRegisterName(it->second)) {
      names_[r] = it->second;
      used_.insert(it->second);
    } else {
      unnamed.push_back(r);
    }
  }
  for (Reg r : unnamed) {
    auto it = f.regNames.find(r);
    std::string base = it != f.regNames.end() ? "%ori_" + sanitize(it->second)
                                              : fmt::format("%ori_{}{}",
                                                            r.file == RegFile::R    ? "r"
                                                            : r.file == RegFile::UR ? "ur"
                                                            : r.file == RegFile::P  ? "p"
                                                                                    : "up",
                                                            r.num);
    names_[r] = uniqueName(base);
  }
  for (Reg r : regs) {
    unsigned bits = 0;
    if (auto it = f.regTypes.find(r); it != f.regTypes.end())
      bits = bitsOfType(it->second);
    if (r.isPredicate())
      bits = 1;
    else if (bits == 1 || bits == 0)
      bits = ctx.wide.count(f.name) && ctx.wide.at(f.name).count(r) ? 64 : 32;
    bits_[r] = bits;
  }
  checkOriginDeclarations();

  labels_.assign(f.blocks.size(), "");
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    const std::string &l = f.blocks[b].label;
    if (l.empty() && !targets.count(uint32_t(b)))
      continue;
    if (!l.empty() && isPtxIdent(l) && l[0] != '%' && !used_.count(l)) {
      labels_[b] = l;
      used_.insert(l);
    } else {
      labels_[b] = uniqueName(l.empty() ? fmt::format("$ori_bb{}", b) : "$ori_" + sanitize(l));
    }
  }
  for (const JumpTable &jt : f.jumpTables) {
    if (isPtxIdent(jt.name) && jt.name[0] != '%' && !used_.count(jt.name)) {
      tables_.push_back(jt.name);
      used_.insert(jt.name);
    } else {
      tables_.push_back(uniqueName("$ori_" + sanitize(jt.name)));
    }
  }
}

std::string FnEmitter::regName(Reg r) const {
  auto it = names_.find(r);
  if (it == names_.end())
    fail(cur_ ? cur_->loc : f.loc, "internal: register without a PTX name");
  return it->second;
}

unsigned FnEmitter::regBits(Reg r) const {
  auto it = bits_.find(r);
  return it == bits_.end() ? (r.isPredicate() ? 1 : 32) : it->second;
}

std::string FnEmitter::temp(unsigned bits) {
  size_t k = tempUsed_[bits]++;
  auto &names = tempNames_[bits];
  if (k >= names.size()) {
    const char *tag = bits == 1 ? "p" : bits == 8 ? "b" : bits == 16 ? "h" : bits == 64 ? "d" : "r";
    names.push_back(uniqueName(fmt::format("%ori_t{}{}", tag, k)));
  }
  return names[k];
}

std::string FnEmitter::labelName(uint32_t bix) const {
  if (bix >= labels_.size() || labels_[bix].empty())
    fail(cur_ ? cur_->loc : f.loc,
         fmt::format("branch to block bix{}, which does not exist or has no label", bix));
  return labels_[bix];
}

std::string FnEmitter::tableName(uint32_t index) const {
  if (index >= tables_.size())
    fail(cur_ ? cur_->loc : f.loc, "BRX names a jump table that does not exist");
  return tables_[index];
}

void FnEmitter::emit(std::string text) { lines_.push_back({std::move(text), true}); }
void FnEmitter::emitRaw(std::string text) { lines_.push_back({std::move(text), false}); }

// ------------------------------------------------------------------ operands

std::string FnEmitter::immText(uint64_t v, unsigned bits) const {
  if (bits < 64)
    v &= (uint64_t(1) << bits) - 1;
  return v < 10 ? fmt::format("{}", v) : fmt::format("0x{:x}", v);
}

// -1 rather than 0xffffffff: the same bits, and lowered again the same Ori immediate
// (docs/ptx.md, "Round trip"). 64-bit values print as immText's hex, which reads back alike.
std::string FnEmitter::immTextAsHeld(int64_t v, unsigned bits) const {
  const bool negFits = bits < 64 && v < 0 && v >= -(int64_t(1) << (bits - 1));
  return negFits ? fmt::format("{}", v) : immText(uint64_t(v), bits);
}

std::string FnEmitter::regAs(Reg r, unsigned bits) {
  unsigned have = regBits(r);
  if (have == 1)
    fail(cur_->loc, fmt::format("predicate {} read as an integer", regName(r)));
  if (have == bits)
    return regName(r);
  std::string t = temp(bits);
  emit(fmt::format("cvt.u{}.u{} {}, {};", bits, have, t, regName(r)));
  return t;
}

std::string FnEmitter::intSrc(const Instr &in, size_t i, unsigned bits, bool inReg) {
  if (i >= in.srcs.size())
    fail(in.loc, fmt::format("{}: missing source operand {}", in.info().name, i + 1));
  const Operand &o = in.srcs[i];
  std::string v;
  switch (o.kind) {
  case Operand::Kind::Reg:
    if (!o.reg.isGeneral())
      fail(in.loc,
           fmt::format("{}: operand {} must be an R or UR register", in.info().name, i + 1));
    if (o.abs)
      fail(in.loc, fmt::format("{}: |..| on an integer operand", in.info().name));
    if (o.reg.isConst()) {
      v = "0";
      if (inReg) {
        std::string t = temp(bits);
        emit(fmt::format("mov.b{} {}, 0;", bits, t));
        v = t;
      }
    } else {
      v = regAs(o.reg, bits);
    }
    if (o.neg) {
      std::string t = temp(bits);
      emit(fmt::format("neg.s{} {}, {};", bits, t, v));
      v = t;
    }
    return v;
  case Operand::Kind::Imm: {
    uint64_t x = uint64_t(o.imm);
    if (o.neg)
      x = 0 - x;
    v = immTextAsHeld(int64_t(x), bits);
    if (inReg) {
      std::string t = temp(bits);
      emit(fmt::format("mov.b{} {}, {};", bits, t, v));
      v = t;
    }
    return v;
  }
  case Operand::Kind::CBank:
    v = cbank(in, o, bits / 8, fmt::format("b{}", bits), bits);
    if (o.neg) {
      std::string t = temp(bits);
      emit(fmt::format("neg.s{} {}, {};", bits, t, v));
      v = t;
    }
    return v;
  default:
    fail(in.loc,
         fmt::format("{}: operand {} cannot be read as an integer in PTX", in.info().name, i + 1));
  }
}

std::string FnEmitter::f32Src(const Instr &in, size_t i) {
  if (i >= in.srcs.size())
    fail(in.loc, fmt::format("{}: missing source operand {}", in.info().name, i + 1));
  const Operand &o = in.srcs[i];
  auto constant = [&](uint32_t b) {
    if (o.abs)
      b &= 0x7fffffffu;
    if (o.neg)
      b ^= 0x80000000u;
    return fmt::format("0f{:08X}", b);
  };
  std::string v;
  switch (o.kind) {
  case Operand::Kind::FImm:
    return constant(std::bit_cast<uint32_t>(float(o.fimm)));
  case Operand::Kind::Reg:
    if (!o.reg.isGeneral())
      fail(in.loc,
           fmt::format("{}: operand {} must be an R or UR register", in.info().name, i + 1));
    if (o.reg.isConst())
      return constant(0);
    v = regAs(o.reg, 32);
    break;
  case Operand::Kind::CBank:
    v = cbank(in, o, 4, "b32", 32);
    break;
  default:
    fail(in.loc,
         fmt::format("{}: operand {} cannot be read as a binary32 value", in.info().name, i + 1));
  }
  // |x| and -x are bit operations on the sign (also for NaNs), as in the interpreter.
  if (o.abs) {
    std::string t = temp(32);
    emit(fmt::format("and.b32 {}, {}, 0x7fffffff;", t, v));
    v = t;
  }
  if (o.neg) {
    std::string t = temp(32);
    emit(fmt::format("xor.b32 {}, {}, 0x80000000;", t, v));
    v = t;
  }
  return v;
}

std::string FnEmitter::f64Src(const Instr &in, size_t i) {
  if (i >= in.srcs.size())
    fail(in.loc, fmt::format("{}: missing source operand {}", in.info().name, i + 1));
  const Operand &o = in.srcs[i];
  constexpr uint64_t kSign = uint64_t(1) << 63;
  auto constant = [&](uint64_t b) {
    if (o.abs)
      b &= ~kSign;
    if (o.neg)
      b ^= kSign;
    return fmt::format("0d{:016X}", b);
  };
  std::string v;
  switch (o.kind) {
  case Operand::Kind::FImm:
    return constant(std::bit_cast<uint64_t>(o.fimm));
  case Operand::Kind::Reg:
    if (!o.reg.isGeneral())
      fail(in.loc,
           fmt::format("{}: operand {} must be an R or UR register", in.info().name, i + 1));
    if (o.reg.isConst())
      return constant(0);
    v = regAs(o.reg, 64);
    break;
  case Operand::Kind::CBank:
    v = cbank(in, o, 8, "b64", 64);
    break;
  default:
    fail(in.loc,
         fmt::format("{}: operand {} cannot be read as a binary64 value", in.info().name, i + 1));
  }
  if (o.abs) {
    std::string t = temp(64);
    emit(fmt::format("and.b64 {}, {}, 0x7fffffffffffffff;", t, v));
    v = t;
  }
  if (o.neg) {
    std::string t = temp(64);
    emit(fmt::format("xor.b64 {}, {}, 0x8000000000000000;", t, v));
    v = t;
  }
  return v;
}

FnEmitter::Pred FnEmitter::predSrc(const Instr &in, size_t i) const {
  if (i >= in.srcs.size())
    fail(in.loc, fmt::format("{}: missing source operand {}", in.info().name, i + 1));
  const Operand &o = in.srcs[i];
  if (o.kind != Operand::Kind::Reg || !o.reg.isPredicate())
    fail(in.loc, fmt::format("{}: operand {} must be a predicate", in.info().name, i + 1));
  Pred p;
  if (o.reg.isConst()) {
    p.isConst = true;
    p.value = !o.neg;
  } else {
    p.name = regName(o.reg);
    p.neg = o.neg;
  }
  return p;
}

std::string FnEmitter::predText(const Pred &p) {
  if (p.isConst)
    fail(cur_ ? cur_->loc : f.loc, "internal: a constant predicate where PTX needs a register");
  return (p.neg ? "!" : "") + p.name;
}

std::string FnEmitter::intDst(const Instr &in, size_t d, unsigned bits) {
  if (d >= in.dsts.size())
    fail(in.loc, fmt::format("{}: missing destination {}", in.info().name, d + 1));
  const Operand &o = in.dsts[d];
  if (o.kind != Operand::Kind::Reg || !o.reg.isGeneral())
    fail(in.loc,
         fmt::format("{}: destination {} must be an R or UR register", in.info().name, d + 1));
  if (o.reg.isConst())
    return temp(bits); // RZ: the result is dropped
  unsigned have = regBits(o.reg);
  if (have == bits)
    return regName(o.reg);
  std::string t = temp(bits);
  fixups_.push_back({t, regName(o.reg), bits, have});
  return t;
}

std::string FnEmitter::predDst(const Instr &in, size_t d) {
  if (d >= in.dsts.size())
    fail(in.loc, fmt::format("{}: missing destination {}", in.info().name, d + 1));
  const Operand &o = in.dsts[d];
  if (o.kind != Operand::Kind::Reg || !o.reg.isPredicate())
    fail(in.loc, fmt::format("{}: destination {} must be a predicate", in.info().name, d + 1));
  return o.reg.isConst() ? temp(1) : regName(o.reg);
}

void FnEmitter::finishDsts() {
  // A 32-bit result in a 64-bit register is zero-extended, as in the
  // interpreter's 64-bit containers; a wider result in a narrower one keeps its low bits.
  for (const Fixup &x : fixups_)
    emit(fmt::format("cvt.u{}.u{} {}, {};", x.toBits, x.fromBits, x.to, x.from));
  fixups_.clear();
}

void FnEmitter::setPred(const std::string &d, const Pred &v) {
  if (v.isConst)
    emit(fmt::format("mov.pred {}, {};", d,
                     v.value ? 1 : 0)); // as the lowering reads PLOP3 constants
  else if (v.neg)
    emit(fmt::format("not.pred {}, {};", d, v.name));
  else if (d != v.name)
    emit(fmt::format("mov.pred {}, {};", d, v.name));
}

std::string FnEmitter::cbank(const Instr &in, const Operand &o, unsigned bytes,
                             const std::string &ldType, unsigned bits, const std::string &dst) {
  if (o.bank != 0)
    fail(in.loc,
         fmt::format("c[0x{:x}][{}]: constant bank {} has no PTX form (only bank 0, the kernel "
                     "parameters, has one: ld.param)",
                     o.bank, hexOff(o.imm), o.bank));
  if (o.hasReg && !o.reg.isConst()) {
    // c[0x0][R+kParamBase+off] in a kernel: ld.param through a register holding an address in
    // the parameters (`mov.u64 R, p` gives p's offset from the first one), as the lowering read it.
    if (!f.isEntry || o.imm < int64_t(kParamBase))
      fail(in.loc,
           fmt::format(
               "c[0x0][{}{}]: a register-indexed constant-bank read has no PTX form here (only "
               "one at the parameters, from 0x{:x}, in a kernel: ld.param)",
               regName(o.reg), o.imm < 0 ? hexOff(o.imm) : "+" + hexOff(o.imm), kParamBase));
    const int64_t off = o.imm - int64_t(kParamBase);
    std::string t = !dst.empty() ? dst : temp(bits);
    emit(fmt::format("ld.param.{} {}, [{}{}];", ldType, t, regAs(o.reg, 64),
                     off ? fmt::format("+{}", off) : ""));
    return t;
  }
  if (!f.isEntry)
    fail(in.loc,
         fmt::format("c[0x0][{}] in .func '{}': kernel parameters are not visible in a PTX .func",
                     hexOff(o.imm), f.name));
  int64_t off = o.imm;
  if (off < 0 || uint64_t(off) % bytes != 0)
    fail(in.loc, fmt::format("c[0x0][{}]: a misaligned {}-byte constant-bank read (a fault in the "
                             "interpreter) has no PTX form",
                             hexOff(off), bytes));
  if (uint64_t(off) < uint64_t(kParamWindowPointer) + 8 &&
      uint64_t(off) + bytes > kParamWindowPointer) {
    // The generic base of the kernel's parameters (ir/param_window.h): cvta.param of the first
    // parameter's address, which is 0 (the lowering reads `cvta.param.u64 d, 0` back as this
    // read alone).
    const Param *first = nullptr;
    for (const Param &p : f.params)
      if (p.offset == kParamBase)
        first = &p;
    if (off != int64_t(kParamWindowPointer) || bytes != 8 || !first)
      fail(in.loc,
           fmt::format("c[0x0][{}]: only an 8-byte read of c[0x0][0x{:x}] (the generic base "
                       "of the parameters) in a kernel with parameters has a PTX form "
                       "(cvta.param)",
                       hexOff(off), kParamWindowPointer));
    std::string t = !dst.empty() ? dst : temp(64);
    emit(fmt::format("cvta.param.u64 {}, 0;", t));
    return t;
  }
  auto load = [&](uint64_t at, unsigned n, const std::string &type,
                  unsigned width) -> std::optional<std::string> {
    for (const Param &p : f.params) {
      uint64_t lo = p.offset, hi = uint64_t(p.offset) + p.size;
      if (at >= lo && at + n <= hi) {
        std::string t = !dst.empty() && width == bits ? dst : temp(width);
        uint64_t delta = at - lo;
        emit(fmt::format("ld.param.{} {}, [{}{}];", type, t, p.name,
                         delta ? fmt::format("+{}", delta) : ""));
        return t;
      }
      if (at < hi && at + n > lo)
        return std::nullopt; // straddles a parameter boundary
    }
    std::string t =
        !dst.empty() && width == bits ? dst : temp(width); // past every parameter: reads 0
    emit(fmt::format("mov.b{} {}, 0;", width, t));
    return t;
  };
  if (auto t = load(uint64_t(off), bytes, ldType, bits))
    return *t;
  if (bytes == 8) { // two halves in different parameters
    auto lo = load(uint64_t(off), 4, "b32", 32);
    auto hi = lo ? load(uint64_t(off) + 4, 4, "b32", 32) : std::nullopt;
    if (lo && hi) {
      std::string t = dst.empty() ? temp(64) : dst;
      emit(fmt::format("mov.b64 {}, {{{}, {}}};", t, *lo, *hi));
      return t;
    }
  }
  fail(in.loc, fmt::format("c[0x0][{}]: a {}-byte read across parameter boundaries has no PTX form",
                           hexOff(off), bytes));
}

// ------------------------------------------------------------------ instructions

void FnEmitter::instr(const Instr &in) {
  cur_ = &in;
  lines_.clear();
  fixups_.clear();
  tempUsed_.clear();
  if (in.guard) {
    const Operand &g = *in.guard;
    if (g.kind != Operand::Kind::Reg || !g.reg.isPredicate())
      fail(in.loc, "a guard must be a predicate register");
    if (g.reg.isConst() && g.neg) { // @!PT: never runs
      body_ += "  // never runs: " + printInstr(f, in) + "\n";
      return;
    }
  }
  bool handled = emitControl(in) || emitWarp(in) || emitMatrix(in) || emitInteger(in) ||
                 emitPredicate(in) || emitFloat(in) || emitMemory(in);
  if (!handled)
    fail(in.loc, fmt::format("{} has no PTX form", printInstr(f, in)));
  finishDsts();
  std::string guard;
  if (in.isGuarded()) {
    const Operand &g = *in.guard;
    std::string name = regName(g.reg);
    size_t n =
        std::count_if(lines_.begin(), lines_.end(), [](const Line &l) { return l.guardable; });
    // A guard register the expansion writes before its last line is copied first.
    bool written = false;
    for (Reg r : in.defs())
      written |= r == g.reg;
    if (n > 1 && written) {
      std::string t = temp(1);
      lines_.insert(lines_.begin(), Line{fmt::format("mov.pred {}, {};", t, name), false});
      name = t;
    }
    guard = fmt::format("@{}{} ", g.neg ? "!" : "", name);
  }
  std::string indent = "  ";
  for (const Line &l : lines_) {
    if (l.text == "}")
      indent = "  ";
    body_ += indent + (l.guardable ? guard : std::string()) + l.text + "\n";
    if (l.text == "{")
      indent = "    ";
  }
}

// ------------------------------------------------------------------ the function

void FnEmitter::bodyPrologue(std::string &out) {
  cur_ = nullptr;
  lines_.clear();
  tempUsed_.clear();
  // Initial bytes of .local and .param variables (PTX has no initializers
  // for them): the interpreter writes them when the function is entered.
  for (const Variable &v : f.variables) {
    if (v.init.empty() || (v.space != Space::Local && v.space != Space::Param))
      continue;
    uint32_t n = v.count ? v.count : 1;
    for (uint32_t i = 0; i < n && size_t(i) * v.elemSize < v.init.size(); ++i) {
      uint64_t bits = 0;
      for (uint32_t b = 0; b < v.elemSize && b < 8; ++b)
        if (size_t(i) * v.elemSize + b < v.init.size())
          bits |= uint64_t(v.init[size_t(i) * v.elemSize + b]) << (8 * b);
      uint32_t at = i * v.elemSize;
      std::string space = v.space == Space::Param && !slots_.count(v.name)
                              ? "local"
                              : std::string(spaceName(v.space));
      emit(fmt::format("st.{}.b{} [{}{}], {};", space, v.elemSize * 8, v.name,
                       at ? fmt::format("+{}", at) : "", immText(bits, v.elemSize * 8)));
    }
  }
  // The interpreter starts every thread, and every called function, with
  // zeroed registers. Not when the function is printed as the PTX it was read from, every
  // instruction of it and nothing else: that is the program as written (whose registers are
  // undefined until written; the lowering's 0 is one of their values).
  const bool asRead = allText_ && origins_ && textOrigins_.size() + 1 == origins_->origins.size();
  if (auto it = ctx.liveIn.find(f.name); it != ctx.liveIn.end() && !asRead)
    for (Reg r : it->second) {
      untyped_.insert(r);
      if (regBits(r) == 1)
        emit(fmt::format("setp.ne.u32 {}, 0, 0;", regName(r)));
      else
        emit(fmt::format("mov.b{} {}, 0;", regBits(r), regName(r)));
    }
  for (const Line &l : lines_)
    out += "  " + l.text + "\n";
  lines_.clear();
}

std::string FnEmitter::run() {
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    curBlock_ = b;
    if (origins_ && !f.blocks[b].label.empty())
      if (auto it = origins_->beforeLabel.find(f.blocks[b].label);
          it != origins_->beforeLabel.end()) {
        for (const std::string &l : it->second.lines)
          body_ += "  " + l + "\n";
        lastLoc_ = it->second.loc;
      }
    if (!labels_[b].empty())
      body_ += labels_[b] + ":\n";
    if (auto it = f.blockDirectives.find(f.blocks[b].label);
        !f.blocks[b].label.empty() && it != f.blockDirectives.end())
      for (const std::string &d : it->second)
        body_ += "  " + d + "\n";
    const auto &instrs = f.blocks[b].instrs;
    for (size_t i = 0; i < instrs.size(); ++i) {
      emitLoc(instrs[i]);
      std::string text;
      if (size_t n = originRun(instrs, i, text)) { // as it was written (emit_origin.cpp)
        body_ += "  " + text + "\n";
        if (!textOrigins_.insert(instrs[i].origin).second)
          allText_ = false; // printed twice: not the function as read
        i += n - 1;
        continue;
      }
      // The RET the lowering adds where a function's PTX ends without one is that end as read.
      const bool implicitRet = origins_ && instrs[i].op == Opcode::RET && instrs[i].origin == 0 &&
                               !instrs[i].guard && instrs[i].srcs.empty() &&
                               instrs[i].dsts.empty() && instrs[i].mods.empty() &&
                               b + 1 == f.blocks.size() && i + 1 == instrs.size();
      allText_ = allText_ && implicitRet;
      if (implicitRet)
        continue; // PTX returns where control reaches the end of the function
      forEachDef(instrs[i], [&](Reg r) { untyped_.insert(r); });
      forEachUse(instrs[i], [&](Reg r) { untyped_.insert(r); });
      next_ = i + 1 < instrs.size() ? &instrs[i + 1] : nullptr;
      curIndex_ = i;
      const bool joined = syncedMask_.has_value(); // the WARPSYNC before left its mask to this one
      const bool joinedCvta = cvtaJoin_.has_value(); // the S2R before left its cvta to this one
      const int mul24Pending = mul24Join_ ? mul24Join_->pending : -1;
      const bool joinedBfe = bfeJoin_.has_value(); // the SHR before left its bfe to this one
      instr(instrs[i]);
      if (joinedBfe && bfeJoin_)
        fail(instrs[i].loc, "internal: the bfe of the SHR before was not taken");
      if (mul24Pending == 1 && mul24Join_)
        fail(instrs[i].loc, "internal: the mul24 of the SGXTs before was not taken");
      if (joined && syncedMask_)
        fail(instrs[i].loc, "internal: the mask of the WARPSYNC before was not taken");
      if (joinedCvta && cvtaJoin_)
        fail(instrs[i].loc, "internal: the cvta of the S2R before was not taken");
    }
  }
  std::string prologue;
  bodyPrologue(prologue);

  std::string linkage = f.linkage == "visible" || f.linkage == "weak" ? "." + f.linkage + " " : "";
  std::string out =
      (f.isEntry ? ".visible .entry " : linkage + ".func ") + functionSignature(f) + "\n";
  std::vector<std::string> inBody;
  for (const std::string &d0 : f.ptxDirectives) {
    std::string d = trim(d0);
    if (d.empty())
      continue;
    if (isHeaderDirective(d))
      out += d + "\n";
    else
      inBody.push_back(d.back() == ';' || d.back() == '}' ? d : d + ";");
  }
  out += "{\n";
  out += regDeclarations();
  for (const auto &[bits, list] : tempNames_)
    for (const std::string &t : list)
      out += fmt::format("  .reg {} {};\n", regDeclType(bits), t);
  for (const std::string &d : inBody)
    out += "  " + d + "\n";
  for (const Variable &v : f.variables) {
    if (v.space == Space::Param && !slots_.count(v.name)) { // not a plain call slot: local memory
      Variable local = v;
      local.space = Space::Local;
      local.align = std::max<uint32_t>(v.align ? v.align : v.elemSize, 1);
      out += "  " + variableDecl(local) + ";\n";
      continue;
    }
    out += "  " + variableDecl(v) + ";\n";
  }
  for (size_t t = 0; t < f.jumpTables.size(); ++t) {
    std::string list;
    for (uint32_t bix : f.jumpTables[t].targets)
      list += (list.empty() ? "" : ", ") + labelName(bix);
    out += fmt::format("  {}: .branchtargets {};\n", tables_[t], list);
  }
  out += prologue;
  out += body_;
  out += "}\n";
  return out;
}

std::string emitFunction(const ModuleCtx &ctx, const Function &f, std::set<std::string> &labels) {
  if (!isPtxIdent(f.name))
    fail(f.loc, fmt::format("function name '{}' is not a PTX identifier", f.name));
  if (f.isEntry) { // PTX limits a kernel's parameters to 4096 bytes, 32764 from PTX 8.1 on sm_70
                   // and later
    uint64_t bytes = 0;
    for (const Param &p : f.params)
      bytes = std::max<uint64_t>(bytes, uint64_t(p.offset) + p.size - kParamBase);
    if (bytes > 4096 && (ctx.sm < 70 || bytes > 32764))
      fail(f.loc, fmt::format("kernel '{}' has {} bytes of parameters; PTX allows {}", f.name,
                              bytes, ctx.sm < 70 ? "4096 before sm_70" : "32764"));
    if (bytes > 4096)
      ctx.require(8, 1);
  }
  FnEmitter e(ctx, f);
  std::string out = e.run();
  for (const std::string &l : e.labels())
    if (!l.empty())
      labels.insert(l);
  return out;
}

} // namespace ori::ptx::emit_detail
