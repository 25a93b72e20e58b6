// Reading and writing Chakra ET files (see trace.hpp): length-delimited protobuf messages, optionally gzipped.
// Built into the plugin libchorus_chakra.so with libprotobuf (chakra_plugin.hpp), not into the library.
#include "chorus/chakra/trace.hpp"

#include <zlib.h>

#include <array>
#include <filesystem>
#include <limits>
#include <memory>

#include <fmt/format.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/util/json_util.h>
#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "et_def.pb.h"

namespace chorus::chakra {

namespace {

using ChakraProtoMsg::AttributeProto;

// gzclose_r as a deleter, so that every exit (an exception included) closes the file.
struct GzCloser {
  void operator()(gzFile_s* file) const { gzclose_r(file); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

// The decompressed size may not exceed the absolute cap, nor (past a floor) kMaxGzipRatio times the compressed
// bytes read so far: checked as the data streams in, so a bomb stops early instead of filling memory.
void check_expansion(const std::string& path, uint64_t compressed, uint64_t decompressed, bool gzipped) {
  if (decompressed > limits::kMaxTraceBytes) {
    throw Error(path, "file",
                fmt::format("decompresses to more than {} bytes (kMaxTraceBytes in src/chorus/core/limits.hpp)",
                            limits::kMaxTraceBytes));
  }
  if (gzipped && decompressed > limits::kGzipRatioFloorBytes &&
      decompressed / std::max<uint64_t>(compressed, 1) > limits::kMaxGzipRatio) {
    throw Error(path, "file",
                fmt::format("gzip data expands more than {}-fold ({} bytes from the first {}; a gzip bomb?); see "
                            "kMaxGzipRatio in src/chorus/core/limits.hpp",
                            limits::kMaxGzipRatio, decompressed, compressed));
  }
}

// The whole file, decompressed when it is gzipped (zlib's gzread passes plain files through unchanged), bounded
// by the limits of check_expansion.
std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(path, "file", "is a directory; expected a Chakra trace file");
  const uintmax_t file_size = std::filesystem::file_size(path, ec);
  if (ec)
    throw Error(path, "file", fmt::format("cannot open the trace file: {}", ec.message()));
  GzFile file(gzopen(path.c_str(), "rb"));
  if (file == nullptr)
    throw Error(path, "file", "cannot open the trace file");
  const bool gzipped = gzdirect(file.get()) == 0;
  std::string data;
  // Reserving up front avoids regrowing (and page-faulting) a buffer of tens of MB; gzip reserves a guess.
  const uint64_t guess = gzipped ? static_cast<uint64_t>(file_size) * 6 : static_cast<uint64_t>(file_size);
  data.reserve(static_cast<size_t>(std::min(guess, limits::kMaxTraceBytes)));
  std::array<char, 1 << 17> buffer{};
  int n = 0;
  while ((n = gzread(file.get(), buffer.data(), static_cast<unsigned>(buffer.size()))) > 0) {
    check_expansion(path, static_cast<uint64_t>(gzoffset(file.get())), data.size() + static_cast<uint64_t>(n), gzipped);
    data.append(buffer.data(), static_cast<size_t>(n));
  }
  int code = Z_OK;
  const std::string why = n < 0 ? gzerror(file.get(), &code) : "";
  if (n < 0)
    throw Error(path, "file", fmt::format("cannot decompress: {}", why));
  // A gzip stream cut short reads to its end without an error from gzread; gzclose_r reports it.
  if (gzclose_r(file.release()) == Z_BUF_ERROR)
    throw Error(path, "file", "truncated gzip stream");
  return data;
}

// Protobuf logs (on stderr) why a message failed to parse, e.g. a string field that is not valid UTF-8; chorus
// reports the failure itself in one error line, so the handler is silenced while a message is parsed.
class SilentProtobufLog {
 public:
  SilentProtobufLog() : previous_(google::protobuf::SetLogHandler(&discard)) {}
  ~SilentProtobufLog() { google::protobuf::SetLogHandler(previous_); }
  SilentProtobufLog(const SilentProtobufLog&) = delete;
  SilentProtobufLog& operator=(const SilentProtobufLog&) = delete;

