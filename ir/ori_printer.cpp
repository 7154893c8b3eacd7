// Printer of the .ori text format (docs/ori-format.md).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <span>

#include "ir/ori.h"

namespace ori {
namespace {

std::string hex(int64_t v) {
  if (v < 0)
    return fmt::format("-0x{:x}", uint64_t(0) - uint64_t(v));
  return fmt::format("0x{:x}", uint64_t(v));
}

// "+0x10", "-0x10", or "" for 0: the offset after a register or symbol.
std::string signedOffset(int64_t v) {
  if (v == 0)
    return "";
  return v < 0 ? hex(v) : fmt::format("+{}", hex(v));
}

// Shortest text that reads back to the same double; non-finite values print
// as their bits (0d...), which the parser reads back exactly.
std::string floatText(double v) {
  if (!std::isfinite(v))
    return fmt::format("0d{:016X}", std::bit_cast<uint64_t>(v));
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s;
}

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else
      out += c;
  }
  return out;
}

std::string paramList(const std::vector<Param> &ps) {
  std::string out = "(";
  for (size_t i = 0; i < ps.size(); ++i) {
    const Param &p = ps[i];
    if (i)
      out += ", ";
    out += fmt::format(".{} {}", p.type, p.name);
    if (p.count)
      out += fmt::format("[{}]", p.count);
    if (p.align != p.size / std::max<uint32_t>(p.count, 1))
      out += fmt::format(" .align {}", p.align);
  }
  return out + ")";
}

std::string variableText(const Variable &v) {
  std::string out = v.linkage.empty() ? "" : fmt::format(".{} ", v.linkage);
  out += fmt::format(".{}", spaceName(v.space));
  if (v.align != v.elemSize)
    out += fmt::format(" .align {}", v.align);
  out += fmt::format(" .{} {}", v.type, v.name);
  if (v.unsized)
    out += "[]";
  else if (v.count)
    out += fmt::format("[{}]", v.count);
  if (!v.init.empty() || !v.addrInit.empty()) {
    out += " = {";
    size_t end = std::max<size_t>(v.init.size(),
                                  v.addrInit.empty() ? 0 : v.addrInit.back().offset + v.elemSize);
    for (size_t i = 0; i + v.elemSize <= end; i += v.elemSize) {
      out += i ? ", " : "";
      auto a = std::find_if(v.addrInit.begin(), v.addrInit.end(),
                            [&](const Variable::AddrInit &x) { return x.offset == i; });
      if (a != v.addrInit.end()) {
        std::string addr = (a->generic ? fmt::format("generic({})", a->symbol) : a->symbol) +
                           signedOffset(a->addend);
        out +=
            a->byte >= 0 ? fmt::format("0x{:x}({})", uint64_t(0xFF) << (8 * a->byte), addr) : addr;
        continue;
      }
      uint64_t x = 0;
      for (uint32_t b = 0; b < v.elemSize && i + b < v.init.size(); ++b)
        x |= uint64_t(v.init[i + b]) << (8 * b);
      out += fmt::format("0x{:x}", x);
    }
    out += "}";
  }
  return out;
}

} // namespace

std::string printReg(const Function &f, Reg r) {
  if (auto it = f.regNames.find(r); it != f.regNames.end())
    return it->second;
  if (r.isConst()) {
    switch (r.file) {
    case RegFile::R:
      return "RZ";
    case RegFile::UR:
      return "URZ";
    case RegFile::P:
      return "PT";
    case RegFile::UP:
      return "UPT";
    case RegFile::B:
      return "B?"; // no constant barrier register; verifyFunction rejects it
    }
  }
  return fmt::format("{}{}", regFilePrefix(r.file), r.num);
}

std::string printOperand(const Function &f, const Operand &o) {
  std::string core;
  switch (o.kind) {
  case Operand::Kind::Reg:
    core = printReg(f, o.reg);
    break;
  case Operand::Kind::Imm:
    return hex(o.imm);
  case Operand::Kind::FImm:
    return floatText(o.fimm);
  case Operand::Kind::CBank:
    core = fmt::format("c[{}][{}]", hex(o.bank),
                       o.hasReg ? printReg(f, o.reg) + signedOffset(o.imm) : hex(o.imm));
    break;
  case Operand::Kind::SReg:
    return std::string(specialRegName(o.sreg));
  case Operand::Kind::Mem: {
    std::string inner;
    if (o.hasReg)
      inner = printReg(f, o.reg);
    if (!o.sym.empty())
      inner += inner.empty() ? o.sym.str() : fmt::format("+{}", o.sym);
    inner = inner.empty() ? hex(o.imm) : inner + signedOffset(o.imm);
    return fmt::format("[{}]", inner);
  }
  case Operand::Kind::Label:
    if (o.target < f.blocks.size() && !f.blocks[o.target].label.empty())
      return f.blocks[o.target].label;
    return fmt::format("?bix{}", o.target); // verifyFunction rejects this
  case Operand::Kind::JumpTable:
    if (o.target < f.jumpTables.size())
      return f.jumpTables[o.target].name;
    return fmt::format("?table{}", o.target);
  case Operand::Kind::Symbol:
    return o.sym;
  }
  if (o.abs)
    core = "|" + core + "|";
  if (o.neg)
    core = (o.kind == Operand::Kind::Reg && o.reg.isPredicate() ? "!" : "-") + core;
  return core;
}

