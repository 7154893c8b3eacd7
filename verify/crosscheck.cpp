// The model/interpreter cross-check (verify/crosscheck.h). The interpreter
// side runs a harness kernel with one thread per input: each thread loads its
// sources, guard, old destinations and memory word from a record of the
// `inp` buffer, runs the instruction under test and stores what it wrote to
// `outp`. Inputs that must be part of the instruction (immediates, the
// special register, operand flags) or of the launch (thread counts, LDC's
// constant) split the samples into groups, one run each.
#include "verify/crosscheck.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>

#include "interp/interp.h"
#include "ir/ori.h"
#include "verify/crosscheck_inputs.h"
#include "verify/obligations.h"
#include "verify/opcode_model.h"

namespace ori::verify {
namespace {

// Per thread: inp record (0x30 bytes) = s0, s1, s2, predicate bits (bit 0
// guard P0, bits 1-3 P1-P3, bits 4-5 old P4-P5), old R20, memory word;
// outp record (0x18 bytes) = R20, P4 | P5 << 1, memory word afterwards.
constexpr uint64_t kIn = 0x30, kOut = 0x18;
// Operand-flag patterns (makeSubject): bits 0-5 flags, bit 6 the guard's @!.
constexpr unsigned kPatterns = 128;
enum class Space { Global, Shared, Local };

std::string harnessText(Space space) {
  const char *setup = space == Space::Shared  ? "STS.64 [R6], R14"
                      : space == Space::Local ? "STL.64 [0x0], R14"
                                              : "NOP";
  const char *readback = space == Space::Shared  ? "LDS.64 R18, [R6]"
                         : space == Space::Local ? "LDL.64 R18, [0x0]"
                                                 : "LDG.E.64 R18, [R4+0x28]";
  std::string preds;
  for (int p = 0; p < 6; ++p)
    preds += fmt::format(
        "  LOP3.LUT R15, R13, 0x{:x}, RZ, 0xc0\n  ISETP.NE.U32.AND P{}, PT, R15, RZ, PT\n", 1 << p,
        p);
  return fmt::format(R"(.entry harness(.u64 inp, .u64 outp, .u64 v)
{{
  S2R R0, SR_TID.X
  S2R R1, SR_CTAID.X
  S2R R2, SR_NTID.X
  IMAD R0, R1, R2, R0
  IMAD.WIDE.U32 R4, R0, 0x30, c[0x0][0x210]
  IMAD.WIDE.U32 R5, R0, 0x18, c[0x0][0x218]
  IMAD R6, R0, 0x8, RZ
  LDG.E.64 R10, [R4]
  LDG.E.64 R11, [R4+0x8]
  LDG.E.64 R12, [R4+0x10]
  LDG.E.64 R13, [R4+0x18]
  LDG.E.64 R20, [R4+0x20]
  LDG.E.64 R14, [R4+0x28]
{}  {}
  NOP
  STG.E.64 [R5], R20
  SEL R16, 0x1, RZ, P4
  SEL R17, 0x2, RZ, P5
  IADD3 R16, R16, R17, RZ
  STG.E.64 [R5+0x8], R16
  {}
  STG.E.64 [R5+0x10], R18
  EXIT
}}
)",
                     preds, setup, readback);
}

Space spaceOf(Opcode op) {
  if (op == Opcode::LDS || op == Opcode::STS || op == Opcode::ATOMS)
    return Space::Shared;
  if (op == Opcode::LDL || op == Opcode::STL)
    return Space::Local;
  return Space::Global;
}

// The parsed harness of a space, and where its placeholder NOP is.
struct Template {
  Module module;
  size_t placeholder = 0;
};
const Template &harness(Space space) {
  static std::map<Space, Template> cache;
  auto it = cache.find(space);
  if (it != cache.end())
    return it->second;
  ParseResult r = parseOri(harnessText(space), "harness.ori");
  if (!r.module)
    throw std::logic_error("cross-check harness does not parse: " + r.error->str());
  Template t{std::move(*r.module), 0};
  const auto &instrs = t.module.functions.at(0).blocks.at(0).instrs;
  for (size_t i = 0; i < instrs.size(); ++i)
    if (instrs[i].op == Opcode::NOP)
      t.placeholder = i; // the last NOP is the subject's place
  return cache.emplace(space, std::move(t)).first->second;
}

bool isPredSlot(const OperandSlot &s) { return (s.kinds & K_PRED) && !(s.kinds & K_REG); }

uint64_t le(const std::vector<uint8_t> &b, size_t off) {
  uint64_t v = 0;
  for (size_t k = 0; k < 8 && off + k < b.size(); ++k)
    v |= uint64_t(b[off + k]) << (8 * k);
  return v;
}
void putLe(std::vector<uint8_t> &b, size_t off, uint64_t v) {
  for (size_t k = 0; k < 8; ++k)
    b[off + k] = uint8_t(v >> (8 * k));
}

// Runs `in` once with one thread per input (S2R: xs.size() == ntid * nctaid).
bool runGroup(const Instr &in, const std::vector<const ConcreteInputs *> &xs, uint32_t ntid,
              uint32_t nctaid, std::vector<ConcreteOutputs> &outs, std::string *error) {
  const Template &t = harness(spaceOf(in.op));
  Module m = t.module;
  m.functions[0].blocks[0].instrs[t.placeholder] = in;
  const OpInfo &info = opInfo(in.op);
  RunConfig cfg;
  cfg.threads = ntid;
  cfg.ctas = nctaid;
  // The harness is straight-line: 1,000 warp instructions a warp bound it (maxSteps counts
  // every warp's together, and an S2R launch has up to 32 warps a CTA).
  cfg.maxSteps = 1000 * ((uint64_t(ntid) + 31) / 32) * nctaid;
  std::vector<uint8_t> inp(kIn * xs.size()), outp(kOut * xs.size());
  for (size_t k = 0; k < xs.size(); ++k) {
    const ConcreteInputs &x = *xs[k];
    uint64_t bits = x.guard ? 1 : 0;
    for (size_t i = 0; i < x.srcs.size() && i < in.srcs.size(); ++i) {
      const Operand &o = in.srcs[i];
      if (o.kind != Operand::Kind::Reg)
        continue;
      if (o.reg.isPredicate())
        bits |= (x.srcs[i] & 1) << (1 + i);
      else if (i < 3)
        putLe(inp, kIn * k + 8 * i, x.srcs[i]);
    }
    for (size_t d = 0, p = 0; d < x.oldDsts.size() && d < info.dsts.size(); ++d) {
      if (isPredSlot(info.dsts[d]))
        bits |= (x.oldDsts[d] & 1) << (4 + p++);
      else
        putLe(inp, kIn * k + 0x20, x.oldDsts[d]);
    }
    putLe(inp, kIn * k + 0x18, bits);
    putLe(inp, kIn * k + 0x28, x.memory);
  }
  cfg.buffers["inp"] = std::move(inp);
  cfg.buffers["outp"] = std::move(outp);
  cfg.params["v"] = xs.empty() ? 0 : xs[0]->memory; // LDC reads c[0x0][0x220]
  RunResult r = runKernel(m, cfg);
  if (r.kind != RunResult::Kind::Ok) {
    if (error)
      *error = formatExit(r, "harness.ori") + " (" + r.message + ")";
    return false;
  }
  const std::vector<uint8_t> &out = r.buffers["outp"];
  outs.clear();
  for (size_t k = 0; k < xs.size(); ++k) {
    ConcreteOutputs o;
    for (size_t d = 0, p = 0; d < in.dsts.size(); ++d)
      o.dsts.push_back(isPredSlot(info.dsts[d]) ? (le(out, kOut * k + 8) >> p++) & 1
                                                : le(out, kOut * k));
    o.memory = le(out, kOut * k + 0x10);
    outs.push_back(std::move(o));
  }
  return true;
}

std::string describeInputs(const Instr &in, const ConcreteInputs &x) {
  std::string s;
  for (size_t i = 0; i < x.srcs.size(); ++i)
    s += fmt::format("s{}=0x{:x} ", i, x.srcs[i]);
  s += fmt::format("guard={}", int(x.guard));
  for (size_t i = 0; i < x.oldDsts.size(); ++i)
    s += fmt::format(" old{}=0x{:x}", i, x.oldDsts[i]);
  if (in.info().is(MEMORY) || in.op == Opcode::LDC)
    s += fmt::format(" mem=0x{:x}", x.memory);
  if (in.op == Opcode::S2R)
    s += fmt::format(" tid={} ctaid={} ntid={} nctaid={}", x.tid, x.ctaid, x.ntid, x.nctaid);
  return s;
}

std::string describeOutputs(const ConcreteOutputs &o, bool withMemory) {
  std::string s;
  for (size_t i = 0; i < o.dsts.size(); ++i)
    s += fmt::format("{}d{}=0x{:x}", i ? " " : "", i, o.dsts[i]);
  if (withMemory && o.memory)
    s += fmt::format("{}mem=0x{:x}", o.dsts.empty() ? "" : " ", *o.memory);
  return s;
}

// "" if the interpreter's and the model's results agree.
std::string difference(const Instr &in, const ConcreteInputs &x, const ConcreteOutputs &interp,
                       const std::optional<ConcreteOutputs> &model) {
  std::string what = fmt::format("{}: {}", printInstr(Function{}, in), describeInputs(in, x));
  if (!model)
    return what + ": no model";
  bool same = interp.dsts == model->dsts && (!model->memory || interp.memory == model->memory);
  if (same)
    return "";
  return fmt::format("{}: interpreter {}, model {}", what,
                     describeOutputs(interp, model->memory.has_value()),
                     describeOutputs(*model, true));
}

std::string combinationName(Opcode op, const ModSet &mods) {
  std::string s(opInfo(op).name);
  for (Mod m : mods.list())
    s += fmt::format(".{}", modText(m));
  return s;
}

constexpr SpecialReg kModelledSregs[] = {
    SpecialReg::TID_X,   SpecialReg::TID_Y,    SpecialReg::TID_Z,    SpecialReg::CTAID_X,
    SpecialReg::CTAID_Y, SpecialReg::CTAID_Z,  SpecialReg::NTID_X,   SpecialReg::NTID_Y,
    SpecialReg::NTID_Z,  SpecialReg::NCTAID_X, SpecialReg::NCTAID_Y, SpecialReg::NCTAID_Z,
    SpecialReg::LANEID,  SpecialReg::WARPID,   SpecialReg::SWINBASE, SpecialReg::LWINBASE,
    SpecialReg::CWINBASE};

} // namespace

