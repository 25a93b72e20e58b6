// Microbenchmark workloads in ASTRA-sim's style: every NPU issues one collective, nothing else.
//
// The files match ASTRA-sim's generator scripts byte for byte (version "0.0.4", rank r's single node has id r,
// name "<collective>_<N>npus_<size>B", attributes is_cpu_op, comm_type, comm_size), so chorus's output can
// stand in for theirs.
//
//   write_microbench("traces/ar", {chakra::CommType::AllReduce, 1 << 20, 64}, false);  // traces/ar/all_reduce.<r>.et
#pragma once

#include <cstdint>
#include <string>

#include "chorus/chakra/trace.hpp"

namespace chorus {

class Progress;

struct MicrobenchSpec {
  chakra::CommType type = chakra::CommType::AllReduce;
  int64_t comm_size = 0;  // Chakra's comm_size (All-Gather: each NPU's contribution)
  uint32_t npus = 0;
};

// Writes `<directory>/<collective>.<rank>.et` for every rank (creating the directory) and returns the prefix path.
// `progress` (optional) hears of each rank file written.
std::string write_microbench(const std::string& directory, const MicrobenchSpec& spec, bool gzip,
                             Progress* progress = nullptr);

}  // namespace chorus
