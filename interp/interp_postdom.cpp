// Immediate post-dominators, the SIMT runner's reconvergence points (interp/interp_simt.cpp;
// docs/interpreter.md, "Warps").
#include <algorithm>
#include <vector>

#include "interp/interp_impl.h"

namespace ori::interp_detail {

namespace {

// Successors of each block, and whether it can leave the function (EXIT, RET).
void flowOf(const Function &f, std::vector<std::vector<uint32_t>> &succs,
            std::vector<bool> &leaves) {
  size_t n = f.blocks.size();
  succs.assign(n, {});
  leaves.assign(n, false);
  for (size_t b = 0; b < n; ++b) {
    bool falls = true;
    for (const Instr &in : f.blocks[b].instrs) {
      bool guarded = in.guard.has_value();
      if (in.op == Opcode::BRA && !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Label &&
          in.srcs[0].target < n) {
        succs[b].push_back(in.srcs[0].target);
      } else if ((in.op == Opcode::BRX || in.op == Opcode::JMX) && in.srcs.size() > 1 &&
                 in.srcs[1].kind == Operand::Kind::JumpTable &&
                 in.srcs[1].target < f.jumpTables.size()) {
        for (uint32_t t : f.jumpTables[in.srcs[1].target].targets)
          if (t < n)
            succs[b].push_back(t);
      } else if (in.op == Opcode::EXIT || in.op == Opcode::RET) {
        leaves[b] = true;
      } else {
        continue;
      }
      if (!guarded) {
        falls = false;
        break;
      }
    }
    if (falls && b + 1 < n)
      succs[b].push_back(uint32_t(b + 1));
  }
}

} // namespace

// Immediate post-dominator of each block (kNoBlock: only the function's exit post-dominates
// it, or the block cannot reach an exit), by Cooper, Harvey and Kennedy's iteration on the
// reverse CFG with a virtual exit node.
std::vector<int64_t> immediatePostDominators(const Function &f) {
  std::vector<std::vector<uint32_t>> succs;
  std::vector<bool> leaves;
  flowOf(f, succs, leaves);
  const size_t n = f.blocks.size(), exit = n;
  std::vector<std::vector<uint32_t>> preds(n + 1); // predecessors in the forward CFG
  for (size_t b = 0; b < n; ++b) {
    for (uint32_t s : succs[b])
      preds[s].push_back(uint32_t(b));
    if (leaves[b])
      preds[exit].push_back(uint32_t(b));
  }
  // Postorder of a DFS of the reverse CFG from the exit (explicit stack).
  std::vector<int64_t> po(n + 1, -1);
  std::vector<uint32_t> order;
  std::vector<std::pair<uint32_t, size_t>> stack{{uint32_t(exit), 0}};
  std::vector<bool> seen(n + 1, false);
  seen[exit] = true;
  while (!stack.empty()) {
    auto &[v, k] = stack.back();
    if (k < preds[v].size()) {
      uint32_t p = preds[v][k++];
      if (!seen[p]) {
        seen[p] = true;
        stack.push_back({p, 0});
      }
      continue;
    }
    po[v] = int64_t(order.size());
    order.push_back(v);
    stack.pop_back();
  }
  std::vector<int64_t> ipdom(n + 1, kNoBlock);
  ipdom[exit] = int64_t(exit);
  auto intersect = [&](int64_t a, int64_t b) {
    while (a != b) {
      while (po[size_t(a)] < po[size_t(b)])
        a = ipdom[size_t(a)];
      while (po[size_t(b)] < po[size_t(a)])
        b = ipdom[size_t(b)];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = order.size(); k-- > 0;) {
      uint32_t v = order[k];
      if (v == exit)
        continue;
      int64_t d = kNoBlock;
      auto consider = [&](size_t s) {
        if (po[s] < 0 || ipdom[s] == kNoBlock)
          return;
        d = d == kNoBlock ? int64_t(s) : intersect(d, int64_t(s));
      };
      for (uint32_t s : succs[v])
        consider(s);
      if (leaves[v])
        consider(exit);
      if (d != ipdom[v]) {
        ipdom[v] = d;
        changed = true;
      }
    }
  }
  ipdom.pop_back();
  for (int64_t &d : ipdom)
    if (d == int64_t(exit))
      d = kNoBlock;
  return ipdom;
}

} // namespace ori::interp_detail