Instr makeSubject(Opcode op, const ModSet &mods, unsigned pattern, const ConcreteInputs &x) {
  const ModelEntry *e = findModelEntry(op);
  if (!e)
    throw std::invalid_argument(fmt::format("{} has no model", opInfo(op).name));
  const OpInfo &info = opInfo(op);
  Instr in;
  in.op = op;
  in.mods = mods;
  in.guard = Operand::reg_(P(0), (pattern >> 6) & 1);
  std::vector<Domain> doms = e->domains(mods);
  for (size_t i = 0; i < doms.size(); ++i) {
    uint64_t v = i < x.srcs.size() ? x.srcs[i] : 0;
    switch (doms[i]) {
    case Domain::Int:
    case Domain::Shift:
    case Domain::Count:
    case Domain::F32:
    case Domain::F64:
    case Domain::Half2:
    case Domain::Window: {
      Operand o = Operand::reg_(R(uint32_t(10 + i)));
      bool isFloat = doms[i] == Domain::F32 || doms[i] == Domain::F64 || doms[i] == Domain::Half2;
      if (info.is(INEG) && !isFloat)
        o.neg = (pattern >> i) & 1;
      if (info.is(FNEG) && isFloat) { // two bits per source: -R, |R|
        o.neg = (pattern >> (2 * i)) & 1;
        o.abs = (pattern >> (2 * i + 1)) & 1;
      }
      in.srcs.push_back(o);
      break;
    }
    case Domain::Pred:
      in.srcs.push_back(Operand::reg_(P(uint32_t(1 + i)), (pattern >> i) & 1));
      break;
    case Domain::Lut:
    case Domain::SmallImm:
      in.srcs.push_back(Operand::immediate(int64_t(v)));
      break;
    case Domain::Special:
      in.srcs.push_back(Operand::special(SpecialReg(v)));
      break;
    case Domain::CBank:
      in.srcs.push_back(Operand::cbank(0, 0x220));
      break;
    case Domain::Address:
      if (spaceOf(op) == Space::Shared)
        in.srcs.push_back(Operand::mem(R(6), 0));
      else if (spaceOf(op) == Space::Local)
        in.srcs.push_back(Operand::mem(std::nullopt, 0));
      else
        in.srcs.push_back(Operand::mem(R(4), 0x28));
      break;
    case Domain::None:
      break;
    }
  }
  uint32_t p = 4;
  for (size_t d = 0; d < dstCount(op, mods) && d < info.dsts.size();
       ++d) { // ATOM's second: only .128
    const OperandSlot &s = info.dsts[d];
    if (s.repeat)
      break;
    in.dsts.push_back(isPredSlot(s) ? Operand::reg_(P(p++)) : Operand::reg_(R(20)));
  }
  return in;
}

