// The PTX parser: tokens from lexer.h to the syntax tree of ast.h (parser_impl.h);
// here the module level, functions and their bodies.
#include "ptx/parser_impl.h"

namespace ori::ptx::parser_detail {

void Parser::topLevel() {
  const Token t = peek();
  if (t.kind == Tok::DwarfLine)
    return directiveItem(t, slice(next().begin, t.end));
  if (t.kind == Tok::RBrace)
    lx_.fail(t, "unmatched '}'");
  if (t.kind != Tok::Dir)
    expected("a directive at module level");
  const std::string_view d = spell(t);
  if (d == ".version") {
    next();
    if (!mod_.version.empty())
      lx_.fail(t, "duplicate '.version' directive");
    const std::string_view v = spell(peek());
    if (!is(Tok::Float) || v.find('.') == v.npos || v.find_first_of("eE") != v.npos)
      expected("a version number such as 7.0 after '.version'");
    if (!isKnownVersion(v))
      lx_.fail(peek(), fmt::format("PTX ISA version {} is not one this reader knows ({})", v,
                                   knownVersionsText()));
    mod_.version = std::string(spell(next()));
  } else if (d == ".target") {
    next();
    std::string target;
    bool architecture = false;
    commaList([&] {
      if (!target.empty())
        target += ", ";
      const Token n = expect(Tok::Ident, "a target name such as sm_90");
      const std::string_view name = spell(n);
      if (isKnownTarget(name)) {
        if (architecture)
          lx_.fail(n, fmt::format("second target architecture '{}' in '.target'", name));
        architecture = true;
      } else if (!isTargetOption(name)) {
        lx_.fail(n, fmt::format("target '{}' is not one this reader knows ({})", name,
                                knownTargetsText()));
      }
      target += name;
    });
    mod_.target = std::move(target);
  } else if (d == ".address_size") {
    next();
    const Token n = peek();
    const uint64_t v = expectInt("an address size after '.address_size'");
    if (v != 32 && v != 64)
      lx_.fail(n, fmt::format("address size must be 32 or 64, found {}", v));
    mod_.addressSize = static_cast<uint32_t>(v);
  } else if (d == ".file" || d == ".loc") {
    directiveItem(t, lineDirective());
  } else if (d == ".section") {
    directiveItem(t, section());
  } else if (d == ".pragma" || d == ".alias") {
    directiveItem(t, toSemicolon());
  } else {
    std::vector<std::string> linkage;
    while (is(Tok::Dir) && isLinkage(spell(peek())))
      linkage.emplace_back(spell(next()));
    if (isDir(".entry") || isDir(".func")) {
      TopLevel &item = mod_.items.emplace_back();
      item.kind = TopLevel::Kind::Function;
      item.loc = loc(t);
      function(item.function, std::move(linkage), t);
    } else if (is(Tok::Dir) && isStateSpace(spell(peek()))) {
      declaration(std::move(linkage), t, [&]() -> Variable & {
        TopLevel &item = mod_.items.emplace_back();
        item.kind = TopLevel::Kind::Variable;
        item.loc = loc(t);
        return item.variable;
      });
    } else if (linkage.empty()) {
      lx_.fail(t, fmt::format("unknown directive {} at module level", lx_.describe(t)));
    } else {
      expected("'.entry', '.func' or a state space");
    }
  }
}

void Parser::directiveItem(const Token &t, std::string text) {
  TopLevel &item = mod_.items.emplace_back();
  item.kind = TopLevel::Kind::Directive;
  item.loc = loc(t);
  item.text = std::move(text);
}

// `.file 1 "a.cu"[, timestamp, size]`,
// `.loc 1 2 3[, function_name $L__info_string0[+4]][, inlined_at 1 37 3]`: no ';'.
std::string Parser::lineDirective() {
  const Token d = next();
  if (spell(d) == ".file") {
    expectInt("a file number after '.file'");
    expect(Tok::String, "a file name string");
    if (accept(Tok::Comma)) {
      expectInt("a timestamp after the file name");
      expect(Tok::Comma, "',' before the file size");
      expectInt("a file size");
    }
    return slice(d.begin, lastEnd_);
  }
  expectInt("a file number after '.loc'");
  expectInt("a line number");
  expectInt("a column number");
  while (accept(Tok::Comma)) {
    const Token a = peek();
    if (a.kind == Tok::Ident && spell(a) == "function_name") {
      next();
      expect(Tok::Ident, "a label after 'function_name'");
      offsetTerms();
    } else if (a.kind == Tok::Ident && spell(a) == "inlined_at") {
      next();
      for (int k = 0; k < 3; ++k)
        expectInt("a file, line and column after 'inlined_at'");
    } else {
      expected("'function_name' or 'inlined_at'");
    }
  }
  return slice(d.begin, lastEnd_);
}

// A directive ending with ';' (kept in the text): `.pragma "nounroll";`.
std::string Parser::toSemicolon() {
  const Token d = next();
  while (!accept(Tok::Semi)) {
    if (is(Tok::End) || is(Tok::LBrace) || is(Tok::RBrace))
      expected(fmt::format("';' after '{}'", spell(d)));
    next();
  }
  return slice(d.begin, lastEnd_);
}

// `.section .debug_info { ... }`: kept whole; its braces are counted.
std::string Parser::section() {
  const Token s = next();
  const Token name = expect(Tok::Dir, "a section name after '.section'");
  while (is(Tok::Dir) && peek().begin == lastEnd_)
    next(); // .nv.constant0
  const std::string_view nameText = lx_.text().substr(name.begin, lastEnd_ - name.begin);
  const Token open = expect(Tok::LBrace, "'{' after the section name");
  for (uint64_t depth = 1; depth > 0;) {
    const Token t = next();
    if (t.kind == Tok::End)
      lx_.fail(open, fmt::format("unexpected end of file, section {} is not closed",
                                 Lexer::quote(nameText)));
    depth += t.kind == Tok::LBrace;
    depth -= t.kind == Tok::RBrace;
  }
  return slice(s.begin, lastEnd_);
}

// --- functions ----------------------------------------------------------
void Parser::function(Function &f, std::vector<std::string> linkage, const Token &start) {
  f.linkage = std::move(linkage);
  f.loc = loc(start);
  f.isEntry = spell(next()) == ".entry";
  if (!f.isEntry && is(Tok::LParen))
    paramList(f.returns);
  f.name = std::string(spell(expect(Tok::Ident, "a function name")));
  if (is(Tok::LParen))
    paramList(f.params);
  for (;;) {
    if (isDir(".pragma"))
      f.performanceDirectives.push_back(toSemicolon());
    else if (is(Tok::Dir) && isPerformanceDirective(spell(peek())))
      f.performanceDirectives.push_back(performanceDirective());
    else
      break;
  }
  if (is(Tok::LBrace))
    body(f);
  else
    accept(Tok::Semi); // a declaration; nvopencc wrote them without ';'
}

// `.maxntid 256, 1, 1`, `.minnctapersm 4`, `.noreturn`
std::string Parser::performanceDirective() {
  const Token d = next();
  if (accept(Tok::Int))
    while (accept(Tok::Comma))
      expectInt(fmt::format("an integer in '{}'", spell(d)));
  return slice(d.begin, lastEnd_);
}

// `(.param .b32 a, .param .align 8 .b8 b[16], .reg .u32 c)`
void Parser::paramList(std::vector<Variable> &out) {
  next(); // (
  if (accept(Tok::RParen))
    return;
  commaList([&] {
    const Token start = peek();
    if (!isDir(".param") && !isDir(".reg"))
      expected("'.param' or '.reg' in the parameter list");
    Variable &v = out.emplace_back();
    v.loc = loc(start);
    declHead(v);
    declName(v, false);
    v.text = slice(start.begin, lastEnd_);
  });
  expect(Tok::RParen, "',' or ')' in the parameter list");
}

void Parser::body(Function &f) {
  const Token open = next();
  f.hasBody = true;
  body_ = &f.body;
  direct_ = false;
  std::vector<Token> scopes; // the open `{` of each scope
  for (;;) {
    const Token t = peek();
    switch (t.kind) {
    case Tok::End:
      if (!scopes.empty())
        lx_.fail(scopes.back(), "unexpected end of file, '{' is not closed");
      lx_.fail(open, fmt::format("unexpected end of file, function {} is not closed",
                                 Lexer::quote(f.name)));
    case Tok::LBrace:
    case Tok::RBrace: {
      next();
      if (t.kind == Tok::RBrace && scopes.empty()) {
        if (!direct_)
          moveInto(scratch_, f.body);
        return;
      }
      if (t.kind == Tok::RBrace)
        scopes.pop_back();
      else if (scopes.size() == kMaxScopeDepth)
        lx_.fail(t, fmt::format("scopes nested more than {} deep", kMaxScopeDepth));
      else
        scopes.push_back(t);
      Statement &s = stmt(Statement::Kind::Scope);
      s.scope.open = t.kind == Tok::LBrace;
      s.scope.loc = loc(t);
      break;
    }
    case Tok::DwarfLine:
      bodyDirective(t, slice(next().begin, t.end));
      break;
    case Tok::Ident:
      if (is(Tok::Colon, 1)) {
        labelled();
        break;
      }
      [[fallthrough]];
    case Tok::At:
      instruction(stmt(Statement::Kind::Instr).instr);
      break;
    case Tok::Dir:
      bodyDirectiveOrDecl(t);
      break;
    default:
      expected("an instruction, label or directive");
    }
  }
}

void Parser::bodyDirective(const Token &t, std::string text) {
  Statement &s = stmt(Statement::Kind::Directive);
  s.directive.text = std::move(text);
  s.directive.loc = loc(t);
}

void Parser::bodyDirectiveOrDecl(const Token &t) {
  const std::string_view d = spell(t);
  if (d == ".loc" || d == ".file")
    return bodyDirective(t, lineDirective());
  if (d == ".pragma")
    return bodyDirective(t, toSemicolon());
  if (isPerformanceDirective(d)) {
    performanceDirective();
    accept(Tok::Semi);
    return bodyDirective(t, slice(t.begin, lastEnd_));
  }
  if (d == ".callprototype" || d == ".branchtargets")
    lx_.fail(t, fmt::format("'{}' needs a label: 'name: {} ...'", d, d));
  std::vector<std::string> linkage;
  while (is(Tok::Dir) && isLinkage(spell(peek())))
    linkage.emplace_back(spell(next()));
  if (!is(Tok::Dir) || !isStateSpace(spell(peek()))) {
    if (linkage.empty())
      lx_.fail(t, fmt::format("unknown directive {} in a function body", lx_.describe(t)));
    expected("a state space");
  }
  declaration(std::move(linkage), t,
              [&]() -> Variable & { return stmt(Statement::Kind::Var).var; });
}

// `L:`, `proto: .callprototype (.param .b32 _) _ (.param .b32 _);`,
// `tab: .branchtargets L1, L2;`
void Parser::labelled() {
  const Token name = next();
  next(); // :
  if (isDir(".callprototype")) {
    Statement &s = stmt(Statement::Kind::CallPrototype);
    s.proto.name = std::string(spell(name));
    s.proto.loc = loc(name);
    next(); // .callprototype
    std::vector<Variable> ignored;
    if (is(Tok::LParen))
      paramList(ignored);
    expect(Tok::Ident, "'_' in the call prototype");
    if (is(Tok::LParen))
      paramList(ignored);
    while (isDir(".noreturn") || isDir(".abi_preserve") || isDir(".abi_preserve_control"))
      performanceDirective();
    s.proto.text = slice(name.begin, lastEnd_);
    expect(Tok::Semi, "';' after the call prototype");
  } else if (isDir(".branchtargets")) {
    next();
    Statement &s = stmt(Statement::Kind::BranchTargets);
    s.targets.name = std::string(spell(name));
    s.targets.loc = loc(name);
    commaList([&] {
      s.targets.labels.emplace_back(spell(expect(Tok::Ident, "a label in '.branchtargets'")));
    });
    expect(Tok::Semi, "',' or ';' after the branch targets");
  } else {
    Statement &s = stmt(Statement::Kind::Label);
    s.label.name = std::string(spell(name));
    s.label.loc = loc(name);
  }
}

} // namespace ori::ptx::parser_detail

namespace ori::ptx {

ParseResult parse(std::string_view text, std::string_view fileName) {
  ParseResult r;
  if (text.size() >= UINT32_MAX) { // token offsets are 32-bit
    r.error = Diagnostic{std::string(fileName), 0, 0, "file is too large (4 GiB or more)"};
    return r;
  }
  if (auto d = checkIsText(text, fileName)) {
    r.error = std::move(*d);
    return r;
  }
  try {
    r.module = parser_detail::Parser(text, fileName).run();
  } catch (const DiagnosticError &e) {
    r.error = e.diag;
  }
  return r;
}

} // namespace ori::ptx
