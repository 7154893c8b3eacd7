// The PTX parser (parser_impl.h): constant expressions (PTX ISA 9.0, 4.6 "Constant
// Expressions"), where a number goes in an instruction or an initializer: `(1<<4)-1`, `4*8`,
// `(.u64)-1>>60`, `a ? b : c`, `1.5*2.0`. Evaluated as 4.6.2 and 4.6.3 define it: an integer
// literal is .s64 unless it has the U suffix or does not fit, then .u64; a float literal is
// .f64; `* / + - & ^ |` convert both operands to .u64 if either is (the "usual arithmetic
// conversions"); `%` interprets its operands as unsigned and gives a .u64 (`(-7)%(3)` is 0, as
// 2^64-7 gives); `~` gives a .u64; `<< >>` have the first operand's type (`>>` is arithmetic on
// an .s64) and take the amount as unsigned; comparisons, `!`, `&&`, `||` give an .s64 0 or 1.
// Where the ISA leaves a case open we do what ptxas 13.0 does (checked by comparing the cubin
// of `mov.u64 %rd2, EXPR` with that of `mov.u64 %rd2, VALUE`): a shift amount is taken mod 64
// (`1<<64` is 1); INT64_MIN / -1 wraps; division or remainder by zero (also 1.0/0.0) is an
// error; an integer and an .f64 operand together are an error ("type mismatch"; there is no
// implicit conversion); `% << >> & ^ | && || ! ~` and the casts need integers; a `0f` literal
// cannot be part of an expression (ptxas: syntax error; a lone 0f literal is read as before).
// The .f64 operations are IEEE binary64, round to nearest even; `-x` flips the sign bit.
// The recursion is bounded: nesting deeper than kMaxExprDepth is an error.
#include <bit>

#include "ptx/parser_impl.h"

