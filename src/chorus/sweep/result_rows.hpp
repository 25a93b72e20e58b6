// The rows `chorus sweep` writes, one per point, and the rows it finds on a re-run (to skip those points).
//
// CSV: columns = the axes (named without "--"), status (ok | error), error (the job's one-line message), then the
// top-level keys of the first successful point's JSON, in its key order (nested values as JSON text; a key that
// repeats an axis name is left to the axis). JSONL: one object per line, {"point": {axis: value}, "status",
// "error", "result": the job's JSON}.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chorus/sweep/grid.hpp"

namespace chorus {

struct PointOutcome {
  bool ok = false;
  std::string error;      // when !ok
  nlohmann::json result;  // when ok: the job's --json object
};

// What a previous run left in the output file.
struct ExistingRows {
  bool has_header = false;                  // CSV only
  std::vector<std::string> result_columns;  // CSV only: the columns after status and error
  std::set<std::string> done;               // point_key() of every complete row
};

std::string point_key(const std::vector<std::string>& values);

// Reads `path` if it exists; a last line without its newline (a run killed mid-write) is cut off the file. Throws
// chorus::Error(path, ...) if the header does not match the grid's axes or a row cannot be read.
ExistingRows read_existing_rows(const std::string& path, const Grid& grid, bool jsonl);

// The result columns of the CSV header in `path`, once one is there (nullopt: none yet). Throws like
// read_existing_rows() if the header does not match the grid.
std::optional<std::vector<std::string>> read_csv_header(const std::string& path, const Grid& grid);

// The result columns for a first successful JSON object: its top-level keys minus the axis names.
std::vector<std::string> result_columns(const Grid& grid, const nlohmann::json& result);

std::string csv_header(const Grid& grid, const std::vector<std::string>& result_columns);
std::string csv_row(const std::vector<std::string>& values, const PointOutcome& outcome,
                    const std::vector<std::string>& result_columns);
std::string jsonl_row(const Grid& grid, const std::vector<std::string>& values, const PointOutcome& outcome);

}  // namespace chorus
