// PTX -> Ori: provenance (ir/ptx_origin.h). Every PTX instruction gets an origin: its text, with
// the registers, variables, labels and tables it names kept as what they name; its guard; the
// .loc lines before it; and, once the labels are resolved, a copy of the Ori instructions its
// lowering made. ptx/emit_origin.cpp prints the text again where the code still equals that copy.
#include <fmt/format.h>

#include <cctype>
#include <unordered_set>

#include "ptx/lower_impl.h"

namespace ori::ptx {
namespace {

bool identStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}
bool identChar(char c) { return identStart(c) || std::isdigit(static_cast<unsigned char>(c)); }

void addText(std::vector<ori::PtxTextPiece> &out, std::string_view s) {
  if (s.empty())
    return;
  if (!out.empty() && out.back().kind == ori::PtxTextPiece::Kind::Text)
    out.back().text += s;
  else
    out.push_back({ori::PtxTextPiece::Kind::Text, std::string(s), {}, 0});
}

} // namespace

void FunctionLowerer::noteRegDeclaration(const Variable &v) {
  if (!v.vectorMod.empty())
    return; // its elements are registers named v_x in Ori, declared by the emitter
  PtxType t = parseType(v.type);
  if (t.kind == PtxType::None)
    return;
  ori::PtxOrigins::RegDecl &d = origins_->regDecls.emplace_back();
  d.text = v.text;
  d.type = v.type;
  d.bits = t.bits;
  d.name = v.name;
  d.count = v.rangeCount.value_or(0);
}

void FunctionLowerer::noteLoc(const std::string &text) {
  std::string t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back())))
    t.pop_back();
  pendingLocs_.push_back(t);
  auto [it, added] = locIndex_.try_emplace(t, uint32_t(origins_->locTexts.size()));
  if (added)
    origins_->locTexts.push_back(t);
  curLoc_ = it->second;
}

// pi.text as pieces, as opaque() reads it (lower_forms.cpp): numbers verbatim, `%tid.x` and a
// vector register's element `v.x` as one name, a whole vector register as `{v.x, v.y}`.
std::vector<ori::PtxTextPiece> FunctionLowerer::textPieces(const Instruction &pi, bool &exact) {
  using K = ori::PtxTextPiece::Kind;
  std::vector<ori::PtxTextPiece> out;
  const std::string &t = pi.text;
  size_t i = 0;
  while (i < t.size() && !std::isspace(static_cast<unsigned char>(t[i])))
    ++i;
  addText(out, std::string_view(t).substr(0, i));
  auto regPiece = [&](ori::Reg r) {
    auto b = declaredBits_.find(r);
    if (b == declaredBits_.end())
      exact = false;
    out.push_back({K::Reg, "", r, b == declaredBits_.end() ? 0 : b->second});
  };
  while (i < t.size()) {
    char c = t[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < t.size() && (identChar(t[j]) || t[j] == '.'))
        ++j;
      addText(out, std::string_view(t).substr(i, j - i));
      i = j;
      continue;
    }
    if (!identStart(c)) {
      addText(out, std::string_view(t).substr(i, 1));
      ++i;
      continue;
    }
    std::string name;
    i = nameAt(t, i, name); // ptx/lower_forms.cpp
    if (const VectorReg *v = vectorRegister(name)) {
      addText(out, "{");
      for (uint32_t e = 0; e < v->count; ++e) {
        if (e)
          addText(out, ", ");
        regPiece(resolve(name + "." + "xyzw"[e]).reg);
      }
      addText(out, "}");
      continue;
    }
    NameRef ref = resolve(name);
    switch (ref.kind) {
    case NameRef::Register:
      regPiece(ref.reg);
      continue;
    case NameRef::Variable:
    case NameRef::EntryParam:
      out.push_back({K::Symbol, ref.symbol, {}, 0});
      continue;
    default:
      break;
    }
    if (ref.kind == NameRef::None && labelsSeen_.count(name)) {
      out.push_back({K::Label, name, {}, 0}); // as written: finishOrigins() finds the block
      continue;
    }
    if (ref.kind == NameRef::None && tables_.count(name)) {
      auto it = tableIndex_.find(name);
      if (it == tableIndex_.end())
        exact = false;
      out.push_back({K::Table, "", {}, it == tableIndex_.end() ? 0 : it->second});
      continue;
    }
    if (ref.kind == NameRef::None && name[0] == '%' && !isUnmodelledSpecialRegister(name))
      exact = false; // not a name this scope knows
    addText(out, name);
  }
  return out;
}

void FunctionLowerer::recordOrigin(const Instruction &pi) {
  if (pending_.empty())
    return; // nothing to carry it: its .loc lines go with the next instruction
  ori::PtxOrigins &o = *origins_;
  const uint32_t k = uint32_t(o.origins.size());
  ori::PtxOrigin &org = o.origins.emplace_back();
  bool exact = true;
  org.text = textPieces(pi, exact);
  org.exact = exact;
  org.guard = guard_;
  org.locs = std::move(pendingLocs_);
  pendingLocs_.clear();
  org.loc = curLoc_;
  for (ori::Instr &in : pending_)
    in.origin = k;
}

void FunctionLowerer::finishOrigins() {
  ori::PtxOrigins &o = *origins_;
  std::vector<bool> seen(o.origins.size());
  std::unordered_set<std::string> labels;
  for (const ori::Block &b : f_.blocks)
    if (!b.label.empty())
      labels.insert(b.label);
  for (const ori::Block &b : f_.blocks)
    for (size_t i = 0; i < b.instrs.size();) {
      const uint32_t k = b.instrs[i].origin;
      size_t j = i;
      while (j < b.instrs.size() && b.instrs[j].origin == k)
        ++j;
      if (k != 0 && k < o.origins.size()) {
        ori::PtxOrigin &org = o.origins[k];
        if (seen[k]) { // its lowering spans blocks: the emitter prints it
          org.exact = false;
        } else {
          seen[k] = true;
          org.group.assign(b.instrs.begin() + i, b.instrs.begin() + j);
          auto label = [&](const ori::Operand &op) {
            if (op.kind != ori::Operand::Kind::Label)
              return;
            const std::string &l =
                op.target < f_.blocks.size() ? f_.blocks[op.target].label : std::string();
            if (l.empty())
              org.exact = false;
            org.labels.push_back(l);
          };
          for (const ori::Instr &in : org.group) {
            for (const ori::Operand &op : in.dsts)
              label(op);
            for (const ori::Operand &op : in.srcs)
              label(op);
          }
          // A label as written names the block of that label, or of it with the '_' the
          // lowering adds to names .ori would read as something else (lower.cpp).
          for (ori::PtxTextPiece &p : org.text)
            if (p.kind == ori::PtxTextPiece::Kind::Label && !labels.count(p.text)) {
              if (labels.count(p.text + "_"))
                p.text += "_";
              else
                org.exact = false;
            }
        }
      }
      i = j;
    }
  f_.ptxOrigins = origins_;
}

} // namespace ori::ptx
