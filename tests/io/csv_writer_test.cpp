// CSV as RFC 4180 quotes it, and report files compressed with gzip exactly when the name ends in ".gz".
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/io/csv.hpp"
#include "chorus/io/output_file.hpp"

namespace chorus {
namespace {

TEST(Csv, QuotesOnlyFieldsThatNeedIt) {
  EXPECT_EQ(csv_field("ring"), "ring");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("dp,tp"), "\"dp,tp\"");                // RFC 4180 §2.6: commas
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");  // §2.7: quotes doubled
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");      // §2.6: line breaks
  EXPECT_EQ(csv_field("cr\rhere"), "\"cr\rhere\"");
  EXPECT_EQ(csv_row({"a", "b,c", "d"}), "a,\"b,c\",d\n");
  EXPECT_EQ(csv_row(std::vector<std::string>{"1", "x\"y"}), "1,\"x\"\"y\"\n");
}

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(OutputFile, GzipWhenTheNameSaysSo) {
  const std::filesystem::path dir = ::testing::TempDir();
  const std::string text = "link,src,dst\n0,1,2\n";
  write_output_file((dir / "plain.csv").string(), "--csv", text);
  EXPECT_EQ(read_bytes(dir / "plain.csv"), text);

  const std::string gz = (dir / "packed.csv.gz").string();
  write_output_file(gz, "--csv", text);
  const std::string raw = read_bytes(gz);
  ASSERT_GE(raw.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(raw[0]), 0x1f);  // gzip magic (RFC 1952 §2.3.1)
  EXPECT_EQ(static_cast<unsigned char>(raw[1]), 0x8b);
  gzFile in = gzopen(gz.c_str(), "rb");
  ASSERT_NE(in, nullptr);
  char buffer[256] = {};
  const int n = gzread(in, buffer, sizeof buffer);
  gzclose(in);
  EXPECT_EQ(std::string(buffer, static_cast<size_t>(std::max(n, 0))), text);
  EXPECT_TRUE(is_gzip_path("a.json.gz"));
  EXPECT_FALSE(is_gzip_path("a.gz.csv"));
}

TEST(OutputFile, UnwritablePathNamesFileAndField) {
  try {
    write_output_file("/nonexistent-dir/x.csv", "--csv", "a\n");
    ADD_FAILURE() << "wrote into a missing directory";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent-dir/x.csv: --csv: cannot create the file");
  }
}

}  // namespace
}  // namespace chorus
