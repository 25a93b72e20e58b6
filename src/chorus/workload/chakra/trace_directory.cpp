// Directories of per-rank Chakra traces (see trace_directory.hpp).
#include "chorus/workload/chakra/trace_directory.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

namespace chorus {

std::string make_trace_directory(const std::string& directory, const std::string& stem, const Field& field) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec)
    throw Error(directory, field, fmt::format("cannot create the directory: {}", ec.message()));
  return (std::filesystem::path(directory) / stem).string();
}

std::string rank_file(const std::string& prefix, uint64_t rank) {
  return fmt::format("{}.{}.et", prefix, rank);
}

void write_comm_groups(const std::string& directory, const nlohmann::ordered_json& groups) {
  const std::string path = (std::filesystem::path(directory) / "comm_groups.json").string();
  std::ofstream out(path);
  out << groups.dump() << "\n";
  if (!out)
    throw Error(path, Argument{"out"}, "cannot write the communicator groups");
}

}  // namespace chorus
