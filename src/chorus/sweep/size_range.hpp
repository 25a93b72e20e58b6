// Size sweeps as nccl-tests runs them (-b A -e B -f F / -i S): "8B:32GiB:x2" (geometric), "1MiB:8MiB:+1MiB"
// (arithmetic), "1MiB,4MiB,64MiB" (a list) or one size. Each size takes parse_size's units.
//
//   parse_size_range("8B:1KiB:x2", Argument{"size"}) == {8, 16, 32, ..., 1024} bytes (8 sizes)
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "chorus/core/error.hpp"
#include "chorus/core/units.hpp"

namespace chorus {

// At most this many sizes in one sweep: a step that is a typo ("+1B" over GiB) must not allocate without bound.
inline constexpr size_t kMaxSweepSizes = 10'000;

// Whether `text` names more than one size (a range or a list), not a single size.
bool is_size_range(std::string_view text);

// The sizes, in the order given (a range ascends). Throws chorus::Error naming `field` for an end below the start,
// a factor <= 1, a step of 0, more than kMaxSweepSizes sizes, or a size parse_size rejects.
std::vector<Bytes> parse_size_range(std::string_view text, const Field& field);

}  // namespace chorus
