// The CLI's wording of library errors (see error_text.hpp).
#include "error_text.hpp"

#include <algorithm>
#include <sstream>

namespace chorus::cli {

std::string option_of(const std::string& keyword) {
  std::string out;
  std::stringstream parts(keyword);
  for (std::string part; std::getline(parts, part, '/');) {
    std::replace(part.begin(), part.end(), '_', '-');
    out += (out.empty() ? "--" : "/--") + part;
  }
  return out;
}

std::string error_text(const Error& e) {
  if (!e.names_argument())
    return e.what();
  return Error(e.source(), option_of(e.field()), e.message()).what();
}

}  // namespace chorus::cli
