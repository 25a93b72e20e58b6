// Report files, plain or gzip (see output_file.hpp).
#include "chorus/io/output_file.hpp"

#include <cstdio>

#include <fmt/format.h>
#include <zlib.h>

#include "chorus/core/error.hpp"

namespace chorus {

// Exactly one of the two handles is open.
struct OutputFile::Sink {
  std::FILE* plain = nullptr;
  gzFile gzip = nullptr;
};

bool is_gzip_path(std::string_view path) {
  return path.ends_with(".gz");
}

OutputFile::OutputFile(std::string path, Field field)
    : path_(std::move(path)), field_(std::move(field)), sink_(std::make_unique<Sink>()) {
  if (is_gzip_path(path_)) {
    sink_->gzip = gzopen(path_.c_str(), "wb6");
  } else {
    sink_->plain = std::fopen(path_.c_str(), "wb");
  }
  if (sink_->gzip == nullptr && sink_->plain == nullptr)
    throw Error(path_, field_, "cannot create the file");
}

OutputFile::~OutputFile() {
  if (sink_->plain != nullptr)
    std::fclose(sink_->plain);
  if (sink_->gzip != nullptr)
    gzclose(sink_->gzip);
}

void OutputFile::write(std::string_view text) {
  if (text.empty() || failed_)
    return;
  if (sink_->plain != nullptr) {
    failed_ = std::fwrite(text.data(), 1, text.size(), sink_->plain) != text.size();
    return;
  }
  // gzwrite takes an unsigned count: write in pieces well below its limit.
  constexpr size_t kPiece = size_t{1} << 30;
  for (size_t at = 0; at < text.size() && !failed_; at += kPiece) {
    const size_t n = std::min(kPiece, text.size() - at);
    failed_ = gzwrite(sink_->gzip, text.data() + at, static_cast<unsigned>(n)) != static_cast<int>(n);
  }
}

void OutputFile::close() {
  bool ok = !failed_;
  if (sink_->plain != nullptr) {
    ok = std::fclose(sink_->plain) == 0 && ok;
    sink_->plain = nullptr;
  }
  if (sink_->gzip != nullptr) {
    ok = gzclose(sink_->gzip) == Z_OK && ok;
    sink_->gzip = nullptr;
  }
  if (!ok)
    throw Error(path_, field_, "cannot write the file (disk full or not writable?)");
}

void write_output_file(const std::string& path, const Field& field, std::string_view text) {
  OutputFile out(path, field);
  out.write(text);
  out.close();
}

}  // namespace chorus
