// A self-contained HTML page: inline CSS and inline SVG only (no script, no fetched file), so a report is one file
// that opens offline in any browser.
//
//   HtmlPage page("chorus sweep");
//   page.heading("busbw");  page.paragraph("...");  page.raw(render_line_chart(c));
//   write_output_file("sweep.html", "--report", page.str());
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace chorus {

class HtmlPage {
 public:
  explicit HtmlPage(std::string title);
  void heading(std::string_view text);
  void paragraph(std::string_view text);  // escaped
  void raw(std::string_view html);        // already HTML or SVG
  // A table of escaped cells; the first row is the header.
  void table(const std::vector<std::vector<std::string>>& rows);
  std::string str() const;

 private:
  std::string title_;
  std::string body_;
};

}  // namespace chorus
