// Text inside XML and SVG (attribute values and element text): the characters that would end an attribute or an
// element escaped, and control characters, which XML 1.0 cannot hold, written as '?'.
#pragma once

#include <string>
#include <string_view>

namespace chorus {

std::string xml_escape(std::string_view text);

}  // namespace chorus
