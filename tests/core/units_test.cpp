// Tests of the strong unit types and the unit-string parsers.
#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/core/units.hpp"

namespace chorus {
namespace {

TEST(Units, TransferTimeRoundsUpToPicoseconds) {
  // 1 MiB over 50 GB/s = 1048576 / 50e9 s = 20.97152 us exactly.
  EXPECT_EQ(transfer_time(Bytes::mib(1), Bandwidth::gb_per_s(50)).picoseconds(), 20'971'520);
  // 1 B over 3 B/s = 0.333... s -> rounded up to 333333333334 ps.
  EXPECT_EQ(transfer_time(Bytes(1), Bandwidth::bytes_per_s(3)).picoseconds(), 333'333'333'334);
  // GiB/s means 2^30 B/s: 1 GiB takes exactly 1 s at 1 GiB/s.
  EXPECT_EQ(transfer_time(Bytes::gib(1), Bandwidth::gib_per_s(1)), Time::us(1'000'000));
}

TEST(Units, TimeAdditionSaturates) {
  EXPECT_EQ(Time::max() + Time::ns(1), Time::max());
  EXPECT_EQ(Time::ns(3) + Time::ps(5), Time::ps(3005));
}

TEST(ParseUnits, Sizes) {
  EXPECT_EQ(parse_size("64MiB", "--size"), Bytes(64LL << 20));
  EXPECT_EQ(parse_size("1GiB", "--size"), Bytes(1LL << 30));
  EXPECT_EQ(parse_size("1GB", "--size"), Bytes(1'000'000'000));
  EXPECT_EQ(parse_size("3 KB", "--size"), Bytes(3000));
  EXPECT_EQ(parse_size("2KiB", "--size"), Bytes(2048));
  EXPECT_EQ(parse_size("512", "--size"), Bytes(512));
  EXPECT_EQ(parse_size("0.5MiB", "--size"), Bytes(524288));
}

TEST(ParseUnits, BareSuffixesArePowersOf1024AsInNcclTests) {
  // nccl-tests' `-e 8G` prints "maxBytes 8589934592" = 8 * 2^30.
  EXPECT_EQ(parse_size("8G", "--size"), Bytes(8589934592LL));
  EXPECT_EQ(parse_size("1G", "--size"), parse_size("1GiB", "--size"));
  EXPECT_EQ(parse_size("128M", "--size"), Bytes(134217728));
  EXPECT_EQ(parse_size("4K", "--size"), Bytes(4096));
  EXPECT_EQ(parse_size("4k", "--size"), Bytes(4096));
  EXPECT_EQ(parse_size("2m", "--size"), Bytes(2097152));
  EXPECT_EQ(parse_size("1T", "--size"), Bytes(1099511627776LL));
  // The spelled-out units keep their meaning: B-units decimal, iB-units binary.
  EXPECT_EQ(parse_size("1MB", "--size"), Bytes(1'000'000));
  EXPECT_EQ(parse_size("1TB", "--size"), Bytes(1'000'000'000'000LL));
  EXPECT_EQ(parse_size("1MiB", "--size"), Bytes(1048576));
}

TEST(ParseUnits, BadSizesNameTheField) {
  for (const char* bad : {"", "abc", "12XB", "-5MiB", "1.5B", "MiB", "1e30GB", "2048TiB"}) {
    try {
      parse_size(bad, "--size");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.field(), "--size") << bad;
    }
  }
}

TEST(ParseUnits, BandwidthAndTime) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("50GB/s", "--bandwidth").bytes_per_second(), 50e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("50GiB/s", "--bandwidth").bytes_per_second(), 50.0 * 1073741824.0);
  EXPECT_DOUBLE_EQ(parse_bandwidth("400Gbps", "--bandwidth").bytes_per_second(), 50e9);
  EXPECT_EQ(parse_time("500ns", "--latency"), Time::ns(500));
  EXPECT_EQ(parse_time("0.5us", "--latency"), Time::ns(500));
  EXPECT_EQ(parse_time("1.25ns", "--latency"), Time::ps(1250));
  EXPECT_THROW(parse_bandwidth("50", "--bandwidth"), Error);
  EXPECT_THROW(parse_bandwidth("50G/s", "--bandwidth"), Error);  // a bare letter is ambiguous for a bandwidth
  EXPECT_THROW(parse_bandwidth("0GB/s", "--bandwidth"), Error);
  EXPECT_THROW(parse_bandwidth("1e-300GB/s", "--bandwidth"), Error);  // below 1 KB/s: a unit mistake
  EXPECT_THROW(parse_bandwidth("2EB/s", "--bandwidth"), Error);
  EXPECT_THROW(parse_time("5", "--latency"), Error);
  EXPECT_THROW(parse_time("5 parsecs", "--latency"), Error);
}

}  // namespace
}  // namespace chorus
