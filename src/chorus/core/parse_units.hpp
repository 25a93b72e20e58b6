// Parsing of unit strings at the edges (CLI flags, config files): sizes, bandwidths, times.
//
// - parse_size("64MiB") == Bytes::mib(64); suffixes B, KB, MB, GB, TB (powers of 1000) and
//   KiB, MiB, GiB, TiB (powers of 1024), case-sensitive on the 'i'; a bare number is bytes. A bare letter
//   K, M, G, T (or k, m, g, t) is a power of 1024, as nccl-tests reads `-b 1M -e 8G`: "1G" == "1GiB".
// - parse_bandwidth("50GB/s") is 50e9 B/s, "50GiB/s" is 50*2^30 B/s; also "Gbps"/"Mbps" (bits).
//   A bare number, or a bare letter ("50G/s"), is rejected: the unit of a bandwidth is too often guessed wrong.
// - parse_time("500ns"); suffixes ps, ns, us, ms, s. A bare number is rejected.
// Errors name `field` (a file key, or an Argument such as Argument{"size"}) and the offending text.
#pragma once

#include <string>
#include <string_view>

#include "chorus/core/error.hpp"
#include "chorus/core/units.hpp"

namespace chorus {

Bytes parse_size(std::string_view text, const Field& field);
Bandwidth parse_bandwidth(std::string_view text, const Field& field);
Time parse_time(std::string_view text, const Field& field);

}  // namespace chorus
