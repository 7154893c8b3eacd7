// A counterexample of translation validation as a launch `oriopt --run` replays
// (verify/tv_impl.h, findReplay; docs/verifier.md, "Replaying a counterexample").
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "verify/tv_impl.h"

namespace ori::verify::tv_detail {

std::string hex(uint64_t v) { return fmt::format("0x{:x}", v); }

uint64_t numeral(const z3::expr &e) {
  uint64_t u = 0;
  if (e.is_numeral())
    Z3_get_numeral_uint64(e.ctx(), e, &u);
  return u;
}

// A counterexample `oriopt --run` replays (docs/verifier.md, "Replaying a counterexample"):
// the query is narrowed to the launch the interpreter makes. One thread runs, alone (other
// threads would run too, and their faults or stores could hide the difference): the only one
// of a one-thread launch with registers zero; or, given a counterexample `hint`, its thread of
// its launch (--only-thread) with its registers read before written (--reg). Leaving the
// thread and the registers free instead makes queries Z3 does not finish in minutes. Each
// parameter by value, or each 8-byte one a buffer of kReplayBufferBytes bytes (as many as
// fuzz/kernel_gen.h's kernels use) whose contents the solver picks; variables and buffers
// where layoutLaunch puts them, with their initial bytes, and nothing else of global memory
// mapped. The difference must be one a run shows: a fault, a different end, or a byte of a
// buffer.
constexpr uint64_t kReplayBufferBytes = 256;
// Buffers up to this many bytes in all have each byte compared at its address (findReplay).
constexpr size_t kMaxBytesCompared = 4096;
// ... unless more than this many of them may differ after simplification.
constexpr size_t kMaxBytesLeft = 64;

// The key Inputs::base gives a variable (SideEncoder::variableBase).
std::string baseKey(const Function *owner, const Variable &v) {
  switch (v.space) {
  case Space::Global:
    return "global " + v.name;
  case Space::Const:
    return "const " + v.name;
  case Space::Shared:
    return owner ? fmt::format("{}.shared {}", owner->name, v.name) : "shared " + v.name;
  case Space::Local:
    return owner ? fmt::format("{}.local {}", owner->name, v.name) : "";
  case Space::Param:
    return owner ? fmt::format("{}.param {}", owner->name, v.name) : "";
  }
  return "";
}

// The interpreter's address of a variable of an inlined callee's frame, keyed
// "k>f>g.local v" or "k>f>g.param v" (SideEncoder::frame_): each frame's local area right
// above its caller's, aligned (interp/interp_mem.cpp, pushFrame); parameter areas, which only the
// validator gives addresses, at depth << 24 in its own window, so frames never overlap.
std::optional<uint64_t> frameAddress(const Module &m, const LaunchLayout &L,
                                     const std::string &key) {
  bool local = true;
  size_t dot = key.rfind(".local ");
  if (dot == std::string::npos) {
    local = false;
    dot = key.rfind(".param ");
  }
  if (dot == std::string::npos)
    return std::nullopt;
  std::string name = key.substr(dot + 7);
  std::vector<const LaunchLayout::Frame *> path;
  const Function *g = nullptr;
  for (size_t from = 0; from <= dot;) {
    size_t to = std::min(key.find('>', from), dot);
    g = m.findFunction(key.substr(from, to - from));
    auto it = g ? L.frames.find(g) : L.frames.end();
    if (it == L.frames.end())
      return std::nullopt;
    path.push_back(&it->second);
    from = to + 1;
  }
  uint64_t base = 0;
  for (size_t i = 1; i < path.size(); ++i) {
    uint64_t align = path[i]->localAlign, end = base + path[i - 1]->localSize;
    base = (end + align - 1) / align * align;
  }
  uint64_t paramBase = uint64_t(path.size() - 1) << 24;
  for (const Variable &v : g->variables)
    if (v.name == name && v.space == (local ? Space::Local : Space::Param)) {
      auto it = L.variables.find(&v);
      if (it == L.variables.end())
        return std::nullopt;
      return (local ? base : paramBase) + it->second;
    }
  if (auto it = path.back()->params.find(name); !local && it != path.back()->params.end())
    return paramBase + it->second;
  return std::nullopt;
}

std::string hexBytes(const std::vector<uint8_t> &b) {
  std::string out;
  for (uint8_t c : b)
    out += fmt::format("{:02x}", c);
  return out;
}

// The byte of `mem` at the constant address `at`, through the if-then-elses and the stores
// at constant addresses a final memory is made of (Z3's simplifier does not look through an
// if-then-else of arrays): equal bytes of two memories then come out as the same term.
z3::expr byteAt(Smt &smt, const z3::expr &mem, uint64_t at,
                std::map<std::pair<unsigned, uint64_t>, z3::expr> &memo) {
  const auto key = std::make_pair(mem.id(), at);
  if (auto it = memo.find(key); it != memo.end())
    return it->second;
  z3::expr v = z3::select(mem, smt.bv(at, 64));
  if (mem.is_app() && mem.decl().decl_kind() == Z3_OP_ITE) {
    z3::expr a = byteAt(smt, mem.arg(1), at, memo), b = byteAt(smt, mem.arg(2), at, memo);
    v = z3::eq(a, b) ? a : z3::ite(mem.arg(0), a, b);
  } else if (mem.is_app() && mem.decl().decl_kind() == Z3_OP_STORE && mem.arg(1).is_numeral()) {
    v = numeral(mem.arg(1)) == at ? mem.arg(2) : byteAt(smt, mem.arg(0), at, memo);
  }
  memo.emplace(key, v);
  return v;
}

std::optional<Replay> findReplay(Smt &smt, Inputs &x, const Module &src, const Module &tgt,
                                 const Function &f, const SideEncoder &es, const SideEncoder &et,
                                 const z3::expr &base, const z3::expr &endsDiffer,
                                 const z3::expr &a, const z3::expr &byteDiffers, bool asBuffers,
                                 const z3::model *hint, unsigned timeoutMs, std::string &why) {
  RunConfig cfg;
  cfg.entry = f.name;
  // An aggregate (array) parameter gets what --param gives it: at most 8 bytes, the rest 0.
  for (const Param &p : f.params) {
    if (asBuffers && p.size == 8 && p.count == 0)
      cfg.buffers[p.name].assign(kReplayBufferBytes, 0);
    else
      cfg.params[p.name] = 0;
  }
  auto laid = layoutLaunch(src, cfg), laidT = layoutLaunch(tgt, cfg);
  if (auto *e = std::get_if<std::string>(&laid)) {
    why = "the interpreter cannot launch it: " + *e;
    return std::nullopt;
  }
  const LaunchLayout &L = std::get<LaunchLayout>(laid);
  if (!std::holds_alternative<LaunchLayout>(laidT) ||
      std::get<LaunchLayout>(laidT).global.size() != L.global.size() ||
      std::get<LaunchLayout>(laidT).cbank0 != L.cbank0) {
    why = "the two modules' variables are laid out differently";
    return std::nullopt;
  }
  // The launch: --threads and --ctas take 1 to 2^20, and at most 2^32-1 threads in all.
  constexpr uint64_t kMaxDim = uint64_t(1) << 20;
  // The scalar inputs the launch fixes (thread, registers, variable addresses, what is
  // mapped) are substituted by their values (`fix`): asserted as equalities instead, the
  // queries with a counterexample's thread and registers took Z3 minutes. The memories are
  // asserted equal to their contents: substituted, every read becomes a read through the
  // buffers' store chains, and a loop unrolled 12 times no longer finishes.
  z3::context &c = smt.ctx();
  Substitution fixed{z3::expr_vector(c), z3::expr_vector(c), z3::expr_vector(c),
                     z3::expr_vector(c)};
  auto fix = [&](const z3::expr &input, const z3::expr &value) {
    fixed.inputs.push_back(input);
    fixed.values.push_back(value);
  };
  z3::expr pin = smt.boolVal(true);
  if (hint) {
    auto value = [&](const z3::expr &e) { return hint->eval(e, true); };
    const uint64_t ntid = numeral(value(x.ntid)), nctaid = numeral(value(x.nctaid));
    if (ntid == 0 || ntid > kMaxThreadsPerCta || nctaid == 0 || nctaid > kMaxDim ||
        ntid * nctaid > kMaxLaunchThreads) {
      why = fmt::format("the counterexample's launch ({} x {} threads) is larger than the "
                        "interpreter takes",
                        ntid, nctaid);
      return std::nullopt;
    }
    for (const z3::expr &e : {x.tid, x.ctaid, x.ntid, x.nctaid})
      fix(e, value(e));
    for (const auto &[reg, e] : x.initRegs)
      fix(e, value(e));
  } else { // the plainest replay: one thread, registers zero, as the interpreter starts them
    fix(x.tid, smt.bv(0, 32));
    fix(x.ctaid, smt.bv(0, 32));
    fix(x.ntid, smt.bv(1, 32));
    fix(x.nctaid, smt.bv(1, 32));
    for (const auto &[reg, e] : x.initRegs)
      fix(e, e.is_bool() ? smt.boolVal(false) : smt.bv(0, 64));
  }
  auto zeros = [&] { return z3::const_array(c.bv_sort(64), smt.bv(0, 8)); };
  auto storeBytes = [&](z3::expr mem, uint64_t at, const std::vector<uint8_t> &bytes) {
    for (size_t k = 0; k < bytes.size(); ++k)
      if (bytes[k] != 0)
        mem = z3::store(mem, smt.bv(at + k, 64), smt.bv(bytes[k], 8));
    return mem;
  };
  // Global memory: variables with their bytes, buffers with the solver's; the const window.
  z3::expr mem = zeros();
  std::map<std::string, std::vector<z3::expr>> bufferBytes;
  z3::expr mappedRegion = smt.boolVal(false); // as a function of a placeholder address/size
  z3::expr pa = smt.bvVar("replay address", 64), pn = smt.bvVar("replay size", 64);
  // [pa, pa + pn) inside [b, b + size), without wrapping around 2^64 (pa + pn would: an
  // access at 0xff..fe looked mapped, and the replay faulted where the source did not).
  auto within = [&](uint64_t b, uint64_t size) {
    return z3::uge(pa, smt.bv(b, 64)) && z3::ule(pn, smt.bv(size, 64)) &&
           z3::ule(pa - smt.bv(b, 64), smt.bv(size, 64) - pn);
  };
  z3::expr inBuffer = smt.boolVal(false);
  for (size_t i = 0; i < L.global.size(); ++i) {
    const auto &g = L.global[i];
    mappedRegion = mappedRegion || within(g.at, g.bytes.size());
    if (cfg.buffers.count(L.globalNames[i])) {
      auto &v = bufferBytes[L.globalNames[i]];
      for (uint64_t k = 0; k < g.bytes.size(); ++k) {
        v.push_back(smt.bvVar(fmt::format("buffer {}[{}]", L.globalNames[i], k), 8));
        mem = z3::store(mem, smt.bv(g.at + k, 64), v.back());
      }
      inBuffer = inBuffer || within(g.at, g.bytes.size());
    } else {
      mem = storeBytes(mem, g.at, g.bytes);
    }
  }
  mappedRegion = mappedRegion || within(kConstWindow, L.constData.size());
  mem = storeBytes(mem, kConstWindow, L.constData);
  for (const auto &b : L.sharedInit)
    mem = storeBytes(mem, kSharedWindow + b.at, b.bytes);
  pin = pin && x.mem0 == mem;
  z3::expr priv = zeros();
  for (const auto &b : L.localInit)
    priv = storeBytes(priv, kLocalWindow + b.at, b.bytes);
  for (const auto &b : L.paramInit)
    priv = storeBytes(priv, kParamWindow + b.at, b.bytes);
  pin = pin && x.priv0 == priv;
  for (const auto &[a, n] : x.mappedUses) {
    z3::expr_vector here(c), use(c);
    here.push_back(pa);
    here.push_back(pn);
    use.push_back(a);
    use.push_back(smt.bv(n, 64));
    z3::expr region = mappedRegion;
    fixed.mappedUses.push_back(x.valid(a, smt.bv(n, 32)));
    fixed.mapped.push_back(region.substitute(here, use));
  }
  // Bank 0: the interpreter's bytes, with the by-value parameters the solver's.
  std::map<uint64_t, z3::expr> paramBytes;
  z3::expr bank0 = zeros();
  for (size_t k = 0; k < L.cbank0.size(); ++k)
    if (L.cbank0[k] != 0)
      bank0 = z3::store(bank0, smt.bv(k, 64), smt.bv(L.cbank0[k], 8));
  for (const Param &p : f.params)
    if (cfg.params.count(p.name))
      for (uint32_t k = 0; k < std::min<uint32_t>(p.size, 8); ++k) {
        z3::expr b = smt.bvVar(fmt::format("param {}[{}]", p.name, k), 8);
        paramBytes.emplace(p.offset + k, b);
        bank0 = z3::store(bank0, smt.bv(p.offset + k, 64), b);
      }
  // (substituted: a read at a constant offset is then the parameter's bytes, and the
  // addresses computed from them are constants where they are the buffers')
  for (const auto &[b, arr] : x.banks)
    fix(arr, b == 0 ? bank0 : zeros());
  // Barriers: the replay runs one thread, so what the other threads leave at a barrier is the
  // memory the thread itself had there, on both sides.
  for (const SideEncoder *side : {&es, &et})
    for (const SideEncoder::Snapshot &sn : side->snapshots)
      pin = pin && z3::implies(sn.when, x.others(sn.index) == sn.mem);
  // Variable addresses.
  std::map<std::string, uint64_t> at;
  for (const Variable &v : src.variables)
    if (auto it = L.variables.find(&v); it != L.variables.end())
      at[baseKey(nullptr, v)] = it->second;
  for (const Function &g : src.functions)
    for (const Variable &v : g.variables)
      if (auto it = L.variables.find(&v);
          it != L.variables.end() &&
          (&g == src.findFunction(f.name) || v.space == Space::Global || v.space == Space::Const))
        at.emplace(baseKey(v.space == Space::Global || v.space == Space::Const ? nullptr : &g, v),
                   it->second);
  const LaunchLayout &LT = std::get<LaunchLayout>(laidT);
  for (const auto &[key, e] : x.bases) {
    if (key.find('>') != std::string::npos) {
      std::optional<uint64_t> s = frameAddress(src, L, key), t = frameAddress(tgt, LT, key);
      if (!s || s != t) {
        why = fmt::format("the two modules lay out the callee frame of '{}' differently", key);
        return std::nullopt;
      }
      fix(e, smt.bv(*s, 64));
      continue;
    }
    auto it = at.find(key);
    if (it == at.end()) {
      why = fmt::format("the interpreter has no address for '{}'", key);
      return std::nullopt;
    }
    fix(e, smt.bv(it->second, 64));
  }
  z3::solver solver = makeSolver(smt);
  z3::params prm(c);
  prm.set("timeout", timeoutMs);
  solver.set(prm);
  // A run shows its end and its buffers' bytes: the byte at `a` must be in a buffer. With a
  // symbolic `a`, every read of the final memory is a read through all the buffers' stores,
  // and Z3 did not find the difference one dropped negation makes in a 20-line kernel in a
  // minute. So the buffers' bytes are compared one by one, at their addresses: simplified,
  // the bytes both sides store alike compare as the same term and drop out, and what is left
  // is the few bytes that may differ (the one that does is `a` afterwards).
  const auto built = std::chrono::steady_clock::now();
  std::vector<uint64_t> bufferAddresses;
  for (size_t i = 0; i < L.global.size(); ++i)
    if (cfg.buffers.count(L.globalNames[i]))
      for (uint64_t k = 0; k < L.global[i].bytes.size(); ++k)
        bufferAddresses.push_back(L.global[i].at + k);
  z3::expr bytesDiffer = smt.boolVal(false);
  // (byteDiffers at a buffer's byte: neither memory is private there)
  std::vector<std::pair<uint64_t, z3::expr>> mayDiffer; // the bytes that do not drop out
  bool byByte = bufferAddresses.size() <= kMaxBytesCompared;
  if (byByte) {
    const z3::expr ms = fixed(es.exitMem).simplify(), mt = fixed(et.exitMem).simplify();
    const z3::expr going = fixed(!es.trapped).simplify();
    std::map<std::pair<unsigned, uint64_t>, z3::expr> memo;
    for (uint64_t at : bufferAddresses) {
      z3::expr vs = byteAt(smt, ms, at, memo), vt = byteAt(smt, mt, at, memo);
      if (z3::eq(vs, vt))
        continue;
      z3::expr d = going && vs != vt;
      mayDiffer.emplace_back(at, d);
      bytesDiffer = bytesDiffer || d;
    }
    // Stores at addresses that stay symbolic (computed from loaded values) leave most bytes
    // in: a disjunction of hundreds of reads through them is slower than one read at `a`
    // (and Z3's QF_AUFBV solver overran its timeout tenfold on it).
    if (mayDiffer.size() > kMaxBytesLeft) {
      byByte = false;
      mayDiffer.clear();
      bytesDiffer = smt.boolVal(false);
    }
  }
  if (!byByte) {
    z3::expr_vector from(c), to(c);
    from.push_back(pa);
    from.push_back(pn);
    to.push_back(a);
    to.push_back(smt.bv(1, 64));
    bytesDiffer = inBuffer.substitute(from, to) && fixed(byteDiffers);
  }
  z3::expr query = fixed(base && pin && endsDiffer) || (fixed(base && pin) && bytesDiffer);
  solver.add(query);
  if (traceEnabled())
    fmt::print(stderr, "tv: {}: replay query built in {:.2f} s ({} buffer bytes may differ)\n",
               f.name,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - built).count(),
               byByte ? fmt::format("{}", mayDiffer.size()) : std::string("any"));
  const auto started = std::chrono::steady_clock::now();
  z3::check_result res = checkWithFallback(smt, solver, timeoutMs);
  if (traceEnabled())
    fmt::print(stderr, "tv: {}: replay query ({}, {}): {} in {:.2f} s\n", f.name,
               asBuffers ? "pointers as buffers" : "parameters by value",
               hint ? "the counterexample's thread" : "one thread, registers zero",
               res == z3::sat     ? "sat"
               : res == z3::unsat ? "unsat"
                                  : "unknown",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  if (res != z3::sat) {
    why = res == z3::unsat
              ? "no counterexample fits the interpreter's launch (one thread alone, parameters "
                "by value or as 256-byte buffers)"
              : "timeout looking for a counterexample the interpreter can run";
    return std::nullopt;
  }
  z3::model m = solver.get_model();
  for (const auto &[at, d] : mayDiffer) // `a`: the first buffer byte that differs, if any
    if (m.eval(d, true).is_true()) {
      fix(a, smt.bv(at, 64));
      break;
    }
  auto num = [&](const z3::expr &e) {
    uint64_t u = 0;
    z3::expr v = m.eval(fixed(e), true);
    if (v.is_numeral())
      Z3_get_numeral_uint64(c, v, &u);
    return u;
  };
  cfg.threads = uint32_t(num(x.ntid));
  cfg.ctas = uint32_t(num(x.nctaid));
  std::string args =
      fmt::format("--threads {} --ctas {}", formatDim3(cfg.threads), formatDim3(cfg.ctas));
  if (hint) {
    cfg.onlyThread = uint32_t(num(x.ctaid) * cfg.threads.x + num(x.tid));
    args += fmt::format(" --only-thread {}", *cfg.onlyThread);
  }
  for (const auto &[reg, e] : x.initRegs) {
    z3::expr v = m.eval(fixed(e), true);
    uint64_t bits = v.is_bool() ? uint64_t(v.is_true()) : num(e);
    if (bits == 0)
      continue;
    cfg.initialRegs[reg] = bits;
    args += fmt::format(" --reg {}{}=0x{:x}", regFilePrefix(reg.file), reg.num, bits);
  }
  for (const Param &p : f.params) {
    if (!cfg.params.count(p.name))
      continue;
    uint64_t v = 0;
    for (uint32_t k = 0; k < std::min<uint32_t>(p.size, 8); ++k)
      v |= num(paramBytes.at(p.offset + k)) << (8 * k);
    cfg.params[p.name] = v;
    args += fmt::format(" --param {}=0x{:x}", p.name, v);
  }
  for (auto &[name, bytes] : bufferBytes) {
    std::vector<uint8_t> &out = cfg.buffers[name];
    for (size_t k = 0; k < bytes.size(); ++k)
      out[k] = uint8_t(num(bytes[k]));
    args += fmt::format(" --buffer {}=hex:{} --dump-buffer {}", name, hexBytes(out), name);
  }
  return Replay{m, fixed, cfg, args};
}

} // namespace ori::verify::tv_detail
