// Directories of per-rank Chakra traces (see trace_directory.hpp).
#include "chorus/chakra/trace_directory.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

namespace chorus {

namespace {

// True for "<stem>.<digits>.et": a rank file of the export named `stem`.
bool is_rank_file_of(const std::string& name, const std::string& stem) {
  if (name.size() <= stem.size() + 4 || name.compare(0, stem.size() + 1, stem + ".") != 0 || !name.ends_with(".et"))
    return false;
  const std::string_view digits(name.data() + stem.size() + 1, name.size() - stem.size() - 4);
  return !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Removes what an earlier export into `directory` left that the loader would read with the new one: rank files of
// the same stem (a 64-rank export overwritten by an 8-rank one would otherwise still show 64 ranks) and a symmetric
// workload's classes.json and class traces (which would make the directory read as that workload).
void remove_earlier_export(const std::filesystem::path& directory, const std::string& stem, const Field& field) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    const std::string name = entry.path().filename().string();
    if (is_rank_file_of(name, stem) || is_rank_file_of(name, "class") || name == "classes.json") {
      std::filesystem::remove(entry.path(), ec);
      if (ec)
        throw Error(entry.path().string(), field,
                    fmt::format("cannot remove a file of an earlier export: {}", ec.message()));
    }
  }
}

}  // namespace

std::string make_trace_directory(const std::string& directory, const std::string& stem, const Field& field) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec)
    throw Error(directory, field, fmt::format("cannot create the directory: {}", ec.message()));
  if (!stem.empty())
    remove_earlier_export(directory, stem, field);
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
