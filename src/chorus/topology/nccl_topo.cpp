// NCCL topology XML -> Topology (see nccl_topo.hpp): the XML tree is walked once into a small list of devices
// (CPUs, PCI switches, NICs, GPUs, their parents and link bandwidths), then GPUs are numbered by rank and the
// Topology is built.
#include "chorus/topology/nccl_topo.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/io/text_file.hpp"

namespace chorus {

namespace {

// NCCL topo.h: LOC_BW, the bandwidth of a NIC attached straight to a CPU (no PCIe link of its own).
constexpr double kLocalGbps = 5000.0;

// Bus ids compare case-insensitively ("0000:C4:00.0" and "0000:c4:00.0" are one device).
std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

enum class Kind : uint8_t { Cpu, PciSwitch, Nic, Gpu };

struct NvLink {
  std::string target, tclass;
  int count = 0;
  std::string where;
};

struct Device {
  Kind kind = Kind::Cpu;
  int parent = -1;     // index into the device list; -1 for CPUs
  double up_gbps = 0;  // the link to the parent
  std::string busid;   // PCI devices
  std::string where;   // for errors, e.g. "cpu 0 pci 0000:07:00.0 gpu"
  // CPUs
  double inter_cpu_gbps = kLocalGbps;
  // GPUs
  int64_t rank = 0;
  int sm = 0;
  std::vector<NvLink> nvlinks;
  // NICs
  double net_gbps = 0, net_latency_us = 0;
};

struct Reader {
  const std::string& file;
  std::vector<Device> devices;

  [[noreturn]] void fail(const std::string& where, const std::string& message) const {
    throw Error(file, where, message);
  }

  std::string_view required(const pugi::xml_node& node, const char* name, const std::string& where) const {
    const pugi::xml_attribute a = node.attribute(name);
    if (!a)
      fail(where + ": " + name, "missing");
    return a.value();
  }

  // An integer as NCCL reads it (strtol base 0: decimal, or hex with 0x).
  int64_t integer(std::string_view t, const std::string& field) const {
    int base = 10;
    std::string_view digits = t;
    bool negative = false;
    if (digits.starts_with('-')) {
      negative = true;
      digits.remove_prefix(1);
    }
    if (digits.starts_with("0x") || digits.starts_with("0X")) {
      base = 16;
      digits.remove_prefix(2);
    }
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
      fail(field, fmt::format("'{}' is not an integer", t));
    return negative ? -value : value;
  }

  double number(std::string_view t, const std::string& field) const {
    double value = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size() || !(value >= 0) || value > 1e9)
      fail(field, fmt::format("'{}' is not a number >= 0", t));
    return value;
  }

  int64_t integer_or(const pugi::xml_node& node, const char* name, const std::string& where, int64_t fallback) const {
    const pugi::xml_attribute a = node.attribute(name);
    return a ? integer(a.value(), where + ": " + name) : fallback;
  }

  int add(Device d) {
    if (devices.size() >= limits::kMaxNpus)
      fail(d.where, "too many devices");
    devices.push_back(std::move(d));
    return static_cast<int>(devices.size() - 1);
  }

  void read_cpu(const pugi::xml_node& node, size_t index) {
    Device cpu;
    cpu.kind = Kind::Cpu;
    cpu.where = fmt::format("cpu {}", index);
    cpu.inter_cpu_gbps = inter_cpu_gbps(node, cpu.where);
    const int id = add(std::move(cpu));
    read_children(node, id, 1);
  }

  // NCCL's ncclTopoGetInterCpuBw (topo.h values): POWER 32, ARM 6, Intel by generation (Broadwell QPI 6,
  // Skylake 10, Sapphire Rapids 22, Emerald Rapids 40), AMD 16, Zhaoxin 6 (Yongfeng 9) GB/s; otherwise LOC_BW.
  double inter_cpu_gbps(const pugi::xml_node& node, const std::string& where) const {
    const std::string_view arch = node.attribute("arch").value();
    const std::string_view vendor = node.attribute("vendor").value();
    if (arch == "ppc64")
      return 32.0;
    if (arch == "arm64")
      return 6.0;
    if (arch != "x86_64")
      return kLocalGbps;
    const int64_t family = integer_or(node, "familyid", where, 0);
    const int64_t model = integer_or(node, "modelid", where, 0);
    if (vendor == "GenuineIntel") {
      if (family == 6 && (model >= 0xCF || model == 0xAD || model == 0xAE || model == 0xAF))
        return 40.0;
      if (family == 6 && model >= 0x8F)
        return 22.0;
      if (family == 6 && model >= 0x55)
        return 10.0;
      return 6.0;
    }
    if (vendor == "AuthenticAMD")
      return 16.0;
    if (vendor == "CentaurHauls" || vendor == "  Shanghai  ")
      return family == 7 && model == 0x5B ? 9.0 : 6.0;
    return kLocalGbps;
  }

