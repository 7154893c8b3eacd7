// The statement generator of the CUDA kernel generator (fuzz/cuda_gen.h).
//
// Shape of a kernel: a prologue (variables from the input, local arrays,
// each thread's own shared slots, a barrier), generated statements, a barrier
// and an epilogue that stores every variable and array slot of the thread.
// Barriers and warp operations are placed only where every thread of the CTA
// arrives alike: at the top level or in a CTA-uniform loop or if. A uniform
// loop or if that holds a barrier is preceded by one and its body begins and
// ends with one, so a segment between two barriers is one stretch of text and
// its shared-memory discipline (detail::Mode) is fixed per stretch.
#include "fuzz/cuda_gen.h"

#include <fmt/format.h>

#include "fuzz/cuda_gen_expr.h"

namespace ori::cudagen {

using detail::Mode;

uint32_t Kernel::slots() const { return uint32_t(slotTypes().size()); }

std::vector<Ty> Kernel::slotTypes() const {
  std::vector<Ty> out = vars;
  for (const Array &a : locals)
    out.insert(out.end(), size_t(a.perThread), a.ty);
  for (const Array &a : shared)
    out.insert(out.end(), size_t(a.perThread), a.ty);
  return out;
}

std::vector<std::string> Kernel::slotNames() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < vars.size(); ++i)
    out.push_back(fmt::format("v{}", i));
  for (size_t i = 0; i < locals.size(); ++i)
    for (int j = 0; j < locals[i].perThread; ++j)
      out.push_back(fmt::format("a{}[{}]", i, j));
  for (size_t i = 0; i < shared.size(); ++i)
    for (int j = 0; j < shared[i].perThread; ++j)
      out.push_back(fmt::format("sh{}[TID*{}+{}]", i, shared[i].perThread, j));
  return out;
}

namespace {

size_t count(const std::vector<Stmt> &v) {
  size_t n = 0;
  for (const Stmt &s : v) {
    n += 1 + count(s.body) + count(s.els);
    for (const Stmt::Case &c : s.cases)
      n += count(c.body);
  }
  return n;
}

Stmt simple(std::string text, bool removable = true) {
  Stmt s;
  s.text = std::move(text);
  s.removable = removable;
  return s;
}

Stmt barrier() {
  Stmt s;
  s.kind = Stmt::Kind::Barrier;
  s.removable = false;
  return s;
}

class Gen {
public:
  Gen(uint64_t seed, uint64_t index, const GenOptions &o)
      : r_{seed * 0x9e3779b97f4a7c15ull ^ (index + 1) * 0xd1342543de82ef95ull}, o_(o),
        e_(r_, k_, s_, o_) {
    k_.seed = seed;
    k_.index = index;
    k_.name = fmt::format("k{}", index);
  }

  Kernel run() {
    for (int i = 0; i < 8; ++i)
      r_.next(); // decorrelate neighbouring indices
    k_.threads = 32 * uint32_t(r_.range(1, 4));
    if (k_.threads <= 64 && r_.chance(30))
      k_.threadsY = 2, k_.threads *= 2; // warps of x-fastest linear ids
    k_.ctas = uint32_t(r_.range(1, 3));
    k_.usesHalf = r_.chance(o_.halfPercent) && !o_.avoidHalf;
    k_.usesWarp = r_.chance(o_.warpPercent);
    k_.usesShared = r_.chance(o_.sharedPercent);
    input();
    declare();
    functions();
    prologue();
    int n = r_.range(o_.maxStatements / 3, o_.maxStatements);
    std::vector<Stmt> body = ublock(n, 0, true);
    k_.body.insert(k_.body.end(), body.begin(), body.end());
    epilogue();
    return std::move(k_);
  }

private:
  void input() {
    k_.input.resize(kInputBytes);
    for (uint32_t i = 0; i < kInputBytes; i += 8) {
      uint64_t v = r_.next();
      switch (r_.below(8)) { // mostly random bits, some small numbers and edge values
      case 0:
        v = uint64_t(r_.range(-9, 9));
        break;
      case 1:
        v &= 0xff;
        break;
      case 2:
        v = r_.chance(50) ? 0x7fc000003f800000ull : 0x800000007f800000ull;
        break;
      case 3:
        v = 0x3ff0000000000000ull + (v & 0xfffffffffffull);
        break;
      default:
        break;
      }
      for (int b = 0; b < 8; ++b)
        k_.input[i + b] = uint8_t(v >> (8 * b));
    }
  }

