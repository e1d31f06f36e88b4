// Kernels grouped by (kernel name, launching CPU op, the op's input types): the table the
// gpu_kernel and tensor_core facts read. Kernels are linked to their op by (rank, External id)
// and summed in hash maps: one pass over the kernels, one over the CPU ops that launched any,
// instead of the join and long-name sort each fact query did on its own.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzers/gpu/gpu_analysis.h"
#include "store/bind.h"
#include "store/records.h"
#include "store/text_hash.h"

namespace perfsage::analyzers::gpu {
namespace {

struct OpKey {
  int64_t rank, external_id;
  bool operator==(const OpKey&) const = default;
};
struct OpKeyHash {
  size_t operator()(const OpKey& k) const {
    return std::hash<int64_t>{}(k.external_id * 31 + k.rank);
  }
};
struct Op {
  std::string name, types;
  bool has_types = false;
};

struct Group {
  int64_t kernels = 0, dur_ns = 0, occ_weight = 0, bps_n = 0;
  double occ_ns = 0, bps_sum = 0;
  bool has_occ = false, has_bps = false;
};

}  // namespace

void compute_kernel_groups(store::Database& db, int64_t run) {
  db.prepare("DELETE FROM kernel_groups WHERE run_id=?1").bind(1, run).run();
  // The CPU op of each (rank, External id) that launched a kernel; min() of name and types when
  // several ops share an id, as SQL's grouping did.
  std::unordered_map<OpKey, Op, OpKeyHash> ops;
  {
    auto st = db.prepare(R"sql(
SELECT rank, external_id, name, input_types FROM host_events
WHERE run_id = ?1 AND kind = 'cpu_op'
  AND external_id IN (SELECT external_id FROM device_events WHERE run_id = ?1 AND kind = 'kernel'))sql");
    st.bind(1, run);
    while (st.step()) {
      OpKey key{st.int64(0), st.int64(1)};
      std::string_view name = st.text_view(2);
      auto [it, fresh] = ops.try_emplace(key);
      Op& op = it->second;
      if (fresh || name < op.name) op.name = std::string(name);
      if (!st.is_null(3)) {
        std::string_view types = st.text_view(3);
        if (!op.has_types || types < op.types) op.types = std::string(types);
        op.has_types = true;
      }
    }
  }
  // (kernel name, op name or none, op types or none) -> sums. Kernel names repeat: they are
  // interned once, and groups are keyed by pointers into the interned set.
  std::unordered_map<std::string, int, store::TextHash, std::equal_to<>> kernel_names;
  std::vector<const std::string*> kernel_name_of;
  std::map<std::tuple<int, const Op*>, Group> groups;
  {
    auto st = db.prepare(R"sql(
SELECT rank, external_id, name, dur_ns, occupancy, blocks_per_sm FROM device_events
WHERE run_id = ?1 AND kind = 'kernel')sql");
    st.bind(1, run);
    while (st.step()) {
      std::string_view kname = st.text_view(2);
      auto kn = kernel_names.find(kname);
      if (kn == kernel_names.end()) {
        kn = kernel_names.emplace(std::string(kname), static_cast<int>(kernel_names.size())).first;
        kernel_name_of.push_back(&kn->first);
      }
      const Op* op = nullptr;
      if (!st.is_null(1)) {
        auto it = ops.find(OpKey{st.int64(0), st.int64(1)});
        if (it != ops.end()) op = &it->second;
      }
      Group& g = groups[{kn->second, op}];
      int64_t dur = st.int64(3);
      ++g.kernels;
      g.dur_ns += dur;
      if (!st.is_null(4)) {
        g.occ_ns += st.real(4) * static_cast<double>(dur);
        g.occ_weight += dur;
        g.has_occ = true;
      }
      if (!st.is_null(5)) {
        g.bps_sum += st.real(5);
        ++g.bps_n;
        g.has_bps = true;
      }
    }
  }
  // Ops with the same name and types are one group, whatever their External ids.
  std::map<std::tuple<int, std::string, std::string, bool, bool>, Group> merged;
  for (const auto& [key, g] : groups) {
    const Op* op = std::get<1>(key);
    Group& m = merged[{std::get<0>(key), op ? op->name : "", op ? op->types : "", op != nullptr,
                       op && op->has_types}];
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
