#include "ir/verify.h"

#include <fmt/format.h>

#include <set>
#include <span>

#include "ir/diag.h"
#include "ir/ori.h"

namespace ori {
namespace {

class Checker {
public:
  explicit Checker(const Function &f) : f_(f) {}

  std::vector<std::string> run() {
    if (f_.isDeclaration()) {
      if (f_.isEntry)
        problem("a .entry has no body");
      if (!f_.jumpTables.empty() || !f_.variables.empty())
        problem("a declaration has tables or variables");
      return std::move(problems_);
    }
    checkLabels();
    checkJumpTables();
    for (size_t b = 0; b < f_.blocks.size(); ++b)
      checkBlock(uint32_t(b));
    checkEnd();
    checkParams();
    checkRegs();
    return std::move(problems_);
  }

private:
  template <typename... Args> void problem(fmt::format_string<Args...> fmtStr, Args &&...args) {
    problems_.push_back(fmt::format("function {}: ", f_.name) +
                        fmt::format(fmtStr, std::forward<Args>(args)...));
  }
  std::string where(uint32_t b, size_t i) const {
    return fmt::format("bix{} instr {} ({})", b, i, printInstr(f_, f_.blocks[b].instrs[i]));
  }
  bool validTarget(uint32_t t) const { return t < f_.blocks.size() && !f_.blocks[t].label.empty(); }

  void checkLabels() {
    std::set<std::string> seen, regNames;
    for (const auto &[r, name] : f_.regNames)
      regNames.insert(name);
    for (size_t b = 0; b < f_.blocks.size(); ++b) {
      const std::string &l = f_.blocks[b].label;
      if (!l.empty() && !seen.insert(l).second)
        problem("label '{}' names two blocks", l);
      if (!l.empty() && (!isValidName(l) || regNames.count(l)))
        problem("label '{}' is not a valid label name", l);
      if (l.empty() && f_.blocks[b].instrs.empty())
        problem("bix{} is empty and has no label", b);
      // Without a label, a block boundary is only expressible (in .ori text
      // and PTX) right after a control-flow instruction.
      if (l.empty() && b > 0) {
        const Block &prev = f_.blocks[b - 1];
        if (prev.instrs.empty() || !prev.instrs.back().info().is(CONTROL))
          problem("bix{} has no label and bix{} does not end in control flow", b, b - 1);
      }
    }
  }

  void checkJumpTables() {
    std::set<std::string> seen;
    for (const JumpTable &jt : f_.jumpTables) {
      if (!seen.insert(jt.name).second)
        problem("jump table '{}' is defined twice", jt.name);
      if (jt.targets.empty())
        problem("jump table '{}' is empty", jt.name);
      for (uint32_t t : jt.targets)
        if (!validTarget(t))
          problem("jump table '{}' targets bix{}, which is not a labelled block", jt.name, t);
    }
  }

  void checkBlock(uint32_t b) {
    const Block &blk = f_.blocks[b];
    for (size_t i = 0; i < blk.instrs.size(); ++i) {
      const Instr &in = blk.instrs[i];
      const OpInfo &info = in.info();
      if (info.is(CONTROL) && i + 1 != blk.instrs.size())
        problem("{}: control-flow instruction is not last in its block", where(b, i));
      if (in.guard &&
          (in.guard->kind != Operand::Kind::Reg || !in.guard->reg.isPredicate() || in.guard->abs))
        problem("{}: guard is not a predicate register", where(b, i));
      for (Mod m : in.mods.list()) {
        if (!info.allowedMods.test(m))
          problem("{}: modifier .{} is not allowed", where(b, i), modText(m));
        for (Mod n : in.mods.list())
          if (m < n && modGroup(m) == modGroup(n))
            problem("{}: modifiers .{} and .{} exclude each other", where(b, i), modText(m),
                    modText(n));
      }
      if (checkIsText(in.opaqueText, ""))
        problem("{}: OPAQUE text is not text", where(b, i));
      if (in.op == Opcode::OPAQUE) {
        for (std::span<const Operand> ops :
             {std::span<const Operand>(in.dsts), std::span<const Operand>(in.srcs)})
          for (const Operand &o : ops)
            if (o.kind != Operand::Kind::Reg || o.reg.isConst() || o.neg || o.abs)
              problem("{}: OPAQUE lists non-constant registers only", where(b, i));
        continue;
      }
      if (!in.opaqueText.empty())
        problem("{}: only OPAQUE carries text", where(b, i));
      checkOperands(b, i, in.dsts, info.dsts, true);
      checkOperands(b, i, in.srcs, info.srcs, false);
      if (std::optional<ShapeProblem> p = checkShape(in))
        problem("{}: {}", where(b, i), p->message);
    }
  }

