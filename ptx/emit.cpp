// Ori -> PTX (ori::ptx::emit, ptx/ptx.h): the module text. The header
// directives (.version raised to what the emitted instructions need), the PTX
// text carried through from the input, module variables, a prototype of every
// function, then the bodies (emit_func.cpp). emit_impl.h says how Ori's
// semantics map onto PTX; docs/interpreter.md is what the output must mean.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "ptx/emit_impl.h"
#include "ptx/ptx.h"

namespace ori::ptx {
namespace emit_detail {
namespace {

std::optional<Version> parseVersion(std::string_view s) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= s.size())
    return std::nullopt;
  Version v;
  for (char c : s.substr(0, dot)) {
    if (c < '0' || c > '9')
      return std::nullopt;
    v.major = v.major * 10 + (c - '0');
  }
  for (char c : s.substr(dot + 1)) {
    if (c < '0' || c > '9')
      return std::nullopt;
    v.minor = v.minor * 10 + (c - '0');
  }
  if (v.major > 99 || v.minor > 99)
    return std::nullopt;
  return v;
}

// sm_NN[a|f] -> NN (0 if not of that form) and its suffix.
unsigned smNumber(std::string_view target, char *suffix = nullptr) {
  if (!target.starts_with("sm_"))
    return 0;
  std::string_view t = target.substr(3);
  unsigned n = 0;
  size_t i = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9' && n < 10000)
    n = n * 10 + unsigned(t[i++] - '0');
  if (suffix)
    *suffix = i < t.size() ? t[i] : 0;
  return n;
}

// The PTX ISA version that introduced target `sm_NN[a|f]`.
Version targetVersion(std::string_view target) {
  char suffix = 0;
  unsigned n = smNumber(target, &suffix);
  struct Row {
    unsigned sm;
    Version v;
  };
  static constexpr Row kRows[] = {
      {20, {2, 0}},  {21, {2, 0}},  {30, {2, 0}},  {32, {4, 0}},  {35, {3, 1}},  {37, {4, 1}},
      {50, {4, 0}},  {52, {4, 1}},  {53, {4, 2}},  {60, {5, 0}},  {61, {5, 0}},  {62, {5, 0}},
      {70, {6, 0}},  {72, {6, 1}},  {75, {6, 3}},  {80, {7, 0}},  {86, {7, 1}},  {87, {7, 4}},
      {88, {9, 0}},  {89, {7, 8}},  {90, {7, 8}},  {100, {8, 6}}, {101, {8, 6}}, {103, {8, 8}},
      {110, {9, 0}}, {120, {8, 7}}, {121, {8, 8}},
  };
  Version v{9, 0};
  for (const Row &r : kRows)
    if (r.sm == n)
      v = r.v;
  if (n < 20)
    v = {2, 0};
  if (suffix == 'a')
    v = std::max(v, n == 90 ? Version{8, 0} : Version{8, 6});
  if (suffix == 'f')
    v = std::max(v, Version{8, 8});
  return v;
}

struct Header {
  std::optional<Version> version;
  std::string target, addressSize;
  std::vector<std::string> rest; // other module directives, verbatim
};

// Reads the module's .version/.target/.address_size. The target keeps its
// words, except: sm_1x becomes sm_20 (the Ori module means IEEE binary64 and
// generic addresses, which sm_1x lacks), map_f64_to_f32 and debug (no debug
// information is emitted) are dropped.
Header readHeader(const Module &m, ModuleCtx &ctx) {
  Header h;
  for (const std::string &d : m.ptxDirectives) {
    std::string_view s = d;
    while (!s.empty() && (s.back() == ';' || s.back() == ' ' || s.back() == '\t'))
      s.remove_suffix(1);
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
      s.remove_prefix(1);
    auto word = [&](std::string_view key) -> std::optional<std::string_view> {
      if (!s.starts_with(key) || s.size() <= key.size() ||
          (s[key.size()] != ' ' && s[key.size()] != '\t'))
        return std::nullopt;
      std::string_view v = s.substr(key.size());
      while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
        v.remove_prefix(1);
      return v;
    };
    if (auto v = word(".version")) {
      h.version = parseVersion(*v);
      if (!h.version)
        fail({}, fmt::format("cannot read the PTX version in '{}'", d));
    } else if (auto t = word(".target")) {
      h.target = std::string(*t);
    } else if (auto a = word(".address_size")) {
      h.addressSize = std::string(*a);
    } else {
      h.rest.push_back(d);
    }
  }
  std::vector<std::string> words;
  for (size_t i = 0; i < h.target.size();) {
    size_t j = h.target.find_first_of(", \t", i);
    if (j == std::string::npos)
      j = h.target.size();
    if (j > i)
      words.push_back(h.target.substr(i, j - i));
    i = j + 1;
  }
  std::string target;
  bool haveSm = false;
  for (std::string w : words) {
    if (w == "debug" || w == "map_f64_to_f32")
      continue;
    if (char suffix = 0; smNumber(w, &suffix) != 0) {
      if (smNumber(w) < 20)
        w = "sm_20";
      ctx.sm = smNumber(w);
      ctx.archSpecific = suffix == 'a' || suffix == 'f';
      haveSm = true;
    }
    target += (target.empty() ? "" : ", ") + w;
  }
  if (!haveSm) {
    target = "sm_90" + (target.empty() ? "" : ", " + target);
    ctx.sm = 90;
  }
  h.target = target;
  if (h.addressSize.empty())
    h.addressSize = "64";
  ctx.require(2, 3); // .address_size
  Version tv = targetVersion(target.substr(0, target.find(',')));
  ctx.require(tv.major, tv.minor);
  if (h.version)
    ctx.require(h.version->major, h.version->minor);
  else
    ctx.require(9, 0); // no directives: the newest version ptxas 13 reads
  return h;
}

std::string typeWord(const std::string &t) { return t == "f16" ? "b16" : t; }

// Element `i` of a variable's initializer as PTX text.
std::string initElement(const Variable &v, uint32_t i) {
  for (const Variable::AddrInit &a : v.addrInit) // an address: `x`, `generic(x)+4`
    if (a.offset == size_t(i) * v.elemSize) {
      std::string base = a.generic ? fmt::format("generic({})", a.symbol) : a.symbol;
      if (a.addend != 0)
        base = a.addend > 0 ? fmt::format("{}+{}", base, a.addend)
                            : fmt::format("{}-{}", base, uint64_t(0) - uint64_t(a.addend));
      if (a.byte >= 0) // one byte of it: 0xFF00(sym)
        return fmt::format("0x{:X}({})", uint64_t(0xFF) << (8 * a.byte), base);
      return base;
    }
  uint64_t bits = 0;
  for (uint32_t b = 0; b < v.elemSize && b < 8; ++b) {
    size_t pos = size_t(i) * v.elemSize + b;
    if (pos < v.init.size())
      bits |= uint64_t(v.init[pos]) << (8 * b);
  }
  if (v.type == "f32")
    return fmt::format("0f{:08X}", uint32_t(bits));
  if (v.type == "f64")
    return fmt::format("0d{:016X}", bits);
  if (!v.type.empty() && v.type[0] == 's' && v.elemSize < 8) {
    unsigned w = v.elemSize * 8;
    int64_t x = int64_t(bits << (64 - w)) >> (64 - w);
    return fmt::format("{}", x);
  }
  if (!v.type.empty() && v.type[0] == 's')
    return fmt::format("{}", int64_t(bits));
  return bits < 10 ? fmt::format("{}", bits) : fmt::format("0x{:X}", bits);
}

} // namespace

