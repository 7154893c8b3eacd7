// The operand lists of an instruction (Instr::dsts, Instr::srcs, ir/ir.h): a
// vector of trivially copyable values that keeps its first N in the object
// itself and goes to the heap only past them. Most instructions have at most one destination and
// three sources (on the corpus: 94% and 88%), so their operands sit beside the
// opcode and the guard, and a walk over a block's instructions reads one
// array instead of following two heap pointers per instruction (on a
// function too big for the caches, each was a miss; docs/performance.md,
// "Operands in the instruction").
//
// The interface is the subset of std::vector the IR's users need, with the
// same meaning; iterators are pointers and, as with std::vector, any call
// that may grow the list invalidates them. It converts from and to
// std::vector<Operand> and compares with one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace ori {

template <class T, uint32_t N> class InlineVector {
  static_assert(N > 0);

public:
  using value_type = T;
  using size_type = size_t;
  using difference_type = ptrdiff_t;
  using reference = T &;
  using const_reference = const T &;
  using pointer = T *;
  using const_pointer = const T *;
  using iterator = T *;
  using const_iterator = const T *;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  InlineVector() = default;
  InlineVector(std::initializer_list<T> l) { append(l.begin(), l.size()); }
  InlineVector(const std::vector<T> &v) { append(v.data(), v.size()); }
  InlineVector(std::span<const T> s) { append(s.data(), s.size()); }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  InlineVector(It first, It last) {
    assign(first, last);
  }
  InlineVector(size_t n, const T &v) { resize(n, v); }
  InlineVector(const InlineVector &o) { append(o.data(), o.size()); }
  InlineVector(InlineVector &&o) noexcept { take(o); }
  ~InlineVector() { release(); }

  InlineVector &operator=(const InlineVector &o) {
    if (this != &o)
      assign(o.begin(), o.end());
    return *this;
  }
  InlineVector &operator=(InlineVector &&o) noexcept {
    if (this != &o) {
      release();
      size_ = 0, cap_ = N;
      take(o);
    }
    return *this;
  }
  InlineVector &operator=(std::initializer_list<T> l) {
    assign(l.begin(), l.end());
    return *this;
  }
  InlineVector &operator=(const std::vector<T> &v) {
    assign(v.begin(), v.end());
    return *this;
  }

  operator std::vector<T>() const { return std::vector<T>(begin(), end()); }
  operator std::span<const T>() const { return {data(), size()}; }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return cap_; }
  static constexpr uint32_t inlineCapacity() { return N; }

  T *data() { return onHeap() ? store_.heap : local(); }
  const T *data() const { return onHeap() ? store_.heap : local(); }
  iterator begin() { return data(); }
  iterator end() { return data() + size_; }
  const_iterator begin() const { return data(); }
  const_iterator end() const { return data() + size_; }
  const_iterator cbegin() const { return begin(); }
  const_iterator cend() const { return end(); }
  reverse_iterator rbegin() { return reverse_iterator(end()); }
  reverse_iterator rend() { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

  T &operator[](size_t i) { return data()[i]; }
  const T &operator[](size_t i) const { return data()[i]; }
  T &at(size_t i) {
    if (i >= size_)
      throw std::out_of_range("InlineVector::at");
    return data()[i];
  }
  const T &at(size_t i) const {
    if (i >= size_)
      throw std::out_of_range("InlineVector::at");
    return data()[i];
  }
  T &front() { return data()[0]; }
  const T &front() const { return data()[0]; }
  T &back() { return data()[size_ - 1]; }
  const T &back() const { return data()[size_ - 1]; }

  void reserve(size_t n) {
    if (n > cap_)
      grow(n);
  }
  void clear() { size_ = 0; }
  void push_back(const T &v) {
    if (size_ == cap_) {
      const T copy = v; // v may be one of ours
      grow(size_t(cap_) * 2);
      new (data() + size_++) T(copy);
    } else {
      new (data() + size_++) T(v);
    }
  }
  template <class... A> T &emplace_back(A &&...a) {
    const T v(std::forward<A>(a)...);
    push_back(v);
    return back();
  }
  void pop_back() { --size_; }
  void resize(size_t n) { resize(n, T{}); }
  void resize(size_t n, const T &v) {
    if (n > size_) {
      const T copy = v;
      reserve(n);
      for (size_t i = size_; i < n; ++i)
        new (data() + i) T(copy);
    }
    size_ = uint32_t(n);
  }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  void assign(It first, It last) {
    InlineVector tmp; // the range may be ours
    for (; first != last; ++first)
      tmp.push_back(*first);
    *this = std::move(tmp);
  }
  void assign(std::initializer_list<T> l) { assign(l.begin(), l.end()); }
  void assign(size_t n, const T &v) {
    const T copy = v;
    clear();
    resize(n, copy);
  }

  iterator insert(const_iterator pos, const T &v) { return insert(pos, &v, &v + 1); }
  iterator insert(const_iterator pos, size_t n, const T &v) {
    const std::vector<T> copies(n, v);
    return insert(pos, copies.begin(), copies.end());
  }
  iterator insert(const_iterator pos, std::initializer_list<T> l) {
    return insert(pos, l.begin(), l.end());
  }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  iterator insert(const_iterator pos, It first, It last) {
    const size_t at = size_t(pos - begin());
    const std::vector<T> items(first, last); // the range may be ours
    const size_t n = items.size();
    reserve(size_t(size_) + n);
    T *p = data();
    std::memmove(static_cast<void *>(p + at + n), p + at, (size_ - at) * sizeof(T));
    for (size_t i = 0; i < n; ++i)
      new (p + at + i) T(items[i]);
    size_ += uint32_t(n);
    return p + at;
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    T *p = data();
    const size_t from = size_t(first - p), to = size_t(last - p);
    std::memmove(static_cast<void *>(p + from), p + to, (size_ - to) * sizeof(T));
    size_ -= uint32_t(to - from);
    return p + from;
  }
  void swap(InlineVector &o) noexcept {
    InlineVector t(std::move(o));
    o = std::move(*this);
    *this = std::move(t);
  }

  friend bool operator==(const InlineVector &a, const InlineVector &b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator==(const InlineVector &a, const std::vector<T> &b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

private:
  bool onHeap() const { return cap_ > N; }
  T *local() { return std::launder(reinterpret_cast<T *>(store_.local)); }
  const T *local() const { return std::launder(reinterpret_cast<const T *>(store_.local)); }

  void append(const T *p, size_t n) {
    reserve(n);
    for (size_t i = 0; i < n; ++i)
      new (data() + i) T(p[i]);
    size_ = uint32_t(n);
  }
  // Capacity at least n (> cap_), on the heap.
  void grow(size_t n) {
    T *fresh = static_cast<T *>(::operator new(n * sizeof(T)));
    std::memcpy(static_cast<void *>(fresh), data(), size_ * sizeof(T));
    release();
    store_.heap = fresh;
    cap_ = uint32_t(n);
  }
  void release() {
    if (onHeap())
      ::operator delete(store_.heap);
  }
  // o's elements, leaving o empty (this is empty and inline).
  void take(InlineVector &o) {
    if (o.onHeap()) {
      store_.heap = o.store_.heap;
      cap_ = o.cap_;
    } else {
      std::memcpy(static_cast<void *>(local()), o.local(), o.size_ * sizeof(T));
    }
    size_ = o.size_;
    o.size_ = 0, o.cap_ = N;
  }

  uint32_t size_ = 0, cap_ = N;
  union Store {
    T *heap;
    alignas(T) unsigned char local[N * sizeof(T)];
  } store_;
};

} // namespace ori
