// The price list of `chorus codesign`: what a GPU (with its share of the server) costs, and per network dimension
// LIBRA's linear term ($ per GB/s of per-GPU bandwidth) plus the parts a switched fabric is bought in (NIC ports,
// switch ports, cables), so that domain size and oversubscription have a price.
//
//   source: "..."                      # where the prices come from
//   date: "2024-06"
//   gpu_dollars: 35000
//   dimensions:
//     nvlink:   {dollars_per_GBps: 0, port_GBps: 25, node_gpus: 8, switch_port_dollars: 300, cable_dollars: 150,
//                radix: 64}
//     scale-out: {port_GBps: 50, nic_port_dollars: 1500, switch_port_dollars: 650, cable_dollars: 500, radix: 64}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chorus/codesign/network_template.hpp"

namespace chorus::codesign {

struct DimensionPrices {
  double dollars_per_gbps = 0;       // per GPU and GB/s (LIBRA's cost coefficient)
  double port_gbps = 50;             // bandwidth of one port; a GPU has ceil(B / port_gbps) ports
  int64_t node_gpus = 0;             // domains up to this size live inside a server: no NIC, switch or cable cost
  double nic_port_dollars = 0;       // per GPU port
  double switch_port_dollars = 0;    // per switch port
  double cable_dollars = 0;          // per cable (transceivers included)
  int64_t radix = 64;                // ports of one switch: sets the levels of a domain's fat tree
  double switch_reduce_premium = 0;  // added fraction of the switch port price for in-network reduction
};

struct CostFile {
  std::string file;
  double gpu_dollars = 0;
  std::vector<DimensionPrices> dimensions;  // in the template's order
};

// Reads the prices of every template dimension (by name); a dimension of the template without prices, or prices
// for a dimension the template lacks, is an error naming the file and the key.
CostFile load_cost_file(const std::string& path, const NetworkTemplate& t);

// Switch levels of a fat tree of radix-k switches that holds `endpoints` ports: 1 up to k, 2 up to k^2/2, 3 up to
// k^3/4, ...
int fat_tree_levels(int64_t endpoints, int64_t radix);

// The dollars of one dimension for `gpus` GPUs at bandwidth B per GPU, domains of `size` GPUs, oversubscription o:
//   gpus * B * dollars_per_GBps
//   + (size > node_gpus) * gpus * ports * (nic + switch_port * (1 + premium) * (1 + 2 (L-1) / o) + cable * (1 + (L-1) /
//   o))
// with ports = ceil(B / port_GBps) and L the levels of a fat tree over one port plane of a domain (size endpoints):
// each level above the leaf has 1/o of the ports below it, each switch-to-switch link uses two switch ports and a
// cable.
double dimension_cost(const DimensionPrices& p, int64_t gpus, double bandwidth_gbps, int64_t size, double oversub,
                      Algorithm algorithm);

}  // namespace chorus::codesign
