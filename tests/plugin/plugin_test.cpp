// Plugins (src/chorus/plugin): ns-3, MPI, GLPK and protobuf are loaded only by the jobs that need them. The chorus
// program links none of them (its NEEDED entries); `--version`, `collective`, `bound`, `llm run` and `llm search`
// outside mpirun map none of them (LD_DEBUG=libs); the packet model, the exact All-to-All bound and Chakra traces
// load their plugin and give the same numbers as before the split; a missing plugin is one chorus::Error naming its
// file.
#include <gtest/gtest.h>

#include <stdio.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "chorus/core/error.hpp"
#include "chorus/plugin/plugin.hpp"
#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

struct ShellRun {
  int status = -1;
  std::string out;
};

// `command` under sh, stdout and stderr together.
ShellRun shell(const std::string& command) {
  ShellRun run;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr)
    return run;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    run.out.append(buffer, n);
  const int status = ::pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// Appended piece by piece: `"literal" + std::string` trips GCC 12's -Wrestrict false positive (GCC bug 105329).
std::string chorus_command(const std::vector<std::string>& args) {
  std::string command = testing_support::shell_quote(CHORUS_BINARY);
  for (const std::string& a : args) {
    command += ' ';
    command += testing_support::shell_quote(a);
  }
  return command;
}

// The shared objects the dynamic linker initialised while `chorus ARGS` ran (glibc's LD_DEBUG=libs), stdout dropped.
std::string libraries_loaded(const std::vector<std::string>& args) {
  const ShellRun r =
      shell("LD_DEBUG=libs timeout -k 5 120 " + chorus_command(args) + " 2>&1 >/dev/null | grep 'calling init:'");
  return r.out;
}

bool mentions(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

void expect_no_plugin(const std::string& loaded, const std::string& what) {
  EXPECT_TRUE(mentions(loaded, "libstdc++")) << what << ": LD_DEBUG shows nothing:\n" << loaded;
  for (const char* library : {"libns3", "libmpi", "libglpk", "libprotobuf", "libchorus_"})
    EXPECT_FALSE(mentions(loaded, library)) << what << " loaded " << library << ":\n" << loaded;
}

const std::vector<std::string> kRing = {"--topology", "ring:256",     "--bandwidth", "50GB/s", "--latency",
                                        "1us",        "--collective", "all_reduce",  "--size", "64MiB"};

TEST(Plugins, TheProgramLinksNeitherNs3NorMpiNorGlpk) {
  std::string command = "readelf -d ";
  command += testing_support::shell_quote(CHORUS_BINARY);
  const ShellRun r = shell(command);
  if (r.status != 0)
    GTEST_SKIP() << "no readelf";
  ASSERT_TRUE(mentions(r.out, "(NEEDED)")) << r.out;
  for (const char* library : {"libns3", "libmpi", "libglpk", "libprotobuf", "libchorus_"})
    EXPECT_FALSE(mentions(r.out, library)) << r.out;
}

TEST(Plugins, SmallJobsLoadNone) {
  expect_no_plugin(libraries_loaded({"--version"}), "--version");
  std::vector<std::string> collective = {"collective"};
  collective.insert(collective.end(), kRing.begin(), kRing.end());
  expect_no_plugin(libraries_loaded(collective), "collective");
  std::vector<std::string> bound = {"bound"};
  bound.insert(bound.end(), kRing.begin(), kRing.end());
  expect_no_plugin(libraries_loaded(bound), "bound");
  const std::string presets = std::string(CHORUS_SOURCE_DIR) + "/examples/llm/";
  expect_no_plugin(libraries_loaded({"llm", "run", "--model", presets + "gpt3-175b.json", "--system",
                                     presets + "a100_80g.json", "--exec", presets + "gpt3-175b_exec.json"}),
                   "llm run");
  const std::string calculon = std::string(CHORUS_REFERENCE_DIR) + "/calculon-inputs/";
  // Outside mpirun a search is a group of one: MPI stays unloaded.
  expect_no_plugin(
      libraries_loaded({"llm", "search", "--top", "1", "--threads", "1", "--gpus", "8", "--max-batch", "16", "--model",
                        calculon + "models/megatron-22B.json", "--system", calculon + "systems/a100_80g.json"}),
      "llm search");
}

// The same command's time as before the plugin split (commit 1cedd05, ns-3 linked into the program): 4 NPUs, so it
// is quick, and every packet of the ring crosses ns-3.
TEST(Plugins, PacketModelLoadsItsPluginAndKeepsItsTime) {
  const std::vector<std::string> args = {"collective", "--topology", "ring:4",       "--bandwidth", "50GB/s",
                                         "--latency",  "1us",        "--collective", "all_reduce",  "--size",
                                         "1MiB",       "--model",    "packet",       "--json"};
  const ShellRun models = shell(chorus_command({"collective", "--help"}));
  if (!mentions(models.out, "packet: packets on ns-3"))
    GTEST_SKIP() << "chorus was built without ns-3";
  const std::string loaded = libraries_loaded(args);
  EXPECT_TRUE(mentions(loaded, "libchorus_packet.so")) << loaded;
  EXPECT_TRUE(mentions(loaded, "libns3")) << loaded;
  EXPECT_FALSE(mentions(loaded, "libmpi")) << loaded;
  const ShellRun r = shell(chorus_command(args) + " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(mentions(r.out, "\"time_ns\":37933.44,")) << r.out;
}

