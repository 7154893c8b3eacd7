// The round trip: compare, then prove what differs (pipeline/roundtrip_check.h).
#include "pipeline/roundtrip_check.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "ir/ori.h"
#include "ptx/roundtrip.h"

namespace ori {

std::string RoundTripFunction::str() const {
  std::string head;
  switch (status) {
  case Status::Equal:
    return "equal " + name;
  case Status::Proved:
    head = fmt::format("proved {} ({:.1f} s)", name, seconds);
    break;
  case Status::Unproved:
    head = fmt::format("unproved {}: {} {}", name, direction,
                       tv ? tv->line() : std::string("not validated"));
    break;
  case Status::Unchecked:
    head = fmt::format("unchecked {} (differs; not proved in this run)", name);
    break;
  }
  if (difference)
    head += "\n  " + difference->str();
  if (!pair.empty())
    head += "\n  pair " + pair;
  return head;
}

size_t RoundTripReport::count(RoundTripFunction::Status s) const {
  size_t n = 0;
  for (const RoundTripFunction &f : functions)
    n += f.status == s;
  return n;
}

bool RoundTripReport::ok() const {
  return !error && !moduleDifference && count(RoundTripFunction::Status::Unproved) == 0;
}

std::string RoundTripReport::summary() const {
  using S = RoundTripFunction::Status;
  return fmt::format("{} functions: {} equal, {} differ but proved, {} unproved, {} unchecked",
                     functions.size(), count(S::Equal), count(S::Proved), count(S::Unproved),
                     count(S::Unchecked));
}

namespace {

// FNV-1a over the two canonical functions' text.
std::string pairHash(const Function *a, const Function *b) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto add = [&](const std::string &s) {
    for (unsigned char c : s)
      h = (h ^ c) * 0x100000001b3ull;
    h = (h ^ 0xff) * 0x100000001b3ull; // a separator no text has
  };
  add(a ? printFunction(canonicalFunction(*a)) : std::string());
  add(b ? printFunction(canonicalFunction(*b)) : std::string());
  return fmt::format("{:016x}", h);
}

// Every register a function names set to zero in a new entry block: what the interpreter does
// when it starts a thread or calls a function (docs/interpreter.md), written out, so that the
// validator, which lets a register read before written be anything (the same on both sides by
// number), needs no pairing of such registers between two lowerings whose temporaries differ.
Module zeroInitialized(const Module &m) {
  Module out = m;
  for (Function &f : out.functions) {
    if (f.isDeclaration())
      continue;
    std::set<Reg> regs;
    for (const Block &b : f.blocks)
      for (const Instr &in : b.instrs) {
        forEachDef(in, [&](Reg r) { regs.insert(r); });
        forEachUse(in, [&](Reg r) { regs.insert(r); });
      }
    Block zero;
    for (Reg r : regs) {
      if (r.isPredicate())
        zero.instrs.push_back(makeInstr(Opcode::PLOP3,
                                        {Operand::reg_(r), Operand::reg_({r.file, Reg::kConst})},
                                        {Operand::reg_(PT), Operand::reg_(PT), Operand::reg_(PT),
                                         Operand::immediate(0), Operand::immediate(0)},
                                        {Mod::LUT}));
      else if (r.isGeneral())
        zero.instrs.push_back(
            makeInstr(Opcode::MOV, {Operand::reg_(r)}, {Operand::immediate(0)}, {Mod::W64}));
    }
    if (zero.instrs.empty())
      continue;
    for (Block &b : f.blocks)
      for (Instr &in : b.instrs)
        for (Operand &o : in.srcs)
          if (o.kind == Operand::Kind::Label)
            ++o.target;
    for (JumpTable &t : f.jumpTables)
      for (uint32_t &x : t.targets)
        ++x;
    f.blocks.insert(f.blocks.begin(), std::move(zero));
  }
  return out;
}

} // namespace

RoundTripReport checkRoundTrip(const Module &first, const RoundTripOptions &opts) {
  RoundTripReport rep;
  ptx::RoundTrip rt = ptx::roundTrip(first);
  if (rt.error) {
    rep.error = rt.error;
    rep.stage = rt.stage;
    return rep;
  }
  rep.moduleDifference = rt.comparison.module;
  // A module read from .ori text has no PTX directives: the emitter must write its own.
  if (first.ptxDirectives.empty() && rep.moduleDifference &&
      rep.moduleDifference->where.starts_with("directive"))
    rep.moduleDifference.reset();
  std::map<std::string, const NameFreeDifference *> differs;
  for (const NameFreeDifference &d : rt.comparison.differ)
    differs[d.function] = &d;
  // The canonical forms (the normalizations of ir/canonical.h applied), every register zeroed
  // at entry (zeroInitialized).
  std::optional<Module> a, b;
  auto validate = [&](const Module &src, const Module &tgt, const std::string &name) {
    return verify::validateFunction(src, tgt, name, opts.tv);
  };
  auto addFunction = [&](const std::string &name) {
    RoundTripFunction r;
    r.name = name;
    auto it = differs.find(name);
    if (it == differs.end()) {
      rep.functions.push_back(std::move(r));
      return;
    }
    r.difference = *it->second;
    r.pair = pairHash(first.findFunction(name), rt.second.findFunction(name));
    if (!opts.prove || (opts.proveOnly && !opts.proveOnly(name)) ||
        r.difference->where == "function") {
      // a function missing on one side cannot be proved equal to anything
      r.status = r.difference->where == "function" ? RoundTripFunction::Status::Unproved
                                                   : RoundTripFunction::Status::Unchecked;
      rep.functions.push_back(std::move(r));
      return;
    }
    if (!a) {
      a = zeroInitialized(canonicalModule(first));
      b = zeroInitialized(canonicalModule(rt.second));
    }
    r.status = RoundTripFunction::Status::Unproved;
    verify::TvResult fwd = validate(*a, *b, name);
    r.seconds = fwd.seconds;
    if (fwd.verdict != verify::TvResult::Verdict::Proved) {
      r.direction = "forward";
      r.tv = std::move(fwd);
    } else {
      verify::TvResult back = validate(*b, *a, name);
      r.seconds += back.seconds;
      if (back.verdict == verify::TvResult::Verdict::Proved)
        r.status = RoundTripFunction::Status::Proved;
      r.direction = "backward";
      r.tv = std::move(back);
    }
    rep.functions.push_back(std::move(r));
  };
  for (const Function &f : first.functions)
    addFunction(f.name);
  for (const Function &g : rt.second.functions)
    if (!first.findFunction(g.name))
      addFunction(g.name);
  return rep;
}

RoundTripListing listRoundTrip(const RoundTripReport &rep, const std::string &fileName,
                               const std::string &function) {
  RoundTripListing out;
  if (rep.moduleDifference)
    out.text += "differs: " + rep.moduleDifference->str() + "\n";
  out.ok = !rep.moduleDifference;
  for (const RoundTripFunction &f : rep.functions)
    if (function.empty() || f.name == function) {
      out.text += f.str() + "\n";
      out.ok = out.ok && f.status != RoundTripFunction::Status::Unproved;
    }
  if (function.empty())
    out.text += fmt::format("{}: {}\n", fileName, rep.summary());
  return out;
}

} // namespace ori
