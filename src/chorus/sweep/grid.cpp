// Grid YAML reader and point enumeration (see grid.hpp). Strict: an unknown key or option would otherwise sweep
// a parameter the job never sees and write a table of identical rows.
#include "chorus/sweep/grid.hpp"

#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "chorus/core/error.hpp"
#include "chorus/io/text_file.hpp"

namespace chorus {

namespace {

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;)
    words.push_back(word);
  return words;
}

std::vector<std::string> scalar_list(const std::string& path, const YAML::Node& node, const std::string& key) {
  if (!node.IsSequence())
    throw Error(path, key, "must be a list");
  std::vector<std::string> values;
  for (size_t i = 0; i < node.size(); ++i) {
    if (!node[i].IsScalar())
      throw Error(path, fmt::format("{}[{}]", key, i), "must be a plain value (a number or a string)");
    values.push_back(node[i].Scalar());
  }
  return values;
}

std::vector<std::string> read_job(const std::string& path, const YAML::Node& root, const JobCatalogue& catalogue) {
  const YAML::Node node = root["job"];
  if (!node)
    throw Error(path, "job", "missing key; name the chorus subcommand to run, e.g. job: collective");
  if (!node.IsScalar())
    throw Error(path, "job", "must be a subcommand name, e.g. collective or \"llm run\"");
  std::vector<std::string> job = split_words(node.Scalar());
  if (job.empty())
    throw Error(path, "job", "is empty; name the chorus subcommand to run");
  if (const std::string complaint = catalogue.check_job(job); !complaint.empty())
    throw Error(path, "job", complaint);
  return job;
}

std::vector<GridAxis> read_axes(const std::string& path, const YAML::Node& root, const std::vector<std::string>& job,
                                const JobCatalogue& catalogue) {
  const YAML::Node node = root["axes"];
  if (!node)
    throw Error(path, "axes", "missing key; give at least one option with a list of values");
  if (!node.IsMap() || node.size() == 0)
    throw Error(path, "axes", "must map each swept option to a list of values");
  std::vector<GridAxis> axes;
  uint64_t points = 1;
  for (const auto& entry : node) {
    GridAxis axis;
    const std::string name = entry.first.Scalar();
    const std::string key = "axes." + name;
    axis.column = name.starts_with("--") ? name.substr(2) : name;
    axis.option = "--" + axis.column;
    if (axis.column.empty() || !catalogue.has_option(job, axis.option)) {
      throw Error(path, key, fmt::format("not an option of `chorus {}`", fmt::join(job, " ")));
    }
    if (axis.option == "--json")
      throw Error(path, key, "--json is always on: the sweep reads the job's JSON");
    if (axis.option == "--help" || axis.option == "--version" || axis.option == "--help-all")
      throw Error(path, key, "not a swept option (it prints text instead of running the job)");
    for (const GridAxis& other : axes) {
      if (other.option == axis.option)
        throw Error(path, key, "the same option twice");
    }
    axis.values = scalar_list(path, entry.second, key);
    if (axis.values.empty())
      throw Error(path, key, "is empty; an axis needs at least one value");
    points *= axis.values.size();
    if (points > kMaxGridPoints)
      throw Error(path, key, fmt::format("the grid has more than {} points", kMaxGridPoints));
    axes.push_back(std::move(axis));
  }
  return axes;
}

}  // namespace

Grid load_grid(const std::string& path, const JobCatalogue& catalogue) {
  const YAML::Node root = load_yaml_file(path);
  if (!root.IsMap())
    throw Error(path, "", "expected a mapping with the keys job, args and axes");
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    if (key != "job" && key != "args" && key != "axes")
      throw Error(path, key, "unknown key; expected job, args or axes");
  }
  Grid grid;
  grid.source = path;
  grid.job = read_job(path, root, catalogue);
  if (const YAML::Node args = root["args"])
    grid.args = scalar_list(path, args, "args");
  grid.axes = read_axes(path, root, grid.job, catalogue);
  for (const std::string& arg : grid.args) {
    if (arg == "--json")
      throw Error(path, "args", "--json is always on: the sweep reads the job's JSON");
    if (arg == "--help" || arg == "-h" || arg == "--version" || arg == "--help-all")
      throw Error(path, "args",
                  fmt::format("{}: not an option of a swept job (it prints text instead of running it)", arg));
  }
  return grid;
}

uint64_t Grid::point_count() const {
  uint64_t n = 1;
  for (const GridAxis& axis : axes)
    n *= axis.values.size();
  return n;
}

std::vector<std::string> Grid::point(uint64_t index) const {
  std::vector<std::string> values(axes.size());
  for (size_t a = axes.size(); a-- > 0;) {
    values[a] = axes[a].values[index % axes[a].values.size()];
    index /= axes[a].values.size();
  }
  return values;
}

std::vector<std::string> Grid::command_line(const std::vector<std::string>& values,
                                            const std::vector<std::string>& extra) const {
  std::vector<std::string> line = job;
  line.insert(line.end(), args.begin(), args.end());
  for (size_t a = 0; a < axes.size(); ++a) {
    line.push_back(axes[a].option);
    line.push_back(values[a]);
  }
  line.insert(line.end(), extra.begin(), extra.end());
  return line;
}

}  // namespace chorus
