// Ori -> PTX: instructions printed as the PTX they were read from (ir/ptx_origin.h,
// docs/ptx.md "Round trip"). A run of instructions of one origin prints as the origin's text
// only when it equals, exactly, what the lowering made of that text (labels compared by the
// block they name), so the text still means what the instructions do; and only when the text
// can be printed as it was: each register it names has the name and width the emitter gives
// that register, each variable is declared as it was, and the registers the lowering wrote
// besides (temporaries) are read nowhere else. Anything else goes through the emitter.
#include <fmt/format.h>

#include <algorithm>

#include "ptx/emit_impl.h"

namespace ori::ptx::emit_detail {

void FnEmitter::noteOriginRegisters(std::set<Reg> &regs) {
  if (!origins_)
    return;
  FnEmitter &self = *this;
  for (size_t b = 0; b < f.blocks.size(); ++b)
    if (!f.blocks[b].label.empty())
      self.blockOfLabel_.emplace(f.blocks[b].label, uint32_t(b));
  for (const Variable &v : f.variables) {
    self.symbols_.insert(v.name);
    if (v.space == Space::Param)
      self.paramVars_.insert(v.name);
  }
  for (const auto *list : {&f.params, &f.returns})
    for (const Param &p : *list)
      self.symbols_.insert(p.name);
  for (const Variable &v : m.variables)
    self.symbols_.insert(v.name);
  // The registers of texts that may print (a register only the text names, that the lowering
  // did not need, still needs a declaration).
  std::vector<bool> done(origins_->origins.size());
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs)
      if (in.origin != 0 && in.origin < done.size() && !done[in.origin] && (done[in.origin] = true))
        for (const PtxTextPiece &p : origins_->origins[in.origin].text)
          if (p.kind == PtxTextPiece::Kind::Reg && !p.reg.isConst() && p.reg.file != RegFile::B)
            regs.insert(p.reg);
}

const PtxOrigins::RegDecl *FnEmitter::declaredBy(const std::string &name) const {
  if (origins_)
    for (const PtxOrigins::RegDecl &d : origins_->regDecls)
      if (d.declares(name))
        return &d;
  return nullptr;
}

void FnEmitter::checkOriginDeclarations() {
  if (!origins_ || origins_->regDecls.empty())
    return;
  // The function's .reg lines declare what they declared: usable when each register the
  // emitter names as one of theirs has their width (no other register can take such a name:
  // declareNames reserved them).
  for (const auto &[r, name] : names_)
    if (const PtxOrigins::RegDecl *d = declaredBy(name); d && d->bits != regBits(r))
      return;
  originDecls_ = true;
}

// The function's .reg lines as written, except that a register an instruction printed by the
// emitter names is declared .b<N>: the emitter reads and writes registers as bits (a .f32
// register read by add.s32 is an error), while the type a line gives matters to ptxas (a .f32
// register declared .b32 changes the code of some functions).
std::string FnEmitter::regDeclarations() const {
  std::string out;
  std::set<std::string> untyped;
  for (Reg r : untyped_)
    if (auto it = names_.find(r); it != names_.end())
      untyped.insert(it->second);
  if (originDecls_)
    for (const PtxOrigins::RegDecl &d : origins_->regDecls) {
      std::vector<std::string> typed, bits;
      bool touched = false;
      for (const std::string &n : untyped)
        touched |= d.declares(n);
      if (touched)
        for (uint32_t i = 0; i < std::max<uint32_t>(d.count, 1); ++i) {
          std::string n = d.count ? fmt::format("{}{}", d.name, i) : d.name;
          (untyped.count(n) ? bits : typed).push_back(n);
        }
      if (bits.empty() || d.bits == 1) {
        out += "  " + d.text + ";\n";
        continue;
      }
      auto list = [](const std::vector<std::string> &names) {
        std::string s;
        for (const std::string &n : names)
          s += (s.empty() ? "" : ", ") + n;
        return s;
      };
      if (!typed.empty())
        out += fmt::format("  .reg {} {};\n", d.type, list(typed));
      out += fmt::format("  .reg {} {};\n", regDeclType(d.bits), list(bits));
    }
  for (const auto &[r, name] : names_)
    if (!originDecls_ || !declaredBy(name))
      out += fmt::format("  .reg {} {};\n", regDeclType(regBits(r)), name);
  return out;
}

