#include "analyzers/core/op_groups.h"

#include <algorithm>
#include <functional>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "store/block_scan.h"
#include "store/text_hash.h"

namespace perfsage::analyzers {
namespace {

// `s` equals `lower` (lower case) with ASCII letters folded, as SQL's lower(s) = 'lower'.
bool equals_folded(std::string_view s, std::string_view lower) {
  if (s.size() != lower.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

// Longest total first, ties by name, type and core type.
bool longer(const OpGroup& a, const OpGroup& b) {
  if (a.sum_ns != b.sum_ns) return a.sum_ns > b.sum_ns;
  return std::tie(a.name, a.type, a.core_type) < std::tie(b.name, b.type, b.core_type);
}

}  // namespace

std::vector<OpGroup> group_op_tasks(store::Database& db, int64_t run_id,
                                    std::vector<BlockDimGroup>* block_dims) {
  const store::EventSchema& schema = store::op_task_schema();
  auto col = [&](std::string_view name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_name = col("name"), c_type = col("type"),
            c_core = col("core_type"), c_dur = col("dur_ns"), c_block = col("block_dim"),
            c_state = col("op_state");
  const int c_sums[4] = {col("cube_fops"), col("vector_fops"), col("read_bytes"),
                         col("write_bytes")};
  const int c_ratio[kPipes] = {col("mac_ratio"),    col("vec_ratio"),  col("scalar_ratio"),
                               col("mte1_ratio"),   col("mte2_ratio"), col("mte3_ratio"),
                               col("fixpipe_ratio")};
  std::vector<OpGroup> groups;
  std::unordered_map<std::string, size_t, store::TextHash, std::equal_to<>> index;
  std::string key;
  // Column by column over each block (store/block_scan.h): a million rows through the virtual
  // table cost a second of per-cell SQL values.
  store::BlockScan scan(
      db, schema, run_id, std::nullopt,
      {"rank", "name", "type", "core_type", "dur_ns", "block_dim", "cube_fops", "vector_fops",
       "read_bytes", "write_bytes", "mac_ratio", "vec_ratio", "scalar_ratio", "mte1_ratio",
       "mte2_ratio", "mte3_ratio", "fixpipe_ratio", "op_state"});
  std::vector<size_t> group_of;
  // Block-dim groups: per op group its (rank, core type, name) (types may differ under one),
  // per such triple its block dims and their group in `block_dims`, added in row order.
  std::vector<size_t> triple_of;
  std::unordered_map<std::string, size_t, store::TextHash, std::equal_to<>> triples;
  std::vector<std::vector<std::pair<int64_t, size_t>>> dims_of;
  while (scan.next()) {
    store::EventBlockReader& b = scan.block();
    const size_t rows = b.rows();
    group_of.resize(rows);
    for (size_t r = 0; r < rows; ++r) {
      std::string_view name = b.text_at(c_name, r), type = b.text_at(c_type, r),
                       core = b.text_at(c_core, r);
      const int64_t rank = b.int_at(c_rank, r);
      key.assign(reinterpret_cast<const char*>(&rank), sizeof rank);
      key.append(name).append(1, '\0').append(type).append(1, '\0').append(core);
      auto it = index.find(key);
      if (it == index.end()) {
        it = index.emplace(key, groups.size()).first;
        OpGroup g;
        g.rank = rank;
        g.name = name;
        g.type = type;
        g.core_type = core;
        groups.push_back(std::move(g));
        if (block_dims) {
          key.assign(reinterpret_cast<const char*>(&rank), sizeof rank);
          key.append(core).append(1, '\0').append(name);
          auto [t, added] = triples.emplace(key, dims_of.size());
          if (added) dims_of.emplace_back();
          triple_of.push_back(t->second);
        }
      }
      group_of[r] = it->second;
      OpGroup& g = groups[it->second];
      g.latest_rowid = std::max(g.latest_rowid, scan.rowid(r));
      int64_t dur = b.int_at(c_dur, r);
      ++g.count;
      g.sum_ns += dur;
      g.min_ns = std::min(g.min_ns, dur);
      g.max_ns = std::max(g.max_ns, dur);
    }
    // Nullable columns one at a time: most are entirely null in a given table.
    auto each_value = [&](int c, auto&& add) {
      if (b.all_null(c)) return;
      for (size_t r = 0; r < rows; ++r)
        if (!b.is_null(c, r)) add(groups[group_of[r]], r);
    };
    each_value(c_block, [&](OpGroup& g, size_t r) {
      int64_t v = b.int_at(c_block, r);
      g.block_dim = std::max(g.block_dim.value_or(v), v);
      if (!block_dims || v <= 0) return;
      auto& dims = dims_of[triple_of[group_of[r]]];
      auto d = std::find_if(dims.begin(), dims.end(), [&](const auto& e) { return e.first == v; });
      if (d == dims.end()) {
        d = dims.insert(dims.end(), {v, block_dims->size()});
        block_dims->push_back({g.rank, g.core_type, g.name, v, 0, 0});
      }
      BlockDimGroup& bd = (*block_dims)[d->second];
      ++bd.tasks;
      bd.dur_ns += b.int_at(c_dur, r);
    });
    NullableSum OpGroup::*sums[4] = {&OpGroup::cube_fops, &OpGroup::vector_fops,
                                     &OpGroup::read_bytes, &OpGroup::write_bytes};
    for (int k = 0; k < 4; ++k)
      each_value(c_sums[k],
                 [&](OpGroup& g, size_t r) { (g.*sums[k]).add(b.real_at(c_sums[k], r)); });
    for (int p = 0; p < kPipes; ++p)
      each_value(c_ratio[p],
                 [&](OpGroup& g, size_t r) { g.ratio[p].add(b.real_at(c_ratio[p], r)); });
    each_value(c_state, [&](OpGroup& g, size_t r) {
      std::string_view state = b.text_at(c_state, r);
      if (state.empty()) return;
      ++g.state_tasks;
      g.state_ns += b.int_at(c_dur, r);
      g.dynamic = g.dynamic || equals_folded(state, "dynamic");
      g.is_static = g.is_static || equals_folded(state, "static");
    });
  }
  std::sort(groups.begin(), groups.end(), [](const OpGroup& a, const OpGroup& b) {
    if (a.rank != b.rank) return a.rank < b.rank;
    return longer(a, b);
  });
  // Each rank's block-dim groups in their order of first appearance (the tasks of a rank keep
  // their order whatever the other ranks hold).
  if (block_dims)
    std::stable_sort(
        block_dims->begin(), block_dims->end(),
        [](const BlockDimGroup& a, const BlockDimGroup& b) { return a.rank < b.rank; });
  return groups;
}

std::vector<OpGroup> merge_ranks(const std::vector<OpGroup>& ranks) {
  std::vector<OpGroup> merged;
  std::unordered_map<std::string, size_t, store::TextHash, std::equal_to<>> index;
  std::string key;
  for (const OpGroup& r : ranks) {
    key.assign(r.name).append(1, '\0').append(r.type).append(1, '\0').append(r.core_type);
    auto [it, added] = index.emplace(key, merged.size());
    if (added) {
      merged.push_back(r);  // the first (lowest) rank's group, texts and all
      continue;
    }
    OpGroup& g = merged[it->second];
    g.rank = std::min(g.rank, r.rank);
    g.count += r.count;
    g.sum_ns += r.sum_ns;
    g.min_ns = std::min(g.min_ns, r.min_ns);
    g.max_ns = std::max(g.max_ns, r.max_ns);
    if (r.block_dim) g.block_dim = std::max(g.block_dim.value_or(*r.block_dim), *r.block_dim);
    for (auto [to, from] : {std::pair{&g.cube_fops, &r.cube_fops},
                            {&g.vector_fops, &r.vector_fops},
                            {&g.read_bytes, &r.read_bytes},
                            {&g.write_bytes, &r.write_bytes}}) {
      to->sum += from->sum;
      to->n += from->n;
    }
    for (int p = 0; p < kPipes; ++p) {
      g.ratio[p].sum += r.ratio[p].sum;
      g.ratio[p].n += r.ratio[p].n;
    }
    g.state_tasks += r.state_tasks;
    g.state_ns += r.state_ns;
    g.dynamic = g.dynamic || r.dynamic;
    g.is_static = g.is_static || r.is_static;
  }
  std::stable_sort(merged.begin(), merged.end(), longer);
  return merged;
}

void fill_latest_texts(store::Database& db, std::vector<OpGroup>& groups) {
  if (groups.empty()) return;
  // One statement for all groups, in rowid order: the op_tasks cursor keeps the block it read
  // last, so each block is decoded once however many groups end in it.
  std::vector<std::pair<int64_t, OpGroup*>> by_rowid;
  by_rowid.reserve(groups.size());
  for (auto& g : groups) by_rowid.emplace_back(g.latest_rowid, &g);
  std::sort(by_rowid.begin(), by_rowid.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string ids = "[";
  for (const auto& [rowid, _] : by_rowid) {
    if (ids.size() > 1) ids += ',';
    ids += std::to_string(rowid);
  }
  ids += ']';
  auto st = db.prepare(
      "SELECT l.rowid, l.input_shapes, l.input_dtypes, l.input_formats, l.output_shapes, "
      "l.output_dtypes, l.output_formats, l.op_state "
      "FROM json_each(?1) AS j CROSS JOIN op_tasks AS l ON l.rowid = j.value ORDER BY j.key");
  st.bind(1, ids);
  auto text = [&](int col) {
    return st.is_null(col) ? std::nullopt : std::optional<std::string>(st.text(col));
  };
  size_t i = 0;
  while (st.step()) {
    int64_t rowid = st.int64(0);
    while (i < by_rowid.size() && by_rowid[i].first < rowid) ++i;
    // Groups never share a task, but be exact about it: fill every group ending at this row.
    for (size_t k = i; k < by_rowid.size() && by_rowid[k].first == rowid; ++k) {
      OpGroup& g = *by_rowid[k].second;
      g.input_shapes = text(1);
      g.input_dtypes = text(2);
      g.input_formats = text(3);
      g.output_shapes = text(4);
      g.output_dtypes = text(5);
      g.output_formats = text(6);
      g.op_state = text(7);
    }
  }
}

}  // namespace perfsage::analyzers
