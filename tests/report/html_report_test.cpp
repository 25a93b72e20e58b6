// The HTML reports (`--report`): one self-contained file (no script, nothing fetched), rendered in headless
// Chromium, which must load it and find the charts' SVG elements. Chromium is optional: without it the rendering
// half is skipped with a message, the self-containment half still runs.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;
using testing_support::run_chorus_split;
using testing_support::shell_quote;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

// No script and no address other than the SVG namespace: the file cannot fetch anything.
void expect_self_contained(const std::string& html) {
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(count(html, "http"), count(html, "http://www.w3.org/2000/svg"));
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
}

bool have_chromium() {
  return std::system("command -v chromium >/dev/null 2>&1") == 0;
}

struct Rendered {
  int status = -1;
  std::string dom;
  std::string log;
};

// chromium --headless --dump-dom: the DOM after loading, and Chromium's log (console errors, failed fetches).
Rendered render(const fs::path& html, const fs::path& scratch) {
  const fs::path profile = scratch / "chromium-profile";
  const fs::path dom = scratch / "dom.html";
  const fs::path log = scratch / "chromium.log";
  const std::string command =
      "timeout -k 5 120 chromium --headless --disable-gpu --no-sandbox --enable-logging=stderr "
      "--user-data-dir=" +
      shell_quote(profile.string()) + " --dump-dom " + shell_quote("file://" + fs::absolute(html).string()) + " >" +
      shell_quote(dom.string()) + " 2>" + shell_quote(log.string());
  Rendered r;
  const int status = std::system(command.c_str());
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.dom = read_text(dom);
  r.log = read_text(log);
  return r;
}

void expect_renders(const fs::path& html, const fs::path& scratch, size_t svgs, const std::string& title) {
  if (!have_chromium())
    GTEST_SKIP() << "chromium not installed (apt-get install chromium): the rendering check is skipped";
  const Rendered r = render(html, scratch);
  ASSERT_EQ(r.status, 0) << r.log;
  EXPECT_NE(r.dom.find(title), std::string::npos) << r.dom.substr(0, 500);
  EXPECT_EQ(count(r.dom, "<svg "), svgs) << r.dom.substr(0, 500);
  EXPECT_GT(count(r.dom, "<rect ") + count(r.dom, "<path "), svgs);
  EXPECT_EQ(r.log.find("Uncaught"), std::string::npos) << r.log;  // a script error
  EXPECT_EQ(r.log.find("net::ERR"), std::string::npos) << r.log;  // a failed fetch
}

class HtmlReport : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "chorus_report_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  fs::path dir_;
};

TEST_F(HtmlReport, SweepReportRendersBothCharts) {
  const fs::path html = dir_ / "sweep.html";
  const auto run =
      run_chorus_split({"collective", "--topology", "ring:8", "--bandwidth", "50GB/s", "--latency", "1us",
                        "--collective", "all_reduce", "--size", "1KiB:1GiB:x4", "--report", html.string()});
  ASSERT_EQ(run.status, 0) << run.err;
  const std::string text = read_text(html);
  expect_self_contained(text);
  // busbw and time against size, each with the simulated and the bound curve
  EXPECT_EQ(count(text, "<svg "), 2u);
  EXPECT_EQ(count(text, "<g class=\"series\">"), 4u);
  expect_renders(html, dir_, 2, "bus bandwidth against size");
}

TEST_F(HtmlReport, SimReportRendersBarsBoundsHeatMapCriticalPathAndWhatIf) {
  const fs::path traces = dir_ / "traces" / "ar";
  ASSERT_EQ(run_chorus_split({"generate", "microbench", "--collective", "all_reduce", "--npus", "8", "--size", "1MiB",
                              "--out", traces.string()})
                .status,
            0);
  const fs::path out = dir_ / "results";
  const auto run =
      run_chorus_split({"sim", "--workload", traces.string(), "--topology", "ring:8", "--bandwidth", "50GB/s",
                        "--latency", "1us", "--model", "flow", "--out", out.string(), "--report", "--what-if"});
  ASSERT_EQ(run.status, 0) << run.err;
  const std::string text = read_text(out / "report.html");
  expect_self_contained(text);
  // per-NPU stacked bars, collectives against bounds, link heat map, critical path over time, what-if bars
  EXPECT_EQ(count(text, "<svg "), 5u);
  EXPECT_NE(text.find("the critical path over time"), std::string::npos);
  EXPECT_NE(text.find("operation (digits as #)"), std::string::npos);  // the blame table
  EXPECT_NE(text.find("dimension 0 bandwidth x2"), std::string::npos);
  EXPECT_NE(text.find("100% (busy the whole run)"), std::string::npos);  // the heat map's absolute scale
  EXPECT_NE(text.find("total time of all instances"), std::string::npos);
  expect_renders(out / "report.html", dir_, 5, "where each NPU");
}

TEST_F(HtmlReport, SimReportNeedsOut) {
  const auto run = run_chorus_split(
      {"sim", "--workload", "x", "--topology", "ring:8", "--bandwidth", "50GB/s", "--latency", "1us", "--report"});
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("--report"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace chorus
