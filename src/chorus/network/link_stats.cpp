// CSV output of per-link statistics (see link_stats.hpp).
#include "chorus/network/link_stats.hpp"

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/io/output_file.hpp"

namespace chorus {

void write_link_stats_csv(const std::string& path, const Topology& topology, const LinkStats& stats, Time makespan) {
  OutputFile out(path, Argument{"link_stats"});  // gzip when the name ends in .gz
  out.write("link,src,dst,bandwidth_GBps,latency_ns,bytes,busy_ns,utilization,peak_flows\n");
  for (uint32_t l = 0; l < topology.link_count(); ++l) {
    const LinkId id{l};
    const double busy_ns = stats.busy[l].nanoseconds();
    const double utilization = makespan > Time::zero() ? busy_ns / makespan.nanoseconds() : 0.0;
    out.write(fmt::format("{},{},{},{:.6g},{:.6g},{:.0f},{:.6g},{:.6f},{}\n", l, topology.link_src(id).value,
                          topology.link_dst(id).value, topology.link_bandwidth(id).gb_per_second(),
                          topology.link_latency(id).nanoseconds(), stats.bytes[l], busy_ns, utilization,
                          stats.peak_flows[l]));
  }
  out.close();
}

}  // namespace chorus
