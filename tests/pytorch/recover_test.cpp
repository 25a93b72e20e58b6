// Collectives recovered from real PyTorch 1.13 execution traces (recorded on CPU with gloo by
// tests/data/pytorch/record_traces.py) and from hand-written traces of the newer 1.1.1-chakra.0.0.4 schema
// (write_schema_1_1_traces.py); the expected kinds, sizes and groups are worked out from the programs.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "chorus/pytorch/import.hpp"
#include "chorus/pytorch/recover.hpp"

namespace chorus::pytorch {
namespace {

std::string data(const std::string& name) {
  return std::string(CHORUS_SOURCE_DIR) + "/tests/data/pytorch/" + name;
}

RankImport recover(const std::string& program, uint32_t rank, uint32_t world) {
  const ExecutionTrace t = read_execution_trace(data(program + ".et." + std::to_string(rank) + ".json"), nullptr);
  return recover_rank(t, rank, world, nullptr);
}

struct Expected {
  CommKind kind;
  uint64_t bytes;
  std::optional<int64_t> peer;
  std::vector<int64_t> ranks = {};  // empty: every rank (gloo 1.13 records no group: the world)
};

void expect_collectives(const RankImport& r, const std::vector<Expected>& want, const std::string& where) {
  ASSERT_EQ(r.collectives.size(), want.size()) << where;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(r.collectives[i].kind, want[i].kind) << where << " #" << i;
    EXPECT_EQ(r.collectives[i].bytes, want[i].bytes) << where << " #" << i;
    EXPECT_EQ(r.collectives[i].peer, want[i].peer) << where << " #" << i;
    EXPECT_EQ(r.collectives[i].ranks, want[i].ranks) << where << " #" << i;
  }
}

const chakra::TraceNode* find_node(const RankImport& r, const std::string& name) {
  for (const auto& n : r.trace.nodes)
    if (n.name == name)
      return &n;
  return nullptr;
}

TEST(PytorchRecover, DdpMlpIsOneAllReduceOfTheParameters) {
  // DDP over Linear(16, 32), ReLU, Linear(32, 8): 16*32 + 32 + 32*8 + 8 = 808 float32 parameters = 3232 bytes,
  // in one bucket (DDP's first bucket is 1 MiB), so one all_reduce of 3232 bytes on the world group per step.
  for (const uint32_t world : {2u, 4u})
    for (uint32_t rank = 0; rank < world; ++rank)
      expect_collectives(recover("ddp_mlp_" + std::to_string(world) + "r", rank, world),
                         {{CommKind::AllReduce, 3232, std::nullopt}},
                         "ddp " + std::to_string(world) + " rank " + std::to_string(rank));
}

TEST(PytorchRecover, TensorParallelLinearAllGathersThenReduces) {
  // y = x[4,16] @ w1[16, 32/world]: all_gather of each rank's y, 4 * 32/world float32 = 512/world bytes
  // (Chakra's All-Gather size is each rank's input). gloo 1.13 has no reduce_scatter, so the row-parallel
  // half is an all_reduce of z[4, 8] = 32 float32 = 128 bytes.
  for (const uint32_t world : {2u, 4u})
    for (uint32_t rank = 0; rank < world; ++rank)
      expect_collectives(recover("tp_linear_" + std::to_string(world) + "r", rank, world),
                         {{CommKind::AllGather, 512 / world, std::nullopt}, {CommKind::AllReduce, 128, std::nullopt}},
                         "tp " + std::to_string(world) + " rank " + std::to_string(rank));
}

TEST(PytorchRecover, ExchangeIsAllToAllThenRingSendRecv) {
  // all_to_all_single of world*8 float32 = 32*world bytes (1.13 records it only as the backend op
  // gloo:all_to_all: there is no c10d:: operator for it); then isend of 64 float32 = 256 bytes to rank+1 and
  // irecv of 256 bytes from rank-1 (c10d::send / c10d::recv_ carry the peer as their first integer argument;
  // 1.13 records the recv_ as a child of the send, whose async work is still on the observer's stack).
  for (const uint32_t world : {2u, 4u})
    for (uint32_t rank = 0; rank < world; ++rank)
      expect_collectives(recover("exchange_" + std::to_string(world) + "r", rank, world),
                         {{CommKind::AllToAll, 32 * world, std::nullopt},
                          {CommKind::Send, 256, static_cast<int64_t>((rank + 1) % world)},
                          {CommKind::Recv, 256, static_cast<int64_t>((rank + world - 1) % world)}},
                         "exchange " + std::to_string(world) + " rank " + std::to_string(rank));
}

TEST(PytorchRecover, BackendOpsAreNotCountedTwice) {
  // Every c10d:: operator of these traces has a gloo: backend op (nested, or a sibling in 1.13's sync path):
  // the number of COMM nodes equals the number of collectives above, not twice that.
  for (const std::string program : {"ddp_mlp_2r", "tp_linear_2r", "exchange_2r"}) {
    const RankImport r = recover(program, 0, 2);
    const auto comm = std::count_if(r.trace.nodes.begin(), r.trace.nodes.end(), [](const chakra::TraceNode& n) {
      return n.type == chakra::NodeType::CommColl || n.type == chakra::NodeType::CommSend ||
             n.type == chakra::NodeType::CommRecv;
    });
    EXPECT_EQ(static_cast<size_t>(comm), r.collectives.size()) << program;
    EXPECT_EQ(find_node(r, "gloo:all_reduce"), nullptr) << program;
  }
}

TEST(PytorchRecover, ParentHoldingTheCollectiveIsOpenedNotCounted) {
  // DDP launches the bucket's all_reduce from inside the last AccumulateGrad hook: that operator is split into
  // its children (torch::autograd::AccumulateGrad, aten::mul as COMP nodes, then the all_reduce) and never
  // appears whole (its time includes its children). Ops without communication below stay whole: aten::linear
  // is one COMP node, its aten::addmm is not another.
  // The trace has four "evaluate_function: AccumulateGrad" hooks (one per parameter); the last holds the
  // all_reduce, so three remain whole.
  const RankImport r = recover("ddp_mlp_2r", 0, 2);
  const auto count = [&](const std::string& name) {
    return std::count_if(r.trace.nodes.begin(), r.trace.nodes.end(),
                         [&](const chakra::TraceNode& n) { return n.name == name; });
  };
  EXPECT_EQ(count("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"), 3);
  EXPECT_EQ(count("DistributedDataParallel.forward"), 1);
  EXPECT_EQ(find_node(r, "aten::addmm"), nullptr);
  EXPECT_NE(find_node(r, "torch::autograd::AccumulateGrad"), nullptr);
}

TEST(PytorchRecover, ReadOfTheReducedBucketWaitsForTheAllReduce) {
  // After the all_reduce is issued, DDP copies the bucket (storage 52) back to the gradients
  // (copy_bucket_to_grad): the first later op touching that storage depends on the all_reduce; the op issued
  // just before the all_reduce does not.
  const RankImport r = recover("ddp_mlp_2r", 0, 2);
  uint64_t all_reduce = UINT64_MAX;
  size_t position = 0;
  for (size_t i = 0; i < r.trace.nodes.size(); ++i)
    if (r.trace.nodes[i].type == chakra::NodeType::CommColl) {
      all_reduce = r.trace.nodes[i].id;
      position = i;
    }
  ASSERT_NE(all_reduce, UINT64_MAX);
  const auto& next = r.trace.nodes.at(position + 1);
  EXPECT_EQ(next.name, "aten::as_strided");  // a view of the bucket: it reads storage 52
  EXPECT_NE(std::find(next.data_deps.begin(), next.data_deps.end(), all_reduce), next.data_deps.end());
  const auto& before = r.trace.nodes.at(position - 1);
  EXPECT_EQ(std::find(before.data_deps.begin(), before.data_deps.end(), all_reduce), before.data_deps.end());
  EXPECT_EQ(r.timing, Timing::None);  // 1.13 execution traces record no durations
}

TEST(PytorchRecover, Schema11GroupsSizesAndWaits) {
  // write_schema_1_1_traces.py: per rank an all_reduce of 1024 bf16 = 2048 bytes on its pair group (ranks
  // {0,1} = pg "1", {2,3} = pg "2", from record_param_comms' global_rank_start/stride/pg_size); an all_gather
  // (c10d::_allgather_base_) of 2048 input bytes on the world group; even ranks send 256 float32 = 1024 bytes to
  // rank+1, odd ranks receive 1024 bytes from rank-1.
  for (uint32_t rank = 0; rank < 4; ++rank) {
    const RankImport r = recover("schema_1_1_4r", rank, 4);
    const bool even = rank % 2 == 0;
    const int64_t first = rank < 2 ? 0 : 2;
    expect_collectives(
        r,
        {{CommKind::AllReduce, 2048, std::nullopt, {first, first + 1}},
         {CommKind::AllGather, 2048, std::nullopt},
         {even ? CommKind::Send : CommKind::Recv, 1024, static_cast<int64_t>(even ? rank + 1 : rank - 1)}},
        "schema 1.1 rank " + std::to_string(rank));
  }
}

TEST(PytorchRecover, Schema11PairGroupAndMetadata) {
  const RankImport r = recover("schema_1_1_4r", 3, 4);
  ASSERT_EQ(r.collectives[0].ranks, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(r.collectives[0].pg_name, "pt_2");
  ASSERT_EQ(r.trace.nodes.front().type, chakra::NodeType::Metadata);
  EXPECT_EQ(r.trace.nodes.front().inputs_values, R"([{"pg_name":"pt_2","ranks":[2,3]}])");
  // The all_gather reads y, the all_reduce's buffer, so it is ordered after it; aten::add reads y after both
  // and waits for the all_gather (the last collective on y). The recv that follows touches another buffer and
  // depends only on the compute before it.
  const chakra::TraceNode* add = find_node(r, "aten::add");
  const chakra::TraceNode* all_reduce = find_node(r, "record_param_comms");
  const chakra::TraceNode* all_gather = find_node(r, "c10d::_allgather_base_");
  ASSERT_NE(add, nullptr);
  ASSERT_NE(all_reduce, nullptr);
  ASSERT_NE(all_gather, nullptr);
  const auto depends = [](const chakra::TraceNode* n, uint64_t id) {
    return std::find(n->data_deps.begin(), n->data_deps.end(), id) != n->data_deps.end();
  };
  EXPECT_TRUE(depends(all_gather, all_reduce->id));
  EXPECT_TRUE(depends(add, all_gather->id));
  const chakra::TraceNode* recv = find_node(r, "c10d::recv_");
  ASSERT_NE(recv, nullptr);
  EXPECT_EQ(recv->data_deps, std::vector<uint64_t>{add->id});
  EXPECT_EQ(recv->comm_src, 2);
}

TEST(PytorchRecover, Schema11ReduceScatterAndBroadcast) {
  // write_schema_1_1_traces.py, the shard program (PyTorch 2.x with NCCL: operator > record_param_comms >
  // nccl: backend op). comm_size in Chakra's convention:
  // - reduce_scatter_tensor (c10d::_reduce_scatter_base_) of g = 4096 bf16 on the world: the whole input,
  //   4096 * 2 = 8192 bytes (not the 1024-element output, 2048 bytes); world group (pg_size 4 of 4 ranks).
  // - reduce_scatter (c10d::reduce_scatter_, the list form) of [[s0, s1]], two views of 512 bf16 each, on the
  //   pair group: the whole input, 2 * 512 * 2 = 2048 bytes (not the output o, 1024 bytes); ranks {0,1} or {2,3}
  //   from record_param_comms' global_rank_start 0 or 2, stride 1, pg_size 2.
  // - broadcast of o = 512 bf16 on the world: the buffer, 1024 bytes.
  for (uint32_t rank = 0; rank < 4; ++rank) {
    const RankImport r = recover("schema_1_1_shard_4r", rank, 4);
    const int64_t first = rank < 2 ? 0 : 2;
    expect_collectives(r,
                       {{CommKind::ReduceScatter, 8192, std::nullopt},
                        {CommKind::ReduceScatter, 2048, std::nullopt, {first, first + 1}},
                        {CommKind::Broadcast, 1024, std::nullopt}},
                       "shard rank " + std::to_string(rank));
    EXPECT_EQ(r.collectives[1].pg_name, rank < 2 ? "pt_1" : "pt_2");
    EXPECT_EQ(r.comm_bytes, 8192u + 2048u + 1024u);
  }
}

TEST(PytorchRecover, Schema11ReduceScatterChakraNodes) {
  // The Chakra COMM_COLL nodes carry the kind (Chakra's CommType) and the same comm_size; the backend ops and
  // record_param_comms below each operator are not nodes of their own. Order: s (the world reduce_scatter's
  // output) is read by the pair reduce_scatter (s0, s1 are views of s's storage), whose output o the broadcast
  // sends, and aten::add reads o: each waits for the one before.
  const RankImport r = recover("schema_1_1_shard_4r", 1, 4);
  const chakra::TraceNode* world_rs = find_node(r, "c10d::_reduce_scatter_base_");
  const chakra::TraceNode* pair_rs = find_node(r, "c10d::reduce_scatter_");
  const chakra::TraceNode* bcast = find_node(r, "c10d::broadcast_");
  const chakra::TraceNode* add = find_node(r, "aten::add");
  ASSERT_NE(world_rs, nullptr);
  ASSERT_NE(pair_rs, nullptr);
  ASSERT_NE(bcast, nullptr);
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(find_node(r, "record_param_comms"), nullptr);
  EXPECT_EQ(find_node(r, "nccl:reduce_scatter"), nullptr);
  EXPECT_EQ(world_rs->comm_type, static_cast<int64_t>(chakra::CommType::ReduceScatter));
  EXPECT_EQ(world_rs->comm_size, 8192);
  EXPECT_EQ(pair_rs->comm_type, static_cast<int64_t>(chakra::CommType::ReduceScatter));
  EXPECT_EQ(pair_rs->comm_size, 2048);
  EXPECT_EQ(pair_rs->pg_name, "pt_1");
  EXPECT_EQ(bcast->comm_type, static_cast<int64_t>(chakra::CommType::Broadcast));
  EXPECT_EQ(bcast->comm_size, 1024);
  const auto depends = [](const chakra::TraceNode* n, uint64_t id) {
    return std::find(n->data_deps.begin(), n->data_deps.end(), id) != n->data_deps.end();
  };
  EXPECT_TRUE(depends(pair_rs, world_rs->id));
  EXPECT_TRUE(depends(bcast, pair_rs->id));
  EXPECT_TRUE(depends(add, bcast->id));
  EXPECT_FALSE(depends(add, pair_rs->id));  // the broadcast, the last collective on o, is what it waits for
}

TEST(PytorchRecover, ReduceScatterWithoutTheC10dOperator) {
  // Two reduce-scatters no c10d:: operator wraps: a record_param_comms standing alone (collective_name
  // "reduce_scatter"; its first input is the list form's Tensor[][], 4 tensors of 256 float32 = 1024 bytes each)
  // and a functional collective (_c10d_functional::reduce_scatter_tensor(input, "sum", 4, "0"), PyTorch 2.x's
  // traceable collectives, input 2048 float32). Chakra's comm_size is the whole input: 4 * 1024 = 4096 and
  // 2048 * 4 = 8192 bytes, not the outputs (1024 and 2048 bytes).
  const auto path = std::filesystem::temp_directory_path() / ("chorus_pt_rs_" + std::to_string(::getpid()));
  std::ofstream(path) << R"({"schema": "1.1.1-chakra.0.0.4", "nodes": [
    {"id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1, "inputs": {"values": []},
     "outputs": {"values": []}, "attrs": [{"name": "tid", "type": "uint64", "value": 1}]},
    {"id": 3, "name": "record_param_comms", "ctrl_deps": 2,
     "inputs": {"values": [[[[10,11,0,256,4,"cuda:0"], [12,13,0,256,4,"cuda:0"], [14,15,0,256,4,"cuda:0"],
                             [16,17,0,256,4,"cuda:0"]]], 0, ["0", "default_pg"]]},
     "outputs": {"values": [[[[18,19,0,256,4,"cuda:0"]]]]},
     "attrs": [{"name": "tid", "type": "uint64", "value": 1},
               {"name": "collective_name", "type": "string", "value": "reduce_scatter"},
               {"name": "in_msg_nelems", "type": "uint64", "value": 1024},
               {"name": "out_msg_nelems", "type": "uint64", "value": 256},
               {"name": "pg_name", "type": "string", "value": "0"},
               {"name": "pg_size", "type": "uint64", "value": 4}]},
    {"id": 4, "name": "_c10d_functional::reduce_scatter_tensor", "ctrl_deps": 2,
     "inputs": {"values": [[20,21,0,2048,4,"cuda:0"], "sum", 4, "0"]},
     "outputs": {"values": [[22,23,0,512,4,"cuda:0"]]}, "attrs": [{"name": "tid", "type": "uint64", "value": 1}]},
    {"id": 1, "name": "[pytorch|profiler|execution_trace|process]", "ctrl_deps": 1, "inputs": {"values": []},
     "outputs": {"values": []}, "attrs": []}]})";
  const ExecutionTrace t = read_execution_trace(path.string(), nullptr);
  std::filesystem::remove(path);
  expect_collectives(recover_rank(t, 0, 4, nullptr),
                     {{CommKind::ReduceScatter, 4096, std::nullopt}, {CommKind::ReduceScatter, 8192, std::nullopt}},
                     "unwrapped reduce_scatter");
}

