#include "app/job_identity.h"

#include "collectors/ingest.h"

namespace perfsage::app {

namespace fs = std::filesystem;

fs::path normal_input(const fs::path& input) {
  fs::path p = fs::absolute(input).lexically_normal();
  if (p.filename().empty() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  return p;
}

std::vector<fs::path> normal_inputs(const std::vector<fs::path>& inputs) {
  std::vector<fs::path> out;
  out.reserve(inputs.size());
  for (const auto& p : inputs) out.push_back(normal_input(p));
  return out;
}

std::string job_from_name(std::string name) {
  for (const char* ext : {".gz", ".json", ".csv", ".txt", ".onnx", ".pt.trace"}) {
    std::string e = ext;
    if (name.size() > e.size() && name.ends_with(e)) name.resize(name.size() - e.size());
  }
  return name;
}

std::string default_job(const std::vector<fs::path>& normal_inputs) {
  if (normal_inputs.empty()) return "";
  return job_from_name(normal_inputs.front().filename().string());
}

std::string input_fingerprint(const std::vector<fs::path>& inputs) {
  return collectors::fingerprint_inputs(collectors::expand_inputs(normal_inputs(inputs)));
}

}  // namespace perfsage::app
