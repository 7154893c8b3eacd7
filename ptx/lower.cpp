// PTX -> Ori: functions, scopes, names, blocks and OPAQUE instructions.
// Block rules as DESIGN.md says: a label starts a block, a control-flow
// instruction ends one; a label that names a .branchtargets table is a jump
// table, not a block. docs/ptx.md lists what lowers natively.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>

#include "ptx/lower_impl.h"

namespace ori::ptx {
namespace {

// PTX special registers we model as Ori special registers.
constexpr std::pair<std::string_view, ori::SpecialReg> kSpecialRegs[] = {
    {"%tid.x", ori::SpecialReg::TID_X},       {"%tid.y", ori::SpecialReg::TID_Y},
    {"%tid.z", ori::SpecialReg::TID_Z},       {"%ctaid.x", ori::SpecialReg::CTAID_X},
    {"%ctaid.y", ori::SpecialReg::CTAID_Y},   {"%ctaid.z", ori::SpecialReg::CTAID_Z},
    {"%ntid.x", ori::SpecialReg::NTID_X},     {"%ntid.y", ori::SpecialReg::NTID_Y},
    {"%ntid.z", ori::SpecialReg::NTID_Z},     {"%nctaid.x", ori::SpecialReg::NCTAID_X},
    {"%nctaid.y", ori::SpecialReg::NCTAID_Y}, {"%nctaid.z", ori::SpecialReg::NCTAID_Z},
    {"%laneid", ori::SpecialReg::LANEID},     {"%warpid", ori::SpecialReg::WARPID},
    {"%nwarpid", ori::SpecialReg::NWARPID},   {"%smid", ori::SpecialReg::SMID},
    {"%nsmid", ori::SpecialReg::NSMID},       {"%gridid", ori::SpecialReg::GRIDID},
    {"%clock", ori::SpecialReg::CLOCKLO},     {"%lanemask_eq", ori::SpecialReg::LANEMASK_EQ},
    {"%lanemask_lt", ori::SpecialReg::LANEMASK_LT}, {"%lanemask_le", ori::SpecialReg::LANEMASK_LE},
    {"%lanemask_gt", ori::SpecialReg::LANEMASK_GT}, {"%lanemask_ge", ori::SpecialReg::LANEMASK_GE},
};

// Other PTX special registers: valid in OPAQUE text, not modelled.
constexpr std::string_view kOtherSpecialPrefixes[] = {
    "%clock64", "%clock_hi", "%pm", "%envreg", "%globaltimer", "%total_smem_size",
    "%aggr_smem_size", "%dynamic_smem_size", "%reserved_smem_offset", "%is_explicit_cluster",
    "%clusterid", "%nclusterid", "%cluster_", "%current_graph_exec", "%tid", "%ntid", "%ctaid",
    "%nctaid", "%gridid", "%smid", "%nsmid", "%warpid", "%nwarpid", "%laneid", "%lanemask",
};

// PTX instructions whose first operand is not a destination.
bool hasNoDestination(std::string_view opcode, const std::vector<std::string>& mods) {
  if ((opcode == "bar" || opcode == "barrier") && std::find(mods.begin(), mods.end(), ".red") != mods.end())
    return false; // bar.red.popc.u32 d, ...
  static constexpr std::string_view kNoDest[] = {
      "st", "red", "bar", "barrier", "prefetch", "prefetchu", "membar", "fence", "trap",
      "brkpt", "pmevent", "nanosleep", "sust", "sured", "cp", "applypriority", "discard",
      "griddepcontrol", "setmaxnreg", "stmatrix", "multimem", "exit", "ret", "bra", "brx",
      "call", "elect", "wgmma", "tcgen05", "cp.async",
  };
  for (std::string_view o : kNoDest)
    if (opcode == o) return true;
  return false;
}

bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}
bool isIdentChar(char c) { return isIdentStart(c) || std::isdigit(static_cast<unsigned char>(c)); }

// Ori's .ori text reads names shaped like registers (R1, P0, UR2, B3, RZ, PT),
// "c" and SR_* as something else; such PTX names get a suffix.
bool clashesWithOri(std::string_view n) {
  if (n == "c" || n == "RZ" || n == "URZ" || n == "PT" || n == "UPT" || n.starts_with("SR_")) return true;
  for (std::string_view prefix : {"UR", "UP", "R", "P", "B"})
    if (n.size() > prefix.size() && n.starts_with(prefix) &&
        std::all_of(n.begin() + prefix.size(), n.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return true;
  return false;
}

ori::Variable convertVariable(const Variable& v, ori::Space space, std::string_view file) {
  auto fail = [&](std::string msg) -> void {
    throw DiagnosticError({std::string(file), v.loc.line, v.loc.col, std::move(msg)});
  };
  ori::Variable out;
  out.space = space;
  out.name = v.name;
  PtxType t = parseType(v.type);
  if (t.kind == PtxType::None || t.kind == PtxType::Pred || t.bits < 8 || t.bits > 64 || (t.bits & (t.bits - 1)))
    fail(fmt::format("variable '{}' has type '{}', which has no memory layout here", v.name, v.type));
  static constexpr std::string_view kKeep[] = {"u8", "s8", "b8", "u16", "s16", "b16", "f16", "u32", "s32",
                                               "b32", "f32", "u64", "s64", "b64", "f64"};
  std::string_view bare = std::string_view(v.type).substr(1);
  bool keep = std::find(std::begin(kKeep), std::end(kKeep), bare) != std::end(kKeep);
  out.type = keep ? std::string(bare) : fmt::format("b{}", t.bits);
  out.elemSize = t.bits / 8;
  uint64_t count = v.vectorMod == ".v2" ? 2 : v.vectorMod == ".v4" ? 4 : v.vectorMod == ".v8" ? 8 : 1;
  bool array = count > 1 || !v.dims.empty();
  for (const auto& d : v.dims) {
    uint64_t n = d ? *d : std::max<uint64_t>(1, v.init.size() / std::max<uint64_t>(count, 1));
    if (n == 0 || n > (1u << 24)) fail(fmt::format("array '{}' has a bad length", v.name));
    count *= n;
    if (count * out.elemSize > (1u << 24)) fail(fmt::format("variable '{}' is larger than 16 MiB", v.name));
  }
  out.count = array ? uint32_t(count) : 0;
  out.align = v.align ? v.align : out.elemSize;
  if (v.init.size() > count) fail(fmt::format("too many initializers for '{}'", v.name));
  for (const Operand& o : v.init) {
    uint64_t bits = 0;
    if (o.kind == Operand::Kind::Int) bits = uint64_t(o.ival);
    else if (o.kind == Operand::Kind::Float)
      bits = out.elemSize == 4 ? std::bit_cast<uint32_t>(float(o.fval)) : std::bit_cast<uint64_t>(o.fval);
    else fail(fmt::format("initializer of '{}' is not a number; address initializers are not supported", v.name));
    for (uint32_t b = 0; b < out.elemSize; ++b) out.init.push_back(uint8_t(bits >> (8 * b)));
  }
  return out;
}

ori::Param convertParam(const Variable& v, std::string_view file) {
  ori::Variable tmp = convertVariable(v, ori::Space::Param, file);
  ori::Param p;
  p.type = tmp.type;
  p.name = tmp.name;
  p.size = tmp.size();
  p.align = tmp.align;
  p.count = tmp.count;
  return p;
}

} // namespace

bool isUnmodelledSpecialRegister(std::string_view name) {
  for (std::string_view p : kOtherSpecialPrefixes)
    if (name.starts_with(p)) return true;
  return false;
}

PtxType parseType(std::string_view mod) {
  if (mod == ".pred") return {PtxType::Pred, 1};
  if (mod == ".bf16") return {PtxType::Float, 16, true};
  if (mod == ".f16x2") return {PtxType::Packed, 32, false};
  if (mod == ".bf16x2") return {PtxType::Packed, 32, true};
  if (mod.size() < 3 || mod[0] != '.') return {};
  PtxType::Kind k = mod[1] == 's' ? PtxType::Signed : mod[1] == 'u' ? PtxType::Unsigned
                    : mod[1] == 'b' ? PtxType::Bits : mod[1] == 'f' ? PtxType::Float : PtxType::None;
  if (k == PtxType::None) return {};
  std::string_view digits = mod.substr(2);
  if (digits != "8" && digits != "16" && digits != "32" && digits != "64" && digits != "128") return {};
  return {k, unsigned(std::stoul(std::string(digits)))};
}

void FunctionLowerer::fail(SrcLoc loc, std::string msg) const {
  throw DiagnosticError({ast_.fileName, loc.line, loc.col, std::move(msg)});
}

std::string FunctionLowerer::uniqueRegName(const std::string& name) {
  std::string base = clashesWithOri(name) ? name + "_" : name;
  std::string out = base;
  for (int k = 1; regNamesUsed_.count(out); ++k) out = fmt::format("{}_{}", base, k);
  regNamesUsed_.insert(out);
  return out;
}

std::string FunctionLowerer::uniqueVarName(const std::string& name) {
  std::string base = clashesWithOri(name) ? name + "_" : name;
  std::string out = base;
  auto taken = [&](const std::string& n) {
    if (varNamesUsed_.count(n)) return true;
    for (const ori::Variable& v : om_.variables)
      if (v.name == n) return true;
    for (const auto* list : {&f_.params, &f_.returns})
      for (const ori::Param& p : *list)
        if (p.name == n) return true;
    return false;
  };
  for (int k = 1; taken(out); ++k) out = fmt::format("{}_{}", base, k);
  varNamesUsed_.insert(out);
  return out;
}

ori::Reg FunctionLowerer::newTemp(ori::RegFile file, std::string_view type) {
  ori::Reg r = f_.newReg(file);
  f_.regNames[r] = uniqueRegName(fmt::format("%ori_t{}", r.num));
  f_.regTypes[r] = std::string(type);
  pendingTemps_.push_back(r);
  return r;
}

unsigned FunctionLowerer::regBits(ori::Reg r) const {
  auto it = f_.regTypes.find(r);
  if (it == f_.regTypes.end()) return 32;
  PtxType t = parseType("." + it->second);
  return t.bits ? t.bits : 32;
}

void FunctionLowerer::branchTo(const std::string& label, SrcLoc loc) {
  if (!labelsSeen_.count(label)) fail(loc, fmt::format("branch to unknown label '{}'", label));
  pendingLabel_ = label;
  pendingLabelLoc_ = loc;
}

uint32_t FunctionLowerer::jumpTable(const std::string& name, SrcLoc loc) {
  auto t = tables_.find(name);
  if (t == tables_.end()) fail(loc, fmt::format("'{}' is not a .branchtargets table", name));
  if (auto it = tableIndex_.find(name); it != tableIndex_.end()) return it->second;
  uint32_t index = uint32_t(f_.jumpTables.size());
  f_.jumpTables.push_back(ori::JumpTable{clashesWithOri(name) ? name + "_" : name, {}});
  tableIndex_[name] = index;
  tableUses_.emplace_back(index, t->second);
  return index;
}

std::string FunctionLowerer::sinkVariable(const ori::Param& ret) {
  ori::Variable v;
  v.space = ori::Space::Param;
  v.type = ret.type;
  v.count = ret.count;
  v.elemSize = ret.size / std::max<uint32_t>(ret.count, 1);
  v.align = ret.align;
  v.name = uniqueVarName("__ori_discarded");
  f_.variables.push_back(v);
  return v.name;
}

bool FunctionLowerer::isParamVariable(const std::string& oriName) const {
  for (const ori::Variable& v : f_.variables)
    if (v.name == oriName) return v.space == ori::Space::Param;
  return false;
}

NameRef FunctionLowerer::resolve(const std::string& name) {
  NameRef ref;
  for (size_t i = scopes_.size(); i-- > 0;) {
    Scope& s = scopes_[i];
    if (auto it = s.regs.find(name); it != s.regs.end()) {
      ref.kind = NameRef::Register;
      ref.reg = it->second;
      return ref;
    }
    auto allocateIn = [&](const std::string& type) {
      ori::Reg r = f_.newReg(type == "pred" ? ori::RegFile::P : ori::RegFile::R);
      f_.regNames[r] = uniqueRegName(name);
      f_.regTypes[r] = type;
      s.regs[name] = r;
      ref.kind = NameRef::Register;
      ref.reg = r;
    };
    if (auto it = s.regTypes.find(name); it != s.regTypes.end()) {
      allocateIn(it->second);
      return ref;
    }
    for (const RangeDecl& d : s.ranges) {
      if (name.size() <= d.prefix.size() || !name.starts_with(d.prefix)) continue;
      std::string_view digits = std::string_view(name).substr(d.prefix.size());
      if (digits.size() > 7 || (digits.size() > 1 && digits[0] == '0') ||
          !std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        continue;
      if (std::stoul(std::string(digits)) < d.count) {
        allocateIn(d.type);
        return ref;
      }
    }
    if (auto it = s.vars.find(name); it != s.vars.end()) {
      ref.kind = NameRef::Variable;
      ref.symbol = it->second;
      return ref;
    }
  }
  for (auto [n, s] : kSpecialRegs)
    if (n == name) {
      ref.kind = NameRef::Special;
      ref.sreg = s;
      return ref;
    }
  for (const ori::Param& p : f_.params)
    if (p.name == name) {
      ref.kind = f_.isEntry ? NameRef::EntryParam : NameRef::Variable;
      ref.symbol = p.name;
      ref.param = &p;
      return ref;
    }
  for (const ori::Param& p : f_.returns)
    if (p.name == name) {
      ref.kind = NameRef::Variable;
      ref.symbol = p.name;
      return ref;
    }
  for (const ori::Variable& v : om_.variables)
    if (v.name == name) {
      ref.kind = NameRef::Variable;
      ref.symbol = v.name;
      return ref;
    }
  if (om_.findFunction(name)) {
    ref.kind = NameRef::Function;
    ref.symbol = name;
  }
  return ref;
}

bool FunctionLowerer::isTexref(const std::string& name) const {
  for (const TopLevel& item : ast_.items)
    if (item.kind == TopLevel::Kind::Variable && item.variable.name == name && item.variable.type == ".texref" &&
        item.variable.space == ".global" && item.variable.dims.empty())
      return true;
  return false;
}

void FunctionLowerer::declare(const Variable& v) {
  Scope& s = scopes_.back();
  if (v.space == ".reg") {
    if (!v.vectorMod.empty()) fail(v.loc, fmt::format("vector register '{}' is not supported", v.name));
    PtxType t = parseType(v.type);
    if (t.kind == PtxType::None) fail(v.loc, fmt::format("register '{}' has unknown type '{}'", v.name, v.type));
    std::string type = v.type.substr(1);
    if (v.rangeCount) s.ranges.push_back({v.name, type, *v.rangeCount});
    else s.regTypes[v.name] = type;
    return;
  }
  PtxType t = parseType(v.type);
  if (t.kind == PtxType::None || t.kind == PtxType::Pred) {
    f_.ptxDirectives.push_back(v.text + ";"); // .texref, .surfref, .samplerref: PTX text only
    return;
  }
  if (v.space == ".global" || v.space == ".const") {
    // A function-scope .global/.const is a module variable only this function sees.
    ori::Variable mv = convertVariable(v, v.space == ".global" ? ori::Space::Global : ori::Space::Const, ast_.fileName);
    mv.name = uniqueVarName(v.name);
    s.vars[v.name] = mv.name;
    om_.variables.push_back(std::move(mv));
    return;
  }
  ori::Space space = v.space == ".shared" ? ori::Space::Shared
                     : v.space == ".param" ? ori::Space::Param : ori::Space::Local;
  ori::Variable fv = convertVariable(v, space, ast_.fileName);
  fv.name = uniqueVarName(v.name);
  s.vars[v.name] = fv.name;
  f_.variables.push_back(std::move(fv));
}

void FunctionLowerer::collectLabels() {
  for (const Statement& s : pf_.body) {
    if (s.kind == Statement::Kind::Label) {
      if (!labelsSeen_.insert(s.label.name).second)
        fail(s.label.loc, fmt::format("duplicate label '{}'", s.label.name));
    } else if (s.kind == Statement::Kind::BranchTargets) {
      if (!tables_.emplace(s.targets.name, &s.targets).second)
        fail(s.targets.loc, fmt::format("duplicate .branchtargets '{}'", s.targets.name));
    }
  }
}

void FunctionLowerer::emit(ori::Instr in) {
  in.loc = loc_;
  if (guard_ && !in.guard) in.guard = guard_;
  pending_.push_back(std::move(in));
}

void FunctionLowerer::commit() {
  for (ori::Instr& in : pending_) {
    if (needBlock_) {
      f_.blocks.push_back(ori::Block{"", 0x10 * instrIndex_, {}});
      needBlock_ = false;
    }
    if (in.op == ori::Opcode::BRA) {
      fixups_.push_back({uint32_t(f_.blocks.size() - 1), uint32_t(f_.blocks.back().instrs.size()), 0,
                         pendingLabel_, pendingLabelLoc_});
    }
    bool control = in.info().is(ori::CONTROL);
    f_.blocks.back().instrs.push_back(std::move(in));
    ++instrIndex_;
    if (control) needBlock_ = true;
  }
  pending_.clear();
  pendingTemps_.clear();
}

// Drops what a lowering that declined had emitted, and its temporaries' names
// and numbers. The numbers matter: a lowering may decline after making some
// temporaries or before, depending on the order in which the compiler
// evaluated a call's arguments, and the next instruction's must not depend on it.
void FunctionLowerer::rollback() {
  pending_.clear();
  uint32_t temps[ori::kNumRegFiles] = {};
  for (ori::Reg r : pendingTemps_) {
    regNamesUsed_.erase(f_.regNames[r]);
    f_.regNames.erase(r);
    f_.regTypes.erase(r);
    ++temps[int(r.file)];
  }
  for (int file = 0; file < ori::kNumRegFiles; ++file)
    if (f_.nextReg[file] == regMark_[file] + temps[file]) f_.nextReg[file] = regMark_[file];
  pendingTemps_.clear();
}

// Gives each register the operands name its number, in the order they are
// written. A lowering evaluates a destination and its sources as arguments of
// one call, in an order C++ leaves to the compiler (GCC and Clang differ), so
// numbering registers on first use there would make the output depend on it.
void FunctionLowerer::numberRegisters(const Operand& o) {
  if ((o.kind == Operand::Kind::Name || o.kind == Operand::Kind::Address) && !o.name.empty()) {
    NameRef ref = resolve(o.name);
    // The check source() and opaque() make, made here first so that the
    // diagnostic names the first such operand whatever the evaluation order.
    if (o.name[0] == '%' && ref.kind == NameRef::None && !isUnmodelledSpecialRegister(o.name))
      fail(o.loc, fmt::format("undeclared register '{}'", o.name));
  }
  for (const Operand& e : o.elems) numberRegisters(e);
}

void FunctionLowerer::statement(const Statement& s) {
  switch (s.kind) {
  case Statement::Kind::Instr: instruction(s.instr); break;
  case Statement::Kind::Var: declare(s.var); break;
  case Statement::Kind::Label: {
    std::string name = clashesWithOri(s.label.name) ? s.label.name + "_" : s.label.name;
    f_.blocks.push_back(ori::Block{name, 0x10 * instrIndex_, {}});
    needBlock_ = false;
    break;
  }
  case Statement::Kind::BranchTargets: break; // collected up front
  case Statement::Kind::CallPrototype: f_.ptxDirectives.push_back(s.proto.text); break;
  case Statement::Kind::Directive:
    // .loc and .file (debug data) are dropped; a .pragma stays with the labelled block it
    // stands in (nvcc puts `.pragma "nounroll";` at a loop's header: without it ptxas 13.0
    // unrolls the loop). One in a block without a label has nowhere to go and is dropped.
    if (s.directive.text.rfind(".pragma", 0) == 0 && !needBlock_ && !f_.blocks.empty() &&
        !f_.blocks.back().label.empty())
      f_.blockDirectives[f_.blocks.back().label].push_back(s.directive.text);
    break;
  case Statement::Kind::Scope:
    if (s.scope.open) scopes_.emplace_back();
    else if (scopes_.size() > 1) scopes_.pop_back();
    break;
  }
}

void FunctionLowerer::instruction(const Instruction& pi) {
  loc_ = pi.loc;
  guard_.reset();
  if (pi.guard) {
    NameRef g = resolve(pi.guard->name);
    if (g.kind != NameRef::Register || !g.reg.isPredicate())
      fail(pi.guard->loc, fmt::format("guard '{}' is not a declared predicate register", pi.guard->name));
    guard_ = ori::Operand::reg_(g.reg, pi.guard->negated);
  }
  for (const Operand& o : pi.operands) numberRegisters(o);
  std::copy(std::begin(f_.nextReg), std::end(f_.nextReg), std::begin(regMark_));
  if (lowerInstruction(pi)) {
    commit();
  } else {
    rollback();
    opaque(pi);
    commit();
  }
}

// The instruction's own text with every register replaced by a placeholder:
// @dN for the Nth def, @uN for the Nth use (ptx/ptx.h).
void FunctionLowerer::opaque(const Instruction& pi) {
  ori::Instr in;
  in.op = ori::Opcode::OPAQUE;
  const std::string& t = pi.text;
  size_t mnemonicEnd = 0;
  while (mnemonicEnd < t.size() && !std::isspace(static_cast<unsigned char>(t[mnemonicEnd]))) ++mnemonicEnd;
  bool firstIsDef = !hasNoDestination(pi.opcode, pi.mods);
  bool rmw = pi.opcode == "wgmma"; // reads its accumulator destination too
  std::string out = t.substr(0, mnemonicEnd);
  int depth = 0;
  bool inFirst = true;
  auto placeholder = [&](auto& list, char tag, ori::Reg r) {
    for (size_t k = 0; k < list.size(); ++k)
      if (list[k].reg == r) return fmt::format("@{}{}", tag, k);
    list.push_back(ori::Operand::reg_(r));
    return fmt::format("@{}{}", tag, list.size() - 1);
  };
  for (size_t i = mnemonicEnd; i < t.size();) {
    char c = t[i];
    if (c == '[' || c == '{' || c == '(') ++depth;
    if (c == ']' || c == '}' || c == ')') --depth;
    if (c == ',' && depth == 0) inFirst = false;
    if (std::isdigit(static_cast<unsigned char>(c))) { // a number, with any letters (0f3F80...)
      size_t j = i;
      while (j < t.size() && (isIdentChar(t[j]) || t[j] == '.')) ++j;
      out.append(t, i, j - i);
      i = j;
      continue;
    }
    if (!isIdentStart(c)) { out += c; ++i; continue; }
    size_t j = i;
    while (j < t.size() && isIdentChar(t[j])) ++j;
    std::string name = t.substr(i, j - i);
    if (j < t.size() && t[j] == '.' && name[0] == '%') { // %tid.x
      size_t k = j + 1;
      while (k < t.size() && isIdentChar(t[k])) ++k;
      std::string dotted = t.substr(i, k - i);
      for (auto [n, s] : kSpecialRegs)
        if (n == dotted) { name = dotted; j = k; }
    }
    i = j;
    NameRef ref = resolve(name);
    if (ref.kind == NameRef::Register) {
      bool def = inFirst && firstIsDef;
      if (def && rmw) placeholder(in.srcs, 'u', ref.reg);
      out += def ? placeholder(in.dsts, 'd', ref.reg) : placeholder(in.srcs, 'u', ref.reg);
      continue;
    }
    if (name[0] == '%' && ref.kind == NameRef::None && !isUnmodelledSpecialRegister(name))
      fail(pi.loc, fmt::format("undeclared register '{}'", name));
    out += name;
  }
  in.opaqueText = std::move(out);
  emit(std::move(in));
}

void FunctionLowerer::finish() {
  for (const Fixup& fx : fixups_) {
    std::string name = clashesWithOri(fx.label) ? fx.label + "_" : fx.label;
    auto bix = f_.findBlock(name);
    if (!bix) fail(fx.loc, fmt::format("branch to unknown label '{}'", fx.label));
    f_.blocks[fx.block].instrs[fx.instr].srcs[fx.src] = ori::Operand::label(*bix);
  }
  for (auto [index, bt] : tableUses_) {
    ori::JumpTable& jt = f_.jumpTables[index];
    for (const std::string& l : bt->labels) {
      std::string name = clashesWithOri(l) ? l + "_" : l;
      auto bix = f_.findBlock(name);
      if (!bix) fail(bt->loc, fmt::format(".branchtargets '{}' names unknown label '{}'", bt->name, l));
      jt.targets.push_back(*bix);
    }
  }
  // PTX lets control reach the end of a function; that returns (RET).
  bool fallsOff = f_.blocks.empty() || f_.blocks.back().instrs.empty() ||
                  !f_.blocks.back().instrs.back().info().is(ori::TERMINATOR) ||
                  f_.blocks.back().instrs.back().isGuarded();
  if (fallsOff) {
    guard_.reset();
    if (needBlock_ || f_.blocks.empty()) f_.blocks.push_back(ori::Block{"", 0x10 * instrIndex_, {}});
    needBlock_ = false;
    ori::Instr ret;
    ret.op = ori::Opcode::RET;
    ret.loc = loc_;
    f_.blocks.back().instrs.push_back(std::move(ret));
  }
}

void FunctionLowerer::run() {
  scopes_.emplace_back();
  collectLabels();
  loc_ = pf_.loc;
  for (const Statement& s : pf_.body) statement(s);
  finish();
}

namespace {
// A function the PTX calls without declaring it (OptiX's _rt_* runtime functions in PTX that
// expects the OptiX runtime to supply them) gets a declaration without parameters, so its
// CALLs keep the target by name. A `%name` target is a register (an indirect call).
void declareCallTargets(const Module& ast, ori::Module& om) {
  std::set<std::string> globals;
  for (const TopLevel& item : ast.items)
    if (item.kind == TopLevel::Kind::Variable) globals.insert(item.variable.name);
  for (const TopLevel& item : ast.items) {
    if (item.kind != TopLevel::Kind::Function) continue;
    for (const Statement& st : item.function.body) {
      if (st.kind != Statement::Kind::Instr || st.instr.opcode != "call") continue;
      for (const Operand& o : st.instr.operands) {
        if (o.kind != Operand::Kind::Name) continue;
        if (!o.name.starts_with('%') && !om.findFunction(o.name) && !globals.count(o.name)) {
          ori::Function& f = om.functions.emplace_back();
          f.name = o.name;
          f.loc = o.loc;
        }
        break; // the first name is the target
      }
    }
  }
}
} // namespace

ori::ParseResult lower(const Module& ast) {
  ori::ParseResult result;
  try {
    ori::Module om;
    om.fileName = ast.fileName;
    if (!ast.version.empty()) om.ptxDirectives.push_back(".version " + ast.version);
    if (!ast.target.empty()) om.ptxDirectives.push_back(".target " + ast.target);
    om.ptxDirectives.push_back(fmt::format(".address_size {}", ast.addressSize));
    // Declare every function first so calls can name functions defined later.
    for (const TopLevel& item : ast.items) {
      if (item.kind != TopLevel::Kind::Function) continue;
      const Function& pf = item.function;
      ori::Function* f = nullptr;
      for (ori::Function& g : om.functions)
        if (g.name == pf.name) f = &g;
      if (f && !f->isDeclaration() && pf.hasBody)
        throw DiagnosticError({ast.fileName, pf.loc.line, pf.loc.col, fmt::format("function '{}' is defined twice", pf.name)});
      if (!f) {
        om.functions.emplace_back();
        f = &om.functions.back();
      }
      f->name = pf.name;
      f->isEntry = pf.isEntry;
      f->loc = pf.loc;
      f->params.clear();
      f->returns.clear();
      for (const Variable& v : pf.params) f->params.push_back(convertParam(v, ast.fileName));
      for (const Variable& v : pf.returns) f->returns.push_back(convertParam(v, ast.fileName));
      ori::layoutParams(f->params, f->isEntry ? ori::kParamBase : 0);
      ori::layoutParams(f->returns, 0);
      f->ptxDirectives = pf.performanceDirectives;
    }
    declareCallTargets(ast, om);
    for (const TopLevel& item : ast.items) {
      if (item.kind == TopLevel::Kind::Variable) {
        const Variable& v = item.variable;
        PtxType t = parseType(v.type);
        bool hasLayout = t.kind != PtxType::None && t.kind != PtxType::Pred; // not .texref/.surfref
        if (hasLayout && (v.space == ".global" || v.space == ".const" || v.space == ".shared")) {
          ori::Space s = v.space == ".global" ? ori::Space::Global : v.space == ".const" ? ori::Space::Const : ori::Space::Shared;
          om.variables.push_back(convertVariable(v, s, ast.fileName));
        } else {
          om.ptxDirectives.push_back(v.text + ";");
        }
      } else if (item.kind == TopLevel::Kind::Directive) {
        // .file and .section carry debug data that names labels; dropped.
        if (!item.text.starts_with(".file") && !item.text.starts_with(".section") && !item.text.starts_with("@@"))
          om.ptxDirectives.push_back(item.text);
      }
    }
    for (const TopLevel& item : ast.items) {
      if (item.kind != TopLevel::Kind::Function || !item.function.hasBody) continue;
      const Function& pf = item.function;
      ori::Function* f = nullptr;
      for (ori::Function& g : om.functions)
        if (g.name == pf.name) f = &g;
      FunctionLowerer(ast, pf, om, *f).run();
    }
    for (const ori::Function& f : om.functions)
      if (f.isEntry && f.isDeclaration())
        throw DiagnosticError({ast.fileName, f.loc.line, f.loc.col, fmt::format(".entry '{}' has no body", f.name)});
    result.module = std::move(om);
  } catch (const DiagnosticError& e) {
    result.error = e.diag;
  }
  return result;
}

ori::ParseResult parseAndLower(std::string_view text, std::string_view fileName) {
  ParseResult parsed = parse(text, fileName);
  if (parsed.error) return {std::nullopt, parsed.error};
  return lower(*parsed.module);
}

} // namespace ori::ptx