std::string paramDecl(const Param &p, bool device) {
  std::string digits = p.type.size() > 1 ? p.type.substr(1) : "";
  uint32_t natural = digits == "8"    ? 1
                     : digits == "16" ? 2
                     : digits == "32" ? 4
                     : digits == "64" ? 8
                                      : 0;
  // PTX aligns parameters to at most 128 bytes; they are accessed by name, so
  // a larger Ori alignment changes nothing the emitted code can see.
  uint32_t align = std::clamp<uint32_t>(p.align, 1, 128);
  // ptxas's ABI passes no 8- or 16-bit scalars to a .func: such parameters
  // become byte arrays, accessed by name as before.
  if (p.count > 0 || (p.align && align != natural) || p.size != natural || (device && natural < 4))
    return fmt::format(".param .align {} .b8 {}[{}]", align, p.name, std::max<uint32_t>(p.size, 1));
  return fmt::format(".param .{} {}", typeWord(p.type), p.name);
}

std::string variableDecl(const Variable &v) {
  uint32_t align = std::max<uint32_t>(v.align, 1);
  if (v.space == Space::Param) { // call slots: declared like the parameters they pass
    Param p;
    p.type = v.type;
    p.name = v.name;
    p.size = v.size();
    p.align = v.align ? v.align : v.elemSize;
    p.count = v.count;
    return paramDecl(p, true);
  }
  std::string s =
      fmt::format("{}.{} .align {} .{} {}", v.linkage.empty() ? "" : "." + v.linkage + " ",
                  spaceName(v.space), align, typeWord(v.type), v.name);
  if (v.unsized)
    return s + "[]"; // an .extern array: no initializer
  if (v.count)
    s += fmt::format("[{}]", v.count);
  bool nonzero = std::any_of(v.init.begin(), v.init.end(), [](uint8_t b) { return b != 0; }) ||
                 !v.addrInit.empty();
  if (v.init.empty() && v.addrInit.empty())
    return s;
  if (v.space == Space::Local || v.space == Space::Param)
    return s; // stored by the function's prologue
  if (v.space != Space::Global && v.space != Space::Const) {
    if (nonzero)
      fail({}, fmt::format("variable '{}' in .{} has an initializer, which PTX allows only for "
                           ".global and .const "
                           "(a per-thread store cannot give the per-CTA initial value)",
                           v.name, spaceName(v.space)));
    return s;
  }
  if (!v.count)
    return s + " = " + initElement(v, 0);
  s += " = {";
  for (uint32_t i = 0; i < v.count; ++i)
    s += (i ? ", " : "") + initElement(v, i);
  return s + "}";
}

