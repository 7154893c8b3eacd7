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
    {"%tid.x", ori::SpecialReg::TID_X},
    {"%tid.y", ori::SpecialReg::TID_Y},
    {"%tid.z", ori::SpecialReg::TID_Z},
    {"%ctaid.x", ori::SpecialReg::CTAID_X},
    {"%ctaid.y", ori::SpecialReg::CTAID_Y},
    {"%ctaid.z", ori::SpecialReg::CTAID_Z},
    {"%ntid.x", ori::SpecialReg::NTID_X},
    {"%ntid.y", ori::SpecialReg::NTID_Y},
    {"%ntid.z", ori::SpecialReg::NTID_Z},
    {"%nctaid.x", ori::SpecialReg::NCTAID_X},
    {"%nctaid.y", ori::SpecialReg::NCTAID_Y},
    {"%nctaid.z", ori::SpecialReg::NCTAID_Z},
    {"%laneid", ori::SpecialReg::LANEID},
    {"%warpid", ori::SpecialReg::WARPID},
    {"%nwarpid", ori::SpecialReg::NWARPID},
    {"%smid", ori::SpecialReg::SMID},
    {"%nsmid", ori::SpecialReg::NSMID},
    {"%gridid", ori::SpecialReg::GRIDID},
    {"%clock", ori::SpecialReg::CLOCKLO},
    {"%clock_hi", ori::SpecialReg::CLOCKHI},
    {"%globaltimer_lo", ori::SpecialReg::GLOBALTIMERLO},
    {"%globaltimer_hi", ori::SpecialReg::GLOBALTIMERHI},
    {"%lanemask_eq", ori::SpecialReg::LANEMASK_EQ},
    {"%lanemask_lt", ori::SpecialReg::LANEMASK_LT},
    {"%lanemask_le", ori::SpecialReg::LANEMASK_LE},
    {"%lanemask_gt", ori::SpecialReg::LANEMASK_GT},
    {"%lanemask_ge", ori::SpecialReg::LANEMASK_GE},
};

// Other PTX special registers: valid in OPAQUE text, not modelled.
constexpr std::string_view kOtherSpecialPrefixes[] = {
    "%clock64",
    "%clock_hi",
    "%pm",
    "%envreg",
    "%globaltimer",
    "%total_smem_size",
    "%aggr_smem_size",
    "%dynamic_smem_size",
    "%reserved_smem_offset",
    "%is_explicit_cluster",
    "%clusterid",
    "%nclusterid",
    "%cluster_",
    "%current_graph_exec",
    "%tid",
    "%ntid",
    "%ctaid",
    "%nctaid",
    "%gridid",
    "%smid",
    "%nsmid",
    "%warpid",
    "%nwarpid",
    "%laneid",
    "%lanemask",
};

