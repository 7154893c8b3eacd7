// The two printers of a generated kernel. The device text is the kernel as
// written; the host text runs it for every CTA, and inside a CTA splits it at
// each barrier and warp operation (they sit only at CTA-uniform points:
// fuzz/cuda_gen.cpp): a stretch of thread statements runs for every thread in
// turn, a barrier is the boundary between two stretches (with the reduction
// of __syncthreads_count/and/or computed over the CTA), and a warp operation
// gathers its operands from every thread, then gives each thread its result.
// Thread variables live in a per-thread state S across the stretches.
#include "fuzz/cuda_render.h"

#include <fmt/format.h>

namespace ori::cudagen {

namespace {

// `$N` -> prefix + "vN", `@N` -> prefix + "aN".
std::string subst(const std::string &text, const char *prefix) {
  std::string out;
  out.reserve(text.size() + 16);
  for (char c : text) {
    if (c == '$')
      out += fmt::format("{}v", prefix);
    else if (c == '@')
      out += fmt::format("{}a", prefix);
    else
      out += c;
  }
  return out;
}

std::string pad(int depth) { return std::string(size_t(depth) * 2, ' '); }

const char *warpName(WarpOp op) {
  switch (op) {
  case WarpOp::ShflIdx:
    return "__shfl_sync";
  case WarpOp::ShflUp:
    return "__shfl_up_sync";
  case WarpOp::ShflDown:
    return "__shfl_down_sync";
  case WarpOp::ShflXor:
    return "__shfl_xor_sync";
  case WarpOp::Ballot:
    return "__ballot_sync";
  case WarpOp::Any:
    return "__any_sync";
  case WarpOp::All:
    return "__all_sync";
  case WarpOp::ReduceAdd:
    return "__reduce_add_sync";
  case WarpOp::ReduceMin:
    return "__reduce_min_sync";
  case WarpOp::ReduceMax:
    return "__reduce_max_sync";
  case WarpOp::ReduceAnd:
    return "__reduce_and_sync";
  case WarpOp::ReduceOr:
    return "__reduce_or_sync";
  case WarpOp::ReduceXor:
    return "__reduce_xor_sync";
  case WarpOp::MatchAny:
    return "__match_any_sync";
  case WarpOp::SyncWarp:
    return "__syncwarp";
  }
  return "";
}

const char *barName(BarOp op) {
  switch (op) {
  case BarOp::Sync:
    return "__syncthreads";
  case BarOp::Count:
    return "__syncthreads_count";
  case BarOp::And:
    return "__syncthreads_and";
  case BarOp::Or:
    return "__syncthreads_or";
  }
  return "";
}

bool isShfl(WarpOp op) { return op <= WarpOp::ShflXor; }

// Statements as CUDA text; `prefix` is "" on the device and "S." in a host stretch.
void printThread(const std::vector<Stmt> &v, int depth, const char *prefix, std::string &out);

void printOne(const Stmt &s, int depth, const char *prefix, std::string &out) {
  const std::string p = pad(depth);
  switch (s.kind) {
  case Stmt::Kind::Simple: {
    std::string t = subst(s.text, prefix);
    // Indent continuation lines (the epilogue).
    for (size_t i = 0; (i = t.find('\n', i)) != std::string::npos; i += p.size() + 1)
      t.insert(i + 1, p);
    out += p + t + "\n";
    break;
  }
  case Stmt::Kind::If:
  case Stmt::Kind::UIf:
    out += fmt::format("{}if ({}) {{\n", p, subst(s.text, prefix));
    printThread(s.body, depth + 1, prefix, out);
    if (!s.els.empty()) {
      out += p + "} else {\n";
      printThread(s.els, depth + 1, prefix, out);
    }
    out += p + "}\n";
    break;
  case Stmt::Kind::For:
  case Stmt::Kind::UFor:
    out += fmt::format("{}for ({}) {{\n", p, subst(s.text, prefix));
    printThread(s.body, depth + 1, prefix, out);
    out += p + "}\n";
    break;
  case Stmt::Kind::Do:
    out += fmt::format("{}{{ int {} = 0; do {{\n", p, s.text);
    printThread(s.body, depth + 1, prefix, out);
    out += fmt::format("{}}} while (++{} < {} && ({})); }}\n", p, s.text, s.a, subst(s.b, prefix));
    break;
  case Stmt::Kind::Switch:
    out += fmt::format("{}switch ({}) {{\n", p, subst(s.text, prefix));
    for (const Stmt::Case &c : s.cases) {
      out += fmt::format("{}{} {{\n", p, c.label);
      printThread(c.body, depth + 1, prefix, out);
      out += p + "}\n";
    }
    out += p + "}\n";
    break;
  case Stmt::Kind::Barrier:
    if (s.bar == BarOp::Sync)
      out += p + "__syncthreads();\n";
    else
      out += p + subst(fmt::format("${} = {}({});", s.dst, barName(s.bar), s.a), prefix) + "\n";
    break;
  case Stmt::Kind::Warp: {
    std::string call;
    if (s.warp == WarpOp::SyncWarp)
      call = "__syncwarp()";
    else if (isShfl(s.warp))
      call = fmt::format("{}(FULL, ({})({}), {}, {})", warpName(s.warp), info(s.ty).c, s.a, s.b,
                         s.width);
    else if (s.warp == WarpOp::Ballot || s.warp == WarpOp::Any || s.warp == WarpOp::All)
      call = fmt::format("{}(FULL, {})", warpName(s.warp), s.a);
    else
      call = fmt::format("{}(FULL, ({})({}))", warpName(s.warp), info(s.ty).c, s.a);
    if (s.dst >= 0)
      call = fmt::format("${} = {}", s.dst, call);
    out += p + subst(call, prefix) + ";\n";
    break;
  }
  }
}

void printThread(const std::vector<Stmt> &v, int depth, const char *prefix, std::string &out) {
  for (const Stmt &s : v)
    printOne(s, depth, prefix, out);
}

// The host side.
struct Host {
  const Kernel &k;
  std::string out;

