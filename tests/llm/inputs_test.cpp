// Reading Calculon's inputs unchanged, the presets, and one test per kind of bad input (chorus::Error naming
// the file and key; exit status 2 from the CLI).
#include <filesystem>

#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/llm/inputs.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/llm/json_fields.hpp"
#include "chorus/llm/presets.hpp"
#include "llm_test_util.hpp"

namespace chorus::llm {
namespace {

using testing::calculon;
using testing::preset;

nlohmann::json load(const std::string& path) {
  return read_json_file(path);
}

// Expects parse `f` of `json` to throw an Error naming `file` and `field`.
template <typename F>
void expect_error(F f, const std::string& field) {
  try {
    f();
    FAIL() << "no error for " << field;
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_EQ(e.source(), "in.json") << e.what();
  }
}

TEST(LlmInputs, EveryCalculonModelAndSystemParses) {
  for (const auto& entry : std::filesystem::directory_iterator(calculon("models"))) {
    SCOPED_TRACE(entry.path());
    if (entry.path().filename() == "gpt3-13B.json") {
      // hidden 5140 with 40 heads: the issue makes "hidden not divisible by heads" an input error, so this
      // one Calculon file is refused (docs/llm.md, "Known differences").
      EXPECT_THROW(read_application(entry.path()), Error);
      continue;
    }
    const Application app = read_application(entry.path());
    EXPECT_EQ(app.kv_heads, app.attn_heads);
  }
  for (const auto& entry : std::filesystem::directory_iterator(calculon("systems"))) {
    SCOPED_TRACE(entry.path());
    EXPECT_EQ(read_system(entry.path()).networks.size(), 2u);
  }
}

TEST(LlmInputs, EveryCalculonValidationExecutionParses) {
  const System sys = read_system(calculon("systems/a100_80g.json"));
  for (const char* fig : {"fig1", "fig7", "tab5"}) {
    for (const auto& entry : std::filesystem::directory_iterator(calculon(std::string("validation/seqsel/") + fig))) {
      SCOPED_TRACE(entry.path());
      const std::string stem = entry.path().stem();
      const Application app = read_application(calculon("models/" + stem.substr(0, stem.rfind('_')) + ".json"));
      const Execution exe = read_execution(entry.path(), app, sys);
      EXPECT_EQ(exe.data_par, 1);
    }
  }
}

TEST(LlmInputs, ExecutionKeysKeepCalculonMeanings) {
  const System sys = read_system(calculon("systems/a100_80g.json"));
  const Application app = read_application(calculon("models/megatron-1T.json"));
  const Execution e = read_execution(calculon("examples/3072_t4_p64_d12_mbs4_full.json"), app, sys);
  EXPECT_EQ(e.tensor_par * e.pipeline_par * e.data_par, 3072);
  EXPECT_EQ(e.recompute, Recompute::kFull);
  EXPECT_EQ(e.tp_comm, TpCommType::kRsAg);
  EXPECT_TRUE(e.optimizer_sharding);
  // The file's network efficiency 0.65 and 300 GB/s: an all-reduce [2, -1] over 8 moves 2 x 7/8 of the data.
  const NetworkTier& nvlink = sys.networks[0];
  EXPECT_DOUBLE_EQ(nvlink.op_time(Collective::kAllReduce, 1e9, 8), 1e-5 + 1e9 * 2 * 7.0 / 8 / (300e9 * 0.65));
  EXPECT_DOUBLE_EQ(sys.networks[1].op_time(Collective::kP2p, 1e9, 2), 2e-5 + 1e9 / (25e9 * 0.9));
}

TEST(LlmInputs, PresetsMatchCalculonsA100AndEachOther) {
  const Application app = read_application(preset("gpt3-175b.json"));
  const System ours = read_system(preset("a100_80g.json"));
  const System builtin = a100_80gb_system();
  const System theirs = read_system(calculon("systems/a100_80g.json"));
  const Execution exe = read_execution(preset("gpt3-175b_exec.json"), app, ours);
  const double t = IterationModel(app, ours).evaluate(exe).total_time;
  EXPECT_EQ(t, IterationModel(app, builtin).evaluate(exe).total_time);
  EXPECT_EQ(t, IterationModel(app, theirs).evaluate(exe).total_time);
}

TEST(LlmInputs, LlamaPresetsUseGroupedQueryAttentionAndSwiglu) {
  const Application a70 = read_application(preset("llama2-70b.json"));
  EXPECT_EQ(a70.kv_heads, 8);
  EXPECT_EQ(a70.mlp, MlpKind::kSwiglu);
  // LLaMA-2 70B by hand: 80 blocks of QKV 8192 x (64 + 2 x 8) x 128, output 8192^2 and SwiGLU 3 x 8192 x 28672,
  // plus a 32000 x 8192 embedding; chorus adds norms, biases and a position table (well under 1 %).
  const double expected = 80.0 * (8192.0 * 80 * 128 + 8192.0 * 8192 + 3.0 * 8192 * 28672) + 32000.0 * 8192;
  EXPECT_NEAR(a70.parameter_count() / expected, 1.0, 0.01);
  const Application a7 = read_application(preset("llama2-7b.json"));
  EXPECT_EQ(a7.kv_heads, a7.attn_heads);
  const System sys = read_system(preset("a100_80g.json"));
  EXPECT_EQ(read_execution(preset("llama2-70b_exec.json"), a70, sys).tensor_par, 8);
}

TEST(LlmInputs, Llama3_70bPresetIsTheExampleFile) {
  // Dubey et al. 2024, Table 3: 80 layers, model dimension 8192, FFN 28672, 64 heads, 8 key/value heads.
  const auto p = model_preset("llama3-70b");
  ASSERT_TRUE(p.has_value());
  const Application file =
      read_application((std::filesystem::path(CHORUS_SOURCE_DIR) / "examples" / "llm" / "llama3-70b.json").string());
  EXPECT_EQ(p->hidden, 8192);
  EXPECT_EQ(p->num_blocks, 80);
  EXPECT_EQ(p->kv_heads, 8);
  EXPECT_EQ(p->feedforward, file.feedforward);
  EXPECT_EQ(p->attn_size, file.attn_size);
  EXPECT_EQ(p->seq_size, file.seq_size);
  EXPECT_EQ(p->vocab, file.vocab);
  EXPECT_EQ(p->mlp, MlpKind::kSwiglu);
  EXPECT_DOUBLE_EQ(p->parameter_count(), file.parameter_count());
  // By hand, Megatron's count (one embedding table, shared with the LM head): 80 blocks of QKV 8192 x (64 + 16) x
  // 128, output 8192^2 and SwiGLU 3 x 8192 x 28672, plus (128256 + 8192) x 8192 = 69.57e9; norms and biases add
  // well under 1 %.
  const double by_hand = 80.0 * (8192.0 * 80 * 128 + 8192.0 * 8192 + 3.0 * 8192 * 28672) + (128256.0 + 8192) * 8192;
  EXPECT_NEAR(p->parameter_count() / by_hand, 1.0, 0.01);
}

// --- bad input, one case each ---

nlohmann::json good_model() {
  return load(calculon("models/gpt3-175B.json"));
}
nlohmann::json good_system() {
  return load(calculon("systems/a100_80g.json"));
}
nlohmann::json good_exec() {
  return load(calculon("validation/seqsel/tab5/gpt3-175B_full.json"));
}

TEST(LlmBadInput, UnknownModelKey) {
  auto j = good_model();
  j["hiden"] = 1;
  expect_error([&] { parse_application(j, "in.json"); }, "hiden");
}

TEST(LlmBadInput, MissingModelKey) {
  auto j = good_model();
  j.erase("num_blocks");
  expect_error([&] { parse_application(j, "in.json"); }, "num_blocks");
}

TEST(LlmBadInput, HiddenNotDivisibleByHeads) {
  auto j = good_model();
  j["hidden"] = 12289;
  expect_error([&] { parse_application(j, "in.json"); }, "hidden");
}

TEST(LlmBadInput, UnknownExecutionKey) {
  auto j = good_exec();
  j["tensor_paralel"] = 2;
  expect_error(
      [&] { parse_execution(j, "in.json", parse_application(good_model(), "m"), parse_system(good_system(), "s")); },
      "tensor_paralel");
}

TEST(LlmBadInput, MissingExecutionKey) {
  auto j = good_exec();
  j.erase("seq_par_ag_redo");
  expect_error(
      [&] { parse_execution(j, "in.json", parse_application(good_model(), "m"), parse_system(good_system(), "s")); },
      "seq_par_ag_redo");
}

TEST(LlmBadInput, ParallelismDoesNotMatchGpuCount) {
  auto j = good_exec();
  j["num_procs"] = 96;  // 8 x 8 x 1 = 64
  expect_error(
      [&] { parse_execution(j, "in.json", parse_application(good_model(), "m"), parse_system(good_system(), "s")); },
      "num_procs");
}

TEST(LlmBadInput, TensorParallelismDoesNotDivideHeads) {
  auto j = good_exec();
  j["tensor_par"] = 5;  // 96 heads
  j["num_procs"] = 40;
  expect_error(
      [&] { parse_execution(j, "in.json", parse_application(good_model(), "m"), parse_system(good_system(), "s")); },
      "tensor_par");
}

TEST(LlmBadInput, NetworkIndexOutOfRange) {
  auto j = good_exec();
  j["data_par_net"] = 2;
  expect_error(
      [&] { parse_execution(j, "in.json", parse_application(good_model(), "m"), parse_system(good_system(), "s")); },
      "data_par_net");
}

TEST(LlmBadInput, ZeroNetworkBandwidth) {
  auto j = good_system();
  j["networks"][1]["bandwidth"] = 0;
  expect_error([&] { parse_system(j, "in.json"); }, "networks[1].bandwidth");
}

TEST(LlmBadInput, ZeroMemoryBandwidth) {
  auto j = good_system();
  j["mem1"]["GBps"] = 0;
  expect_error([&] { parse_system(j, "in.json"); }, "mem1.GBps");
}

TEST(LlmBadInput, ZeroMemoryCapacity) {
  auto j = good_system();
  j["mem1"]["GiB"] = 0;
  expect_error([&] { parse_system(j, "in.json"); }, "mem1.GiB");
}

TEST(LlmBadInput, UnknownSystemKey) {
  auto j = good_system();
  j["mem1"]["GiBs"] = 80;
  expect_error([&] { parse_system(j, "in.json"); }, "mem1.GiBs");
}

TEST(LlmBadInput, BadEnumValue) {
  auto j = good_exec();
  j["activation_recompute"] = "selective";
  expect_error(
      [&] { parse_execution(j, "in.json", parse_application(good_model(), "m"), parse_system(good_system(), "s")); },
      "activation_recompute");
}

TEST(LlmBadInput, FusedAttentionNotABoolean) {
  auto j = good_exec();
  EXPECT_FALSE(parse_execution(j, "in.json", parse_application(good_model(), "m"), parse_system(good_system(), "s"))
                   .fused_attention);  // absent: Calculon's attention
  j["fused_attention"] = "yes";
  expect_error(
      [&] { parse_execution(j, "in.json", parse_application(good_model(), "m"), parse_system(good_system(), "s")); },
      "fused_attention");
}

TEST(LlmBadInput, CliPrintsOneLineNamingFileAndKeyAndExits2) {
  const std::string dir = ::testing::TempDir();
  auto j = good_model();
  j["hidden"] = 12289;
  const std::string bad = dir + "bad_model.json";
  std::ofstream(bad) << j.dump();
  const auto r = testing::run_chorus("llm run --model " + bad + " --system " + calculon("systems/a100_80g.json") +
                                         " --exec " + calculon("validation/seqsel/tab5/gpt3-175B_full.json"),
                                     "bad_model");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(bad + ": hidden:"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace chorus::llm
