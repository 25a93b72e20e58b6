// The small co-design space the solver tests share: llama2-7b on 8 H100s (without the host-memory tier, so no
// offloads), an NVLink domain of 4 or 8 at 300 or 600 GB/s with ring or switch-reduce, a scale-out fabric at 25 or
// 100 GB/s, non-blocking or 2:1. 32 networks.
#pragma once

namespace chorus::codesign::testing {

constexpr const char* kSmallTemplate = R"(name: small
dimensions:
  - name: nvlink
    size: {values: [4, 8], default: 8}
    bandwidth_GBps: {values: [300, 600], default: 600}
    algorithms: [ring, switch-reduce]
  - name: scale-out
    size: all
    bandwidth_GBps: {values: [25, 100], default: 25}
    oversubscription: {values: [1, 2], default: 1}
)";
constexpr const char* kSmallPrices = R"(gpu_dollars: 30000
dimensions:
  nvlink: {dollars_per_GBps: 20, node_gpus: 4, port_GBps: 100, switch_port_dollars: 500, cable_dollars: 1000,
           radix: 64, switch_reduce_premium: 0.5}
  scale-out: {port_GBps: 50, nic_port_dollars: 2000, switch_port_dollars: 500, cable_dollars: 1000, radix: 4}
)";

}  // namespace chorus::codesign::testing
