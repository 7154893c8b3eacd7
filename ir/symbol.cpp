#include "ir/symbol.h"

#include <functional>
#include <mutex>
#include <ostream>
#include <unordered_set>

namespace ori {

// The table of every name interned so far. Its nodes never move (an
// unordered_set's elements are stable across rehashing), so a Symbol keeps a
// pointer to one. The mutex lets threads read modules at the same time.
namespace {
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};
} // namespace

const std::string *Symbol::intern(std::string_view name) {
  static std::mutex lock;
  // Never destroyed: Symbols in static objects may outlive static destruction.
  static auto *table = new std::unordered_set<std::string, NameHash, std::equal_to<>>;
  std::lock_guard<std::mutex> guard(lock);
  auto it = table->find(name);
  if (it == table->end())
    it = table->emplace(name).first;
  return &*it;
}

std::ostream &operator<<(std::ostream &out, Symbol s) { return out << s.str(); }

const std::string &Symbol::empty_() {
  static const std::string empty;
  return empty;
}

} // namespace ori
