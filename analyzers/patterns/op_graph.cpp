#include "analyzers/patterns/op_graph.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "analyzers/core/stream_sort.h"
#include "store/block_scan.h"
#include "store/json_text.h"
#include "store/text_hash.h"

namespace perfsage::analyzers::patterns {
namespace {

std::string first_item(const std::string& list) {
  auto end = list.find(';');
  std::string f = list.substr(0, end);
  f.erase(0, f.find_first_not_of(" \t"));
  f.erase(f.find_last_not_of(" \t") + 1);
  if (f.rfind("FORMAT_", 0) == 0) f = f.substr(7);
  return f;
}

// Inputs beyond this index are not tracked per index (no op the analyzers inspect has more).
constexpr int64_t kMaxInputs = 64;

std::string& at(std::vector<std::string>& v, int64_t i) {
  if (v.size() <= static_cast<size_t>(i)) v.resize(static_cast<size_t>(i) + 1);
  return v[static_cast<size_t>(i)];
}

// Kahn's order; nodes on cycles (should not happen in a graph) keep their insertion order
// after the sorted ones.
void assign_topological_order(OpGraph& g) {
  std::vector<size_t> indeg(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) indeg[i] = g.pred[i].size();
  std::vector<size_t> ready;
  for (size_t i = g.nodes.size(); i-- > 0;)
    if (indeg[i] == 0) ready.push_back(i);
  std::vector<bool> done(g.nodes.size());
  size_t pos = 0;
  while (!ready.empty()) {
    size_t n = ready.back();
    ready.pop_back();
    done[n] = true;
    g.nodes[n].order = pos++;
    for (size_t s : g.succ[n])
      if (--indeg[s] == 0) ready.push_back(s);
  }
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!done[i]) g.nodes[i].order = pos++;
}

// Runtime tasks that are not model ops and would break chains on a stream.
bool runtime_task(const std::string& type) {
  return type.rfind("atomic_memset", 0) == 0 || type == "MemSet" || type == "MEMCPY_ASYNC" ||
         type == "EVENT_RECORD" || type == "EVENT_WAIT";
}

}  // namespace

size_t OpGraph::add_node(OpNode n) {
  size_t i = nodes.size();
  by_type[n.type].push_back(i);
  nodes.push_back(std::move(n));
  succ.emplace_back();
  pred.emplace_back();
  return i;
}

void OpGraph::add_edge(size_t from, size_t to) {
  if (from == to) return;
  auto& s = succ[from];
  if (std::find(s.begin(), s.end(), to) != s.end()) return;
  s.push_back(to);
  pred[to].push_back(from);
}

std::string format_family(const std::string& format) {
  static const std::map<std::string, std::string> families = {
      {"NCHW", "4D"},          {"NHWC", "4D"},      {"HWCN", "4D"},         {"CHWN", "4D"},
      {"NC1HWC0", "5HD"},      {"NHWC1C0", "5HD"},  {"NDC1HWC0", "5HD"},    {"NC1HWC0_C04", "5HD"},
      {"FRACTAL_NZ", "NZ"},    {"FRACTAL_Z", "NZ"}, {"FRACTAL_Z_3D", "NZ"}, {"FRACTAL_ZN", "NZ"},
      {"FRACTAL_Z_C04", "NZ"}, {"ND", "ND"},        {"NCL", "ND"}};
  auto it = families.find(format);
  return it == families.end() ? "" : it->second;
}