  void declare() {
    int nv = r_.range(5, 10);
    for (Ty t : {Ty::Bool, Ty::I32, Ty::U32, Ty::F32})
      k_.vars.push_back(t);
    if (k_.usesHalf)
      k_.vars.push_back(Ty::F16);
    while (int(k_.vars.size()) < nv)
      k_.vars.push_back(e_.randomType(true));
    for (int i = r_.range(0, 2); i > 0; --i)
      k_.locals.push_back({e_.randomType(false), r_.chance(50) ? 4 : 8});
    if (k_.usesShared) {
      static const std::vector<Ty> types = {Ty::I32, Ty::U32, Ty::U64, Ty::I64, Ty::F32,
                                            Ty::F64, Ty::U8,  Ty::I16, Ty::F16};
      for (int i = r_.range(1, 3); i > 0; --i) {
        Ty t = r_.pick(types);
        if (t == Ty::F16 && !k_.usesHalf)
          t = Ty::U32;
        k_.shared.push_back({t, 1 << r_.below(3)});
      }
    }
    s_.shMode.assign(k_.shared.size(), Mode::None);
    s_.shAtomic.assign(k_.shared.size(), "");
  }

  // Device functions (calls at every -O level), of any types but bool results.
  void functions() {
    if (!r_.chance(40))
      return;
    for (int f = r_.range(1, 2); f > 0; --f) {
      Func fn{e_.randomType(false), {}, ""};
      for (int p = r_.range(1, 3); p > 0; --p)
        fn.params.push_back(e_.randomType(true));
      std::vector<Ty> saved = k_.vars;
      k_.vars = fn.params;
      e_.setInFunction(true);
      fn.body = e_.expr(fn.ret, 2);
      e_.setInFunction(false);
      k_.vars = std::move(saved);
      for (char &c : fn.body)
        if (c == '$')
          c = 'p'; // the parameters are p0, p1, ...
      k_.funcs.push_back(std::move(fn));
    }
  }

  void prologue() {
    for (size_t i = 0; i < k_.vars.size(); ++i)
      k_.body.push_back(simple(fmt::format("${} = {};", i, e_.expr(k_.vars[i], 1))));
    for (size_t i = 0; i < k_.locals.size(); ++i) {
      std::string j = fmt::format("j{}", fresh_++);
      k_.body.push_back(
          simple(fmt::format("for (int {0} = 0; {0} < {1}; ++{0}) @{2}[{0}] = {3};", j,
                             k_.locals[i].perThread, i, e_.expr(k_.locals[i].ty, 1))));
    }
    // Every slot a thread may read is written first (shared memory starts undefined on the device).
    for (size_t i = 0; i < k_.shared.size(); ++i) {
      std::string j = fmt::format("j{}", fresh_++);
      std::string v = e_.expr(k_.shared[i].ty, 1);
      k_.body.push_back(simple(
          fmt::format("for (unsigned {0} = 0; {0} < {1}u; ++{0}) sh{2}[TID * {1}u + {0}] = {3};", j,
                      k_.shared[i].perThread, i, v),
          false));
    }
    if (!k_.shared.empty()) {
      k_.body.push_back(barrier());
      newSegment();
    }
  }

  void epilogue() {
    k_.body.push_back(barrier()); // no atomic of another thread may touch our slots now
    uint32_t slot = 0;
    std::vector<std::string> stores;
    for (size_t i = 0; i < k_.vars.size(); ++i)
      stores.push_back(fmt::format("st_out(out, base + {}u, ${});", slot++, i));
    for (size_t i = 0; i < k_.locals.size(); ++i)
      for (int j = 0; j < k_.locals[i].perThread; ++j)
        stores.push_back(fmt::format("st_out(out, base + {}u, @{}[{}]);", slot++, i, j));
    for (size_t i = 0; i < k_.shared.size(); ++i)
      for (int j = 0; j < k_.shared[i].perThread; ++j)
        stores.push_back(fmt::format("st_out(out, base + {}u, sh{}[TID * {}u + {}u]);", slot++, i,
                                     k_.shared[i].perThread, j));
    std::string text = fmt::format("{{ const unsigned base = (BID * NTID + TID) * {}u;", slot);
    for (const std::string &s : stores)
      text += "\n  " + s;
    text += "\n}";
    k_.body.push_back(simple(text, false));
  }