TEST(PytorchRecover, KinetoCpuTimesBecomeComputeDurations) {
  // The profiler trace of one DDP step (record_traces.py, legacy 1.13 format: a list of events without ids,
  // matched by name and order). Read from the file: "Optimizer.step#SGD.step" dur 83 us,
  // "Optimizer.zero_grad#SGD.zero_grad" dur 18 us.
  const ExecutionTrace t = read_execution_trace(data("ddp_mlp_2r.et.0.json"), nullptr);
  const KinetoTimes k = join_kineto(data("ddp_mlp_2r.kineto.0.json"), t);
  const RankImport r = recover_rank(t, 0, 2, &k);
  EXPECT_EQ(r.timing, Timing::Kineto);
  ASSERT_NE(find_node(r, "Optimizer.step#SGD.step"), nullptr);
  EXPECT_EQ(find_node(r, "Optimizer.step#SGD.step")->duration_micros, 83u);
  EXPECT_EQ(find_node(r, "Optimizer.zero_grad#SGD.zero_grad")->duration_micros, 18u);
  EXPECT_TRUE(find_node(r, "Optimizer.step#SGD.step")->is_cpu_op);  // CPU time: no GPU kernels in this trace
}

TEST(PytorchRecover, KinetoGpuKernelsAndNcclKernels) {
  // A hand-written Kineto trace for rank 0 of schema_1_1_4r: CPU ops carry "Record function id" (= the
  // execution trace's rf_id: aten::mm 2, record_param_comms 3) and "External id"; kernels carry the External id
  // of the op that launched them. aten::mm launched two GEMM kernels of 30 and 10 us: its compute is their sum,
  // 40 us (not its 55 us of CPU time), on the GPU (is_cpu_op false); the all_reduce launched an NCCL kernel of
  // 25 us: its measured duration. aten::add has only CPU time, 7 us.
  const auto path = std::filesystem::temp_directory_path() / ("chorus_pt_kineto_" + std::to_string(::getpid()));
  std::ofstream(path) << R"({"distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 4}, "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 10, "dur": 55, "args": {"Record function id": 2, "External id": 100}},
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "ts": 70, "dur": 9, "args": {"Record function id": 3, "External id": 101}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 90, "dur": 7, "args": {"Record function id": 8, "External id": 102}},
    {"ph": "X", "cat": "kernel", "name": "sm80_xmma_gemm_bf16", "ts": 20, "dur": 30, "args": {"External id": 100, "correlation": 5}},
    {"ph": "X", "cat": "kernel", "name": "sm80_xmma_gemm_bf16", "ts": 50, "dur": 10, "args": {"External id": 100, "correlation": 6}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "ts": 75, "dur": 25, "args": {"External id": 101, "correlation": 7}}
  ]})";
  const ExecutionTrace t = read_execution_trace(data("schema_1_1_4r.et.0.json"), nullptr);
  const KinetoTimes k = join_kineto(path.string(), t);
  std::filesystem::remove(path);
  EXPECT_EQ(k.rank, 0);
  EXPECT_EQ(k.world_size, 4);
  EXPECT_EQ(k.kernels, 3u);
  const RankImport r = recover_rank(t, 0, 4, &k);
  EXPECT_EQ(r.timing, Timing::Kineto);
  ASSERT_NE(find_node(r, "aten::mm"), nullptr);
  EXPECT_EQ(find_node(r, "aten::mm")->duration_micros, 40u);
  EXPECT_FALSE(find_node(r, "aten::mm")->is_cpu_op);
  EXPECT_EQ(find_node(r, "record_param_comms")->duration_micros, 25u);
  EXPECT_EQ(find_node(r, "aten::add")->duration_micros, 7u);
  EXPECT_TRUE(find_node(r, "aten::add")->is_cpu_op);
}

