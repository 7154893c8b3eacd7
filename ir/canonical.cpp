// Canonical renaming and comparison up to names (ir/canonical.h).
#include "ir/canonical.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <map>
#include <optional>
#include <unordered_map>

#include "ir/ori.h"

namespace ori {

namespace {

class Renamer {
public:
  Reg rename(Reg r) {
    if (r.isConst())
      return r;
    auto [it, fresh] = map_[int(r.file)].try_emplace(r.num, next_[int(r.file)]);
    if (fresh)
      ++next_[int(r.file)];
    return {r.file, it->second};
  }
  void operand(Operand &o) {
    bool hasReg = o.kind == Operand::Kind::Reg ||
                  ((o.kind == Operand::Kind::CBank || o.kind == Operand::Kind::Mem) && o.hasReg);
    if (hasReg)
      o.reg = rename(o.reg);
  }

private:
  std::unordered_map<uint32_t, uint32_t> map_[kNumRegFiles];
  uint32_t next_[kNumRegFiles] = {};
};

std::string paramText(const Param &p) {
  return fmt::format(".{} {}{} (size {}, align {}, offset {})", p.type, p.name,
                     p.count ? fmt::format("[{}]", p.count) : "", p.size, p.align, p.offset);
}

std::string paramsText(const std::vector<Param> &ps) {
  std::string out;
  for (const Param &p : ps)
    out += (out.empty() ? "" : ", ") + paramText(p);
  return "(" + out + ")";
}

std::string variableText(const Variable &v) {
  std::string init;
  for (uint8_t b : v.init)
    init += fmt::format("{:02x}", b);
  return fmt::format(".{} .align {} .{} {}{}{}", spaceName(v.space), v.align, v.type, v.name,
                     v.count ? fmt::format("[{}]", v.count) : "",
                     init.empty() ? "" : " = 0x" + init);
}

template <class T, class Text>
std::optional<NameFreeDifference> firstListDifference(const std::vector<T> &a,
                                                      const std::vector<T> &b,
                                                      const std::string &what, Text text) {
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i < a.size() && i < b.size() && a[i] == b[i])
      continue;
    NameFreeDifference d;
    d.where = fmt::format("{} {}", what, i);
    d.left = i < a.size() ? text(a[i]) : "(none)";
    d.right = i < b.size() ? text(b[i]) : "(none)";
    return d;
  }
  return std::nullopt;
}

std::string signatureText(const Function &f) {
  return fmt::format("{} {}{} {}", f.isEntry ? ".entry" : ".func",
                     f.returns.empty() ? "" : paramsText(f.returns) + " ", f.name,
                     paramsText(f.params));
}

// MOV[.64] r, 0 and ISETP.NE.U32.AND p, PT, 0, 0, PT, unguarded: what --emit=ptx's
// `mov.b32 r, 0;` and `setp.ne.u32 p, 0, 0;` for a register read before written lower to.
bool writesZero(const Instr &in) {
  auto isImm = [](const Operand &o, int64_t v) {
    return o.kind == Operand::Kind::Imm && !o.neg && o.imm == v;
  };
  auto isPT = [](const Operand &o) {
    return o.kind == Operand::Kind::Reg && o.reg == PT && !o.neg;
  };
  if (in.guard || in.dsts.size() < 1 || in.dsts[0].kind != Operand::Kind::Reg ||
      in.dsts[0].reg.isConst())
    return false;
  auto mods = [](std::initializer_list<Mod> ms) {
    ModSet set;
    for (Mod m : ms)
      set.set(m);
    return set;
  };
  if (in.op == Opcode::MOV)
    return (in.mods.empty() || in.mods == mods({Mod::W64})) && in.srcs.size() == 1 &&
           isImm(in.srcs[0], 0);
  return in.op == Opcode::ISETP && in.mods == mods({Mod::NE, Mod::U32, Mod::AND}) &&
         in.dsts.size() == 2 && isPT(in.dsts[1]) && in.srcs.size() == 3 && isImm(in.srcs[0], 0) &&
         isImm(in.srcs[1], 0) && isPT(in.srcs[2]);
}

bool targetsEntry(const Function &f) {
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs)
      for (const Operand &o : in.srcs)
        if (o.kind == Operand::Kind::Label && o.target == 0)
          return true;
  for (const JumpTable &t : f.jumpTables)
    if (std::find(t.targets.begin(), t.targets.end(), 0u) != t.targets.end())
      return true;
  return false;
}