std::string printInstr(const Function &f, const Instr &in) {
  std::string out;
  if (in.guard)
    out += fmt::format("@{}{} ", in.guard->neg ? "!" : "", printReg(f, in.guard->reg));
  out += in.info().name;
  for (Mod m : in.mods.list())
    out += fmt::format(".{}", modText(m));
  if (in.op == Opcode::OPAQUE) {
    out += fmt::format(" \"{}\"", escape(in.opaqueText));
    auto list = [&](std::string_view key, const std::vector<Operand> &regs) {
      if (regs.empty())
        return;
      out += fmt::format(" {}(", key);
      for (size_t i = 0; i < regs.size(); ++i)
        out += (i ? ", " : "") + printOperand(f, regs[i]);
      out += ")";
    };
    list("def", in.dsts);
    list("use", in.srcs);
    return out;
  }
  if (in.op == Opcode::CALL) {
    auto list = [&](auto begin, auto end) {
      std::string l = "(";
      for (auto it = begin; it != end; ++it)
        l += (it == begin ? "" : ", ") + printOperand(f, *it);
      return l + ")";
    };
    out += " ";
    if (!in.dsts.empty())
      out += list(in.dsts.begin(), in.dsts.end()) + ", ";
    if (!in.srcs.empty())
      out += printOperand(f, in.srcs[0]);
    if (in.srcs.size() > 1)
      out += ", " + list(in.srcs.begin() + 1, in.srcs.end());
    return out;
  }
  bool first = true;
  for (std::span<const Operand> ops :
       {std::span<const Operand>(in.dsts), std::span<const Operand>(in.srcs)})
    for (const Operand &o : ops) {
      out += first ? " " : ", ";
      first = false;
      out += printOperand(f, o);
    }
  return out;
}

std::string printFunction(const Function &f) {
  std::string out = f.linkage.empty() ? "" : fmt::format(".{} ", f.linkage);
  out += f.isEntry ? ".entry " : ".func ";
  if (!f.isEntry && !f.returns.empty())
    out += paramList(f.returns) + " ";
  out += f.name + paramList(f.params);
  if (f.isDeclaration())
    return out + ";\n";
  out += "\n{\n";
  for (const std::string &d : f.ptxDirectives)
    out += fmt::format("  .ptx \"{}\"\n", escape(d));
  // Register names, a few to a line, in register order; a new line when the
  // declared type changes.
  size_t onLine = 0;
  std::string lineType;
  for (const auto &[r, name] : f.regNames) {
    auto t = f.regTypes.find(r);
    std::string type = t == f.regTypes.end() ? "" : t->second;
    if (onLine && (onLine == 8 || type != lineType)) {
      out += "\n";
      onLine = 0;
    }
    if (onLine == 0)
      out += type.empty() ? "  .reg " : fmt::format("  .reg .{} ", type);
    else
      out += ", ";
    lineType = type;
    out += fmt::format("{} = {}{}", name, regFilePrefix(r.file), r.num);
    ++onLine;
  }
  if (onLine)
    out += "\n";
  for (const Variable &v : f.variables)
    out += "  " + variableText(v) + "\n";
  for (const JumpTable &jt : f.jumpTables) {
    out += fmt::format("  .jumptable {} = {{", jt.name);
    for (size_t i = 0; i < jt.targets.size(); ++i) {
      uint32_t t = jt.targets[i];
      out += (i ? ", " : "") + (t < f.blocks.size() ? f.blocks[t].label : std::string("?"));
    }
    out += "}\n";
  }
  for (const Block &b : f.blocks) {
    if (!b.label.empty())
      out += b.label + ":\n";
    if (auto it = f.blockDirectives.find(b.label);
        !b.label.empty() && it != f.blockDirectives.end())
      for (const std::string &d : it->second)
        out += fmt::format("  .ptx \"{}\"\n", escape(d));
    for (const Instr &in : b.instrs)
      out += "  " + printInstr(f, in) + "\n";
  }
  return out + "}\n";
}

std::string printModule(const Module &m) {
  std::string out;
  for (const std::string &d : m.ptxDirectives)
    out += fmt::format(".ptx \"{}\"\n", escape(d));
  for (const Variable &v : m.variables)
    out += variableText(v) + "\n";
  for (size_t i = 0; i < m.functions.size(); ++i) {
    if (i || !m.variables.empty() || !m.ptxDirectives.empty())
      out += "\n";
    out += printFunction(m.functions[i]);
  }
  return out;
}

} // namespace ori
