// `chorus convert`: print a Chakra trace as JSON (every field, with protobuf's JSON names, as Chakra's jsonizer).
//
//   chorus convert trace.0.et --to json [--output trace.0.json]
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "chorus/chakra/trace.hpp"
#include "chorus/core/error.hpp"
#include "commands.hpp"

namespace chorus::cli {

namespace {

struct ConvertOptions {
  std::string input;
  std::string to = "json";
  std::string output;
};

void run(const ConvertOptions& o) {
  if (o.to != "json")
    throw Error("", "--to", fmt::format("unknown format '{}'; expected json", o.to));
  const std::string json = chakra::chakra_trace_to_json(o.input);
  if (o.output.empty()) {
    std::cout << json;
    return;
  }
  std::ofstream out(o.output);
  if (!(out << json))
    throw Error(o.output, "--output", "cannot write the file");
}

}  // namespace

void register_convert_command(CLI::App& app) {
  auto options = std::make_shared<ConvertOptions>();
  CLI::App* cmd = app.add_subcommand("convert", "print a Chakra execution trace (.et, gzipped or not) as JSON");
  cmd->add_option("trace", options->input, "the .et file")->required();
  cmd->add_option("--to", options->to, "output format: json (default)");
  cmd->add_option("--output,-o", options->output, "write here instead of stdout");
  cmd->callback([options] { run(*options); });
}

}  // namespace chorus::cli
