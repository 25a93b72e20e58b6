// Streaming reader of PyTorch execution traces (execution_trace.hpp): a SAX handler keeps a stack of frames that
// says where in the document each event lands, and keeps only the fields chorus uses.
#include "chorus/pytorch/execution_trace.hpp"

#include <array>
#include <cstdio>
#include <memory>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"
#include "chorus/pytorch/json_scan.hpp"

namespace chorus::pytorch {

bool known_schema(const std::string& schema) {
  static constexpr std::array<const char*, 6> kKnown = {"1.0.1",
                                                        "1.0.2-chakra.0.0.4",
                                                        "1.0.3-chakra.0.0.4",
                                                        "1.1.0-chakra.0.0.4",
                                                        "1.1.1-chakra.0.0.4",
                                                        "1.1.1-chakra.1.0.0"};
  for (const char* k : kKnown)
    if (schema == k)
      return true;
  return false;
}

namespace {

using json = nlohmann::json;

constexpr size_t kMaxDepth = 64;  // deeper nesting than any real trace: refused rather than followed
constexpr const char* kGroupInitName = "## process_group:init ##";

enum class Role : uint8_t { Top, Nodes, Node, IoObject, Values, ArgList, Attrs, Attr, Skip };

struct Frame {
  Role role = Role::Skip;
  bool output = false;  // inside "outputs"
  std::string key;      // objects: the last key
  uint32_t count = 0;   // arrays: elements seen
  uint32_t arg = 0;     // Values/ArgList: the top-level argument index
  // ArgList: is this a tensor descriptor (integers, then one device string)?
  bool tensor_like = true;
  bool saw_string = false;
  std::array<int64_t, 6> fields{};
};

class Handler : public nlohmann::json_sax<json> {
 public:
  Handler(ExecutionTrace& t, std::ostream* warnings) : t_(t), warnings_(warnings) {}

  bool null() override { return scalar(std::nullopt); }
  bool boolean(bool) override { return scalar(std::nullopt); }
  bool number_integer(number_integer_t v) override { return scalar(v); }
  bool number_unsigned(number_unsigned_t v) override {
    return scalar(static_cast<int64_t>(v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : v));
  }
  bool number_float(number_float_t, const string_t&) override { return scalar(std::nullopt); }
  bool binary(binary_t&) override { return scalar(std::nullopt); }
  bool string(string_t& s) override {
    Frame& f = top();  // throws for a document that is a bare string
    if (f.role == Role::Node && f.key == "name") {
      node_.name = intern(s);
      have_name_ = true;
    } else if (f.role == Role::Top && f.key == "schema") {
      t_.schema = s;
      have_schema_ = true;
    } else if (f.role == Role::Attr) {
      (f.key == "name" ? attr_name_ : attr_text_) = s;
    } else if (f.role == Role::Values) {
      if (have_name_ && t_.names[node_.name] == kGroupInitName)
        group_text_ = s;
      ++f.count;
    } else if (f.role == Role::ArgList) {
      element(f, Element::String, 0);
    }
    return true;
  }

  bool key(string_t& k) override {
    top().key = k;
    return true;
  }

  bool start_object(std::size_t) override {
    Role role = Role::Skip;
    bool output = false;
    if (stack_.empty()) {
      role = Role::Top;
    } else {
      Frame& f = top();
      if (f.role == Role::Nodes) {
        role = Role::Node;
        begin_node();
      } else if (f.role == Role::Node && (f.key == "inputs" || f.key == "outputs")) {
        role = Role::IoObject;
        output = f.key == "outputs";
      } else if (f.role == Role::Attrs) {
        role = Role::Attr;
        attr_name_.clear();
        attr_text_.clear();
        attr_int_.reset();
      } else if (f.role == Role::Values || f.role == Role::ArgList) {
        nested_in(f);
      }
    }
    return push(role, output, 0);
  }

  bool end_object() override {
    const Role role = top().role;
    if (role == Role::Node)
      end_node();
    else if (role == Role::Attr)
      end_attr();
    else if (role == Role::Top)
      saw_top_object_ = true;
    stack_.pop_back();
    return true;
  }