  void read_children(const pugi::xml_node& node, int parent, int depth) {
    if (depth > limits::kMaxNestingDepth)
      fail(devices[static_cast<size_t>(parent)].where,
           fmt::format("nested deeper than {} (kMaxNestingDepth)", limits::kMaxNestingDepth));
    for (const pugi::xml_node& child : node.children()) {
      const std::string_view name = child.name();
      if (name == "pci")
        read_pci(child, parent, depth);
      else if (name == "nic")
        read_nic(child, parent, kLocalGbps, devices[static_cast<size_t>(parent)].where + " nic", "");
    }
  }

  void read_pci(const pugi::xml_node& node, int parent, int depth) {
    const std::string busid = lower(required(node, "busid", devices[static_cast<size_t>(parent)].where + " pci"));
    const std::string where = fmt::format("pci {}", busid);
    const std::string_view cls = required(node, "class", where);
    const int64_t width = integer_or(node, "link_width", where, 16);
    if (width < 0 || width > 64)  // checked before the int conversion below
      fail(where + ": link_width", fmt::format("is {}; PCIe links have 0 (unknown: 16) to 32 lanes", width));
    const double gbps = nccl_pci_gbps(node.attribute("link_speed").value(), static_cast<int>(width));
    bool device = false;
    for (const pugi::xml_node& gpu : node.children("gpu")) {
      read_gpu(gpu, parent, gbps, busid, where + " gpu");
      device = true;
    }
    if (const pugi::xml_node nic = node.child("nic")) {
      read_nic(nic, parent, gbps, where + " nic", busid);
      device = true;
    }
    // NCCL's class table: bridges and unknown classes are PCI switches; NVSwitch, CPU, GPU and NIC classes without
    // a <gpu> / <nic> inside are not part of the graph.
    if (device || cls.starts_with("0x03") || cls.starts_with("0x02") || cls == "0x068000" || cls == "0x068001")
      return;
    Device sw;
    sw.kind = Kind::PciSwitch;
    sw.parent = parent;
    sw.up_gbps = gbps;
    sw.busid = busid;
    sw.where = where;
    const int id = add(std::move(sw));
    read_children(node, id, depth + 1);
  }

  void read_gpu(const pugi::xml_node& node, int parent, double gbps, const std::string& busid,
                const std::string& where) {
    Device gpu;
    gpu.kind = Kind::Gpu;
    gpu.parent = parent;
    gpu.up_gbps = gbps;
    gpu.busid = busid;
    gpu.where = where;
    gpu.rank = integer(required(node, "rank", where), where + ": rank");
    if (gpu.rank < 0 || gpu.rank > static_cast<int64_t>(limits::kMaxNpus))
      fail(where + ": rank", fmt::format("is {}; must be 0 to {}", gpu.rank, limits::kMaxNpus));
    gpu.sm = static_cast<int>(integer(required(node, "sm", where), where + ": sm"));
    for (const pugi::xml_node& link : node.children("nvlink")) {
      NvLink l;
      l.where = where + " nvlink";
      l.tclass = std::string(required(link, "tclass", l.where));
      l.count = static_cast<int>(integer(required(link, "count", l.where), l.where + ": count"));
      if (l.count < 1 || l.count > 64)
        fail(l.where + ": count", fmt::format("is {}; must be 1 to 64", l.count));
      l.target = lower(link.attribute("target").value());
      gpu.nvlinks.push_back(std::move(l));
    }
    add(std::move(gpu));
  }