  std::string loop(int depth) const {
    return fmt::format("{}for (unsigned TID = 0; TID < NTID; ++TID) {{ {}_S& S = st[TID]; const "
                       "unsigned LANE = TID & "
                       "31u, WID = TID >> 5; (void)S; (void)LANE; (void)WID;\n",
                       pad(depth), k.name);
  }

  void stretch(const std::vector<const Stmt *> &run, int depth) {
    if (run.empty())
      return;
    out += loop(depth);
    for (const Stmt *s : run)
      printOne(*s, depth + 1, "S.", out);
    out += pad(depth) + "}\n";
  }

  void barrier(const Stmt &s, int depth) {
    const std::string p = pad(depth);
    if (s.bar == BarOp::Sync) {
      out += p + "// __syncthreads();\n";
      return;
    }
    out += fmt::format("{}{{ // v{} = {}(...)\n{}  unsigned count = 0;\n", p, s.dst, barName(s.bar),
                       p);
    out += loop(depth + 1) +
           fmt::format("{}    count += ({}) ? 1u : 0u;\n{}  }}\n", p, subst(s.a, "S."), p);
    const char *value = s.bar == BarOp::Count ? "(int)count"
                        : s.bar == BarOp::And ? "(int)(count == NTID)"
                                              : "(int)(count != 0)";
    out +=
        loop(depth + 1) + fmt::format("{}    S.v{} = {};\n{}  }}\n{}}}\n", p, s.dst, value, p, p);
  }

