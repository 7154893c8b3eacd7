// A kernel launch from text (pipeline/launch.h).
#include "pipeline/launch.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "interp/auto_launch.h"
#include "ir/ori.h"

namespace ori {

namespace {

// A wrong argument: planLaunch returns its message.
struct BadArgument {
  std::string message;
};
[[noreturn]] void bad(std::string message) { throw BadArgument{std::move(message)}; }

bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

// "NAME=VALUE" -> {NAME, VALUE}.
std::pair<std::string, std::string> splitAssignment(const std::string &flag,
                                                    const std::string &text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    bad(fmt::format("{} {}: expected NAME=VALUE", flag, text));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::optional<uint64_t> parseInteger(const std::string &s) {
  if (s.empty())
    return std::nullopt;
  bool neg = s[0] == '-';
  std::string digits = neg ? s.substr(1) : s;
  if (digits.empty() || !std::isdigit(static_cast<unsigned char>(digits[0])))
    return std::nullopt;
  errno = 0;
  char *end = nullptr;
  uint64_t v = std::strtoull(digits.c_str(), &end, 0);
  if (errno == ERANGE || *end != '\0')
    return std::nullopt;
  if (neg && v > (uint64_t(1) << 63))
    return std::nullopt;
  return neg ? uint64_t(0) - v : v;
}

std::optional<double> parseFloat(const std::string &s) {
  if (s.empty())
    return std::nullopt;
  char *end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (*end != '\0')
    return std::nullopt;
  return d;
}

// "32", "32x4", "32x4x2" -> a launch dimension (x, y, z).
Dim3 parseDim3(const std::string &flag, const std::string &text) {
  uint32_t v[3] = {1, 1, 1};
  size_t k = 0, at = 0;
  for (;; ++k) {
    size_t x = text.find('x', at);
    std::string part = text.substr(at, x == std::string::npos ? std::string::npos : x - at);
    std::optional<uint64_t> n = parseInteger(part);
    if (k >= 3 || !n || part[0] == '-' || *n == 0 || *n > UINT32_MAX)
      bad(fmt::format("{} {}: expected X, XxY or XxYxZ with each a positive integer", flag, text));
    v[k] = uint32_t(*n);
    if (x == std::string::npos)
      break;
    at = x + 1;
  }
  return Dim3(v[0], v[1], v[2]);
}

constexpr uint64_t kMaxBuffer = uint64_t(1) << 30;

// The element types of typed buffers: bytes per element, and whether it is a float or signed.
struct ElementType {
  const char *name;
  uint32_t bytes;
  bool isFloat, isSigned;
};
constexpr ElementType kElementTypes[] = {{"u8", 1, false, false},  {"i8", 1, false, true},
                                         {"u16", 2, false, false}, {"i16", 2, false, true},
                                         {"u32", 4, false, false}, {"i32", 4, false, true},
                                         {"u64", 8, false, false}, {"i64", 8, false, true},
                                         {"f32", 4, true, true},   {"f64", 8, true, true}};
const ElementType *elementType(std::string_view name) {
  for (const ElementType &t : kElementTypes)
    if (name == t.name)
      return &t;
  return nullptr;
}
std::string elementTypeNames() {
  std::string out;
  for (const ElementType &t : kElementTypes)
    out += fmt::format("{}{}", out.empty() ? "" : ", ", t.name);
  return out;
}

// The bits of `value` for a parameter of type `type` (integer, or float text for .f32/.f64).
std::optional<uint64_t> scalarBits(const std::string &value, std::string_view type) {
  if (std::optional<uint64_t> bits = parseInteger(value))
    return bits;
  if (type != "f32" && type != "f64")
    return std::nullopt;
  const std::optional<double> d = parseFloat(value);
  if (!d)
    return std::nullopt;
  return type == "f32" ? uint64_t(std::bit_cast<uint32_t>(float(*d))) : std::bit_cast<uint64_t>(*d);
}

// A buffer value of --buffer (SIZE, @FILE, hex:BYTES) or --arg (also zeros:N and TYPE:V,V,...);
// nullopt when `value` is none of them (a scalar).
std::optional<std::vector<uint8_t>> bufferBytes(const std::string &flag, const std::string &name,
                                                const std::string &value, bool sizeIsBuffer) {
  std::vector<uint8_t> bytes;
  const size_t colon = value.find(':');
  const std::string kind = colon == std::string::npos ? "" : value.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : value.substr(colon + 1);
  if (!value.empty() && value[0] == '@') {
    std::string content;
    if (!readFile(value.substr(1), content))
      bad(fmt::format("{} {}: cannot read '{}'", flag, name, value.substr(1)));
    bytes.assign(content.begin(), content.end());
  } else if (kind == "hex") { // the bytes themselves, as oriverify's replay lines give them
    bool ok = rest.size() % 2 == 0 && rest.size() / 2 <= kMaxBuffer &&
              std::all_of(rest.begin(), rest.end(),
                          [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)); });
    if (!ok)
      bad(fmt::format("{} {}: 'hex:' must be followed by pairs of hex digits", flag, name));
    for (size_t k = 0; k < rest.size(); k += 2)
      bytes.push_back(uint8_t(std::stoul(rest.substr(k, 2), nullptr, 16)));
  } else if (kind == "zeros" || (sizeIsBuffer && colon == std::string::npos)) {
    const std::string text = kind == "zeros" ? rest : value;
    auto size = parseInteger(text);
    if (!size || text[0] == '-' || *size > kMaxBuffer)
      bad(fmt::format("{} {}: size '{}' must be an integer from 0 to 2^30", flag, name, text));
    bytes.assign(*size, 0);
  } else if (const ElementType *t = elementType(kind)) {
    for (size_t i = 0; i <= rest.size();) {
      const size_t end = std::min(rest.find(',', i), rest.size());
      const std::string v = rest.substr(i, end - i);
      i = end + 1;
      std::optional<uint64_t> bits = parseInteger(v);
      if (t->isFloat) {
        const std::optional<double> d = parseFloat(v);
        bits = !d              ? std::nullopt
               : t->bytes == 4 ? std::optional<uint64_t>(std::bit_cast<uint32_t>(float(*d)))
                               : std::optional<uint64_t>(std::bit_cast<uint64_t>(*d));
      }
      if (!bits)
        bad(fmt::format("{} {}: '{}' is not a {} value", flag, name, v, t->name));
      if (bytes.size() + t->bytes > kMaxBuffer)
        bad(fmt::format("{} {}: more than 2^30 bytes", flag, name));
      for (uint32_t b = 0; b < t->bytes; ++b)
        bytes.push_back(uint8_t(*bits >> (8 * b)));
    }
  } else if (!kind.empty()) {
    bad(fmt::format("{} {}: unknown buffer form '{}:' (zeros:N, hex:BYTES, @FILE, or one of {} "
                    "followed by values)",
                    flag, name, kind, elementTypeNames()));
  } else {
    return std::nullopt;
  }
  return bytes;
}

const Function *entryOf(const Module &m, const std::string &name) {
  const Function *entry = nullptr;
  for (const Function &f : m.functions)
    if (f.isEntry && (name.empty() || f.name == name))
      entry = entry ? entry : &f;
  return entry;
}

// The parameter `p` names: its position (0, 1, ...) or its name.
const Param *parameterOf(const Function *entry, const std::string &p) {
  if (!entry)
    return nullptr;
  if (std::optional<uint64_t> k = parseInteger(p); k && p[0] != '-')
    return *k < entry->params.size() ? &entry->params[size_t(*k)] : nullptr;
  for (const Param &q : entry->params)
    if (q.name == p)
      return &q;
  return nullptr;
}

std::string parameterList(const Function *entry) {
  std::string out;
  if (entry)
    for (size_t k = 0; k < entry->params.size(); ++k)
      out += fmt::format("{}{} .{} {}", out.empty() ? "" : ", ", k, entry->params[k].type,
                         entry->params[k].name);
  return out.empty() ? "none" : out;
}

void bindBuffer(RunConfig &cfg, const std::string &flag, const std::string &name,
                std::vector<uint8_t> bytes) {
  if (cfg.params.count(name) || !cfg.buffers.emplace(name, std::move(bytes)).second)
    bad(fmt::format("{}: parameter '{}' is given twice", flag, name));
}

void bindScalar(RunConfig &cfg, const std::string &flag, const std::string &name, uint64_t bits) {
  if (cfg.buffers.count(name) || !cfg.params.emplace(name, bits).second)
    bad(fmt::format("{}: parameter '{}' is given twice", flag, name));
}

LaunchPlan plan(const Module &m, const LaunchRequest &r) {
  LaunchPlan out;
  RunConfig &cfg = out.config;
  cfg.entry = r.entry;
  const AutoLaunchOptions autoDefaults;
  cfg.threads = r.threads.empty() ? (r.autoParams ? autoDefaults.threads : Dim3(1))
                                  : parseDim3("--threads", r.threads);
  cfg.ctas =
      r.ctas.empty() ? (r.autoParams ? autoDefaults.ctas : Dim3(1)) : parseDim3("--ctas", r.ctas);
  cfg.maxSteps = r.maxSteps ? *r.maxSteps : r.autoParams ? autoDefaults.maxSteps : 10'000'000;
  const Function *entry = entryOf(m, r.entry);
  for (const std::string &p : r.params) {
    auto [name, value] = splitAssignment("--param", p);
    const Param *param = parameterOf(entry, name);
    if (param && param->name != name)
      param = nullptr; // --param takes names only
    std::optional<uint64_t> bits = scalarBits(value, param ? std::string_view(param->type) : "");
    if (!bits)
      bad(fmt::format("--param {}: '{}' is not an integer", name, value));
    bindScalar(cfg, "--param", name, *bits);
  }
  for (const std::string &b : r.buffers) {
    auto [name, value] = splitAssignment("--buffer", b);
    std::optional<std::vector<uint8_t>> bytes = bufferBytes("--buffer", name, value, true);
    if (!cfg.buffers.emplace(name, std::move(*bytes)).second)
      bad(fmt::format("--buffer {} is given twice", name));
  }
  for (const std::string &a : r.args) {
    auto [which, value] = splitAssignment("--arg", a);
    const Param *param = parameterOf(entry, which);
    if (!param)
      bad(fmt::format("--arg {}: kernel '{}' has no parameter '{}' (its parameters: {})", a,
                      entry ? entry->name : r.entry, which, parameterList(entry)));
    if (std::optional<std::vector<uint8_t>> bytes = bufferBytes("--arg", which, value, false)) {
      if (param->size != 8)
        bad(fmt::format(
            "--arg {}: parameter '{}' is a .{} of {} bytes, not a pointer: give a number", a,
            param->name, param->type, param->size));
      bindBuffer(cfg, "--arg", param->name, std::move(*bytes));
    } else if (std::optional<uint64_t> bits = scalarBits(value, param->type)) {
      bindScalar(cfg, "--arg", param->name, *bits);
    } else {
      bad(fmt::format("--arg {}: '{}' is neither a number nor a buffer (zeros:N, hex:BYTES, @FILE, "
                      "TYPE:V,V,...)",
                      a, value));
    }
  }
  for (const std::string &text : r.regs) {
    auto [name, value] = splitAssignment("--reg", text);
    // R5, UR3, P1, UP0 as the .ori reader reads them (the validator prints them so); RZ and PT
    // cannot hold a value
    std::optional<Reg> reg = parseRegisterName(name);
    if (!reg || reg->isConst())
      bad(fmt::format("--reg {}: '{}' is not a register (R5, UR3, P1, UP0)", text, name));
    std::optional<uint64_t> bits = value == "true" ? 1 : value == "false" ? 0 : parseInteger(value);
    if (!bits)
      bad(fmt::format("--reg {}: '{}' is not an integer", name, value));
    if (!cfg.initialRegs.emplace(*reg, *bits).second)
      bad(fmt::format("--reg {} is given twice", name));
  }
  cfg.onlyThread = r.onlyThread;
  cfg.sharedDynamic = r.sharedDynamic;
  cfg.clockFromSteps = r.clockFromSteps;
  // autoParams: every parameter the others leave unbound, as autoLaunch binds it.
  if (r.autoParams && entry) {
    AutoLaunchOptions ao;
    ao.threads = cfg.threads;
    ao.ctas = cfg.ctas;
    ao.maxSteps = cfg.maxSteps;
    std::vector<AutoBinding> chosen = bindAuto(m, *entry, autoBindings(m, *entry, ao), cfg);
    out.autoBindings = fmt::format("auto-params ({} threads x {} CTAs): {}",
                                   formatDim3(cfg.threads), formatDim3(cfg.ctas),
                                   chosen.empty() ? "nothing to bind" : formatBindings(chosen));
  }
  return out;
}

// The buffer `p` names in cfg: a parameter's position or name, or a buffer's name.
std::optional<std::string> bufferOf(const Module &m, const RunConfig &cfg, const std::string &p) {
  if (cfg.buffers.count(p) || cfg.extraBuffers.count(p))
    return p;
  if (const Param *param = parameterOf(entryOf(m, cfg.entry), p);
      param && cfg.buffers.count(param->name))
    return param->name;
  return std::nullopt;
}

template <class T> T load(const std::vector<uint8_t> &bytes, size_t at) {
  T v{};
  std::memcpy(&v, bytes.data() + at, sizeof(T));
  return v;
}

std::string element(const std::vector<uint8_t> &bytes, size_t at, const ElementType &t) {
  if (t.isFloat)
    return t.bytes == 4 ? fmt::format("{}", load<float>(bytes, at))
                        : fmt::format("{}", load<double>(bytes, at));
  uint64_t u = 0;
  for (uint32_t b = 0; b < t.bytes; ++b)
    u |= uint64_t(bytes[at + b]) << (8 * b);
  if (!t.isSigned)
    return fmt::format("{}", u);
  const unsigned shift = 64 - 8 * t.bytes;
  return fmt::format("{}", int64_t(u << shift) >> shift);
}

} // namespace

