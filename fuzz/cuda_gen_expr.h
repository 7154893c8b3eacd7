// Internals of the CUDA kernel generator (fuzz/cuda_gen.h): the random source
// and the expression generator that cuda_gen.cpp's statement generator uses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/cuda_gen.h"

namespace ori::cudagen::detail {

// splitmix64: the same sequence everywhere (std:: distributions are not).
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t n) { return n ? uint32_t(next() % n) : 0; }
  int range(int lo, int hi) { return lo + int(below(uint32_t(hi - lo + 1))); } // [lo, hi]
  bool chance(int percent) { return below(100) < uint32_t(percent); }
  template <class T> const T &pick(const std::vector<T> &v) { return v[below(uint32_t(v.size()))]; }
  // An index drawn by the weights.
  size_t weighted(const std::vector<int> &w);
};

// How a segment (the code between two barriers) may touch a shared array, so
// that no two threads race: own-slot reads and writes, reads of any slot, or
// one commutative integer atomic on any slot (its result unused).
// None: not written yet (the prologue), so not read.
enum class Mode : uint8_t { None, Own, Read, Atomic };

struct Scope {
  std::vector<std::string> loopVars;    // thread loop counters in scope (int)
  std::vector<std::string> uniformVars; // CTA-uniform loop counters in scope (int)
  std::vector<Mode> shMode;             // the current segment's mode of each shared array
  std::vector<std::string> shAtomic;    // Atomic: the function ("atomicAdd", ...)
};

class ExprGen {
public:
  ExprGen(Rng &r, Kernel &k, Scope &s, const GenOptions &o) : r_(r), k_(k), s_(s), o_(o) {}
  std::string expr(Ty t, int depth);
  std::string boolExpr(int depth);
  std::string constant(Ty t);
  std::string convert(Ty to, Ty from, const std::string &e);
  std::string index(int depth); // an unsigned expression for an array index
  std::string uniformInt();     // an unsigned expression equal in every thread of the CTA
  std::string uniformCond();
  std::vector<int> varsOf(Ty t) const;
  Ty randomType(bool withBool);
  // Inside a device function: parameters (as `$N`) and constants only.
  void setInFunction(bool on) { inFunc_ = on; }

private:
  std::string leaf(Ty t, int depth);
  std::string intOp(Ty t, int depth);
  std::string floatOp(Ty t, int depth);
  std::string roundedOp(Ty t, int depth);
  std::string halfOp(int depth);
  std::string intrinsic(Ty t, int depth);
  std::string arrayRead(Ty t, int depth);
  Rng &r_;
  Kernel &k_;
  Scope &s_;
  const GenOptions &o_;
  bool inFunc_ = false;
};

} // namespace ori::cudagen::detail
