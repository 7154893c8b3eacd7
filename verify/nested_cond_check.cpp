// The proof of one phase 38 combination (verify/nested_cond_check.h).
#include "verify/nested_cond_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

namespace ori::verify {
namespace {

// Where the stubs store: an absolute address (memory is symbolic, so any will do; both
// regions store to the same places).
constexpr int64_t kStubAddress = 0x10000;

std::optional<uint32_t> bixOfLabelId(const Function &f, uint32_t labelId) {
  for (uint32_t b = 0; b < f.blocks.size(); ++b)
    if (f.blocks[b].labelId == labelId)
      return b;
  return std::nullopt;
}

struct RegionBuilder {
  const Function &f;      // the function the region is cut from
  const Function &before; // whose liveness `live` is
  const LivenessFacts &live;
  Reg tmp;         // a register neither function uses
  std::string why; // set when the region cannot be built

  // members[0] is the region's entry, whose first `skip` instructions are left out.
  std::optional<Function> build(const std::vector<uint32_t> &members, size_t skip,
                                const std::string &name) {
    Function out;
    out.name = name;
    out.isEntry = f.isEntry;
    out.params = f.params;
    out.returns = f.returns;
    out.variables = f.variables;
    // Indices: each member's body, then its trampoline when it falls through, then stubs.
    std::map<uint32_t, uint32_t> body;
    uint32_t next = 0;
    std::vector<bool> fallsThrough;
    for (uint32_t m : members) {
      const std::vector<Instr> &code = f.blocks[m].instrs;
      const Instr *last = code.empty() ? nullptr : &code.back();
      if (last && last->info().is(CONTROL) && last->op != Opcode::BRA) {
        why = fmt::format("the region ends in {} (only branches are expected)", last->info().name);
        return std::nullopt;
      }
      const bool falls = !last || last->op != Opcode::BRA || last->isGuarded();
      if (falls && m + 1 >= f.blocks.size()) {
        why = "the region falls off the end of the function";
        return std::nullopt;
      }
      body[m] = next;
      next += falls ? 2 : 1;
      fallsThrough.push_back(falls);
    }
    std::vector<uint32_t> exits; // bixes of f, in the order first met
    auto indexOf = [&](uint32_t t) {
      if (auto it = body.find(t); it != body.end() && t != members[0])
        return it->second;
      auto e = std::ranges::find(exits, t);
      if (e == exits.end())
        e = exits.insert(exits.end(), t);
      return next + uint32_t(e - exits.begin());
    };
    for (size_t k = 0; k < members.size(); ++k) {
      Block blk;
      const std::vector<Instr> &code = f.blocks[members[k]].instrs;
      blk.instrs.assign(code.begin() + ptrdiff_t(k == 0 ? skip : 0), code.end());
      for (Instr &in : blk.instrs)
        for (Operand &s : in.srcs)
          if (s.kind == Operand::Kind::Label)
            s.target = indexOf(s.target);
      out.blocks.push_back(std::move(blk));
      if (fallsThrough[k]) {
        Block tramp;
        tramp.instrs.push_back(
            makeInstr(Opcode::BRA, {}, {Operand::label(indexOf(members[k] + 1))}));
        out.blocks.push_back(std::move(tramp));
      }
    }
    for (uint32_t e : exits) {
      const uint32_t labelId = f.blocks[e].labelId;
      const std::optional<uint32_t> inBefore = bixOfLabelId(before, labelId);
      if (!inBefore) {
        why = fmt::format("no block L{:x} in the function before", labelId);
        return std::nullopt;
      }
      Block stub;
      int64_t at = kStubAddress;
      auto store = [&](Operand value) {
        stub.instrs.push_back(makeInstr(Opcode::STG, {},
                                        {Operand::mem(std::nullopt, at), std::move(value)},
                                        {Mod::E, Mod::W64}));
        at += 8;
      };
      stub.instrs.push_back(
          makeInstr(Opcode::MOV, {Operand::reg_(tmp)}, {Operand::immediate(labelId)}));
      store(Operand::reg_(tmp));
      for (Reg r : live.liveIn[*inBefore]) {
        if (r.file == RegFile::B)
          continue; // barrier registers hold no value the region could change
        if (r.file == RegFile::R) {
          store(Operand::reg_(r));
          continue;
        }
        if (r.isPredicate())
          stub.instrs.push_back(
              makeInstr(Opcode::SEL, {Operand::reg_(tmp)},
                        {Operand::immediate(1), Operand::reg_(RZ), Operand::reg_(r)}));
        else
          stub.instrs.push_back(
              makeInstr(Opcode::MOV, {Operand::reg_(tmp)}, {Operand::reg_(r)}, {Mod::W64}));
        store(Operand::reg_(tmp));
      }
      stub.instrs.push_back(makeInstr(f.isEntry ? Opcode::EXIT : Opcode::RET, {}, {}));
      out.blocks.push_back(std::move(stub));
    }
    for (uint32_t b = 0; b < out.blocks.size(); ++b)
      out.blocks[b].label = fmt::format("region{}", b);
    out.recountRegs();
    return out;
  }
};

} // namespace

NestedCondCheck checkNestedCondCombination(const Module &context, const Function &before,
                                           const Function &after, uint32_t outerLabelId,
                                           const LivenessFacts &live, const TvOptions &opts) {
  NestedCondCheck out;
  const std::string where = fmt::format("combination at L{:x} in {}", outerLabelId, before.name);
  const std::optional<uint32_t> ob = bixOfLabelId(before, outerLabelId),
                                oa = bixOfLabelId(after, outerLabelId);
  if (!ob || !oa || live.liveIn.size() != before.blocks.size()) {
    out.line = where + ": unknown: the outer block is missing";
    out.result.reason = "the outer block is missing";
    return out;
  }
  // The source region: O and the blocks O branches or falls to that are gone after.
  std::vector<uint32_t> members{*ob};
  const std::vector<Instr> &code = before.blocks[*ob].instrs;
  std::vector<uint32_t> succs;
  if (!code.empty())
    for (const Operand &s : code.back().srcs)
      if (s.kind == Operand::Kind::Label)
        succs.push_back(s.target);
  succs.push_back(*ob + 1);
  for (uint32_t s : succs)
    if (s < before.blocks.size() && !bixOfLabelId(after, before.blocks[s].labelId) &&
        std::ranges::find(members, s) == members.end())
      members.push_back(s);

  Function scratch = before;
  scratch.recountRegs();
  Function scratchAfter = after;
  scratchAfter.recountRegs();
  const Reg tmp =
      R(std::max(scratch.nextReg[int(RegFile::R)], scratchAfter.nextReg[int(RegFile::R)]));
  const std::string name = fmt::format("{}_nested_L{:x}", before.name, outerLabelId);
  RegionBuilder src{before, before, live, tmp, {}}, tgt{after, before, live, tmp, {}};
  // The instructions both outer blocks start with run alike from the same state: the regions
  // start after them, so that code the combination did not touch (a REDUX early in the block,
  // say) does not make the proof unknown.
  const std::vector<Instr> &bi = before.blocks[*ob].instrs;
  const std::vector<Instr> &ai = after.blocks[*oa].instrs;
  size_t common = 0;
  while (common + 1 < bi.size() && common + 1 < ai.size() && bi[common] == ai[common])
    ++common;
  std::optional<Function> s = src.build(members, common, name), t = tgt.build({*oa}, common, name);
  if (!s || !t) {
    out.line = fmt::format("{}: unknown: {}", where, s ? tgt.why : src.why);
    out.result.reason = s ? tgt.why : src.why;
    return out;
  }
  Module ms, mt;
  ms.variables = mt.variables = context.variables;
  ms.functions.push_back(std::move(*s));
  mt.functions.push_back(std::move(*t));
  out.result = validateFunction(ms, mt, name, opts);
  out.verdict = out.result.verdict;
  out.line = fmt::format("{}: {}", where, out.result.line());
  return out;
}

} // namespace ori::verify