std::variant<LaunchPlan, std::string> planLaunch(const Module &m, const LaunchRequest &r) {
  try {
    return plan(m, r);
  } catch (const BadArgument &e) {
    return e.message;
  }
}

std::variant<BufferDump, std::string> parseBufferDump(const Module &m, const RunConfig &cfg,
                                                      const std::string &spec) {
  BufferDump d;
  const size_t c1 = spec.find(':');
  const std::string which = spec.substr(0, c1);
  std::optional<std::string> name = bufferOf(m, cfg, which);
  if (!name)
    return fmt::format("--dump-buffer {}: no --buffer {} was given", spec, which);
  d.name = *name;
  if (c1 == std::string::npos)
    return d;
  const size_t c2 = spec.find(':', c1 + 1);
  d.type = spec.substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1);
  if (d.type != "hex" && !elementType(d.type))
    return fmt::format("--dump-buffer {}: unknown type '{}' (hex, {})", spec, d.type,
                       elementTypeNames());
  if (c2 != std::string::npos) {
    const std::string count = spec.substr(c2 + 1);
    std::optional<uint64_t> n = parseInteger(count);
    if (!n || count[0] == '-')
      return fmt::format("--dump-buffer {}: count '{}' is not a number", spec, count);
    d.count = *n;
  }
  return d;
}