std::string functionSignature(const Function &f) {
  auto list = [](const std::vector<std::string> &items) {
    std::string s = "(";
    for (size_t i = 0; i < items.size(); ++i)
      s += (i ? ", " : "") + items[i];
    return s + ")";
  };
  std::vector<std::string> rets, params;
  for (const Param &p : f.params)
    params.push_back(paramDecl(p, !f.isEntry));
  for (const Param &p : f.returns)
    rets.push_back(paramDecl(p, !f.isEntry));
  if (rets.size() > 1)
    fail(f.loc,
         fmt::format(
             "function '{}' has {} .param return values; PTX allows one (several only in .reg)",
             f.name, rets.size()));
  std::string s;
  if (!f.isEntry && !rets.empty())
    s += list(rets) + " ";
  return s + f.name + list(params);
}

} // namespace emit_detail

EmitResult emit(const ori::Module &m) {
  using namespace emit_detail;
  EmitResult result;
  try {
    ModuleCtx ctx;
    ctx.m = &m;
    Header h = readHeader(m, ctx);
    analyzeModule(ctx);
    std::string out;
    // `.alias a, b;` names functions: it comes after their prototypes.
    std::vector<std::string> aliases;
    if (!h.rest.empty())
      out += "\n";
    for (const std::string &d : h.rest) {
      if (d.starts_with(".alias"))
        aliases.push_back(d);
      else
        out += d + "\n";
    }
    // A variable whose initializer holds a function's address comes after the prototypes.
    auto namesFunction = [&](const ori::Variable &v) {
      return std::any_of(
          v.addrInit.begin(), v.addrInit.end(),
          [&](const ori::Variable::AddrInit &a) { return m.findFunction(a.symbol) != nullptr; });
    };
    if (!m.variables.empty())
      out += "\n";
    for (const ori::Variable &v : m.variables)
      if (!namesFunction(v))
        out += variableDecl(v) + ";\n";
    bool anyDecl = false;
    for (const ori::Function &f : m.functions) {
      if (f.isEntry)
        continue;
      if (!anyDecl)
        out += "\n";
      anyDecl = true;
      if (!isPtxIdent(f.name))
        fail(f.loc, fmt::format("function name '{}' is not a PTX identifier", f.name));
      std::string linkage =
          f.linkage == "visible" || f.linkage == "weak" ? "." + f.linkage + " " : "";
      // A declaration is .extern (defined in another module) unless it is .visible or .weak: the
      // function an .alias names.
      out += (f.isDeclaration() && linkage.empty() ? ".extern .func " : linkage + ".func ") +
             functionSignature(f) + ";\n";
    }
    for (const std::string &a : aliases)
      out += a + "\n";
    for (const ori::Variable &v : m.variables)
      if (namesFunction(v))
        out += variableDecl(v) + ";\n";
    std::set<std::string> labels;
    // The bodies in the order the input defines them (the module lists a function where it is
    // first declared): ptxas lays out code and line tables in this order.
    std::vector<const ori::Function *> bodies;
    for (const ori::Function &f : m.functions)
      if (!f.isDeclaration())
        bodies.push_back(&f);
    std::stable_sort(
        bodies.begin(), bodies.end(), [](const ori::Function *a, const ori::Function *b) {
          return std::pair(a->loc.line, a->loc.col) < std::pair(b->loc.line, b->loc.col);
        });
    for (const ori::Function *f : bodies) {
      out += '\n';
      out += emitFunction(ctx, *f, labels);
    }
    // Debug sections (-G) need the target's `debug`, which readHeader leaves out without them.
    bool debug = false;
    out += moduleTrailer(m, labels, debug);
    if (debug)
      for (const std::string &d : m.ptxDirectives)
        if (d.starts_with(".target") && d.find("debug") != std::string::npos &&
            h.target.find("debug") == std::string::npos)
          h.target += ", debug";
    result.text = fmt::format("//\n// Generated by oriopt from {}\n//\n\n.version {}.{}\n.target "
                              "{}\n.address_size {}\n",
                              m.fileName.empty() ? std::string("<input>") : m.fileName,
                              ctx.need.major, ctx.need.minor, h.target, h.addressSize) +
                  out;
  } catch (const Failure &e) {
    result.error = Diagnostic{m.fileName, e.loc.line, e.loc.col, e.message};
  } catch (const std::exception &e) {
    result.error = Diagnostic{m.fileName, 0, 0,
                              fmt::format("internal error while emitting PTX: {}", e.what())};
  }
  return result;
}

} // namespace ori::ptx
