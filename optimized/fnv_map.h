// The CFG's FNV-1a hash map (spec/000 "CFG Edge Hash Maps"): a block index
// (4-byte key, hashed byte by byte, low byte first) maps to a value (for the
// successor map: the successor list; for the backedge map: the backedge
// targets). Chained buckets keep head, tail and count; the bucket count is a
// power of two starting at 8 and grows x4; each node caches its key's hash;
// erased nodes go to a free list and are reused before the node pool grows.
//
// Growth: the spec says "rehash when total_elements > num_unique_keys (load
// factor > 1.0)". Read literally that never fires for a map with one node per
// key (elements == keys), and every chain would grow to n/8. The sound reading,
// which this map implements, is the load factor it names: rehash (x4) when the
// number of keys exceeds the number of buckets. totalElements() (the sum of the
// values' sizes as reported by the caller via addElements) and uniqueKeys() are
// still kept, as the spec's two counters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ori::optimized {

inline constexpr uint32_t kFnvOffsetBasis = 0x811C9DC5u;
inline constexpr uint32_t kFnvPrime = 16777619u; // 0x01000193

// FNV-1a over the four bytes of `key`, least significant first.
constexpr uint32_t fnv1a(uint32_t key) {
  uint32_t h = kFnvOffsetBasis;
  h = kFnvPrime * (h ^ (key & 0xFFu));
  h = kFnvPrime * (h ^ ((key >> 8) & 0xFFu));
  h = kFnvPrime * (h ^ ((key >> 16) & 0xFFu));
  h = kFnvPrime * (h ^ ((key >> 24) & 0xFFu));
  return h;
}

