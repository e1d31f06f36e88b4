// Collective type per NCCL/RCCL kernel and rank (docs/gpu-definitions.md, "Collectives"): the
// type from Kineto's "Collective name" argument when the kernel carries one, else from the kernel
// name (ncclKernel_AllReduce_RING_LL_Sum_float, ncclDevKernel_SendRecv, ...). NCCL implements
// all-to-all with grouped send/receive, so an all-to-all shows as SendRecv kernels unless the
// argument names it. Message sizes are summed where the kernel's arguments carry them.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "analyzers/gpu/device_spans.h"
#include "analyzers/gpu/gpu_analysis.h"
#include "analyzers/gpu/tables.h"
#include "store/bind.h"

namespace perfsage::analyzers::gpu {
namespace {

// Lower-case letters and digits only: "_allgather_base", "AllGather" and "all_gather" agree.
std::string fold(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c >= 'A' && c <= 'Z')
      out += static_cast<char>(c + 32);
    else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
      out += c;
  }
  return out;
}

// The value of a string argument "key": "value" in a kernel's args JSON, empty when absent.
std::string_view string_arg(std::string_view args, std::string_view key) {
  auto k = args.find(key);
  if (k == std::string_view::npos) return {};
  auto colon = args.find(':', k + key.size());
  if (colon == std::string_view::npos) return {};
  auto open = args.find('"', colon);
  if (open == std::string_view::npos) return {};
  auto close = args.find('"', open + 1);
  if (close == std::string_view::npos) return {};
  return args.substr(open + 1, close - open - 1);
}

// A numeric argument "key": 123, or nullopt.
std::optional<double> number_arg(std::string_view args, std::string_view key) {
  auto k = args.find(key);
  if (k == std::string_view::npos) return std::nullopt;
  auto colon = args.find(':', k + key.size());
  if (colon == std::string_view::npos) return std::nullopt;
  size_t i = colon + 1;
  while (i < args.size() && (args[i] == ' ' || args[i] == '"')) ++i;
  size_t j = i;
  while (j < args.size() && ((args[j] >= '0' && args[j] <= '9') || args[j] == '.')) ++j;
  if (j == i) return std::nullopt;
  return std::stod(std::string(args.substr(i, j - i)));
}

double dtype_bytes(std::string_view dtype) {
  std::string d = fold(dtype);
  if (d.find("64") != std::string::npos || d == "double") return 8;
  if (d.find("16") != std::string::npos || d == "half") return 2;
  if (d.find("8") != std::string::npos || d == "byte" || d == "char" || d == "bool") return 1;
  return 4;
}

}  // namespace

std::string collective_type(std::string_view name, std::string_view args) {
  std::string arg = fold(string_arg(args, "\"Collective name\""));
  std::string n = arg.empty() ? fold(name) : arg;
  // Longer names first: all-reduce contains reduce, send/recv contain send and recv.
  struct Kind {
    const char* needle;
    const char* type;
  };
  static constexpr Kind kKinds[] = {
      {"alltoall", "AllToAll"},   {"allreduce", "AllReduce"}, {"reducescatter", "ReduceScatter"},
      {"allgather", "AllGather"}, {"sendrecv", "SendRecv"},   {"broadcast", "Broadcast"},
      {"bcast", "Broadcast"},     {"reduce", "Reduce"},       {"send", "Send"},
      {"recv", "Recv"},           {"gather", "Gather"},       {"scatter", "Scatter"},
      {"barrier", "Barrier"}};
  for (const auto& k : kKinds)
    if (n.find(k.needle) != std::string::npos) return k.type;
  return "Other";
}

void compute_collectives(store::Database& db, int64_t run) {
  db.prepare("DELETE FROM gpu_collectives WHERE run_id=?1").bind(1, run).run();
  struct Total {
    int64_t kernels = 0, dur = 0, sized = 0;
    double bytes = 0;
  };
  std::map<std::pair<int64_t, std::string>, Total> totals;
  CollectiveSpans spans;  // for the alignment across ranks, from the same pass
  // Per rank and kernel name, for the run fact (gpu_comm_kernels).
  std::map<std::pair<int64_t, std::string>, std::pair<int64_t, int64_t>, std::less<>> by_name;
  for_each_comm_kernel(db, run, [&](const CommKernel& k) {
    auto& named = by_name[{k.rank, std::string(k.name)}];
    ++named.first;
    named.second += k.dur;
    std::string type = collective_type(k.name, k.args);
    spans[type][k.rank].emplace_back(k.start, k.start + k.dur);
    Total& t = totals[{k.rank, std::move(type)}];
    ++t.kernels;
    t.dur += k.dur;
    if (auto n = number_arg(k.args, "\"In msg nelems\"")) {
      t.bytes += *n * dtype_bytes(string_arg(k.args, "\"dtype\""));
      ++t.sized;
    }
  });
  store::RowInserter insert(db, tables::collectives());
  for (const auto& [key, t] : totals)
    insert.insert(run, key.first, key.second, t.kernels, t.dur,
                  t.sized > 0 ? std::optional<double>(t.bytes) : std::nullopt);
  db.prepare("DELETE FROM gpu_comm_kernels WHERE run_id=?1").bind(1, run).run();
  store::RowInserter insert_named(db, tables::comm_kernels());
  for (const auto& [key, t] : by_name)
    insert_named.insert(run, key.first, key.second, t.first, t.second);
  write_collective_spans(db, run, spans);
  write_collective_alignment(db, run, spans);
}

void write_collective_spans(store::Database& db, int64_t run, const CollectiveSpans& by_type) {
  db.prepare("DELETE FROM gpu_collective_spans WHERE run_id=?1").bind(1, run).run();
  std::vector<std::tuple<int64_t, const std::string*, int64_t, int64_t>> rows;
  for (const auto& [type, ranks] : by_type)
    for (const auto& [rank, spans] : ranks)
      for (const auto& [start, end] : spans) rows.emplace_back(rank, &type, start, end);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), *std::get<1>(a), std::get<2>(a), std::get<3>(a)) <
           std::tie(std::get<0>(b), *std::get<1>(b), std::get<2>(b), std::get<3>(b));
  });
  store::RowInserter insert(db, tables::collective_spans());
  for (const auto& [rank, type, start, end] : rows) insert.insert(run, rank, *type, start, end);
}

void align_collectives_of_ranks(store::Database& db, int64_t run) {
  CollectiveSpans spans;
  auto st = db.prepare(
      "SELECT type, rank, start_ns, end_ns FROM gpu_collective_spans WHERE run_id = ?1 ORDER BY "
      "rowid");
  st.bind(1, run);
  while (st.step()) spans[st.text(0)][st.int64(1)].emplace_back(st.int64(2), st.int64(3));
  write_collective_alignment(db, run, spans);
}

}  // namespace perfsage::analyzers::gpu
