// Writing a report file: plain text, or gzip-compressed when the file name ends in ".gz" (links.csv.gz,
// timeline.json.gz), so that large reports are compressed exactly when the user asks for it by name.
//
//   OutputFile out("links.csv.gz", Argument{"link_stats"});  // gzip
//   out.write("link,src,dst\n");
//   out.close();                                      // throws Error(path, field, ...) if anything failed
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "chorus/core/error.hpp"

namespace chorus {

// Whether `path` names a gzip file (ends in ".gz").
bool is_gzip_path(std::string_view path);

class OutputFile {
 public:
  // Throws chorus::Error(path, field, "cannot create ...") when the file cannot be opened.
  OutputFile(std::string path, Field field);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view text);
  // Flushes and closes; throws chorus::Error if a write failed (disk full, ...). The destructor closes silently.
  void close();

 private:
  struct Sink;
  std::string path_;
  Field field_;
  std::unique_ptr<Sink> sink_;
  bool failed_ = false;
};

// Writes all of `text` to `path` (gzip when the name says so).
void write_output_file(const std::string& path, const Field& field, std::string_view text);

}  // namespace chorus
