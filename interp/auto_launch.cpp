// Automatic launches: the binding rules are in interp/auto_launch.h and
// docs/interpreter.md, "Automatic launches".
#include "interp/auto_launch.h"

#include <fmt/format.h>

#include <functional>

#include "interp/auto_launch_index.h"

#include <algorithm>
#include <bit>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <variant>

namespace ori {
namespace {

// A set of slots (below) a value may come from, as a bitset over the slots the kernel and its
// callees read, numbered as they are met.
struct Tags {
  std::vector<uint64_t> w;
  bool empty() const {
    return std::all_of(w.begin(), w.end(), [](uint64_t x) { return x == 0; });
  }
  bool test(size_t i) const { return i / 64 < w.size() && (w[i / 64] >> (i % 64) & 1); }
  void set(size_t i) {
    if (w.size() <= i / 64)
      w.resize(i / 64 + 1, 0);
    w[i / 64] |= uint64_t(1) << (i % 64);
  }
  // this |= o; whether this changed.
  bool merge(const Tags &o) {
    bool changed = false;
    if (w.size() < o.w.size())
      w.resize(o.w.size(), 0);
    for (size_t k = 0; k < o.w.size(); ++k) {
      uint64_t n = w[k] | o.w[k];
      changed |= n != w[k];
      w[k] = n;
    }
    return changed;
  }
};

// A place a kernel reads a value from: a parameter's bytes in constant bank 0 (var null,
// offset in the bank) or a module variable without an initializer (offset in it).
struct Slot {
  const Variable *var = nullptr;
  uint64_t offset = 0;
  int64_t parent =
      -1; // >= 0: bytes at `offset` of the buffer slot `parent` (its tag bit) points to
  bool indexed =
      false; // ... at `offset` from an element the kernel indexes (data or a thread index)
  uint64_t stride =
      0; // > 0: `offset` in each element of `stride` bytes of var, indexed by thread or CTA
  friend auto operator<=>(const Slot &, const Slot &) = default;
};

struct SlotFacts {
  uint32_t width = 0; // the widest read
  bool floatUse = false, intUse = false;
  unsigned surfaceDims = 0; // the most coordinates of a SULD/SUST/TEX whose handle it is (0: none)
  bool texture = false;     // the handle of a TEX
  unsigned depth = 0;       // pointers followed to reach it (a parameter or variable: 0)
};

// Elements of a variable's array of structs that get their fields bound, at most (each pointer
// field a buffer of its own).
constexpr int64_t kMaxBoundElements = 16;

// Pointers loaded from buffers are followed this deep (a linked list would go on forever).
constexpr unsigned kMaxPointerDepth = 3;
// The offset of a buffer's "content" slot: every value loaded from the buffer a slot points to,
// wherever in it (its facts say whether they are used only as floats).
constexpr uint64_t kContent = UINT64_MAX;

unsigned loadWidth(const Instr &in) {
  if (in.has(Mod::W64))
    return 8;
  if (in.has(Mod::U8) || in.has(Mod::S8))
    return 1;
  if (in.has(Mod::U16) || in.has(Mod::S16))
    return 2;
  return 4;
}

bool isFloatOp(Opcode op) {
  switch (op) {
  case Opcode::FADD:
  case Opcode::FMUL:
  case Opcode::FFMA:
  case Opcode::FSETP:
  case Opcode::FMNMX:
  case Opcode::DADD:
  case Opcode::DMUL:
  case Opcode::DFMA:
  case Opcode::DSETP:
  case Opcode::DMNMX:
  case Opcode::F2F:
  case Opcode::FRND:
  case Opcode::MUFU:
  case Opcode::FDIV:
  case Opcode::FSQRT:
  case Opcode::HADD2:
  case Opcode::HMUL2:
  case Opcode::HFMA2:
  case Opcode::F2I:
  case Opcode::HMNMX2:
  case Opcode::HSETP2:
  case Opcode::HSET2:
  case Opcode::F2FP:
    return true;
  default:
    return false;
  }
}

bool isIntOp(Opcode op) {
  switch (op) {
  case Opcode::ISETP:
  case Opcode::IADD3:
  case Opcode::IMAD:
  case Opcode::SHF:
  case Opcode::SHL:
  case Opcode::SHR:
  case Opcode::IMNMX:
  case Opcode::LEA:
  case Opcode::SGXT:
  case Opcode::PRMT:
  case Opcode::POPC:
  case Opcode::FLO:
  case Opcode::BREV:
  case Opcode::IDIV:
  case Opcode::IREM:
  case Opcode::I2F:
    return true;
  default:
    return false;
  }
}

// The flow of slot values (auto_launch.h), over the kernel and the functions it calls
// directly, to a fixed point.
class SlotFlow {
public:
  SlotFlow(const Module &m, const Function &kernel, const Dim3 &threads, const Dim3 &ctas)
      : m_(m), threads_(threads), ctas_(ctas) {
    std::vector<const Function *> work{&kernel};
    std::set<const Function *> seen{&kernel};
    while (!work.empty()) {
      const Function *f = work.back();
      work.pop_back();
      funcs_.push_back(f);
      for (const Block &b : f->blocks)
        for (const Instr &in : b.instrs)
          if (in.op == Opcode::CALL)
            if (const Function *g = callee(in); g && seen.insert(g).second)
              work.push_back(g);
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (const Function *f : funcs_)
        changed |= pass(*f);
    }
  }

