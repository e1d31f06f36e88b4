// `perfsage compare` on real GPU and CPU traces against edited copies (issue 26 item 17): copies
// by copy kind and runtime calls, long kernel names shortened for display, a finding without a
// gain compared by its measure, unknown shares shown as unknown, the step sources named, and
// CPU-only runs without a device breakdown told so neutrally. The expected numbers are the
// sample's own (zcat the trace and count).
#include <zlib.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "cli_support.h"
#include "perfsage/v1/api.pb.h"

using namespace perfsage;
using namespace perfsage::test;
namespace fs = std::filesystem;
namespace v1 = perfsage::v1;

namespace {

const char* kAlexnet =
    "kineto/hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz";
// The sample's longest kernel name (about 5,000 characters of templated C++).
const char* kLongKernel = "distribution_elementwise_grid_stride_kernel<float, 4,";
const char* kCudnnKernel = "\"name\": \"cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1\"";

std::string gunzip(const fs::path& p) {
  gzFile f = gzopen(p.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return out;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int replace_all(std::string& text, const std::string& from, const std::string& to) {
  int n = 0;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
    ++n;
  }
  return n;
}

// Doubles the "dur" of every event whose name field is `name_field`.
int double_durations(std::string& text, const std::string& name_field) {
  int n = 0;
  for (size_t at = text.find(name_field); at != std::string::npos;
       at = text.find(name_field, at + 1)) {
    size_t dur = text.find("\"dur\": ", at);
    size_t next = text.find("\"ph\"", at);
    REQUIRE(dur < next);
    dur += 7;
    size_t end = text.find_first_of(",}\n", dur);
    long us = std::stol(text.substr(dur, end - dur));
    text.replace(dur, end - dur, std::to_string(2 * us));
    ++n;
  }
  return n;
}

// The AlexNet trace as recorded, and a second run of it where the 16 host-to-device copies are
// device-to-device copies, the cuDNN convolution kernel takes twice as long, and the longest
// kernel name has another template argument.
struct EditedPair {
  fs::path a, b;
};

EditedPair alexnet_pair(const TempDir& dir) {
  std::string trace = gunzip(samples_dir() / kAlexnet);
  EditedPair p{dir.path() / "a" / "alexnet.json", dir.path() / "b" / "alexnet.json"};
  fs::create_directories(p.a.parent_path());
  fs::create_directories(p.b.parent_path());
  std::ofstream(p.a, std::ios::binary) << trace;
  REQUIRE(replace_all(trace, "Memcpy HtoD (Pageable -> Device)",
                      "Memcpy DtoD (Device -> Device)") == 16);
  REQUIRE(double_durations(trace, kCudnnKernel) == 2);
  REQUIRE(replace_all(trace, kLongKernel, "distribution_elementwise_grid_stride_kernel<float, 8,") >
          0);
  std::ofstream(p.b, std::ios::binary) << trace;
  return p;
}

const v1::OpDelta* op(const v1::RunComparison& c, const std::string& kind,
                      const std::string& name) {
  for (const auto& d : c.ops()) {
    if (d.kind() == kind && d.name() == name) return &d;
  }
  return nullptr;
}

std::string notes(const v1::RunComparison& c) {
  std::string s;
  for (const auto& n : c.notes()) s += n + "\n";
  return s;
}

}  // namespace

TEST_CASE("compare: copies by kind, runtime calls and long kernel names on an edited GPU trace") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  auto pair = alexnet_pair(dir);
  std::string store = (dir.path() / "perf.db").string();
  auto r = run_command("compare", {pair.a.string(), pair.b.string(), "--store", store, "--format",
                                   "json", "--top", "30"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  auto c = parse_json<v1::RunComparison>(r.out);

  // Copies by copy kind: the 16 HtoD copies (244,403,360 bytes, 55.503 ms) are DtoD copies in B.
  auto* htod = op(c, "memcpy", "HtoD");
  REQUIRE(htod);
  CHECK(htod->change() == "disappeared");
  CHECK(htod->count_a() == 16);
  CHECK(htod->bytes_a() == 244403360);
  CHECK(htod->total_us_a() == Approx(55503.0));
  auto* dtod = op(c, "memcpy", "DtoD");
  REQUIRE(dtod);
  CHECK(dtod->change() == "appeared");
  CHECK(dtod->count_b() == 16);
  CHECK(dtod->bytes_b() == 244403360);
  CHECK_FALSE(op(c, "memcpy", "memset"));  // the 3 sets did not change

  // The cuDNN kernel's 2 launches (2.07 ms) take twice as long.
  auto* cudnn = op(c, "kernel", "cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1");
  REQUIRE(cudnn);
  CHECK(cudnn->change() == "changed");
  CHECK(cudnn->total_delta_us() == Approx(cudnn->total_us_a()));

  // The long kernel name: shown short, kept whole.
  const v1::OpDelta* long_kernel = nullptr;
  for (const auto& d : c.ops()) {
    if (d.kind() == "kernel" && d.name().size() > 1000) long_kernel = &d;
  }
  REQUIRE(long_kernel);
  CHECK(long_kernel->display_name().size() <= 100);
  CHECK_THAT(long_kernel->name(), Catch::Contains(long_kernel->display_name().substr(0, 40)));

  // Runtime calls are compared; an edit that changes no call leaves them out.
  for (const auto& d : c.ops()) CHECK(d.kind() != "runtime");

  // The library-kernel finding has no gain: its measure (the kernel's time) is compared.
  const v1::FindingChange* library = nullptr;
  for (const auto& f : c.findings()) {
    if (f.rule() == "library_kernel_choice") library = &f;
  }
  REQUIRE(library);
  CHECK_FALSE(library->gain_known_a());
  CHECK(library->change() == "changed");
  CHECK_THAT(library->detail(), Catch::Contains("total_us"));
  bool doubled = false;
  for (const auto& m : library->measures()) {
    if (m.name() == "total_us") doubled = m.b() == Approx(2 * m.a());
  }
  CHECK(doubled);

  // The trace has no ProfilerStep spans: no step time, a breakdown over the whole profile.
  CHECK(c.step_source_a().empty());
  CHECK_THAT(notes(c), Catch::Contains("has no recorded steps: its breakdown (gpu_breakdown)"));

  SECTION("text and HTML show the copies, the short name, the full name as a title") {
    auto a = std::to_string(c.a().id()), b = std::to_string(c.b().id());
    auto text = run_command("compare", {a, b, "--store", store, "--top", "30"});
    REQUIRE(text.code == 0);
    CHECK_THAT(text.out, Catch::Contains("GPU copies and sets (by copy kind)"));
    CHECK_THAT(text.out, Catch::Contains("x16, 233.1 MiB"));
    CHECK_THAT(text.out, Catch::Contains(long_kernel->display_name()));
    CHECK_THAT(text.out, !Catch::Contains(long_kernel->name()));
    CHECK_THAT(text.out, Catch::Contains("total_us 2.07 ms -> 4.14 ms"));
    auto html_path = dir.path() / "compare.html";
    auto html = run_command("compare", {a, b, "--store", store, "--top", "30", "--format", "html",
                                        "-o", html_path.string()});
    REQUIRE(html.code == 0);
    std::string page = read(html_path);
    CHECK_THAT(page, Catch::Contains("<td>memcpy</td><td>DtoD</td>"));
    CHECK_THAT(page, Catch::Contains("16 (233.1 MiB)"));
    CHECK_THAT(page, Catch::Contains("<td title=\"void at::native::"));
    // Shares of a finding without a gain are unknown, not 0.0 %.
    CHECK_THAT(page, Catch::Contains("<td class=\"num\">—</td>"));
  }
}

TEST_CASE("compare: runtime calls that changed are listed, ranked by the size of the change") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  auto pair = alexnet_pair(dir);
  // B synchronises its stream where A did not: the 16 cudaStreamSynchronize calls are
  // cudaDeviceSynchronize calls there (now 5 + 16 = 21).
  std::string trace = read(pair.b);
  REQUIRE(replace_all(trace, "\"name\": \"cudaStreamSynchronize\"",
                      "\"name\": \"cudaDeviceSynchronize\"") == 16);
  std::ofstream(pair.b, std::ios::binary) << trace;
  auto r = run_command("compare", {pair.a.string(), pair.b.string(), "--store",
                                   (dir.path() / "perf.db").string(), "--format", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  auto c = parse_json<v1::RunComparison>(r.out);
  auto* stream_sync = op(c, "runtime", "cudaStreamSynchronize");
  REQUIRE(stream_sync);
  CHECK(stream_sync->change() == "disappeared");
  CHECK(stream_sync->count_a() == 16);
  auto* device_sync = op(c, "runtime", "cudaDeviceSynchronize");
  REQUIRE(device_sync);
  CHECK(device_sync->count_a() == 5);
  CHECK(device_sync->count_b() == 21);
  // Ranked by the size of the time change, within the kind.
  double last = 1e300;
  for (const auto& d : c.ops()) {
    if (d.kind() != "runtime") continue;
    CHECK(std::abs(d.total_delta_us()) <= last);
    last = std::abs(d.total_delta_us());
  }
}

TEST_CASE("compare: CPU-only runs have no device breakdown, said neutrally; no ProfilerStep op") {
  TempDir dir;
  // The torch 1.13 CPU trace records ProfilerStep#1..#4 as CPU ops; the copy has one op renamed.
  fs::path a = source_dir() / "tests/fixtures/torch113/mlp_cpu_trace.json.gz";
  std::string trace = gunzip(a);
  REQUIRE(replace_all(trace, "\"name\": \"aten::gelu\"", "\"name\": \"aten::silu\"") > 0);
  fs::path b = dir.path() / "b" / "mlp_cpu_trace.json";
  fs::create_directories(b.parent_path());
  std::ofstream(b, std::ios::binary) << trace;
  std::string store = (dir.path() / "perf.db").string();
  auto r = run_command("compare", {a.string(), b.string(), "--store", store, "--format", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  auto c = parse_json<v1::RunComparison>(r.out);
  CHECK(c.notes_size() == 0);  // same device, both with steps: nothing to caution
  REQUIRE(c.breakdown_size() == 1);
  CHECK(c.breakdown(0).absent_a() == "no device breakdown (CPU-only run)");
  CHECK(c.breakdown(0).absent_b() == "no device breakdown (CPU-only run)");
  CHECK(c.step_source_a() == "ProfilerStep");
  bool silu = false;
  for (const auto& d : c.ops()) {
    CHECK_THAT(d.name(), !Catch::StartsWith("ProfilerStep#"));
    if (d.kind() == "cpu_op" && d.name() == "aten::silu") silu = d.change() == "appeared";
  }
  CHECK(silu);
  auto html_path = dir.path() / "compare.html";
  auto html =
      run_command("compare", {std::to_string(c.a().id()), std::to_string(c.b().id()), "--store",
                              store, "--format", "html", "-o", html_path.string()});
  REQUIRE(html.code == 0);
  std::string page = read(html_path);
  CHECK_THAT(page, !Catch::Contains("class=\"error"));
  CHECK_THAT(page, Catch::Contains("no device breakdown (CPU-only run)"));
  CHECK_THAT(page, Catch::Contains("one rank's mean step, from ProfilerStep steps"));
}
