// Parser of the .ori text format; the grammar is in docs/ori-format.md.
// Blocks are formed as DESIGN.md says: a label starts a block, a control-flow
// instruction (BRA, BRX, EXIT, RET, CALL) ends one.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>

#include "ir/mma.h"
#include "ir/ori.h"
#include "ir/ori_parser_impl.h"
#include "ir/ori_reader_impl.h"

namespace ori::ori_parser_detail {

Module Parser::module() {
  Module m;
  m.fileName = file_;
  skipNewlines();
  while (cur().kind != Token::Eof) {
    if (cur().kind == Token::Word && cur().text == ".ptx") {
      m.ptxDirectives.push_back(ptxText());
      skipNewlines();
      continue;
    }
    size_t k = isLinkage(cur()) ? 1 : 0; // `.visible .global ...`, `.weak .func ...`
    if (ahead(k).kind == Token::Word &&
        (ahead(k).text == ".global" || ahead(k).text == ".const" || ahead(k).text == ".shared")) {
      variable(m.variables, {});
      skipNewlines();
      continue;
    }
    curFunction_ = uint32_t(m.functions.size());
    Function f = function();
    for (const Function &g : m.functions)
      if (g.name == f.name)
        fail(f.loc, fmt::format("duplicate function '{}'", f.name));
    m.functions.push_back(std::move(f));
    skipNewlines();
  }
  if (m.functions.empty())
    fail(cur().loc, "no function in input");
  checkSymbolUses(m, symbolUses_, file_);
  return m;
}

std::string Parser::describe(const Token &t) const {
  switch (t.kind) {
  case Token::Word:
    return fmt::format("'{}'", t.text);
  case Token::Int:
  case Token::Float:
    return fmt::format("number '{}'", t.text);
  case Token::String:
    return "a string";
  case Token::Punct:
    return fmt::format("'{}'", t.text);
  case Token::Newline:
    return "end of line";
  case Token::Eof:
    return "end of file";
  }
  return "?";
}

Function Parser::function() {
  Function f;
  f.loc = cur().loc;
  names_.clear();
  if (isLinkage(cur()))
    f.linkage = take().text.substr(1);
  std::string kind = word("'.entry' or '.func'");
  if (kind == ".entry")
    f.isEntry = true;
  else if (kind != ".func")
    fail(f.loc, fmt::format("expected '.entry' or '.func', got '{}'", kind));
  if (!f.isEntry && isPunct('('))
    f.returns = params();
  Token nameTok = cur();
  f.name = word("a function name");
  checkName(nameTok, "function");
  f.params = params();
  layoutParams(f.params, f.isEntry ? kParamBase : 0);
  layoutParams(f.returns, 0);
  if (accept(';')) {
    if (f.isEntry)
      fail(nameTok.loc, "a .entry needs a body");
    return f; // a declaration
  }
  skipNewlines();
  expect('{', "to open the function body");
  body(f);
  return f;
}

std::vector<Param> Parser::params() {
  std::vector<Param> ps;
  expect('(', "to open the parameter list");
  skipLineBreaks();
  while (!accept(')')) {
    if (!ps.empty()) {
      expect(',', "between parameters");
      skipLineBreaks();
    }
    Token typeTok = cur();
    std::string type = word("a parameter type such as .u32");
    const ParamType *pt = nullptr;
    for (const ParamType &t : kParamTypes)
      if (type.size() > 1 && type[0] == '.' && t.name == std::string_view(type).substr(1))
        pt = &t;
    if (!pt)
      fail(typeTok.loc, fmt::format("unknown parameter type '{}'", type));
    Param p;
    p.type = std::string(pt->name);
    Token nameTok = cur();
    p.name = word("a parameter name");
    checkName(nameTok, "parameter");
    for (const Param &q : ps)
      if (q.name == p.name)
        fail(nameTok.loc, fmt::format("duplicate parameter '{}'", p.name));
    p.size = pt->size;
    p.align = pt->size;
    if (accept('[')) {
      SrcLoc loc = cur().loc;
      uint64_t n = integer("an array length");
      if (n == 0 || n > (1u << 20))
        fail(loc, "array length must be between 1 and 1048576");
      p.count = uint32_t(n);
      p.size *= p.count;
      expect(']', "after the array length");
    }
    if (cur().kind == Token::Word && cur().text == ".align") {
      ++pos_;
      SrcLoc loc = cur().loc;
      uint64_t a = integer("an alignment");
      if (a == 0 || a > 4096 || (a & (a - 1)))
        fail(loc, "alignment must be a power of two up to 4096");
      p.align = uint32_t(a);
    }
    ps.push_back(std::move(p));
    skipLineBreaks();
  }
  return ps;
}

void Parser::body(Function &f) {
  std::vector<Fixup> labelFixups, tableFixups;
  std::vector<std::vector<std::pair<std::string, SrcLoc>>> tableLabels;
  std::map<std::string, SrcLoc> labelLocs;
  bool needBlock = true, seenCode = false;
  uint32_t instrIndex = 0;
  SrcLoc lastLoc = cur().loc;
  // Declarations come first, so that every name means the same thing
  // wherever it is used (the printer writes them first too).
  auto declaration = [&](const Token &t) {
    if (seenCode)
      fail(t.loc, fmt::format("'{}' must come before the first label or instruction", t.text));
  };
  for (;;) {
    skipNewlines();
    const Token &t = cur();
    if (t.kind == Token::Eof)
      fail(t.loc, fmt::format("function '{}' is not closed with '}}'", f.name));
    if (accept('}')) {
      lastLoc = t.loc;
      break;
    }
    if (t.kind == Token::Word && t.text == ".reg") {
      declaration(t);
      regDecl(f);
      continue;
    }
    if (t.kind == Token::Word && t.text == ".jumptable") {
      declaration(t);
      jumpTable(f, tableLabels);
      continue;
    }
    if (t.kind == Token::Word && t.text == ".ptx" && seenCode) {
      // After a label: a statement-level PTX directive of that block (a .pragma).
      if (needBlock || f.blocks.empty() || f.blocks.back().label.empty())
        fail(t.loc, "'.ptx' inside the body must stand in a labelled block (it is a directive of "
                    "that block)");
      std::string text = ptxText();
      if (text.rfind(".pragma", 0) != 0)
        fail(t.loc, "'.ptx' inside the body takes only .pragma text");
      f.blockDirectives[f.blocks.back().label].push_back(std::move(text));
      continue;
    }
    if (t.kind == Token::Word && t.text == ".ptx") {
      declaration(t);
      f.ptxDirectives.push_back(ptxText());
      continue;
    }
    const Token &sp = isLinkage(t) ? ahead(1) : t;
    if (sp.kind == Token::Word &&
        (sp.text == ".shared" || sp.text == ".local" || sp.text == ".param")) {
      declaration(t);
      variable(f.variables, f.params);
      continue;
    }
    seenCode = true;
    if (t.kind == Token::Word && t.text[0] == '.')
      fail(t.loc, fmt::format("unknown directive '{}'", t.text));
    if (t.kind == Token::Word && ahead(1).kind == Token::Punct && ahead(1).text == ":") {
      checkName(t, "label");
      if (t.text[0] == '%' || names_.count(t.text))
        fail(t.loc, fmt::format("'{}' cannot be a label name", t.text));
      if (auto it = labelLocs.find(t.text); it != labelLocs.end())
        fail(t.loc, fmt::format("duplicate label '{}' (first defined at line {})", t.text,
                                it->second.line));
      labelLocs[t.text] = t.loc;
      f.blocks.push_back(Block{t.text, 0x10 * instrIndex, {}});
      pos_ += 2;
      needBlock = false;
      continue;
    }
    if (needBlock)
      f.blocks.push_back(Block{"", 0x10 * instrIndex, {}});
    Instr in = instruction(f, uint32_t(f.blocks.size() - 1), labelFixups, tableFixups);
    needBlock = in.info().is(CONTROL);
    f.blocks.back().instrs.push_back(std::move(in));
    ++instrIndex;
    endOfLine();
  }
  std::map<std::string, uint32_t> blockOf;
  for (size_t b = 0; b < f.blocks.size(); ++b)
    if (!f.blocks[b].label.empty())
      blockOf[f.blocks[b].label] = uint32_t(b);
  auto findBlock = [&](const std::string &name) -> std::optional<uint32_t> {
    auto it = blockOf.find(name);
    return it == blockOf.end() ? std::nullopt : std::optional<uint32_t>(it->second);
  };
  for (const Fixup &fx : labelFixups) {
    auto bix = findBlock(fx.name);
    if (!bix)
      fail(fx.loc, fmt::format("undefined label '{}'", fx.name));
    f.blocks[fx.block].instrs[fx.instr].srcs[fx.src] = Operand::label(*bix);
  }
  for (size_t t = 0; t < tableLabels.size(); ++t)
    for (auto &[name, loc] : tableLabels[t]) {
      auto bix = findBlock(name);
      if (!bix)
        fail(loc,
             fmt::format("undefined label '{}' in jump table '{}'", name, f.jumpTables[t].name));
      f.jumpTables[t].targets.push_back(*bix);
    }
  for (const Fixup &fx : tableFixups) {
    uint32_t index = 0;
    while (index < f.jumpTables.size() && f.jumpTables[index].name != fx.name)
      ++index;
    if (index == f.jumpTables.size())
      fail(fx.loc, fmt::format("undefined jump table '{}'", fx.name));
    f.blocks[fx.block].instrs[fx.instr].srcs[fx.src] = Operand::jumpTable(index);
  }
  if (f.blocks.empty() || f.instrCount() == 0)
    fail(lastLoc, fmt::format("function '{}' has no instructions", f.name));
  const Block &last = f.blocks.back();
  if (last.instrs.empty())
    fail(
        labelLocs[last.label],
        fmt::format("function '{}' can fall off its end: block '{}' is empty", f.name, last.label));
  const Instr &end = last.instrs.back();
  if (!end.info().is(TERMINATOR) || end.isGuarded())
    fail(end.loc, fmt::format("function '{}' can fall off its end: its last instruction is not an "
                              "unconditional BRA, BRX, EXIT or RET",
                              f.name));
  f.recountRegs();
}

std::string Parser::ptxText() {
  ++pos_;
  if (cur().kind != Token::String)
    fail(cur().loc, fmt::format(".ptx takes PTX text as a string, got {}", describe(cur())));
  std::string text = take().text;
  endOfLine();
  return text;
}

void Parser::regDecl(Function &f) {
  ++pos_; // .reg
  std::string type;
  if (cur().kind == Token::Word && cur().text[0] == '.') {
    Token typeTok = take();
    type = typeTok.text.substr(1);
    if (type != "pred" && !findType(type))
      fail(typeTok.loc, fmt::format("unknown register type '{}'", typeTok.text));
  }
  do {
    Token nameTok = cur();
    std::string name = word("a register name");
    checkName(nameTok, "register");
    if (name.find('.') != std::string::npos)
      fail(nameTok.loc, "a register name cannot contain '.'");
    if (names_.count(name))
      fail(nameTok.loc, fmt::format("register name '{}' is declared twice", name));
    expect('=', "after the register name");
    Token regTok = cur();
    bool big = false;
    std::optional<Reg> r =
        cur().kind == Token::Word ? parseRegName(cur().text, &big) : std::nullopt;
    if (!r)
      fail(regTok.loc, fmt::format("expected a register such as R5, got {}", describe(regTok)));
    if (big)
      fail(regTok.loc, fmt::format("register number in '{}' is too large", regTok.text));
    if (r->isConst())
      fail(regTok.loc, fmt::format("'{}' cannot be given a name", regTok.text));
    if (auto it = f.regNames.find(*r); it != f.regNames.end())
      fail(regTok.loc, fmt::format("register {} is already named '{}'", regTok.text, it->second));
    ++pos_;
    if (!type.empty() && (type == "pred" ? !r->isPredicate() : !r->isGeneral()))
      fail(regTok.loc, fmt::format("a .{} register must be of file {}", type,
                                   type == "pred" ? "P or UP" : "R or UR"));
    f.regNames[*r] = name;
    if (!type.empty())
      f.regTypes[*r] = type;
    names_[name] = *r;
  } while (accept(','));
  endOfLine();
}

void Parser::variable(std::vector<Variable> &vars, const std::vector<Param> &params) {
  Variable v;
  if (isLinkage(cur()))
    v.linkage = take().text.substr(1);
  Token spaceTok = take();
  static constexpr std::pair<std::string_view, Space> kSpaces[] = {
      {".global", Space::Global}, {".shared", Space::Shared}, {".const", Space::Const},
      {".local", Space::Local},   {".param", Space::Param},
  };
  for (auto [name, space] : kSpaces)
    if (spaceTok.text == name)
      v.space = space;
  if (cur().kind == Token::Word && cur().text == ".align") {
    ++pos_;
    SrcLoc loc = cur().loc;
    uint64_t a = integer("an alignment");
    if (a == 0 || a > 4096 || (a & (a - 1)))
      fail(loc, "alignment must be a power of two up to 4096");
    v.align = uint32_t(a);
  }
  Token typeTok = cur();
  std::string type = word("a variable type such as .b32");
  const ParamType *pt =
      type.size() > 1 && type[0] == '.' ? findType(std::string_view(type).substr(1)) : nullptr;
  if (!pt)
    fail(typeTok.loc, fmt::format("unknown variable type '{}'", type));
  v.type = std::string(pt->name);
  v.elemSize = pt->size;
  if (!v.align)
    v.align = pt->size;
  Token nameTok = cur();
  v.name = word("a variable name");
  checkName(nameTok, "variable");
  for (const Variable &w : vars)
    if (w.name == v.name)
      fail(nameTok.loc, fmt::format("duplicate variable '{}'", v.name));
  for (const Param &p : params)
    if (p.name == v.name)
      fail(nameTok.loc, fmt::format("variable '{}' has the name of a parameter", v.name));
  if (accept('[')) {
    SrcLoc loc = cur().loc;
    if (accept(']')) {
      v.unsized = true; // NAME[]: an .extern array
    } else {
      uint64_t n = integer("an array length");
      if (n == 0 || n > (1u << 24) || n * v.elemSize > (1u << 24))
        fail(loc, "array must have between 1 element and 16 MiB");
      v.count = uint32_t(n);
      expect(']', "after the array length");
    }
  }
  if (accept('=')) {
    if (v.unsized)
      fail(cur().loc, fmt::format("'{}[]' has no length to initialize", v.name));
    expect('{', "to open the initializer");
    uint32_t elems = v.count ? v.count : 1;
    do {
      SrcLoc loc = cur().loc;
      if (v.init.size() / v.elemSize == elems)
        fail(loc, fmt::format("too many initializers for '{}'", v.name));
      // An address: SYMBOL[+-N] or generic(SYMBOL)[+-N]; one byte of it: 0xff00(ADDRESS).
      auto address = [&](Variable::AddrInit &a) {
        a.offset = uint32_t(v.init.size());
        a.symbol = word("a symbol");
        if (a.symbol == "generic" && accept('(')) {
          a.generic = true;
          a.symbol = word("a symbol in 'generic('");
          expect(')', "after the symbol");
        }
        bool minus = isPunct('-');
        if (minus || isPunct('+')) {
          ++pos_;
          uint64_t n = integer("an offset");
          a.addend = int64_t(minus ? 0 - n : n);
        }
        v.addrInit.push_back(std::move(a));
        v.init.resize(v.init.size() + v.elemSize, 0);
      };
      if (cur().kind == Token::Word) {
        if (v.elemSize < 4)
          fail(loc, fmt::format("an address needs 4 or 8 bytes; '{}' has {}", v.name, v.elemSize));
        Variable::AddrInit a;
        address(a);
        continue;
      }
      bool minus = accept('-');
      uint64_t x = integer("an integer initializer");
      if (!minus && accept('(')) {
        Variable::AddrInit a;
        for (int k = 0; k < 8; ++k)
          if (x == uint64_t(0xFF) << (8 * k))
            a.byte = int8_t(k);
        if (a.byte < 0)
          fail(loc, fmt::format("0x{:x}(...): a mask selects one byte of an address (0xff, 0xff00, "
                                "..., 0xff00000000000000)",
                                x));
        address(a);
        expect(')', "to close the mask");
        continue;
      }
      unsigned bits = v.elemSize * 8;
      bool fits = bits == 64
                      ? (!minus || x <= (uint64_t(1) << 63))
                      : (minus ? x <= (uint64_t(1) << (bits - 1)) : x < (uint64_t(1) << bits));
      if (!fits)
        fail(loc, fmt::format("initializer does not fit in {} bits", bits));
      if (minus)
        x = 0 - x;
      for (uint32_t b = 0; b < v.elemSize; ++b)
        v.init.push_back(uint8_t(x >> (8 * b)));
    } while (accept(','));
    expect('}', "to close the initializer");
  }
  endOfLine();
  vars.push_back(std::move(v));
}

void Parser::jumpTable(Function &f,
                       std::vector<std::vector<std::pair<std::string, SrcLoc>>> &labels) {
  ++pos_; // .jumptable
  Token nameTok = cur();
  std::string name = word("a jump table name");
  checkName(nameTok, "jump table");
  for (const JumpTable &jt : f.jumpTables)
    if (jt.name == name)
      fail(nameTok.loc, fmt::format("duplicate jump table '{}'", name));
  expect('=', "after the jump table name");
  expect('{', "to open the jump table");
  std::vector<std::pair<std::string, SrcLoc>> targets;
  do {
    SrcLoc loc = cur().loc;
    targets.emplace_back(word("a label"), loc);
  } while (accept(','));
  expect('}', "to close the jump table");
  endOfLine();
  f.jumpTables.push_back(JumpTable{name, {}});
  labels.push_back(std::move(targets));
}

} // namespace ori::ori_parser_detail

namespace ori {

using ori_parser_detail::Parser;

ParseResult parseOri(std::string_view text, std::string_view fileName) {
  ParseResult r;
  if (text.empty()) {
    r.error = Diagnostic{std::string(fileName), 1, 1, "input is empty"};
    return r;
  }
  if (auto d = checkIsText(text, fileName)) {
    r.error = *d;
    return r;
  }
  try {
    Parser p(lexOri(text, fileName), fileName);
    r.module = p.module();
  } catch (const DiagnosticError &e) {
    r.error = e.diag;
  }
  return r;
}

} // namespace ori
