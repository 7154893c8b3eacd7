// The warp-level matrix instructions through the PTX border: every MMA form sm_90 has, and
// LDSM/STSM/MOVM/ELECT/ACQBULK/PREEXIT, emitted as PTX (--emit=ptx), assembled by ptxas, and
// lowered back to the same instructions (docs/ptx.md, "Tensor cores").
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "ir/mma.h"
#include "ir/ori.h"
#include "ptx/ptx.h"

namespace {

namespace fs = std::filesystem;

std::string ptxasPath() {
  std::string p = ORIOPT_PTXAS;
  if (!p.empty())
    return p;
  return std::system("command -v ptxas > /dev/null 2>&1") == 0 ? "ptxas" : "";
}

// "" when ptxas assembles `ptx` for `arch`, else its messages.
std::string ptxasErrors(const std::string &ptx, const std::string &arch) {
  fs::path file = fs::temp_directory_path() / fmt::format("oriopt_matrix_{}.ptx", ::getpid());
  fs::path log = file;
  log += ".log";
  std::ofstream(file, std::ios::binary) << ptx;
  int rc = std::system(fmt::format("{} -arch={} '{}' -o /dev/null > '{}' 2>&1", ptxasPath(), arch,
                                   file.string(), log.string())
                           .c_str());
  std::stringstream ss;
  ss << std::ifstream(log).rdbuf();
  fs::remove(file);
  fs::remove(log);
  return rc == 0 ? "" : ss.str();
}

// The matrix instructions of a module's first function, as mnemonics with operand counts.
std::vector<std::string> matrixInstrs(const ori::Module &m) {
  std::vector<std::string> out;
  for (const ori::Block &b : m.functions.at(0).blocks)
    for (const ori::Instr &in : b.instrs) {
      if (!ori::isMma(in.op) && in.op != ori::Opcode::LDSM && in.op != ori::Opcode::STSM &&
          in.op != ori::Opcode::MOVM && in.op != ori::Opcode::ELECT &&
          in.op != ori::Opcode::ACQBULK && in.op != ori::Opcode::PREEXIT)
        continue;
      std::string s(in.info().name);
      for (ori::Mod mod : in.mods.list())
        s += "." + std::string(ori::modText(mod));
      out.push_back(fmt::format("{} {}/{}", s, in.dsts.size(), in.srcs.size()));
    }
  return out;
}

TEST(PtxMatrix, EveryFormEmitsAssemblesAndLowersBack) {
  std::string body;
  unsigned next = 1;
  auto regs = [&](unsigned n) {
    std::string s;
    for (unsigned k = 0; k < n; ++k)
      s += fmt::format("{}R{}", s.empty() ? "" : ", ", next++);
    return s;
  };
  size_t forms = 0;
  for (ori::Opcode op :
       {ori::Opcode::HMMA, ori::Opcode::IMMA, ori::Opcode::DMMA, ori::Opcode::BMMA})
    for (const ori::ModSet &mods : ori::mmaForms(op)) {
      const ori::MmaForm f = std::get<ori::MmaForm>(ori::mmaForm(op, mods));
      std::string name(ori::opInfo(op).name);
      for (ori::Mod m : mods.list())
        name += "." + std::string(ori::modText(m));
      body += fmt::format("  {} {}, {}\n", name, regs(f.dRegs), regs(f.aRegs + f.bRegs + f.cRegs));
      ++forms;
    }
  EXPECT_EQ(forms, 108u);
  body += "  LDSM.M88.4 R1, R2, R3, R4, [sm+0x10]\n  LDSM.MT88 R5, [R900+0x20]\n  STSM.MT88.2 "
          "[sm], R1, R2\n"
          "  STSM.M88 [R900+0x40], R3\n  MOVM.MT88 R6, R7\n  ELECT R8, P1, 0xffffffff\n  ELECT RZ, "
          "P2, R9\n"
          "  ACQBULK\n  PREEXIT\n";
  const std::string text = ".entry k()\n{\n  .shared .align 16 .b8 sm[256]\n  S2R R900, SR_TID.X\n "
                           " SHL R900, R900, 0x4\n" +
                           body + "  EXIT\n}\n";
  ori::ParseResult r = ori::parseOri(text, "matrix.ori");
  ASSERT_TRUE(r.module) << r.error->str();
  ori::ptx::EmitResult e = ori::ptx::emit(*r.module);
  ASSERT_FALSE(e.error) << e.error->str();
  if (!ptxasPath().empty()) {
    EXPECT_EQ(ptxasErrors(e.text, "sm_90"), "") << e.text;
  }
  ori::ParseResult back = ori::ptx::parseAndLower(e.text, "emitted.ptx");
  ASSERT_TRUE(back.module) << back.error->str();
  EXPECT_EQ(matrixInstrs(*back.module), matrixInstrs(*r.module)) << e.text;
}

} // namespace