namespace {

OpTimes op_stats_times(store::Database& db, int64_t run_id, std::optional<int64_t> rank);

// The op times of the run's tasks, or of one rank's.
OpTimes op_times(store::Database& db, int64_t run_id, std::optional<int64_t> rank) {
  OpTimes out;
  // Summed per name over the blocks (store/block_scan.h): SQL's GROUP BY would sort every task.
  const auto& schema = store::op_task_schema();
  const int c_name = store::column_index(schema, "name"),
            c_dur = store::column_index(schema, "dur_ns"),
            c_rank = store::column_index(schema, "rank");
  std::unordered_map<std::string, std::pair<int64_t, int64_t>, store::TextHash, std::equal_to<>>
      sums;  // name -> (ns, tasks)
  store::BlockScan scan(db, schema, run_id, std::nullopt, {"rank", "name", "dur_ns"});
  while (scan.next()) {
    auto& b = scan.block();
    for (size_t r = 0; r < b.rows(); ++r) {
      if (rank && b.int_at(c_rank, r) != *rank) continue;
      std::string_view name = b.text_at(c_name, r);
      auto it = sums.find(name);
      if (it == sums.end())
        it = sums.emplace(std::string(name), std::pair<int64_t, int64_t>{}).first;
      it->second.first += b.int_at(c_dur, r);
      ++it->second.second;
    }
  }
  for (auto& [name, v] : sums) out[name] = {static_cast<double>(v.first) / 1000.0, v.second};
  if (out.empty()) out = op_stats_times(db, run_id, rank);
  return out;
}

// The op times from op_stats: ranks without an op table (their timeline's tasks).
OpTimes op_stats_times(store::Database& db, int64_t run_id, std::optional<int64_t> rank) {
  OpTimes out;
  auto stats = db.prepare(
      "SELECT name, sum(total_us), sum(count) FROM op_stats WHERE run_id=?1 AND (?2 IS NULL OR "
      "rank = ?2) GROUP BY name");
  stats.bind(1, run_id);
  if (rank) stats.bind(2, *rank);
  while (stats.step()) out[stats.text(0)] = {stats.real(1), stats.int64(2)};
  return out;
}

}  // namespace

OpTimes load_op_times(store::Database& db, int64_t run_id) {
  return op_times(db, run_id, std::nullopt);
}

OpTimes load_op_times(store::Database& db, int64_t run_id, int64_t rank) {
  return op_times(db, run_id, rank);
}

OpTimes load_op_times(store::Database& db, int64_t run_id, int64_t rank, const OpTaskPass& tasks) {
  // Summed per name in row order, each name put in `sums` where op_times first meets it, so
  // that the map (and the order the patterns analyzer adds its times in) is op_times' own.
  std::unordered_map<std::string, std::pair<int64_t, int64_t>, store::TextHash, std::equal_to<>>
      sums;  // name -> (ns, tasks)
  std::vector<std::pair<int64_t, int64_t>*> by_id(tasks.texts.size(), nullptr);
  for (const OpTaskPass::Task& t : tasks.tasks) {
    if (t.rank != rank) continue;
    auto*& sum = by_id[t.name];
    if (sum == nullptr) sum = &sums.try_emplace(tasks.texts.text(t.name)).first->second;
    sum->first += t.dur_ns;
    ++sum->second;
  }
  OpTimes out;
  for (auto& [name, v] : sums) out[name] = {static_cast<double>(v.first) / 1000.0, v.second};
  if (out.empty()) out = op_stats_times(db, run_id, rank);
  return out;
}

