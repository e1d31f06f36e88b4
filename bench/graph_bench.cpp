// Benchmarks the graph collectors on scaled-up inputs.
//
//   graph_bench ge [MB] [dump]   replicate the subgraphs of a real GE Build dump (default: the
//                                shared sample ge_proto_00000001_Build.txt) to about MB megabytes
//                                of text, then time a parse-only pass and a full ingest.
//   graph_bench onnx [MB]        build an ONNX model with about MB megabytes of initializers and
//                                time its ingest (shows the model is held in memory once).
// Prints wall time, throughput and peak RSS (getrusage). Never run as a test.
#include <google/protobuf/arena.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "collectors/graph/ge_text_blocks.h"
#include "collectors/graph/ge_text_parse.h"
#include "collectors/ingest.h"
#include "ge/ge_ir.pb.h"
#include "perfsage/onnx/onnx.pb.h"
#include "store/database.h"
#include "store/file_bytes.h"

namespace fs = std::filesystem;
using namespace perfsage;

namespace {

// prefix + number, built by appending: GCC 12 at -O3 warns (falsely, -Wrestrict) on
// "literal" + std::to_string(n).
std::string numbered(const char* prefix, int n) {
  return std::string(prefix).append(std::to_string(n));
}
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
// CPU seconds of this process: the honest figure on a shared, loaded machine.
double cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}
double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;
}
void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) {
    s.replace(pos, from.size(), to);
  }
}

// Copies every graph block (renaming graphs, ops and references so the copies stay distinct
// and consistent) until the text reaches `target` bytes; model attrs once at the end.
std::string scale_dump(const std::string& text, size_t target) {
  std::vector<std::string> graphs, tail;
  for (const auto& b : collectors::graph::split_top_level(text)) {
    std::string block = text.substr(b.begin, b.end - b.begin);
    (block.find("graph") < block.find('{') ? graphs : tail).push_back(block);
  }
  std::string out;
  out.reserve(target + text.size());
  for (int k = 0; out.size() < target; ++k) {
    std::string prefix = numbered("c", k) + "_";
    for (std::string g : graphs) {
      replace_all(g, "name: \"", "name: \"" + prefix);
      replace_all(g, "input: \"", "input: \"" + prefix);
      replace_all(g, "input: \"" + prefix + "\"", "input: \"\"");
      replace_all(g, "subgraph_name: \"", "subgraph_name: \"" + prefix);
      out += g;
    }
  }
  for (const auto& t : tail) out += t;
  return out;
}

// Times one step in a fresh process, so its peak RSS is that step's alone.
void run_child(const char* step, const fs::path& file) {
  std::fflush(stdout);
  std::string cmd =
      fs::read_symlink("/proc/self/exe").string() + " " + step + " '" + file.string() + "'";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error(std::string(step) + " failed");
}

// Parses with the collector's parser, sequentially and with the threads it would use.
int parse_ge(const fs::path& file) {
  std::string text = store::read_file(file);
  double size_mb = text.size() / 1e6;
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned threads : {1u, hw}) {
    double t0 = now_s(), c0 = cpu_s();
    google::protobuf::Arena arena;
    std::vector<const ge::proto::ModelDef*> parts;
    auto r = collectors::graph::parse_model_parallel(text, threads, arena, parts);
    double t = now_s() - t0, c = cpu_s() - c0;
    size_t graphs = 0, ops = 0;
    for (const auto* p : parts) {
      graphs += p->graph_size();
      for (const auto& g : p->graph()) ops += g.op_size();
    }
    std::printf(
        "  parse only, %u thread(s): %s, %zu graphs, %zu ops, %.2f s wall, %.2f s CPU, "
        "%.1f MB/s wall\n",
        threads, r.ok ? "ok" : "FAILED", graphs, ops, t, c, size_mb / t);
    if (!r.ok) return 1;
  }
  std::printf("  peak RSS of the parse-only process: %.0f MB\n", peak_rss_mb());
  return 0;
}

