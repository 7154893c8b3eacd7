// Switch dispatch programs, their concrete evaluation and their equivalence
// proof (verify/switch_dispatch.h).
#include "verify/switch_dispatch.h"

#include <fmt/format.h>

#include "verify/obligation_defs.h"
#include "verify/smt.h"

namespace ori::verify {

namespace {
constexpr size_t kMaxTable = size_t(1) << 20;

uint32_t add(DispatchProgram &p, DispatchNode n) {
  p.nodes.push_back(std::move(n));
  return uint32_t(p.nodes.size() - 1);
}

bool compareConcrete(DispatchCmp c, bool isSigned, uint32_t a, uint32_t b) {
  bool lt = isSigned ? int32_t(a) < int32_t(b) : a < b;
  bool gt = isSigned ? int32_t(a) > int32_t(b) : a > b;
  switch (c) {
  case DispatchCmp::EQ:
    return a == b;
  case DispatchCmp::NE:
    return a != b;
  case DispatchCmp::LT:
    return lt;
  case DispatchCmp::LE:
    return !gt;
  case DispatchCmp::GT:
    return gt;
  case DispatchCmp::GE:
    return !lt;
  }
  return false;
}

z3::expr compareTerm(DispatchCmp c, bool isSigned, const z3::expr &a, const z3::expr &b) {
  z3::expr lt = isSigned ? z3::slt(a, b) : z3::ult(a, b);
  z3::expr gt = isSigned ? z3::sgt(a, b) : z3::ugt(a, b);
  switch (c) {
  case DispatchCmp::EQ:
    return a == b;
  case DispatchCmp::NE:
    return a != b;
  case DispatchCmp::LT:
    return lt;
  case DispatchCmp::LE:
    return !gt;
  case DispatchCmp::GT:
    return gt;
  case DispatchCmp::GE:
    return !lt;
  }
  return a == b;
}
} // namespace

uint32_t DispatchProgram::target(uint32_t block) {
  DispatchNode n;
  n.target = block;
  return add(*this, std::move(n));
}

uint32_t DispatchProgram::compare(DispatchCmp cmp, bool isSigned, uint32_t constant,
                                  uint32_t ifTrue, uint32_t ifFalse, uint32_t bias) {
  DispatchNode n;
  n.kind = DispatchNode::Kind::Compare;
  n.cmp = cmp, n.isSigned = isSigned, n.constant = constant, n.ifTrue = ifTrue, n.ifFalse = ifFalse,
  n.bias = bias;
  return add(*this, std::move(n));
}

uint32_t DispatchProgram::table(uint32_t bias, std::vector<uint32_t> entries) {
  DispatchNode n;
  n.kind = DispatchNode::Kind::Table;
  n.bias = bias;
  n.entries = std::move(entries);
  return add(*this, std::move(n));
}

uint32_t DispatchProgram::bitTest(uint32_t bias,
                                  std::vector<std::pair<uint32_t, uint32_t>> clusters,
                                  uint32_t otherwise) {
  DispatchNode n;
  n.kind = DispatchNode::Kind::BitTest;
  n.bias = bias;
  n.clusters = std::move(clusters);
  n.otherwise = otherwise;
  return add(*this, std::move(n));
}

std::string validate(const DispatchProgram &p) {
  if (p.nodes.empty())
    return "the program has no nodes";
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const DispatchNode &n = p.nodes[i];
    auto ref = [&](uint32_t j) { return j < i; };
    switch (n.kind) {
    case DispatchNode::Kind::Target:
      break;
    case DispatchNode::Kind::Compare:
      if (!ref(n.ifTrue) || !ref(n.ifFalse))
        return fmt::format("node {} refers to a node that is not before it", i);
      break;
    case DispatchNode::Kind::Table:
      if (n.entries.empty() || n.entries.size() > kMaxTable)
        return fmt::format("node {}: a table needs 1 to {} entries", i, kMaxTable);
      break;
    case DispatchNode::Kind::BitTest:
      if (!ref(n.otherwise))
        return fmt::format("node {} refers to a node that is not before it", i);
      for (const auto &[mask, next] : n.clusters)
        if (!ref(next))
          return fmt::format("node {} refers to a node that is not before it", i);
      break;
    }
  }
  return "";
}