std::string formatBufferDump(const BufferDump &d, const std::vector<uint8_t> &bytes) {
  if (d.type.empty()) {
    std::string out = fmt::format("buffer {} {}: ", d.name, bytes.size());
    out.reserve(out.size() + bytes.size() * 2 + 1);
    for (uint8_t b : bytes)
      out += fmt::format("{:02x}", b);
    return out + "\n";
  }
  const ElementType hex{"hex", 1, false, false};
  const ElementType &t = d.type == "hex" ? hex : *elementType(d.type);
  const uint64_t all = bytes.size() / t.bytes, shown = std::min(all, d.count.value_or(all));
  std::string out =
      fmt::format("buffer {} {} {}[{}]:\n", d.name, bytes.size(), t.name,
                  shown == all ? fmt::format("{}", all) : fmt::format("{} of {}", shown, all));
  const uint64_t perLine = d.type == "hex" ? 16 : 8;
  for (uint64_t k = 0; k < shown; ++k) {
    if (k % perLine == 0)
      out += fmt::format("{}  [{}]", k ? "\n" : "", k);
    out +=
        " " + (d.type == "hex" ? fmt::format("{:02x}", bytes[k]) : element(bytes, k * t.bytes, t));
  }
  if (shown)
    out += "\n";
  if (bytes.size() % t.bytes && shown == all)
    out += fmt::format("  ({} trailing bytes not shown)\n", bytes.size() % t.bytes);
  return out;
}

std::variant<std::pair<std::string, std::string>, std::string>
parseBufferSave(const Module &m, const RunConfig &cfg, const std::string &spec) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    return fmt::format("--save-buffer {}: expected BUFFER=FILE", spec);
  std::optional<std::string> name = bufferOf(m, cfg, spec.substr(0, eq));
  if (!name)
    return fmt::format("--save-buffer {}: no --buffer {} was given", spec, spec.substr(0, eq));
  return std::make_pair(*name, spec.substr(eq + 1));
}

} // namespace ori
