// The PTX parser (parser_impl.h): declarations and their initializers.
#include "ptx/parser_impl.h"

namespace ori::ptx::parser_detail {

// --- declarations -------------------------------------------------------
// The state space and the words before the name, in any order:
// `.shared .align 16 .v4 .f32`, `.param .u64 .ptr .global .align 4`,
// `.global .attribute(.managed) .s32`.
void Parser::declHead(Variable &v) {
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
      if (!v.type.empty())
        lx_.fail(t, fmt::format("second type '{}' in the declaration", s));
      v.type = std::string(s);
    } else if (s == ".attribute") {
      expect(Tok::LParen, "'(' after '.attribute'");
      while (is(Tok::Dir))
        next();
      expect(Tok::RParen, "')' after the attributes");
      v.attrs.push_back(slice(t.begin, lastEnd_));
    } else {
      v.attrs.emplace_back(s);
    }
  }
  if (v.type.empty())
    expected("a type in the declaration");
}

// The name and what follows it: `%r<10>`, `x[4][8]`, `t[]`.
void Parser::declName(Variable &v, bool allowRange) {
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
    if (is(Tok::RBrack))
      v.dims.emplace_back(std::nullopt);
    else
      v.dims.emplace_back(expectInt("an array size or ']'"));
    expect(Tok::RBrack, "']' after the array size");
  }
}

// A `;`-terminated declaration of one or more names, one Variable each, made
// where `newVar()` says. With several names each text is the shared head plus its name.
void Parser::declaration(std::vector<std::string> attrs, const Token &start,
                         const std::function<Variable &()> &newVar) {
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
                                   "bytes",
                                   kMaxSharedHead));
    Variable &v = newVar();
    v = head;
    declName(v, true);
    if (is(Tok::Eq))
      initializer(v);
    v.text = first ? slice(start.begin, lastEnd_)
                   : slice(start.begin, headEnd) + " " + slice(nameBegin, lastEnd_);
    first = false;
  });
  expect(Tok::Semi, "',' or ';' after the declaration");
}

// `= 5`, `= {1, 2, 3}`, `= {{1, 2}, {3, 4}}`, `= generic(sym)+4`, `= {0f3F800000}`;
// nested braces are flattened.
void Parser::initializer(Variable &v) {
  next(); // =
  for (size_t depth = 0;;) {
    if (is(Tok::LBrace)) {
      if (++depth > kMaxInitDepth)
        lx_.fail(peek(), "initializer braces nested too deeply");
      next();
      continue;
    }
    v.init.push_back(initValue());
    while (depth > 0 && accept(Tok::RBrace))
      --depth;
    if (depth == 0)
      return;
    if (!accept(Tok::Comma))
      expected("',' or '}' in the initializer");
  }
}

Operand Parser::initValue() {
  const Token t = peek();
  if (t.kind == Tok::Int && is(Tok::LParen, 1)) { // 0xFF00(sym): one byte of an address
    const Operand mask = literal();
    int byte = -1;
    for (int k = 0; k < 8; ++k)
      if (uint64_t(mask.ival) == uint64_t(0xFF) << (8 * k))
        byte = k;
    if (byte < 0)
      lx_.fail(t,
               fmt::format("'{}(...)': a mask selects one byte of an address (0xFF, 0xFF00, ..., "
                           "0xFF00000000000000)",
                           spell(t)));
    next(); // (
    if (!is(Tok::Ident))
      expected("a symbol in the mask");
    Operand o = initValue();
    expect(Tok::RParen, "')' to close the mask");
    o.loc = mask.loc;
    o.maskByte = byte;
    return o;
  }
  if (t.kind == Tok::Int || t.kind == Tok::Float || t.kind == Tok::Minus || t.kind == Tok::Plus ||
      t.kind == Tok::LParen || (t.kind == Tok::Other && spell(t) == "~") ||
      (t.kind == Tok::Bang && startsExpression(0)))
    return number(); // a literal or a constant expression: `= 1+2`, `= (1<<4)-1`
  if (t.kind != Tok::Ident)
    expected("an initializer value");
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

} // namespace ori::ptx::parser_detail
