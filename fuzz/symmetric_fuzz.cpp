// libFuzzer harness: the symmetric-workload description (classes.json, workload/symmetric_workload.hpp), read
// with the two class traces of fuzz/seeds/symmetric/ copied once beside it, so class, rank-run, group and replica
// descriptions that parse but disagree with each other or with the traces are exercised.
#include <filesystem>

#include "chorus/workload/symmetric_workload.hpp"
#include "fuzz/fuzz_input.hpp"

namespace {

// Copies the class traces next to the scratch classes.json on first use.
bool copy_class_traces(const chorus::fuzz::ScratchFile& scratch) {
  const std::filesystem::path seeds = std::filesystem::path(CHORUS_SOURCE_DIR) / "fuzz" / "seeds" / "symmetric";
  for (const char* name : {"class.0.et", "class.1.et"})
    std::filesystem::copy_file(seeds / name, std::filesystem::path(scratch.directory()) / name);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static chorus::fuzz::ScratchFile scratch("classes.json");
  static const bool copied = copy_class_traces(scratch);
  (void)copied;
  const std::string& path = scratch.write(data, size);
  chorus::fuzz::read_accepting_errors([&] { (void)chorus::load_symmetric_workload(path); });
  return 0;
}
