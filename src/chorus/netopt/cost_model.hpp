// LIBRA's network cost model (netopt.md §1.3; LIBRA `src/cost_model/cost_model.py`): per dimension,
// #blocks x per-link bandwidth x #links x unit cost, with B_d the per-NPU bandwidth of dimension d:
//   Ring            N/n blocks, 2n links of B/2,          unit cost Link
//   FullyConnected  N/n blocks, n(n-1) links of B/(n-1),  unit cost Link
//   Switch          prod_{j>d} n_j blocks, prod_{j<=d} n_j links of B, unit cost Link + Switch + Nic
// Every case collapses to N * B_d * u_d, so Cost(B) = sum_d coefficient_d * B_d, linear in B.
// For the 4D example the coefficients are [8192.04, 16384.08, 16384.12, 235110.89] $/(GB/s).
//
//   std::vector<double> c = cost_coefficients(net, load_cost_model("4d_cost_model.yml"), "4d_cost_model.yml");
#pragma once

#include <string>
#include <vector>

#include "chorus/netopt/libra_inputs.hpp"

namespace chorus::netopt {

// $ per GB/s of B_d, one per dimension. Throws chorus::Error(source, ...) if a CostDimension is missing from
// the cost model or a Switch dimension has no Switch price.
std::vector<double> cost_coefficients(const NetworkShape& network, const CostModel& model, const std::string& source);

double network_cost(const std::vector<double>& coefficients, const std::vector<double>& bandwidth_gbps);

}  // namespace chorus::netopt
