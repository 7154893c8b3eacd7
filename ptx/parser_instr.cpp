// The PTX parser (parser_impl.h): instructions and their operands.
#include "ptx/parser_impl.h"

namespace ori::ptx::parser_detail {

// --- instructions -------------------------------------------------------
// Lists are gathered in scratch vectors and copied once, exactly sized.
void Parser::instruction(Instruction &ins) {
  ins.loc = loc(peek());
  if (accept(Tok::At)) {
    Operand &g = ins.guard.emplace();
    g.loc = loc(peek());
    g.negated = accept(Tok::Bang);
    g.name = std::string(spell(expect(Tok::Ident, "a predicate after '@'")));
  }
  const Token op = expect(Tok::Ident, "an opcode");
  ins.opcode = std::string(spell(op));
  if (!isInstruction(ins.opcode))
    lx_.fail(op, fmt::format("'{}' is not a PTX ISA 9.0 instruction", ins.opcode));
  while (is(Tok::Dir) && peek().begin == lastEnd_)
    modScratch_.emplace_back(spell(next()));
  moveInto(modScratch_, ins.mods);
  if (!is(Tok::Semi)) {
    if (!canStartOperand(peek().kind) && !(is(Tok::Other) && spell(peek()) == "~"))
      expected("';' after the instruction");
    minusNames_ = ins.opcode == "vmad";
    commaList([&] { opScratch_.push_back(operand()); });
    minusNames_ = false;
    if (!is(Tok::Semi))
      expected("',' or ';' after the operand");
    moveInto(opScratch_, ins.operands);
  }
  ins.text = slice(op.begin, lastEnd_);
  next(); // ;
}

Operand Parser::operand() {
  if (is(Tok::LBrace))
    return vector();
  if (is(Tok::LBrack))
    return address();
  if (!is(Tok::LParen))
    return atom();
  // `(1<<4)-1`, `(.u64)-1`, `(1.5)*2.0`: a constant expression (a call's lists hold names or
  // nothing)
  if (is(Tok::Int, 1) || is(Tok::Float, 1) || is(Tok::Minus, 1) || is(Tok::Plus, 1) ||
      is(Tok::LParen, 1) || (is(Tok::Other, 1) && spell(peek(1)) == "~") ||
      (is(Tok::Bang, 1) && startsExpression(1)) ||
      (is(Tok::Dir, 1) && (spell(peek(1)) == ".s64" || spell(peek(1)) == ".u64")))
    return number();
  // call's lists: `(retval0)`, `(param0, param1)`, `()`
  Operand o;
  o.kind = Operand::Kind::Call;
  o.loc = loc(next());
  if (accept(Tok::RParen))
    return o;
  commaList([&] { elemScratch_.push_back(atom()); });
  expect(Tok::RParen, "',' or ')' in the argument list");
  moveInto(elemScratch_, o.elems);
  return o;
}

// `{a, b, _, d}`: the elements are atoms, never vectors.
Operand Parser::vector() {
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
Operand Parser::address() {
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
  o.ival =
      static_cast<int64_t>(static_cast<uint64_t>(o.ival) + static_cast<uint64_t>(offsetTerms()));
  while (accept(Tok::Comma))
    o.elems.push_back(is(Tok::LBrace) ? vector() : atom());
  expect(Tok::RBrack, "']' to close the address");
  return o;
}

// `+4`, `+-8`, `-8`, `+4+8` after a base: their sum (wrapping, as 64-bit addresses do).
int64_t Parser::offsetTerms() {
  uint64_t sum = 0;
  while (is(Tok::Plus) || is(Tok::Minus)) {
    const bool minus = next().kind == Tok::Minus;
    if (!is(Tok::Int) && !(is(Tok::Minus) && is(Tok::Int, 1)))
      expected("an integer offset");
    const uint64_t v = static_cast<uint64_t>(literal().ival);
    sum = minus ? sum - v : sum + v;
  }
  return static_cast<int64_t>(sum);
}

// An integer or float literal, with an optional leading '-'.
Operand Parser::literal() {
  Operand o;
  o.loc = loc(peek());
  const bool neg = accept(Tok::Minus);
  if (!is(Tok::Int) && !is(Tok::Float))
    expected("a number after '-'");
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
void Parser::componentSuffix(Operand &o) {
  if (!is(Tok::Dir) || peek().begin != lastEnd_)
    return;
  const std::string_view s = spell(peek());
  if (s.size() == 2 && std::string_view("xyzwrgba").find(s[1]) != std::string_view::npos)
    o.name += spell(next());
  else if (isVideoSelector(s))
    o.selector = std::string(spell(next()));
}

// A video instruction's operand selector or mask (PTX ISA 9.0, "Video Instructions"):
// `.b0`..`.b3`, `.h0`, `.h1` (scalar), `.h10`-style (2-way) and `.b3210`-style (4-way).
// Kept apart from the name (Operand::selector): only the video lowering reads it.
bool Parser::isVideoSelector(std::string_view s) {
  if (s.size() < 3 || s[0] != '.' || (s[1] != 'b' && s[1] != 'h'))
    return false;
  const char top = s[1] == 'b' ? '7' : '3';
  if (s.size() - 2 > (s[1] == 'b' ? 4u : 2u))
    return false;
  for (char c : s.substr(2))
    if (c < '0' || c > top)
      return false;
  return true;
}

// A name (`%r1`, `!%p`, `sym+8`, `%tid.x`), a pair `p|q`, a sink `_`, or a literal.
Operand Parser::atom() {
  if (minusNames_ && is(Tok::Minus) && is(Tok::Ident, 1)) { // vmad's `-%r1.b0`
    Operand o;
    o.loc = loc(next());
    name(o);
    if (o.kind != Operand::Kind::Name)
      expected("a register after '-'");
    o.minus = true;
    return o;
  }
  if (is(Tok::Int) || is(Tok::Float) || is(Tok::Minus) || is(Tok::Plus) ||
      (is(Tok::Other) && spell(peek()) == "~") || (is(Tok::Bang) && startsExpression(0)))
    return number();
  Operand o;
  o.loc = loc(peek());
  o.negated = accept(Tok::Bang);
  if (!is(Tok::Ident))
    expected(o.negated ? "a predicate after '!'" : "an operand");
  name(o);
  if (o.negated || !accept(Tok::Pipe))
    return o;
  Operand pair;
  pair.kind = Operand::Kind::Pair;
  pair.loc = o.loc;
  pair.elems.push_back(std::move(o));
  Operand &second = pair.elems.emplace_back();
  second.loc = loc(peek());
  if (!is(Tok::Ident))
    expected("a predicate after '|'");
  name(second);
  return pair;
}

void Parser::name(Operand &o) {
  o.name = std::string(spell(next()));
  if (o.name == "_" && !o.negated) {
    o.kind = Operand::Kind::Sink;
    return;
  }
  if (o.name == "WARP_SZ" && !o.negated) { // the predefined constant (PTX ISA 9.0, 5.4.1): 32
    o.kind = Operand::Kind::Int;
    o.ival = 32;
    return;
  }
  o.kind = Operand::Kind::Name;
  componentSuffix(o);
  if (!o.negated && is(Tok::LBrack) && o.name[0] != '%')
    arrayIndex(o); // no offset may follow: ptxas 13.0 rejects `a[1]+4` ("syntax error")
  else if (!o.negated)
    o.ival = offsetTerms();
}

// `a[1]`, `a[N-1]`: an element of an array by a constant index (Operand::indexed). A register
// index (`a[%r1]`) is an error: ptxas scales it by the element size in 32-bit arithmetic
// (its SASS is a LEA by 2 for a .u32 array, the carry into the high half from RZ), a form
// the lowering does not make.
void Parser::arrayIndex(Operand &o) {
  next(); // [
  if (is(Tok::Ident))
    lx_.fail(peek(), fmt::format("a register index into an array ('{}[{}]') is not read: "
                                 "compute the address and write [%rd]",
                                 o.name, spell(peek())));
  const Operand k = number();
  if (k.kind != Operand::Kind::Int)
    lx_.failAt(k.loc.line, k.loc.col, "an array index must be an integer");
  expect(Tok::RBrack, "']' to close the array index");
  if (is(Tok::LBrack))
    lx_.fail(peek(), "an index into an array of arrays is not read: write the address as "
                     "[sym+offset]");
  o.indexed = true;
  o.index = k.ival;
}

} // namespace ori::ptx::parser_detail