  // Every slot read, with what its value does.
  struct Result {
    Slot slot;
    SlotFacts facts;
    bool address = false, unsure = false;
    bool backward = false; // also an address base with a negative displacement ([R-0x4])
    size_t tag = 0;        // the slot's tag bit (Slot::parent names a parent by it)
  };
  // .texref symbols a TEX reads, with the most coordinates it uses.
  const std::map<std::string, unsigned> &texrefs() const { return texrefs_; }

  std::vector<Result> results() const {
    std::vector<Result> out;
    for (size_t i = 0; i < slots_.size(); ++i)
      out.push_back(
          {slots_[i], facts_[i], address_.test(i), unsure_.test(i), backward_.test(i), i});
    std::sort(out.begin(), out.end(),
              [](const Result &a, const Result &b) { return a.slot < b.slot; });
    return out;
  }

private:
  const Module &m_;
  Dim3 threads_, ctas_;
  std::map<std::string, unsigned> texrefs_;
  std::map<const Function *, auto_detail::PolyFlow> polys_;
  std::vector<const Function *> funcs_;
  std::map<Slot, size_t> slotIndex_; // slot -> tag bit
  std::vector<Slot> slots_;          // tag bit -> slot
  std::vector<SlotFacts> facts_;
  std::map<std::pair<const Function *, Reg>, Tags> regs_;   // what a register's value may come from
  std::map<std::pair<const Function *, Reg>, Tags> direct_; // ... holding a slot's value itself
  std::map<std::pair<const Function *, Reg>, Tags>
      exact_; // ... itself, or masked or offset by constants
  std::map<std::pair<const Function *, std::string>, Tags>
      params_; // .param variables and parameters
  Tags address_, unsure_, backward_;

  // A direct call's callee with a body in the module (not an .entry), else null.
  const Function *callee(const Instr &call) const {
    if (call.srcs.empty() || call.srcs[0].kind != Operand::Kind::Symbol)
      return nullptr;
    const Function *g = m_.findFunction(call.srcs[0].sym);
    return g && !g->isDeclaration() && !g->isEntry ? g : nullptr;
  }

  Tags slotTag(Slot s, unsigned width) {
    auto [it, fresh] = slotIndex_.emplace(s, slots_.size());
    if (fresh) {
      slots_.push_back(s);
      facts_.emplace_back();
      if (s.parent >= 0)
        facts_.back().depth = facts_[size_t(s.parent)].depth + 1;
    }
    facts_[it->second].width = std::max(facts_[it->second].width, width);
    Tags t;
    t.set(it->second);
    return t;
  }

  // A bank-0 read c[0x0][imm] (no index register) is a parameter slot.
  static bool isParamRead(const Operand &o) {
    return o.kind == Operand::Kind::CBank && o.bank == 0 && !o.hasReg && o.imm >= 0;
  }