int ingest(const fs::path& file) {
  double size_mb = fs::file_size(file) / 1e6;
  fs::path dbfile = file.parent_path() / "bench.db";
  store::Database db(dbfile.string());
  double t0 = now_s(), c0 = cpu_s();
  store::RunWriter w(db, {"bench", {file.string()}, "fp", "now"});
  auto res = collectors::ingest(collectors::expand_inputs({file}), w, collectors::Mode::strict);
  w.commit();
  double t = now_s() - t0, c = cpu_s() - c0;
  std::printf(
      "  ingest into a SQLite file: %lld records, %.2f s wall, %.2f s CPU, %.1f MB/s per "
      "CPU second, peak RSS %.0f MB (%.2fx the input)\n",
      static_cast<long long>(res.files[0].records), t, c, size_mb / c, peak_rss_mb(),
      peak_rss_mb() / size_mb);
  return 0;
}

int bench_ge(double mb, fs::path dump) {
  std::string sample = store::read_file(dump);
  std::string text = scale_dump(sample, static_cast<size_t>(mb * 1e6));
  fs::path dir = fs::temp_directory_path() / ("perfsage-graph-bench-" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::path file = dir / "ge_proto_00000001_Build.txt";
  std::ofstream(file, std::ios::binary) << text;
  double size_mb = text.size() / 1e6;
  std::printf("GE dump: %.1f MB of text (%zu copies of %s)\n", size_mb,
              text.size() / std::max<size_t>(sample.size(), 1), dump.filename().c_str());

  std::string().swap(text);
  std::string().swap(sample);
  run_child("parse-ge", file);
  run_child("ingest", file);
  fs::remove_all(dir);
  return 0;
}

int bench_onnx(double mb) {
  namespace ox = perfsage::onnx;
  ox::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("big");
  auto* in = g->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(ox::TensorProto::FLOAT);
  const int64_t dim = 256;  // 256x256 float weights: 256 KiB per layer
  int layers = std::max(1, static_cast<int>(mb * 1e6 / (dim * dim * 4)));
  std::string prev = "x";
  for (int i = 0; i < layers; ++i) {
    auto* w = g->add_initializer();
    w->set_name(numbered("w", i));
    w->set_data_type(ox::TensorProto::FLOAT);
    w->add_dims(dim);
    w->add_dims(dim);
    w->set_raw_data(std::string(dim * dim * 4, static_cast<char>(i)));
    auto* n = g->add_node();
    n->set_op_type("MatMul");
    n->set_name(numbered("mm", i));
    n->add_input(prev);
    n->add_input(w->name());
    prev = numbered("h", i);
    n->add_output(prev);
  }
  g->add_output()->set_name(prev);
  fs::path dir = fs::temp_directory_path() / ("perfsage-onnx-bench-" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::path file = dir / "big.onnx";
  {
    std::ofstream out(file, std::ios::binary);
    m.SerializeToOstream(&out);
  }
  m.Clear();
  std::printf("ONNX model: %.1f MB, %d MatMul layers\n", fs::file_size(file) / 1e6, layers);
  run_child("ingest", file);
  fs::remove_all(dir);
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "ge";
  double mb = argc > 2 && (mode == "ge" || mode == "onnx") ? std::stod(argv[2]) : 100;
  try {
    if (mode == "ge") {
      fs::path dump = argc > 3 ? fs::path(argv[3])
                               : fs::path(PERFSAGE_SAMPLES_DIR) / "ascend/oam-tools" /
                                     "ge_proto_00000001_Build.txt";
      return bench_ge(mb, dump);
    }
    if (mode == "onnx") return bench_onnx(mb);
    if (mode == "parse-ge" && argc > 2) return parse_ge(argv[2]);
    if (mode == "ingest" && argc > 2) return ingest(argv[2]);
    std::cerr << "usage: graph_bench ge|onnx [MB] [dump]\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "graph_bench: " << e.what() << "\n";
    return 1;
  }
}