  void warp(const Stmt &s, int depth) {
    const std::string p = pad(depth);
    if (s.warp == WarpOp::SyncWarp) {
      out += p + "// __syncwarp();\n";
      return;
    }
    const char *t = s.warp == WarpOp::Ballot || s.warp == WarpOp::Any || s.warp == WarpOp::All
                        ? "bool"
                        : info(s.ty).c;
    out += fmt::format("{}{{ // {}\n{}  {} wv[{}]; unsigned wb[{}]; (void)wb;\n", p,
                       warpName(s.warp), p, t, kMaxThreads, kMaxThreads);
    out += loop(depth + 1) + fmt::format("{}    wv[TID] = ({})({});\n", p, t, subst(s.a, "S."));
    if (isShfl(s.warp))
      out += fmt::format("{}    wb[TID] = (unsigned)({});\n", p, subst(s.b, "S."));
    out += p + "  }\n" + loop(depth + 1);
    const std::string dst = fmt::format("S.v{}", s.dst);
    if (isShfl(s.warp)) {
      static const char *modes[] = {"SH_IDX", "SH_UP", "SH_DOWN", "SH_XOR"};
      out += fmt::format("{}    {} = h_shfl(wv, TID, {}, wb[TID], {});\n", p, dst,
                         modes[int(s.warp)], s.width);
    } else {
      out += fmt::format("{}    const unsigned base = TID & ~31u;\n", p);
      std::string body;
      switch (s.warp) {
      case WarpOp::Ballot:
        body =
            "unsigned r = 0; for (unsigned l = 0; l < 32; ++l) r |= (wv[base + l] ? 1u : 0u) << l;";
        break;
      case WarpOp::Any:
        body = "int r = 0; for (unsigned l = 0; l < 32; ++l) r |= wv[base + l] ? 1 : 0;";
        break;
      case WarpOp::All:
        body = "int r = 1; for (unsigned l = 0; l < 32; ++l) r &= wv[base + l] ? 1 : 0;";
        break;
      case WarpOp::ReduceAdd:
        body = fmt::format(
            "{0} r = 0; for (unsigned l = 0; l < 32; ++l) r = w_add<{0}>(r, wv[base + l]);", t);
        break;
      case WarpOp::ReduceMin:
        body = fmt::format(
            "{0} r = wv[base]; for (unsigned l = 1; l < 32; ++l) r = w_min<{0}>(r, wv[base + l]);",
            t);
        break;
      case WarpOp::ReduceMax:
        body = fmt::format(
            "{0} r = wv[base]; for (unsigned l = 1; l < 32; ++l) r = w_max<{0}>(r, wv[base + l]);",
            t);
        break;
      case WarpOp::ReduceAnd:
        body = "unsigned r = ~0u; for (unsigned l = 0; l < 32; ++l) r &= wv[base + l];";
        break;
      case WarpOp::ReduceOr:
        body = "unsigned r = 0; for (unsigned l = 0; l < 32; ++l) r |= wv[base + l];";
        break;
      case WarpOp::ReduceXor:
        body = "unsigned r = 0; for (unsigned l = 0; l < 32; ++l) r ^= wv[base + l];";
        break;
      default: // MatchAny: the lanes whose value equals ours
        body = "unsigned r = 0; for (unsigned l = 0; l < 32; ++l) r |= (wv[base + l] == wv[TID] ? "
               "1u : 0u) << l;";
        break;
      }
      out += fmt::format("{}    {} {} = r;\n", p, body, dst);
    }
    out += p + "  }\n" + p + "}\n";
  }

