// PTX -> Ori: the module (lower(), parseAndLower()): its functions' signatures, its variables
// with their linkage and initializers, then each function body (FunctionLowerer, lower.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>

#include "ptx/lower_impl.h"

namespace ori::ptx {

ori::Variable convertVariable(const Variable &v, ori::Space space, std::string_view file) {
  auto fail = [&](SrcLoc loc, std::string msg) -> void {
    throw DiagnosticError({std::string(file), loc.line, loc.col, std::move(msg)});
  };
  ori::Variable out;
  out.space = space;
  out.name = v.name;
  PtxType t = parseType(v.type);
  if (t.kind == PtxType::None || t.kind == PtxType::Pred || t.bits < 8 || t.bits > 64 ||
      (t.bits & (t.bits - 1)))
    fail(v.loc, fmt::format("variable '{}' has type '{}', which has no memory layout here", v.name,
                            v.type));
  static constexpr std::string_view kKeep[] = {"u8",  "s8",  "b8",  "u16", "s16",
                                               "b16", "f16", "u32", "s32", "b32",
                                               "f32", "u64", "s64", "b64", "f64"};
  std::string_view bare = std::string_view(v.type).substr(1);
  bool keep = std::find(std::begin(kKeep), std::end(kKeep), bare) != std::end(kKeep);
  out.type = keep ? std::string(bare) : fmt::format("b{}", t.bits);
  out.elemSize = t.bits / 8;
  for (const std::string &a : v.attrs)
    if (a == ".visible" || a == ".extern" || a == ".weak" || a == ".common")
      out.linkage = a.substr(1);
  uint64_t count = v.vectorMod == ".v2"   ? 2
                   : v.vectorMod == ".v4" ? 4
                   : v.vectorMod == ".v8" ? 8
                                          : 1;
  bool array = count > 1 || !v.dims.empty();
  // `x[]` without an initializer: an .extern array, whose length is another module's or, for
  // .shared, the launch's (the dynamic shared memory). Only the last dimension may be open.
  // (A .param `x[]`, the variadic parameter of a .func, keeps one element, as it always has.)
  out.unsized = !v.dims.empty() && !v.dims.back() && v.init.empty() && space != ori::Space::Param;
  if (out.unsized && out.linkage != "extern")
    fail(v.loc,
         fmt::format("'{}[]' has no length: an array without one must be .extern or initialized",
                     v.name));
  for (size_t k = 0; k < v.dims.size(); ++k) {
    const auto &d = v.dims[k];
    if (!d && k + 1 != v.dims.size())
      fail(v.loc, fmt::format("array '{}': only the last dimension may be '[]'", v.name));
    uint64_t n = d ? *d : std::max<uint64_t>(1, v.init.size() / std::max<uint64_t>(count, 1));
    if (n == 0 || n > (1u << 24))
      fail(v.loc, fmt::format("array '{}' has a bad length", v.name));
    count *= n;
    if (count * out.elemSize > (1u << 24))
      fail(v.loc, fmt::format("variable '{}' is larger than 16 MiB", v.name));
  }
  out.count = array && !out.unsized ? uint32_t(count) : 0;
  out.align = v.align ? v.align : out.elemSize;
  if (v.init.size() > count)
    fail(v.loc, fmt::format("too many initializers for '{}'", v.name));
  if (!v.init.empty() && out.linkage == "extern")
    fail(v.loc, fmt::format("'{}' is .extern: it cannot have an initializer", v.name));
  for (const Operand &o : v.init) {
    uint64_t bits = 0;
    if (o.kind == Operand::Kind::Int) {
      bits = uint64_t(o.ival);
    } else if (o.kind == Operand::Kind::Float) {
      bits = out.elemSize == 4 ? std::bit_cast<uint32_t>(float(o.fval))
                               : std::bit_cast<uint64_t>(o.fval);
    } else { // an address (PTX ISA 5.4.4, "Initializers"): placed by the interpreter
      if (o.maskByte < 0 && out.elemSize != 4 && out.elemSize != 8)
        fail(o.loc, fmt::format("'{}' holds an address, which needs a 32- or 64-bit type, not '{}' "
                                "(or one byte of it: 0xFF(sym), 0xFF00(sym), ...)",
                                v.name, v.type));
      out.addrInit.push_back(
          {uint32_t(out.init.size()), o.name, o.ival, o.generic, int8_t(o.maskByte)});
    }
    for (uint32_t b = 0; b < out.elemSize; ++b)
      out.init.push_back(uint8_t(bits >> (8 * b)));
  }
  return out;
}

namespace {

ori::Param convertParam(const Variable &v, std::string_view file) {
  ori::Variable tmp = convertVariable(v, ori::Space::Param, file);
  ori::Param p;
  p.type = tmp.type;
  p.name = tmp.name;
  p.size = tmp.size();
  p.align = tmp.align;
  p.count = tmp.count;
  return p;
}

// A function the PTX calls without declaring it (OptiX's _rt_* runtime functions in PTX that
// expects the OptiX runtime to supply them) gets a declaration without parameters, so its
// CALLs keep the target by name. A `%name` target is a register (an indirect call).
void declareCallTargets(const Module &ast, ori::Module &om) {
  std::set<std::string> globals;
  for (const TopLevel &item : ast.items)
    if (item.kind == TopLevel::Kind::Variable)
      globals.insert(item.variable.name);
  for (const TopLevel &item : ast.items) {
    if (item.kind != TopLevel::Kind::Function)
      continue;
    for (const Statement &st : item.function.body) {
      if (st.kind != Statement::Kind::Instr || st.instr.opcode != "call")
        continue;
      for (const Operand &o : st.instr.operands) {
        if (o.kind != Operand::Kind::Name)
          continue;
        if (!o.name.starts_with('%') && !om.findFunction(o.name) && !globals.count(o.name)) {
          ori::Function &f = om.functions.emplace_back();
          f.name = o.name;
          f.loc = o.loc;
        }
        break; // the first name is the target
      }
    }
  }
}

// The symbols the module variables' address initializers name must be module variables or
// functions.
void checkAddressInitializers(const Module &ast, const ori::Module &om) {
  for (const TopLevel &item : ast.items) {
    if (item.kind != TopLevel::Kind::Variable)
      continue;
    for (const Operand &o : item.variable.init) {
      if (o.kind != Operand::Kind::Name)
        continue;
      bool known = om.findFunction(o.name) != nullptr;
      for (const ori::Variable &v : om.variables)
        known |= v.name == o.name;
      if (!known)
        throw DiagnosticError(
            {ast.fileName, o.loc.line, o.loc.col,
             fmt::format("the initializer of '{}' names '{}', which is no variable or function of "
                         "the module",
                         item.variable.name, o.name)});
    }
  }
}

bool operandNames(const Operand &o, const std::string &name) {
  if ((o.kind == Operand::Kind::Name || o.kind == Operand::Kind::Address) && o.name == name)
    return true;
  return std::any_of(o.elems.begin(), o.elems.end(),
                     [&](const Operand &e) { return operandNames(e, name); });
}

// The functions with a body whose instructions name `name`.
std::vector<const Function *> functionsNaming(const Module &ast, const std::string &name) {
  std::vector<const Function *> users;
  for (const TopLevel &item : ast.items) {
    if (item.kind != TopLevel::Kind::Function || !item.function.hasBody)
      continue;
    for (const Statement &st : item.function.body)
      if (st.kind == Statement::Kind::Instr &&
          std::any_of(st.instr.operands.begin(), st.instr.operands.end(),
                      [&](const Operand &o) { return operandNames(o, name); })) {
        users.push_back(&item.function);
        break;
      }
  }
  return users;
}

} // namespace

ori::ParseResult lower(const Module &input) {
  ori::ParseResult result;
  OpaqueWarnings warnings(input.fileName);
  try {
    std::optional<Module> rewritten = withRegisterParams(input); // lower_regparams.cpp
    const Module &ast = rewritten ? *rewritten : input;
    ori::Module om;
    om.fileName = ast.fileName;
    if (!ast.version.empty())
      om.ptxDirectives.push_back(".version " + ast.version);
    if (!ast.target.empty())
      om.ptxDirectives.push_back(".target " + ast.target);
    om.ptxDirectives.push_back(fmt::format(".address_size {}", ast.addressSize));
    // Declare every function first so calls can name functions defined later.
    for (const TopLevel &item : ast.items) {
      if (item.kind != TopLevel::Kind::Function)
        continue;
      const Function &pf = item.function;
      ori::Function *f = nullptr;
      for (ori::Function &g : om.functions)
        if (g.name == pf.name)
          f = &g;
      if (f && !f->isDeclaration() && pf.hasBody)
        throw DiagnosticError({ast.fileName, pf.loc.line, pf.loc.col,
                               fmt::format("function '{}' is defined twice", pf.name)});
      if (!f) {
        om.functions.emplace_back();
        f = &om.functions.back();
      }
      f->name = pf.name;
      f->isEntry = pf.isEntry;
      f->loc = pf.loc;
      if (pf.hasBody || f->linkage.empty())
        for (const std::string &l : pf.linkage)
          if (l == ".visible" || l == ".weak" || l == ".extern")
            f->linkage = l.substr(1);
      if (pf.hasBody && f->linkage == "extern")
        f->linkage.clear(); // declared .extern, defined here
      f->params.clear();
      f->returns.clear();
      for (const Variable &v : pf.params)
        f->params.push_back(convertParam(v, ast.fileName));
      for (const Variable &v : pf.returns)
        f->returns.push_back(convertParam(v, ast.fileName));
      ori::layoutParams(f->params, f->isEntry ? ori::kParamBase : 0);
      ori::layoutParams(f->returns, 0);
      f->ptxDirectives = pf.performanceDirectives;
    }
    declareCallTargets(ast, om);
    // A module-scope .local variable (PTX ISA before 3.0: per-thread memory every function of
    // the thread sees) that one kernel alone names is that kernel's own .local variable: the
    // kernel's frame lives as long as the thread. Named by a .func or by several functions, it
    // stays PTX text and the instructions naming it stay OPAQUE (docs/ptx.md).
    std::map<const Function *, std::vector<Variable>> movedLocals;
    for (const TopLevel &item : ast.items) {
      if (item.kind == TopLevel::Kind::Variable) {
        const Variable &v = item.variable;
        PtxType t = parseType(v.type);
        bool hasLayout = t.kind != PtxType::None && t.kind != PtxType::Pred; // not .texref/.surfref
        if (hasLayout && v.space == ".local" && v.attrs.empty()) {
          std::vector<const Function *> users = functionsNaming(ast, v.name);
          if (users.size() == 1 && users[0]->isEntry) {
            movedLocals[users[0]].push_back(v);
            continue;
          }
        }
        if (hasLayout && (v.space == ".global" || v.space == ".const" || v.space == ".shared")) {
          ori::Space s = v.space == ".global"  ? ori::Space::Global
                         : v.space == ".const" ? ori::Space::Const
                                               : ori::Space::Shared;
          om.variables.push_back(convertVariable(v, s, ast.fileName));
        } else {
          om.ptxDirectives.push_back(v.text + ";");
        }
      } else if (item.kind == TopLevel::Kind::Directive) {
        // .file and .section carry debug data that names labels: printed again after the
        // functions (ptx/emit.cpp says when a .section is left out).
        if (item.text.starts_with(".file") || item.text.starts_with(".section") ||
            item.text.starts_with("@@"))
          om.ptxTrailer.push_back(item.text);
        else
          om.ptxDirectives.push_back(item.text);
      }
    }
    checkAddressInitializers(ast, om);
    for (const TopLevel &item : ast.items) {
      if (item.kind != TopLevel::Kind::Function || !item.function.hasBody)
        continue;
      const Function &pf = item.function;
      ori::Function *f = nullptr;
      for (ori::Function &g : om.functions)
        if (g.name == pf.name)
          f = &g;
      if (auto moved = movedLocals.find(&pf); moved != movedLocals.end()) {
        Function withLocals = pf;
        std::vector<Statement> decls;
        for (const Variable &v : moved->second) {
          Statement &st = decls.emplace_back();
          st.kind = Statement::Kind::Var;
          st.var = v;
        }
        withLocals.body.insert(withLocals.body.begin(), decls.begin(), decls.end());
        FunctionLowerer(ast, withLocals, om, *f, warnings).run();
        continue;
      }
      FunctionLowerer(ast, pf, om, *f, warnings).run();
    }
    for (const ori::Function &f : om.functions)
      if (f.isEntry && f.isDeclaration())
        throw DiagnosticError(
            {ast.fileName, f.loc.line, f.loc.col, fmt::format(".entry '{}' has no body", f.name)});
    result.module = std::move(om);
  } catch (const DiagnosticError &e) {
    result.error = e.diag;
  }
  result.warnings = warnings.finish();
  return result;
}

ori::ParseResult parseAndLower(std::string_view text, std::string_view fileName) {
  ParseResult parsed = parse(text, fileName);
  if (parsed.error)
    return {std::nullopt, parsed.error, {}};
  return lower(*parsed.module);
}

} // namespace ori::ptx