namespace ori::ptx::parser_detail {
namespace {
constexpr int kMaxExprDepth = 128;

std::string_view spelling(char op) {
  switch (op) {
  case 'L':
    return "<<";
  case 'R':
    return ">>";
  case 'l':
    return "<=";
  case 'g':
    return ">=";
  case '=':
    return "==";
  case '!':
    return "!=";
  case 'A':
    return "&&";
  case 'O':
    return "||";
  case '*':
    return "*";
  case '/':
    return "/";
  case '%':
    return "%";
  case '+':
    return "+";
  case '-':
    return "-";
  case '<':
    return "<";
  case '>':
    return ">";
  case '&':
    return "&";
  case '^':
    return "^";
  case '|':
    return "|";
  default:
    return "?";
  }
}
} // namespace

using Value = ExprValue;

// True when the tokens ahead start a constant expression rather than one literal: a unary
// operator or '(' before a number, or a number followed by a binary operator.
bool Parser::startsExpression(size_t k) {
  const Token &t = peek(k);
  if (t.kind == Tok::LParen || t.kind == Tok::Plus)
    return true;
  if (t.kind == Tok::Other && (spell(t) == "~"))
    return true;
  if (t.kind == Tok::Bang)
    return is(Tok::Int, k + 1) || is(Tok::Float, k + 1) || is(Tok::LParen, k + 1) ||
           is(Tok::Bang, k + 1);
  if (t.kind == Tok::Minus)
    return is(Tok::LParen, k + 1) || is(Tok::Int, k + 1) || is(Tok::Minus, k + 1);
  return t.kind == Tok::Int;
}

// A literal or a constant expression: an Int operand with its value, or a Float operand with
// binary64 bits. A lone float literal (optionally negated) keeps its exact bits and 0f form.
Operand Parser::number() {
  const SrcLoc at = loc(peek());
  exprDepth_ = 0;
  Value v;
  if (is(Tok::Float) || (is(Tok::Minus) && is(Tok::Float, 1))) {
    Operand o = literal();
    const bool more = binaryOperator() != 0 || (is(Tok::Other) && spell(peek()) == "?");
    if (!more)
      return o;
    if (o.floatIsF32)
      lx_.failAt(at.line, at.col,
                 "a 0f literal cannot be part of a constant expression (ptxas rejects it); write "
                 "it as 0d");
    v = ternaryFrom(binaryFrom(Value{uint64_t(o.ival), false, true}, 1));
  } else {
    v = ternary();
  }
  Operand o;
  o.loc = at;
  o.ival = static_cast<int64_t>(v.v);
  if (v.isFloat) {
    o.kind = Operand::Kind::Float;
    o.fval = std::bit_cast<double>(v.v);
  } else {
    o.kind = Operand::Kind::Int;
  }
  return o;
}

// The binary operator ahead as one code ('*', '/', '%', '+', '-', 'L' <<, 'R' >>, '<', '>',
// 'l' <=, 'g' >=, '=' ==, '!' !=, '&', '^', '|', 'A' &&, 'O' ||), or 0. Two-character
// operators are two adjacent tokens.
char Parser::binaryOperator() {
  const Token &t = peek();
  auto adjacent = [&](Tok k) { return is(k, 1) && peek(1).begin == t.end; };
  auto other = [&](size_t k, std::string_view s) {
    return peek(k).kind == Tok::Other && spell(peek(k)) == s;
  };
  switch (t.kind) {
  case Tok::Plus:
    return '+';
  case Tok::Minus:
    return '-';
  case Tok::Lt:
    return adjacent(Tok::Lt) ? 'L' : adjacent(Tok::Eq) ? 'l' : '<';
  case Tok::Gt:
    return adjacent(Tok::Gt) ? 'R' : adjacent(Tok::Eq) ? 'g' : '>';
  case Tok::Eq:
    return adjacent(Tok::Eq) ? '=' : 0;
  case Tok::Bang:
    return adjacent(Tok::Eq) ? '!' : 0;
  case Tok::Pipe:
    return adjacent(Tok::Pipe) ? 'O' : '|';
  case Tok::Other:
    if (other(0, "*"))
      return '*';
    if (other(0, "/"))
      return '/';
    if (other(0, "%"))
      return '%';
    if (other(0, "^"))
      return '^';
    if (other(0, "&"))
      return other(1, "&") && peek(1).begin == t.end ? 'A' : '&';
    return 0;
  default:
    return 0;
  }
}

namespace {
// PTX ISA 4.6.1, Table "Operator Precedence" (C's).
int precedence(char op) {
  switch (op) {
  case '*':
  case '/':
  case '%':
    return 10;
  case '+':
  case '-':
    return 9;
  case 'L':
  case 'R':
    return 8;
  case '<':
  case '>':
  case 'l':
  case 'g':
    return 7;
  case '=':
  case '!':
    return 6;
  case '&':
    return 5;
  case '^':
    return 4;
  case '|':
    return 3;
  case 'A':
    return 2;
  case 'O':
    return 1;
  default:
    return 0;
  }
}

bool lessThan(Value a, Value b) {
  if (a.isFloat)
    return std::bit_cast<double>(a.v) < std::bit_cast<double>(b.v);
  return a.isUnsigned || b.isUnsigned ? a.v < b.v : int64_t(a.v) < int64_t(b.v);
}

bool equal(Value a, Value b) {
  return a.isFloat ? std::bit_cast<double>(a.v) == std::bit_cast<double>(b.v) : a.v == b.v;
}

Value boolean(bool b) { return {uint64_t(b), false, false}; }

// + - * / on two .f64 values (the host's binary64 arithmetic rounds to nearest even).
uint64_t floatArith(char op, uint64_t a, uint64_t b) {
  const double x = std::bit_cast<double>(a), y = std::bit_cast<double>(b);
  double r = 0;
  switch (op) {
  case '+':
    r = x + y;
    break;
  case '-':
    r = x - y;
    break;
  case '*':
    r = x * y;
    break;
  default:
    r = x / y;
    break;
  }
  return std::bit_cast<uint64_t>(r);
}
} // namespace

Value Parser::ternary() {
  if (++exprDepth_ > kMaxExprDepth)
    lx_.fail(peek(), "constant expression nested too deeply");
  Value c = ternaryFrom(binary(1));
  --exprDepth_;
  return c;
}

// cond ? a : b (right-associative) after its condition. The condition is an integer; a and b
// are both integers (converted as for `+`) or both .f64 (ISA 4.6.2; ptxas 13.0 rejects the
// .f64 form, which we read as the ISA defines it).
Value Parser::ternaryFrom(Value c) {
  if (!(is(Tok::Other) && spell(peek()) == "?"))
    return c;
  const Token q = next();
  if (c.isFloat)
    lx_.fail(q, "the condition of '?:' in a constant expression must be an integer");
  Value a = ternary();
  const Token colon = expect(Tok::Colon, "':' in the conditional expression");
  Value b = ternary();
  if (a.isFloat != b.isFloat)
    lx_.fail(colon,
             "constant expression type mismatch: '?:' has an integer and a floating-point branch");
  const bool u = a.isUnsigned || b.isUnsigned;
  return Value{c.v ? a.v : b.v, u && !a.isFloat, a.isFloat};
}

Value Parser::binary(int minPrec) { return binaryFrom(unary(), minPrec); }

// Operators of at least `minPrec` after `lhs`, left-associative (precedence climbing).
Value Parser::binaryFrom(Value lhs, int minPrec) {
  for (;;) {
    const char op = binaryOperator();
    const int prec = precedence(op);
    if (op == 0 || prec < minPrec)
      return lhs;
    const Token at = next();
    if (op == 'L' || op == 'R' || op == 'l' || op == 'g' || op == '=' || op == '!' || op == 'A' ||
        op == 'O')
      next();
    Value rhs = binary(prec + 1);
    if (lhs.isFloat != rhs.isFloat)
      lx_.fail(at, fmt::format("constant expression type mismatch: '{}' has an integer and a "
                               "floating-point operand",
                               spelling(op)));
    if (lhs.isFloat) {
      switch (op) {
      case '/':
        if (std::bit_cast<double>(rhs.v) == 0)
          lx_.fail(at, "division by zero in a constant expression");
        [[fallthrough]];
      case '+':
      case '-':
      case '*':
        lhs = {floatArith(op, lhs.v, rhs.v), false, true};
        continue;
      case '<':
        lhs = boolean(lessThan(lhs, rhs));
        continue;
      case '>':
        lhs = boolean(lessThan(rhs, lhs));
        continue;
      case 'l':
        lhs = boolean(lessThan(lhs, rhs) || equal(lhs, rhs));
        continue; // false on NaN
      case 'g':
        lhs = boolean(lessThan(rhs, lhs) || equal(lhs, rhs));
        continue;
      case '=':
        lhs = boolean(equal(lhs, rhs));
        continue;
      case '!':
        lhs = boolean(!equal(lhs, rhs));
        continue;
      default:
        lx_.fail(at,
                 fmt::format("'{}' needs integer operands in a constant expression", spelling(op)));
      }
    }
    const bool u = lhs.isUnsigned || rhs.isUnsigned;
    Value r{0, u};
    switch (op) {
    case '*':
      r.v = lhs.v * rhs.v;
      break;
    case '+':
      r.v = lhs.v + rhs.v;
      break;
    case '-':
      r.v = lhs.v - rhs.v;
      break;
    case '/':
    case '%':
      if (rhs.v == 0)
        lx_.fail(at, "division by zero in a constant expression");
      if (op == '%')
        r = {lhs.v % rhs.v, true}; // ISA 4.6.2: the operands are unsigned
      else if (u)
        r.v = lhs.v / rhs.v;
      else if (int64_t(lhs.v) == INT64_MIN && int64_t(rhs.v) == -1)
        r.v = lhs.v; // wraps
      else
        r.v = uint64_t(int64_t(lhs.v) / int64_t(rhs.v));
      break;
    case 'L':
      r = {lhs.v << (rhs.v & 63), lhs.isUnsigned};
      break;
    case 'R':
      r = {lhs.isUnsigned ? lhs.v >> (rhs.v & 63) : uint64_t(int64_t(lhs.v) >> (rhs.v & 63)),
           lhs.isUnsigned};
      break;
    case '<':
      r = boolean(lessThan(lhs, rhs));
      break;
    case '>':
      r = boolean(lessThan(rhs, lhs));
      break;
    case 'l':
      r = boolean(!lessThan(rhs, lhs));
      break;
    case 'g':
      r = boolean(!lessThan(lhs, rhs));
      break;
    case '=':
      r = boolean(lhs.v == rhs.v);
      break;
    case '!':
      r = boolean(lhs.v != rhs.v);
      break;
    case '&':
      r.v = lhs.v & rhs.v;
      break;
    case '^':
      r.v = lhs.v ^ rhs.v;
      break;
    case '|':
      r.v = lhs.v | rhs.v;
      break;
    case 'A':
      r = boolean(lhs.v && rhs.v);
      break;
    case 'O':
      r = boolean(lhs.v || rhs.v);
      break;
    }
    lhs = r;
  }
}

// - + ! ~ (.s64) (.u64), a literal, or a parenthesized expression.
Value Parser::unary() {
  if (++exprDepth_ > kMaxExprDepth)
    lx_.fail(peek(), "constant expression nested too deeply");
  Value v;
  const Token t = peek();
  if (t.kind == Tok::Minus || t.kind == Tok::Plus || t.kind == Tok::Bang ||
      (t.kind == Tok::Other && spell(t) == "~")) {
    next();
    const bool operand = is(Tok::Int) || is(Tok::LParen) || is(Tok::Minus) || is(Tok::Plus) ||
                         is(Tok::Bang) || is(Tok::Float) ||
                         (is(Tok::Other) && spell(peek()) == "~");
    if (!operand)
      expected(fmt::format("a number after '{}'", spell(t)));
    v = unary();
    if ((t.kind == Tok::Bang || t.kind == Tok::Other) && v.isFloat)
      lx_.fail(t, fmt::format("'{}' needs an integer operand in a constant expression", spell(t)));
    if (t.kind == Tok::Minus)
      v.v = v.isFloat ? v.v ^ (1ull << 63) : 0 - v.v;
    else if (t.kind == Tok::Bang)
      v = boolean(v.v == 0);
    else if (t.kind == Tok::Other)
      v = {~v.v, true}; // ISA 4.6.2: `~` gives a .u64
  } else if (t.kind == Tok::LParen && is(Tok::Dir, 1) && is(Tok::RParen, 2) &&
             (spell(peek(1)) == ".s64" || spell(peek(1)) == ".u64")) {
    next();
    const bool u = spell(next()) == ".u64";
    next();
    v = unary();
    if (v.isFloat)
      lx_.fail(t, "a cast in a constant expression needs an integer operand");
    v.isUnsigned = u;
  } else if (t.kind == Tok::LParen) {
    next();
    v = ternary();
    expect(Tok::RParen, "')' in the constant expression");
  } else if (t.kind == Tok::Int) {
    next();
    v = {t.ival, t.unsignedLiteral || t.ival > uint64_t(INT64_MAX)};
  } else if (t.kind == Tok::Float) {
    if (t.f32)
      lx_.fail(t, "a 0f literal cannot be part of a constant expression (ptxas rejects it); write "
                  "it as 0d");
    next();
    v = {t.ival, false, true};
  } else {
    expected("a number in the constant expression");
  }
  --exprDepth_;
  return v;
}

} // namespace ori::ptx::parser_detail