 private:
  static void discard(google::protobuf::LogLevel, const char*, int, const std::string&) {}
  google::protobuf::LogHandler* previous_;
};

// Reads the varint32 length prefix at `offset`; returns false at a clean end of the file.
bool read_length(const std::string& data, size_t& offset, uint32_t& length, const std::string& path,
                 const std::string& where) {
  if (offset == data.size())
    return false;
  uint64_t value = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (offset == data.size())
      throw Error(path, where, "truncated: the file ends inside a length prefix");
    const auto byte = static_cast<uint8_t>(data[offset++]);
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      if (value > std::numeric_limits<int32_t>::max())
        break;
      length = static_cast<uint32_t>(value);
      return true;
    }
  }
  throw Error(path, where, "corrupt: bad message length prefix (not a Chakra trace?)");
}

std::optional<int64_t> attribute_integer(const AttributeProto& a) {
  switch (a.value_case()) {
    case AttributeProto::kInt32Val:
      return a.int32_val();
    case AttributeProto::kInt64Val:
      return a.int64_val();
    case AttributeProto::kUint32Val:
      return a.uint32_val();
    case AttributeProto::kUint64Val:
      if (a.uint64_val() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return std::nullopt;
      return static_cast<int64_t>(a.uint64_val());
    case AttributeProto::kSint32Val:
      return a.sint32_val();
    case AttributeProto::kSint64Val:
      return a.sint64_val();
    case AttributeProto::kFixed32Val:
      return a.fixed32_val();
    case AttributeProto::kFixed64Val:
      if (a.fixed64_val() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return std::nullopt;
      return static_cast<int64_t>(a.fixed64_val());
    case AttributeProto::kSfixed32Val:
      return a.sfixed32_val();
    case AttributeProto::kSfixed64Val:
      return a.sfixed64_val();
    case AttributeProto::kBoolVal:
      return a.bool_val() ? 1 : 0;
    default:
      return std::nullopt;
  }
}

class AttributeReader {
 public:
  AttributeReader(const std::string& path, uint64_t node_id) : path_(path), node_id_(node_id) {}

  void read(const AttributeProto& a, TraceNode& node) const {
    const std::string& name = a.name();
    if (name == "is_cpu_op") {
      node.is_cpu_op = integer(a) != 0;
    } else if (name == "num_ops") {
      node.num_ops = integer(a);
    } else if (name == "tensor_size") {
      node.tensor_size = integer(a);
    } else if (name == "tensor_loc") {
      node.tensor_loc = integer(a);
    } else if (name == "comm_type") {
      node.comm_type = integer(a);
    } else if (name == "comm_size") {
      node.comm_size = integer(a);
    } else if (name == "comm_priority") {
      node.comm_priority = integer(a);
    } else if (name == "comm_src") {
      node.comm_src = integer(a);
    } else if (name == "comm_dst") {
      node.comm_dst = integer(a);
    } else if (name == "comm_tag") {
      node.comm_tag = integer(a);
    } else if (name == "pg_name") {
      // Producers write the group id as a string (PyTorch, STG); accept an integer id too.
      node.pg_name = a.value_case() == AttributeProto::kStringVal ? a.string_val() : std::to_string(integer(a));
    } else {
      OtherAttribute other{name, attribute_integer(a), ""};
      if (a.value_case() == AttributeProto::kStringVal)
        other.text = a.string_val();
      node.other_attrs.push_back(std::move(other));
    }
  }

 private:
  int64_t integer(const AttributeProto& a) const {
    const auto value = attribute_integer(a);
    if (!value) {
      throw Error(path_, fmt::format("node {}", node_id_),
                  fmt::format("attribute '{}' must hold an integer (any integer or bool type)", a.name()));
    }
    return *value;
  }

  const std::string& path_;
  uint64_t node_id_;
};

// Fills `node` from `m`, reusing the node's string and vector capacity (streaming reads reuse one node).
void convert_node(const ChakraProtoMsg::Node& m, const std::string& path, TraceNode& node) {
  node.id = m.id();
  const int type = static_cast<int>(m.type());
  if (type < static_cast<int>(NodeType::Metadata) || type > static_cast<int>(NodeType::CommColl)) {
    throw Error(path, fmt::format("node {}", m.id()),
                fmt::format("unknown node type {} (expected 1..7: METADATA_NODE .. COMM_COLL_NODE)", type));
  }
  node.type = static_cast<NodeType>(type);
  node.name = m.name();
  node.data_deps.assign(m.data_deps().begin(), m.data_deps().end());
  node.ctrl_deps.assign(m.ctrl_deps().begin(), m.ctrl_deps().end());
  node.start_time_micros = m.start_time_micros();
  node.duration_micros = m.duration_micros();
  node.inputs_values.clear();
  if (m.has_inputs())
    node.inputs_values = m.inputs().values();
  node.is_cpu_op = false;
  node.num_ops = node.tensor_size = node.tensor_loc = node.comm_size = node.comm_priority = 0;
  node.comm_type = node.comm_src = node.comm_dst = node.comm_tag = std::nullopt;
  node.pg_name.clear();
  node.other_attrs.clear();
  const AttributeReader reader(path, m.id());
  for (const AttributeProto& a : m.attr())
    reader.read(a, node);
}

void add_bool(ChakraProtoMsg::Node& m, const char* name, bool value) {
  AttributeProto* a = m.add_attr();
  a->set_name(name);
  a->set_bool_val(value);
}
void add_int64(ChakraProtoMsg::Node& m, const char* name, int64_t value) {
  AttributeProto* a = m.add_attr();
  a->set_name(name);
  a->set_int64_val(value);
}
void add_int32(ChakraProtoMsg::Node& m, const char* name, int64_t value) {
  AttributeProto* a = m.add_attr();
  a->set_name(name);
  a->set_int32_val(static_cast<int32_t>(value));
}

void to_message(const TraceNode& node, ChakraProtoMsg::Node& m) {
  m.Clear();
  m.set_id(node.id);
  m.set_name(node.name);
  m.set_type(static_cast<ChakraProtoMsg::NodeType>(node.type));
  for (uint64_t d : node.data_deps)
    m.add_data_deps(d);
  for (uint64_t d : node.ctrl_deps)
    m.add_ctrl_deps(d);
  if (node.start_time_micros != 0)
    m.set_start_time_micros(node.start_time_micros);
  if (node.duration_micros != 0)
    m.set_duration_micros(node.duration_micros);
  if (!node.inputs_values.empty())
    m.mutable_inputs()->set_values(node.inputs_values);
  add_bool(m, "is_cpu_op", node.is_cpu_op);
  if (node.num_ops != 0)
    add_int64(m, "num_ops", node.num_ops);
  if (node.tensor_size != 0) {
    AttributeProto* a = m.add_attr();
    a->set_name("tensor_size");
    a->set_uint64_val(static_cast<uint64_t>(node.tensor_size));
  }
  if (node.tensor_loc != 0)
    add_int64(m, "tensor_loc", node.tensor_loc);
  if (node.comm_type)
    add_int64(m, "comm_type", *node.comm_type);
  if (node.comm_size != 0)
    add_int64(m, "comm_size", node.comm_size);
  if (node.comm_priority != 0)
    add_int32(m, "comm_priority", node.comm_priority);
  if (node.comm_src)
    add_int32(m, "comm_src", *node.comm_src);
  if (node.comm_dst)
    add_int32(m, "comm_dst", *node.comm_dst);
  if (node.comm_tag)
    add_int32(m, "comm_tag", *node.comm_tag);
  if (!node.pg_name.empty()) {
    AttributeProto* a = m.add_attr();
    a->set_name("pg_name");
    a->set_string_val(node.pg_name);
  }
  for (const OtherAttribute& other : node.other_attrs) {
    AttributeProto* a = m.add_attr();
    a->set_name(other.name);
    if (other.integer) {
      a->set_int64_val(*other.integer);
    } else {
      a->set_string_val(other.text);
    }
  }
}

void append_delimited(const google::protobuf::MessageLite& m, std::string& out) {
  const size_t size = m.ByteSizeLong();
  auto length = static_cast<uint32_t>(size);
  while (length >= 0x80) {
    out.push_back(static_cast<char>((length & 0x7f) | 0x80));
    length >>= 7;
  }
  out.push_back(static_cast<char>(length));
  m.AppendToString(&out);
}

void write_file(const std::string& path, const std::string& data, bool gzip) {
  gzFile file = gzopen(path.c_str(), gzip ? "wb6" : "wbT");  // "T": plain, uncompressed output
  if (file == nullptr)
    throw Error(path, "", "cannot create the trace file");
  size_t written = 0;
  while (written < data.size()) {
    const auto chunk = static_cast<unsigned>(std::min<size_t>(data.size() - written, 1u << 30));
    const int n = gzwrite(file, data.data() + written, chunk);
    if (n <= 0) {
      gzclose_w(file);
      throw Error(path, "", "cannot write the trace file");
    }
    written += static_cast<size_t>(n);
  }
  if (gzclose_w(file) != Z_OK)
    throw Error(path, "", "cannot write the trace file");
}

// Walks the length-delimited messages of a file: the GlobalMetadata first, then the nodes.
class MessageWalker {
 public:
  explicit MessageWalker(std::string path) : path_(std::move(path)), data_(read_file(path_)) {}

  void read_metadata(ChakraProtoMsg::GlobalMetadata& metadata) {
    uint32_t length = 0;
    if (!read_length(data_, offset_, length, path_, "global metadata")) {
      throw Error(path_, "global metadata", "empty file: no GlobalMetadata message");
    }
    const char* body = payload(length, "global metadata");
    const SilentProtobufLog quiet;
    if (!metadata.ParseFromArray(body, static_cast<int>(length))) {
      throw Error(path_, "global metadata", "corrupt GlobalMetadata message (not a Chakra trace?)");
    }
  }

  // False at the end of the file.
  bool next_node(ChakraProtoMsg::Node& node) {
    uint32_t length = 0;
    const std::string where = position();
    if (!read_length(data_, offset_, length, path_, where))
      return false;
    const char* body = payload(length, where);
    const SilentProtobufLog quiet;
    if (!node.ParseFromArray(body, static_cast<int>(length))) {
      throw Error(path_, where, "corrupt Node message (or a string field that is not valid UTF-8)");
    }
    ++nodes_;
    last_id_ = node.id();
    return true;
  }

  // How many more length-delimited messages follow (a cheap pass over the prefixes), to size containers.
  size_t remaining_messages() const {
    size_t count = 0;
    size_t offset = offset_;
    uint32_t length = 0;
    try {
      while (read_length(data_, offset, length, path_, "") && length <= data_.size() - offset) {
        offset += length;
        ++count;
      }
    } catch (const Error&) {
      // the real pass reports the damage with its position
    }
    return count;
  }

 private:
  std::string position() const {
    return nodes_ == 0 ? std::string("node #0 (the first)") : fmt::format("node #{} (after node {})", nodes_, last_id_);
  }

  const char* payload(uint32_t length, const std::string& where) {
    if (length > data_.size() - offset_) {
      throw Error(path_, where,
                  fmt::format("truncated: a {}-byte message starts at byte {} but only {} bytes remain", length,
                              offset_, data_.size() - offset_));
    }
    const char* body = data_.data() + offset_;
    offset_ += length;
    return body;
  }

  std::string path_;
  std::string data_;
  size_t offset_ = 0;
  uint64_t nodes_ = 0;
  uint64_t last_id_ = 0;
};

}  // namespace

ChakraTrace read_chakra_trace(const std::string& path) {
  MessageWalker walker(path);
  ChakraTrace trace;
  trace.path = path;
  ChakraProtoMsg::GlobalMetadata metadata;
  walker.read_metadata(metadata);
  trace.version = metadata.version();
  trace.nodes.reserve(walker.remaining_messages());
  ChakraProtoMsg::Node message;  // reused: protobuf keeps its allocations across Clear()
  while (walker.next_node(message)) {
    convert_node(message, path, trace.nodes.emplace_back());
  }
  return trace;
}

std::string for_each_chakra_node(const std::string& path, const std::function<void(const TraceNode&)>& visit) {
  MessageWalker walker(path);
  ChakraProtoMsg::GlobalMetadata metadata;
  walker.read_metadata(metadata);
  ChakraProtoMsg::Node message;
  TraceNode node;
  while (walker.next_node(message)) {
    convert_node(message, path, node);
    visit(node);
  }
  return metadata.version();
}

void write_chakra_trace(const std::string& path, const ChakraTrace& trace, bool gzip) {
  std::string data;
  ChakraProtoMsg::GlobalMetadata metadata;
  metadata.set_version(trace.version.empty() ? "0.0.4" : trace.version);
  append_delimited(metadata, data);
  ChakraProtoMsg::Node message;
  for (const TraceNode& node : trace.nodes) {
    to_message(node, message);
    append_delimited(message, data);
  }
  write_file(path, data, gzip);
}

std::string chakra_trace_to_json(const std::string& path) {
  MessageWalker walker(path);
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = false;
  auto json = [&](const google::protobuf::Message& m) {
    std::string out;
    if (!google::protobuf::util::MessageToJsonString(m, &out, options).ok()) {
      throw Error(path, "", "cannot print the trace as JSON");
    }
    return out;
  };
  ChakraProtoMsg::GlobalMetadata metadata;
  walker.read_metadata(metadata);
  std::string out =
      fmt::format("{{\"file\":{},\"global_metadata\":{},\"nodes\":[", nlohmann::json(path).dump(), json(metadata));
  ChakraProtoMsg::Node node;
  bool first = true;
  while (walker.next_node(node)) {
    const int type = static_cast<int>(node.type());
    if (type < 1 || type > 7) {
      throw Error(path, fmt::format("node {}", node.id()), fmt::format("unknown node type {}", type));
    }
    if (!first)
      out += ",\n";
    out += json(node);
    first = false;
  }
  out += "]}\n";
  return out;
}

}  // namespace chorus::chakra