  void read_nic(const pugi::xml_node& node, int parent, double gbps, const std::string& where,
                const std::string& busid) {
    Device nic;
    nic.kind = Kind::Nic;
    nic.parent = parent;
    nic.up_gbps = gbps;
    nic.busid = busid;
    nic.where = where;
    for (const pugi::xml_node& net : node.children("net")) {
      const std::string at = where + " net " + net.attribute("name").value();
      int64_t mbps = integer_or(net, "speed", at, 0);
      if (mbps <= 0)
        mbps = 10000;  // NCCL: "Some NICs define speed = -1"
      nic.net_gbps += static_cast<double>(mbps) / 8000.0;
      if (const pugi::xml_attribute latency = net.attribute("latency"))
        nic.net_latency_us = std::max(nic.net_latency_us, number(latency.value(), at + ": latency"));
    }
    add(std::move(nic));
  }
};

Bandwidth gbps(double value) {
  return Bandwidth::gb_per_s(value);
}

// The NVLinks, added before the PCIe tree: routes are shortest by hops with ties to the first link added
// (routing.hpp), so a GPU pair two hops apart both through the NVSwitch and through a PCIe switch uses NVLink, as
// NCCL does.
void add_nvlinks(const Reader& r, const std::vector<int>& gpus, const std::vector<uint32_t>& node,
                 const std::map<std::string, uint32_t>& gpu_by_busid, TopologyBuilder& b) {
  std::optional<NodeId> nvswitch;
  // NVLinks to one peer add up (NCCL's ncclTopoConnectNodes sums the bandwidth of links to the same node), so a
  // GPU with six <nvlink> elements to six NVSwitch chips gets one link of their total bandwidth.
  std::map<std::pair<uint32_t, uint32_t>, double> nvlink_gbps;
  for (const int gi : gpus) {
    const Device& g = r.devices[static_cast<size_t>(gi)];
    const uint32_t self = node[static_cast<size_t>(gi)];
    for (const NvLink& l : g.nvlinks) {
      const double bw = l.count * nccl_nvlink_gbps(g.sm);
      if (l.tclass.starts_with("0x03")) {
        const auto it = gpu_by_busid.find(l.target);
        if (it == gpu_by_busid.end())
          r.fail(l.where + ": target",
                 fmt::format("'{}' is no GPU of the file (an NVLink to an unknown GPU)", l.target));
        if (it->second == self)
          r.fail(l.where + ": target", fmt::format("'{}' is the GPU itself", l.target));
        nvlink_gbps[{self, it->second}] += bw;
        continue;
      }
      uint32_t peer = 0;
      if (l.tclass == "0x068001") {
        int cpu = g.parent;  // the GPU's CPU: up the PCIe tree
        while (r.devices[static_cast<size_t>(cpu)].kind != Kind::Cpu)
          cpu = r.devices[static_cast<size_t>(cpu)].parent;
        peer = node[static_cast<size_t>(cpu)];
      } else {
        if (!nvswitch)
          nvswitch = b.add_switch();
        peer = nvswitch->value;
      }
      nvlink_gbps[{self, peer}] += bw;
      nvlink_gbps[{peer, self}] += bw;
    }
  }
  for (const auto& [ends, bw] : nvlink_gbps)
    b.add_link(NodeId{ends.first}, NodeId{ends.second}, gbps(bw), Time::zero());
}

// PCIe links (each device to its parent), NICs to the network switch, CPUs pairwise.
void add_tree(const Reader& r, const std::vector<uint32_t>& node, TopologyBuilder& b) {
  std::vector<size_t> cpus;
  std::optional<NodeId> net;
  for (size_t i = 0; i < r.devices.size(); ++i) {
    const Device& d = r.devices[i];
    if (d.kind == Kind::Cpu) {
      cpus.push_back(i);
      continue;
    }
    b.add_duplex(NodeId{node[i]}, NodeId{node[static_cast<size_t>(d.parent)]}, gbps(d.up_gbps), Time::zero());
    if (d.kind == Kind::Nic && d.net_gbps > 0) {
      if (!net)
        net = b.add_switch();
      b.add_duplex(NodeId{node[i]}, *net, gbps(d.net_gbps), Time::ps(static_cast<int64_t>(d.net_latency_us * 1e6)));
    }
  }
  for (size_t a = 0; a < cpus.size(); ++a) {
    for (size_t c = a + 1; c < cpus.size(); ++c) {
      const double bw = std::min(r.devices[cpus[a]].inter_cpu_gbps, r.devices[cpus[c]].inter_cpu_gbps);
      b.add_duplex(NodeId{node[cpus[a]]}, NodeId{node[cpus[c]]}, gbps(bw), Time::zero());
    }
  }
}

Topology build(const Reader& r, const std::string& file) {
  std::vector<int> gpus;
  for (size_t i = 0; i < r.devices.size(); ++i) {
    if (r.devices[i].kind == Kind::Gpu)
      gpus.push_back(static_cast<int>(i));
  }
  if (gpus.empty())
    r.fail("gpu", "none found; NCCL lists each GPU as a <gpu rank=...> inside its <pci> element");
  std::stable_sort(gpus.begin(), gpus.end(), [&](int a, int b) { return r.devices[a].rank < r.devices[b].rank; });
  std::vector<uint32_t> node(r.devices.size(), 0);
  std::map<std::string, uint32_t> gpu_by_busid;
  for (size_t k = 0; k < gpus.size(); ++k) {
    const Device& g = r.devices[static_cast<size_t>(gpus[k])];
    if (k > 0 && g.rank == r.devices[static_cast<size_t>(gpus[k - 1])].rank)
      r.fail(g.where + ": rank", fmt::format("{} is the rank of two GPUs", g.rank));
    node[static_cast<size_t>(gpus[k])] = static_cast<uint32_t>(k);
    gpu_by_busid[g.busid] = static_cast<uint32_t>(k);
  }
  TopologyBuilder b(file, static_cast<uint32_t>(gpus.size()), file);
  for (size_t i = 0; i < r.devices.size(); ++i) {
    if (r.devices[i].kind != Kind::Gpu)
      node[i] = b.add_switch().value;
  }
  add_nvlinks(r, gpus, node, gpu_by_busid, b);
  add_tree(r, node, b);
  return std::move(b).seal();
}

}  // namespace