uint32_t dispatchTarget(const DispatchProgram &p, uint32_t selector) {
  size_t i = p.nodes.size() - 1;
  for (;;) { // every step goes to an earlier node, so this ends
    const DispatchNode &n = p.nodes[i];
    uint32_t v = selector - n.bias;
    switch (n.kind) {
    case DispatchNode::Kind::Target:
      return n.target;
    case DispatchNode::Kind::Compare:
      i = compareConcrete(n.cmp, n.isSigned, v, n.constant) ? n.ifTrue : n.ifFalse;
      break;
    case DispatchNode::Kind::Table:
      return v < n.entries.size() ? n.entries[v] : kFaultTarget;
    case DispatchNode::Kind::BitTest: {
      uint32_t bit = v < 32 ? uint32_t(1) << v : 0;
      size_t next = n.otherwise;
      for (const auto &[mask, node] : n.clusters)
        if (bit & mask) {
          next = node;
          break;
        }
      i = next;
      break;
    }
    }
  }
}

DispatchProgram cascade(const std::vector<std::pair<uint32_t, uint32_t>> &cases, uint32_t deflt) {
  DispatchProgram p;
  uint32_t next = p.target(deflt);
  for (size_t k = cases.size();
       k-- > 0;) // built from the last test back, so the first test is the root
    next = p.compare(DispatchCmp::EQ, false, cases[k].first, p.target(cases[k].second), next);
  return p;
}

// The target of every node as a term of the selector, built front to back.
z3::expr dispatchTerm(Smt &smt, const DispatchProgram &p, const z3::expr &sel) {
  std::vector<z3::expr> at;
  for (const DispatchNode &n : p.nodes) {
    z3::expr v = sel - smt.bv(n.bias, 32);
    switch (n.kind) {
    case DispatchNode::Kind::Target:
      at.push_back(smt.bv(n.target, 32));
      break;
    case DispatchNode::Kind::Compare:
      at.push_back(z3::ite(compareTerm(n.cmp, n.isSigned, v, smt.bv(n.constant, 32)), at[n.ifTrue],
                           at[n.ifFalse]));
      break;
    case DispatchNode::Kind::Table: {
      z3::expr t = smt.bv(kFaultTarget, 32);
      for (size_t k = n.entries.size(); k-- > 0;)
        t = z3::ite(v == smt.bv(k, 32), smt.bv(n.entries[k], 32), t);
      at.push_back(t);
      break;
    }
    case DispatchNode::Kind::BitTest: {
      z3::expr bit = z3::shl(smt.bv(1, 32), v); // bvshl: 0 when v >= 32, as SHL
      z3::expr t = at[n.otherwise];
      for (size_t k = n.clusters.size(); k-- > 0;)
        t = z3::ite((bit & smt.bv(n.clusters[k].first, 32)) != smt.bv(0, 32),
                    at[n.clusters[k].second], t);
      at.push_back(t);
      break;
    }
    }
  }
  return at.back();
}

Claim dispatchClaim(Smt &smt, const DispatchProgram &reference, const DispatchProgram &candidate) {
  z3::expr sel = smt.bvVar("selector", 32);
  z3::expr a = dispatchTerm(smt, reference, sel), b = dispatchTerm(smt, candidate, sel);
  return {a == b, {{"selector", sel}, {"reference", a}, {"candidate", b}}};
}

DispatchCheck checkDispatch(const DispatchProgram &reference, const DispatchProgram &candidate,
                            uint32_t maxSelector) {
  DispatchCheck r;
  for (const DispatchProgram *p : {&reference, &candidate})
    if (std::string e = validate(*p); !e.empty()) {
      r.error = (p == &reference ? "reference: " : "candidate: ") + e;
      return r;
    }
  try {
    Smt smt;
    z3::expr sel = smt.bvVar("selector", 32);
    z3::expr a = dispatchTerm(smt, reference, sel), b = dispatchTerm(smt, candidate, sel);
    z3::solver s(smt.ctx());
    s.add(a != b);
    // The precondition: only selectors the caller says can occur.
    if (maxSelector != kAllSelectors)
      s.add(z3::ule(sel, smt.bv(maxSelector, 32)));
    switch (s.check()) {
    case z3::unsat:
      r.equivalent = true;
      return r;
    case z3::sat: {
      z3::model m = s.get_model();
      uint32_t x = uint32_t(m.eval(sel, true).get_numeral_uint64());
      r.selector = x;
      // The concrete evaluator must agree with the formula on the witness.
      r.referenceTarget = dispatchTarget(reference, x);
      r.candidateTarget = dispatchTarget(candidate, x);
      if (r.referenceTarget == r.candidateTarget)
        r.error = fmt::format(
            "internal: Z3's selector 0x{:x} does not separate the programs when run", x);
      else if (x > maxSelector)
        r.error =
            fmt::format("internal: Z3's selector 0x{:x} is above the bound 0x{:x}", x, maxSelector);
      return r;
    }
    default:
      r.error = "Z3 gave up: " + s.reason_unknown();
      return r;
    }
  } catch (const z3::exception &e) {
    r.error = std::string("Z3: ") + e.msg();
  }
  return r;
}

} // namespace ori::verify