  void newSegment() {
    for (size_t i = 0; i < k_.shared.size(); ++i) {
      Ty t = k_.shared[i].ty;
      bool atomicOk = (t == Ty::I32 || t == Ty::U32 || t == Ty::U64) && !o_.avoidAtomics;
      switch (r_.weighted({45, 40, atomicOk ? 15 : 0})) {
      case 0:
        s_.shMode[i] = Mode::Own;
        break;
      case 1:
        s_.shMode[i] = Mode::Read;
        break;
      default: {
        s_.shMode[i] = Mode::Atomic;
        static const std::vector<std::string> ops = {"atomicAdd", "atomicXor", "atomicOr",
                                                     "atomicAnd", "atomicMin", "atomicMax"};
        s_.shAtomic[i] = r_.pick(ops);
      }
      }
    }
  }

  int pickVar() { return int(r_.below(uint32_t(k_.vars.size()))); }

  // Statements every thread runs on its own (they may diverge).
  Stmt threadStmt(int depth) {
    for (;;) {
      switch (
          r_.weighted({50, depth < 3 ? 10 : 0, depth < 3 && loops_ < 2 ? 8 : 0, depth < 3 ? 5 : 0,
                       k_.locals.empty() ? 0 : 5, k_.shared.empty() ? 0 : 7, loops_ > 0 ? 4 : 0})) {
      case 0: {
        int v = pickVar();
        return simple(fmt::format("${} = {};", v, e_.expr(k_.vars[size_t(v)], o_.exprDepth)));
      }
      case 1: {
        Stmt s;
        s.kind = Stmt::Kind::If;
        s.text = e_.boolExpr(2);
        s.body = block(r_.range(1, 3), depth + 1);
        if (r_.chance(50))
          s.els = block(r_.range(1, 3), depth + 1);
        return s;
      }
      case 2:
        return loop(depth);
      case 3:
        return switchStmt(depth);
      case 4: {
        size_t i = r_.below(uint32_t(k_.locals.size()));
        return simple(fmt::format("@{}[({}) & {}u] = {};", i, e_.index(1),
                                  k_.locals[i].perThread - 1, e_.expr(k_.locals[i].ty, 2)));
      }
      case 5: {
        size_t i = r_.below(uint32_t(k_.shared.size()));
        const Array &a = k_.shared[i];
        if (s_.shMode[i] == Mode::Own)
          return simple(fmt::format("sh{}[TID * {}u + (({}) & {}u)] = {};", i, a.perThread,
                                    e_.index(1), a.perThread - 1, e_.expr(a.ty, 2)));
        if (s_.shMode[i] == Mode::Atomic)
          return simple(fmt::format("{}(&sh{}[({}) % (NTID * {}u)], {});", s_.shAtomic[i], i,
                                    e_.index(1), a.perThread, e_.expr(a.ty, 2)));
        break;
      }
      default:
        return simple(
            fmt::format("if ({}) {};", e_.boolExpr(2), r_.chance(50) ? "break" : "continue"));
      }
    }
  }

  Stmt loop(int depth) {
    Stmt s;
    s.kind = Stmt::Kind::For;
    std::string i = fmt::format("i{}", fresh_++);
    if (r_.chance(25)) { // do-while: the body runs at least once
      s.kind = Stmt::Kind::Do;
      s.text = i;
      s.a = std::to_string(r_.range(1, 6));
      s.b = e_.boolExpr(1);
      ++loops_;
      s.body = block(r_.range(1, 4), depth + 1);
      --loops_;
      return s;
    }
    switch (r_.below(3)) {
    case 0:
      s.text = fmt::format("int {0} = 0; {0} < {1}; ++{0}", i, r_.range(1, 5));
      break;
    case 1:
      s.text = fmt::format("int {0} = 0; {0} < (int)(({1}) & 7u); ++{0}", i, e_.index(1));
      break;
    default:
      s.text = fmt::format("int {0} = (int)(({1}) & 15u); {0} > 0; {0} -= {2}", i, e_.index(1),
                           r_.range(1, 3));
      break;
    }
    ++loops_;
    s_.loopVars.push_back(i);
    s.body = block(r_.range(1, 4), depth + 1);
    s_.loopVars.pop_back();
    --loops_;
    return s;
  }

