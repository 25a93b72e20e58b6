// masked_row: out = a & b (& allowed), and the number of bits set, for the matching engine's option rows.
//
// Why a function of its own: counting is a tenth of a 1,024-NPU synthesis when done with shifts and masks (the
// portable build targets x86-64 without the popcount instruction). On x86-64 with GCC or Clang the function is
// compiled twice (target_clones) and the loader picks the popcount build where the CPU has the instruction.
#pragma once

#include <cstdint>

namespace chorus {

// `allowed` may be null (every bit allowed). Returns the set bits of out[0 .. words).
uint32_t masked_row(const uint64_t* a, const uint64_t* b, const uint64_t* allowed, uint64_t* out, uint32_t words);

}  // namespace chorus
