// Chakra ET reading and writing: the reference traces ASTRA-sim's scripts wrote, byte-exact round trips,
// attributes under any integer oneof type (encoded here by hand from the documented field numbers), gzip, and
// one test per kind of broken file.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "chorus/chakra/trace.hpp"
#include "chorus/core/error.hpp"

namespace chorus::chakra {
namespace {

namespace fs = std::filesystem;
const std::string kReference = CHORUS_REFERENCE_DIR;
const std::string kAllReduce0 = kReference + "/chakra-traces/all_reduce_1048576B/8npus/all_reduce.0.et";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("chorus_chakra_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A minimal protobuf encoder, independent of the generated code: tag = field << 3 | wire type.
std::string varint(uint64_t v) {
  std::string s;
  while (v >= 0x80) {
    s.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  s.push_back(static_cast<char>(v));
  return s;
}
std::string field_varint(int field, uint64_t v) {
  return varint(static_cast<uint64_t>(field) << 3) + varint(v);
}
std::string field_bytes(int field, const std::string& b) {
  return varint((static_cast<uint64_t>(field) << 3) | 2) + varint(b.size()) + b;
}
std::string delimited(const std::string& message) {
  return varint(message.size()) + message;
}
std::string attr_varint(const std::string& name, int field, uint64_t v) {
  return field_bytes(10, field_bytes(1, name) + field_varint(field, v));
}
std::string metadata() {
  return delimited(field_bytes(1, "0.0.4"));
}

std::string error_of(const std::string& path) {
  try {
    read_chakra_trace(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ChakraTrace, ReadsAstraSimGeneratorOutput) {
  const ChakraTrace t = read_chakra_trace(kAllReduce0);
  EXPECT_EQ(t.version, "0.0.4");
  ASSERT_EQ(t.nodes.size(), 1u);
  const TraceNode& n = t.nodes[0];
  EXPECT_EQ(n.id, 0u);
  EXPECT_EQ(n.name, "all_reduce_8npus_1048576B");
  EXPECT_EQ(n.type, NodeType::CommColl);
  EXPECT_EQ(n.comm_type, 0);
  EXPECT_EQ(n.comm_size, 1048576);
  EXPECT_FALSE(n.is_cpu_op);
  // rank 5 of the All-Gather set: node id 5, comm_type ALL_GATHER (2)
  const ChakraTrace ag = read_chakra_trace(kReference + "/chakra-traces/all_gather_1048576B/64npus/all_gather.5.et");
  EXPECT_EQ(ag.nodes.at(0).id, 5u);
  EXPECT_EQ(ag.nodes.at(0).comm_type, 2);
}

TEST(ChakraTrace, RewritesTheReferenceFileByteForByte) {
  const fs::path dir = temp_dir("rewrite");
  write_chakra_trace((dir / "t.0.et").string(), read_chakra_trace(kAllReduce0), false);
  EXPECT_EQ(slurp((dir / "t.0.et").string()), slurp(kAllReduce0));
}

TEST(ChakraTrace, RoundTripsEveryFieldPlainAndGzipped) {
  ChakraTrace t;
  t.version = "1.0.0";
  TraceNode a;
  a.id = 3;
  a.name = "matmul";
  a.type = NodeType::Comp;
  a.duration_micros = 42;
  a.num_ops = 1'000'000;
  a.tensor_size = 4096;
  a.other_attrs.push_back({"seq_id", 17, ""});
  TraceNode b;
  b.id = 9;
  b.type = NodeType::CommSend;
  b.data_deps = {3};
  b.ctrl_deps = {3};
  b.comm_dst = 2;
  b.comm_tag = 7;
  b.comm_size = 123;
  b.pg_name = "5";
  t.nodes = {a, b};
  const fs::path dir = temp_dir("roundtrip");
  for (bool gzip : {false, true}) {
    const std::string path = (dir / (gzip ? "t.0.et.gz" : "t.0.et")).string();
    write_chakra_trace(path, t, gzip);
    const std::string bytes = slurp(path);
    EXPECT_EQ(gzip,
              bytes.size() > 2 && static_cast<uint8_t>(bytes[0]) == 0x1f && static_cast<uint8_t>(bytes[1]) == 0x8b);
    const ChakraTrace r = read_chakra_trace(path);
    EXPECT_EQ(r.version, "1.0.0");
    ASSERT_EQ(r.nodes.size(), 2u);
    EXPECT_EQ(r.nodes[0].duration_micros, 42u);
    EXPECT_EQ(r.nodes[0].num_ops, 1'000'000);
    EXPECT_EQ(r.nodes[0].tensor_size, 4096);
    ASSERT_EQ(r.nodes[0].other_attrs.size(), 1u);
    EXPECT_EQ(r.nodes[0].other_attrs[0].integer, 17);
    EXPECT_EQ(r.nodes[1].data_deps, std::vector<uint64_t>{3});
    EXPECT_EQ(r.nodes[1].ctrl_deps, std::vector<uint64_t>{3});
    EXPECT_EQ(r.nodes[1].comm_dst, 2);
    EXPECT_EQ(r.nodes[1].comm_tag, 7);
    EXPECT_EQ(r.nodes[1].comm_size, 123);
    EXPECT_EQ(r.nodes[1].pg_name, "5");
  }
}

TEST(ChakraTrace, KnownAttributesUnderAnyIntegerType) {
  // comm_size as uint64 (astra-sim #224), comm_type as int32, is_cpu_op as int32 (STG), comm_tag as sint32
  // (zigzag: -3 -> 5), comm_src as fixed64 is not a varint, so use sint64 for num_ops (zigzag 2 * 500).
  const std::string node = field_varint(1, 11) + field_varint(3, 7) + attr_varint("comm_size", 13, 1 << 20) +
                           attr_varint("comm_type", 7, 2) + attr_varint("is_cpu_op", 7, 1) +
                           attr_varint("comm_tag", 15, 5) + attr_varint("num_ops", 17, 1000);
  const fs::path dir = temp_dir("types");
  spit((dir / "t.0.et").string(), metadata() + delimited(node));
  const ChakraTrace t = read_chakra_trace((dir / "t.0.et").string());
  ASSERT_EQ(t.nodes.size(), 1u);
  EXPECT_EQ(t.nodes[0].id, 11u);
  EXPECT_EQ(t.nodes[0].comm_size, 1 << 20);
  EXPECT_EQ(t.nodes[0].comm_type, 2);
  EXPECT_TRUE(t.nodes[0].is_cpu_op);
  EXPECT_EQ(t.nodes[0].comm_tag, -3);
  EXPECT_EQ(t.nodes[0].num_ops, 500);
}

TEST(ChakraTrace, ParentsMayFollowChildrenInTheFile) {
  const std::string child = field_varint(1, 2) + field_varint(3, 4) + field_varint(5, 1);
  const std::string parent = field_varint(1, 1) + field_varint(3, 4);
  const fs::path dir = temp_dir("order");
  spit((dir / "t.0.et").string(), metadata() + delimited(child) + delimited(parent));
  const ChakraTrace t = read_chakra_trace((dir / "t.0.et").string());
  ASSERT_EQ(t.nodes.size(), 2u);
  EXPECT_EQ(t.nodes[0].data_deps, std::vector<uint64_t>{1});
}

TEST(ChakraTraceBadInput, MissingFile) {
  EXPECT_NE(error_of("/nonexistent/x.0.et").find("/nonexistent/x.0.et"), std::string::npos);
}

TEST(ChakraTraceBadInput, TruncatedNode) {
  const fs::path dir = temp_dir("truncated");
  const std::string bytes = slurp(kAllReduce0);
  spit((dir / "t.0.et").string(), bytes.substr(0, bytes.size() - 10));
  const std::string e = error_of((dir / "t.0.et").string());
  EXPECT_NE(e.find("t.0.et"), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
  EXPECT_NE(e.find("node #0"), std::string::npos) << e;
}

TEST(ChakraTraceBadInput, TruncatedAfterANodeNamesThatNode) {
  const fs::path dir = temp_dir("truncated2");
  const std::string good = delimited(field_varint(1, 77) + field_varint(3, 4));
  spit((dir / "t.0.et").string(), metadata() + good + "\x20\x08");
  const std::string e = error_of((dir / "t.0.et").string());
  EXPECT_NE(e.find("after node 77"), std::string::npos) << e;
}

TEST(ChakraTraceBadInput, CorruptBytes) {
  const fs::path dir = temp_dir("corrupt");
  spit((dir / "t.0.et").string(), metadata() + delimited(std::string("\xff\xff\xff\xff\xff\xff", 6)));
  const std::string e = error_of((dir / "t.0.et").string());
  EXPECT_NE(e.find("corrupt"), std::string::npos) << e;
}

TEST(ChakraTraceBadInput, NotATraceAtAll) {
  const fs::path dir = temp_dir("text");
  spit((dir / "t.0.et").string(), "hello, this is not a chakra trace, it is a long line of text\n");
  EXPECT_FALSE(error_of((dir / "t.0.et").string()).empty());
}

TEST(ChakraTraceBadInput, UnknownNodeTypeNamesTheNode) {
  const fs::path dir = temp_dir("type");
  spit((dir / "t.0.et").string(), metadata() + delimited(field_varint(1, 31) + field_varint(3, 42)));
  const std::string e = error_of((dir / "t.0.et").string());
  EXPECT_NE(e.find("node 31"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown node type 42"), std::string::npos) << e;
}

TEST(ChakraTraceBadInput, KnownAttributeWithAStringValue) {
  const fs::path dir = temp_dir("strattr");
  const std::string node =
      field_varint(1, 4) + field_varint(3, 7) + field_bytes(10, field_bytes(1, "comm_size") + field_bytes(29, "big"));
  spit((dir / "t.0.et").string(), metadata() + delimited(node));
  const std::string e = error_of((dir / "t.0.et").string());
  EXPECT_NE(e.find("node 4"), std::string::npos) << e;
  EXPECT_NE(e.find("comm_size"), std::string::npos) << e;
}

TEST(ChakraTraceBadInput, TruncatedGzip) {
  const fs::path dir = temp_dir("gz");
  ChakraTrace t;
  for (uint64_t i = 0; i < 2000; ++i) {
    TraceNode n;
    n.id = i;
    n.type = NodeType::Comp;
    n.name = "node" + std::to_string(i * 7919);
    t.nodes.push_back(n);
  }
  write_chakra_trace((dir / "t.0.et").string(), t, true);
  const std::string bytes = slurp((dir / "t.0.et").string());
  spit((dir / "t.0.et").string(), bytes.substr(0, bytes.size() / 2));
  EXPECT_FALSE(error_of((dir / "t.0.et").string()).empty());
}

TEST(ChakraTrace, JsonHasEveryNode) {
  const std::string json = chakra_trace_to_json(kAllReduce0);
  EXPECT_NE(json.find("\"version\":\"0.0.4\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"COMM_COLL_NODE\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"int64Val\":\"1048576\""), std::string::npos) << json;
}

}  // namespace
}  // namespace chorus::chakra
