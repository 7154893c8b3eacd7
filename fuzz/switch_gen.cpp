// Random switch kernels (fuzz/switch_gen.h).
#include "fuzz/switch_gen.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>

#include "ir/ori.h"

namespace ori::gen {
namespace {

struct Case {
  uint32_t value;
  uint32_t body;
};

struct Writer {
  std::string text;
  uint32_t nextPred = 0, nextLabel = 0, nextTemp = 40;
  bool isSigned = false;
  bool narrow =
      false; // nvcc's 16-bit switches: S masked, range splits on SGXT(S, 16) (examples/switch16.cu)
  void line(const std::string &s) { text += "  " + s + "\n"; }
  std::string label() { return fmt::format("N{}", nextLabel++); }
  std::string cmp(const char *op, uint32_t c) {
    const std::string p = fmt::format("P{}", nextPred++);
    line(fmt::format("ISETP.{}.{}.AND {}, PT, R0, {}, PT", op, isSigned ? "S32" : "U32", p,
                     c == 0 ? std::string("RZ") : fmt::format("{:#x}", c)));
    return p;
  }
};

bool less(uint32_t a, uint32_t b, bool isSigned) {
  return isSigned ? int32_t(a) < int32_t(b) : a < b;
}

// nvcc's shape: a range split `S > pivot` over sorted cases, leaves testing EQ
// (the last one sometimes NE with the body as fall-through), trampolines.
void tree(Writer &w, const std::vector<Case> &cs, size_t lo, size_t hi, bool trampolines) {
  if (hi - lo <= 3) {
    for (size_t k = lo; k < hi; ++k) {
      const bool last = k + 1 == hi;
      if (last && *rc::gen::inRange(0, 3) == 0) {
        const std::string p = w.cmp("NE", cs[k].value);
        w.line(fmt::format("@{} BRA dflt", p));
        w.line(fmt::format("MOV R1, {:#x}", 0x100 + cs[k].body)); // the body, by fall-through
        w.line("BRA join");
        return;
      }
      const std::string p = w.cmp("EQ", cs[k].value);
      w.line(fmt::format("@{} BRA Body{}", p, cs[k].body));
    }
    w.line("BRA dflt");
    return;
  }
  const size_t mid = lo + (hi - lo) / 2;
  const std::string right = w.label();
  std::string p;
  if (w.narrow) { // SGXT t, S, 16; ISETP.GT.S32 t, pivot: the same as S > pivot for S < 2^15
    const uint32_t t = w.nextTemp++;
    w.line(fmt::format("SGXT R{}, R0, 0x10", t));
    p = fmt::format("P{}", w.nextPred++);
    w.line(fmt::format("ISETP.GT.S32.AND {}, PT, R{}, {:#x}, PT", p, t, cs[mid - 1].value));
  } else {
    p = w.cmp("GT", cs[mid - 1].value);
  }
  w.line(fmt::format("@{} BRA {}", p, right));
  if (trampolines && *rc::gen::inRange(0, 2) == 0) { // the left half behind a trampoline
    const std::string left = w.label();
    w.line("BRA " + left);
    w.text += left + ":\n";
  }
  tree(w, cs, lo, mid, trampolines);
  w.text += right + ":\n";
  tree(w, cs, mid, hi, trampolines);
}

} // namespace

rc::Gen<Function> switchKernel() {
  return rc::gen::exec([] {
    Writer w;
    w.isSigned = *rc::gen::arbitrary<bool>();
    const int shape = *rc::gen::inRange(0, 4); // dense, sparse, runs, extreme
    const uint32_t count = uint32_t(*rc::gen::inRange(1, 26));
    // Sometimes few bodies: the switches bit tests are for (three destinations at most).
    const uint32_t bodies = *rc::gen::inRange(0, 3) == 0
                                ? std::min(count, uint32_t(*rc::gen::inRange(1, 4)))
                                : uint32_t(*rc::gen::inRange(1, int(count) + 1));
    std::set<uint32_t> values;
    const uint32_t base = shape == 3 ? (*rc::gen::arbitrary<bool>() ? 0x7FFFFFF0u : 0xFFFFFFF0u)
                                     : uint32_t(*rc::gen::inRange(-40, 40));
    // rc::gen::arbitrary shrinks toward 0 at small sizes; inRange does not scale.
    for (uint32_t tries = 0; values.size() < count; ++tries) {
      uint32_t v = 0;
      if (tries > 4 * count) { // give up on random values: the next free one
        values.insert(base + tries);
        continue;
      }
      switch (shape) {
      case 0:
        v = base + uint32_t(*rc::gen::inRange(0, int(count) + 3));
        break;
      case 1:
        v = *rc::gen::inRange<uint32_t>(0, *rc::gen::arbitrary<bool>() ? 1000u : 0xFFFFFFFFu);
        break;
      case 2:
        v = base + uint32_t(values.size());
        break; // one run
      default:
        v = base + uint32_t(*rc::gen::inRange(0, 32));
        break;
      }
      values.insert(v);
    }
    // Sometimes nvcc's narrowed selector: S = sel & mask, every case value within the mask.
    const bool linearChain = *rc::gen::inRange(0, 3) == 0;
    w.narrow = !linearChain && *rc::gen::inRange(0, 5) == 0;
    const uint32_t mask = *rc::gen::arbitrary<bool>() ? 0xffu : 0x7fffu;
    // Sometimes nvcc's bit tests (sw_fewtargets.cu): every case in [0, 31], a bounds check,
    // then (1 << S) & mask per body.
    const bool bitTests = !linearChain && !w.narrow && *rc::gen::inRange(0, 5) == 0;
    if (w.narrow || bitTests) {
      w.isSigned = false;
      std::set<uint32_t> masked;
      for (uint32_t v : values)
        masked.insert(v & (bitTests ? 31u : mask));
      values = masked;
    }
    std::vector<Case> cs;
    for (uint32_t v : values)
      cs.push_back(
          {v, shape == 2 ? uint32_t(values.size() % bodies) : *rc::gen::inRange(0u, bodies)});
    if (shape == 2) // runs: consecutive values share bodies in blocks of a few
      for (size_t k = 0; k < cs.size(); ++k)
        cs[k].body = uint32_t(k / 3) % bodies;
    std::sort(cs.begin(), cs.end(),
              [&](const Case &a, const Case &b) { return less(a.value, b.value, w.isSigned); });

    w.text = ".entry sw(.u64 out, .u32 sel)\n{\n";
    if (w.narrow) {
      w.line("LDC R9, c[0x0][0x218]");
      w.line(fmt::format("LOP3.LUT R0, R9, {:#x}, RZ, 0xc0", mask));
    } else {
      w.line("LDC R0, c[0x0][0x218]");
    }
    w.line("MOV R1, 0xdead");
    const bool linear = linearChain;
    const bool interleave = *rc::gen::arbitrary<bool>();
    const bool readAgain =
        *rc::gen::inRange(0, 8) == 0; // a compare's predicate read after the switch
    if (bitTests) {
      // The bit register is sometimes made twice (nvcc remakes it after a few tests, as in
      // sw_ranges.cu) and sometimes read again after the switch (which must stop a lowering).
      const std::string p = fmt::format("P{}", w.nextPred++);
      w.line(fmt::format("ISETP.GT.U32.AND {}, PT, R0, {:#x}, PT", p, cs.back().value));
      w.line(fmt::format("@{} BRA dflt", p));
      if (interleave)
        w.line("MOV R5, 0x7"); // an unrelated instruction: the block is no bit test
      std::vector<std::pair<uint32_t, uint32_t>> masks; // (body, mask) by first value
      for (const Case &c : cs) {
        auto it = std::find_if(masks.begin(), masks.end(),
                               [&](const auto &m) { return m.first == c.body; });
        if (it == masks.end())
          it = masks.insert(masks.end(), {c.body, 0u});
        it->second |= 1u << c.value;
      }
      const bool remake = *rc::gen::arbitrary<bool>();
      uint32_t bit = 31;
      for (size_t k = 0; k < masks.size(); ++k) {
        if (k == 0 || (remake && k + 1 == masks.size())) {
          bit = w.nextTemp + 1;
          w.line(fmt::format("MOV R{}, 0x1", w.nextTemp));
          w.line(fmt::format("SHL R{}, R{}, R0", bit, w.nextTemp));
          w.nextTemp += 2;
        }
        const uint32_t x = w.nextTemp++;
        w.line(fmt::format("LOP3.LUT R{}, R{}, {:#x}, RZ, 0xc0", x, bit, masks[k].second));
        const std::string q = fmt::format("P{}", w.nextPred++);
        w.line(fmt::format("ISETP.NE.U32.AND {}, PT, R{}, RZ, PT", q, x));
        w.line(fmt::format("@{} BRA Body{}", q, masks[k].first));
      }
      w.line("BRA dflt");
      w.nextTemp = bit; // join reads the last bit register when readAgain
    } else if (linear) {
      std::vector<Case> order = cs;
      if (*rc::gen::arbitrary<bool>())
        std::reverse(order.begin(), order.end());
      // Runs of consecutive values with one body are sometimes tested at once, as nvcc
      // does: IADD3 t, S, -first, RZ; ISETP.LT.U32 t, length (a range check).
      const bool ranges = *rc::gen::arbitrary<bool>();
      uint32_t temp = 16;
      for (size_t k = 0; k < order.size();) {
        size_t end = k + 1;
        while (ranges && end < order.size() && order[end].body == order[k].body &&
               order[end].value ==
                   order[end - 1].value + (order[k].value < order[end].value ? 1u : 0u - 1u))
          ++end;
        std::string p;
        if (end - k >= 2) {
          const uint32_t first = std::min(order[k].value, order[end - 1].value);
          w.line(fmt::format("IADD3 R{}, R0, {:#x}, RZ", temp, 0u - first));
          p = fmt::format("P{}", w.nextPred++);
          w.line(
              fmt::format("ISETP.LT.U32.AND {}, PT, R{}, {:#x}, PT", p, temp++, uint32_t(end - k)));
        } else {
          p = w.cmp("EQ", order[k].value);
        }
        if (k == 0 && interleave)
          w.line("MOV R5, 0x7");
        w.line(fmt::format("@{} BRA Body{}", p, order[k].body));
        k = end;
      }
      w.line("BRA dflt");
    } else {
      // The head's compare must be followed by its branch: interleave before it.
      if (interleave)
        w.line("MOV R5, 0x7");
      tree(w, cs, 0, cs.size(), *rc::gen::arbitrary<bool>());
    }
    // An unreachable region: nothing branches to it.
    w.text += "dead:\n";
    w.line("MOV R1, 0xbad");
    w.line("BRA join");
    for (uint32_t b = 0; b < bodies; ++b) {
      w.text += fmt::format("Body{}:\n", b);
      w.line(fmt::format("MOV R1, {:#x}", b + 1));
      w.line("BRA join");
    }
    w.text += "dflt:\n";
    w.line("MOV R1, 0xd0");
    w.text += "join:\n";
    if (readAgain)
      w.line(bitTests ? fmt::format("IADD3 R1, R1, R{}, RZ", w.nextTemp) : "SEL R1, R1, 0x55, P0");
    w.line("LDC.64 R2, c[0x0][0x210]");
    w.line("STG.E [R2], R1");
    w.line("EXIT");
    w.text += "}\n";
    ParseResult r = parseOri(w.text, "switch.ori");
    if (!r.module)
      throw std::runtime_error("switch generator made bad text: " + r.error->message + "\n" +
                               w.text);
    return r.module->functions[0];
  });
}

std::vector<uint32_t> interestingSelectors(const Function &f) {
  std::set<uint32_t> out{0, 1, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu};
  for (const Block &b : f.blocks)
    for (const Instr &in : b.instrs)
      if (in.op == Opcode::ISETP)
        for (const Operand &o : in.srcs)
          if (o.kind == Operand::Kind::Imm) {
            const uint32_t c = uint32_t(o.imm);
            out.insert({c - 1, c, c + 1});
          }
  return {out.begin(), out.end()};
}

} // namespace ori::gen