std::optional<ConcreteOutputs> interpretOne(const Instr &in, const ConcreteInputs &x,
                                            std::string *error) {
  uint32_t ntid = in.op == Opcode::S2R ? std::max<uint32_t>(x.ntid, 1) : 1;
  uint32_t nctaid = in.op == Opcode::S2R ? std::max<uint32_t>(x.nctaid, 1) : 1;
  std::vector<const ConcreteInputs *> xs(size_t(ntid) * nctaid, &x);
  std::vector<ConcreteOutputs> outs;
  if (!runGroup(in, xs, ntid, nctaid, outs, error))
    return std::nullopt;
  size_t k = in.op == Opcode::S2R ? size_t(x.ctaid) * ntid + x.tid : 0;
  if (k >= outs.size()) {
    if (error)
      *error = "the thread is outside the launch";
    return std::nullopt;
  }
  return outs[k];
}

std::string compareOne(ModelEvaluator &model, const Instr &in, const ConcreteInputs &x) {
  std::string error;
  std::optional<ConcreteOutputs> interp = interpretOne(in, x, &error);
  if (!interp)
    return fmt::format("{}: {}: interpreter: {}", printInstr(Function{}, in), describeInputs(in, x),
                       error);
  return difference(in, x, *interp, model.evaluate(in, x));
}

