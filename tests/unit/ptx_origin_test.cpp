// Provenance (ir/ptx_origin.h, ptx/emit_origin.cpp): --emit=ptx prints an instruction no phase
// changed as the PTX it was read from, and never prints that text for one a phase changed. Each
// instruction of a lowered kernel is changed in turn (an operand, a modifier, the opcode, the
// guard) and the emitted PTX must then lack that instruction's original line (the kernel's lines
// are all different, so a line can only come from its own instruction, or from the emitter);
// and the output must be what the emitter prints for the changed instruction.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "ir/ptx_origin.h"
#include "ptx/ptx.h"

namespace {

// Every instruction line is different; each is written as the emitter prints a text again
// ("  " + text + ";").
const char *kKernel = R"(.version 8.0
.target sm_90
.address_size 64

.visible .entry k(
	.param .u64 k_param_0,
	.param .u32 k_param_1
)
{
	.reg .pred 	%p<3>;
	.reg .b16 	%rs<3>;
	.reg .b32 	%r<12>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<6>;
	.loc	1 4 0
	ld.param.u64 	%rd1, [k_param_0];
	ld.param.u32 	%r1, [k_param_1];
	.loc	1 5 3
	mov.u32 	%r2, %tid.x;
	mad.lo.s32 	%r3, %r2, %r1, 7;
	setp.ge.s32 	%p1, %r3, %r1;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.s32 	%rd3, %r3, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.f32 	%f1, [%rd4];
	neg.f32 	%f2, %f1;
	abs.f32 	%f3, %f2;
	cvt.rzi.s32.f32 	%r4, %f3;
	selp.b32 	%r5, %r4, %r3, %p1;
	min.s32 	%r6, %r5, 100;
	cvt.u16.u32 	%rs1, %r6;
	and.b16 	%rs2, %rs1, 7;
	cvt.u32.u16 	%r7, %rs2;
	shl.b32 	%r8, %r7, 3;
	xor.b32 	%r9, %r8, %r6;
	@!%p1 st.global.u32 	[%rd4+4], %r9;
$L__BB0_2:
	.loc	1 9 1
	ret;

}
)";

// The text of origin k as the emitter prints it when names are kept.
std::string originLine(const ori::Function &f, uint32_t k) {
  const ori::PtxOrigin &o = f.ptxOrigins->origins.at(k);
  std::string s;
  if (o.guard)
    s += fmt::format("@{}{} ", o.guard->neg ? "!" : "", f.regNames.at(o.guard->reg));
  for (const ori::PtxTextPiece &p : o.text)
    s += p.kind == ori::PtxTextPiece::Kind::Reg ? f.regNames.at(p.reg) : p.text;
  return "  " + s + ";\n";
}

ori::Module lowered() {
  ori::ParseResult r = ori::ptx::parseAndLower(kKernel, "k.ptx");
  EXPECT_TRUE(r.module.has_value()) << (r.error ? r.error->message : "");
  return std::move(*r.module);
}

std::string emitted(const ori::Module &m) {
  ori::ptx::EmitResult e = ori::ptx::emit(m);
  return e.error ? std::string() : e.text;
}

TEST(PtxOrigin, UnchangedCodeIsPrintedAsWritten) {
  ori::Module m = lowered();
  const ori::Function &f = m.functions.at(0);
  ASSERT_TRUE(f.ptxOrigins);
  std::string out = emitted(m);
  ASSERT_FALSE(out.empty());
  // Every instruction of the kernel, with the .reg lines and .loc lines as written.
  const size_t n = f.ptxOrigins->origins.size();
  EXPECT_EQ(n, 23u); // 22 instructions and the unused [0]
  for (uint32_t k = 1; k < n; ++k)
    EXPECT_NE(out.find(originLine(f, k)), std::string::npos) << originLine(f, k) << out;
  EXPECT_NE(out.find("  .reg .b32 \t%r<12>;\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  .loc\t1 5 3\n  mov.u32 \t%r2, %tid.x;"), std::string::npos) << out;
  EXPECT_NE(out.find("$L__BB0_2:\n  .loc\t1 9 1\n  ret;"), std::string::npos) << out;
  // Read again, the same Ori.
  ori::ParseResult again = ori::ptx::parseAndLower(out, "again.ptx");
  ASSERT_TRUE(again.module) << out;
  EXPECT_EQ(again.module->functions.at(0).blocks, f.blocks);
}

