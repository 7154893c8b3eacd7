// The .ori reader's check of symbol operands once the whole module is known (ir/ori_reader_impl.h).
#include <fmt/format.h>

#include <algorithm>

#include "ir/diag.h"
#include "ir/ori_reader_impl.h"

namespace ori {

void checkSymbolUses(const Module &m, const std::vector<OriSymbolUse> &uses,
                     std::string_view file) {
  auto fail = [&](SrcLoc loc, std::string msg) {
    throw DiagnosticError({std::string(file), loc.line, loc.col, std::move(msg)});
  };
  for (const OriSymbolUse &u : uses) {
    const Function &f = m.functions[u.function];
    const Instr &in = f.blocks[u.block].instrs[u.instr];
    const Operand &o = u.dst ? in.dsts[u.k] : in.srcs[u.k];
    bool callTarget = in.op == Opcode::CALL && !u.dst && u.k == 0;
    const Param *param = nullptr;
    const Variable *v = findVariable(m, f, o.sym, &param);
    // A %name that names nothing was meant as a register.
    if (!v && !param && o.sym.starts_with('%') && !(callTarget && m.findFunction(o.sym)))
      fail(u.loc, fmt::format("undeclared register '{}'", o.sym));
    if (o.kind == Operand::Kind::Mem) {
      if (!v && !param)
        fail(u.loc, fmt::format("undefined variable '{}'", o.sym));
    } else if (callTarget) {
      if (!m.findFunction(o.sym))
        fail(u.loc, fmt::format("call to undefined function '{}'", o.sym));
    } else if (in.op == Opcode::CALL) {
      if (!(v && v->space == Space::Param))
        fail(u.loc, fmt::format("'{}' is not a .param variable of function '{}'", o.sym, f.name));
    } else if (in.op == Opcode::TEX && !v && !param) {
      // A texture reference: a module directive `.ptx ".global .texref NAME;"` declares it.
      bool declared =
          std::any_of(m.ptxDirectives.begin(), m.ptxDirectives.end(), [&](const std::string &d) {
            return d.find(".texref") != std::string::npos && d.ends_with(" " + o.sym + ";");
          });
      if (!declared)
        fail(u.loc, fmt::format("'{}' is no .texref of the module (a .ptx \".global .texref {};\" "
                                "line declares one)",
                                o.sym, o.sym));
    } else if (!v && !param && !m.findFunction(o.sym)) {
      fail(u.loc, fmt::format("undefined symbol '{}'", o.sym));
    }
  }
}

} // namespace ori
