// Kernels grouped by (kernel name, launching CPU op, the op's input types): the table the
// gpu_kernel and tensor_core facts read; per kernel name: kernel_totals; the launch profile.
// Read from the launch pass (core/launch_pass.h: kernels linked to their op by (rank, External
// id) or through their launch call) and summed in hash maps, instead of the join and long-name
// sort each fact query did on its own.
#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzers/core/launch_pass.h"
#include "analyzers/gpu/gpu_analysis.h"
#include "analyzers/gpu/tables.h"
#include "store/bind.h"
#include "store/records.h"

namespace perfsage::analyzers::gpu {
namespace {

struct Group {
  int64_t kernels = 0, dur_ns = 0, occ_weight = 0, bps_n = 0;
  double occ_ns = 0, bps_sum = 0;
  bool has_occ = false, has_bps = false;
};

// Launches shorter than this are tiny (the kernel and launch facts' < 10 us).
constexpr int64_t kTinyNs = 10'000;

// One kernel name's launches, as the kernel fact reads them (kernel_totals).
struct NameTotal {
  int64_t kernels = 0, dur_ns = 0, max_ns = 0, tiny = 0, occ_n = 0;
  double occ_sum = 0;  // in launch order, as SQL's avg() sums
  std::optional<int64_t> registers;
};

// kernel_totals of one rank in name order: the order SQL's GROUP BY name gave the kernel fact
// when it grouped the launches itself (ties of its ORDER BY keep it).
void write_kernel_totals(store::RowInserter& insert, int64_t run, int64_t rank,
                         const std::vector<const std::string*>& names,
                         const std::vector<NameTotal>& totals) {
  std::vector<size_t> order;
  for (size_t i = 0; i < totals.size(); ++i)
    if (totals[i].kernels > 0) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return *names[a] < *names[b]; });
  for (size_t i : order) {
    const NameTotal& t = totals[i];
    insert.insert(run, rank, *names[i], t.kernels, t.dur_ns, t.max_ns, t.tiny, t.occ_sum, t.occ_n,
                  t.registers);
  }
}

// One rank's kernels: per-name totals and the durations for its launch profile.
struct RankKernels {
  std::vector<NameTotal> totals;  // by kernel name id
  std::vector<int64_t> durs;
  int64_t tiny = 0, kernel_ns = 0;
};

}  // namespace