std::string withoutLoc(const std::string &text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    std::string_view line(text.data() + start, end - start);
    if (line.find(".loc\t") == std::string_view::npos)
      out += line;
    start = end;
  }
  return out;
}

// One change to instruction `in`; false when there is none of that kind to make.
bool mutate(ori::Function &f, ori::Instr &in, int kind) {
  switch (kind) {
  case 0: { // a source operand
    for (ori::Operand &o : in.srcs) {
      if (o.kind == ori::Operand::Kind::Imm || o.kind == ori::Operand::Kind::CBank ||
          o.kind == ori::Operand::Kind::Mem) {
        o.imm += 4;
        return true;
      }
      if (o.kind == ori::Operand::Kind::Reg && !o.reg.isConst()) {
        o.reg = f.newReg(o.reg.file);
        return true;
      }
    }
    return false;
  }
  case 1: { // a destination
    for (ori::Operand &o : in.dsts)
      if (o.kind == ori::Operand::Kind::Reg && !o.reg.isConst()) {
        o.reg = f.newReg(o.reg.file);
        return true;
      }
    return false;
  }
  case 2: { // a modifier: one it has dropped, else one it may take added
    std::vector<ori::Mod> mods = in.mods.list();
    if (!mods.empty()) {
      in.mods.reset(mods.back());
      return true;
    }
    std::vector<ori::Mod> allowed = in.info().allowedMods.list();
    if (allowed.empty())
      return false;
    in.mods.set(allowed.front());
    return true;
  }
  case 3: { // the opcode: another with the same operand slots
    for (int op = 0; op < ori::kNumOpcodes; ++op) {
      const ori::OpInfo &other = ori::opInfo(ori::Opcode(op));
      if (other.op != in.op && other.dsts.size() == in.info().dsts.size() &&
          other.srcs.size() == in.info().srcs.size() && !other.is(ori::CONTROL) &&
          !in.info().is(ori::CONTROL)) {
        in.op = other.op;
        return true;
      }
    }
    return false;
  }
  default: // the guard: added, or its sense flipped
    if (in.guard)
      in.guard->neg = !in.guard->neg;
    else
      in.guard = ori::Operand::reg_(ori::P(0));
    return true;
  }
}

TEST(PtxOrigin, ChangedInstructionIsNeverPrintedAsWritten) {
  const ori::Module base = lowered();
  const ori::Function &bf = base.functions.at(0);
  int emittedChanges = 0;
  for (size_t b = 0; b < bf.blocks.size(); ++b)
    for (size_t i = 0; i < bf.blocks[b].instrs.size(); ++i) {
      const uint32_t k = bf.blocks[b].instrs[i].origin;
      if (k == 0)
        continue;
      const std::string line = originLine(bf, k);
      for (int kind = 0; kind < 5; ++kind) {
        ori::Module m = base;
        ori::Function &f = m.functions.at(0);
        if (!mutate(f, f.blocks[b].instrs[i], kind))
          continue;
        std::string out = emitted(m);
        if (out.empty())
          continue; // the changed instruction has no PTX form
        ++emittedChanges;
        // The same as when the changed instruction has no origin at all (then the emitter
        // prints it), but for the .loc lines, which the origin brings.
        ori::Module ref = m;
        ref.functions.at(0).blocks[b].instrs[i].origin = 0;
        const std::string expected = emitted(ref);
        EXPECT_EQ(withoutLoc(out), withoutLoc(expected))
            << "change " << kind << " of instruction " << i << " of block " << b;
        // And so the original line is absent, unless the emitter prints the changed instruction
        // that way itself (RET with a modifier PTX has no word for).
        if (expected.find(line) == std::string::npos)
          EXPECT_EQ(out.find(line), std::string::npos)
              << "change " << kind << " of instruction " << i << " of block " << b << ": " << line
              << out;
      }
    }
  EXPECT_GT(emittedChanges, 60);
}

} // namespace
