// Usage errors with suggestions (see usage.hpp).
#include "usage.hpp"

#include <algorithm>
#include <cctype>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chorus/core/suggest.hpp"

namespace chorus::cli {

namespace {

// The chain of subcommands CLI11 matched, outermost first ("llm", "search"); the last is where the error is.
std::vector<const CLI::App*> matched_chain(const CLI::App& app) {
  std::vector<const CLI::App*> chain{&app};
  for (;;) {
    const std::vector<CLI::App*> parsed = chain.back()->get_subcommands();
    if (parsed.empty())
      return chain;
    chain.push_back(parsed.front());
  }
}

std::string command_path(const std::vector<const CLI::App*>& chain) {
  std::string path = "chorus";
  for (size_t i = 1; i < chain.size(); ++i)
    path += " " + chain[i]->get_name();
  return path;
}

std::vector<const CLI::App*> named_subcommands(const CLI::App& app) {
  std::vector<const CLI::App*> named;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); }))
    named.push_back(sub);
  return named;
}

// The subcommands with their one-line descriptions, aligned, for stderr after the error line.
std::string subcommand_listing(const std::string& path, const CLI::App& app) {
  const std::vector<const CLI::App*> subs = named_subcommands(app);
  size_t width = 0;
  for (const CLI::App* sub : subs)
    width = std::max(width, sub->get_name().size());
  std::string text = fmt::format(
      "usage: {} <subcommand> [options]   ({} <subcommand> --help lists its options)\n"
      "subcommands:\n",
      path, path);
  for (const CLI::App* sub : subs)
    text += fmt::format("  {:<{}}  {}\n", sub->get_name(), width, sub->get_description());
  return text;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& known, const char* prefix) {
  const std::optional<std::string> match = closest_match(word, known);
  return match ? fmt::format("; did you mean {}{}?", prefix, *match) : std::string();
}

int report(const std::string& line, const std::string& listing) {
  std::cerr << "error: " << line << "\n" << listing;
  return 2;
}

// The usage error behind a failed parse, when it is one of the three this file explains; else 0.
int explain(const CLI::App& app) {
  const std::vector<const CLI::App*> chain = matched_chain(app);
  const CLI::App& last = *chain.back();
  const std::string path = command_path(chain);
  const std::vector<std::string> extras = app.remaining(true);
  const std::vector<const CLI::App*> subs = named_subcommands(last);
  if (!subs.empty()) {
    // A subcommand was due here: a word in its place is a mistyped one (its options come after it).
    std::vector<std::string> names;
    for (const CLI::App* sub : subs)
      names.push_back(sub->get_name());
    if (!extras.empty() && !extras.front().empty() && extras.front()[0] != '-') {
      return report(
          fmt::format("{}: unknown subcommand '{}'{}", path, extras.front(), did_you_mean(extras.front(), names, "")),
          subcommand_listing(path, last));
    }
    if (extras.empty())
      return report(fmt::format("{}: a subcommand is required (listed below)", path), subcommand_listing(path, last));
  }
  for (const std::string& extra : extras) {
    if (extra.size() < 2 || extra[0] != '-' || std::isdigit(static_cast<unsigned char>(extra[1])) != 0)
      continue;  // not an option; "-5MiB" is a bad value, which the option's own check explains
    // An unknown option explains the other errors CLI11 may have reported first (a "required" option
    // missing because its name was mistyped).
    const std::string name = extra.substr(0, extra.find('='));
    std::vector<std::string> known;
    for (const CLI::Option* option : last.get_options())
      for (const std::string& long_name : option->get_lnames())
        known.push_back(long_name);
    const size_t dashes = name.find_first_not_of('-');
    const std::string bare = dashes == std::string::npos ? std::string() : name.substr(dashes);
    return report(fmt::format("{}: unknown option '{}'{}", path, name, did_you_mean(bare, known, "--")),
                  subs.empty() ? "" : subcommand_listing(path, last));
  }
  return 0;
}

}  // namespace

int parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0)
      throw;  // --help, --version
    if (dynamic_cast<const CLI::ValidationError*>(&e) != nullptr)
      throw;  // a value an option's own check refused: its message names the option
    const int status = explain(app);
    if (status == 0)
      throw;
    return status;
  }
  return 0;
}

}  // namespace chorus::cli
