// chorus::Error: a user or input error, carrying where it came from (file, field) and what was wrong.
//
// The library throws it; the CLI catches it, prints `error: <what()>` on one line and exits with status 2.
// Messages follow LLVM style: lower-case, with the offending value, e.g.
//   throw Error("net.yml", "bandwidth[1]", "is 0 GB/s; must be > 0");
//   what() == "net.yml: bandwidth[1]: is 0 GB/s; must be > 0"
#pragma once

#include <stdexcept>
#include <string>

namespace chorus {

class Error : public std::runtime_error {
 public:
  Error(std::string source, std::string field, std::string message);
  const std::string& source() const { return source_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

 private:
  std::string source_;
  std::string field_;
  std::string message_;
};

}  // namespace chorus