CrossCheckReport crossCheck(const CrossCheckOptions &opts,
                            const std::function<void(const CombinationResult &)> &progress) {
  CrossCheckReport report;
  ModelEvaluator model;
  for (const ModelEntry &e : modelTable()) {
    const OpInfo &info = opInfo(e.op);
    for (const ModSet &mods : combinations(e)) {
      CombinationResult res{combinationName(e.op, mods)};
      if (!nameMatches(opts.only, res.name))
        continue;
      if (e.uninterpreted) { // nothing to compare: listed apart (crosscheck.h)
        report.uninterpreted.push_back(res.name);
        continue;
      }
      uint64_t h = 0xcbf29ce484222325ull; // FNV-1a of the name: each combination has its own stream
      for (char c : res.name)
        h = (h ^ uint8_t(c)) * 0x100000001b3ull;
      Rng rng(opts.seed ^ h);
      std::vector<Domain> doms = e.domains(mods);
      // Draw the inputs and sort them into groups that share one harness run.
      struct Group {
        Instr in;
        uint32_t ntid = 1, nctaid = 1;
        std::vector<ConcreteInputs> xs;
      };
      std::map<std::string, Group> groups;
      uint64_t drawn = 0;
      while (drawn < opts.samples) {
        unsigned pattern = unsigned(rng() % kPatterns);
        ConcreteInputs x;
        for (Domain d : doms)
          x.srcs.push_back(drawValue(d, rng));
        for (size_t d = 0; d < dstCount(e.op, mods) && d < info.dsts.size(); ++d)
          if (!info.dsts[d].repeat)
            x.oldDsts.push_back(isPredSlot(info.dsts[d]) ? rng() & 1 : rng());
        x.guard = rng() % 8 != 0;
        // A float atomic's memory word holds a value of its type (denormals, NaNs, ties).
        const bool floatWord =
            isAtomic(e.op) && mods.inGroup(ModGroup::AtomFType) && doms.size() > 1;
        x.memory = drawValue(floatWord ? doms[1] : Domain::Int, rng);
        std::string key = fmt::format("{}", pattern);
        uint32_t ntid = 1, nctaid = 1;
        for (size_t i = 0; i < doms.size(); ++i) {
          if (doms[i] == Domain::Lut || doms[i] == Domain::SmallImm)
            key += fmt::format(",{}", x.srcs[i]);
          if (doms[i] == Domain::Special) {
            x.srcs[i] = uint64_t(kModelledSregs[rng() % std::size(kModelledSregs)]);
            ntid = rng() % 16 == 0 ? 1 + uint32_t(rng() % 1024) : 1 + uint32_t(rng() % 96);
            nctaid = 1 + uint32_t(rng() % 3);
            key += fmt::format(",s{},{},{},{}", x.srcs[i], ntid, nctaid, drawn);
          }
        }
        if (e.op == Opcode::LDC)
          key += fmt::format(",m{}", drawn); // the constant is per launch
        // The interpreter runs VOTE only in a CTA of one thread (a warp of one lane).
        if (e.op == Opcode::VOTE)
          key += fmt::format(",t{}", drawn);
        Group &g = groups[key];
        if (g.xs.empty()) {
          g.in = makeSubject(e.op, mods, pattern, x);
          g.ntid = ntid;
          g.nctaid = nctaid;
        }
        if (e.op == Opcode::S2R) { // one sample per thread of the launch, each with its own inputs
          for (uint32_t c = 0; c < nctaid; ++c)
            for (uint32_t t = 0; t < ntid; ++t) {
              ConcreteInputs y = x;
              y.guard = rng() % 8 != 0;
              y.oldDsts[0] = rng();
              y.tid = t, y.ctaid = c, y.ntid = ntid, y.nctaid = nctaid;
              g.xs.push_back(std::move(y));
            }
          drawn += uint64_t(ntid) * nctaid;
        } else {
          g.xs.push_back(std::move(x));
          ++drawn;
        }
      }
      for (auto &[key, g] : groups) {
        // ELECT's result depends on the lane: each input's thread is its place in its CTA.
        if (e.op == Opcode::ELECT)
          for (size_t k = 0; k < g.xs.size(); ++k)
            g.xs[k].tid = uint32_t(k % kMaxThreadsPerCta);
        std::vector<const ConcreteInputs *> ptrs;
        for (const ConcreteInputs &x : g.xs)
          ptrs.push_back(&x);
        std::vector<ConcreteOutputs> outs;
        std::string error;
        bool ok = true;
        if (e.op == Opcode::S2R) {
          ok = runGroup(g.in, ptrs, g.ntid, g.nctaid, outs, &error);
        } else { // CTAs of at most kMaxThreadsPerCta threads, one input each
          for (size_t at = 0; ok && at < ptrs.size(); at += kMaxThreadsPerCta) {
            std::vector<const ConcreteInputs *> part(
                ptrs.begin() + ptrdiff_t(at),
                ptrs.begin() + ptrdiff_t(std::min<size_t>(ptrs.size(), at + kMaxThreadsPerCta)));
            std::vector<ConcreteOutputs> partOuts;
            ok = runGroup(g.in, part, uint32_t(part.size()), 1, partOuts, &error);
            outs.insert(outs.end(), partOuts.begin(), partOuts.end());
          }
        }
        for (size_t k = 0; k < g.xs.size(); ++k) {
          ++res.samples;
          std::string diff =
              ok ? difference(g.in, g.xs[k], outs[k], model.evaluate(g.in, g.xs[k]))
                 : fmt::format("{}: {}: interpreter: {}", printInstr(Function{}, g.in),
                               describeInputs(g.in, g.xs[k]), error);
          if (diff.empty())
            continue;
          ++res.mismatches;
          if (report.mismatches.size() < opts.keepMismatches)
            report.mismatches.push_back(diff);
        }
      }
      report.samples += res.samples;
      report.mismatchCount += res.mismatches;
      if (progress)
        progress(res);
      report.combinations.push_back(std::move(res));
    }
  }
  return report;
}

} // namespace ori::verify
