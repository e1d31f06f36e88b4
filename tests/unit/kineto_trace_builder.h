// Builds small Kineto traces for GPU advice tests: steps, CPU ops, runtime calls and the GPU
// activities they enqueue, linked by correlation id as PyTorch's profiler writes them. Times in
// µs. The traces are made to differ from real ones only where a test says so (a sync moved past
// the last step, a deep queue, a V100 or an MI250 device, SendRecv instead of all-reduce).
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace perfsage::test {

class KinetoTraceBuilder {
 public:
  // deviceProperties: name, compute capability, SMs (CUs on AMD), memory in GiB.
  KinetoTraceBuilder& device(const std::string& name, int major, int minor, int sms,
                             double mem_gib) {
    device_ = R"({"id": 0, "name": ")" + name + R"(", "computeMajor": )" + std::to_string(major) +
              R"(, "computeMinor": )" + std::to_string(minor) + R"(, "numSms": )" +
              std::to_string(sms) + R"(, "totalGlobalMem": )" +
              std::to_string(static_cast<int64_t>(mem_gib * 1024 * 1024 * 1024)) + "}";
    return *this;
  }
  KinetoTraceBuilder& distributed(int rank, int world_size) {
    distributed_ = R"({"backend": "nccl", "rank": )" + std::to_string(rank) +
                   R"(, "world_size": )" + std::to_string(world_size) + "}";
    return *this;
  }
  void step(int n, double ts, double dur) {
    host("user_annotation", "ProfilerStep#" + std::to_string(n), ts, dur, "");
  }
  // A CPU op (cat cpu_op) on the main thread; `args` is extra JSON members without braces.
  void op(const std::string& name, double ts, double dur, const std::string& args = "") {
    host("cpu_op", name, ts, dur, args);
  }
  // A runtime call at `ts` that enqueues a GPU activity of `cat` (kernel, gpu_memcpy,
  // gpu_memset) on `stream`, starting at `gpu_ts`. Returns the correlation id.
  int64_t launch(const std::string& call, double ts, double call_dur, const std::string& cat,
                 const std::string& name, double gpu_ts, double gpu_dur, int stream = 7,
                 const std::string& gpu_args = "") {
    int64_t corr = next_corr_++;
    runtime(call, ts, call_dur, corr);
    gpu(cat, name, gpu_ts, gpu_dur, stream, corr, gpu_args);
    return corr;
  }
  void runtime(const std::string& call, double ts, double dur, int64_t corr = -1) {
    std::string args = corr >= 0 ? R"("correlation": )" + std::to_string(corr) : "";
    host("cuda_runtime", call, ts, dur, args);
  }
  void gpu(const std::string& cat, const std::string& name, double ts, double dur, int stream,
           int64_t corr, const std::string& args = "") {
    std::ostringstream o;
    o << R"({"ph": "X", "cat": ")" << cat << R"(", "name": ")" << name
      << R"(", "pid": 0, "tid": )" << stream << R"(, "ts": )" << ts << R"(, "dur": )" << dur
      << R"(, "args": {"device": 0, "stream": )" << stream << R"(, "correlation": )" << corr
      << (args.empty() ? "" : ", " + args) << "}}";
    events_.push_back(o.str());
  }
  int64_t next_correlation() { return next_corr_++; }

  std::string json() const {
    std::ostringstream o;
    o << R"({"schemaVersion": 1)";
    if (!distributed_.empty()) o << R"(, "distributedInfo": )" << distributed_;
    if (!device_.empty()) o << R"(, "deviceProperties": [)" << device_ << "]";
    o << R"(, "traceEvents": [)";
    for (size_t i = 0; i < events_.size(); ++i) o << (i ? ",\n" : "\n") << events_[i];
    o << "\n]}\n";
    return o.str();
  }

 private:
  void host(const std::string& cat, const std::string& name, double ts, double dur,
            const std::string& args) {
    std::ostringstream o;
    o << R"({"ph": "X", "cat": ")" << cat << R"(", "name": ")" << name
      << R"(", "pid": 1, "tid": 1, "ts": )" << ts << R"(, "dur": )" << dur << R"(, "args": {)"
      << args << "}}";
    events_.push_back(o.str());
  }

  std::vector<std::string> events_;
  std::string device_ = R"({"id": 0, "name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8, "computeMinor": 0, "numSms": 108, "totalGlobalMem": 85899345920})";
  std::string distributed_;
  int64_t next_corr_ = 1;
};

}  // namespace perfsage::test