  Tags tagsOf(const Function &f, const Operand &o, unsigned width) {
    if (o.kind == Operand::Kind::Reg && !o.reg.isConst()) {
      if (auto it = regs_.find({&f, o.reg}); it != regs_.end())
        return it->second;
    } else if (isParamRead(o)) {
      return slotTag({nullptr, uint64_t(o.imm)}, width);
    }
    return {};
  }

  bool mergeInto(std::map<std::pair<const Function *, Reg>, Tags> &map, const Function &f,
                 const Instr &in, const Tags &t) {
    if (t.empty() || in.dsts.empty() || in.dsts[0].kind != Operand::Kind::Reg ||
        in.dsts[0].reg.isConst())
      return false;
    return map[{&f, in.dsts[0].reg}].merge(t);
  }

  // What a memory operand [sym+off] with no register names: a .param slot of f (a variable or
  // a .func parameter or return value), or a module variable slot without an initializer.
  enum class SymKind { None, Param, Variable };
  SymKind symbolOf(const Function &f, const Operand &o, const Variable **var) const {
    if (o.kind != Operand::Kind::Mem || o.hasReg || o.sym.empty())
      return SymKind::None;
    const Param *param = nullptr;
    const Variable *v = findVariable(m_, f, o.sym, &param);
    if (param || (v && v->space == Space::Param))
      return SymKind::Param;
    if (v && (v->space == Space::Global || v->space == Space::Const) && v->init.empty() &&
        o.imm >= 0) {
      *var = v;
      return SymKind::Variable;
    }
    return SymKind::None;
  }

  Tags exactOf(const Function &f, const Operand &o) {
    if (o.kind == Operand::Kind::Reg && !o.reg.isConst())
      if (auto it = exact_.find({&f, o.reg}); it != exact_.end())
        return it->second;
    return {};
  }

  // What a destination holds exactly (a slot's value, masked or offset by constants): MOV and
  // LDC of a slot, MOV of such a register, LOP3 and IADD3 of one such register with immediates.
  Tags exactTags(const Function &f, const Instr &in, const Tags &direct) {
    Tags e = direct;
    if (in.op == Opcode::MOV && !in.srcs.empty())
      e.merge(exactOf(f, in.srcs[0]));
    if (in.op == Opcode::LOP3 || in.op == Opcode::IADD3) {
      const Operand *r = nullptr;
      bool ok = true;
      for (size_t k = 0; k < 3 && k < in.srcs.size(); ++k) {
        const Operand &o = in.srcs[k];
        if (o.kind == Operand::Kind::Imm || (o.kind == Operand::Kind::Reg && o.reg.isConst()))
          continue;
        if (o.kind != Operand::Kind::Reg || r || o.neg)
          ok = false;
        r = &o;
      }
      if (ok && r)
        e.merge(exactOf(f, *r));
    }
    return e;
  }