void FnEmitter::emitLoc(const Instr &in) {
  if (!origins_ || in.origin == 0 || in.origin >= origins_->origins.size() ||
      in.origin == lastOrigin_)
    return;
  lastOrigin_ = in.origin;
  const PtxOrigin &o = origins_->origins[in.origin];
  if (!o.locs.empty()) {
    for (const std::string &l : o.locs)
      body_ += "  " + l + "\n";
    lastLoc_ = o.loc;
  } else if (o.loc != 0 && o.loc != lastLoc_ && o.loc < origins_->locTexts.size()) {
    body_ += "  " + origins_->locTexts[o.loc] + "\n";
    lastLoc_ = o.loc;
  }
}

bool FnEmitter::sameAsLowered(const Instr &in, const Instr &g,
                              const std::vector<std::string> &labels, size_t &label) const {
  if (in.op != g.op || !(in.mods == g.mods) || !(in.guard == g.guard) ||
      in.opaqueText != g.opaqueText || in.dsts.size() != g.dsts.size() ||
      in.srcs.size() != g.srcs.size())
    return false;
  auto same = [&](const Operand &a, const Operand &b) {
    if (b.kind != Operand::Kind::Label)
      return a == b;
    if (a.kind != Operand::Kind::Label || a.target >= f.blocks.size() || label >= labels.size())
      return false;
    return f.blocks[a.target].label == labels[label++];
  };
  for (size_t k = 0; k < in.dsts.size(); ++k)
    if (!same(in.dsts[k], g.dsts[k]))
      return false;
  for (size_t k = 0; k < in.srcs.size(); ++k)
    if (!same(in.srcs[k], g.srcs[k]))
      return false;
  return true;
}

size_t FnEmitter::originRun(const std::vector<Instr> &instrs, size_t i, std::string &text) {
  const Instr &first = instrs[i];
  if (!origins_ || first.origin == 0 || first.origin >= origins_->origins.size())
    return 0;
  const PtxOrigin &o = origins_->origins[first.origin];
  const size_t n = o.group.size();
  if (!o.exact || n == 0 || o.text.empty() || i + n > instrs.size())
    return 0;
  // An instruction before this one left part of itself to the next (emit_joins.cpp, WARPSYNC):
  // the emitter must print that one.
  if (syncedMask_ || cvtaJoin_ || mul24Join_ || bfeJoin_)
    return 0;
  size_t label = 0;
  for (size_t j = 0; j < n; ++j)
    if (instrs[i + j].origin != first.origin ||
        !sameAsLowered(instrs[i + j], o.group[j], o.labels, label))
      return 0;

  // The registers the text names (and its guard); any other one the instructions write must be
  // read by them only, and any other one they read must be written before, by them.
  // (Few registers each: vectors searched in order.)
  std::vector<Reg> named;
  for (const PtxTextPiece &p : o.text)
    if (p.kind == PtxTextPiece::Kind::Reg)
      named.push_back(p.reg);
  if (o.guard)
    named.push_back(o.guard->reg);
  auto isNamed = [&](Reg r) { return std::find(named.begin(), named.end(), r) != named.end(); };
  std::vector<std::pair<Reg, uint32_t>> hidden; // written, not named: mentions in the run
  auto hiddenAt = [&](Reg r) {
    return std::find_if(hidden.begin(), hidden.end(), [&](const auto &h) { return h.first == r; });
  };
  bool ok = true;
  for (size_t j = 0; j < n && ok; ++j) {
    const Instr &in = instrs[i + j];
    forEachUse(in, [&](Reg u) {
      if (isNamed(u))
        return;
      auto it = hiddenAt(u);
      if (it == hidden.end())
        ok = false;
      else
        ++it->second;
    });
    forEachDef(in, [&](Reg d) {
      if (isNamed(d))
        return;
      auto it = hiddenAt(d);
      if (it == hidden.end())
        hidden.emplace_back(d, 1);
      else
        ++it->second;
    });
  }
  if (!ok)
    return 0;
  for (const auto &[r, count] : hidden)
    if (regMentions(r) != count)
      return 0;

  std::string s;
  if (o.guard) {
    const Operand &g = *o.guard;
    if (g.kind != Operand::Kind::Reg || !g.reg.isPredicate() || g.reg.isConst() ||
        !names_.count(g.reg))
      return 0;
    s += fmt::format("@{}{} ", g.neg ? "!" : "", names_.at(g.reg));
  }
  for (const PtxTextPiece &p : o.text) {
    switch (p.kind) {
    case PtxTextPiece::Kind::Text:
      s += p.text;
      break;
    case PtxTextPiece::Kind::Reg: {
      auto it = names_.find(p.reg);
      if (it == names_.end() || regBits(p.reg) != p.bits)
        return 0;
      s += it->second;
      break;
    }
    case PtxTextPiece::Kind::Symbol: {
      if (!symbols_.count(p.text))
        return 0;
      // A .param variable the emitter declares .local (not a plain call slot, emit_call.cpp).
      if (paramVars_.count(p.text) && !slots_.count(p.text))
        return 0;
      s += p.text;
      break;
    }
    case PtxTextPiece::Kind::Label: {
      auto it = blockOfLabel_.find(p.text);
      if (it == blockOfLabel_.end() || labels_[it->second].empty())
        return 0;
      s += labels_[it->second];
      break;
    }
    case PtxTextPiece::Kind::Table:
      if (p.bits >= tables_.size())
        return 0;
      s += tables_[p.bits];
      break;
    }
  }
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.pop_back();
  text = s + ";";
  return n;
}

} // namespace ori::ptx::emit_detail