template <typename V> class FnvMap {
public:
  static constexpr size_t kInitialBuckets = 8;
  static constexpr size_t kGrowthFactor = 4;

  FnvMap() : buckets_(kInitialBuckets) {}

  // Reserves node storage for n keys (buckets still grow by the policy).
  void reserveNodes(size_t n) { nodes_.reserve(n); }

  // The value of `key`, inserting a default one if absent; second = inserted.
  std::pair<V *, bool> insertOrFind(uint32_t key) {
    uint32_t h = fnv1a(key);
    if (uint32_t n = findNode(key, h); n != kNil)
      return {&nodes_[n].value, false};
    if (size_t(uniqueKeys_) + 1 > buckets_.size())
      rehash(buckets_.size() * kGrowthFactor);
    uint32_t n = allocNode();
    Node &node = nodes_[n];
    node.next = kNil;
    node.key = key;
    node.hash = h;
    node.live = true;
    Bucket &b = buckets_[h & (buckets_.size() - 1)];
    if (b.tail == kNil)
      b.head = n;
    else
      nodes_[b.tail].next = n;
    b.tail = n;
    ++b.count;
    ++uniqueKeys_;
    return {&node.value, true};
  }

  V &operator[](uint32_t key) { return *insertOrFind(key).first; }

  V *find(uint32_t key) {
    uint32_t n = findNode(key, fnv1a(key));
    return n == kNil ? nullptr : &nodes_[n].value;
  }
  const V *find(uint32_t key) const {
    uint32_t n = findNode(key, fnv1a(key));
    return n == kNil ? nullptr : &nodes_[n].value;
  }
  bool contains(uint32_t key) const { return find(key) != nullptr; }

  // Removes `key`; its node goes to the free list. Returns whether it was there.
  bool erase(uint32_t key) {
    uint32_t h = fnv1a(key);
    Bucket &b = buckets_[h & (buckets_.size() - 1)];
    uint32_t prev = kNil;
    for (uint32_t n = b.head; n != kNil; prev = n, n = nodes_[n].next) {
      Node &node = nodes_[n];
      if (node.hash != h || node.key != key)
        continue;
      if (prev == kNil)
        b.head = node.next;
      else
        nodes_[prev].next = node.next;
      if (b.tail == n)
        b.tail = prev;
      --b.count;
      --uniqueKeys_;
      node.live = false;
      node.value = V{};
      node.next = freeHead_;
      freeHead_ = n;
      ++freeCount_;
      return true;
    }
    return false;
  }

  // Calls fn(key, value) for every key, in bucket then chain order.
  template <typename Fn> void forEach(Fn &&fn) const {
    for (const Bucket &b : buckets_)
      for (uint32_t n = b.head; n != kNil; n = nodes_[n].next)
        fn(nodes_[n].key, nodes_[n].value);
  }

  // Calls fn(key, value) for every key in node pool order (the order keys
  // were first inserted, unless erased nodes were reused): a sequential walk,
  // where forEach follows chains across the pool.
  template <typename Fn> void forEachInPoolOrder(Fn &&fn) const {
    for (const Node &node : nodes_)
      if (node.live)
        fn(node.key, node.value);
  }

  // Starts loading the bucket `key` hashes to, ahead of an insertOrFind or
  // find of it: a caller that knows its next keys hides the cache miss.
  // (always_inline: GCC 12 otherwise finds the call free of effects and drops it.)
  [[gnu::always_inline]] void prefetch(uint32_t key) const {
    __builtin_prefetch(&buckets_[fnv1a(key) & (buckets_.size() - 1)]);
  }
  // The second stage, once the bucket is loaded: starts loading the first
  // node of its chain.
  [[gnu::always_inline]] void prefetchChain(uint32_t key) const {
    if (uint32_t head = buckets_[fnv1a(key) & (buckets_.size() - 1)].head; head != kNil)
      __builtin_prefetch(&nodes_[head]);
  }

  size_t size() const { return size_t(uniqueKeys_); }
  size_t bucketCount() const { return buckets_.size(); }
  size_t bucketSize(size_t i) const { return buckets_[i].count; }
  size_t nodePoolSize() const { return nodes_.size(); } // nodes ever allocated
  size_t freeNodes() const { return freeCount_; }
  // The spec's two counters: entries across all values (kept by the caller
  // through addElements) and distinct keys.
  int32_t totalElements() const { return totalElements_; }
  int32_t uniqueKeys() const { return uniqueKeys_; }
  void addElements(int32_t n) { totalElements_ += n; }

private:
  static constexpr uint32_t kNil = 0xFFFFFFFFu;
  struct Node {
    uint32_t next = kNil;
    uint32_t key = 0;
    uint32_t hash = 0; // cached fnv1a(key)
    bool live = false;
    V value{};
  };
  struct Bucket {
    uint32_t head = kNil, tail = kNil;
    uint32_t count = 0;
  };

  uint32_t findNode(uint32_t key, uint32_t h) const {
    const Bucket &b = buckets_[h & (buckets_.size() - 1)];
    for (uint32_t n = b.head; n != kNil; n = nodes_[n].next)
      if (nodes_[n].hash == h && nodes_[n].key == key)
        return n;
    return kNil;
  }

  uint32_t allocNode() {
    if (freeHead_ != kNil) {
      uint32_t n = freeHead_;
      freeHead_ = nodes_[n].next;
      --freeCount_;
      return n;
    }
    nodes_.emplace_back();
    return uint32_t(nodes_.size() - 1);
  }

  // Relinks every live node into `count` buckets by its cached hash, keeping
  // the relative chain order of the nodes.
  void rehash(size_t count) {
    std::vector<Bucket> fresh(count);
    for (const Bucket &old : buckets_) {
      for (uint32_t n = old.head; n != kNil;) {
        uint32_t next = nodes_[n].next;
        Bucket &b = fresh[nodes_[n].hash & (count - 1)];
        nodes_[n].next = kNil;
        if (b.tail == kNil)
          b.head = n;
        else
          nodes_[b.tail].next = n;
        b.tail = n;
        ++b.count;
        n = next;
      }
    }
    buckets_ = std::move(fresh);
  }

  std::vector<Node> nodes_;
  std::vector<Bucket> buckets_;
  uint32_t freeHead_ = kNil;
  size_t freeCount_ = 0;
  int32_t totalElements_ = 0;
  int32_t uniqueKeys_ = 0;
};

} // namespace ori::optimized