// Drops the entry block's leading writes of zero (and the entry block, when that empties it and
// it is not the only one). Every register starts at zero (docs/interpreter.md: each thread and
// each called function), so at entry these writes change nothing; bix0 must not be a branch
// target, or they would run again. --emit=ptx writes such a prologue for the registers a
// function may read before writing them (ptx/emit_func.cpp).
void dropEntryZeroing(Function &f) {
  if (f.blocks.empty() || targetsEntry(f))
    return;
  std::vector<Instr> &entry = f.blocks[0].instrs;
  size_t n = 0;
  while (n < entry.size() && writesZero(entry[n]))
    ++n;
  entry.erase(entry.begin(), entry.begin() + ptrdiff_t(n));
  if (!entry.empty() || f.blocks.size() < 2 || n == 0)
    return;
  // Only its label can refer to the empty block now: labels and tables shift down by one.
  std::string label = f.blocks[0].label;
  f.blocks.erase(f.blocks.begin());
  if (!label.empty())
    f.blockDirectives.erase(label);
  for (Block &b : f.blocks)
    for (Instr &in : b.instrs)
      for (Operand &o : in.srcs)
        if (o.kind == Operand::Kind::Label)
          --o.target;
  for (JumpTable &t : f.jumpTables)
    for (uint32_t &t2 : t.targets)
      --t2;
}

// Each block's successors: branch targets (BRA, BRX/JMX tables), then the next block unless
// the block ends in an unguarded terminator.
std::vector<std::vector<uint32_t>> successorLists(const Function &f) {
  std::vector<std::vector<uint32_t>> out(f.blocks.size());
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    bool fallsThrough = true;
    if (!f.blocks[b].instrs.empty()) {
      const Instr &last = f.blocks[b].instrs.back();
      for (const Operand &o : last.srcs) {
        if (o.kind == Operand::Kind::Label)
          out[b].push_back(o.target);
        if (o.kind == Operand::Kind::JumpTable && o.target < f.jumpTables.size())
          for (uint32_t t : f.jumpTables[o.target].targets)
            out[b].push_back(t);
      }
      fallsThrough = !(last.info().is(TERMINATOR) && !last.isGuarded());
    }
    if (fallsThrough && b + 1 < f.blocks.size())
      out[b].push_back(b + 1);
  }
  return out;
}

// Whether r may be read after instruction i of block b before an unguarded write: a search
// along every path. A RET of a function with return values counts as a read (they may be
// returned in registers).
bool readAfter(const Function &f, const std::vector<std::vector<uint32_t>> &succ, uint32_t b,
               size_t i, Reg r) {
  std::vector<uint8_t> seen(f.blocks.size(), 0);
  std::vector<std::pair<uint32_t, size_t>> work{{b, i + 1}};
  while (!work.empty()) {
    auto [blk, at] = work.back();
    work.pop_back();
    bool killed = false;
    const std::vector<Instr> &code = f.blocks[blk].instrs;
    for (size_t k = at; k < code.size() && !killed; ++k) {
      bool reads = false, writes = false;
      forEachUse(code[k], [&](Reg u) { reads = reads || u == r; });
      forEachDef(code[k], [&](Reg d) { writes = writes || d == r; });
      if (reads || (code[k].op == Opcode::RET && !f.returns.empty()))
        return true;
      killed = writes && !code[k].isGuarded();
    }
    if (killed)
      continue;
    for (uint32_t s : succ[blk])
      if (s < f.blocks.size() && !seen[s]) {
        seen[s] = 1;
        work.push_back({s, 0});
      }
  }
  return false;
}