TEST(PytorchRecover, QuotesAndBracketsInUnreadValuesDoNotConfuseTheReader) {
  // op_schema and the shapes/types lists are not read; quotes, escapes and brackets inside their strings must
  // not be taken for structure (nor a string list for a tensor descriptor). The all_reduce's tensor that follows
  // is 256 float32 = 1024 bytes.
  const auto path = std::filesystem::temp_directory_path() / ("chorus_pt_drop_" + std::to_string(::getpid()));
  std::ofstream(path) << R"({"schema": "1.0.1", "nodes": [
    {"name": "[pytorch|profiler|execution_graph|thread]", "id": 2, "parent": 1, "inputs": []},
    {"name": "c10d::allreduce_", "id": 5, "parent": 2, "op_schema": "f(Tensor[] a) -> \"]\" [ {",
     "input_shapes": [[["]", "[["]], [1, 2]], "input_types": ["a\\", "]"], "inputs": [[[3,4,0,256,4,"cpu"]]],
     "output_types": [], "outputs": []},
    {"name": "[pytorch|profiler|execution_graph|process]", "id": 1, "parent": 1, "inputs": []}]})";
  const ExecutionTrace t = read_execution_trace(path.string(), nullptr);
  std::filesystem::remove(path);
  const RankImport r = recover_rank(t, 0, 2, nullptr);
  ASSERT_EQ(r.collectives.size(), 1u);
  EXPECT_EQ(r.collectives[0].bytes, 1024u);
}

}  // namespace
}  // namespace chorus::pytorch
