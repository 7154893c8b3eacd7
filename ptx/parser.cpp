// The PTX parser: tokens from lexer.h to the syntax tree of ast.h. Recursive
// descent whose only recursion has a fixed depth (statement -> operand ->
// atom); nested scopes, initializer braces and section braces are counted,
// never recursed into, so no input can drive the stack deep.
#include <iterator>

#include <fmt/format.h>

#include "ptx/ast.h"
#include "ptx/lexer.h"

namespace ori::ptx {
namespace {

constexpr size_t kMaxScopeDepth = 256;   // nested `{ }` inside a body
constexpr size_t kMaxInitDepth = 64;     // nested braces in an initializer
constexpr uint64_t kMaxRange = 1u << 20; // %r<N>
constexpr uint32_t kMaxSharedHead = 256; // `.reg .b32` before `a, b, c`
constexpr size_t kMaxScratch = 4096;      // statements gathered before a body grows in place

bool canStartOperand(Tok k) {
  return k == Tok::Ident || k == Tok::Int || k == Tok::Float || k == Tok::Minus ||
         k == Tok::Bang || k == Tok::LBrace || k == Tok::LBrack || k == Tok::LParen;
}

template <class T>
void moveInto(std::vector<T>& from, std::vector<T>& to) {
  to.assign(std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  from.clear();
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view file) : lx_(text, file) { mod_.fileName = file; }

  Module run() {
    if (is(Tok::End)) lx_.failAt(1, 1, "empty file");
    if (!isDir(".version")) expected("'.version' directive");
    while (!is(Tok::End)) topLevel();
    return std::move(mod_);
  }

 private:
  // --- tokens -------------------------------------------------------------
  const Token& peek(size_t k = 0) { return lx_.peek(k); }
  Token next() { lastEnd_ = lx_.peek().end; return lx_.next(); }
  bool is(Tok k, size_t ahead = 0) { return peek(ahead).kind == k; }
  bool isDir(std::string_view s) { return is(Tok::Dir) && spell(peek()) == s; }
  bool accept(Tok k) { return is(k) ? (next(), true) : false; }
  std::string_view spell(const Token& t) const { return lx_.spell(t); }
  std::string slice(uint32_t b, uint32_t e) const { return std::string(lx_.text(), b, e - b); }
  static SrcLoc loc(const Token& t) { return {t.line, t.col}; }

  [[noreturn]] void expected(std::string_view what) {
    lx_.fail(peek(), fmt::format("expected {}, found {}", what, lx_.describe(peek())));
  }
  Token expect(Tok k, std::string_view what) { if (!is(k)) expected(what); return next(); }
  uint64_t expectInt(std::string_view what) { return expect(Tok::Int, what).ival; }
  // item (',' item)*
  template <class F>
  void commaList(F item) {
    do item(); while (accept(Tok::Comma));
  }

  // --- module level -------------------------------------------------------
  void topLevel() {
    const Token t = peek();
    if (t.kind == Tok::DwarfLine) return directiveItem(t, slice(next().begin, t.end));
    if (t.kind == Tok::RBrace) lx_.fail(t, "unmatched '}'");
    if (t.kind != Tok::Dir) expected("a directive at module level");
    const std::string_view d = spell(t);
    if (d == ".version") {
      next();
      if (!mod_.version.empty()) lx_.fail(t, "duplicate '.version' directive");
      const std::string_view v = spell(peek());
      if (!is(Tok::Float) || v.find('.') == v.npos || v.find_first_of("eE") != v.npos)
        expected("a version number such as 7.0 after '.version'");
      mod_.version = std::string(spell(next()));
    } else if (d == ".target") {
      next();
      std::string target;
      commaList([&] {
        if (!target.empty()) target += ", ";
        target += spell(expect(Tok::Ident, "a target name such as sm_90"));
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
      while (is(Tok::Dir) && isLinkage(spell(peek()))) linkage.emplace_back(spell(next()));
      if (isDir(".entry") || isDir(".func")) {
        TopLevel& item = mod_.items.emplace_back();
        item.kind = TopLevel::Kind::Function;
        item.loc = loc(t);
        function(item.function, std::move(linkage), t);
      } else if (is(Tok::Dir) && isStateSpace(spell(peek()))) {
        declaration(std::move(linkage), t, [&]() -> Variable& {
          TopLevel& item = mod_.items.emplace_back();
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

  void directiveItem(const Token& t, std::string text) {
    TopLevel& item = mod_.items.emplace_back();
    item.kind = TopLevel::Kind::Directive;
    item.loc = loc(t);
    item.text = std::move(text);
  }

  // `.file 1 "a.cu"[, timestamp, size]`,
  // `.loc 1 2 3[, function_name $L__info_string0[+4]][, inlined_at 1 37 3]`: no ';'.
  std::string lineDirective() {
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
        for (int k = 0; k < 3; ++k) expectInt("a file, line and column after 'inlined_at'");
      } else {
        expected("'function_name' or 'inlined_at'");
      }
    }
    return slice(d.begin, lastEnd_);
  }

  // A directive ending with ';' (kept in the text): `.pragma "nounroll";`.
  std::string toSemicolon() {
    const Token d = next();
    while (!accept(Tok::Semi)) {
      if (is(Tok::End) || is(Tok::LBrace) || is(Tok::RBrace))
        expected(fmt::format("';' after '{}'", spell(d)));
      next();
    }
    return slice(d.begin, lastEnd_);
  }

  // `.section .debug_info { ... }`: kept whole; its braces are counted.
  std::string section() {
    const Token s = next();
    const Token name = expect(Tok::Dir, "a section name after '.section'");
    while (is(Tok::Dir) && peek().begin == lastEnd_) next(); // .nv.constant0
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

  // --- declarations -------------------------------------------------------
  // The state space and the words before the name, in any order:
  // `.shared .align 16 .v4 .f32`, `.param .u64 .ptr .global .align 4`,
  // `.global .attribute(.managed) .s32`.
  void declHead(Variable& v) {
    v.space = std::string(spell(next()));
    while (is(Tok::Dir)) {
      const Token t = next();
      const std::string_view s = spell(t);
      if (s == ".align") {
        const Token n = peek();
        const uint64_t a = expectInt("an alignment after '.align'");
        if (a == 0 || a > (1u << 30) || (a & (a - 1)) != 0)
          lx_.fail(n, fmt::format("alignment must be a power of two, found {}", a));
        v.align = static_cast<uint32_t>(a);
      } else if (s == ".v2" || s == ".v4" || s == ".v8") {
        v.vectorMod = std::string(s);
      } else if (isType(s)) {
        if (!v.type.empty()) lx_.fail(t, fmt::format("second type '{}' in the declaration", s));
        v.type = std::string(s);
      } else if (s == ".attribute") {
        expect(Tok::LParen, "'(' after '.attribute'");
        while (is(Tok::Dir)) next();
        expect(Tok::RParen, "')' after the attributes");
        v.attrs.push_back(slice(t.begin, lastEnd_));
      } else {
        v.attrs.emplace_back(s);
      }
    }
    if (v.type.empty()) expected("a type in the declaration");
  }

  // The name and what follows it: `%r<10>`, `x[4][8]`, `t[]`.
  void declName(Variable& v, bool allowRange) {
    v.name = std::string(spell(expect(Tok::Ident, "a name in the declaration")));
    if (allowRange && accept(Tok::Lt)) {
      const Token n = peek();
      const uint64_t c = expectInt("a register count after '<'");
      if (c == 0 || c > kMaxRange)
        lx_.fail(n, fmt::format("register range must be between 1 and {}, found {}", kMaxRange, c));
      v.rangeCount = static_cast<uint32_t>(c);
      expect(Tok::Gt, "'>' after the register count");
    }
    while (accept(Tok::LBrack)) {
      if (is(Tok::RBrack)) v.dims.emplace_back(std::nullopt);
      else v.dims.emplace_back(expectInt("an array size or ']'"));
      expect(Tok::RBrack, "']' after the array size");
    }
  }

  // A `;`-terminated declaration of one or more names, one Variable each, made
  // where `newVar()` says. With several names each text is the shared head plus its name.
  template <class NewVar>
  void declaration(std::vector<std::string> attrs, const Token& start, NewVar newVar) {
    Variable head;
    head.attrs = std::move(attrs);
    head.loc = loc(start);
    declHead(head);
    const uint32_t headEnd = lastEnd_;
    bool first = true;
    commaList([&] {
      const uint32_t nameBegin = peek().begin;
      // Each further name copies the head: bound it, or `a, a, a, ...` would be quadratic.
      if (!first && headEnd - start.begin > kMaxSharedHead)
        lx_.fail(peek(), fmt::format("a declaration of several names needs a head of at most {} "
                                     "bytes", kMaxSharedHead));
      Variable& v = newVar();
      v = head;
      declName(v, true);
      if (is(Tok::Eq)) initializer(v);
      v.text = first ? slice(start.begin, lastEnd_)
                     : slice(start.begin, headEnd) + " " + slice(nameBegin, lastEnd_);
      first = false;
    });
    expect(Tok::Semi, "',' or ';' after the declaration");
  }

  // `= 5`, `= {1, 2, 3}`, `= {{1, 2}, {3, 4}}`, `= generic(sym)+4`, `= {0f3F800000}`;
  // nested braces are flattened.
  void initializer(Variable& v) {
    next(); // =
    for (size_t depth = 0;;) {
      if (is(Tok::LBrace)) {
        if (++depth > kMaxInitDepth) lx_.fail(peek(), "initializer braces nested too deeply");
        next();
        continue;
      }
      v.init.push_back(initValue());
      while (depth > 0 && accept(Tok::RBrace)) --depth;
      if (depth == 0) return;
      if (!accept(Tok::Comma)) expected("',' or '}' in the initializer");
    }
  }

  Operand initValue() {
    const Token t = peek();
    if (t.kind == Tok::Int || t.kind == Tok::Float || t.kind == Tok::Minus) return literal();
    if (t.kind != Tok::Ident) expected("an initializer value");
    Operand o;
    o.loc = loc(next());
    if (spell(t) == "generic" && accept(Tok::LParen)) {
      o.name = std::string(spell(expect(Tok::Ident, "a symbol in 'generic('")));
      o.generic = true;
      expect(Tok::RParen, "')' after the symbol");
    } else {
      o.name = std::string(spell(t));
    }
    o.ival = offsetTerms();
    return o;
  }

  // --- functions ----------------------------------------------------------
  void function(Function& f, std::vector<std::string> linkage, const Token& start) {
    f.linkage = std::move(linkage);
    f.loc = loc(start);
    f.isEntry = spell(next()) == ".entry";
    if (!f.isEntry && is(Tok::LParen)) paramList(f.returns);
    f.name = std::string(spell(expect(Tok::Ident, "a function name")));
    if (is(Tok::LParen)) paramList(f.params);
    for (;;) {
      if (isDir(".pragma")) f.performanceDirectives.push_back(toSemicolon());
      else if (is(Tok::Dir) && isPerformanceDirective(spell(peek())))
        f.performanceDirectives.push_back(performanceDirective());
      else break;
    }
    if (is(Tok::LBrace)) body(f);
    else accept(Tok::Semi); // a declaration; nvopencc wrote them without ';'
  }

  // `.maxntid 256, 1, 1`, `.minnctapersm 4`, `.noreturn`
  std::string performanceDirective() {
    const Token d = next();
    if (accept(Tok::Int))
      while (accept(Tok::Comma)) expectInt(fmt::format("an integer in '{}'", spell(d)));
    return slice(d.begin, lastEnd_);
  }

  // `(.param .b32 a, .param .align 8 .b8 b[16], .reg .u32 c)`
  void paramList(std::vector<Variable>& out) {
    next(); // (
    if (accept(Tok::RParen)) return;
    commaList([&] {
      const Token start = peek();
      if (!isDir(".param") && !isDir(".reg")) expected("'.param' or '.reg' in the parameter list");
      Variable& v = out.emplace_back();
      v.loc = loc(start);
      declHead(v);
      declName(v, false);
      v.text = slice(start.begin, lastEnd_);
    });
    expect(Tok::RParen, "',' or ')' in the parameter list");
  }

  void body(Function& f) {
    const Token open = next();
    f.hasBody = true;
    body_ = &f.body;
    direct_ = false;
    std::vector<Token> scopes; // the open `{` of each scope
    for (;;) {
      const Token t = peek();
      switch (t.kind) {
      case Tok::End:
        if (!scopes.empty()) lx_.fail(scopes.back(), "unexpected end of file, '{' is not closed");
        lx_.fail(open, fmt::format("unexpected end of file, function {} is not closed",
                                  Lexer::quote(f.name)));
      case Tok::LBrace:
      case Tok::RBrace: {
        next();
        if (t.kind == Tok::RBrace && scopes.empty()) {
          if (!direct_) moveInto(scratch_, f.body);
          return;
        }
        if (t.kind == Tok::RBrace) scopes.pop_back();
        else if (scopes.size() == kMaxScopeDepth)
          lx_.fail(t, fmt::format("scopes nested more than {} deep", kMaxScopeDepth));
        else scopes.push_back(t);
        Statement& s = stmt(Statement::Kind::Scope);
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

  void bodyDirective(const Token& t, std::string text) {
    Statement& s = stmt(Statement::Kind::Directive);
    s.directive.text = std::move(text);
    s.directive.loc = loc(t);
  }

  void bodyDirectiveOrDecl(const Token& t) {
    const std::string_view d = spell(t);
    if (d == ".loc" || d == ".file") return bodyDirective(t, lineDirective());
    if (d == ".pragma") return bodyDirective(t, toSemicolon());
    if (isPerformanceDirective(d)) {
      performanceDirective();
      accept(Tok::Semi);
      return bodyDirective(t, slice(t.begin, lastEnd_));
    }
    if (d == ".callprototype" || d == ".branchtargets")
      lx_.fail(t, fmt::format("'{}' needs a label: 'name: {} ...'", d, d));
    std::vector<std::string> linkage;
    while (is(Tok::Dir) && isLinkage(spell(peek()))) linkage.emplace_back(spell(next()));
    if (!is(Tok::Dir) || !isStateSpace(spell(peek()))) {
      if (linkage.empty())
        lx_.fail(t, fmt::format("unknown directive {} in a function body", lx_.describe(t)));
      expected("a state space");
    }
    declaration(std::move(linkage), t,
                [&]() -> Variable& { return stmt(Statement::Kind::Var).var; });
  }

  // `L:`, `proto: .callprototype (.param .b32 _) _ (.param .b32 _);`,
  // `tab: .branchtargets L1, L2;`
  void labelled() {
    const Token name = next();
    next(); // :
    if (isDir(".callprototype")) {
      Statement& s = stmt(Statement::Kind::CallPrototype);
      s.proto.name = std::string(spell(name));
      s.proto.loc = loc(name);
      next(); // .callprototype
      std::vector<Variable> ignored;
      if (is(Tok::LParen)) paramList(ignored);
      expect(Tok::Ident, "'_' in the call prototype");
      if (is(Tok::LParen)) paramList(ignored);
      while (isDir(".noreturn") || isDir(".abi_preserve") || isDir(".abi_preserve_control"))
        performanceDirective();
      s.proto.text = slice(name.begin, lastEnd_);
      expect(Tok::Semi, "';' after the call prototype");
    } else if (isDir(".branchtargets")) {
      next();
      Statement& s = stmt(Statement::Kind::BranchTargets);
      s.targets.name = std::string(spell(name));
      s.targets.loc = loc(name);
      commaList([&] {
        s.targets.labels.emplace_back(spell(expect(Tok::Ident, "a label in '.branchtargets'")));
      });
      expect(Tok::Semi, "',' or ';' after the branch targets");
    } else {
      Statement& s = stmt(Statement::Kind::Label);
      s.label.name = std::string(spell(name));
      s.label.loc = loc(name);
    }
  }

  // --- instructions -------------------------------------------------------
  // Lists are gathered in scratch vectors and copied once, exactly sized.
  void instruction(Instruction& ins) {
    ins.loc = loc(peek());
    if (accept(Tok::At)) {
      Operand& g = ins.guard.emplace();
      g.loc = loc(peek());
      g.negated = accept(Tok::Bang);
      g.name = std::string(spell(expect(Tok::Ident, "a predicate after '@'")));
    }
    const Token op = expect(Tok::Ident, "an opcode");
    ins.opcode = std::string(spell(op));
    while (is(Tok::Dir) && peek().begin == lastEnd_) modScratch_.emplace_back(spell(next()));
    moveInto(modScratch_, ins.mods);
    if (!is(Tok::Semi)) {
      if (!canStartOperand(peek().kind)) expected("';' after the instruction");
      minusNames_ = ins.opcode == "vmad";
      commaList([&] { opScratch_.push_back(operand()); });
      minusNames_ = false;
      if (!is(Tok::Semi)) expected("',' or ';' after the operand");
      moveInto(opScratch_, ins.operands);
    }
    ins.text = slice(op.begin, lastEnd_);
    next(); // ;
  }

  Operand operand() {
    if (is(Tok::LBrace)) return vector();
    if (is(Tok::LBrack)) return address();
    if (!is(Tok::LParen)) return atom();
    // call's lists: `(retval0)`, `(param0, param1)`, `()`
    Operand o;
    o.kind = Operand::Kind::Call;
    o.loc = loc(next());
    if (accept(Tok::RParen)) return o;
    commaList([&] { elemScratch_.push_back(atom()); });
    expect(Tok::RParen, "',' or ')' in the argument list");
    moveInto(elemScratch_, o.elems);
    return o;
  }

  // `{a, b, _, d}`: the elements are atoms, never vectors.
  Operand vector() {
    Operand o;
    o.kind = Operand::Kind::Vector;
    o.loc = loc(next());
    commaList([&] {
      if (!is(Tok::Ident) && !is(Tok::Int) && !is(Tok::Float) && !is(Tok::Minus) && !is(Tok::Bang))
        expected("a vector element");
      elemScratch_.push_back(atom());
    });
    expect(Tok::RBrace, "',' or '}' in the vector operand");
    moveInto(elemScratch_, o.elems);
    return o;
  }

  // `[%rd1]`, `[%rd1+8]`, `[%rd1+-8]`, `[sym+4]`, `[0x100]`, `[tex, {%f1, %f2}]`.
  Operand address() {
    Operand o;
    o.kind = Operand::Kind::Address;
    o.loc = loc(next());
    if (is(Tok::Ident)) {
      o.name = std::string(spell(next()));
      componentSuffix(o);
    } else if (is(Tok::Int) || (is(Tok::Minus) && is(Tok::Int, 1))) {
      o.ival = literal().ival;
    } else {
      expected("a register, symbol or integer in the address");
    }
    o.ival = static_cast<int64_t>(static_cast<uint64_t>(o.ival) +
                                  static_cast<uint64_t>(offsetTerms()));
    while (accept(Tok::Comma)) o.elems.push_back(is(Tok::LBrace) ? vector() : atom());
    expect(Tok::RBrack, "']' to close the address");
    return o;
  }

  // `+4`, `+-8`, `-8`, `+4+8` after a base: their sum (wrapping, as 64-bit addresses do).
  int64_t offsetTerms() {
    uint64_t sum = 0;
    while (is(Tok::Plus) || is(Tok::Minus)) {
      const bool minus = next().kind == Tok::Minus;
      if (!is(Tok::Int) && !(is(Tok::Minus) && is(Tok::Int, 1))) expected("an integer offset");
      const uint64_t v = static_cast<uint64_t>(literal().ival);
      sum = minus ? sum - v : sum + v;
    }
    return static_cast<int64_t>(sum);
  }

  // An integer or float literal, with an optional leading '-'.
  Operand literal() {
    Operand o;
    o.loc = loc(peek());
    const bool neg = accept(Tok::Minus);
    if (!is(Tok::Int) && !is(Tok::Float)) expected("a number after '-'");
    const Token t = next();
    if (t.kind == Tok::Int) {
      o.kind = Operand::Kind::Int;
      o.ival = static_cast<int64_t>(neg ? 0 - t.ival : t.ival);
    } else {
      o.kind = Operand::Kind::Float;
      o.floatIsF32 = t.f32;
      o.fval = neg ? -t.fval : t.fval;
      const uint64_t sign = t.f32 ? (1ull << 31) : (1ull << 63);
      o.ival = static_cast<int64_t>(neg ? t.ival ^ sign : t.ival);
    }
    return o;
  }

  // %tid.x, %r1.y: a vector component written right after a name.
  void componentSuffix(Operand& o) {
    if (!is(Tok::Dir) || peek().begin != lastEnd_) return;
    const std::string_view s = spell(peek());
    if (s.size() == 2 && std::string_view("xyzwrgba").find(s[1]) != std::string_view::npos)
      o.name += spell(next());
    else if (isVideoSelector(s))
      o.selector = std::string(spell(next()));
  }

  // A video instruction's operand selector or mask (PTX ISA 9.0, "Video Instructions"):
  // `.b0`..`.b3`, `.h0`, `.h1` (scalar), `.h10`-style (2-way) and `.b3210`-style (4-way).
  // Kept apart from the name (Operand::selector): only the video lowering reads it.
  static bool isVideoSelector(std::string_view s) {
    if (s.size() < 3 || s[0] != '.' || (s[1] != 'b' && s[1] != 'h')) return false;
    const char top = s[1] == 'b' ? '7' : '3';
    if (s.size() - 2 > (s[1] == 'b' ? 4u : 2u)) return false;
    for (char c : s.substr(2))
      if (c < '0' || c > top) return false;
    return true;
  }

  // A name (`%r1`, `!%p`, `sym+8`, `%tid.x`), a pair `p|q`, a sink `_`, or a literal.
  Operand atom() {
    if (minusNames_ && is(Tok::Minus) && is(Tok::Ident, 1)) { // vmad's `-%r1.b0`
      Operand o;
      o.loc = loc(next());
      name(o);
      if (o.kind != Operand::Kind::Name) expected("a register after '-'");
      o.minus = true;
      return o;
    }
    if (is(Tok::Int) || is(Tok::Float) || is(Tok::Minus)) return literal();
    Operand o;
    o.loc = loc(peek());
    o.negated = accept(Tok::Bang);
    if (!is(Tok::Ident)) expected(o.negated ? "a predicate after '!'" : "an operand");
    name(o);
    if (o.negated || !accept(Tok::Pipe)) return o;
    Operand pair;
    pair.kind = Operand::Kind::Pair;
    pair.loc = o.loc;
    pair.elems.push_back(std::move(o));
    Operand& second = pair.elems.emplace_back();
    second.loc = loc(peek());
    if (!is(Tok::Ident)) expected("a predicate after '|'");
    name(second);
    return pair;
  }

  void name(Operand& o) {
    o.name = std::string(spell(next()));
    if (o.name == "_" && !o.negated) {
      o.kind = Operand::Kind::Sink;
      return;
    }
    o.kind = Operand::Kind::Name;
    componentSuffix(o);
    if (!o.negated) o.ival = offsetTerms();
  }

  // A new statement of the body being parsed: gathered in scratch_ (kept across
  // functions) and moved into an exactly sized body, unless the body outgrows
  // kMaxScratch (then it grows in place). Statements are 720 bytes, so this matters.
  Statement& stmt(Statement::Kind k) {
    if (!direct_ && scratch_.size() == kMaxScratch) {
      body_->reserve(2 * kMaxScratch);
      moveInto(scratch_, *body_);
      direct_ = true;
    }
    Statement& s = direct_ ? body_->emplace_back() : scratch_.emplace_back();
    s.kind = k;
    return s;
  }

  Lexer lx_;
  Module mod_;
  bool minusNames_ = false; // operands of a vmad: `-%r1` negates a register
  uint32_t lastEnd_ = 0;
  std::vector<Statement>* body_ = nullptr; // of the function being parsed
  bool direct_ = false;                     // statements go to *body_, not scratch_
  std::vector<Statement> scratch_;
  std::vector<Operand> opScratch_, elemScratch_;
  std::vector<std::string> modScratch_;
};

} // namespace

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
    r.module = Parser(text, fileName).run();
  } catch (const DiagnosticError& e) {
    r.error = e.diag;
  }
  return r;
}

} // namespace ori::ptx