  bool start_array(std::size_t) override {
    if (stack_.empty())
      throw Error(t_.path, "document", "is a JSON array; a PyTorch execution trace is an object with \"nodes\"");
    Frame& f = top();
    Role role = Role::Skip;
    bool output = f.output;
    uint32_t arg = 0;
    if (f.role == Role::Top && f.key == "nodes") {
      role = Role::Nodes;
      saw_nodes_ = true;
    } else if (f.role == Role::Node && (f.key == "inputs" || f.key == "outputs")) {
      role = Role::Values;  // schema 1.0.1: the values array itself
      output = f.key == "outputs";
    } else if (f.role == Role::IoObject && f.key == "values") {
      role = Role::Values;
    } else if (f.role == Role::Node && f.key == "attrs") {
      role = Role::Attrs;
    } else if (f.role == Role::Values || f.role == Role::ArgList) {
      role = Role::ArgList;
      arg = f.role == Role::Values ? f.count : f.arg;
      nested_in(f);
    }
    return push(role, output, arg);
  }

  bool end_array() override {
    Frame& f = top();
    if (f.role == Role::ArgList && f.tensor_like && f.saw_string && f.count >= 3)
      add_tensor(f);
    stack_.pop_back();
    return true;
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    throw Error(t_.path, fmt::format("byte {}", position), fmt::format("invalid JSON: {}", ex.what()));
  }

  void finish() const {
    if (!saw_top_object_ || !saw_nodes_)
      throw Error(t_.path, "nodes", "missing: not a PyTorch execution trace (an object with a \"nodes\" array)");
    if (!have_schema_)
      throw Error(t_.path, "schema", "missing: not a PyTorch execution trace");
    if (!known_schema(t_.schema) && warnings_ != nullptr)
      *warnings_ << fmt::format("warning: {}: schema: '{}' is not a version chorus knows; reading the fields it uses\n",
                                t_.path, t_.schema);
  }

 private:
  Frame& top() {
    if (stack_.empty())
      throw Error(t_.path, "document", "is not a JSON object: a PyTorch execution trace is an object with \"nodes\"");
    return stack_.back();
  }

  bool push(Role role, bool output, uint32_t arg) {
    if (stack_.size() >= kMaxDepth)
      throw Error(t_.path, where(), fmt::format("nested deeper than {} levels", kMaxDepth));
    Frame f;
    f.role = role;
    f.output = output;
    f.arg = arg;
    stack_.push_back(std::move(f));
    return true;
  }

  // A container inside an argument list: the list is no tensor descriptor, and the container is one element.
  static void nested_in(Frame& f) {
    f.tensor_like = false;
    ++f.count;
  }

  std::string where() const {
    return have_id_ ? fmt::format("node {}", node_.id) : fmt::format("nodes[{}]", t_.nodes.size());
  }

  uint32_t intern(const std::string& s) {
    const auto it = name_index_.find(s);
    if (it != name_index_.end())
      return it->second;
    const auto index = static_cast<uint32_t>(t_.names.size());
    t_.names.push_back(s);
    name_index_.emplace(s, index);
    return index;
  }

  // A number, null or bool; `i` holds it when it is an integer.
  bool scalar(std::optional<int64_t> i) {
    Frame& f = top();
    switch (f.role) {
      case Role::Node:
        node_field(f.key, i);
        break;
      case Role::Values:
        if (i)
          t_.ints.push_back({f.count, *i});
        ++f.count;
        break;
      case Role::ArgList:
        element(f, i ? Element::Integer : Element::Other, i.value_or(0));
        break;
      case Role::Attr:
        if (f.key == "value")
          attr_int_ = i;
        break;
      default:
        break;
    }
    return true;
  }

  enum class Element : uint8_t { Integer, String, Other };

  // One element of an argument list: integers first, then one device string make a tensor descriptor.
  static void element(Frame& f, Element kind, int64_t value) {
    if (kind == Element::Other || f.saw_string)  // null, bool, float, or anything after the device
      f.tensor_like = false;
    if (kind == Element::String)
      f.saw_string = true;
    else if (kind == Element::Integer && f.count < f.fields.size())
      f.fields[f.count] = value;
    ++f.count;
  }

  void add_tensor(const Frame& f) {
    if (f.count != 6)
      throw Error(t_.path, where(),
                  fmt::format("tensor descriptor has {} fields; expected 6 [tensor_id, storage_id, offset, numel, "
                              "elem_bytes, device]",
                              f.count));
    const int64_t numel = f.fields[3];
    const int64_t elem = f.fields[4];
    if (numel < 0 || elem < 0 || f.fields[1] < 0)
      throw Error(t_.path, where(),
                  fmt::format("tensor descriptor has a negative field (numel {}, elem_bytes {})", numel, elem));
    int64_t bytes = 0;
    if (__builtin_mul_overflow(numel, elem, &bytes))
      throw Error(t_.path, where(), fmt::format("tensor of {} x {} bytes overflows", numel, elem));
    t_.tensors.push_back({f.arg, f.output, static_cast<uint64_t>(f.fields[1]), static_cast<uint64_t>(bytes)});
  }

