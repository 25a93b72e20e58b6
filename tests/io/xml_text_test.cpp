// XML escaping shared by the MSCCL writer and the SVG charts.
#include <gtest/gtest.h>

#include "chorus/io/xml_text.hpp"

namespace chorus {
namespace {

TEST(XmlText, EscapesMarkupAndReplacesControlCharacters) {
  EXPECT_EQ(xml_escape(R"(a"<b>&c)"), "a&quot;&lt;b&gt;&amp;c");
  EXPECT_EQ(xml_escape(std::string("x\x01y\x1fz", 5)), "x?y?z");  // XML 1.0 cannot hold these
  EXPECT_EQ(xml_escape("tab\tline\n"), "tab\tline\n");            // whitespace it can
}

}  // namespace
}  // namespace chorus
