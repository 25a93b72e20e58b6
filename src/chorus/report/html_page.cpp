// Self-contained HTML pages (see html_page.hpp).
#include "chorus/report/html_page.hpp"

#include <fmt/format.h>

#include "chorus/report/svg_chart.hpp"

namespace chorus {

namespace {

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:24px;color:#222;max-width:1000px}"
    "h1{font-size:22px}h2{font-size:17px;margin-top:28px}"
    "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
    "th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}"
    "svg{display:block;margin:8px 0}.chart-title{font-size:14px;font-weight:bold}"
    ".tick{font-size:11px;fill:#444}.label{font-size:12px;fill:#222}p{font-size:14px}";

}  // namespace

HtmlPage::HtmlPage(std::string title) : title_(std::move(title)) {}

void HtmlPage::heading(std::string_view text) {
  body_ += fmt::format("<h2>{}</h2>\n", xml_escape(text));
}

void HtmlPage::paragraph(std::string_view text) {
  body_ += fmt::format("<p>{}</p>\n", xml_escape(text));
}

void HtmlPage::raw(std::string_view html) {
  body_ += html;
  body_ += '\n';
}

void HtmlPage::table(const std::vector<std::vector<std::string>>& rows) {
  body_ += "<table>";
  for (size_t r = 0; r < rows.size(); ++r) {
    body_ += "<tr>";
    for (const std::string& cell : rows[r])
      body_ += r == 0 ? "<th>" + xml_escape(cell) + "</th>" : "<td>" + xml_escape(cell) + "</td>";
    body_ += "</tr>";
  }
  body_ += "</table>\n";
}

std::string HtmlPage::str() const {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0}</title><style>{1}</style></head>\n"
      "<body><h1>{0}</h1>\n{2}</body></html>\n",
      xml_escape(title_), kStyle, body_);
}

}  // namespace chorus
