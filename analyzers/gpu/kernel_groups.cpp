// Kernels grouped by (kernel name, launching CPU op, the op's input types): the table the
// gpu_kernel and tensor_core facts read. Kernels are linked to their op by (rank, External id)
// or through their launch call (launch_ops.h) and summed in hash maps: one pass over the
// kernels, one over the CPU ops that launched any, instead of the join and long-name sort each
// fact query did on its own.
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
#include "store/bind.h"
#include "store/records.h"
#include "store/text_hash.h"

namespace perfsage::analyzers::gpu {
namespace {

struct Group {
  int64_t kernels = 0, dur_ns = 0, occ_weight = 0, bps_n = 0;
  double occ_ns = 0, bps_sum = 0;
  bool has_occ = false, has_bps = false;
};

struct Kernel {
  int name;
  std::optional<OpKey> op;
  int64_t dur_ns;
  std::optional<double> occupancy, blocks_per_sm;
};

}  // namespace

void compute_kernel_groups(store::Database& db, int64_t run) {
  db.prepare("DELETE FROM kernel_groups WHERE run_id=?1").bind(1, run).run();
  // The kernels first, each with the key of its launching op (its External id, or the op its
  // launch call nests in: launch_ops.h); kernel names repeat and are interned once.
  std::unordered_map<std::string, int, store::TextHash, std::equal_to<>> kernel_names;
  std::vector<const std::string*> kernel_name_of;
  std::vector<Kernel> kernels;
  std::unordered_set<OpKey, OpKeyHash> keys;
  {
    auto st = db.prepare(R"sql(
SELECT rank, external_id, name, dur_ns, occupancy, blocks_per_sm, correlation FROM device_events
WHERE run_id = ?1 AND kind = 'kernel')sql");
    st.bind(1, run);
    LaunchOps launches(db, run);
    while (st.step()) {
      std::string_view kname = st.text_view(2);
      auto kn = kernel_names.find(kname);
      if (kn == kernel_names.end()) {
        kn = kernel_names.emplace(std::string(kname), static_cast<int>(kernel_names.size())).first;
        kernel_name_of.push_back(&kn->first);
      }
      Kernel k{kn->second, std::nullopt, st.int64(3), std::nullopt, std::nullopt};
      if (!st.is_null(1)) {
        int64_t rank = st.int64(0);
        k.op = OpKey{rank, launches.op_id(rank, st.int64(1), st, 6)};
        keys.insert(*k.op);
      }
      if (!st.is_null(4)) k.occupancy = st.real(4);
      if (!st.is_null(5)) k.blocks_per_sm = st.real(5);
      kernels.push_back(k);
    }
  }
  // The CPU ops of those keys; several ops sharing one keep min() of name and types.
  LaunchingOps ops = load_launching_ops(db, run, keys);
  // (kernel name, op or none) -> sums.
  std::map<std::tuple<int, const LaunchingOp*>, Group> groups;
  for (const Kernel& k : kernels) {
    const LaunchingOp* op = nullptr;
    if (k.op) {
      auto it = ops.find(*k.op);
      if (it != ops.end()) op = &it->second;
    }
    Group& g = groups[{k.name, op}];
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
  // Ops with the same name and types are one group, whatever their External ids.
  std::map<std::tuple<int, std::string, std::string, bool, bool>, Group> merged;
  for (const auto& [key, g] : groups) {
    const LaunchingOp* op = std::get<1>(key);
    Group& m = merged[{std::get<0>(key), op ? op->name : "", op ? op->types.value_or("") : "",
                       op != nullptr, op && op->types.has_value()}];
    m.kernels += g.kernels;
    m.dur_ns += g.dur_ns;
    m.occ_ns += g.occ_ns;
    m.occ_weight += g.occ_weight;
    m.bps_sum += g.bps_sum;
    m.bps_n += g.bps_n;
    m.has_occ = m.has_occ || g.has_occ;
    m.has_bps = m.has_bps || g.has_bps;
  }
  auto ins = db.prepare("INSERT INTO kernel_groups VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)");
  for (const auto& [key, g] : merged) {
    const auto& [name_id, op, types, has_op, has_types] = key;
    store::insert(ins, run, *kernel_name_of[static_cast<size_t>(name_id)],
                  has_op ? store::OptText(op) : std::nullopt,
                  has_types ? store::OptText(types) : std::nullopt, g.kernels, g.dur_ns,
                  g.has_occ ? store::OptReal(g.occ_ns) : std::nullopt,
                  g.has_occ ? store::OptInt(g.occ_weight) : std::nullopt,
                  g.has_bps ? store::OptReal(g.bps_sum) : std::nullopt, g.bps_n);
  }
}

}  // namespace perfsage::analyzers::gpu
