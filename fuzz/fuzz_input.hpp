// Shared by the libFuzzer harnesses: hands the fuzz bytes to readers that only take a path, and draws the line
// between an accepted outcome (the reader returns or throws chorus::Error) and a finding (anything else).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "chorus/core/error.hpp"

namespace chorus::fuzz {

// A file in a private directory of this process (so parallel fuzzers never share one), rewritten for every
// input and removed with the directory when the harness exits. Kept in /dev/shm when there is one: no disk I/O.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& name) {
    const std::string base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
    std::string pattern = base + "/chorus-fuzz-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr)
      std::abort();  // no scratch space: nothing can be fuzzed
    dir_ = pattern;
    path_ = dir_ + "/" + name;
  }
  ~ScratchFile() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::string& directory() const { return dir_; }

  // Replaces the file's content with `size` bytes and returns its path.
  const std::string& write(const uint8_t* data, size_t size) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out)
      std::abort();
    return path_;
  }

 private:
  std::string dir_;
  std::string path_;
};

// Runs one read. chorus::Error is the reader rejecting the input, which is what it should do; any other
// exception escapes to libFuzzer, which reports it (as a crash) together with the input.
template <class Read>
void read_accepting_errors(Read&& read) {
  try {
    read();
  } catch (const chorus::Error&) {
  }
}

}  // namespace chorus::fuzz

// A whole harness for a reader that takes a path: `call` is an expression of `path`, the scratch file named
// `file_name` holding this run's input (its extension is what the reader would see on the command line).
#define CHORUS_FUZZ_PATH_READER(file_name, call)                            \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { \
    static chorus::fuzz::ScratchFile scratch(file_name);                    \
    const std::string& path = scratch.write(data, size);                    \
    chorus::fuzz::read_accepting_errors([&] { (void)(call); });             \
    return 0;                                                               \
  }
