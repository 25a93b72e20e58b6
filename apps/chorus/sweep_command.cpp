// `chorus sweep`: runs one chorus job over a parameter grid (sweep/grid.hpp), each point through the same command
// function as the CLI (in a forked child: sweep/child_pool.hpp says why), spread over --threads children and over
// MPI ranks under mpirun, one CSV (or JSONL) row per point, skipping points already in the output file.
//
//   chorus sweep --grid sweep.yml --out sweep.csv --threads 4
//   mpirun -np 2 chorus sweep --grid sweep.yml --out sweep.csv
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "chorus/core/assert.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/sweep/child_pool.hpp"
#include "chorus/sweep/grid.hpp"
#include "chorus/sweep/ranks.hpp"
#include "chorus/sweep/result_rows.hpp"
#include "commands.hpp"
#include "error_text.hpp"
#include "usage.hpp"

namespace chorus::cli {

namespace {

struct SweepOptions {
  std::string grid;
  std::string out;
  bool jsonl = false;
  unsigned threads = 0;  // 0: the cores of this machine, shared by the ranks on it
};

CLI::App* find_subcommand(CLI::App& parent, const std::string& name) {
  for (CLI::App* sub : parent.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->check_name(name))
      return sub;
  }
  return nullptr;
}

// The subcommand the job's words lead to, or the complaint about them.
std::pair<CLI::App*, std::string> walk(CLI::App& root, const std::vector<std::string>& job) {
  CLI::App* app = &root;
  for (const std::string& word : job) {
    CLI::App* sub = find_subcommand(*app, word);
    if (sub == nullptr || word == "sweep") {
      std::vector<std::string> names;
      for (CLI::App* s : app->get_subcommands([](CLI::App*) { return true; })) {
        if (s->get_name() != "sweep" && !s->get_name().empty())
          names.push_back(s->get_name());
      }
      return {nullptr, fmt::format("'{}' is not a chorus subcommand a sweep can run; expected one of {}", word,
                                   fmt::join(names, ", "))};
    }
    app = sub;
  }
  if (app->get_option_no_throw("--json") == nullptr) {
    return {nullptr,
            fmt::format("`chorus {}` has no --json option; the sweep reads each point's JSON", fmt::join(job, " "))};
  }
  return {app, ""};
}

JobCatalogue catalogue_of(CLI::App& root) {
  JobCatalogue c;
  c.check_job = [&root](const std::vector<std::string>& job) { return walk(root, job).second; };
  c.has_option = [&root](const std::vector<std::string>& job, const std::string& option) {
    CLI::App* app = walk(root, job).first;
    return app != nullptr && app->get_option_no_throw(option) != nullptr;
  };
  return c;
}

// In the child: the job's command line through the CLI's own parser and callbacks, errors as main() reports them.
int run_point(CLI::App& root, const Grid& grid, const std::vector<std::string>& values) {
  forget_mpi_launch();
  std::vector<std::string> words = grid.command_line(values, {"--json"});
  words.insert(words.begin(), "chorus");
  std::vector<char*> argv;
  for (std::string& w : words)
    argv.push_back(w.data());
  try {
    root.clear();
    return parse_command_line(root, static_cast<int>(argv.size()), argv.data());
  } catch (const Error& e) {
    std::cerr << "error: " << error_text(e) << "\n";  // as main() words it: an argument named by its flag
    return 2;
  } catch (const InternalError& e) {
    std::cerr << "error: " << e.what() << " (please report this bug)\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}

// The job's JSON: the whole stdout, or else its last non-empty line.
nlohmann::json parse_result(const std::string& out) {
  nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  if (j.is_object())
    return j;
  const size_t end = out.find_last_not_of("\n ");
  if (end == std::string::npos)
    return nullptr;
  const size_t start = out.rfind('\n', end);
  j = nlohmann::json::parse(out.substr(start == std::string::npos ? 0 : start + 1, end + 1), nullptr, false);
  return j.is_object() ? j : nlohmann::json(nullptr);
}

PointOutcome outcome_of(const ChildOutput& child) {
  PointOutcome o;
  o.result = parse_result(child.out);
  o.ok = child.status == 0 && o.result.is_object();
  if (o.ok)
    return o;
  std::string err = child.err;
  while (!err.empty() && (err.back() == '\n' || err.back() == '\r'))
    err.pop_back();
  err = err.substr(err.rfind('\n') == std::string::npos ? 0 : err.rfind('\n') + 1);
  if (err.starts_with("error: "))
    err = err.substr(7);
  if (err.empty())
    err = child.status == 0 ? "no JSON object on stdout" : fmt::format("exit status {}", child.status);
  o.error = err;
  return o;
}

// The output file, shared by the ranks: every read and append happens under an exclusive flock(), so a rank never
// sees half a row of another, and the repair of a half-written last line (a run killed mid-write) is safe.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw Error(path, "--out", std::strerror(errno));
  }
  ~OutputFile() { ::close(fd_); }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Runs `f` holding the lock.
  template <typename F>
  auto locked(F&& f) const {
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR)
        throw Error(path_, "--out", fmt::format("cannot lock: {}", std::strerror(errno)));
    }
    struct Unlock {
      int fd;
      ~Unlock() { ::flock(fd, LOCK_UN); }
    } unlock{fd_};
    return f();
  }
  void append(const std::string& text) const {
    locked([&] {
      if (::write(fd_, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
        throw Error(path_, "--out", fmt::format("write failed: {}", std::strerror(errno)));
    });
  }

 private:
  std::string path_;
  int fd_ = -1;
};

// Rows wait here until the CSV has its columns: rank 0 fixes them with its first successful point and writes the
// header; the other ranks hold their rows until they see it in the file.
class RowSink {
 public:
  RowSink(const Grid& grid, const OutputFile& file, const std::string& path, bool jsonl, bool leader,
          const ExistingRows& existing)
      : grid_(grid),
        file_(file),
        path_(path),
        jsonl_(jsonl),
        leader_(leader),
        ready_(jsonl || existing.has_header),
        columns_(existing.result_columns) {}

  void add(uint64_t point, const PointOutcome& outcome) {
    if (ready_) {
      file_.append(row(point, outcome));
      return;
    }
    held_.emplace_back(point, outcome);
    if (leader_ && outcome.ok) {
      columns_ = result_columns(grid_, outcome.result);
      flush(csv_header(grid_, columns_));
    } else if (!leader_) {
      if (std::optional<std::vector<std::string>> columns =
              file_.locked([&] { return read_csv_header(path_, grid_); })) {
        columns_ = std::move(*columns);
        flush("");
      }
    }
  }

  // After the last point: the leader writes a header even without a success; the others wait for it.
  void finish() {
    if (ready_)
      return;
    if (leader_) {
      flush(csv_header(grid_, columns_));
      return;
    }
    for (;;) {
      if (std::optional<std::vector<std::string>> columns =
              file_.locked([&] { return read_csv_header(path_, grid_); })) {
        columns_ = std::move(*columns);
        flush("");
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

 private:
  std::string row(uint64_t point, const PointOutcome& outcome) const {
    return jsonl_ ? jsonl_row(grid_, grid_.point(point), outcome) : csv_row(grid_.point(point), outcome, columns_);
  }
  void flush(std::string text) {
    for (const auto& [point, outcome] : held_)
      text += row(point, outcome);
    held_.clear();
    ready_ = true;
    file_.append(text);
  }

  const Grid& grid_;
  const OutputFile& file_;
  std::string path_;
  bool jsonl_, leader_, ready_;
  std::vector<std::string> columns_;
  std::vector<std::pair<uint64_t, PointOutcome>> held_;
};

void run_sweep(CLI::App& root, const SweepOptions& o) {
  const auto started = std::chrono::steady_clock::now();
  const Grid grid = load_grid(o.grid, catalogue_of(root));
  SweepRanks ranks;
  const OutputFile file(o.out);
  const ExistingRows existing = file.locked([&] { return read_existing_rows(o.out, grid, o.jsonl); });
  // Rank r owns the points whose index is r modulo the rank count: the split does not depend on what the other
  // ranks have appended by the time this one reads the file.
  std::vector<uint64_t> mine;
  uint64_t skipped = 0;
  for (uint64_t i = 0; i < grid.point_count(); ++i) {
    if (existing.done.contains(point_key(grid.point(i))))
      ++skipped;
    else if (i % static_cast<uint64_t>(ranks.size()) == static_cast<uint64_t>(ranks.rank()))
      mine.push_back(i);
  }
  const unsigned threads =
      o.threads > 0 ? o.threads
                    : std::max(1u, std::thread::hardware_concurrency() / static_cast<unsigned>(ranks.size()));
  RowSink sink(grid, file, o.out, o.jsonl, ranks.rank() == 0, existing);
  uint64_t run = 0, failed = 0;
  run_in_children(
      mine, threads, [&](uint64_t point) { return run_point(root, grid, grid.point(point)); },
      [&](uint64_t point, const ChildOutput& out) {
        const PointOutcome outcome = outcome_of(out);
        ++run;
        failed += outcome.ok ? 0 : 1;
        sink.add(point, outcome);
      });
  sink.finish();
  run = ranks.sum(run);
  failed = ranks.sum(failed);
  if (ranks.rank() == 0) {
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    fmt::print("sweep: {} points, {} run ({} failed), {} already in {}; {} rank(s) x {} thread(s), {:.2f} s\n",
               grid.point_count(), run, failed, skipped, o.out, ranks.size(), threads, wall);
  }
}

}  // namespace

void register_sweep_command(CLI::App& app) {
  auto options = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand("sweep", "run a chorus job over a parameter grid (YAML), one CSV row per point");
  cmd->add_option("--grid", options->grid, "grid YAML: job, args, axes (docs/cli.md, chorus sweep)")->required();
  cmd->add_option("--out", options->out, "CSV file to append rows to; points already in it are skipped")->required();
  cmd->add_flag("--jsonl", options->jsonl, "write JSON lines instead of CSV");
  cmd->add_option("--threads", options->threads,
                  "points run at once on this rank (default: this machine's cores / ranks)")
      ->check(CLI::Range(uint64_t{1}, limits::kMaxThreads));
  CLI::App* root = &app;
  cmd->callback([options, root] { run_sweep(*root, *options); });
}

}  // namespace chorus::cli
