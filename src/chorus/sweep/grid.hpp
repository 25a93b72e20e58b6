// A parameter grid for `chorus sweep`: one chorus job (its subcommand words and fixed arguments) and axes
// (option name -> values) whose Cartesian product gives the points, read from YAML:
//
//   job: collective                 # a subcommand; "llm run" for a nested one
//   args: [--topology, torus2d:8x8, --bandwidth, 50GB/s, --latency, 500ns, --collective, all_reduce]
//   axes:
//     --size: [1MiB, 64MiB]         # the option, with or without its leading "--"
//     --algorithm: [ring, direct]
//
// Points are enumerated with the last axis varying fastest. Every error names the file and the key.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace chorus {

struct GridAxis {
  std::string option;  // as the job takes it: "--size"
  std::string column;  // the CSV column: "size"
  std::vector<std::string> values;
};

struct Grid {
  std::string source;             // the file, for errors
  std::vector<std::string> job;   // subcommand words: {"collective"} or {"llm", "run"}
  std::vector<std::string> args;  // fixed arguments
  std::vector<GridAxis> axes;

  uint64_t point_count() const;
  // The value of every axis at point `index` (0 <= index < point_count()), in axis order.
  std::vector<std::string> point(uint64_t index) const;
  // The job's argument list at a point: job words, fixed args, each axis as "--option value", and `extra`.
  std::vector<std::string> command_line(const std::vector<std::string>& values,
                                        const std::vector<std::string>& extra) const;
};

// Answers, for the job's words, whether they name a subcommand that takes --json, and whether an option name
// (with its "--") belongs to it; nullopt-like empty string = fine, else the complaint.
struct JobCatalogue {
  std::function<std::string(const std::vector<std::string>& job)> check_job;
  std::function<bool(const std::vector<std::string>& job, const std::string& option)> has_option;
};

// Reads and validates a grid; throws chorus::Error(path, key, message), e.g. ("sweep.yml", "axes.--sizes",
// "not an option of `chorus collective`").
Grid load_grid(const std::string& path, const JobCatalogue& catalogue);

// At most this many points: a grid is enumerated and its done-set kept in memory.
inline constexpr uint64_t kMaxGridPoints = 10'000'000;

}  // namespace chorus
