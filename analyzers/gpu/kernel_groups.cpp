// Kernels grouped by (kernel name, launching CPU op, the op's input types): the table the
// gpu_kernel and tensor_core facts read. Kernels are linked to their op by (rank, External id)
// or through their launch call (launch_ops.h) and summed in hash maps: one pass over the
// kernels, one over the CPU ops that launched any, instead of the join and long-name sort each
// fact query did on its own.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "analyzers/core/launch_ops.h"
#include "analyzers/gpu/gpu_analysis.h"
#include "analyzers/gpu/tables.h"
#include "store/bind.h"
#include "store/block_scan.h"
#include "store/records.h"
#include "store/text_hash.h"

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

struct Kernel {
  int name;
  std::optional<OpKey> op;
  int64_t dur_ns;
  std::optional<double> occupancy, blocks_per_sm;
};

// kernel_totals in name order: the order SQL's GROUP BY name gave the kernel fact when it
// grouped the launches itself (ties of its ORDER BY keep it).
void write_kernel_totals(store::Database& db, int64_t run,
                         const std::vector<const std::string*>& names,
                         const std::vector<NameTotal>& totals) {
  std::vector<size_t> order(names.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return *names[a] < *names[b]; });
  store::RowInserter insert(db, tables::kernel_totals());
  for (size_t i : order) {
    const NameTotal& t = totals[i];
    insert.insert(run, *names[i], t.kernels, t.dur_ns, t.max_ns, t.tiny, t.occ_sum, t.occ_n,
                  t.registers);
  }
}

}  // namespace

