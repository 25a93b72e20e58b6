// Test helper: builds small multi-rank Chakra workloads in a temporary directory.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chorus/chakra/trace.hpp"

namespace chorus::testing {

class WorkloadBuilder {
 public:
  WorkloadBuilder(const std::string& name, uint32_t npus)
      : dir_(std::filesystem::temp_directory_path() / ("chorus_wl_" + name)) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    ranks_.resize(npus);
  }
  chakra::TraceNode& comp(uint32_t npu, uint64_t id, uint64_t micros, std::vector<uint64_t> deps = {}) {
    chakra::TraceNode& n = add(npu, id, chakra::NodeType::Comp, std::move(deps));
    n.duration_micros = micros;
    return n;
  }
  chakra::TraceNode& coll(uint32_t npu, uint64_t id, chakra::CommType type, int64_t bytes,
                          std::vector<uint64_t> deps = {}, std::string group = "") {
    chakra::TraceNode& n = add(npu, id, chakra::NodeType::CommColl, std::move(deps));
    n.comm_type = static_cast<int64_t>(type);
    n.comm_size = bytes;
    n.pg_name = std::move(group);
    return n;
  }
  chakra::TraceNode& send(uint32_t npu, uint64_t id, uint32_t dst, int64_t bytes, int64_t tag,
                          std::vector<uint64_t> deps = {}) {
    chakra::TraceNode& n = add(npu, id, chakra::NodeType::CommSend, std::move(deps));
    n.comm_dst = dst;
    n.comm_size = bytes;
    n.comm_tag = tag;
    return n;
  }
  chakra::TraceNode& recv(uint32_t npu, uint64_t id, uint32_t src, int64_t bytes, int64_t tag,
                          std::vector<uint64_t> deps = {}) {
    chakra::TraceNode& n = add(npu, id, chakra::NodeType::CommRecv, std::move(deps));
    n.comm_src = src;
    n.comm_size = bytes;
    n.comm_tag = tag;
    return n;
  }
  // Writes `<dir>/w.<rank>.et` and returns the prefix.
  std::string write() const {
    for (size_t r = 0; r < ranks_.size(); ++r) {
      chakra::ChakraTrace t;
      t.nodes = ranks_[r];
      chakra::write_chakra_trace((dir_ / ("w." + std::to_string(r) + ".et")).string(), t, false);
    }
    return (dir_ / "w").string();
  }
  std::string file(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs(text.c_str(), f);
    std::fclose(f);
    return path;
  }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  chakra::TraceNode& add(uint32_t npu, uint64_t id, chakra::NodeType type, std::vector<uint64_t> deps) {
    chakra::TraceNode n;
    n.id = id;
    n.name = fmt::format("n{}", id);  // (operator+ trips a false -Wrestrict in g++ 12)
    n.type = type;
    n.data_deps = std::move(deps);
    ranks_.at(npu).push_back(std::move(n));
    return ranks_.at(npu).back();
  }

  std::filesystem::path dir_;
  std::vector<std::vector<chakra::TraceNode>> ranks_;
};

}  // namespace chorus::testing
