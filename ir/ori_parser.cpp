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
#include "ir/ori_reader_impl.h"

namespace ori {
namespace {

using Token = OriToken;

struct ParamType {
  std::string_view name;
  uint32_t size;
};
constexpr ParamType kParamTypes[] = {
    {"u8", 1},  {"s8", 1},  {"b8", 1},  {"u16", 2}, {"s16", 2}, {"b16", 2}, {"f16", 2}, {"u32", 4},
    {"s32", 4}, {"b32", 4}, {"f32", 4}, {"u64", 8}, {"s64", 8}, {"b64", 8}, {"f64", 8},
};

class Parser {
public:
  Parser(std::vector<Token> toks, std::string_view file) : toks_(std::move(toks)), file_(file) {}

  Module module() {
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

private:
  std::vector<OriSymbolUse> symbolUses_;

  // A reference to a label or jump table, resolved when the function ends.
  struct Fixup {
    uint32_t block, instr, src;
    std::string name;
    SrcLoc loc;
  };

  const Token &cur() const { return toks_[pos_]; }
  // The position just after the previous token (where a missing operand goes).
  SrcLoc afterPrevious() const {
    if (pos_ == 0)
      return cur().loc;
    const Token &p = toks_[pos_ - 1];
    return {p.loc.line, p.loc.col + p.len};
  }
  const Token &ahead(size_t k) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  Token take() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }
  bool isPunct(char c) const { return cur().kind == Token::Punct && cur().text[0] == c; }
  bool accept(char c) {
    if (!isPunct(c))
      return false;
    ++pos_;
    return true;
  }
  [[noreturn]] void fail(SrcLoc loc, std::string msg) {
    throw DiagnosticError({std::string(file_), loc.line, loc.col, std::move(msg)});
  }
  std::string describe(const Token &t) const {
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
  void expect(char c, std::string_view what) {
    if (!accept(c))
      fail(cur().loc, fmt::format("expected '{}' {}, got {}", c, what, describe(cur())));
  }
  std::string word(std::string_view what) {
    if (cur().kind != Token::Word)
      fail(cur().loc, fmt::format("expected {}, got {}", what, describe(cur())));
    return take().text;
  }
  uint64_t integer(std::string_view what) {
    if (cur().kind != Token::Int)
      fail(cur().loc, fmt::format("expected {}, got {}", what, describe(cur())));
    return take().ival;
  }
  void skipLineBreaks() {
    while (cur().kind == Token::Newline)
      ++pos_;
  }
  void skipNewlines() {
    while (cur().kind == Token::Newline || isPunct(';'))
      ++pos_;
  }
  void endOfLine() {
    accept(';');
    if (cur().kind != Token::Newline && cur().kind != Token::Eof)
      fail(cur().loc, fmt::format("expected end of line, got {}", describe(cur())));
  }

  void checkName(const Token &t, std::string_view what) {
    bool big = false;
    if (t.text[0] == '.' || parseRegName(t.text, &big) || t.text.starts_with("SR_") ||
        t.text == "c")
      fail(t.loc, fmt::format("'{}' cannot be a {} name", t.text, what));
  }

  static bool isLinkage(const Token &t) {
    return t.kind == Token::Word && (t.text == ".visible" || t.text == ".extern" ||
                                     t.text == ".weak" || t.text == ".common");
  }

  Function function() {
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

  std::vector<Param> params() {
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

  void body(Function &f) {
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
      fail(labelLocs[last.label],
           fmt::format("function '{}' can fall off its end: block '{}' is empty", f.name,
                       last.label));
    const Instr &end = last.instrs.back();
    if (!end.info().is(TERMINATOR) || end.isGuarded())
      fail(end.loc,
           fmt::format("function '{}' can fall off its end: its last instruction is not an "
                       "unconditional BRA, BRX, EXIT or RET",
                       f.name));
    f.recountRegs();
  }

  // .ptx "text"
  std::string ptxText() {
    ++pos_;
    if (cur().kind != Token::String)
      fail(cur().loc, fmt::format(".ptx takes PTX text as a string, got {}", describe(cur())));
    std::string text = take().text;
    endOfLine();
    return text;
  }

  void regDecl(Function &f) {
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

  static const ParamType *findType(std::string_view name) {
    for (const ParamType &t : kParamTypes)
      if (t.name == name)
        return &t;
    return nullptr;
  }

  // SPACE [.align N] .TYPE NAME ['[' N ']'] ['=' '{' INT, ... '}']
  void variable(std::vector<Variable> &vars, const std::vector<Param> &params) {
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
        if (cur().kind == Token::Word) { // an address: SYMBOL[+-N] or generic(SYMBOL)[+-N]
          Variable::AddrInit a;
          a.offset = uint32_t(v.init.size());
          a.symbol = take().text;
          if (a.symbol == "generic" && accept('(')) {
            a.generic = true;
            a.symbol = word("a symbol in 'generic('");
            expect(')', "after the symbol");
          }
          if (v.elemSize < 4)
            fail(loc,
                 fmt::format("an address needs 4 or 8 bytes; '{}' has {}", v.name, v.elemSize));
          bool minus = isPunct('-');
          if (minus || isPunct('+')) {
            ++pos_;
            uint64_t n = integer("an offset");
            a.addend = int64_t(minus ? 0 - n : n);
          }
          v.addrInit.push_back(std::move(a));
          v.init.resize(v.init.size() + v.elemSize, 0);
          continue;
        }
        bool minus = accept('-');
        uint64_t x = integer("an integer initializer");
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

  void jumpTable(Function &f, std::vector<std::vector<std::pair<std::string, SrcLoc>>> &labels) {
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

  Instr instruction(Function &f, uint32_t bix, std::vector<Fixup> &labelFixups,
                    std::vector<Fixup> &tableFixups) {
    Instr in;
    in.loc = cur().loc;
    if (accept('@')) {
      bool neg = accept('!');
      SrcLoc loc = cur().loc;
      Operand g = operand(K_PRED, false, nullptr, Role::Guard);
      if (g.kind != Operand::Kind::Reg || !g.reg.isPredicate())
        fail(loc, "a guard must be a predicate register such as P0");
      g.neg = neg;
      in.guard = g;
    }
    Token mnemTok = cur();
    std::string mnem = word("an instruction mnemonic");
    std::string_view base = std::string_view(mnem).substr(0, mnem.find('.'));
    auto op = opcodeFromName(base);
    if (!op)
      fail(mnemTok.loc, fmt::format("unknown mnemonic '{}'", base));
    in.op = *op;
    const OpInfo &info = in.info();
    modifiers(in, mnem, mnemTok.loc);
    if (in.op == Opcode::OPAQUE) {
      opaque(in);
      return in;
    }
    if (in.op == Opcode::CALL) {
      call(f, in, bix);
      return in;
    }

    size_t nd = dstCount(in.op, in.mods), ns = info.srcs.size();
    std::vector<SrcLoc> locs;
    std::set<size_t> big; // sources written as integers above INT64_MAX
    if (cur().kind != Token::Newline && cur().kind != Token::Eof && !isPunct(';')) {
      do {
        size_t k = locs.size();
        locs.push_back(cur().loc);
        if (k >= nd + ns)
          fail(cur().loc,
               fmt::format("too many operands: {} takes at most {}", info.name, nd + ns));
        bool isDst = k < nd;
        const OperandSlot &slot = isDst ? info.dsts[k] : info.srcs[k - nd];
        std::string ref;
        lastBig_ = false;
        Operand o = operand(slot.kinds, !isDst, &ref);
        if (!ref.empty()) {
          Fixup fx{bix, uint32_t(f.blocks[bix].instrs.size()), uint32_t(k - nd), ref, locs.back()};
          (o.kind == Operand::Kind::Label ? labelFixups : tableFixups).push_back(fx);
        }
        checkKind(info, k, isDst, slot, o, locs.back());
        if (o.kind == Operand::Kind::Symbol || (o.kind == Operand::Kind::Mem && !o.sym.empty()))
          noteSymbol(f, bix, isDst, isDst ? k : k - nd, locs.back());
        if (lastBig_)
          big.insert(k - nd);
        if (isDst)
          in.dsts.push_back(o);
        else
          in.srcs.push_back(o);
      } while (accept(','));
    }
    if (locs.size() < nd + info.minSrcs())
      fail(afterPrevious(), fmt::format("{} takes {} operands, got {}", info.name,
                                        nd + info.minSrcs(), locs.size()));
    for (size_t k = 0; k < in.srcs.size(); ++k)
      checkImmediate(in, k, big.count(k) > 0, locs[nd + k]);
    if (std::optional<ShapeProblem> p = checkShape(in))
      fail(p->operand < locs.size() ? locs[p->operand] : mnemTok.loc, p->message);
    return in;
  }

  void modifiers(Instr &in, std::string_view mnem, SrcLoc loc) {
    const OpInfo &info = in.info();
    size_t i = mnem.find('.');
    while (i != std::string_view::npos) {
      size_t end = mnem.find('.', i + 1);
      std::string_view text = mnem.substr(i + 1, end == std::string_view::npos ? end : end - i - 1);
      SrcLoc at{loc.line, loc.col + uint32_t(i)};
      i = end;
      // Two modifiers of an opcode share a spelling only in different groups (IMMA's A and
      // B types, IMMA.16832.S8.U8): the text takes the first whose group is still free.
      std::optional<Mod> found;
      for (Mod m : info.allowedMods.list())
        if (modText(m) == text &&
            (!found || (in.mods.inGroup(modGroup(*found)) && !in.mods.inGroup(modGroup(m)))))
          found = m;
      if (!found)
        fail(at, fmt::format("unknown modifier '.{}' for {}", text, info.name));
      if (in.mods.test(*found))
        fail(at, fmt::format("modifier '.{}' is repeated", text));
      if (auto other = in.mods.inGroup(modGroup(*found)))
        fail(at, fmt::format("modifiers '.{}' and '.{}' of {} exclude each other", modText(*other),
                             text, info.name));
      in.mods.set(*found);
    }
  }

  void noteSymbol(const Function &f, uint32_t bix, bool dst, size_t k, SrcLoc loc) {
    symbolUses_.push_back(
        {curFunction_, bix, uint32_t(f.blocks[bix].instrs.size()), dst, uint32_t(k), loc});
  }

  // CALL [(ret, ...),] target [, (arg, ...)]
  void call(Function &f, Instr &in, uint32_t bix) {
    // .param variables, or R registers (calls that pass registers).
    auto symbols = [&](auto &out, bool isDst) {
      if (accept(')'))
        return;
      do {
        Token t = cur();
        bool big = false;
        if (t.kind == Token::Word && (parseRegName(t.text, &big) || names_.count(t.text))) {
          Operand o = operand(K_REG, !isDst, nullptr);
          if (o.kind != Operand::Kind::Reg || !o.reg.isGeneral() || o.neg || o.abs)
            fail(t.loc, "a CALL argument or result register must be an R register");
          out.push_back(o);
          continue;
        }
        std::string name = word("a .param variable");
        checkName(t, "variable");
        noteSymbol(f, bix, isDst, out.size(), t.loc);
        out.push_back(Operand::symbol(name));
      } while (accept(','));
      expect(')', "to close the list");
    };
    if (accept('(')) {
      symbols(in.dsts, true);
      expect(',', "after the return list");
    }
    SrcLoc loc = cur().loc;
    Operand target = operand(K_SYM, true, nullptr);
    if (target.kind != Operand::Kind::Symbol &&
        !(target.kind == Operand::Kind::Reg && target.reg.isGeneral()))
      fail(loc, "CALL needs a function name or an R register as its target");
    if (target.neg || target.abs)
      fail(loc, "a CALL target cannot be negated");
    if (target.kind == Operand::Kind::Symbol)
      noteSymbol(f, bix, false, 0, loc);
    in.srcs.push_back(std::move(target));
    if (accept(',')) {
      expect('(', "to open the argument list");
      symbols(in.srcs, false);
    }
  }

  void opaque(Instr &in) {
    if (cur().kind != Token::String)
      fail(cur().loc, fmt::format("OPAQUE takes its text as a string, got {}", describe(cur())));
    in.opaqueText = take().text;
    auto list = [&](std::string_view key, auto &out) {
      if (cur().kind != Token::Word || cur().text != key)
        return;
      ++pos_;
      expect('(', fmt::format("after '{}'", key));
      if (!accept(')')) {
        do {
          SrcLoc loc = cur().loc;
          if (isPunct('-') || isPunct('|') || isPunct('!'))
            fail(loc, fmt::format("'{}' lists registers only", key));
          Operand o = operand(K_REG | K_PRED | K_BAR, false, nullptr);
          if (o.kind != Operand::Kind::Reg)
            fail(loc, fmt::format("'{}' lists registers only", key));
          if (o.reg.isConst())
            fail(loc, fmt::format("'{}' cannot list a constant register", key));
          out.push_back(o);
        } while (accept(','));
        expect(')', fmt::format("to close '{}'", key));
      }
    };
    list("def", in.dsts);
    list("use", in.srcs);
  }

  // Parses one operand. `kinds` says what the slot accepts (to tell a label
  // from a jump table or a symbol); `ref` receives a label or table name to fix up.
  enum class Role { Source, Dest, Guard };
  Operand operand(uint16_t kinds, bool isSrc, std::string *ref, Role role = Role::Source) {
    if (!isSrc && role == Role::Source)
      role = Role::Dest;
    SrcLoc loc = cur().loc;
    bool neg = false, abs = false;
    if (isPunct('-') && (ahead(1).kind == Token::Int || ahead(1).kind == Token::Float)) {
      ++pos_;
      Token t = take();
      if (t.kind == Token::Float)
        return Operand::floatImm(-t.fval);
      if (t.ival > (uint64_t(1) << 63))
        fail(loc, fmt::format("integer '-{}' does not fit in 64 bits", t.text));
      return Operand::immediate(int64_t(0 - t.ival));
    }
    bool bang = accept('!');
    if (bang || accept('-'))
      neg = true;
    if (accept('|'))
      abs = true;
    if (role == Role::Guard && (abs || (neg && !bang)))
      fail(loc, "a predicate is negated with '!'");
    if (!isSrc && (neg || abs))
      fail(loc, "a destination cannot be negated");
    Operand o = core(kinds, ref);
    if (abs)
      expect('|', "to close '|'");
    bool isPred = o.kind == Operand::Kind::Reg && o.reg.isPredicate();
    if (bang && !isPred)
      fail(loc, "'!' negates predicates only");
    if (neg && !bang && isPred)
      fail(loc, "a predicate is negated with '!'");
    o.neg = neg;
    o.abs = abs;
    if ((neg || abs) && o.kind != Operand::Kind::Reg && o.kind != Operand::Kind::CBank)
      fail(loc, "only registers and constant-bank operands can be negated");
    return o;
  }

  Operand core(uint16_t kinds, std::string *ref) {
    const Token &t = cur();
    SrcLoc loc = t.loc;
    if (t.kind == Token::Int) {
      lastBig_ = t.ival > uint64_t(INT64_MAX);
      ++pos_;
      return Operand::immediate(int64_t(t.ival));
    }
    if (t.kind == Token::Float) {
      ++pos_;
      return Operand::floatImm(t.fval);
    }
    if (isPunct('['))
      return memory();
    if (t.kind != Token::Word)
      fail(loc, fmt::format("expected an operand, got {}", describe(t)));
    if (t.text == "c" && ahead(1).kind == Token::Punct && ahead(1).text == "[")
      return cbank();
    bool big = false;
    if (auto r = parseRegName(t.text, &big)) {
      if (big)
        fail(loc, fmt::format("register number in '{}' is too large", t.text));
      ++pos_;
      return Operand::reg_(*r);
    }
    if (t.text.starts_with("SR_")) {
      auto s = specialRegFromName(t.text);
      if (!s)
        fail(loc, fmt::format("unknown special register '{}'", t.text));
      ++pos_;
      return Operand::special(*s);
    }
    if (auto it = names_.find(t.text); it != names_.end()) {
      ++pos_;
      return Operand::reg_(it->second);
    }
    // A %name that is no register may still be a symbol (PTX's %VAParam); checkSymbols decides.
    if (t.text[0] == '%' && !(kinds & K_SYM))
      fail(loc, fmt::format("undeclared register '{}'", t.text));
    std::string name = take().text;
    if (kinds & K_LABEL) {
      if (ref)
        *ref = name;
      return Operand::label(0);
    }
    if (kinds & K_JTAB) {
      if (ref)
        *ref = name;
      return Operand::jumpTable(0);
    }
    if (kinds & K_SYM)
      return Operand::symbol(name);
    fail(loc, fmt::format("'{}' is not a register, and this operand must be {}", name,
                          describeKinds(kinds)));
  }

  std::optional<Reg> indexReg() {
    if (cur().kind != Token::Word)
      return std::nullopt;
    SrcLoc loc = cur().loc;
    bool big = false;
    std::optional<Reg> r = parseRegName(cur().text, &big);
    if (!r) {
      auto it = names_.find(cur().text);
      if (it == names_.end())
        return std::nullopt;
      r = it->second;
    }
    if (big)
      fail(loc, fmt::format("register number in '{}' is too large", cur().text));
    if (!r->isGeneral())
      fail(loc, "an address register must be of file R or UR");
    ++pos_;
    return r;
  }

  // Reads "+ INT" or "- INT" (or nothing) and returns the signed offset.
  int64_t offset(int64_t lo, int64_t hi) {
    if (!isPunct('+') && !isPunct('-'))
      return 0;
    bool minus = take().text == "-";
    SrcLoc loc = cur().loc;
    uint64_t v = integer("an offset");
    if (v > uint64_t(INT64_MAX))
      fail(loc, "offset does not fit");
    int64_t s = minus ? -int64_t(v) : int64_t(v);
    if (s < lo || s > hi)
      fail(loc, fmt::format("offset {} is out of range [{}, {}]", s, lo, hi));
    return s;
  }

  Operand cbank() {
    pos_ += 2; // c [
    SrcLoc loc = cur().loc;
    uint64_t bank = integer("a constant bank number");
    if (bank > 17)
      fail(loc, "constant bank number must be at most 17");
    expect(']', "after the bank number");
    expect('[', "before the bank offset");
    std::optional<Reg> r = indexReg();
    int64_t off = 0;
    if (!r) {
      loc = cur().loc;
      uint64_t v = integer("a constant bank offset");
      if (v > 0xFFFF)
        fail(loc, "constant bank offset must be at most 0xffff");
      off = int64_t(v);
    } else {
      off = offset(-0x8000, 0xFFFF);
    }
    expect(']', "to close the constant bank offset");
    Operand o = Operand::cbank(uint32_t(bank), off);
    o.hasReg = r.has_value();
    if (r)
      o.reg = *r;
    return o;
  }

  Operand memory() {
    ++pos_; // [
    std::optional<Reg> base = indexReg();
    std::string sym;
    if ((base && isPunct('+') && ahead(1).kind == Token::Word) ||
        (!base && cur().kind == Token::Word)) {
      if (base)
        ++pos_;
      Token t = cur();
      sym = word("a symbol");
      checkName(t, "symbol");
    }
    int64_t off = 0;
    if (!base && sym.empty()) {
      SrcLoc loc = cur().loc;
      uint64_t v = integer("an address");
      if (v > 0xFFFFFFFFull)
        fail(loc, "an absolute address must fit in 32 bits");
      off = int64_t(v);
    } else {
      off = offset(INT32_MIN, INT32_MAX);
    }
    expect(']', "to close the address");
    return Operand::mem(base, off, sym);
  }

  void checkKind(const OpInfo &info, size_t k, bool isDst, const OperandSlot &slot,
                 const Operand &o, SrcLoc loc) {
    uint16_t bit = o.kindBit();
    std::string got = o.kind == Operand::Kind::Reg
                          ? fmt::format("{} register", regFilePrefix(o.reg.file))
                          : describeKinds(bit);
    if (!(slot.kinds & bit))
      fail(loc, fmt::format("{} {} of {} must be {}, got {}", isDst ? "destination" : "operand",
                            k + 1, info.name, describeKinds(slot.kinds), got));
    if (o.kind == Operand::Kind::Reg && o.neg && !o.reg.isPredicate() && !info.is(INEG | FNEG))
      fail(loc, fmt::format("{} does not take negated operands", info.name));
    if (o.kind == Operand::Kind::Reg && o.reg.isPredicate() && o.abs)
      fail(loc, "a predicate cannot take '|..|'");
    if (o.abs && !info.is(FNEG))
      fail(loc, fmt::format("{} does not take '|..|' operands", info.name));
    if (o.kind == Operand::Kind::CBank && o.neg && !info.is(INEG | FNEG))
      fail(loc, fmt::format("{} does not take negated operands", info.name));
  }

  // Integer immediates must fit the width the instruction gives them.
  void checkImmediate(const Instr &in, size_t k, bool big, SrcLoc loc) {
    const Operand &o = in.srcs[k];
    if (o.kind != Operand::Kind::Imm)
      return;
    unsigned bits = immediateBits(in, k);
    if (bits == 8) {
      if (big || o.imm < 0 || o.imm > 0xFF)
        fail(loc, fmt::format("truth table {} does not fit in 8 bits", o.imm));
      return;
    }
    if (bits == 64)
      return;
    if (big || o.imm < INT32_MIN || o.imm > int64_t(UINT32_MAX))
      fail(loc, big ? fmt::format("integer {} does not fit in 32 bits", uint64_t(o.imm))
                    : fmt::format("integer {} does not fit in 32 bits", o.imm));
  }

  std::vector<Token> toks_;
  std::string file_;
  size_t pos_ = 0;
  std::map<std::string, Reg> names_; // register names of the current function
  uint32_t curFunction_ = 0;         // index the current function will have in the module
  bool lastBig_ = false;
};

} // namespace

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