// X t, ...; DSETP.NAN.AND p, PT, t, t, PT; SEL.64 d, 0xfff8000000000000, t, p under one guard,
// t and p read nowhere after: what --emit=ptx's NaN canonicalization of a binary64 result lowers
// to. Every binary64 result of the interpreter (and of the models cross-checked with it) already
// has the canonical NaN (docs/interpreter.md, "Float results"), so the select gives t: X d, ... .
void dropNaN64Selects(Function &f) {
  auto binary64 = [](const Instr &x) {
    switch (x.op) {
    case Opcode::DADD:
    case Opcode::DMUL:
    case Opcode::DFMA:
    case Opcode::DMNMX:
      return true;
    case Opcode::F2F:
    case Opcode::FRND:
    case Opcode::FDIV:
    case Opcode::FSQRT:
      return x.has(Mod::F64);
    default:
      return false;
    }
  };
  auto plainReg = [](const Operand &o, Reg r) {
    return o.kind == Operand::Kind::Reg && o.reg == r && !o.neg && !o.abs;
  };
  std::optional<std::vector<std::vector<uint32_t>>> succ;
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    std::vector<Instr> &code = f.blocks[b].instrs;
    for (size_t i = 0; i + 2 < code.size(); ++i) {
      const Instr &x = code[i], &setp = code[i + 1], &sel = code[i + 2];
      if (!binary64(x) || x.dsts.size() != 1 || x.dsts[0].kind != Operand::Kind::Reg ||
          x.dsts[0].reg.isConst() || setp.op != Opcode::DSETP || sel.op != Opcode::SEL ||
          !(x.guard == setp.guard) || !(x.guard == sel.guard))
        continue;
      const Reg t = x.dsts[0].reg;
      ModSet nanAnd, w64;
      nanAnd.set(Mod::NAN_);
      nanAnd.set(Mod::AND);
      w64.set(Mod::W64);
      if (setp.mods != nanAnd || setp.dsts.size() != 2 || setp.srcs.size() != 3 ||
          !plainReg(setp.srcs[0], t) || !plainReg(setp.srcs[1], t) || !plainReg(setp.srcs[2], PT) ||
          !plainReg(setp.dsts[1], PT) || setp.dsts[0].kind != Operand::Kind::Reg ||
          setp.dsts[0].reg.isConst())
        continue;
      const Reg p = setp.dsts[0].reg;
      if (sel.mods != w64 || sel.dsts.size() != 1 || sel.srcs.size() != 3 ||
          sel.srcs[0].kind != Operand::Kind::Imm || sel.srcs[0].neg ||
          uint64_t(sel.srcs[0].imm) != 0xfff8000000000000ull || !plainReg(sel.srcs[1], t) ||
          !plainReg(sel.srcs[2], p) || sel.dsts[0].kind != Operand::Kind::Reg ||
          sel.dsts[0].reg == t || sel.dsts[0].reg == p)
        continue;
      if (!succ)
        succ = successorLists(f);
      if (readAfter(f, *succ, b, i + 2, t) || readAfter(f, *succ, b, i + 2, p))
        continue;
      code[i].dsts[0] = sel.dsts[0];
      code.erase(code.begin() + ptrdiff_t(i + 1), code.begin() + ptrdiff_t(i + 3));
    }
  }
}

// An FRound modifier of .RN says what its absence says (interp/interp_float.cpp and
// verify/model_float.cpp read a missing one as .RN): the canonical form has none.
void dropDefaultRounding(Instr &in) {
  if (in.mods.inGroup(ModGroup::FRound) == Mod::RN)
    in.mods.reset(Mod::RN);
}

// A variable's initializer without its trailing zero bytes: Variable::init may stop before the
// end, the rest being zero, so two lengths can say the same.
std::vector<Variable> trimmedInits(std::vector<Variable> vs) {
  for (Variable &v : vs)
    while (!v.init.empty() && v.init.back() == 0)
      v.init.pop_back();
  return vs;
}

// The module directives that say something about the Ori: not `.version` (--emit=ptx declares
// the version its own text needs, ptx/emit_impl.h ModuleCtx::need: the lowering reads every
// instruction form of every version alike), and `.target` without the words the emitter drops
// or raises (ptx/emit.cpp readHeader): `debug` (debug data is dropped when reading),
// `map_f64_to_f32` (the lowering gives binary64 instructions their IEEE meaning whatever the
// target says) and sm_10..sm_13 read as sm_20 (their one effect on reading, .FTZ on binary32
// instructions, is in the instructions).
std::vector<std::string> meaningfulDirectives(const std::vector<std::string> &ds) {
  std::vector<std::string> out;
  for (const std::string &d : ds) {
    if (d.starts_with(".version"))
      continue;
    if (!d.starts_with(".target")) {
      out.push_back(d);
      continue;
    }
    std::string t = ".target";
    size_t n = 0;
    for (size_t i = 7; i < d.size();) {
      size_t j = d.find_first_of(", \t;", i);
      if (j == std::string::npos)
        j = d.size();
      std::string w = d.substr(i, j - i);
      i = j + 1;
      if (w.empty() || w == "debug" || w == "map_f64_to_f32")
        continue;
      if (w.size() == 5 && w.starts_with("sm_1") && std::isdigit(static_cast<unsigned char>(w[4])))
        w = "sm_20";
      t += (n++ ? ", " : " ") + w;
    }
    out.push_back(t);
  }
  return out;
}

} // namespace

Function canonicalFunction(const Function &f) {
  Function c = f;
  dropEntryZeroing(c);
  dropNaN64Selects(c);
  Renamer rn;
  for (Block &b : c.blocks)
    for (Instr &in : b.instrs) {
      dropDefaultRounding(in);
      if (in.guard)
        rn.operand(*in.guard);
      for (Operand &d : in.dsts)
        rn.operand(d);
      for (Operand &s : in.srcs)
        rn.operand(s);
    }
  c.regNames.clear();
  c.regTypes.clear();
  std::map<std::string, std::vector<std::string>> directives;
  for (const auto &[label, dirs] : c.blockDirectives)
    if (std::optional<uint32_t> bix = c.findBlock(label))
      directives[fmt::format("B{}", *bix)] = dirs;
  c.blockDirectives = std::move(directives);
  for (size_t i = 0; i < c.blocks.size(); ++i)
    c.blocks[i].label = fmt::format("B{}", i);
  for (size_t i = 0; i < c.jumpTables.size(); ++i)
    c.jumpTables[i].name = fmt::format("T{}", i);
  c.recountRegs();
  return c;
}

