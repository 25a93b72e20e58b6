// libFuzzer harness: the Chakra trace reader (chakra/trace.hpp) through its gzip path: the fuzz bytes
// are the decompressed trace, gzipped here, so mutations reach the protobuf decoding behind the inflater.
#include <zlib.h>

#include <vector>

#include "chorus/chakra/trace.hpp"
#include "fuzz/fuzz_input.hpp"

namespace {

std::vector<uint8_t> gzip(const uint8_t* data, size_t size) {
  z_stream z{};
  constexpr int kGzipWindow = 15 + 16;  // 16: a gzip header and trailer instead of zlib's
  if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, kGzipWindow, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    std::abort();
  std::vector<uint8_t> out(deflateBound(&z, static_cast<uLong>(size)));
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END)
    std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static chorus::fuzz::ScratchFile scratch("trace.0.et.gz");
  const std::vector<uint8_t> compressed = gzip(data, size);
  const std::string& path = scratch.write(compressed.data(), compressed.size());
  chorus::fuzz::read_accepting_errors([&] { (void)chorus::chakra::read_chakra_trace(path); });
  return 0;
}