namespace ori::ptx::emit_detail {

std::string moduleTrailer(const Module &m, const std::set<std::string> &labels, bool &debug) {
  std::set<std::string> known = labels;
  for (const Function &f : m.functions) {
    known.insert(f.name);
    for (const Variable &v : f.variables)
      known.insert(v.name);
    for (const auto *list : {&f.params, &f.returns})
      for (const Param &p : *list)
        known.insert(p.name);
  }
  for (const Variable &v : m.variables)
    known.insert(v.name);
  // Labels the sections define themselves ($L__info_string0: in .debug_str).
  auto identAt = [](const std::string &t, size_t i) {
    size_t j = i;
    while (j < t.size() && (std::isalnum(static_cast<unsigned char>(t[j])) || t[j] == '_' ||
                            t[j] == '$' || t[j] == '%'))
      ++j;
    return j;
  };
  for (const std::string &t : m.ptxTrailer)
    for (size_t i = 0; i < t.size();) {
      size_t j = identAt(t, i);
      if (j == i) {
        ++i;
        continue;
      }
      if (j < t.size() && t[j] == ':')
        known.insert(t.substr(i, j - i));
      i = j;
    }
  std::string out;
  for (const std::string &t : m.ptxTrailer) {
    bool ok = true;
    if (t.starts_with(".section")) {
      // A name that is not a directive (.b8, .debug_abbrev) nor a number: a label, function or
      // variable, which must still be printed.
      for (size_t i = 0; i < t.size() && ok;) {
        const char c = t[i];
        if (c == '.' || std::isdigit(static_cast<unsigned char>(c))) {
          size_t j = i + 1;
          while (j < t.size() && (std::isalnum(static_cast<unsigned char>(t[j])) || t[j] == '_'))
            ++j;
          i = j;
          continue;
        }
        if (c == '"') { // a string: skipped
          size_t j = t.find('"', i + 1);
          i = j == std::string::npos ? t.size() : j + 1;
          continue;
        }
        size_t j = identAt(t, i);
        if (j == i) {
          ++i;
          continue;
        }
        ok = known.count(t.substr(i, j - i)) > 0;
        i = j;
      }
      debug |= ok && t.find(".debug_info") != std::string::npos;
    }
    if (ok)
      out += t + "\n";
    else
      out += "// oriopt: a debug section left out: it names a label no longer printed\n";
  }
  return out.empty() ? out : "\n" + out;
}

} // namespace ori::ptx::emit_detail
