// Kineto / PyTorch profiler traces (collectors/kineto), plain and gzip, strict and lenient.
#include <zlib.h>

#include "fuzz_support.h"

namespace {
std::string gzip(std::string_view text) {
  std::string out(compressBound(static_cast<uLong>(text.size())) + 32, '\0');
  z_stream z{};
  if (deflateInit2(&z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [choice, text] = perfsage::fuzz::split(data, size);
  auto mode = choice & 1 ? perfsage::collectors::Mode::lenient : perfsage::collectors::Mode::strict;
  if (choice & 2) {
    // The gzip path: the fuzzer's text, compressed here (fuzzing compressed bytes directly
    // would mostly exercise zlib's checksum).
    perfsage::fuzz::ingest_as("run/worker0.pt.trace.json.gz", gzip(text), mode);
  } else {
    perfsage::fuzz::ingest_as("run/worker0.pt.trace.json", text, mode);
  }
  return 0;
}
