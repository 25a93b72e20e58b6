// UniformColumn: a Schedule column (one value per op) that stores a single value while every op has it, and
// becomes an ordinary array at the first op that differs.
//
// Why: synthesized and most generated schedules move one chunk size with no pre-delay, so their `bytes` and
// `pre_delay` columns (8 bytes per op each, 16 MiB for a 1,024-NPU All-Gather) would only repeat one number, and on
// the development VM every MiB first touched costs about a millisecond.
//
//   UniformColumn<int64_t> bytes;
//   bytes.push_back(4096);
//   bytes[0];  // 4096
#pragma once

#include <algorithm>
#include <cstddef>

#include "chorus/core/huge_pages.hpp"

namespace chorus {

template <class T>
class UniformColumn {
 public:
  void push_back(T value) {
    if (values_.empty()) {
      if (size_ == 0)
        uniform_ = value;
      if (value == uniform_) {
        ++size_;
        return;
      }
      values_.reserve(std::max(reserved_, size_ + 1));
      values_.assign(size_, uniform_);
    }
    values_.push_back(value);
  }

  T operator[](size_t i) const { return values_.empty() ? uniform_ : values_[i]; }
  size_t size() const { return values_.empty() ? size_ : values_.size(); }

  // Remembered until the column stops being uniform (a uniform column needs no room).
  void reserve(size_t n) {
    reserved_ = n;
    if (!values_.empty())
      values_.reserve(n);
  }
  size_t memory_bytes() const { return values_.capacity() * sizeof(T); }

 private:
  T uniform_{};
  size_t size_ = 0;  // while uniform
  size_t reserved_ = 0;
  HugeVector<T> values_;  // empty while uniform
};

}  // namespace chorus