  void begin_node() {
    node_ = EtNode{};
    node_.first_tensor = static_cast<uint32_t>(t_.tensors.size());
    node_.first_int = static_cast<uint32_t>(t_.ints.size());
    comm_ = CommAttrs{};
    have_comm_ = have_id_ = have_name_ = have_parent_ = false;
    group_text_.clear();
  }

  void node_field(const std::string& key, std::optional<int64_t> v) {
    if (!v)
      return;
    const auto u = static_cast<uint64_t>(*v < 0 ? 0 : *v);
    if (key == "id") {
      node_.id = u;
      have_id_ = true;
    } else if (key == "parent" || key == "ctrl_deps") {
      node_.parent = u;
      have_parent_ = true;
    } else if (key == "rf_id") {
      node_.rf_id = u;
    } else if (key == "tid") {
      node_.tid = u;
    } else if (key == "dur" || key == "inclusive_dur") {
      node_.dur_us = u;
    }
  }

  void end_attr() {
    const std::string& n = attr_name_;
    if (attr_int_) {
      node_field(n, attr_int_);
      if (n == "pg_size")
        comm_.pg_size = attr_int_;
      else if (n == "global_rank_start")
        comm_.rank_start = attr_int_;
      else if (n == "global_rank_stride")
        comm_.rank_stride = attr_int_;
      else if (n == "in_msg_nelems")
        comm_.in_nelems = attr_int_;
      else if (n == "out_msg_nelems")
        comm_.out_nelems = attr_int_;
      else
        return;
      have_comm_ = true;
    } else if (n == "collective_name") {
      comm_.collective_name = attr_text_;
      have_comm_ = true;
    } else if (n == "pg_name") {
      comm_.pg_name = attr_text_;
      have_comm_ = true;
    }
  }

  void end_node() {
    if (!have_id_)
      throw Error(t_.path, where(), "has no \"id\"");
    if (!have_name_)
      throw Error(t_.path, where(), "has no \"name\"");
    if (!have_parent_)
      throw Error(t_.path, where(), "has neither \"parent\" (schema 1.0.1) nor \"ctrl_deps\"");
    node_.tensor_count = static_cast<uint32_t>(t_.tensors.size()) - node_.first_tensor;
    node_.int_count = static_cast<uint32_t>(t_.ints.size()) - node_.first_int;
    if (have_comm_) {
      node_.comm = static_cast<uint32_t>(t_.comms.size());
      t_.comms.push_back(std::move(comm_));
    }
    if (!group_text_.empty())
      read_groups();
    t_.nodes.push_back(node_);
  }

  // The process-group list a "## process_group:init ##" node carries as a JSON string.
  void read_groups() {
    const json doc = json::parse(group_text_, nullptr, false);
    if (!doc.is_array())
      throw Error(t_.path, where(), "process_group:init: inputs value is not a JSON list of groups");
    for (const json& g : doc) {
      if (!g.is_object() || !g.contains("pg_name"))
        throw Error(t_.path, where(), "process_group:init: a group has no pg_name");
      ProcessGroupInfo info;
      info.name = g["pg_name"].is_string() ? g["pg_name"].get<std::string>() : g["pg_name"].dump();
      if (g.contains("ranks") && g["ranks"].is_array())
        for (const json& r : g["ranks"])
          if (r.is_number_integer())
            info.ranks.push_back(r.get<int64_t>());
      t_.groups.push_back(std::move(info));
    }
  }

  ExecutionTrace& t_;
  std::ostream* warnings_;
  std::vector<Frame> stack_;
  std::unordered_map<std::string, uint32_t> name_index_;
  EtNode node_;
  CommAttrs comm_;
  bool have_comm_ = false, have_id_ = false, have_name_ = false, have_parent_ = false;
  bool have_schema_ = false, saw_nodes_ = false, saw_top_object_ = false;
  std::string attr_name_, attr_text_, group_text_;
  std::optional<int64_t> attr_int_;
};

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

ExecutionTrace read_execution_trace(const std::string& path, std::ostream* warnings) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file)
    throw Error(path, Argument{"et"}, "cannot open the file");
  ExecutionTrace trace;
  trace.path = path;
  Handler handler(trace, warnings);
  // Values chorus never reads are not tokenized (about 40% of a node's bytes).
  static const std::vector<std::string> kSkipped = {"op_schema",    "input_shapes", "input_types", "output_shapes",
                                                    "output_types", "shapes",       "types",       "strides"};
  scan_json(file.get(), handler, path, kSkipped, kMaxDepth);
  handler.finish();
  return trace;
}

}  // namespace chorus::pytorch
