// masked_row (see masked_row.hpp).
#include "chorus/synth/masked_row.hpp"

#include <bit>

namespace chorus {

#if defined(__x86_64__) && defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
#define CHORUS_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define CHORUS_POPCNT_CLONES
#endif

CHORUS_POPCNT_CLONES
uint32_t masked_row(const uint64_t* a, const uint64_t* b, const uint64_t* allowed, uint64_t* out, uint32_t words) {
  uint32_t count = 0;
  for (uint32_t w = 0; w < words; ++w) {
    out[w] = a[w] & b[w] & (allowed ? allowed[w] : ~0ull);
    count += static_cast<uint32_t>(std::popcount(out[w]));
  }
  return count;
}

}  // namespace chorus
