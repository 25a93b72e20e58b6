// The search: the size of Calculon's space, pruning that never changes the answer, thread- and rank-count
// independence, the CSV of every valid configuration, and the CLI's --json contract.
#include <gtest/gtest.h>

#include "chorus/llm/distributed.hpp"
#include "chorus/llm/search.hpp"
#include "llm_test_util.hpp"

namespace chorus::llm {
namespace {

System a100() {
  return read_system(testing::calculon("systems/a100_80g.json"));
}

TEST(LlmSearch, SpaceIsCalculonsSize) {
  // llm-model.md 2.1: gpt3-175B, 1,024 GPUs, max batch 1,536, A100: 11,698,528 configurations.
  const Application app = read_application(testing::calculon("models/gpt3-175B.json"));
  EXPECT_EQ(search_space_size(app, a100(), 1024, 1536), 11698528);
  // megatron-1T, 4,096 GPUs, max batch 4,096, H100: 7,276,848.
  const Application t = read_application(testing::calculon("models/megatron-1T.json"));
  EXPECT_EQ(search_space_size(t, read_system(testing::calculon("systems/h100_80g_nvl8.json")), 4096, 4096), 7276848);
}

void expect_same_top(const SearchResult& a, const SearchResult& b) {
  ASSERT_EQ(a.top.size(), b.top.size());
  for (size_t i = 0; i < a.top.size(); ++i) {
    EXPECT_EQ(a.top[i].ordinal, b.top[i].ordinal) << i;
    EXPECT_EQ(a.top[i].sample_rate, b.top[i].sample_rate) << i;
  }
}

TEST(LlmSearch, PruningKeepsTheExhaustiveTopListOnTheFullGpt3Space) {
  const Application app = read_application(testing::calculon("models/gpt3-175B.json"));
  IterationModel model(app, a100());
  SearchSpec spec;
  spec.num_procs = 1024;
  spec.max_batch = 1536;
  spec.top_n = 10;
  spec.threads = 2;
  const SearchResult pruned = run_search(model, spec);
  spec.prune = false;
  const SearchResult exhaustive = run_search(model, spec);
  EXPECT_EQ(exhaustive.pruned, 0);
  EXPECT_GT(pruned.pruned, 0);
  EXPECT_EQ(pruned.enumerated, 11698528);
  EXPECT_EQ(exhaustive.enumerated, 11698528);
  expect_same_top(pruned, exhaustive);
  // The best is genuinely the best of everything timed: re-evaluating it from scratch gives the same rate.
  EXPECT_EQ(model.evaluate(exhaustive.top[0].execution).sample_rate, exhaustive.top[0].sample_rate);
}

TEST(LlmSearch, ThreadCountDoesNotChangeTheAnswer) {
  const Application app = read_application(testing::calculon("models/megatron-22B.json"));
  IterationModel model(app, a100());
  SearchSpec spec;
  spec.num_procs = 64;
  spec.max_batch = 256;
  spec.top_n = 5;
  spec.threads = 1;
  const SearchResult one = run_search(model, spec);
  spec.threads = 3;
  const SearchResult three = run_search(model, spec);
  expect_same_top(one, three);
  EXPECT_EQ(one.enumerated, three.enumerated);
}

TEST(LlmSearch, RankSharesPartitionTheSpace) {
  const Application app = read_application(testing::calculon("models/megatron-22B.json"));
  IterationModel model(app, a100());
  SearchSpec spec;
  spec.num_procs = 64;
  spec.max_batch = 256;
  spec.top_n = 5;
  spec.prune = false;
  const SearchResult all = run_search(model, spec);
  spec.ranks = 2;
  spec.rank = 0;
  SearchResult r0 = run_search(model, spec);
  spec.rank = 1;
  const SearchResult r1 = run_search(model, spec);
  EXPECT_EQ(r0.enumerated + r1.enumerated, all.enumerated);
  EXPECT_EQ(r0.valid + r1.valid, all.valid);
  merge_top(r0.top, r1.top, 5);
  expect_same_top(r0, all);
}

TEST(LlmSearch, CsvHasEveryValidConfiguration) {
  const Application app = read_application(testing::calculon("models/megatron-22B.json"));
  IterationModel model(app, a100());
  SearchSpec spec;
  spec.num_procs = 16;
  spec.max_batch = 32;
  spec.top_n = 3;
  spec.threads = 2;
  std::string csv;
  spec.csv_sink = [&csv](const std::string& chunk) { csv += chunk; };
  const SearchResult r = run_search(model, spec);
  EXPECT_GT(r.valid, 0);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), r.valid);
  EXPECT_EQ(r.pruned, 0);
}