  void uniform(const std::vector<Stmt> &v, int depth) {
    std::vector<const Stmt *> run;
    for (const Stmt &s : v) {
      bool sync = s.kind == Stmt::Kind::Barrier || s.kind == Stmt::Kind::Warp ||
                  s.kind == Stmt::Kind::UFor || s.kind == Stmt::Kind::UIf;
      if (!sync) {
        run.push_back(&s);
        continue;
      }
      stretch(run, depth);
      run.clear();
      const std::string p = pad(depth);
      switch (s.kind) {
      case Stmt::Kind::Barrier:
        barrier(s, depth);
        break;
      case Stmt::Kind::Warp:
        warp(s, depth);
        break;
      case Stmt::Kind::UFor:
        out += fmt::format("{}for ({}) {{\n", p, s.text);
        uniform(s.body, depth + 1);
        out += p + "}\n";
        break;
      default:
        out += fmt::format("{}if ({}) {{\n", p, s.text);
        uniform(s.body, depth + 1);
        if (!s.els.empty()) {
          out += p + "} else {\n";
          uniform(s.els, depth + 1);
        }
        out += p + "}\n";
        break;
      }
    }
    stretch(run, depth);
  }
};

} // namespace

std::string formatLaunch(const Kernel &k) {
  return k.threadsY == 1 ? std::to_string(k.threads)
                         : fmt::format("{}x{}", k.threads / k.threadsY, k.threadsY);
}

// The kernel's device functions; `qualifiers` says where they live.
std::string renderFunctions(const Kernel &k, const char *qualifiers) {
  std::string out;
  for (size_t f = 0; f < k.funcs.size(); ++f) {
    const Func &fn = k.funcs[f];
    out += fmt::format("{} {} {}_f{}(", qualifiers, info(fn.ret).c, k.name, f);
    for (size_t p = 0; p < fn.params.size(); ++p)
      out += fmt::format("{}{} p{}", p ? ", " : "", info(fn.params[p]).c, p);
    out += fmt::format(") {{\n  return {};\n}}\n", fn.body);
  }
  return out;
}

std::string renderDeviceKernel(const Kernel &k) {
  std::string out = renderFunctions(k, "static __device__ __noinline__");
  out += fmt::format("// {}: seed {} index {}, launch {} threads x {} CTAs\n"
                     "extern \"C\" __global__ void __launch_bounds__({}) {}(const uint8_t* "
                     "__restrict__ in, uint8_t* __restrict__ out) "
                     "{{\n",
                     k.name, k.seed, k.index, formatLaunch(k), k.ctas, kMaxThreads, k.name);
  for (size_t i = 0; i < k.vars.size(); ++i)
    out += fmt::format("  {} v{}{{}};\n", info(k.vars[i]).c, i);
  for (size_t i = 0; i < k.locals.size(); ++i)
    out += fmt::format("  {} a{}[{}] = {{}};\n", info(k.locals[i].ty).c, i, k.locals[i].perThread);
  for (size_t i = 0; i < k.shared.size(); ++i)
    out += fmt::format("  __shared__ {} sh{}[{}];\n", info(k.shared[i].ty).c, i,
                       kMaxThreads * uint32_t(k.shared[i].perThread));
  printThread(k.body, 1, "", out);
  out += "}\n";
  return out;
}

std::string renderHostKernel(const Kernel &k) {
  std::string out = renderFunctions(k, "static");
  out += fmt::format("struct {}_S {{\n", k.name);
  for (size_t i = 0; i < k.vars.size(); ++i)
    out += fmt::format("  {} v{}{{}};\n", info(k.vars[i]).c, i);
  for (size_t i = 0; i < k.locals.size(); ++i)
    out += fmt::format("  {} a{}[{}] = {{}};\n", info(k.locals[i].ty).c, i, k.locals[i].perThread);
  out += "};\n";
  out += fmt::format("static void {}_host(const uint8_t* in, uint8_t* out) {{\n  const unsigned "
                     "NTID = {}u, NCTA = {}u;\n"
                     "  static {}_S st[{}];\n  for (unsigned BID = 0; BID < NCTA; ++BID) {{\n",
                     k.name, k.threads, k.ctas, k.name, kMaxThreads);
  for (size_t i = 0; i < k.shared.size(); ++i)
    out += fmt::format("    static {} sh{}[{}];\n", info(k.shared[i].ty).c, i,
                       kMaxThreads * uint32_t(k.shared[i].perThread));
  out += fmt::format("    for (unsigned t = 0; t < NTID; ++t) st[t] = {}_S{{}};\n", k.name);
  Host h{k, {}};
  h.uniform(k.body, 2);
  out += h.out;
  out += "  }\n}\n";
  return out;
}

std::string deviceFile(const std::vector<const Kernel *> &ks) {
  std::string out =
      fmt::format("// cuda-host-diff: {} generated kernels (docs/cuda-host-diff.md)\n", ks.size());
  out += commonPrelude();
  out += devicePrelude();
  for (const Kernel *k : ks)
    out += "\n" + renderDeviceKernel(*k);
  return out;
}

std::string hostFile(const std::vector<const Kernel *> &ks) {
  std::string out = commonPrelude();
  out += hostPrelude();
  for (const Kernel *k : ks)
    out += "\n" + renderHostKernel(*k);
  out += "\nint main(int argc, char** argv) {\n  if (argc != 3) return 2;\n  FILE* fi = "
         "fopen(argv[1], \"rb\");\n"
         "  FILE* fo = fopen(argv[2], \"wb\");\n  if (!fi || !fo) return 2;\n  "
         "std::vector<uint8_t> in(1024), out;\n";
  for (const Kernel *k : ks)
    out += fmt::format("  if (fread(in.data(), 1, 1024, fi) != 1024) return 2;\n  out.assign({}, "
                       "0);\n  {}_host(in.data(), "
                       "out.data());\n  fwrite(out.data(), 1, out.size(), fo);\n",
                       k->outputBytes(), k->name);
  out += "  fclose(fi);\n  return fclose(fo) == 0 ? 0 : 2;\n}\n";
  return out;
}

} // namespace ori::cudagen