  // A load [R + imm] at &var + (terms over thread and CTA indices) + disp, var a .global or
  // .const variable without an initializer that is an array of elements of g bytes (g the
  // terms' coefficients' gcd): the slot at disp % g of every element, and the elements the
  // launch reads (threads_ x ctas_).
  bool strideSlot(const Function &f, const Instr &in, Slot &slot) {
    if (in.srcs.empty())
      return false;
    const Operand &a = in.srcs[0];
    const bool bank =
        a.kind == Operand::Kind::CBank; // LDC c[b][R+imm]: R holds the variable's address
    if ((a.kind != Operand::Kind::Mem && !bank) || !a.hasReg || !a.sym.empty())
      return false;
    auto it = polys_.find(&f);
    if (it == polys_.end())
      it = polys_.emplace(&f, auto_detail::PolyFlow(m_, f)).first;
    std::optional<auto_detail::Poly> p = it->second.address(bank ? Operand::mem(a.reg, a.imm) : a);
    if (!p || !p->var || p->terms.empty() || p->disp < 0)
      return false;
    const Variable *v = p->var;
    if ((v->space != Space::Global && v->space != Space::Const) || !v->init.empty())
      return false;
    uint64_t g = 0;
    for (const auto &[k, c] : p->terms) {
      if (k.first >= 0 || (k.second != auto_detail::kNoAtom && k.second >= 0))
        return false; // a parameter
      g = std::gcd(g, uint64_t(c < 0 ? -c : c));
    }
    const unsigned w = loadWidth(in);
    const uint64_t off = uint64_t(p->disp) % std::max<uint64_t>(g, 1);
    if (g < w || g > v->size() || v->size() % g != 0 || off + w > g)
      return false;
    auto range = auto_detail::polyRange(
        *p, [&](int64_t atom) { return auto_detail::sregRange(atom, threads_, ctas_); });
    if (!range)
      return false;
    slot = Slot{v, off, -1, false, g};
    auto [r, fresh] =
        strideRanges_.emplace(slot, std::pair<int64_t, int64_t>{INT64_MAX, INT64_MIN});
    (void)fresh;
    r->second.first = std::min(r->second.first, range->first / int64_t(g));
    r->second.second = std::max(r->second.second, range->second / int64_t(g));
    return true;
  }
  std::map<Slot, std::pair<int64_t, int64_t>> strideRanges_;

public:
  // Slot::stride slots: the first and last element a launch reads.
  std::pair<int64_t, int64_t> elements(const Slot &s) const {
    auto it = strideRanges_.find(s);
    return it == strideRanges_.end() ? std::pair<int64_t, int64_t>{0, -1} : it->second;
  }

private:
  bool pass(const Function &f) {
    bool changed = false;
    for (const Block &b : f.blocks)
      for (const Instr &in : b.instrs) {
        Tags t, d; // what the destination's value comes from; ... and holds itself
        auto carry = [&](std::initializer_list<size_t> which) {
          for (size_t k : which)
            if (k < in.srcs.size())
              t.merge(tagsOf(f, in.srcs[k], 4));
        };
        Slot strided;
        switch (in.op) {
        case Opcode::LDC:
          if (!in.srcs.empty() && in.srcs[0].kind == Operand::Kind::CBank && in.srcs[0].hasReg) {
            if (strideSlot(f, in, strided))
              d = t = slotTag(strided, loadWidth(in));
            break;
          }
          [[fallthrough]];
        case Opcode::MOV:
          if (!in.srcs.empty()) {
            t = tagsOf(f, in.srcs[0], loadWidth(in));
            if (isParamRead(in.srcs[0]))
              d = t;
            else if (in.srcs[0].kind == Operand::Kind::Reg)
              if (auto it = direct_.find({&f, in.srcs[0].reg}); it != direct_.end())
                d = it->second;
          }
          break;
        case Opcode::IADD3:
        case Opcode::LOP3:
          carry({0, 1, 2});
          break;
        case Opcode::SEL:
          carry({0, 1});
          break;
        case Opcode::IMAD:
          carry({2});
          break;
        case Opcode::LEA:
          carry({1});
          break;
        case Opcode::LD:
        case Opcode::LDL:
        case Opcode::LDS:
        case Opcode::LDG:
          if (!in.srcs.empty()) {
            const Variable *v = nullptr;
            switch (symbolOf(f, in.srcs[0], &v)) {
            case SymKind::Param:
              if (auto it = params_.find({&f, in.srcs[0].sym}); it != params_.end())
                t = it->second;
              break;
            case SymKind::Variable:
              d = t = slotTag({v, uint64_t(in.srcs[0].imm)}, loadWidth(in));
              break;
            case SymKind::None: {
              // A field of an array of structs in a module variable, indexed by thread or CTA.
              if (Slot ss; strideSlot(f, in, ss)) {
                d = t = slotTag(ss, loadWidth(in));
                break;
              }
              // A value loaded from a buffer: the buffer's content; a pointer or handle (8 bytes)
              // at a constant offset from its start or from an indexed element.
              const Operand &a = in.srcs[0];
              if (a.kind != Operand::Kind::Mem || !a.hasReg || a.imm < 0 || !a.sym.empty())
                break;
              Tags base = exactOf(f, Operand::reg_(a.reg)), any;
              if (auto it = regs_.find({&f, a.reg}); it != regs_.end())
                any = it->second;
              for (size_t i = 0; i < slots_.size(); ++i)
                if (any.test(i) && slots_[i].offset != kContent)
                  d.merge(slotTag({nullptr, kContent, int64_t(i), true}, loadWidth(in)));
              if (loadWidth(in) != 8)
                break;
              for (size_t i = 0; i < slots_.size(); ++i)
                if (any.test(i) && facts_[i].depth < kMaxPointerDepth &&
                    slots_[i].offset != kContent) {
                  Tags c = slotTag({nullptr, uint64_t(a.imm), int64_t(i), !base.test(i)}, 8);
                  d.merge(c);
                  t.merge(c);
                }
              break;
            }
            }
          }
          break;
        case Opcode::ST:
        case Opcode::STL:
        case Opcode::STS:
        case Opcode::STG:
          if (in.srcs.size() > 1) {
            const Variable *v = nullptr;
            if (symbolOf(f, in.srcs[0], &v) == SymKind::Param) {
              Tags val = tagsOf(f, in.srcs[1], 4);
              if (!val.empty())
                changed |= params_[{&f, in.srcs[0].sym}].merge(val);
            }
          }
          break;
        case Opcode::CALL: {
          const Function *g = callee(in);
          for (size_t k = 1; k < in.srcs.size(); ++k) {
            const Operand &a = in.srcs[k];
            Tags v = a.kind == Operand::Kind::Symbol ? params_[{&f, a.sym}] : tagsOf(f, a, 4);
            if (v.empty())
              continue;
            if (g && k - 1 < g->params.size() && a.kind == Operand::Kind::Symbol)
              changed |= params_[{g, g->params[k - 1].name}].merge(v);
            else
              changed |= unsure_.merge(v);
          }
          if (g)
            for (size_t k = 0; k < in.dsts.size() && k < g->returns.size(); ++k)
              if (in.dsts[k].kind == Operand::Kind::Symbol)
                if (auto it = params_.find({g, g->returns[k].name}); it != params_.end()) {
                  Tags v = it->second;
                  changed |= params_[{&f, in.dsts[k].sym}].merge(v);
                }
          break;
        }
        default:
          break;
        }
        changed |= mergeInto(regs_, f, in, t);
        changed |= mergeInto(direct_, f, in, d);
        changed |= mergeInto(exact_, f, in, exactTags(f, in, d));
        if (in.op == Opcode::TEX && !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Symbol) {
          unsigned &dims = texrefs_[in.srcs[0].sym];
          if (dims < surfaceDims(in.mods))
            dims = surfaceDims(in.mods), changed = true;
        }
        if ((in.op == Opcode::SULD || in.op == Opcode::SUST || in.op == Opcode::TEX) &&
            !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Reg)
          if (auto it = regs_.find({&f, in.srcs[0].reg}); it != regs_.end())
            for (size_t i = 0; i < slots_.size(); ++i)
              if (it->second.test(i)) {
                if (facts_[i].surfaceDims < surfaceDims(in.mods)) {
                  facts_[i].surfaceDims = surfaceDims(in.mods);
                  changed = true;
                }
                if (in.op == Opcode::TEX && !facts_[i].texture)
                  facts_[i].texture = changed = true;
              }
        // What the slots' values themselves are used as.
        const bool fl = isFloatOp(in.op), in_ = isIntOp(in.op);
        if (fl || in_)
          for (const Operand &o : in.srcs) {
            Tags used;
            if (o.kind == Operand::Kind::Reg && !o.reg.isConst()) {
              if (auto it = direct_.find({&f, o.reg}); it != direct_.end())
                used = it->second;
            } else if (isParamRead(o)) {
              used = slotTag({nullptr, uint64_t(o.imm)}, in.has(Mod::W64) ? 8 : 4);
            }
            for (size_t i = 0; i < slots_.size(); ++i)
              if (used.test(i))
                (fl ? facts_[i].floatUse : facts_[i].intUse) = true;
          }
        if (in.info().flags & MEMORY)
          for (const Operand &o : in.srcs)
            if (o.kind == Operand::Kind::Mem && o.hasReg && !o.reg.isConst())
              if (auto it = regs_.find({&f, o.reg}); it != regs_.end()) {
                changed |= address_.merge(it->second);
                if (o.imm < 0)
                  changed |= backward_.merge(it->second);
              }
        // A loaded value used as an address or a surface handle is no float.
        auto notFloat = [&](Reg r) {
          if (auto it = direct_.find({&f, r}); it != direct_.end())
            for (size_t i = 0; i < slots_.size(); ++i)
              if (it->second.test(i) && !facts_[i].intUse)
                facts_[i].intUse = changed = true;
        };
        if (in.info().flags & MEMORY)
          for (const Operand &o : in.srcs)
            if (o.kind == Operand::Kind::Mem && o.hasReg && !o.reg.isConst())
              notFloat(o.reg);
        if ((in.op == Opcode::SULD || in.op == Opcode::SUST || in.op == Opcode::TEX) &&
            !in.srcs.empty() && in.srcs[0].kind == Operand::Kind::Reg && !in.srcs[0].reg.isConst())
          notFloat(in.srcs[0].reg);
      }
    return changed;
  }
};

bool isFloatType(const std::string &t) { return t == "f32" || t == "f64" || t == "f16"; }

uint64_t floatBits(const std::string &type, double v) {
  if (type == "f64")
    return std::bit_cast<uint64_t>(v);
  if (type == "f32")
    return std::bit_cast<uint32_t>(float(v));
  // binary16 of a small value with an exact representation (1.0 = 0x3c00): by way of binary32.
  uint32_t f = std::bit_cast<uint32_t>(float(v));
  uint32_t sign = (f >> 16) & 0x8000, exp = (f >> 23) & 0xff, man = f & 0x7fffff;
  if (exp == 0)
    return sign;
  int e = int(exp) - 127 + 15;
  if (e <= 0)
    return sign;
  if (e >= 31)
    return sign | 0x7c00;
  return sign | uint32_t(e) << 10 | man >> 13;
}

} // namespace

std::vector<AutoBinding> autoBindings(const Module &m, const Function &kernel,
                                      const AutoLaunchOptions &o) {
  const SlotFlow flow(m, kernel, o.threads, o.ctas);
  const std::vector<SlotFlow::Result> slots = flow.results();
  uint64_t handles = 0; // surface and texture handles given so far (they count from 1)
  const uint64_t count = o.count ? *o.count : o.threads.count() * o.ctas.count();
  auto integer = [&](uint32_t width) {
    return width == 1 ? 1 : width >= 8 ? count : count & ((uint64_t(1) << (8 * width)) - 1);
  };
  // Index bounds: the largest value of each indexing parameter slot that keeps its accesses
  // inside the variables it indexes.
  const std::vector<auto_detail::IndexUse> uses = auto_detail::indexUses(m, kernel);
  std::map<uint64_t, int64_t> maxIndex;
  for (const auto_detail::IndexUse &u : uses) {
    int64_t room = int64_t(u.var->size()) - u.disp - int64_t(u.width);
    int64_t lim = room < 0 ? -1 : room / u.scale;
    auto [it, fresh] = maxIndex.emplace(u.paramOffset, lim);
    if (!fresh)
      it->second = std::min(it->second, lim);
  }
  std::map<uint64_t, uint64_t> chosen; // integer parameters: bank offset -> value
  // The buffer a slot (tag bit) points to holds floats when every value loaded from it is used
  // only as a float: binary32 (4) or, when some load is 8 bytes wide, binary64 (8) words.
  auto floatWords = [&](size_t tag) -> uint32_t {
    for (const SlotFlow::Result &r : slots)
      if (r.slot.parent == int64_t(tag) && r.slot.offset == kContent && r.facts.floatUse &&
          !r.facts.intUse)
        return r.facts.width == 8 ? 8 : r.facts.width == 4 ? 4 : 0;
    return 0;
  };
  // Pointers stored in the buffer a slot (tag bit) points to.
  std::function<std::vector<AutoField>(size_t)> childrenOf = [&](size_t tag) {
    std::vector<AutoField> out;
    for (const SlotFlow::Result &r : slots) {
      if (r.slot.parent != int64_t(tag) || r.slot.offset == kContent || r.facts.width != 8 ||
          r.slot.offset + 8 > o.bufferBytes)
        continue;
      if (r.facts.surfaceDims > 0) {
        AutoField fd{AutoField::Kind::Surface,
                     r.slot.offset,
                     8,
                     ++handles,
                     r.facts.surfaceDims,
                     {},
                     false,
                     false};
        fd.texture = r.facts.texture;
        fd.everyWord = r.slot.indexed;
        out.push_back(fd);
      } else if (r.address && !r.slot.indexed) {
        out.push_back(
            {AutoField::Kind::Pointer, r.slot.offset, 8, o.bufferBytes, 0, childrenOf(r.tag)});
        out.back().floatWords = floatWords(r.tag);
        if (r.backward)
          out.back().pointerOffset = o.bufferBytes / 2;
      }
    }
    // Handles repeated over the buffer first: fixed fields written after them win.
    std::stable_sort(out.begin(), out.end(), [](const AutoField &a, const AutoField &b) {
      return a.everyWord > b.everyWord;
    });
    return out;
  };
  // The slot's binding as a field (offset relative to `base`).
  auto field = [&](const SlotFlow::Result &r, uint64_t base,
                   bool pointersOnly) -> std::optional<AutoField> {
    AutoField fd;
    fd.offset = r.slot.offset - base;
    fd.width = r.facts.width;
    if (r.facts.surfaceDims > 0 && fd.width == 8) {
      fd.kind = AutoField::Kind::Surface;
      fd.dims = r.facts.surfaceDims;
      fd.value = ++handles;
      fd.texture = r.facts.texture;
    } else if (r.address && (fd.width == 8 || fd.width == 4)) {
      fd.kind = AutoField::Kind::Pointer;
      fd.value = o.bufferBytes;
      fd.children = childrenOf(r.tag);
      fd.floatWords = floatWords(r.tag);
      if (r.backward)
        fd.pointerOffset = o.bufferBytes / 2;
    } else if (pointersOnly) {
      return std::nullopt;
    } else if (r.facts.floatUse && !r.facts.intUse && fd.width >= 2) {
      fd.kind = AutoField::Kind::Float;
      fd.value = floatBits(fd.width == 8 ? "f64" : fd.width == 4 ? "f32" : "f16", o.floatValue);
    } else {
      fd.value = integer(fd.width);
    }
    return fd;
  };
  std::vector<AutoBinding> out;
  for (const Param &p : kernel.params) {
    AutoBinding b;
    b.name = p.name;
    b.type = p.type;
    std::vector<const SlotFlow::Result *> inside;
    const SlotFlow::Result *first = nullptr;
    for (const SlotFlow::Result &r : slots)
      if (!r.slot.var && r.slot.parent < 0 && r.slot.offset >= p.offset &&
          r.slot.offset < uint64_t(p.offset) + p.size) {
        inside.push_back(&r);
        if (r.slot.offset == p.offset)
          first = &r;
      }
    const bool untyped = !p.type.empty() && p.type[0] == 'b';
    if (p.count == 0 && p.size == 8 && first && first->facts.surfaceDims > 0) { // a surface object
      b.kind = AutoBinding::Kind::Bytes;
      b.size = p.size;
      b.fields.push_back(*field(*first, p.offset, false));
    } else if (p.size == 8 && first && first->address && first->backward) {
      // A pointer also used below itself (a reverse iterator, an array's end): into the middle.
      b.kind = AutoBinding::Kind::Bytes;
      b.size = p.size;
      b.fields.push_back(*field(*first, p.offset, false));
    } else if (p.size == 8 && first && (first->address || first->unsure)) {
      b.kind = AutoBinding::Kind::Buffer;
      b.value = o.bufferBytes;
      b.unsure = !first->address;
      b.children = childrenOf(first->tag);
      b.floatWords = floatWords(first->tag);
    } else if (p.count == 0 && p.size == 4 && first && first->address) { // a 32-bit pointer
      b.kind = AutoBinding::Kind::Bytes;
      b.size = p.size;
      b.fields.push_back(
          {AutoField::Kind::Pointer, 0, 4, o.bufferBytes, 0, childrenOf(first->tag)});
      b.fields.back().floatWords = floatWords(first->tag);
    } else if (p.count == 0 && (isFloatType(p.type) || (untyped && first && first->facts.floatUse &&
                                                        !first->facts.intUse))) {
      b.kind = AutoBinding::Kind::Float;
      b.type = p.size == 8 ? "f64" : p.size == 4 ? "f32" : "f16";
      b.value = floatBits(b.type, o.floatValue);
    } else if (p.count == 0) {
      b.kind = AutoBinding::Kind::Integer;
      b.value = p.size == 1 ? 1 : count;
      if (auto it = maxIndex.find(p.offset); it != maxIndex.end() && p.size >= 4)
        b.value = std::min<uint64_t>(b.value, uint64_t(std::max<int64_t>(it->second, 0)));
      chosen[p.offset] = b.value;
    } else {
      b.kind = AutoBinding::Kind::Bytes;
      b.size = p.size;
      for (const SlotFlow::Result *r : inside)
        if (auto fd = field(*r, p.offset, false))
          b.fields.push_back(*fd);
    }
    out.push_back(std::move(b));
  }
  auto_detail::boundProducts(m, kernel, o, out, chosen);
  auto addVariable = [&](const Variable &v) {
    if ((v.space != Space::Global && v.space != Space::Const) || !v.init.empty())
      return;
    AutoBinding b;
    b.variable = true;
    b.name = v.name;
    b.type = v.type;
    b.kind = AutoBinding::Kind::Bytes;
    b.size = v.size();
    for (const SlotFlow::Result &r : slots)
      if (r.slot.var == &v && r.slot.stride == 0 && r.slot.offset + r.facts.width <= v.size())
        if (auto fd = field(r, 0, v.space == Space::Global))
          b.fields.push_back(*fd);
    // Fields of an array of structs indexed by thread or CTA: in each element the launch reads.
    auto overlaps = [&](uint64_t at, uint64_t width) {
      return std::any_of(b.fields.begin(), b.fields.end(), [&](const AutoField &fd) {
        return fd.offset < at + width && at < fd.offset + fd.width;
      });
    };
    for (const SlotFlow::Result &r : slots) {
      if (r.slot.var != &v || r.slot.stride == 0)
        continue;
      auto [first, last] = flow.elements(r.slot);
      first = std::max<int64_t>(first, 0);
      last = std::min<int64_t>(
          {last, int64_t(v.size() / r.slot.stride) - 1, first + kMaxBoundElements - 1});
      for (int64_t e = first; e <= last; ++e) {
        const uint64_t at = uint64_t(e) * r.slot.stride + r.slot.offset;
        if (at + r.facts.width > v.size() || overlaps(at, r.facts.width))
          continue;
        if (auto fd = field(r, 0, v.space == Space::Global)) {
          fd->offset = at;
          b.fields.push_back(*fd);
        }
      }
    }
    // Counts read at an index (another kernel's output): `count` where this launch reads them.
    for (const auto_detail::IndexUse &u : uses) {
      auto it = chosen.find(u.paramOffset);
      if (u.var != &v || !u.bound || it == chosen.end())
        continue;
      int64_t at = u.scale * int64_t(it->second) + u.disp;
      if (at < 0 || uint64_t(at) + u.width > v.size())
        continue;
      if (!overlaps(uint64_t(at), u.width))
        b.fields.push_back(
            {AutoField::Kind::Integer, uint64_t(at), u.width, integer(u.width), 0, {}});
    }
    std::sort(b.fields.begin(), b.fields.end(),
              [](const AutoField &x, const AutoField &y) { return x.offset < y.offset; });
    if (!b.fields.empty())
      out.push_back(std::move(b));
  };
  for (const Variable &v : m.variables)
    addVariable(v);
  for (const Function &g : m.functions)
    for (const Variable &v : g.variables)
      addVariable(v);
  auto_detail::boundCountProducts(m, kernel, o, out);
  // Module .texref symbols a TEX reads: a surface of their name (not normalized, as a texture
  // reference the host binds is by default).
  for (const auto &[name, dims] : flow.texrefs()) {
    AutoBinding b;
    b.variable = true;
    b.name = name;
    b.kind = AutoBinding::Kind::Texture;
    AutoField fd{AutoField::Kind::Surface, 0, 8, ++handles, dims, {}, false, false};
    b.fields.push_back(fd);
    out.push_back(std::move(b));
  }
  return out;
}

} // namespace ori