// Ori's .ori text reads names shaped like registers (R1, P0, UR2, B3, RZ, PT),
// "c" and SR_* as something else; such PTX names get a suffix.
bool clashesWithOri(std::string_view n) {
  if (n == "c" || n == "RZ" || n == "URZ" || n == "PT" || n == "UPT" || n.starts_with("SR_"))
    return true;
  for (std::string_view prefix : {"UR", "UP", "R", "P", "B"})
    if (n.size() > prefix.size() && n.starts_with(prefix) &&
        std::all_of(n.begin() + prefix.size(), n.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return true;
  return false;
}

} // namespace

bool isUnmodelledSpecialRegister(std::string_view name) {
  for (std::string_view p : kOtherSpecialPrefixes)
    if (name.starts_with(p))
      return true;
  return false;
}

PtxType parseType(std::string_view mod) {
  if (mod == ".pred")
    return {PtxType::Pred, 1};
  if (mod == ".bf16")
    return {PtxType::Float, 16, true};
  if (mod == ".f16x2")
    return {PtxType::Packed, 32, false};
  if (mod == ".bf16x2")
    return {PtxType::Packed, 32, true};
  if (mod.size() < 3 || mod[0] != '.')
    return {};
  PtxType::Kind k = mod[1] == 's'   ? PtxType::Signed
                    : mod[1] == 'u' ? PtxType::Unsigned
                    : mod[1] == 'b' ? PtxType::Bits
                    : mod[1] == 'f' ? PtxType::Float
                                    : PtxType::None;
  if (k == PtxType::None)
    return {};
  std::string_view digits = mod.substr(2);
  if (digits != "8" && digits != "16" && digits != "32" && digits != "64" && digits != "128")
    return {};
  return {k, unsigned(std::stoul(std::string(digits)))};
}

void FunctionLowerer::fail(SrcLoc loc, std::string msg) const {
  throw DiagnosticError({ast_.fileName, loc.line, loc.col, std::move(msg)});
}

std::string FunctionLowerer::uniqueRegName(const std::string &name) {
  std::string base = clashesWithOri(name) ? name + "_" : name;
  std::string out = base;
  for (int k = 1; regNamesUsed_.count(out); ++k)
    out = fmt::format("{}_{}", base, k);
  regNamesUsed_.insert(out);
  return out;
}

std::string FunctionLowerer::uniqueVarName(const std::string &name) {
  std::string base = clashesWithOri(name) ? name + "_" : name;
  std::string out = base;
  auto taken = [&](const std::string &n) {
    if (varNamesUsed_.count(n))
      return true;
    for (const ori::Variable &v : om_.variables)
      if (v.name == n)
        return true;
    for (const auto *list : {&f_.params, &f_.returns})
      for (const ori::Param &p : *list)
        if (p.name == n)
          return true;
    return false;
  };
  for (int k = 1; taken(out); ++k)
    out = fmt::format("{}_{}", base, k);
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
  if (it == f_.regTypes.end())
    return 32;
  PtxType t = parseType("." + it->second);
  return t.bits ? t.bits : 32;
}

void FunctionLowerer::branchTo(const std::string &label, SrcLoc loc) {
  if (!labelsSeen_.count(label))
    fail(loc, fmt::format("branch to unknown label '{}'", label));
  pendingLabel_ = label;
  pendingLabelLoc_ = loc;
}

uint32_t FunctionLowerer::jumpTable(const std::string &name, SrcLoc loc) {
  auto t = tables_.find(name);
  if (t == tables_.end())
    fail(loc, fmt::format("'{}' is not a .branchtargets table", name));
  if (auto it = tableIndex_.find(name); it != tableIndex_.end())
    return it->second;
  uint32_t index = uint32_t(f_.jumpTables.size());
  f_.jumpTables.push_back(ori::JumpTable{clashesWithOri(name) ? name + "_" : name, {}});
  tableIndex_[name] = index;
  tableUses_.emplace_back(index, t->second);
  return index;
}

std::string FunctionLowerer::sinkVariable(const ori::Param &ret) {
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

bool FunctionLowerer::isParamVariable(const std::string &oriName) const {
  for (const ori::Variable &v : f_.variables)
    if (v.name == oriName)
      return v.space == ori::Space::Param;
  return false;
}

NameRef FunctionLowerer::resolve(const std::string &name) {
  NameRef ref;
  for (size_t i = scopes_.size(); i-- > 0;) {
    Scope &s = scopes_[i];
    if (auto it = s.regs.find(name); it != s.regs.end()) {
      ref.kind = NameRef::Register;
      ref.reg = it->second;
      return ref;
    }
    auto allocateIn = [&](const std::string &type, const std::string &key,
                          const std::string &oriName) {
      ori::Reg r = f_.newReg(type == "pred" ? ori::RegFile::P : ori::RegFile::R);
      f_.regNames[r] = uniqueRegName(oriName);
      f_.regTypes[r] = type;
      if (PtxType t = parseType("." + type); t.kind != PtxType::None)
        declaredBits_[r] = t.bits;
      s.regs[key] = r;
      ref.kind = NameRef::Register;
      ref.reg = r;
    };
    // v.x .. v.w, v.r .. v.a: an element of a vector register, "v.x" in s.regs and v_x in Ori
    // (an Ori register name has no '.').
    if (size_t dot = name.size() - 2; name.size() > 2 && name[dot] == '.' && !s.vectors.empty()) {
      std::string base = name.substr(0, dot);
      const char *xyzw = "xyzw";
      int e = -1;
      for (int k = 0; k < 4; ++k)
        if (name[dot + 1] == xyzw[k] || name[dot + 1] == "rgba"[k])
          e = k;
      if (auto v = s.vectors.find(base);
          v != s.vectors.end() && e >= 0 && uint32_t(e) < v->second.count) {
        std::string key = base + "." + xyzw[e];
        if (auto it = s.regs.find(key); it != s.regs.end()) {
          ref.kind = NameRef::Register;
          ref.reg = it->second;
        } else {
          allocateIn(v->second.type, key, base + "_" + xyzw[e]);
        }
        return ref;
      }
    }
    if (auto it = s.regTypes.find(name); it != s.regTypes.end()) {
      allocateIn(it->second, name, name);
      return ref;
    }
    for (const RangeDecl &d : s.ranges) {
      if (name.size() <= d.prefix.size() || !name.starts_with(d.prefix))
        continue;
      std::string_view digits = std::string_view(name).substr(d.prefix.size());
      if (digits.size() > 7 || (digits.size() > 1 && digits[0] == '0') ||
          !std::all_of(digits.begin(), digits.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        continue;
      if (std::stoul(std::string(digits)) < d.count) {
        allocateIn(d.type, name, name);
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
  for (const ori::Param &p : f_.params)
    if (p.name == name) {
      ref.kind = f_.isEntry ? NameRef::EntryParam : NameRef::Variable;
      ref.symbol = p.name;
      ref.param = &p;
      return ref;
    }
  for (const ori::Param &p : f_.returns)
    if (p.name == name) {
      ref.kind = NameRef::Variable;
      ref.symbol = p.name;
      return ref;
    }
  for (const ori::Variable &v : om_.variables)
    if (v.name == name) {
      ref.kind = NameRef::Variable;
      ref.symbol = v.name;
      return ref;
    }
  if (om_.findFunction(name)) {
    ref.kind = NameRef::Function;
    ref.symbol = name;
    // `.alias name, target;` (PTX ISA 11.6.3): name is target, which a call then calls.
    for (const TopLevel &item : ast_.items)
      if (item.kind == TopLevel::Kind::Directive && item.text.starts_with(".alias")) {
        std::string t = item.text.substr(6);
        std::erase_if(
            t, [](char c) { return std::isspace(static_cast<unsigned char>(c)) || c == ';'; });
        if (size_t comma = t.find(','); comma != std::string::npos && t.substr(0, comma) == name &&
                                        om_.findFunction(t.substr(comma + 1)))
          ref.symbol = t.substr(comma + 1);
      }
  }
  return ref;
}

bool FunctionLowerer::isTexref(const std::string &name) const {
  for (const TopLevel &item : ast_.items)
    if (item.kind == TopLevel::Kind::Variable && item.variable.name == name &&
        item.variable.type == ".texref" && item.variable.space == ".global" &&
        item.variable.dims.empty())
      return true;
  return false;
}

void FunctionLowerer::declare(const Variable &v) {
  Scope &s = scopes_.back();
  if (v.space == ".reg") {
    if (scopes_.size() == 1)
      noteRegDeclaration(v);
    PtxType t = parseType(v.type);
    if (t.kind == PtxType::None)
      fail(v.loc, fmt::format("register '{}' has unknown type '{}'", v.name, v.type));
    std::string type = v.type.substr(1);
    if (!v.vectorMod.empty()) { // `.reg .v4 .f32 v;` (PTX ISA 5.4.2: .v2 and .v4 registers)
      if (v.vectorMod != ".v2" && v.vectorMod != ".v4")
        fail(v.loc, fmt::format("vector register '{}' is {}; registers are .v2 or .v4", v.name,
                                v.vectorMod));
      if (v.rangeCount)
        fail(v.loc, fmt::format("'{}<{}>': a range of vector registers is not supported", v.name,
                                *v.rangeCount));
      if (t.kind == PtxType::Pred)
        fail(v.loc, fmt::format("vector register '{}' of predicates", v.name));
      s.vectors[v.name] = {type, v.vectorMod == ".v2" ? 2u : 4u};
      return;
    }
    if (v.rangeCount)
      s.ranges.push_back({v.name, type, *v.rangeCount});
    else
      s.regTypes[v.name] = type;
    return;
  }
  PtxType t = parseType(v.type);
  if (t.kind == PtxType::None || t.kind == PtxType::Pred) {
    f_.ptxDirectives.push_back(v.text + ";"); // .texref, .surfref, .samplerref: PTX text only
    return;
  }
  if (v.space == ".global" || v.space == ".const") {
    // A function-scope .global/.const is a module variable only this function sees.
    ori::Variable mv = convertVariable(
        v, v.space == ".global" ? ori::Space::Global : ori::Space::Const, ast_.fileName);
    mv.name = uniqueVarName(v.name);
    for (ori::Variable::AddrInit &a : mv.addrInit) { // names as this scope sees them
      NameRef r = resolve(a.symbol);
      if (r.kind != NameRef::Variable && r.kind != NameRef::Function)
        fail(v.loc,
             fmt::format("the initializer of '{}' names '{}', which is no variable or function",
                         v.name, a.symbol));
      if (r.kind == NameRef::Variable && isParamVariable(r.symbol))
        fail(v.loc,
             fmt::format("the initializer of '{}' names '{}', a parameter", v.name, a.symbol));
      a.symbol = r.symbol;
    }
    s.vars[v.name] = mv.name;
    om_.variables.push_back(std::move(mv));
    return;
  }
  ori::Space space = v.space == ".shared"  ? ori::Space::Shared
                     : v.space == ".param" ? ori::Space::Param
                                           : ori::Space::Local;
  ori::Variable fv = convertVariable(v, space, ast_.fileName);
  fv.name = uniqueVarName(v.name);
  s.vars[v.name] = fv.name;
  f_.variables.push_back(std::move(fv));
}

void FunctionLowerer::collectLabels() {
  for (const Statement &s : pf_.body) {
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
  if (guard_ && !in.guard)
    in.guard = guard_;
  pending_.push_back(std::move(in));
}

void FunctionLowerer::commit() {
  for (ori::Instr &in : pending_) {
    if (needBlock_) {
      f_.blocks.push_back(ori::Block{"", 0x10 * instrIndex_, {}});
      needBlock_ = false;
    }
    if (in.op == ori::Opcode::BRA) {
      fixups_.push_back({uint32_t(f_.blocks.size() - 1), uint32_t(f_.blocks.back().instrs.size()),
                         0, pendingLabel_, pendingLabelLoc_});
    }
    bool control = in.info().is(ori::CONTROL);
    f_.blocks.back().instrs.push_back(std::move(in));
    ++instrIndex_;
    if (control)
      needBlock_ = true;
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
    if (f_.nextReg[file] == regMark_[file] + temps[file])
      f_.nextReg[file] = regMark_[file];
  pendingTemps_.clear();
}

// Gives each register the operands name its number, in the order they are
// written. A lowering evaluates a destination and its sources as arguments of
// one call, in an order C++ leaves to the compiler (GCC and Clang differ), so
// numbering registers on first use there would make the output depend on it.
void FunctionLowerer::numberRegisters(const Operand &o) {
  if ((o.kind == Operand::Kind::Name || o.kind == Operand::Kind::Address) && !o.name.empty()) {
    NameRef ref = resolve(o.name);
    // The check source() and opaque() make, made here first so that the
    // diagnostic names the first such operand whatever the evaluation order.
    if (o.name[0] == '%' && ref.kind == NameRef::None && !isUnmodelledSpecialRegister(o.name))
      fail(o.loc, fmt::format("undeclared register '{}'", o.name));
  }
  for (const Operand &e : o.elems)
    numberRegisters(e);
}

void FunctionLowerer::statement(const Statement &s) {
  switch (s.kind) {
  case Statement::Kind::Instr:
    instruction(s.instr);
    break;
  case Statement::Kind::Var:
    declare(s.var);
    break;
  case Statement::Kind::Label: {
    std::string name = clashesWithOri(s.label.name) ? s.label.name + "_" : s.label.name;
    if (!pendingLocs_.empty()) { // .loc lines before the label stay there (lower_origin.cpp)
      origins_->beforeLabel[name] = {std::move(pendingLocs_), curLoc_};
      pendingLocs_.clear();
    }
    f_.blocks.push_back(ori::Block{name, 0x10 * instrIndex_, {}});
    needBlock_ = false;
    break;
  }
  case Statement::Kind::BranchTargets:
    break; // collected up front
  case Statement::Kind::CallPrototype:
    f_.ptxDirectives.push_back(s.proto.text);
    break;
  case Statement::Kind::Directive:
    // .loc goes with the next instruction (its origin, lower_origin.cpp); a .pragma stays with the
    // labelled block it stands in (nvcc puts `.pragma "nounroll";` at a loop's header: without it
    // ptxas 13.0 unrolls the loop). One in a block without a label has nowhere to go and is
    // dropped.
    if (s.directive.text.starts_with(".loc")) {
      noteLoc(s.directive.text);
      break;
    }
    if (s.directive.text.rfind(".pragma", 0) != 0)
      break;
    if (!needBlock_ && !f_.blocks.empty() && !f_.blocks.back().label.empty())
      f_.blockDirectives[f_.blocks.back().label].push_back(s.directive.text);
    else
      warnings_.add(s.directive.loc,
                    fmt::format("'{}' is dropped: it stands in no labelled block, which "
                                "--emit=ptx could print it in",
                                s.directive.text));
    break;
  case Statement::Kind::Scope:
    if (s.scope.open)
      scopes_.emplace_back();
    else if (scopes_.size() > 1)
      scopes_.pop_back();
    break;
  }
}

void FunctionLowerer::instruction(const Instruction &pi) {
  loc_ = pi.loc;
  guard_.reset();
  if (pi.guard) {
    NameRef g = resolve(pi.guard->name);
    if (g.kind != NameRef::Register || !g.reg.isPredicate())
      fail(pi.guard->loc,
           fmt::format("guard '{}' is not a declared predicate register", pi.guard->name));
    guard_ = ori::Operand::reg_(g.reg, pi.guard->negated);
  }
  std::optional<Instruction> expanded = expandVectorRegisters(pi);
  if (std::optional<Instruction> arrays = expandArrayIndices(expanded ? *expanded : pi))
    expanded = std::move(arrays);
  const Instruction &use = expanded ? *expanded : pi;
  for (const Operand &o : use.operands)
    numberRegisters(o);
  checkOperandForms(use);
  std::copy(std::begin(f_.nextReg), std::end(f_.nextReg), std::begin(regMark_));
  honored_.clear();
  current_ = &use;
  if (lowerInstruction(use) && allHonored(use)) {
    recordOrigin(pi);
    commit();
  } else {
    rollback();
    opaque(pi);
    recordOrigin(pi);
    commit();
    warnings_.add(pi);
  }
}

void FunctionLowerer::finish() {
  for (const Fixup &fx : fixups_) {
    std::string name = clashesWithOri(fx.label) ? fx.label + "_" : fx.label;
    auto bix = f_.findBlock(name);
    if (!bix)
      fail(fx.loc, fmt::format("branch to unknown label '{}'", fx.label));
    f_.blocks[fx.block].instrs[fx.instr].srcs[fx.src] = ori::Operand::label(*bix);
  }
  for (auto [index, bt] : tableUses_) {
    ori::JumpTable &jt = f_.jumpTables[index];
    for (const std::string &l : bt->labels) {
      std::string name = clashesWithOri(l) ? l + "_" : l;
      auto bix = f_.findBlock(name);
      if (!bix)
        fail(bt->loc, fmt::format(".branchtargets '{}' names unknown label '{}'", bt->name, l));
      jt.targets.push_back(*bix);
    }
  }
  // PTX lets control reach the end of a function; that returns (RET).
  bool fallsOff = f_.blocks.empty() || f_.blocks.back().instrs.empty() ||
                  !f_.blocks.back().instrs.back().info().is(ori::TERMINATOR) ||
                  f_.blocks.back().instrs.back().isGuarded();
  if (fallsOff) {
    guard_.reset();
    if (needBlock_ || f_.blocks.empty())
      f_.blocks.push_back(ori::Block{"", 0x10 * instrIndex_, {}});
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
  for (const Statement &s : pf_.body)
    statement(s);
  finish();
  finishOrigins();
}

} // namespace ori::ptx