  Stmt switchStmt(int depth) {
    static const std::vector<Ty> sel = {Ty::I8, Ty::U8, Ty::I16, Ty::U16, Ty::I32, Ty::U32};
    Ty t = r_.pick(sel);
    Stmt s;
    s.kind = Stmt::Kind::Switch;
    s.text = fmt::format("({})({})", info(t).c, e_.expr(r_.chance(50) ? t : Ty::I32, 2));
    std::vector<int> used;
    int n = r_.range(1, 5);
    int savedLoops = loops_;
    loops_ = 0; // a `break` inside a case leaves the switch, not a loop: none generated there
    for (int c = 0; c < n; ++c) {
      int v = r_.chance(70) ? r_.range(-3, 6) : int(r_.range(-128, 127));
      if (!info(t).isSigned && v < 0)
        v = -v;
      bool dup = false;
      for (int u : used)
        dup |= u == v;
      if (dup)
        continue;
      used.push_back(v);
      Stmt::Case k{fmt::format("case {}:", v), block(r_.range(0, 2), depth + 1)};
      if (r_.chance(75))
        k.body.push_back(simple("break;", false));
      s.cases.push_back(std::move(k));
    }
    if (r_.chance(60))
      s.cases.push_back({"default:", block(r_.range(0, 2), depth + 1)});
    loops_ = savedLoops;
    return s;
  }

  std::vector<Stmt> block(int n, int depth) {
    std::vector<Stmt> out;
    for (int i = 0; i < n; ++i)
      out.push_back(threadStmt(depth));
    return out;
  }

  Stmt warpStmt() {
    Stmt s;
    s.kind = Stmt::Kind::Warp;
    static const std::vector<int> weights = {10, 6, 6, 8, 6, 3, 3, 3, 2, 2, 2, 2, 2, 4, 1};
    s.warp = WarpOp(r_.weighted(weights));
    auto dstOf = [&](Ty t) {
      std::vector<int> vs = e_.varsOf(t);
      return vs.empty() ? -1 : r_.pick(vs);
    };
    switch (s.warp) {
    case WarpOp::ShflIdx:
    case WarpOp::ShflUp:
    case WarpOp::ShflDown:
    case WarpOp::ShflXor: {
      static const std::vector<Ty> types = {Ty::I32, Ty::U32, Ty::I64, Ty::U64,
                                            Ty::F32, Ty::F64, Ty::F16};
      do
        s.ty = r_.pick(types);
      while ((s.ty == Ty::F16 && !k_.usesHalf) || dstOf(s.ty) < 0);
      s.dst = dstOf(s.ty);
      s.a = e_.expr(s.ty, 2);
      if (s.warp == WarpOp::ShflIdx)
        s.b = r_.chance(40) ? fmt::format("{}", r_.below(40))
                            : fmt::format("(int)(({}) & 63u)", e_.index(1));
      else
        s.b = r_.chance(60) ? fmt::format("{}u", r_.below(32))
                            : fmt::format("(({}) & 31u)", e_.index(1));
      s.width = 1 << (r_.chance(60) ? 5 : r_.below(6));
      break;
    }
    case WarpOp::Ballot:
      s.ty = Ty::U32;
      s.dst = dstOf(Ty::U32);
      s.a = e_.boolExpr(2);
      break;
    case WarpOp::Any:
    case WarpOp::All:
      s.ty = Ty::I32;
      s.dst = dstOf(Ty::I32);
      s.a = e_.boolExpr(2);
      break;
    case WarpOp::ReduceMin:
    case WarpOp::ReduceMax:
    case WarpOp::ReduceAdd:
      s.ty = r_.chance(50) ? Ty::I32 : Ty::U32;
      s.dst = dstOf(s.ty);
      s.a = e_.expr(s.ty, 2);
      break;
    case WarpOp::ReduceAnd:
    case WarpOp::ReduceOr:
    case WarpOp::ReduceXor:
      s.ty = Ty::U32;
      s.dst = dstOf(Ty::U32);
      s.a = e_.expr(Ty::U32, 2);
      break;
    case WarpOp::MatchAny: {
      static const std::vector<Ty> types = {Ty::I32, Ty::U32, Ty::I64, Ty::U64};
      s.ty = r_.pick(types);
      s.dst = dstOf(Ty::U32);
      // Few distinct values, so that lanes match.
      s.a = fmt::format("({})(({}) & 3u)", info(s.ty).c, e_.index(1));
      break;
    }
    case WarpOp::SyncWarp:
      break;
    }
    return s;
  }