std::vector<OpGraph> graphs_from_store(store::Database& db, int64_t run_id) {
  std::map<std::string, OpGraph> graphs;
  std::map<std::pair<std::string, std::string>, size_t> index;
  // Dumps of several stages repeat nodes: the first (graph, name) wins, fusion marks merge.
  auto nodes = db.prepare(
      "SELECT graph, name, type, max(coalesce(pass_name, '')), group_concat(original_ops, "
      "char(31)), max(coalesce(fusion_scope, -1)), max(coalesce(attrs, '')), "
      "max(coalesce(source, '')) FROM graph_nodes WHERE run_id=?1 "
      "GROUP BY graph, name ORDER BY min(rowid)");
  nodes.bind(1, run_id);
  while (nodes.step()) {
    OpNode n;
    n.name = nodes.text(1);
    n.type = nodes.text(2);
    if (!nodes.is_null(4)) {
      std::string all = nodes.text(4);
      std::set<std::string> names;
      size_t pos = 0;
      while (pos <= all.size()) {
        size_t end = all.find('\x1f', pos);
        if (end == std::string::npos) end = all.size();
        for (auto& o : store::parse_json_string_array(std::string_view(all).substr(pos, end - pos)))
          names.insert(std::move(o));
        pos = end + 1;
      }
      n.originals.assign(names.begin(), names.end());
    }
    n.pass = nodes.text(3);
    n.fusion_scope = nodes.int64(5);
    n.attrs = nodes.text(6);
    std::string graph = nodes.text(0);
    auto& g = graphs[graph];
    g.source = "graph";
    g.graph = graph;
    g.format = nodes.text(7).rfind("ge", 0) == 0 ? "ge" : "onnx";
    std::string name = n.name;  // add_node moves n; the assignment evaluates it first
    index[{graph, name}] = g.add_node(std::move(n));
  }
  if (graphs.empty()) return {};

  auto edges = db.prepare(
      "SELECT graph, src, dst, dst_index FROM graph_edges WHERE run_id=?1 AND control=0 "
      "ORDER BY rowid");
  edges.bind(1, run_id);
  while (edges.step()) {
    std::string graph = edges.text(0);
    auto a = index.find({graph, edges.text(1)});
    auto b = index.find({graph, edges.text(2)});
    if (b == index.end() || !graphs.count(graph)) continue;
    if (!edges.is_null(3) && edges.int64(3) >= 0 && edges.int64(3) < kMaxInputs)
      at(graphs[graph].nodes[b->second].in_src, edges.int64(3)) = edges.text(1);
    if (a == index.end()) {  // a graph input or a constant (ONNX initializer) read by name
      graphs[graph].nodes[b->second].value_inputs.push_back(edges.text(1));
      continue;
    }
    graphs[graph].add_edge(a->second, b->second);
  }

  // Tensors: formats and element types of the first input and output, output bytes, and the
  // types of graph inputs and initializers (by name).
  auto tensors = db.prepare(
      "SELECT graph, node, direction, format, dtype, bytes, name, idx, shape FROM tensors "
      "WHERE run_id=?1 ORDER BY idx DESC");
  tensors.bind(1, run_id);
  std::map<std::string, std::set<std::string>> graph_outputs;          // graph -> names
  std::map<std::pair<std::string, std::string>, size_t> output_names;  // (graph, tensor) -> node
  while (tensors.step()) {
    auto git = graphs.find(tensors.text(0));
    if (git == graphs.end()) continue;
    std::string dir = tensors.text(2);
    if (dir == "graph_input" || dir == "initializer") {
      if (!tensors.is_null(4)) git->second.value_dtypes[tensors.text(6)] = tensors.text(4);
      if (dir == "initializer") git->second.initializers.insert(tensors.text(6));
      continue;
    }
    if (dir == "graph_output") {
      if (!tensors.is_null(6)) graph_outputs[tensors.text(0)].insert(tensors.text(6));
      continue;
    }
    auto it = index.find({tensors.text(0), tensors.text(1)});
    if (it == index.end()) continue;
    auto& n = git->second.nodes[it->second];
    bool in = dir == "input";
    const int64_t idx = tensors.int64(7);
    std::string shape = tensors.is_null(8) ? "" : tensors.text(8);
    if (in && idx >= 0 && idx < kMaxInputs) {
      at(n.in_shapes, idx) = shape;
      if (!tensors.is_null(3)) at(n.in_formats, idx) = first_item(tensors.text(3));
    } else if (!in && idx == 0) {
      n.out_shape = shape;
      if (!tensors.is_null(6)) output_names[{tensors.text(0), tensors.text(6)}] = it->second;
    }
    if (!tensors.is_null(3)) (in ? n.in_format : n.out_format) = first_item(tensors.text(3));
    if (!tensors.is_null(4)) (in ? n.in_dtype : n.out_dtype) = first_item(tensors.text(4));
    if (in) {
      ++n.inputs;
    } else {
      n.out_bytes = n.outputs++ == 0 ? 0 : n.out_bytes;
      if (tensors.is_null(5) || n.out_bytes < 0)
        n.out_bytes = -1;
      else
        n.out_bytes += tensors.int64(5);
    }
  }

  for (const auto& [key, node] : output_names) {
    auto it = graph_outputs.find(key.first);
    if (it != graph_outputs.end() && it->second.count(key.second))
      graphs[key.first].nodes[node].graph_output = true;
  }

  // Profiled ops: through graph_op_matches when the graph analyzer filled it, else by name.
  OpTimes times = load_op_times(db, run_id);
  auto matches = db.prepare(
      "SELECT graph, node, op_name FROM graph_op_matches WHERE run_id=?1 ORDER BY rowid");
  matches.bind(1, run_id);
  bool any_match = false;
  while (matches.step()) {
    auto it = index.find({matches.text(0), matches.text(1)});
    if (it == index.end()) continue;
    graphs[matches.text(0)].nodes[it->second].ops.push_back(matches.text(2));
    any_match = true;
  }
  if (!any_match)
    for (auto& [name, g] : graphs)
      for (auto& n : g.nodes)
        if (times.count(n.name)) n.ops.push_back(n.name);

  std::vector<OpGraph> out;
  for (auto& [name, g] : graphs) {
    assign_topological_order(g);
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<OpGraph> sequences_from_tasks(const OpTaskPass& pass) {
  std::vector<OpGraph> out;
  // The timed tasks as compact rows over interned texts, sorted per stream by start in C++:
  // SQL's ORDER BY would sort every task with its texts.
  struct Task {
    int64_t rank, device, stream, start, rowid;
    uint32_t name, type, in_format, out_format;
  };
  const std::string empty;
  auto text = [&](uint32_t id) -> const std::string& {
    return id == OpTaskPass::kNone ? empty : pass.texts.text(id);
  };
  std::vector<Task> tasks;
  tasks.reserve(pass.tasks.size());
  for (const OpTaskPass::Task& t : pass.tasks) {
    if (t.start == OpTaskPass::kNoStart) continue;
    tasks.push_back({t.rank, t.device, t.stream, t.start, t.rowid, t.name, t.type, t.input_formats,
                     t.output_formats});
  }
  sort_by_stream(
      tasks, [](const Task& t) { return std::tuple(t.rank, t.device, t.stream); },
      [](const Task& a, const Task& b) {
        return std::tie(a.start, a.rowid) < std::tie(b.start, b.rowid);
      });
  std::vector<size_t> node_of;  // by interned name, in the rank's view
  std::tuple<int64_t, int64_t, int64_t> stream{-2, -2, -2};
  size_t prev = SIZE_MAX;
  for (const Task& t : tasks) {
    const std::string& type = text(t.type);
    if (runtime_task(type)) continue;
    if (out.empty() || out.back().rank != t.rank) {
      out.emplace_back();
      out.back().source = "sequence";
      out.back().rank = t.rank;
      node_of.assign(pass.texts.size(), SIZE_MAX);
    }
    OpGraph& g = out.back();
    std::tuple<int64_t, int64_t, int64_t> here{t.rank, t.device, t.stream};
    if (here != stream) prev = SIZE_MAX;
    stream = here;
    size_t& node = node_of[t.name];
    if (node == SIZE_MAX) {
      OpNode n;
      n.name = text(t.name);
      n.type = type;
      n.ops.push_back(n.name);
      n.in_format = first_item(text(t.in_format));
      n.out_format = first_item(text(t.out_format));
      n.order = g.nodes.size();
      node = g.add_node(std::move(n));
    }
    if (prev != SIZE_MAX) g.add_edge(prev, node);
    prev = node;
  }
  return out;
}

}  // namespace perfsage::analyzers::patterns