TEST(LlmCli, RunJsonHasCalculonKeys) {
  const auto r =
      testing::run_chorus("llm run --json --model " + testing::preset("gpt3-175b.json") + " --system " +
                              testing::preset("a100_80g.json") + " --exec " + testing::preset("gpt3-175b_exec.json"),
                          "run_json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const System sys = a100();
  const Application app = read_application(testing::preset("gpt3-175b.json"));
  const Stats st = IterationModel(app, sys).evaluate(read_execution(testing::preset("gpt3-175b_exec.json"), app, sys));
  EXPECT_DOUBLE_EQ(j.at("total_time").get<double>(), st.total_time);
  EXPECT_DOUBLE_EQ(j.at("sample_rate").get<double>(), 64 / st.total_time);
  EXPECT_DOUBLE_EQ(j.at("proc_mem_tier1_cap_req").get<double>(), st.memory.tier1);
  EXPECT_EQ(j.at("execution").at("tensor_par"), 8);
}

TEST(LlmCli, SearchJsonHasTopListAndCounts) {
  const auto r = testing::run_chorus("llm search --json --top 3 --threads 2 --gpus 64 --max-batch 256 --model " +
                                         testing::calculon("models/megatron-22B.json") + " --system " +
                                         testing::calculon("systems/a100_80g.json"),
                                     "search_json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("top").size(), 3u);
  EXPECT_GT(j.at("evaluated").get<int64_t>(), 0);
  EXPECT_GT(j.at("valid").get<int64_t>(), 0);
  EXPECT_GE(j.at("seconds").get<double>(), 0);
}

TEST(LlmCli, MpirunSplitGivesTheSameAnswer) {
  if (!ProcessGroup::mpi_available())
    GTEST_SKIP() << "built without MPI";
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no mpirun";
  const std::string args = "llm search --json --top 5 --threads 1 --gpus 64 --max-batch 256 --model " +
                           testing::calculon("models/megatron-22B.json") + " --system " +
                           testing::calculon("systems/a100_80g.json");
  const auto single = testing::run_chorus(args, "mpi_single");
  // Under AddressSanitizer the ranks keep every check but leak detection: Open MPI's own MPI_Init allocations
  // (libmpi, libopen-pal and the plugins it loads) are never freed, and LeakSanitizer reports them.
#if defined(__SANITIZE_ADDRESS__)
  const std::string mpirun = "mpirun -x ASAN_OPTIONS=halt_on_error=1:detect_leaks=0 ";
#else
  const std::string mpirun = "mpirun ";
#endif
  const auto split = testing::run_command(
      mpirun + "--allow-run-as-root --oversubscribe -np 2 " + std::string(CHORUS_BINARY) + " " + args, "mpi_split");
  ASSERT_EQ(single.status, 0) << single.err;
  ASSERT_EQ(split.status, 0) << split.err;
  const auto a = nlohmann::json::parse(single.out);
  const auto b = nlohmann::json::parse(split.out);
  EXPECT_EQ(b.at("ranks"), 2);
  EXPECT_EQ(a.at("evaluated"), b.at("evaluated"));
  ASSERT_EQ(a.at("top").size(), b.at("top").size());
  for (size_t i = 0; i < a.at("top").size(); ++i) {
    EXPECT_EQ(a["top"][i]["execution"], b["top"][i]["execution"]) << i;
    EXPECT_EQ(a["top"][i]["stats"]["sample_rate"], b["top"][i]["stats"]["sample_rate"]) << i;
  }
}

}  // namespace
}  // namespace chorus::llm