double nccl_nvlink_gbps(int sm) {
  return sm >= 100  ? 40.1
         : sm >= 90 ? 20.6
         : sm == 86 ? 12.0
         : sm >= 80 ? 20.0
         : sm >= 70 ? 20.0
         : sm >= 60 ? 18.0
                    : 20.0;
}

double nccl_pci_gbps(std::string_view speed, int width) {
  // NCCL's kvDictPciGen: per-lane speed in units of 100 Mb/s; GB/s = width x speed / 80.
  static constexpr std::pair<std::string_view, int> kGen[] = {
      {"2.5 GT/s", 15},        {"5 GT/s", 30},          {"8 GT/s", 60},         {"16 GT/s", 120},
      {"32 GT/s", 240},        {"2.5 GT/s PCIe", 15},   {"5.0 GT/s PCIe", 30},  {"8.0 GT/s PCIe", 60},
      {"16.0 GT/s PCIe", 120}, {"32.0 GT/s PCIe", 240}, {"64.0 GT/s PCIe", 480}};
  int per_lane = 60;  // NCCL's fallback
  for (const auto& [text, value] : kGen) {
    if (speed == text)
      per_lane = value;
  }
  return (width == 0 ? 16 : width) * per_lane / 80.0;
}

namespace {

// Parses the document into the reader's device list (every check of parse_nccl_topology).
Reader read_document(std::string_view text, const std::string& file) {
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size(), pugi::parse_default);
  Reader r{file, {}};
  if (!parsed) {
    const size_t offset = std::min<size_t>(static_cast<size_t>(parsed.offset), text.size());
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
    r.fail(fmt::format("line {}", line), fmt::format("xml syntax error: {}", parsed.description()));
  }
  const pugi::xml_node system = doc.child("system");
  if (!system)
    r.fail("system", "missing; an NCCL topology file has one <system> element at the top");
  // An NCCL dump describes one node: a few CPU sockets (NUMA domains), each joined to every other. Thousands of
  // <cpu> elements would build millions of inter-CPU links (and minutes of max-flow).
  constexpr size_t kMaxCpus = 64;
  const auto cpus = static_cast<size_t>(std::distance(system.children("cpu").begin(), system.children("cpu").end()));
  if (cpus > kMaxCpus)
    r.fail("system", fmt::format("{} <cpu> elements; an NCCL dump describes one node (at most {})", cpus, kMaxCpus));
  size_t index = 0;
  for (const pugi::xml_node& cpu : system.children("cpu"))
    r.read_cpu(cpu, index++);
  return r;
}

}  // namespace

Topology parse_nccl_topology(std::string_view text, const std::string& file) {
  const Reader r = read_document(text, file);
  return build(r, file);
}

NcclNodeSummary summarize_nccl_topology(std::string_view text, const std::string& file) {
  const Reader r = read_document(text, file);
  NcclNodeSummary s;
  bool first_gpu = true;
  for (const Device& d : r.devices) {
    if (d.kind == Kind::Nic && d.net_gbps > 0) {
      ++s.nics;
      s.nic_gbps = s.nics == 1 ? d.net_gbps : std::min(s.nic_gbps, d.net_gbps);
    }
    if (d.kind != Kind::Gpu)
      continue;
    ++s.gpus;
    uint32_t links = 0;
    for (const NvLink& l : d.nvlinks) {
      if (l.tclass == "0x068001")
        continue;  // NVLink to the CPU
      links += static_cast<uint32_t>(l.count);
      s.nvswitch = s.nvswitch || !l.tclass.starts_with("0x03");
    }
    s.sm = first_gpu ? d.sm : std::min(s.sm, d.sm);
    s.nvlinks_per_gpu = first_gpu ? links : std::min(s.nvlinks_per_gpu, links);
    first_gpu = false;
  }
  return s;
}

Topology load_nccl_topology(const std::string& path) {
  return parse_nccl_topology(read_text_file(path), path);
}

}  // namespace chorus