  void checkOperands(uint32_t b, size_t i, const std::vector<Operand> &ops,
                     const std::vector<OperandSlot> &slots, bool isDst) {
    size_t required = 0;
    for (const OperandSlot &s : slots)
      required += s.optional ? 0 : 1;
    if (ops.size() < required || (!ops.empty() && !OpInfo::slotAt(slots, ops.size() - 1))) {
      problem("{}: {} {} operands, expected {}", where(b, i), ops.size(),
              isDst ? "destination" : "source", slots.size());
      return;
    }
    const OpInfo &info = f_.blocks[b].instrs[i].info();
    for (size_t k = 0; k < ops.size(); ++k) {
      const Operand &o = ops[k];
      const OperandSlot &slot = *OpInfo::slotAt(slots, k);
      if (!(slot.kinds & o.kindBit()))
        problem("{}: operand {} must be {}", where(b, i), k + 1, describeKinds(slot.kinds));
      if (o.kind == Operand::Kind::Reg && o.reg.isConst() && o.reg.file == RegFile::B)
        problem("{}: there is no constant barrier register", where(b, i));
      if (isDst && (o.neg || o.abs))
        problem("{}: destination {} is negated", where(b, i), k + 1);
      bool pred = o.kind == Operand::Kind::Reg && o.reg.isPredicate();
      if (!isDst && o.neg && !pred && !info.is(INEG | FNEG))
        problem("{}: {} does not take negated operands", where(b, i), info.name);
      if (o.abs && (pred || !info.is(FNEG)))
        problem("{}: operand {} cannot take |..|", where(b, i), k + 1);
      if ((o.kind == Operand::Kind::CBank || o.kind == Operand::Kind::Mem) && o.hasReg &&
          !o.reg.isGeneral())
        problem("{}: address register must be of file R or UR", where(b, i));
      if ((o.neg || o.abs) && o.kind != Operand::Kind::Reg && o.kind != Operand::Kind::CBank)
        problem("{}: operand {} cannot be negated", where(b, i), k + 1);
      if (o.kind == Operand::Kind::CBank &&
          (o.bank > 17 || o.imm > 0xFFFF || o.imm < (o.hasReg ? -0x8000 : 0)))
        problem("{}: constant bank c[{}][{}] is out of range", where(b, i), o.bank, o.imm);
      if (o.kind == Operand::Kind::Mem &&
          (!o.hasReg && o.sym.empty() ? (o.imm < 0 || o.imm > int64_t(UINT32_MAX))
                                      : (o.imm < INT32_MIN || o.imm > INT32_MAX)))
        problem("{}: address offset {} is out of range", where(b, i), o.imm);
      if (o.kind == Operand::Kind::Mem && !o.sym.empty() && !isValidName(o.sym))
        problem("{}: '{}' is not a valid symbol name", where(b, i), o.sym);
      if (!isDst && o.kind == Operand::Kind::Imm) {
        const Instr &in = f_.blocks[b].instrs[i];
        if (!immediateFits(in, k, o.imm))
          problem("{}: immediate {} does not fit in {} bits", where(b, i), o.imm,
                  immediateBits(in, k));
      }
      if (o.kind == Operand::Kind::Label && !validTarget(o.target))
        problem("{}: target bix{} is not a labelled block", where(b, i), o.target);
      if (o.kind == Operand::Kind::JumpTable && o.target >= f_.jumpTables.size())
        problem("{}: jump table {} does not exist", where(b, i), o.target);
    }
  }

  void checkEnd() {
    if (f_.blocks.empty())
      return;
    const Block &last = f_.blocks.back();
    if (last.instrs.empty() || !last.instrs.back().info().is(TERMINATOR) ||
        last.instrs.back().isGuarded())
      problem("the last block can fall off the end of the function");
  }

  void checkParams() {
    for (const auto *list : {&f_.params, &f_.returns}) {
      std::vector<Param> laidOut = *list;
      layoutParams(laidOut, f_.isEntry && list == &f_.params ? kParamBase : 0);
      for (size_t k = 0; k < laidOut.size(); ++k)
        if (laidOut[k].offset != (*list)[k].offset)
          problem("parameter '{}' is at offset 0x{:x}, not where the layout puts it (0x{:x})",
                  (*list)[k].name, (*list)[k].offset, laidOut[k].offset);
    }
    for (const std::string &d : f_.ptxDirectives)
      if (checkIsText(d, ""))
        problem("a .ptx directive is not text");
    for (const auto &[label, list] : f_.blockDirectives)
      for (const std::string &d : list)
        if (checkIsText(d, "") || d.rfind(".pragma", 0) != 0)
          problem("the directive of block '{}' is no .pragma text", label);
  }

  void checkRegs() {
    std::set<std::string> names;
    for (const auto &[r, name] : f_.regNames) {
      if (r.isConst())
        problem("constant register has the name '{}'", name);
      if (!names.insert(name).second)
        problem("two registers are named '{}'", name);
    }
    for (const Block &blk : f_.blocks)
      for (const Instr &in : blk.instrs)
        for (const auto &regs : {in.defs(), in.uses()})
          for (Reg r : regs)
            if (r.num >= f_.nextReg[int(r.file)])
              problem("register {}{} is not below the function's register counter {}",
                      regFilePrefix(r.file), r.num, f_.nextReg[int(r.file)]);
  }

  const Function &f_;
  std::vector<std::string> problems_;
};

} // namespace

std::vector<std::string> verifyFunction(const Function &f) { return Checker(f).run(); }

std::vector<std::string> verifyModule(const Module &m) {
  std::vector<std::string> all;
  std::set<std::string> names;
  for (const Function &f : m.functions) {
    if (!names.insert(f.name).second)
      all.push_back(fmt::format("function {} is defined twice", f.name));
    for (std::string &p : verifyFunction(f))
      all.push_back(std::move(p));
  }
  return all;
}

} // namespace ori