// Every table here is per rank, and a rank's rows are computed from its own kernels alone and
// written in an order that does not depend on the other ranks: a cluster run's tables are then
// the union of its ranks' tables, whichever process analysed each rank (docs/scale-out.md).
void compute_kernel_groups(store::Database& db, int64_t run, const LaunchTotals& launches,
                           const LaunchPass& pass) {
  db.prepare("DELETE FROM kernel_groups WHERE run_id=?1").bind(1, run).run();
  db.prepare("DELETE FROM kernel_totals WHERE run_id=?1").bind(1, run).run();
  db.prepare("DELETE FROM gpu_launch_profile WHERE run_id=?1").bind(1, run).run();
  std::vector<const std::string*> kernel_name_of(pass.kernel_names.size());
  for (size_t i = 0; i < kernel_name_of.size(); ++i)
    kernel_name_of[i] = &pass.kernel_names.text(static_cast<uint32_t>(i));
  std::map<int64_t, RankKernels> ranks;
  RankKernels* current = nullptr;  // kernels come in long runs of one rank
  int64_t current_rank = 0;
  for (const LaunchPass::Kernel& k : pass.kernels) {
    if (!current || k.rank != current_rank) {
      current = &ranks[k.rank];
      current_rank = k.rank;
      if (current->totals.empty()) current->totals.resize(kernel_name_of.size());
    }
    NameTotal& t = current->totals[k.name];
    t.max_ns = t.kernels == 0 ? k.dur_ns : std::max(t.max_ns, k.dur_ns);
    ++t.kernels;
    t.dur_ns += k.dur_ns;
    if (k.dur_ns < kTinyNs) ++t.tiny;
    if (k.has_occupancy) {
      t.occ_sum += k.occupancy;
      ++t.occ_n;
    }
    if (k.has_registers) t.registers = std::max(t.registers.value_or(k.registers), k.registers);
    current->durs.push_back(k.dur_ns);
    current->tiny += k.dur_ns < kTinyNs ? 1 : 0;
    current->kernel_ns += k.dur_ns;
  }
  {
    store::RowInserter insert(db, tables::kernel_totals());
    for (const auto& [rank, rk] : ranks)
      write_kernel_totals(insert, run, rank, kernel_name_of, rk.totals);
  }
  // The launch profile of each rank with kernels, copies or launch calls: counts, the median
  // launch (SQL's ORDER BY dur_ns OFFSET n / 2) and the busy time with the copies.
  std::set<int64_t> profiled;
  for (const auto& [rank, _] : ranks) profiled.insert(rank);
  for (const auto& [rank, _] : launches.copy_ns) profiled.insert(rank);
  for (const auto& [rank, _] : launches.launch_api_ns) profiled.insert(rank);
  {
    store::RowInserter insert(db, tables::launch_profile());
    for (int64_t rank : profiled) {
      auto rk = ranks.find(rank);
      std::optional<int64_t> median;
      int64_t kernels = 0, tiny = 0, kernel_ns = 0;
      if (rk != ranks.end()) {
        std::vector<int64_t>& durs = rk->second.durs;
        auto mid = durs.begin() + static_cast<std::ptrdiff_t>(durs.size() / 2);
        std::nth_element(durs.begin(), mid, durs.end());
        median = *mid;
        kernels = static_cast<int64_t>(durs.size());
        tiny = rk->second.tiny;
        kernel_ns = rk->second.kernel_ns;
      }
      auto copies = launches.copy_ns.find(rank);
      auto api = launches.launch_api_ns.find(rank);
      insert.insert(
          run, rank, kernels, tiny, median,
          kernel_ns + (copies == launches.copy_ns.end() ? 0 : copies->second),
          api == launches.launch_api_ns.end() ? std::nullopt : store::OptInt(api->second));
    }
  }
  // Ops with the same name and types are one group, whatever their External ids. Each op is
  // given its group's id first, so that every group sums its kernels in scan order: summed
  // per op and then merged in the order of the ops' addresses, the occupancy's last bits
  // changed from one run to the next.
  using OpGroupKey = std::tuple<std::string, std::string, bool, bool>;  // name, types, has_*
  std::map<OpGroupKey, int> op_group_ids;
  std::unordered_map<const LaunchPass::Instance*, int> op_group_of;
  auto op_group = [&](const LaunchPass::Instance* op) {
    auto [at, fresh] = op_group_of.try_emplace(op, 0);
    if (fresh) {
      bool has_types = op && op->types != LaunchPass::kNone;
      OpGroupKey key{op ? pass.op_texts.text(op->name) : "",
                     has_types ? pass.op_texts.text(op->types) : "", op != nullptr, has_types};
      at->second =
          op_group_ids.try_emplace(key, static_cast<int>(op_group_ids.size())).first->second;
    }
    return at->second;
  };
  // (rank, kernel name, op group) -> sums.
  std::map<std::tuple<int64_t, int, int>, Group> groups;
  for (const LaunchPass::Kernel& k : pass.kernels) {
    const LaunchPass::Instance* op = k.instance && k.instance->has_op ? k.instance : nullptr;
    Group& g = groups[{k.rank, static_cast<int>(k.name), op_group(op)}];
    ++g.kernels;
    g.dur_ns += k.dur_ns;
    if (k.has_occupancy) {
      g.occ_ns += k.occupancy * static_cast<double>(k.dur_ns);
      g.occ_weight += k.dur_ns;
      g.has_occ = true;
    }
    if (k.has_blocks_per_sm) {
      g.bps_sum += k.blocks_per_sm;
      ++g.bps_n;
      g.has_bps = true;
    }
  }
  std::vector<const OpGroupKey*> op_group_key(op_group_ids.size());
  for (const auto& [key, id] : op_group_ids) op_group_key[static_cast<size_t>(id)] = &key;
  // Written by rank, then kernel name, op name and types.
  std::map<std::tuple<int64_t, std::string_view, std::string, std::string, bool, bool>, Group>
      merged;
  for (const auto& [key, g] : groups) {
    const auto& [rank, name_id, op_group_id] = key;
    const auto& [op, types, has_op, has_types] = *op_group_key[static_cast<size_t>(op_group_id)];
    merged.emplace(std::tuple{rank, std::string_view(*kernel_name_of[static_cast<size_t>(name_id)]),
                              op, types, has_op, has_types},
                   g);
  }
  store::RowInserter ins(db, tables::kernel_groups());
  for (const auto& [key, g] : merged) {
    const auto& [rank, name, op, types, has_op, has_types] = key;
    ins.insert(run, rank, std::string(name), has_op ? store::OptText(op) : std::nullopt,
               has_types ? store::OptText(types) : std::nullopt, g.kernels, g.dur_ns,
               g.has_occ ? store::OptReal(g.occ_ns) : std::nullopt,
               g.has_occ ? store::OptInt(g.occ_weight) : std::nullopt,
               g.has_bps ? store::OptReal(g.bps_sum) : std::nullopt, g.bps_n);
  }
}

}  // namespace perfsage::analyzers::gpu