// The exact All-to-All bound of a 4x4 mesh (the LP on GLPK, in its plugin), as before the split (commit 1cedd05).
TEST(Plugins, ExactAllToAllBoundLoadsGlpkAndKeepsItsValue) {
  const std::vector<std::string> args = {"synth", "--topology",   "mesh2d:4x4", "--bandwidth", "50GiB/s", "--latency",
                                         "0.5us", "--collective", "all_to_all", "--size",      "16MiB",   "--json"};
  const std::string loaded = libraries_loaded(args);
  EXPECT_TRUE(mentions(loaded, "libchorus_glpk.so")) << loaded;
  EXPECT_TRUE(mentions(loaded, "libglpk")) << loaded;
  EXPECT_FALSE(mentions(loaded, "libns3")) << loaded;
  const ShellRun r = shell(chorus_command(args) + " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(mentions(r.out, "\"bound_kind\":\"flow (exact)\"")) << r.out;
  EXPECT_TRUE(mentions(r.out, "\"flow_exact\":true")) << r.out;
  EXPECT_TRUE(mentions(r.out, "\"bound_ns\":312499.999,")) << r.out;
}

// Chakra traces (protobuf) through their plugin: generate writes them, sim reads them, as before.
TEST(Plugins, ChakraTracesLoadProtobufThroughTheirPlugin) {
  const std::string dir = ::testing::TempDir() + "chorus_plugin_chakra";
  const std::vector<std::string> generate = {"generate", "microbench", "--collective", "all_reduce", "--npus",
                                             "8",        "--size",     "1MiB",         "--out",      dir};
  const std::string loaded = libraries_loaded(generate);
  EXPECT_TRUE(mentions(loaded, "libchorus_chakra.so")) << loaded;
  EXPECT_TRUE(mentions(loaded, "libprotobuf")) << loaded;
  const std::string reference = std::string(CHORUS_REFERENCE_DIR) + "/astra-sim-inputs/";
  const ShellRun r = shell(chorus_command({"sim", "--workload", dir, "--network", reference + "network/Ring_8.yml",
                                           "--system", reference + "system/ring_1d.json", "--json"}) +
                           " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(mentions(r.out, "\"duration_ns\":64440.0,")) << r.out;  // as ASTRA-sim (README)
}

TEST(PluginLoader, AMissingPluginIsOneErrorNamingItsFile) {
  constexpr PluginSpec kMissing{"missing_for_test", "this test", 1};
  try {
    load_plugin_header(kMissing);
    FAIL() << "loaded a plugin that does not exist";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), "libchorus_missing_for_test.so");
    EXPECT_TRUE(mentions(e.message(), "this test needs this plugin of chorus, and it is not installed")) << e.what();
    EXPECT_TRUE(mentions(e.message(), "CHORUS_PLUGIN_DIR")) << e.what();
  }
  EXPECT_FALSE(plugin_loaded(kMissing));
}

TEST(PluginLoader, SearchesTheEnvironmentThenBesideTheProgram) {
  ::setenv("CHORUS_PLUGIN_DIR", "/nonexistent/plugins", 1);
  const std::vector<std::string> dirs = plugin_directories();
  ::unsetenv("CHORUS_PLUGIN_DIR");
  ASSERT_GE(dirs.size(), 3u);
  EXPECT_EQ(dirs[0], "/nonexistent/plugins");
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  ASSERT_GT(n, 0);
  std::string self(exe, static_cast<size_t>(n));
  EXPECT_EQ(dirs[1], self.substr(0, self.rfind('/')));
}

}  // namespace
}  // namespace chorus