Module canonicalModule(const Module &m) {
  Module c = m;
  for (Function &f : c.functions)
    f = canonicalFunction(f);
  return c;
}

std::string NameFreeDifference::str() const {
  auto loc = [](const SrcLoc &l) {
    return l.line ? fmt::format(" (line {})", l.line) : std::string();
  };
  return fmt::format("{}{}:\n  left:  {}{}\n  right: {}{}",
                     function.empty() ? "module" : "function " + function,
                     where.empty() ? "" : ", " + where, left, loc(leftLoc), right, loc(rightLoc));
}

std::optional<NameFreeDifference> firstDifferenceUpToNames(const Function &fa, const Function &fb) {
  auto found = [&](NameFreeDifference d) {
    d.function = fa.name;
    return std::optional<NameFreeDifference>(std::move(d));
  };
  if (fa.name != fb.name || fa.isEntry != fb.isEntry || fa.params != fb.params ||
      fa.returns != fb.returns)
    return found({"", "signature", signatureText(fa), signatureText(fb), {}, {}});
  if (fa.isDeclaration() && fb.isDeclaration())
    return std::nullopt;
  const Function a = canonicalFunction(fa), b = canonicalFunction(fb);
  for (size_t i = 0; i < std::min(a.blocks.size(), b.blocks.size()); ++i) {
    const std::vector<Instr> &x = a.blocks[i].instrs, &y = b.blocks[i].instrs;
    for (size_t k = 0; k < std::max(x.size(), y.size()); ++k) {
      if (k < x.size() && k < y.size() && x[k] == y[k])
        continue;
      NameFreeDifference d;
      d.where = fmt::format("bix{} instruction {}", i, k);
      d.left = k < x.size() ? printInstr(a, x[k]) : "(end of block)";
      d.right = k < y.size() ? printInstr(b, y[k]) : "(end of block)";
      if (k < x.size())
        d.leftLoc = x[k].loc;
      if (k < y.size())
        d.rightLoc = y[k].loc;
      return found(std::move(d));
    }
  }
  if (a.blocks.size() != b.blocks.size())
    return found({"",
                  "block count",
                  fmt::format("{} blocks", a.blocks.size()),
                  fmt::format("{} blocks", b.blocks.size()),
                  {},
                  {}});
  auto tableText = [](const JumpTable &t) {
    std::string out;
    for (uint32_t bix : t.targets)
      out += fmt::format("{}B{}", out.empty() ? "" : ", ", bix);
    return "{" + out + "}";
  };
  if (auto d = firstListDifference(a.jumpTables, b.jumpTables, "jump table", tableText))
    return found(*d);
  if (auto d = firstListDifference(trimmedInits(a.variables), trimmedInits(b.variables), "variable",
                                   variableText))
    return found(*d);
  auto same = [](const std::string &s) { return s; };
  if (auto d = firstListDifference(a.ptxDirectives, b.ptxDirectives, "directive", same))
    return found(*d);
  for (size_t i = 0; i < a.blocks.size(); ++i) {
    std::string key = fmt::format("B{}", i);
    auto ia = a.blockDirectives.find(key), ib = b.blockDirectives.find(key);
    std::vector<std::string> da =
        ia == a.blockDirectives.end() ? std::vector<std::string>{} : ia->second;
    std::vector<std::string> db =
        ib == b.blockDirectives.end() ? std::vector<std::string>{} : ib->second;
    if (auto d = firstListDifference(da, db, fmt::format("bix{} directive", i), same))
      return found(*d);
  }
  return std::nullopt;
}

ModuleComparison compareModulesUpToNames(const Module &a, const Module &b) {
  ModuleComparison out;
  auto same = [](const std::string &s) { return s; };
  out.module = firstListDifference(trimmedInits(a.variables), trimmedInits(b.variables), "variable",
                                   variableText);
  if (!out.module)
    out.module = firstListDifference(meaningfulDirectives(a.ptxDirectives),
                                     meaningfulDirectives(b.ptxDirectives), "directive", same);
  for (const Function &f : a.functions) {
    const Function *g = b.findFunction(f.name);
    if (!g) {
      out.differ.push_back(
          {f.name, "function", signatureText(f), "(missing on the right)", {}, {}});
      continue;
    }
    if (auto d = firstDifferenceUpToNames(f, *g))
      out.differ.push_back(std::move(*d));
    else
      out.equal.push_back(f.name);
  }
  for (const Function &g : b.functions)
    if (!a.findFunction(g.name))
      out.differ.push_back({g.name, "function", "(missing on the left)", signatureText(g), {}, {}});
  return out;
}

} // namespace ori