void compute_kernel_groups(store::Database& db, int64_t run, const LaunchTotals& launches) {
  db.prepare("DELETE FROM kernel_groups WHERE run_id=?1").bind(1, run).run();
  db.prepare("DELETE FROM kernel_totals WHERE run_id=?1").bind(1, run).run();
  db.prepare("DELETE FROM gpu_launch_profile WHERE run_id=?1").bind(1, run).run();
  // The kernels first, each with the key of its launching op (its External id, or the op its
  // launch call nests in: launch_ops.h); kernel names repeat and are interned once.
  std::unordered_map<std::string, int, store::TextHash, std::equal_to<>> kernel_names;
  std::vector<const std::string*> kernel_name_of;
  std::vector<Kernel> kernels;
  std::vector<NameTotal> totals;  // per interned kernel name, for kernel_totals
  std::unordered_set<OpKey, OpKeyHash> keys;
  {
    const auto& schema = store::device_event_schema();
    auto col = [&](const char* name) { return store::column_index(schema, name); };
    const int c_rank = col("rank"), c_ext = col("external_id"), c_name = col("name"),
              c_dur = col("dur_ns"), c_occ = col("occupancy"), c_bps = col("blocks_per_sm"),
              c_corr = col("correlation"), c_regs = col("registers");
    store::BlockScan scan(db, schema, run, std::string("kernel"),
                          {"rank", "external_id", "name", "dur_ns", "occupancy", "blocks_per_sm",
                           "correlation", "registers"});
    LaunchOps launches(db, run);
    while (scan.next()) {
      auto& b = scan.block();
      for (size_t r = 0; r < b.rows(); ++r) {
        std::string_view kname = b.text_at(c_name, r);
        auto kn = kernel_names.find(kname);
        if (kn == kernel_names.end()) {
          kn =
              kernel_names.emplace(std::string(kname), static_cast<int>(kernel_names.size())).first;
          kernel_name_of.push_back(&kn->first);
          totals.emplace_back();
        }
        Kernel k{kn->second, std::nullopt, b.int_at(c_dur, r), std::nullopt, std::nullopt};
        NameTotal& t = totals[static_cast<size_t>(kn->second)];
        t.max_ns = t.kernels == 0 ? k.dur_ns : std::max(t.max_ns, k.dur_ns);
        ++t.kernels;
        t.dur_ns += k.dur_ns;
        if (k.dur_ns < kTinyNs) ++t.tiny;
        if (!b.is_null(c_occ, r)) {
          t.occ_sum += b.real_at(c_occ, r);
          ++t.occ_n;
        }
        if (!b.is_null(c_regs, r))
          t.registers = std::max(t.registers.value_or(b.int_at(c_regs, r)), b.int_at(c_regs, r));
        if (!b.is_null(c_ext, r)) {
          int64_t rank = b.int_at(c_rank, r);
          std::optional<int64_t> corr;
          if (!b.is_null(c_corr, r)) corr = b.int_at(c_corr, r);
          k.op = OpKey{rank, launches.op_id(rank, b.int_at(c_ext, r), corr)};
          keys.insert(*k.op);
        }
        if (!b.is_null(c_occ, r)) k.occupancy = b.real_at(c_occ, r);
        if (!b.is_null(c_bps, r)) k.blocks_per_sm = b.real_at(c_bps, r);
        kernels.push_back(k);
      }
    }
  }
  write_kernel_totals(db, run, kernel_name_of, totals);
  if (!kernels.empty()) {
    // The launch profile: counts, the median launch (SQL's ORDER BY dur_ns OFFSET n / 2) and
    // the busy time with the copies.
    std::vector<int64_t> durs;
    durs.reserve(kernels.size());
    int64_t tiny = 0, kernel_ns = 0;
    for (const Kernel& k : kernels) {
      durs.push_back(k.dur_ns);
      tiny += k.dur_ns < kTinyNs ? 1 : 0;
      kernel_ns += k.dur_ns;
    }
    auto mid = durs.begin() + static_cast<std::ptrdiff_t>(durs.size() / 2);
    std::nth_element(durs.begin(), mid, durs.end());
    store::RowInserter(db, tables::launch_profile())
        .insert(run, static_cast<int64_t>(kernels.size()), tiny, *mid, kernel_ns + launches.copy_ns,
                launches.launch_api_ns);
  }
  // The CPU ops of those keys; several ops sharing one keep min() of name and types.
  LaunchingOps ops = load_launching_ops(db, run, keys);
  // Ops with the same name and types are one group, whatever their External ids. Each op is
  // given its group's id first, so that every group sums its kernels in scan order: summed
  // per op and then merged in the order of the ops' addresses, the occupancy's last bits
  // changed from one run to the next.
  using OpGroupKey = std::tuple<std::string, std::string, bool, bool>;  // name, types, has_*
  std::map<OpGroupKey, int> op_group_ids;
  std::unordered_map<const LaunchingOp*, int> op_group_of;
  auto op_group = [&](const LaunchingOp* op) {
    auto [at, fresh] = op_group_of.try_emplace(op, 0);
    if (fresh) {
      OpGroupKey key{op ? op->name : "", op ? op->types.value_or("") : "", op != nullptr,
                     op && op->types.has_value()};
      at->second = op_group_ids.try_emplace(key, static_cast<int>(op_group_ids.size()))
                       .first->second;
    }
    return at->second;
  };
  // (kernel name, op group) -> sums.
  std::map<std::pair<int, int>, Group> groups;
  for (const Kernel& k : kernels) {
    const LaunchingOp* op = nullptr;
    if (k.op) {
      auto it = ops.find(*k.op);
      if (it != ops.end()) op = &it->second;
    }
    Group& g = groups[{k.name, op_group(op)}];
    ++g.kernels;
    g.dur_ns += k.dur_ns;
    if (k.occupancy) {
      g.occ_ns += *k.occupancy * static_cast<double>(k.dur_ns);
      g.occ_weight += k.dur_ns;
      g.has_occ = true;
    }
    if (k.blocks_per_sm) {
      g.bps_sum += *k.blocks_per_sm;
      ++g.bps_n;
      g.has_bps = true;
    }
  }
  std::vector<const OpGroupKey*> op_group_key(op_group_ids.size());
  for (const auto& [key, id] : op_group_ids) op_group_key[static_cast<size_t>(id)] = &key;
  // Written by kernel name, then op name and types.
  std::map<std::tuple<int, std::string, std::string, bool, bool>, Group> merged;
  for (const auto& [key, g] : groups) {
    const auto& [op, types, has_op, has_types] = *op_group_key[static_cast<size_t>(key.second)];
    merged.emplace(std::tuple{key.first, op, types, has_op, has_types}, g);
  }
  store::RowInserter ins(db, tables::kernel_groups());
  for (const auto& [key, g] : merged) {
    const auto& [name_id, op, types, has_op, has_types] = key;
    ins.insert(run, *kernel_name_of[static_cast<size_t>(name_id)],
               has_op ? store::OptText(op) : std::nullopt,
               has_types ? store::OptText(types) : std::nullopt, g.kernels, g.dur_ns,
               g.has_occ ? store::OptReal(g.occ_ns) : std::nullopt,
               g.has_occ ? store::OptInt(g.occ_weight) : std::nullopt,
               g.has_bps ? store::OptReal(g.bps_sum) : std::nullopt, g.bps_n);
  }
}

}  // namespace perfsage::analyzers::gpu
