// `chorus machines`: the tables, one preset with its sources, JSON for scripts, and an unknown name.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace chorus::testing_support {
namespace {

TEST(MachinesCli, ListsEveryPresetInTwoTables) {
  const CliRun r = run_chorus({"machines"}, true);
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* name : {"h100-80gb", "mi355x", "tpu-v4", "dgx-a100", "dgx-h100", "hgx-h200", "dgx-b200",
                           "gb200-nvl72", "mi300x", "tpu-v3-pod"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  EXPECT_NE(r.out.find("torus 32x32"), std::string::npos);
}

TEST(MachinesCli, ShowPrintsValuesAndSources) {
  const CliRun r = run_chorus({"machines", "--show", "dgx-h100"}, true);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("scale_up_bandwidth"), std::string::npos);
  EXPECT_NE(r.out.find("450 GB/s per direction"), std::string::npos) << r.out;  // the datasheet's 900 GB/s both ways
  EXPECT_NE(r.out.find("NVIDIA DGX H100 datasheet"), std::string::npos);
  const CliRun d = run_chorus({"machines", "--show", "mi300x", "--json"}, true);
  ASSERT_EQ(d.status, 0) << d.out;
  const nlohmann::json j = nlohmann::json::parse(d.out);
  EXPECT_EQ(j["scale_up"], "full-mesh");  // the machine, not the device of the same name
  EXPECT_DOUBLE_EQ(j["peer_bandwidth"].get<double>(), 64e9);
}

TEST(MachinesCli, JsonHoldsEveryPreset) {
  const CliRun r = run_chorus({"machines", "--json"}, false);
  ASSERT_EQ(r.status, 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["devices"].size(), 10u);
  EXPECT_EQ(j["machines"].size(), 11u);
  for (const auto& m : j["machines"])
    EXPECT_FALSE(m["sources"].empty()) << m["name"];
}

TEST(MachinesCli, UnknownNameIsOneLineNamingTheNearest) {
  const CliRun r = run_chorus({"machines", "--show", "dgx-b20"}, true);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out,
            "error: --show: 'dgx-b20' is not a machine preset; did you mean 'dgx-b200'? (presets: dgx-a100, "
            "dgx-a100-320gb, dgx-h100, hgx-h200, dgx-b200, gb200-nvl72, gcp-a3-mega, mi300x, mi355x, tpu-v3-pod, "
            "tpu-v4-pod; "
            "`chorus machines` lists them)\n");
}

}  // namespace
}  // namespace chorus::testing_support
