// Reading measured nccl-tests setups, comparing the model with them, and fitting scales: the repository's validation
// set parses, bad setups end in one error naming the file and field, and a fit recovers scales it was given.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/nccl/cost_model.hpp"
#include "chorus/nccl/fit.hpp"
#include "chorus/nccl/measurements.hpp"

namespace chorus::nccl {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir()
      : path_(fs::temp_directory_path() /
              fmt::format("chorus-nccl-{}", ::testing::UnitTest::GetInstance()->random_seed())) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

const char* kHeader =
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
    "#wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";

// A log whose rows are the model's own times for `system` (a run of a machine whose true scales are known).
std::string model_log(const CommSystem& system, CollectiveKind kind) {
  std::string text = kHeader;
  for (int64_t bytes = 1024; bytes <= (int64_t{1} << 32); bytes *= 4) {
    const Choice c = choose(system, kind, bytes);
    text +=
        fmt::format("{} {} float sum -1 {:.3f} {:.4f} {:.4f} 0 {:.3f} {:.4f} {:.4f} 0\n", bytes, bytes / 4, c.time_us,
                    c.algbw_GBps(), c.busbw_GBps(system.ranks), c.time_us, c.algbw_GBps(), c.busbw_GBps(system.ranks));
  }
  return text;
}

TEST(NcclValidationSet, TheRepositorySetParses) {
  const auto runs = read_validation_set(std::string(CHORUS_SOURCE_DIR) + "/validation/nccl");
  EXPECT_GE(runs.size(), 19u);
  for (const MeasuredRun& r : runs) {
    EXPECT_FALSE(r.source.empty()) << r.name;
    EXPECT_FALSE(compare(r, {}).empty()) << r.name;
  }
}

TEST(NcclValidationSet, ErrorIsAgainstTheMeasuredBusBandwidth) {
  // dgx-h100, one node, 4 GiB All-Reduce: measured busbw from the log; the model's NVLS at 4 GiB is
  // bus x S / (S + (25 us + fill) x bus x 8/14) by hand (cost_model_test), bus = 8 heads x 40 x 0.85 x 7/8 x 2
  // GB/s, fill one 1 MiB slice at bus / 8.
  const auto runs = read_validation_set(std::string(CHORUS_SOURCE_DIR) + "/validation/nccl");
  const MeasuredRun* h100 = nullptr;
  for (const MeasuredRun& r : runs) {
    if (r.name == "dgx-h100-1n-all_reduce-nccltests290")
      h100 = &r;
  }
  ASSERT_NE(h100, nullptr);
  const NcclTestsRow* row = h100->log.find(Bytes(int64_t{4} << 30));
  ASSERT_NE(row, nullptr);
  const double s = static_cast<double>(int64_t{4} << 30);
  const double bus = 8 * 40 * 0.85 * 7 / 8 * 2;
  const double bw = bus * 8 / 14;
  const double fill_us = 1048576 / (1000 * bus / 8);
  const double predicted = bus * s / (s + (25 + fill_us) * 1e3 * bw);
  for (const RowError& e : compare(*h100, {})) {
    if (e.size.count() == (int64_t{4} << 30)) {
      EXPECT_NEAR(e.predicted_busbw, predicted, 0.01);
      EXPECT_NEAR(e.relative(), (predicted - row->out_of_place.busbw_GBps) / row->out_of_place.busbw_GBps, 1e-4);
    }
  }
}

TEST(NcclFit, RecoversTheScalesALogWasMadeWith) {
  const machine::Machine& m = machine::machine("dgx-h100");
  const Scales truth{0.8, 0.7, 1.5, 3.0};
  TempDir dir;
  std::vector<MeasuredRun> runs;
  for (const CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::AllGather}) {
    const fs::path log = dir.path() / (to_string(kind) + ".log");
    write(log, model_log(comm_system(m, 2, truth), kind));
    runs.push_back(read_measured_log(log.string(), m, 2, kind));
  }
  const Scales fitted = fit_scales(runs);
  EXPECT_NEAR(fitted.intra_bandwidth, truth.intra_bandwidth, 0.02);
  EXPECT_NEAR(fitted.inter_bandwidth, truth.inter_bandwidth, 0.02);
  EXPECT_NEAR(fitted.latency, truth.latency, 0.03);
  EXPECT_NEAR(fitted.overhead_us, truth.overhead_us, 0.3);
  EXPECT_LT(mean_abs_error(runs, fitted), 0.01);
  EXPECT_GT(mean_abs_error(runs, {}), 0.1);
}

void expect_error(const fs::path& dir, const std::string& needle_file, const std::string& needle_field) {
  try {
    (void)read_validation_set(dir.string());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle_file), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle_field), std::string::npos) << e.what();
  }
}

std::string setup(const std::string& machine, int nodes, const std::string& collective) {
  return fmt::format(R"({{"machine": "{}", "nodes": {}, "collective": "{}", "source": "a test"}})", machine, nodes,
                     collective);
}

TEST(NcclValidationSet, BadSetupsNameTheFileAndField) {
  const std::string rows = std::string(kHeader) + "1048576 262144 float sum -1 30.0 34.95 61.17 0 30.0 34.95 61.17 0\n";
  {
    TempDir d;
    write(d.path() / "a" / "setup.json", setup("dgx-h10", 1, "all_reduce"));
    write(d.path() / "a" / "log.txt", rows);
    expect_error(d.path(), "setup.json", "did you mean 'dgx-h100'");
  }
  {
    TempDir d;
    write(d.path() / "a" / "setup.json", setup("dgx-h100", 0, "all_reduce"));
    write(d.path() / "a" / "log.txt", rows);
    expect_error(d.path(), "setup.json", "nodes");
  }
  {
    TempDir d;
    write(d.path() / "a" / "setup.json", setup("dgx-h100", 2000, "all_reduce"));
    write(d.path() / "a" / "log.txt", rows);
    expect_error(d.path(), "setup.json", "nodes");
  }
  {
    TempDir d;
    write(d.path() / "a" / "setup.json", setup("dgx-h100", 1, "all_shuffle"));
    write(d.path() / "a" / "log.txt", rows);
    expect_error(d.path(), "setup.json", "collective");
  }
  {
    TempDir d;  // a log of 2 ranks for a setup of 8
    write(d.path() / "a" / "setup.json", setup("dgx-h100", 1, "all_reduce"));
    write(d.path() / "a" / "log.txt",
          "#  Rank  0 Group  0 Pid 1 on a device  0 [0x1] H100\n"
          "#  Rank  1 Group  0 Pid 2 on a device  1 [0x2] H100\n" +
              rows);
    expect_error(d.path(), "log.txt", "ranks");
  }
  {
    TempDir d;  // sizes that do not parse: no row is left
    write(d.path() / "a" / "setup.json", setup("dgx-h100", 1, "all_reduce"));
    write(d.path() / "a" / "log.txt", std::string(kHeader) + "10MB 262144 float sum -1 30.0 1 1 0 30.0 1 1 0\n");
    expect_error(d.path(), "log.txt", "rows");
  }
  {
    TempDir d;
    write(d.path() / "a" / "setup.json", setup("tpu-v4-pod", 1, "all_reduce"));
    write(d.path() / "a" / "log.txt", rows);
    expect_error(d.path(), "setup.json", "not a machine NCCL or RCCL runs on");
  }
  {
    TempDir d;
    expect_error(d.path(), d.path().string(), "no directory with a setup.json");
  }
}

}  // namespace
}  // namespace chorus::nccl
