// Reading measured nccl-tests runs and comparing chorus's NCCL model with them (measurements.hpp).
#include "chorus/nccl/measurements.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/io/json_file.hpp"
#include "chorus/nccl/cost_model.hpp"

namespace chorus::nccl {
namespace {

namespace fs = std::filesystem;

std::string string_field(const nlohmann::json& doc, const std::string& file, const char* key, bool required) {
  if (!doc.contains(key)) {
    if (required)
      throw Error(file, key, "is missing");
    return {};
  }
  if (!doc[key].is_string() || (required && doc[key].get<std::string>().empty()))
    throw Error(file, key, "must be a non-empty string");
  return doc[key].get<std::string>();
}

uint32_t count_field(const nlohmann::json& doc, const std::string& file, const char* key, bool required) {
  if (!doc.contains(key)) {
    if (required)
      throw Error(file, key, "is missing");
    return 0;
  }
  const nlohmann::json& v = doc[key];
  if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 1'000'000)
    throw Error(file, key, fmt::format("is {}; must be an integer from 1 to 1000000", v.dump()));
  return static_cast<uint32_t>(v.get<int64_t>());
}

void check_ranks(const NcclTestsLog& log, uint32_t expected) {
  if (log.ranks != 0 && log.ranks != expected) {
    throw Error(log.source, "ranks",
                fmt::format("the log lists {} ranks; the setup has {} (nodes x GPUs per node)", log.ranks, expected));
  }
}

std::optional<CollectiveKind> kind_of_program(const std::string& program) {
  if (program.empty())
    return std::nullopt;
  if (program == "alltoall_perf")
    return CollectiveKind::AllToAll;
  return parse_collective_kind(std::string_view(program).substr(0, program.size() - std::string_view("_perf").size()));
}

MeasuredRun read_setup(const fs::path& dir) {
  const std::string file = (dir / "setup.json").string();
  const nlohmann::json doc = load_json_file(file);
  if (!doc.is_object())
    throw Error(file, "setup", "must be a JSON object");
  MeasuredRun run;
  run.name = dir.filename().string();
  try {
    run.machine = &machine::machine(string_field(doc, file, "machine", true));
  } catch (const Error& e) {
    throw Error(file, "machine", e.message());
  }
  run.nodes = count_field(doc, file, "nodes", true);
  run.gpus_per_node = count_field(doc, file, "gpus_per_node", false);
  const std::string collective = string_field(doc, file, "collective", true);
  const auto kind = parse_collective_kind(collective);
  if (!kind)
    throw Error(file, "collective", fmt::format("'{}' is not a collective chorus knows", collective));
  run.kind = *kind;
  run.forced_algorithm = string_field(doc, file, "forced_algorithm", false);
  if (run.forced_algorithm == "none")
    run.forced_algorithm.clear();
  run.source = string_field(doc, file, "source", true);
  if (doc.contains("valid_from_bytes")) {
    const nlohmann::json& v = doc["valid_from_bytes"];
    if (!v.is_number_integer() || v.get<int64_t>() < 0)
      throw Error(file, "valid_from_bytes", fmt::format("is {}; must be a byte count >= 0", v.dump()));
    run.valid_from_bytes = v.get<int64_t>();
  }
  run.hardware = string_field(doc, file, "hardware_as_stated", false);
  run.log = read_nccl_tests_log((dir / "log.txt").string());
  try {
    (void)comm_system(*run.machine, run.nodes, {}, run.gpus_per_node);  // checks the machine, nodes and GPUs
  } catch (const Error& e) {
    throw Error(file, e.field(), e.message());
  }
  const uint32_t gpus = run.gpus_per_node == 0 ? run.machine->gpus_per_node : run.gpus_per_node;
  check_ranks(run.log, run.nodes * gpus);
  return run;
}

}  // namespace

std::vector<MeasuredRun> read_validation_set(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw Error(dir, "directory", "is not a directory");
  std::vector<fs::path> setups;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory() && fs::exists(e.path() / "setup.json"))
      setups.push_back(e.path());
  }
  if (setups.empty())
    throw Error(dir, "setups", "holds no directory with a setup.json");
  std::sort(setups.begin(), setups.end());
  std::vector<MeasuredRun> runs;
  runs.reserve(setups.size());
  for (const fs::path& p : setups)
    runs.push_back(read_setup(p));
  return runs;
}

MeasuredRun read_measured_log(const std::string& path, const machine::Machine& m, uint32_t nodes,
                              std::optional<CollectiveKind> kind_hint) {
  MeasuredRun run;
  run.name = path;
  run.machine = &m;
  run.nodes = nodes;
  run.log = read_nccl_tests_log(path);
  const auto kind = kind_hint ? kind_hint : kind_of_program(run.log.program);
  if (!kind) {
    throw Error(path, "collective",
                "the log does not name its program (all_reduce_perf, ...); give it as KIND:FILE, e.g. "
                "all_gather:" +
                    path);
  }
  run.kind = *kind;
  check_ranks(run.log, nodes * m.gpus_per_node);
  return run;
}

const char* band_name(SizeBand b) {
  return b == SizeBand::kSmall ? "< 1 MiB" : ">= 1 MiB";
}

SizeBand band_of(Bytes size) {
  return size.count() < (int64_t{1} << 20) ? SizeBand::kSmall : SizeBand::kLarge;
}

std::vector<RowError> compare(const MeasuredRun& run, const Scales& scales) {
  const CommSystem system = comm_system(*run.machine, run.nodes, scales, run.gpus_per_node);
  std::vector<RowError> rows;
  for (const NcclTestsRow& row : run.log.rows) {
    const NcclTestsMeasurement& m = row.out_of_place;
    if (row.size.count() <= 0 || row.size.count() < run.valid_from_bytes || m.time_us <= 0 || m.busbw_GBps <= 0)
      continue;
    const Choice c = choose(system, run.kind, row.size.count(), run.forced_algorithm);
    if (!std::isfinite(c.time_us)) {
      throw Error(run.name, "forced_algorithm",
                  fmt::format("'{}' cannot run {} on this machine", run.forced_algorithm, to_string(run.kind)));
    }
    RowError e;
    e.size = row.size;
    e.measured_busbw = m.busbw_GBps;
    e.measured_time_us = m.time_us;
    e.predicted_time_us = c.time_us;
    e.predicted_busbw = c.busbw_GBps(system.ranks);
    e.algorithm = c.best().algorithm;
    e.protocol = c.best().protocol;
    rows.push_back(e);
  }
  return rows;
}

BandErrors band_errors(const std::vector<RowError>& rows) {
  BandErrors b;
  for (const RowError& r : rows) {
    const int i = static_cast<int>(band_of(r.size));
    b.mean_abs[i] += std::abs(r.relative());
    ++b.rows[i];
  }
  for (int i = 0; i < 2; ++i) {
    if (b.rows[i] > 0)
      b.mean_abs[i] /= b.rows[i];
  }
  return b;
}

}  // namespace chorus::nccl
