// CHORUS_ASSERT: programmer invariants, checked in every build type (release included).
//
// A failed assertion is a bug in chorus, never a user error: user and input errors are chorus::Error
// (error.hpp). The message carries values: CHORUS_ASSERT(n > 0, "ring of {} NPUs", n).
#pragma once

#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace chorus {

// Thrown by a failed CHORUS_ASSERT so that tests can observe it and the CLI can report it without a core dump.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void assertion_failed(const char* condition, const char* file, int line, const std::string& message);

}  // namespace chorus

#define CHORUS_ASSERT(cond, ...)                                                       \
  do {                                                                                 \
    if (!(cond))                                                                       \
      ::chorus::assertion_failed(#cond, __FILE__, __LINE__, fmt::format(__VA_ARGS__)); \
  } while (false)
