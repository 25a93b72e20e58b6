// Huge-page mappings for HugePageAllocator (see huge_pages.hpp).
#include "chorus/core/huge_pages.hpp"

#include <cstdint>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace chorus {

#if defined(__linux__)

// Maps one huge page more than asked and trims the unaligned head and tail, so the whole array lies on 2 MiB
// boundaries (a huge page can only back an aligned 2 MiB range).
void* map_huge_pages(std::size_t bytes) {
  const std::size_t span = bytes + kHugePageBytes;
  void* raw = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED)
    throw std::bad_alloc();
  const auto base = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (base + kHugePageBytes - 1) & ~(std::uintptr_t{kHugePageBytes} - 1);
  const std::size_t head = aligned - base, tail = span - head - bytes;
  if (head > 0)
    ::munmap(raw, head);
  if (tail > 0)
    ::munmap(reinterpret_cast<void*>(aligned + bytes), tail);
  void* p = reinterpret_cast<void*>(aligned);
  ::madvise(p, bytes, MADV_HUGEPAGE);  // advice only: without THP the pages are ordinary ones
  return p;
}

void unmap_huge_pages(void* p, std::size_t bytes) {
  ::munmap(p, bytes);
}

#else

void* map_huge_pages(std::size_t bytes) {
  void* p = std::aligned_alloc(kHugePageBytes, bytes);
  if (p == nullptr)
    throw std::bad_alloc();
  return p;
}

void unmap_huge_pages(void* p, std::size_t) {
  std::free(p);
}

#endif

}  // namespace chorus
