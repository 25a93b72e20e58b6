// Checked arithmetic for numbers read from inputs: an overflow is an input error naming the file and field,
// never a wrapped, saturated or clamped value that would print as a plausible answer.
//
//   int64_t bytes = checked_mul(count, size, "w.0.et", "node 7: comm_size");   // Error on overflow
//   Time t = checked_time_from_seconds(ops / flops, "sys.json", "peak-perf");  // Error past ~106 days
#pragma once

#include <cstdint>
#include <string>

#include "chorus/core/error.hpp"
#include "chorus/core/units.hpp"

namespace chorus {

// a * b and a + b, or chorus::Error(source, field, "... overflows ...").
int64_t checked_mul(int64_t a, int64_t b, const std::string& source, const Field& field);
int64_t checked_add(int64_t a, int64_t b, const std::string& source, const Field& field);

// A non-negative duration in seconds as a Time, or an Error when it is not finite, negative, or beyond the
// picosecond range of chorus::Time (about 106 days).
Time checked_time_from_seconds(double seconds, const std::string& source, const Field& field);
Time checked_time_from_picoseconds(double ps, const std::string& source, const Field& field);

// A double read from input that must be a whole count in [low, high], as an integer; Error otherwise.
int64_t checked_integer(double value, int64_t low, int64_t high, const std::string& source, const Field& field);

// An NPU id read as a wider integer, range-checked before it is narrowed to 32 bits.
uint32_t checked_npu_id(uint64_t value, const std::string& source, const Field& field);

}  // namespace chorus
