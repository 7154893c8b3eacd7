// The optimized half's CFG (spec/000): successor edges in the FNV-1a
// successor map, predecessors, a true depth-first RPO by an explicit stack (no
// recursion: a 1M-block chain must not overflow the stack), and backedges in
// the FNV-1a backedge map. The results are copied into the canonical CfgFacts.
#include <cstdint>
#include <vector>

#include "optimized/fnv_map.h"
#include "optimized/optimized.h"

namespace ori::optimized {
namespace {

// A block's successors: edges[offset, offset + count).
struct EdgeRange {
  uint32_t offset = 0, count = 0;
};

// Adds `s` to `out` unless this block has already listed it (seen[s] == stamp).
inline void addSucc(std::vector<uint32_t>& out, std::vector<uint32_t>& seen, uint32_t stamp, uint32_t s) {
  if (seen[s] == stamp) return;
  seen[s] = stamp;
  out.push_back(s);
}

// The successor list of block b by its last instruction (optimized.h).
void successorsOf(const Function& f, uint32_t b, std::vector<uint32_t>& out, std::vector<uint32_t>& seen) {
  const uint32_t n = uint32_t(f.blocks.size());
  const uint32_t stamp = b + 1;
  const bool hasNext = b + 1 < n;
  const Block& blk = f.blocks[b];
  if (blk.instrs.empty()) {
    if (hasNext) addSucc(out, seen, stamp, b + 1);
    return;
  }
  const Instr& last = blk.instrs.back();
  const bool guarded = last.isGuarded();
  switch (last.op) {
  case Opcode::EXIT:
  case Opcode::RET:
    break; // none; guarded: the fall-through, below
  case Opcode::BRA:
    for (const Operand& o : last.srcs)
      if (o.kind == Operand::Kind::Label && o.target < n) {
        addSucc(out, seen, stamp, o.target);
        break;
      }
    break;
  case Opcode::BRX:
    for (const Operand& o : last.srcs)
      if (o.kind == Operand::Kind::JumpTable && o.target < f.jumpTables.size()) {
        for (uint32_t t : f.jumpTables[o.target].targets)
          if (t < n) addSucc(out, seen, stamp, t);
        break;
      }
    break;
  default:
    if (hasNext) addSucc(out, seen, stamp, b + 1); // CALL and everything else
    return;
  }
  // A guarded EXIT/RET/BRA/BRX may not fire: then control falls through.
  if (guarded && hasNext) addSucc(out, seen, stamp, b + 1);
}

} // namespace

CfgFacts computeCfg(const Function& f) {
  const uint32_t n = uint32_t(f.blocks.size());
  CfgFacts cfg;
  cfg.succs.resize(n);
  cfg.preds.resize(n);
  cfg.rpoNumber.assign(n, kNoBlock);
  if (n == 0) return cfg;

  // Successor edge map (spec: Code Object +648), every block gets an entry.
  // As in the spec's full node (value_array, value_count), a node holds a
  // range of one flat edge array rather than a vector of its own.
  FnvMap<EdgeRange> succMap;
  succMap.reserveNodes(n);
  std::vector<uint32_t> edges, scratch, seen(n, 0);
  edges.reserve(size_t(n) + n / 2);
  for (uint32_t b = 0; b < n; ++b) {
    scratch.clear();
    successorsOf(f, b, scratch, seen);
    succMap[b] = EdgeRange{uint32_t(edges.size()), uint32_t(scratch.size())};
    edges.insert(edges.end(), scratch.begin(), scratch.end());
    succMap.addElements(int32_t(scratch.size()));
  }
  for (uint32_t b = 0; b < n; ++b) {
    const EdgeRange& r = *succMap.find(b);
    cfg.succs[b].assign(edges.begin() + r.offset, edges.begin() + r.offset + r.count);
  }

  // Predecessors: sources visited in ascending order, each edge once.
  std::vector<uint32_t> predCount(n, 0);
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t s : cfg.succs[b]) ++predCount[s];
  for (uint32_t b = 0; b < n; ++b) cfg.preds[b].reserve(predCount[b]);
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t s : cfg.succs[b]) cfg.preds[s].push_back(b);

  // Depth-first postorder from bix 0, successors in successor-list order; the
  // stack holds (block, index of the next successor to try).
  std::vector<uint32_t> post;
  post.reserve(n);
  std::vector<uint8_t> visited(n, 0);
  std::vector<std::pair<uint32_t, uint32_t>> stack;
  stack.reserve(64);
  stack.emplace_back(0u, 0u);
  visited[0] = 1;
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    const std::vector<uint32_t>& ss = cfg.succs[b];
    bool pushed = false;
    while (next < ss.size()) {
      uint32_t s = ss[next++];
      if (!visited[s]) {
        visited[s] = 1;
        stack.emplace_back(s, 0u); // invalidates b/next; we leave the loop at once
        pushed = true;
        break;
      }
    }
    if (pushed) continue;
    post.push_back(b);
    stack.pop_back();
  }
  cfg.rpo.assign(post.rbegin(), post.rend());
  for (uint32_t i = 0; i < cfg.rpo.size(); ++i) cfg.rpoNumber[cfg.rpo[i]] = int32_t(i);

  // Backedge map (spec: Code Object +680): src -> targets with
  // RPO(dst) <= RPO(src), among reachable blocks only (an unreachable block has
  // no RPO number to compare).
  FnvMap<std::vector<uint32_t>> backedgeMap;
  for (uint32_t b = 0; b < n; ++b) {
    int32_t rb = cfg.rpoNumber[b];
    if (rb == kNoBlock) continue;
    for (uint32_t s : cfg.succs[b])
      if (cfg.rpoNumber[s] <= rb) {
        backedgeMap[b].push_back(s);
        backedgeMap.addElements(1);
      }
  }
  for (uint32_t b = 0; b < n; ++b)
    if (const std::vector<uint32_t>* ts = backedgeMap.find(b))
      for (uint32_t t : *ts) cfg.backedges.emplace_back(b, t);
  return cfg;
}

} // namespace ori::optimized
