// Ori -> PTX: predicate opcodes (emit_impl.h), each as the interpreter means it
// (interp/interp_alu.cpp, docs/interpreter.md): ISETP -> setp p|q; PLOP3 -> and/or/xor/not.pred
// or a general lop3 form. The integer opcodes: ptx/emit_alu.cpp.
#include <fmt/format.h>

#include <algorithm>

#include "ir/ori.h"
#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {

// ------------------------------------------------------------------ predicates

void FnEmitter::emitSetp(const Instr &in, const std::string &cmp, const std::string &type,
                         const std::string &a, const std::string &b) {
  const std::string setp = cmp + type;
  Pred c = predSrc(in, 2);
  Mod op = in.mods.inGroup(ModGroup::BoolOp).value_or(Mod::AND);
  if (in.dsts.size() < 2)
    fail(in.loc, fmt::format("{} needs two predicate destinations", in.info().name));
  for (size_t d = 0; d < 2; ++d)
    if (in.dsts[d].kind != Operand::Kind::Reg || !in.dsts[d].reg.isPredicate())
      fail(in.loc, fmt::format("{}: destination {} must be a predicate", in.info().name, d + 1));
  bool pPT = in.dsts[0].reg.isConst(), qPT = in.dsts[1].reg.isConst();
  if (pPT && qPT)
    return; // both results dropped
  // x = r, y = !r (swapped: x = !r, y = r), the SASS/PTX "p|q" pair.
  auto plain = [&](bool swap) {
    size_t x = swap ? 1 : 0, y = swap ? 0 : 1;
    bool yPT = in.dsts[y].reg.isConst();
    std::string xs = predDst(in, x);
    if (yPT)
      emit(fmt::format("{} {}, {}, {};", setp, xs, a, b));
    else
      emit(fmt::format("{} {}|{}, {}, {};", setp, xs, predDst(in, y), a, b));
  };
  if (c.isConst) {
    auto setBoth = [&](bool v) {
      for (size_t d = 0; d < 2; ++d)
        if (!in.dsts[d].reg.isConst())
          setPred(predDst(in, d), Pred{true, v, {}, false});
    };
    if (op == Mod::AND)
      c.value ? plain(false) : setBoth(false);
    else if (op == Mod::OR)
      c.value ? setBoth(true) : plain(false);
    else
      plain(c.value); // XOR with true negates r
    return;
  }
  const char *bop = op == Mod::OR ? "or" : op == Mod::XOR ? "xor" : "and";
  std::string p = predDst(in, 0);
  if (qPT)
    emit(fmt::format("{}.{}{} {}, {}, {}, {};", cmp, bop, type, p, a, b, predText(c)));
  else
    emit(fmt::format("{}.{}{} {}|{}, {}, {}, {};", cmp, bop, type, p, predDst(in, 1), a, b,
                     predText(c)));
}

void FnEmitter::emitConstCompare(const Instr &in, bool r) {
  Pred c = predSrc(in, 2);
  Mod op = in.mods.inGroup(ModGroup::BoolOp).value_or(Mod::AND);
  if (in.dsts.size() < 2)
    fail(in.loc, fmt::format("{} needs two predicate destinations", in.info().name));
  bool pPT = in.dsts[0].reg.isConst(), qPT = in.dsts[1].reg.isConst();
  if (!c.isConst && !pPT && !qPT &&
      in.dsts[0].reg == in.srcs[2].reg) { // p is written before q reads c
    std::string t = temp(1);
    emit(fmt::format("mov.pred {}, {};", t, c.name));
    c.name = t;
  }
  auto value = [&](bool rv) {
    Pred v = c;
    if (op == Mod::AND && !rv)
      v = Pred{true, false, {}, false};
    if (op == Mod::OR && rv)
      v = Pred{true, true, {}, false};
    if (op == Mod::XOR && rv) {
      if (v.isConst)
        v.value = !v.value;
      else
        v.neg = !v.neg;
    }
    return v;
  };
  if (!pPT)
    setPred(predDst(in, 0), value(r));
  if (!qPT)
    setPred(predDst(in, 1), value(!r));
}

