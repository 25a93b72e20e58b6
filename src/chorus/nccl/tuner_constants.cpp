// NCCL's and RCCL's tuning constants (tuner_constants.hpp), restated from the files named there.
#include "chorus/nccl/tuner_constants.hpp"

namespace chorus::nccl {
namespace {

// The generation rows are Volta, Ampere, Hopper, Blackwell; the columns 1 node, 2 nodes, more.
constexpr TunerConstants kNccl{
    .library = "NCCL 2.30.7",
    .source =
        "NVIDIA/nccl v2.30.7-1: src/graph/tuning.cc, src/graph/topo.h, src/graph/search.cc, "
        "src/include/device.h",
    .base_latency_us = {{{6.8f, 14.0f, 8.4f},   // Tree
                         {6.6f, 14.0f, 8.4f},   // Ring
                         {0, 0, 0},             // CollNetDirect
                         {0, 0, 0},             // CollNetChain
                         {0, 0, 0},             // NVLS
                         {0, 0, 0},             // NVLSTree
                         {8.0f, 8.0f, 8.0f}}},  // PAT
    .hop_latency_us = {{
        {{{0.6f, 1.25f, 4.0f}, {0.6f, 1.9f, 3.4f}, {0, 0, 3.7f}, {0, 0, 2.8f}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0f}}},
        {{{1.0f, 1.9f, 4.0f}, {1.0f, 2.5f, 5.7f}, {0, 0, 3.7f}, {0, 0, 2.8f}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0f}}},
        {{{5.0f, 8.5f, 14}, {2.7f, 4.0f, 14.0f}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9f}, {0, 0, 14}}},
    }},
    .ll_max_bw = {{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}}},
    .ring_ll128_max_bw_per_channel = {{{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}}},
    .tree_ll128_max_bw_per_channel =
        {{{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}},
    .tree_max_bw_per_channel = {{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}},
    .nvls_tree_max_bw_per_channel = {{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}}},
    .nvls_efficiency = {0.0f, 0.0f, 0.85f, 0.74f},
    .tree_correction = {{
        {1.0f, 1.0f, 1.0f, 1.0f, .9f, .8f, .7f, .7f,  .7f,  .7f,  .6f,  .5f,
         .4f,  .4f,  .5f,  .6f,  .7f, .8f, .9f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f},
        {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, .9f, .8f, .8f, .8f, .7f,  .6f,  .6f,
         .6f,  .6f,  .6f,  .6f,  .8f,  .9f, .9f, .9f, .9f, 1.0f, 1.0f, 1.0f},
        {.9f, .9f, .9f, .9f, .9f, .9f, .9f, .8f, .7f, .6f, .6f, .5f,
         .5f, .5f, .5f, .6f, .7f, .8f, .7f, .7f, .8f, .9f, .9f, .9f},
    }},
};

// RCCL keeps NCCL's structure with its own base latencies and, for the 8-GPU fully connected MI300-class node
// (rome_models.cc: tuning=5), its own intra-node hop latencies and no LL128. Its network hop latencies for that
// model (Ring/Simple 320 us per inter-node step) steer selection rather than describe a hop, so the network row is
// NCCL's. No NVLS on AMD GPUs.
constexpr TunerConstants make_rccl() {
  TunerConstants c = kNccl;
  c.library = "RCCL 2.21.5";
  c.source =
      "ROCm/rccl (NCCL 2.21.5 base): src/graph/tuning.cc (baseLat, tuning_model_5), src/graph/topo.h "
      "(GFX94X_XGMI_WIDTH), src/graph/rome_models.cc; network hop latencies from NCCL 2.30.7";
  c.base_latency_us = {{{12.0f, 12.0f, 17.0f},
                        {12.0f, 12.0f, 17.0f},
                        {12.0f, 12.0f, 17.0f},
                        {12.0f, 12.0f, 17.0f},
                        {0, 0, 0},
                        {0, 0, 0},
                        {0, 0, 0}}};
  c.hop_latency_us[0] = {{{0.9f, 0, 2.3f}, {0.8f, 0, 2.1f}, {0, 0, 0.9f}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}};
  c.hop_latency_us[1] = {
      {{2.2f, 2.2f, 5.7f}, {2.2f, 2.2f, 5.7f}, {0, 0, 5.7f}, {0, 0, 5.7f}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}};
  c.ll128_supported = false;
  c.nvls_supported = false;
  return c;
}
constexpr TunerConstants kRccl = make_rccl();

constexpr float kSpeedsGeneric[] = {40.0f, 30.0f, 20.0f, 18.0f, 15.0f, 12.0f, 10.0f,
                                    9.0f,  7.0f,  6.0f,  5.0f,  4.0f,  3.0f};
constexpr float kSpeedsHopper[] = {60.0f, 50.0f, 40.0f, 30.0f, 24.0f, 20.0f, 15.0f, 12.0f, 11.0f, 6.0f, 3.0f};
constexpr float kSpeedsBlackwell[] = {90.0f, 80.0f, 70.0f, 60.0f, 50.0f, 45.0f,
                                      40.0f, 30.0f, 24.0f, 20.0f, 19.0f, 18.0f};
constexpr float kInterSpeedsGeneric[] = {48.0f, 30.0f, 28.0f, 24.0f, 20.0f, 18.0f, 15.0f, 12.0f, 10.0f, 9.0f,
                                         7.0f,  6.0f,  5.0f,  4.0f,  3.0f,  2.4f,  1.2f,  0.24f, 0.12f};
constexpr float kInterSpeedsHopper[] = {48.0f, 45.0f, 42.0f, 40.0f, 30.0f, 24.0f, 22.0f, 20.0f, 17.5f,
                                        15.0f, 12.0f, 6.0f,  3.0f,  2.4f,  1.2f,  0.24f, 0.12f};
constexpr float kInterSpeedsBlackwell[] = {96.0f, 86.0f, 80.0f, 48.0f, 45.1f, 42.0f, 40.0f, 30.0f, 24.0f, 22.0f,
                                           20.0f, 17.5f, 15.0f, 12.0f, 6.0f,  3.0f,  2.4f,  1.2f,  0.24f, 0.12f};

}  // namespace

std::string_view algorithm_name(Algorithm a) {
  constexpr std::string_view kNames[] = {"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
  return kNames[static_cast<int>(a)];
}

std::string_view protocol_name(Protocol p) {
  constexpr std::string_view kNames[] = {"LL", "LL128", "Simple"};
  return kNames[static_cast<int>(p)];
}

const TunerConstants& nccl_constants() {
  return kNccl;
}
const TunerConstants& rccl_constants() {
  return kRccl;
}

double nvlink_bw_per_link(Generation g) {
  switch (g) {
    case Generation::kVolta:
    case Generation::kAmpere:
      return 20.0;
    case Generation::kHopper:
      return 20.6;
    case Generation::kBlackwell:
      return 40.1;
  }
  return 20.0;
}

std::span<const float> intra_speeds(Generation g) {
  if (g == Generation::kBlackwell)
    return kSpeedsBlackwell;
  if (g == Generation::kHopper)
    return kSpeedsHopper;
  return kSpeedsGeneric;
}

std::span<const float> inter_speeds(Generation g) {
  if (g == Generation::kBlackwell)
    return kInterSpeedsBlackwell;
  if (g == Generation::kHopper)
    return kInterSpeedsHopper;
  return kInterSpeedsGeneric;
}

}  // namespace chorus::nccl
