// The PTX syntax tree: what the PTX parser produces and the lowering to Ori
// consumes. It stays close to the text (names are not resolved here: an
// identifier may be a register, a variable, a label or a function; the
// lowering decides from the declarations in scope).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/diag.h"
#include "ir/ir.h"

namespace ori::ptx {

struct Operand {
  enum class Kind : uint8_t {
    Name,    // %r1, tid, $L__BB0_2, sym, %tid.x (special registers are names too)
    Int,     // 12, 0x1F, -3, 0b101, 017 (octal); u suffix "U" ignored
    Float,   // 0f3F800000 (binary32 bits), 0d3FF0000000000000 (binary64 bits), 1.5
    Address, // [base], [base+off], [base+-off], [off]: base in `name` (may be empty), offset in
             // `ival`
    Vector,  // {a, b, _, d}: elements in `elems`
    Pair,    // p|q (setp's two destinations): elems[0], elems[1]
    Sink,    // _
    Call,    // call's parenthesised lists: (a, b); elements in `elems`
  };
  Kind kind = Kind::Name;
  bool negated = false;    // !%p (also the "@!%p" guard) and -x on immediates is folded into ival
  bool floatIsF32 = false; // Float written as 0f...: its value is a binary32
  std::string name;
  int64_t ival = 0;
  double fval = 0;
  std::vector<Operand> elems;
  SrcLoc loc;
  // Additions (PTX parser):
  // - Name: `ival` is a constant offset written after it (`mov.u64 %rd1, sym+8;`,
  //   initializers `sym+4`, `generic(sym)+4`); 0 when there is none.
  // - Float: `ival` holds the literal's exact bits (binary32 bits if floatIsF32, else
  //   binary64 bits), so NaN payloads survive; `fval` is the value as a double.
  // - Address: `elems` holds the operands after the first inside the brackets, for
  //   texture/surface addressing: `[tex, {%f1, %f2}]` -> elems = {Vector}, `[tex, smp, {..}]`
  //   -> elems = {Name smp, Vector}. Empty for ordinary addresses.
  bool generic = false; // Name in an initializer written `generic(sym)`: sym's generic address
  // Name: a video instruction's operand selector or mask written right after it (`%r1.b0`,
  // `%r2.h10`, `%r3.b3210`), with its dot; empty when there is none. Only the video
  // lowering reads it; every other lowering of an operand with one declines (OPAQUE).
  std::string selector;
  // Name written `-%r1` (vmad's negated operands); only the video lowering reads it.
  bool minus = false;
  // Name written `sym[K]` (PTX ISA 9.0, 6.4.3 "Arrays as Operands"): element K of the array
  // sym, K a constant expression in `index`. The lowering makes it sym + K * the element size
  // (an address in a memory instruction, the address value in `mov`): ptxas 13.0 assembles
  // `ld.global.u32 r, a[1]` of a .u32 array to the same SASS as `[a+4]`.
  bool indexed = false;
  int64_t index = 0;
  // An initializer's mask form `0xFF00(sym+4)` (PTX ISA 9.0, 5.4.4): byte 1 of the address;
  // -1 when there is none.
  int maskByte = -1;
};

struct Instruction {
  std::optional<Operand> guard;  // a Name, negated for @!p
  std::string opcode;            // "ld", "setp", "mul"
  std::vector<std::string> mods; // ".global", ".v2", ".u32", in source order, with the dot
  std::vector<Operand> operands;
  std::string text; // the instruction exactly as written, without guard, up to ';' (for OPAQUE)
  SrcLoc loc;
  // (PTX parser) `loc` is where the statement starts: the '@' of a guard, else the opcode.
  // `mods` are the words written right after the opcode (no space between them).
};

// A variable or register declaration: .reg, .global, .shared, .const, .local,
// .param, .tex/.surf/.sampler. `.reg .b32 %r<10>;` is one Variable with
// rangeCount = 10 (names %r0..%r9).
struct Variable {
  std::string space;              // ".reg", ".global", ".param", ...
  std::vector<std::string> attrs; // linkage and other words before the space: ".visible",
                                  // ".extern", ".weak", ".ptr", ".align" is separate
  uint32_t align = 0;             // .align N, 0 if absent
  std::string vectorMod;          // ".v2", ".v4" or empty
  std::string type;               // ".b32", ".u64", ".pred", ".f32", ".texref" ...
  std::string name;
  std::optional<uint32_t> rangeCount;        // %r<N>
  std::vector<std::optional<uint64_t>> dims; // [4][8]; nullopt for [] (size from initializer)
  std::vector<Operand>
      init;         // initializer values flattened in order ({1, 2}, or a name for addresses)
  std::string text; // the declaration as written (for re-emission)
  SrcLoc loc;
  // (PTX parser) `text` has no ';'. A declaration of several names (`.reg .pred %p<3>, %q;`)
  // gives one Variable per name; the first's text is as written (".reg .pred %p<3>"), each
  // further one's is the shared head, a space and its own part (".reg .pred %q"). `loc` is
  // where the declaration starts (its first word, linkage included).
};

struct Label {
  std::string name;
  SrcLoc loc;
};

// `$tab: .branchtargets L1, L2;`
struct BranchTargets {
  std::string name;
  std::vector<std::string> labels;
  SrcLoc loc;
};

// `proto: .callprototype (.param .b32 _) _ (.param .b32 _);` kept as text.
struct CallPrototype {
  std::string name;
  std::string text;
  SrcLoc loc;
  // (PTX parser) `text` is the whole statement as written, label included, without the
  // ';': "prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _)".
};

// Anything else inside a body that is not an instruction: `.pragma "nounroll";`,
// `.loc 1 23 4`, `.maxnreg` inside bodies. Kept as text.
struct BodyDirective {
  std::string text;
  SrcLoc loc;
  // (PTX parser) verbatim, with its ';' when it has one (`.pragma "nounroll";`);
  // `.loc`/`.file` end with their line. Also `@@DWARF ...` lines.
};

// A `{` or `}` scope boundary inside a body.
struct ScopeMark {
  bool open = true;
  SrcLoc loc;
};

struct Statement {
  enum class Kind : uint8_t { Instr, Var, Label, BranchTargets, CallPrototype, Directive, Scope };
  Kind kind = Kind::Instr;
  // Exactly the member named by kind is meaningful.
  Instruction instr;
  Variable var;
  Label label;
  BranchTargets targets;
  CallPrototype proto;
  BodyDirective directive;
  ScopeMark scope;
};

struct Function {
  bool isEntry = false;             // .entry (else .func)
  std::vector<std::string> linkage; // ".visible", ".extern", ".weak"
  std::string name;
  std::vector<Variable> returns; // .func return parameters
  std::vector<Variable> params;
  std::vector<std::string> performanceDirectives; // ".maxntid 256, 1, 1" etc, as text
  // (PTX parser) ".noreturn", ".minnctapersm 2", ".pragma \"nounroll\";" (.pragma keeps its ';').
  // A declaration is written `.func f(...);`, or by old nvopencc without the ';'.
  bool hasBody = false; // false for declarations (prototypes)
  std::vector<Statement> body;
  SrcLoc loc;
};

// A top-level item, in file order.
struct TopLevel {
  enum class Kind : uint8_t { Function, Variable, Directive };
  Kind kind = Kind::Directive;
  Function function;
  Variable variable;
  std::string text; // Directive: `.file 1 "a.cu"`, `.section .debug_info { ... }` verbatim
  // (PTX parser) also `.loc` (to the end of its line), `.pragma "...";` and `.alias a, b;` (with
  // their ';') and old `@@DWARF ...` lines (to the end of the line).
  SrcLoc loc;
};

struct Module {
  std::string fileName;
  std::string version; // "9.0"
  std::string target;  // "sm_90" (and more words as written: "sm_20, texmode_independent")
  uint32_t addressSize = 64;
  std::vector<TopLevel> items;
};

struct ParseResult {
  std::optional<Module> module;
  std::optional<Diagnostic> error;
};

// Parses PTX text; every malformed input gives a file:line:col diagnostic.
ParseResult parse(std::string_view text, std::string_view fileName);

} // namespace ori::ptx
