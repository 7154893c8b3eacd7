// The .ori parser (ir/ori_parser_impl.h): instructions, their modifiers and operands, and the
// checks of each operand against its slot (docs/ori-format.md).
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

Instr Parser::instruction(Function &f, uint32_t bix, std::vector<Fixup> &labelFixups,
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
        fail(cur().loc, fmt::format("too many operands: {} takes at most {}", info.name, nd + ns));
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
    fail(afterPrevious(),
         fmt::format("{} takes {} operands, got {}", info.name, nd + info.minSrcs(), locs.size()));
  for (size_t k = 0; k < in.srcs.size(); ++k)
    checkImmediate(in, k, big.count(k) > 0, locs[nd + k]);
  if (std::optional<ShapeProblem> p = checkShape(in))
    fail(p->operand < locs.size() ? locs[p->operand] : mnemTok.loc, p->message);
  return in;
}

void Parser::modifiers(Instr &in, std::string_view mnem, SrcLoc loc) {
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

void Parser::noteSymbol(const Function &f, uint32_t bix, bool dst, size_t k, SrcLoc loc) {
  symbolUses_.push_back(
      {curFunction_, bix, uint32_t(f.blocks[bix].instrs.size()), dst, uint32_t(k), loc});
}

void Parser::call(Function &f, Instr &in, uint32_t bix) {
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

void Parser::opaque(Instr &in) {
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

Operand Parser::operand(uint16_t kinds, bool isSrc, std::string *ref, Role role) {
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

Operand Parser::core(uint16_t kinds, std::string *ref) {
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

std::optional<Reg> Parser::indexReg() {
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

int64_t Parser::offset(int64_t lo, int64_t hi) {
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

Operand Parser::cbank() {
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

Operand Parser::memory() {
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

void Parser::checkKind(const OpInfo &info, size_t k, bool isDst, const OperandSlot &slot,
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

void Parser::checkImmediate(const Instr &in, size_t k, bool big, SrcLoc loc) {
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

} // namespace ori::ori_parser_detail