bool FnEmitter::emitPredicate(const Instr &in) {
  switch (in.op) {
  case Opcode::ISETP: {
    auto cmp = in.mods.inGroup(ModGroup::Cmp);
    const char *name = cmp ? compareName(*cmp) : nullptr;
    if (!name || *cmp == Mod::NUM || *cmp == Mod::NAN_ || int(*cmp) > int(Mod::GE))
      fail(in.loc,
           fmt::format("{}: ISETP needs one of .LT .EQ .LE .GT .NE .GE", printInstr(f, in)));
    auto t = intType(in, true);
    // An unsigned comparison of 16-bit registers and 16-bit immediates compares them as .u16
    // (what setp.cmp.u16 lowers to), not through 32-bit copies.
    auto narrow = [&](const Operand &o) {
      if (o.kind == Operand::Kind::Imm)
        return !o.neg && o.imm >= 0 && o.imm <= 0xffff;
      return o.kind == Operand::Kind::Reg && !o.neg && !o.abs && !o.reg.isConst() &&
             o.reg.isGeneral() && regBits(o.reg) == 16;
    };
    if (t == std::pair<unsigned, bool>{32, false} && in.srcs.size() >= 2 && narrow(in.srcs[0]) &&
        narrow(in.srcs[1]) &&
        (in.srcs[0].kind == Operand::Kind::Reg || in.srcs[1].kind == Operand::Kind::Reg))
      t.first = 16;
    std::string a = intSrc(in, 0, t.first), b = intSrc(in, 1, t.first);
    emitSetp(in, fmt::format("setp.{}", name), fmt::format(".{}", typeName(t)), a, b);
    return true;
  }
  case Opcode::PLOP3: {
    Pred x[3] = {predSrc(in, 0), predSrc(in, 1), predSrc(in, 2)};
    uint32_t luts[2] = {uint32_t(immOf(in, 3)) & 0xff, uint32_t(immOf(in, 4)) & 0xff};
    if (in.dsts.size() < 2)
      fail(in.loc, "PLOP3 needs two predicate destinations");
    for (size_t d = 0; d < 2; ++d)
      if (in.dsts[d].kind != Operand::Kind::Reg || !in.dsts[d].reg.isPredicate())
        fail(in.loc, fmt::format("PLOP3: destination {} must be a predicate", d + 1));
    // p is written first: an input it overwrites is copied for q.
    if (!in.dsts[0].reg.isConst() && !in.dsts[1].reg.isConst())
      for (Pred &p : x)
        if (!p.isConst && p.name == regName(in.dsts[0].reg)) {
          std::string t = temp(1);
          emit(fmt::format("mov.pred {}, {};", t, p.name));
          p.name = t;
        }
    std::map<std::string, std::string> words; // predicate -> its all-ones/zero word (general form)
    for (size_t d = 0; d < 2; ++d) {
      if (in.dsts[d].reg.isConst())
        continue;
      // The function of the non-constant inputs' register values.
      std::vector<size_t> vars;
      for (size_t k = 0; k < 3; ++k)
        if (!x[k].isConst)
          vars.push_back(k);
      std::vector<bool> table(size_t(1) << vars.size());
      for (size_t v = 0; v < table.size(); ++v) {
        unsigned idx = 0;
        for (size_t k = 0; k < 3; ++k) {
          bool bit;
          if (x[k].isConst)
            bit = x[k].value;
          else {
            size_t j = std::find(vars.begin(), vars.end(), k) - vars.begin();
            bit = ((v >> (vars.size() - 1 - j)) & 1) != x[k].neg;
          }
          idx |= unsigned(bit) << (2 - k);
        }
        table[v] = (luts[d] >> idx) & 1;
      }
      // Drop inputs the function does not depend on.
      for (size_t j = vars.size(); j-- > 0;) {
        size_t bit = vars.size() - 1 - j;
        bool depends = false;
        for (size_t v = 0; v < table.size(); ++v)
          depends |= table[v] != table[v ^ (size_t(1) << bit)];
        if (depends)
          continue;
        // Re-pack: remove `bit` from the index.
        std::vector<bool> packed(table.size() / 2);
        for (size_t v = 0; v < table.size(); ++v) {
          if ((v >> bit) & 1)
            continue;
          size_t low = v & ((size_t(1) << bit) - 1), high = v >> (bit + 1);
          packed[(high << bit) | low] = table[v];
        }
        table = std::move(packed);
        vars.erase(vars.begin() + long(j));
      }
      std::string dst = predDst(in, d);
      auto lit = [&](size_t j, bool positive) { return (positive ? "" : "!") + x[vars[j]].name; };
      if (vars.empty()) {
        setPred(dst, Pred{true, bool(table[0]), {}, false});
      } else if (vars.size() == 1) {
        setPred(dst, Pred{false, false, x[vars[0]].name, !table[1]});
      } else if (vars.size() == 2) {
        int ones = int(table[0]) + table[1] + table[2] + table[3];
        if (ones == 1 || ones == 3) {
          size_t at = 0;
          while (bool(table[at]) != (ones == 1))
            ++at;
          bool x0 = (at >> 1) & 1, y0 = at & 1;
          if (ones == 1)
            emit(fmt::format("and.pred {}, {}, {};", dst, lit(0, x0), lit(1, y0)));
          else
            emit(fmt::format("or.pred {}, {}, {};", dst, lit(0, !x0), lit(1, !y0)));
        } else { // depends on both with two ones: x ^ y or its complement
          emit(fmt::format("xor.pred {}, {}, {};", dst, lit(0, true), lit(1, !table[0])));
        }
      } else {
        // General: the inputs as all-ones/zero words through lop3.
        std::string w[3];
        for (size_t j = 0; j < 3; ++j) {
          std::string &word = words[x[vars[j]].name];
          if (word.empty()) {
            word = temp(32);
            emit(fmt::format("selp.b32 {}, -1, 0, {};", word, x[vars[j]].name));
          }
          w[j] = word;
        }
        unsigned lut = 0;
        for (size_t v = 0; v < 8; ++v)
          lut |= unsigned(table[v]) << v;
        std::string t = bitwise3(lut, w[0], w[1], w[2], 32);
        emit(fmt::format("setp.ne.b32 {}, {}, 0;", dst, t));
      }
    }
    return true;
  }
  default:
    return false;
  }
}

} // namespace ori::ptx::emit_detail
