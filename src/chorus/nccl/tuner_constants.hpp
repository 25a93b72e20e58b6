// The constants of NCCL's and RCCL's algorithm-selection cost model, as the libraries ship them: base and per-hop
// latencies per algorithm and protocol, per-channel bandwidth caps per GPU generation, the NVLS efficiency, the tree
// correction for medium sizes, the NVLink bandwidth NCCL assumes per link and the speeds its topology search tries.
//
// Sources (facts, restated): NVIDIA/nccl v2.30.7-1, src/graph/tuning.cc (ncclTunerConstantsDefaults,
// nvlsEfficiency, treeCorrectionFactor), src/graph/topo.h (SM*_NVLINK_BW), src/graph/search.cc (speed arrays),
// src/include/device.h (NCCL_MAX_NVLS_ARITY); ROCm/rccl 2.21.5 (tag rocm-6.3 era), src/graph/tuning.cc (baseLat,
// tuning model hwLat) and src/graph/topo.h (GFX94X_XGMI_WIDTH).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace chorus::nccl {

// NCCL's algorithm order (ncclAlgoStr) and protocol order (ncclProtoStr).
enum class Algorithm : uint8_t { kTree, kRing, kCollNetDirect, kCollNetChain, kNvls, kNvlsTree, kPat };
enum class Protocol : uint8_t { kLL, kLL128, kSimple };
inline constexpr int kAlgorithms = 7;
inline constexpr int kProtocols = 3;

// The hardware classes NCCL prices a hop with (NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET).
enum class Hop : uint8_t { kNvlink, kPci, kNet };

// GPU generations that index NCCL's per-channel caps (NCCL_*_COMPCAP_IDX).
enum class Generation : uint8_t { kVolta, kAmpere, kHopper, kBlackwell };

std::string_view algorithm_name(Algorithm a);  // "Tree", "Ring", "CollNetDirect", ..., as NCCL_ALGO spells them
std::string_view protocol_name(Protocol p);    // "LL", "LL128", "Simple"

// One library's constants. Latencies in microseconds, bandwidths in GB/s (1e9 B/s), as in tuning.cc.
struct TunerConstants {
  std::string_view library;  // "NCCL 2.30.7" | "RCCL 2.21.5"
  std::string_view source;   // repository, tag and file
  std::array<std::array<float, kProtocols>, kAlgorithms> base_latency_us;
  std::array<std::array<std::array<float, kProtocols>, kAlgorithms>, 3> hop_latency_us;  // [Hop][Algorithm][Protocol]
  // [Generation (LL: nodes == 1) or CPU vendor row (LL, nodes > 1)][1 node, 2 nodes, more]
  std::array<std::array<double, 3>, 4> ll_max_bw;
  std::array<std::array<double, 3>, 4> ring_ll128_max_bw_per_channel;
  std::array<std::array<double, 3>, 4> tree_ll128_max_bw_per_channel;
  std::array<std::array<double, 3>, 4> tree_max_bw_per_channel;
  std::array<std::array<double, 3>, 4> nvls_tree_max_bw_per_channel;
  std::array<float, 4> nvls_efficiency;
  // Tree bandwidth factor by log2(bytes / 64), 64 B .. 256 MiB, per protocol.
  std::array<std::array<float, 24>, kProtocols> tree_correction;
  bool ll128_supported = true;  // RCCL's tables give LL128 no bandwidth on the GPUs chorus models
  bool nvls_supported = true;
};

const TunerConstants& nccl_constants();
const TunerConstants& rccl_constants();

// The NVLink bandwidth NCCL assumes per link and direction, GB/s (topo.h): 20 (Ampere), 20.6 (Hopper), 40.1
// (Blackwell). RCCL's per xGMI link on MI300-class GPUs: 48 (GFX94X_XGMI_WIDTH).
double nvlink_bw_per_link(Generation g);
inline constexpr double kRcclXgmiBwPerLink = 48.0;
inline constexpr double kNcclNetOverheadUs = 1.0;  // getNetOverhead on an x86 Intel host (the default)

// The per-channel speeds NCCL's topology search tries, fastest first (search.cc, sm90/sm100 arrays for Hopper and
// Blackwell, the generic array before): the intra arrays when the communicator is one node, the inter arrays when it
// spans several.
std::span<const float> intra_speeds(Generation g);
std::span<const float> inter_speeds(Generation g);
// The most NVLS heads a search may find (NCCL_MAX_NVLS_ARITY, device.h): one per GPU up to 32.
inline constexpr uint32_t kMaxNvlsHeads = 32;

}  // namespace chorus::nccl