  Stmt barrierStmt() {
    Stmt s = barrier();
    s.bar = BarOp(r_.weighted({8, 2, 1, 1}));
    if (s.bar != BarOp::Sync) {
      s.dst = r_.pick(e_.varsOf(Ty::I32));
      s.a = e_.boolExpr(2);
    }
    newSegment();
    return s;
  }

  // Statements at a point every thread of the CTA reaches alike.
  std::vector<Stmt> ublock(int n, int depth, bool barriers) {
    std::vector<Stmt> out;
    for (int i = 0; i < n; ++i) {
      switch (r_.weighted({70, k_.usesWarp ? 12 : 0,
                           barriers && !k_.shared.empty() ? 6 : (barriers ? 1 : 0),
                           depth < 2 ? 5 : 0})) {
      case 0:
        out.push_back(threadStmt(0));
        break;
      case 1:
        out.push_back(warpStmt());
        break;
      case 2:
        out.push_back(barrierStmt());
        break;
      default: {
        bool withBarriers = barriers && r_.chance(50);
        if (withBarriers)
          out.push_back(barrierStmt());
        Stmt s;
        s.kind = r_.chance(50) ? Stmt::Kind::UFor : Stmt::Kind::UIf;
        std::string u;
        if (s.kind == Stmt::Kind::UFor) {
          u = fmt::format("u{}", fresh_++);
          s.text = fmt::format("int {0} = 0; {0} < (int)({1}); ++{0}", u,
                               r_.chance(50) ? std::to_string(r_.range(1, 3))
                                             : e_.uniformInt() + " % 3u + 1u");
          s_.uniformVars.push_back(u);
        } else {
          s.text = e_.uniformCond();
        }
        auto body = [&] {
          std::vector<Stmt> b;
          if (withBarriers)
            b.push_back(barrierStmt());
          std::vector<Stmt> inner = ublock(r_.range(1, 4), depth + 1, withBarriers);
          b.insert(b.end(), inner.begin(), inner.end());
          if (withBarriers)
            b.push_back(barrierStmt());
          return b;
        };
        s.body = body();
        if (s.kind == Stmt::Kind::UIf && r_.chance(40))
          s.els = body();
        if (!u.empty())
          s_.uniformVars.pop_back();
        out.push_back(std::move(s));
        if (withBarriers)
          newSegment();
      }
      }
    }
    return out;
  }

  detail::Rng r_;
  GenOptions o_;
  Kernel k_;
  detail::Scope s_;
  detail::ExprGen e_;
  int fresh_ = 0, loops_ = 0;
};

void number(std::vector<Stmt> &v, uint32_t &next) {
  for (Stmt &s : v) {
    s.id = next++;
    number(s.body, next);
    number(s.els, next);
    for (Stmt::Case &c : s.cases)
      number(c.body, next);
  }
}

} // namespace

size_t Kernel::statements() const { return count(body); }

std::string avoidList(const GenOptions &o) {
  std::string out;
  for (auto [on, name] : {std::pair{o.avoidHalf, "half"},
                          {o.avoidSad, "sad"},
                          {o.avoidMulHi64, "mulhi64"},
                          {o.avoidAtomics, "atomics"}})
    if (on)
      out += (out.empty() ? "" : ",") + std::string(name);
  return out;
}

bool parseAvoid(const std::string &list, GenOptions &o) {
  for (size_t start = 0; start < list.size();) {
    size_t end = list.find(',', start);
    if (end == std::string::npos)
      end = list.size();
    std::string name = list.substr(start, end - start);
    if (name == "half")
      o.avoidHalf = true;
    else if (name == "sad")
      o.avoidSad = true;
    else if (name == "mulhi64")
      o.avoidMulHi64 = true;
    else if (name == "atomics")
      o.avoidAtomics = true;
    else if (!name.empty())
      return false;
    start = end + 1;
  }
  return true;
}

Kernel generateKernel(uint64_t seed, uint64_t index, const GenOptions &opts) {
  Kernel k = Gen(seed, index, opts).run();
  uint32_t next = 0;
  number(k.body, next);
  return k;
}

} // namespace ori::cudagen
