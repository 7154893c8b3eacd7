// Provenance of Ori instructions lowered from PTX (Instr::origin, Function::ptxOrigins): for
// each PTX instruction, its text as written, the .loc in effect and a copy of the Ori
// instructions the lowering made of it. The emitter (ptx/emit_origin.cpp) prints the text again
// for a run of instructions that still equals that copy, so that ptxas reads what it read
// before; anything a phase changed goes through the Ori -> PTX emitter (docs/ptx.md, "Round
// trip").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace ori {

// One piece of a PTX instruction's text. Names that the function's PTX may spell differently
// after a round trip are kept as what they name, and printed with the emitter's name for it.
struct PtxTextPiece {
  enum class Kind : uint8_t {
    Text,   // verbatim
    Reg,    // a register: reg, and the width its declaration gives it (1 for .pred)
    Symbol, // a variable or parameter: text is its Ori name
    Label,  // a block: text is the Ori block label
    Table,  // a .branchtargets table: index into Function::jumpTables
  };
  Kind kind = Kind::Text;
  std::string text;
  Reg reg{};
  uint32_t bits = 0; // Reg: declared width; Table: the table index
};

struct PtxOrigin {
  // The instruction without its guard and ';' (empty pieces: no text; the instruction is
  // printed by the emitter, only its .loc is kept).
  std::vector<PtxTextPiece> text;
  std::optional<Operand> guard;    // the PTX guard, as an Ori predicate operand (neg = @!p)
  std::vector<std::string> locs;   // `.loc` lines written right before the instruction
  uint32_t loc = 0;                // the .loc in effect: index into PtxOrigins::locTexts (0: none)
  std::vector<Instr> group;        // what the lowering made of it (labels as they were)
  std::vector<std::string> labels; // the block label each Label operand of `group` names, in order
  bool exact = false;              // text stands for group (else only the .loc is used)
};

struct PtxOrigins {
  std::vector<PtxOrigin> origins{1};    // [0]: no origin
  std::vector<std::string> locTexts{1}; // [0]: none
  // The function's outermost `.reg` declarations: as written (without ';'), their type
  // (".f32") and width (1 for .pred), and the names they declare: `name`, or with count > 0
  // the range name0 .. name<count-1> (`%r<3>`: %r0 %r1 %r2).
  struct RegDecl {
    std::string text, type, name;
    uint32_t bits = 0, count = 0;
    // Whether this declaration declares `n` (a range: no leading zero, as PTX reads it).
    bool declares(std::string_view n) const {
      if (count == 0)
        return n == name;
      if (n.size() <= name.size() || n.size() > name.size() + 9 || n.substr(0, name.size()) != name)
        return false;
      std::string_view digits = n.substr(name.size());
      if (digits.size() > 1 && digits[0] == '0')
        return false;
      uint64_t v = 0;
      for (char c : digits) {
        if (c < '0' || c > '9')
          return false;
        v = v * 10 + uint64_t(c - '0');
      }
      return v < count;
    }
  };
  std::vector<RegDecl> regDecls;
  // `.loc` lines written right before a label (-G: `.loc 1 4 0` then `$L__func_begin0:`), by
  // the Ori block label, printed before it again; loc: the last one (locTexts index).
  struct LabelLocs {
    std::vector<std::string> lines;
    uint32_t loc = 0;
  };
  std::map<std::string, LabelLocs> beforeLabel;
};

} // namespace ori
