#include "collectors/graph/onnx_collector.h"

#include <fcntl.h>
#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "collectors/graph/onnx_records.h"
#include "perfsage/onnx/onnx.pb.h"
#include "store/file_bytes.h"

namespace perfsage::collectors::graph {
namespace {
namespace pb = google::protobuf;
namespace ox = ::perfsage::onnx;
using WireFormat = pb::internal::WireFormatLite;

bool has_onnx_extension(const std::filesystem::path& p) {
  std::string name = p.filename().string();
  auto ends = [&](std::string_view s) {
    return name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends(".onnx") || ends(".onnx.gz");
}

// Owns a file descriptor.
class Fd {
 public:
  explicit Fd(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

constexpr const char* kExpected = "expected a binary ONNX ModelProto";

// Parses from a zero-copy stream so the model is held in memory once (no file-sized buffer).
bool parse_stream(pb::io::ZeroCopyInputStream* in, ox::ModelProto* model, int64_t* offset) {
  pb::io::CodedInputStream coded(in);
  coded.SetTotalBytesLimit(INT_MAX);
  bool ok = model->MergeFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  *offset = coded.CurrentPosition();
  return ok;
}
}  // namespace

bool looks_like_onnx_head(std::string_view head) {
  pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(head.data()),
                              static_cast<int>(std::min<size_t>(head.size(), INT_MAX)));
  bool first = true;
  for (;;) {
    uint32_t tag = in.ReadTag();
    if (tag == 0) return !first;  // end of head (or a zero byte, which is no valid tag)
    int field = static_cast<int>(tag >> 3);
    auto wire = tag & 7;
    if (first) {
      uint64_t ir = 0;
      if (field != 1 || wire != WireFormat::WIRETYPE_VARINT || !in.ReadVarint64(&ir)) return false;
      if (ir < 1 || ir > 100) return false;
      first = false;
      continue;
    }
    switch (field) {
      case 5:  // model_version
        if (wire != WireFormat::WIRETYPE_VARINT) return false;
        if (uint64_t v; !in.ReadVarint64(&v)) return true;  // cut by the head's end
        break;
      case 2:
      case 3:
      case 4:
      case 6:
      case 7:
      case 8:
      case 14:
      case 20:
      case 25: {
        if (wire != WireFormat::WIRETYPE_LENGTH_DELIMITED) return false;
        uint32_t len = 0;
        if (!in.ReadVarint32(&len)) return true;
        if (len > static_cast<uint32_t>(INT_MAX)) return false;
        if (!in.Skip(static_cast<int>(len))) return true;  // a field longer than the head: fine
        break;
      }
      default:
        return false;
    }
  }
}

int OnnxCollector::detect(const FileProbe& probe) const {
  bool ext = has_onnx_extension(probe.path);
  bool head = looks_like_onnx_head(probe.head);
  if (ext && head) return 95;
  if (head && probe.head.size() >= 16) return 50;  // no extension: only with enough to go on
  if (ext) return 40;  // claim it anyway, to say clearly what is wrong with it
  return 0;
}

void OnnxCollector::collect(const FileProbe& probe, CollectContext& ctx) const {
  pb::Arena arena;
  auto* model = pb::Arena::CreateMessage<ox::ModelProto>(&arena);
  int64_t offset = 0;
  bool ok = false;
  if (probe.gzip) {
    std::string data = store::read_file(probe.path);  // inflated: one buffer, parsed in place
    if (data.empty()) ctx.fail("byte 0", std::string("empty file (") + kExpected + ")");
    pb::io::ArrayInputStream in(data.data(),
                                static_cast<int>(std::min<size_t>(data.size(), INT_MAX)));
    ok = parse_stream(&in, model, &offset);
  } else {
    Fd fd(probe.path.string());
    if (fd.get() < 0) ctx.fail("byte 0", std::string("cannot open: ") + std::strerror(errno));
    std::error_code ec;
    if (std::filesystem::file_size(probe.path, ec) == 0 && !ec) {
      ctx.fail("byte 0", std::string("empty file (") + kExpected + ")");
    }
    pb::io::FileInputStream in(fd.get(), 1 << 20);
    ok = parse_stream(&in, model, &offset);
    if (in.GetErrno() != 0) {
      ctx.fail("byte " + std::to_string(offset),
               std::string("read error: ") + std::strerror(in.GetErrno()));
    }
  }
  // A protobuf parse fails on one bad byte and cannot resync: no lenient partial read.
  if (!ok) {
    ctx.fail("byte " + std::to_string(offset),
             std::string("not a valid ONNX model: protobuf decoding failed at or before this "
                         "offset (") +
                 kExpected + ")");
  }
  if (!model->has_graph() || (model->graph().node_size() == 0 && !model->has_ir_version())) {
    ctx.fail("byte 0", std::string("no graph in this protobuf message (") + kExpected + ")");
  }
  emit_onnx_model(*model, ctx);
  if (ctx.hints().framework.empty()) ctx.hints().framework = "onnx";
}

}  // namespace perfsage::collectors::graph
