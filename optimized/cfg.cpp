// The optimized half's CFG (spec/000): successor edges in the FNV-1a
// successor map, predecessors, a true depth-first RPO by an explicit stack (no
// recursion: a 1M-block chain must not overflow the stack), and backedges in
// the FNV-1a backedge map. The results go into the canonical CfgFacts; its
// succs and preds are the CSR arrays built here, moved in without copying.
//
// As in the spec's full map node (value_array, value_count), a node holds a
// range of one flat edge array rather than a container of its own. The map is
// read once into a CSR view (offsets by bix over that array), and the
// predecessor, DFS and backedge passes walk flat arrays only: per-block
// containers and hash probes per edge cost more than the analyses themselves
// on 100k-block functions (docs/performance.md, "CFG analyses").
#include <cstdint>
#include <utility>
#include <vector>

#include "optimized/fnv_map.h"
#include "optimized/optimized.h"
#include "optimized/prefetch.h"

namespace ori::optimized {
namespace {

// A block's values in a flat array: [offset, offset + count).
struct EdgeRange {
  uint32_t offset = 0, count = 0;
};

// Appends `s` to `out` unless this block has already listed it (seen[s] == stamp).
inline void addSucc(std::vector<uint32_t> &out, std::vector<uint32_t> &seen, uint32_t stamp,
                    uint32_t s) {
  if (seen[s] == stamp)
    return;
  seen[s] = stamp;
  out.push_back(s);
}

// Depth-first postorder from bix 0 over CSR successors (block b's are
// edges[succStart[b], succStart[b + 1])), successors in successor-list order.
// The stack holds (block, next edge index). Returns the reverse postorder and
// sets rpoNumber (which must hold kNoBlock for every block) for the blocks it
// reaches; the others keep kNoBlock.
std::vector<uint32_t> reversePostorder(const std::vector<uint32_t> &succStart,
                                       const std::vector<uint32_t> &edges,
                                       std::vector<int32_t> &rpoNumber) {
  constexpr int32_t kVisited = kNoBlock - 1; // while on the way
  std::vector<uint32_t> post;
  post.reserve(rpoNumber.size());
  std::vector<std::pair<uint32_t, uint32_t>> stack;
  stack.reserve(64);
  stack.emplace_back(0u, succStart[0]);
  rpoNumber[0] = kVisited;
  while (!stack.empty()) {
    auto &[b, e] = stack.back();
    if (e < succStart[b + 1]) {
      const uint32_t s = edges[e++];
      if (rpoNumber[s] == kNoBlock) {
        rpoNumber[s] = kVisited;
        stack.emplace_back(s, succStart[s]); // invalidates b and e; the loop re-reads them
      }
      continue;
    }
    post.push_back(b);
    stack.pop_back();
  }
  const uint32_t m = uint32_t(post.size());
  std::vector<uint32_t> rpo(m);
  for (uint32_t i = 0; i < m; ++i) {
    rpo[m - 1 - i] = post[i];
    rpoNumber[post[i]] = int32_t(m - 1 - i);
  }
  return rpo;
}

} // namespace

// Appends the successor list of block b by its last instruction (rules/cfg.h).
void appendSuccessors(const Function &f, uint32_t b, std::vector<uint32_t> &out,
                      std::vector<uint32_t> &seen) {
  const uint32_t n = uint32_t(f.blocks.size());
  const uint32_t stamp = b + 1;
  const bool hasNext = b + 1 < n;
  const Block &blk = f.blocks[b];
  if (blk.instrs.empty()) {
    if (hasNext)
      addSucc(out, seen, stamp, b + 1);
    return;
  }
  const Instr &last = blk.instrs.back();
  const bool guarded = last.isGuarded();
  switch (last.op) {
  case Opcode::EXIT:
  case Opcode::RET:
    break; // none; guarded: the fall-through, below
  case Opcode::BRA:
    for (const Operand &o : last.srcs)
      if (o.kind == Operand::Kind::Label && o.target < n) {
        addSucc(out, seen, stamp, o.target);
        break;
      }
    break;
  case Opcode::BRX:
  case Opcode::JMX:
    for (const Operand &o : last.srcs)
      if (o.kind == Operand::Kind::JumpTable && o.target < f.jumpTables.size()) {
        for (uint32_t t : f.jumpTables[o.target].targets)
          if (t < n)
            addSucc(out, seen, stamp, t);
        break;
      }
    break;
  default:
    if (hasNext)
      addSucc(out, seen, stamp, b + 1); // CALL and everything else
    return;
  }
  // A guarded EXIT/RET/BRA/BRX may not fire: then control falls through.
  if (guarded && hasNext)
    addSucc(out, seen, stamp, b + 1);
}

CfgFacts computeCfg(const Function &f) {
  const uint32_t n = uint32_t(f.blocks.size());
  CfgFacts cfg;
  cfg.rpoNumber.assign(n, kNoBlock);
  if (n == 0)
    return cfg;

  // Successor edge map (spec: Code Object +648), every block gets an entry.
  FnvMap<EdgeRange> succMap;
  succMap.reserveNodes(n);
  std::vector<uint32_t> edges;
  edges.reserve(size_t(n) + n / 2);
  {
    std::vector<uint32_t> seen(n, 0);
    for (uint32_t b = 0; b < n; ++b) {
      if (b + 32 < n)
        succMap.prefetch(b + 32);
      if (b + 16 < n)
        succMap.prefetchChain(b + 16);
      prefetchLastInstr(f, b + kPrefetchBlocksAhead);
      const uint32_t start = uint32_t(edges.size());
      appendSuccessors(f, b, edges, seen);
      const uint32_t count = uint32_t(edges.size()) - start;
      succMap[b] = EdgeRange{start, count};
      succMap.addElements(int32_t(count));
    }
  }

  // The CSR view of the map: block b's successors are
  // edges[succStart[b], succStart[b + 1]).
  std::vector<uint32_t> succStart(size_t(n) + 1);
  succMap.forEachInPoolOrder([&](uint32_t b, const EdgeRange &r) { succStart[b] = r.offset; });
  succStart[n] = uint32_t(edges.size());

  // Predecessors by counting sort on the target: sources come in ascending
  // order, each edge once.
  {
    std::vector<uint32_t> predStart(size_t(n) + 1, 0), preds(edges.size());
    for (uint32_t s : edges)
      ++predStart[s + 1];
    for (uint32_t b = 0; b < n; ++b)
      predStart[b + 1] += predStart[b];
    std::vector<uint32_t> fill(predStart.begin(), predStart.end() - 1);
    for (uint32_t b = 0; b < n; ++b)
      for (uint32_t e = succStart[b]; e < succStart[b + 1]; ++e)
        preds[fill[edges[e]]++] = b;
    cfg.preds = AdjacencyLists::fromOffsets(std::move(predStart), std::move(preds));
  }

  cfg.rpo = reversePostorder(succStart, edges, cfg.rpoNumber);

  // Backedge map (spec: Code Object +680): src -> targets with
  // RPO(dst) <= RPO(src), among reachable blocks only (an unreachable block has
  // no RPO number to compare). Values are ranges of one flat target array;
  // sources are visited in ascending order, and read back from the map in it.
  FnvMap<EdgeRange> backedgeMap;
  std::vector<uint32_t> backTargets, backSources;
  for (uint32_t b = 0; b < n; ++b) {
    const int32_t rb = cfg.rpoNumber[b];
    if (rb == kNoBlock)
      continue;
    const uint32_t start = uint32_t(backTargets.size());
    for (uint32_t e = succStart[b]; e < succStart[b + 1]; ++e)
      if (cfg.rpoNumber[edges[e]] <= rb)
        backTargets.push_back(edges[e]);
    if (const uint32_t count = uint32_t(backTargets.size()) - start; count != 0) {
      backedgeMap[b] = EdgeRange{start, count};
      backedgeMap.addElements(int32_t(count));
      backSources.push_back(b);
    }
  }
  cfg.backedges.reserve(backTargets.size());
  for (uint32_t b : backSources) {
    const EdgeRange &r = *backedgeMap.find(b);
    for (uint32_t k = r.offset; k < r.offset + r.count; ++k)
      cfg.backedges.emplace_back(b, backTargets[k]);
  }
  // Blocks were appended in bix order, so the CSR view is already the result.
  cfg.succs = AdjacencyLists::fromOffsets(std::move(succStart), std::move(edges));
  return cfg;
}

std::vector<uint32_t> computeRpo(const Function &f) {
  const uint32_t n = uint32_t(f.blocks.size());
  if (n == 0)
    return {};
  std::vector<uint32_t> succStart(size_t(n) + 1), edges, seen(n, 0);
  edges.reserve(size_t(n) + n / 2);
  for (uint32_t b = 0; b < n; ++b) {
    prefetchLastInstr(f, b + kPrefetchBlocksAhead);
    succStart[b] = uint32_t(edges.size());
    appendSuccessors(f, b, edges, seen);
  }
  succStart[n] = uint32_t(edges.size());
  std::vector<int32_t> rpoNumber(n, kNoBlock);
  return reversePostorder(succStart, edges, rpoNumber);
}

} // namespace ori::optimized
