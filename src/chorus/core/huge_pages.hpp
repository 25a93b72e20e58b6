// Large arrays on transparent huge pages: HugePageAllocator and HugeVector.
//
// Why: what a 1,024-NPU synthesis touches first (tens of MiB of transfers, Schedule columns and ops) is paid for
// page by page. On the 2-core development VM a first touch of a 4 KiB page costs 10-17 us of CPU (a 128 MiB
// array: 0.55 s at 4 KiB pages, 0.02 s on 2 MiB pages), a third of `chorus synth`'s time before this. Arrays of at
// least kHugePageBytes are mapped on their own, aligned to 2 MiB and marked MADV_HUGEPAGE (honoured where the
// kernel's transparent_hugepage setting is `madvise` or `always`); smaller ones come from operator new as usual.
// Memory comes back zeroed from the kernel either way, so only the cost of the first touch changes.
//
//   HugeVector<SpreadTransfer> transfers;  // a std::vector whose large buffers are huge-page backed
//   transfers.reserve(expected);
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

namespace chorus {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// A private anonymous mapping of `bytes` (a multiple of kHugePageBytes), 2 MiB aligned, advised for huge pages.
// Throws std::bad_alloc when the system refuses.
void* map_huge_pages(std::size_t bytes);
void unmap_huge_pages(void* p, std::size_t bytes);

template <class T>
class HugePageAllocator {
 public:
  using value_type = T;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}  // NOLINT: allocators convert implicitly

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (n > max_size())
      throw std::bad_alloc();
    if (bytes < kHugePageBytes)
      return std::allocator<T>().allocate(n);
    return static_cast<T*>(map_huge_pages(round_up(bytes)));
  }

  // The size decides the path, as in allocate (a vector frees with the size it allocated).
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePageBytes)
      std::allocator<T>().deallocate(p, n);
    else
      unmap_huge_pages(p, round_up(bytes));
  }

  static constexpr std::size_t max_size() noexcept { return (std::size_t{1} << 47) / sizeof(T); }

  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }

 private:
  static std::size_t round_up(std::size_t bytes) {
    return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  }
};

template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace chorus
