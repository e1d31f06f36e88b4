#include "analyzers/roofline/activation.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analyzers/core/stream_sort.h"
#include "analyzers/roofline/flop_model.h"
#include "analyzers/roofline/tables.h"

namespace perfsage::analyzers::roofline {
namespace {

// Ops that frameworks interleave without changing the data flow (allocation, views).
bool helper(const std::string& t) {
  return t == "empty" || t == "empty_like" || t == "resize_" || t == "as_strided" || t == "view" ||
         t == "detach" || t == "contiguous" || t == "empty_strided" || t == "to" ||
         t == "_to_copy" || t == "result_type" || t == "reshape" || t == "unsafe_view" ||
         t == "expand";
}

struct Op {
  const std::string* type;  // normalized, owned by Names
  const std::string* name;  // as recorded, owned by Names
  double us = 0;
  const std::string* shapes = nullptr;  // input shapes of the ops a shape check reads, else null
};

// Input shapes, kept only for the ops whose shapes tell x * f(x) from a gate (see scan), and
// interned: they repeat as often as the ops.
class ShapeTexts {
 public:
  const std::string* get(const std::string& type, std::string_view text) {
    if (text.empty() || (type != "softplus" && type != "sigmoid" && type != "mul")) return nullptr;
    return &*texts_.emplace(text).first;
  }

 private:
  std::unordered_set<std::string> texts_;  // node-based: stable addresses
};

// Mish and SiLU end in x * f(x): the Mul's two inputs have the first op's input shape. When the
// shapes are recorded and differ, the Mul is a gate that broadcasts (a squeeze-and-excitation
// block, x * sigmoid(fc(pool(x)))), not the activation. Unknown shapes cannot tell.
bool mul_reads_input(const Op& first, const Op& mul) {
  if (!first.shapes || !mul.shapes) return true;
  auto in = parse_shapes(*first.shapes);
  auto m = parse_shapes(*mul.shapes);
  if (in.empty() || m.size() < 2) return true;
  return m[0] == in[0] && m[1] == in[0];
}

// Op names repeat millions of times in big traces: each distinct name is copied, normalized
// and classified once.
class Names {
 public:
  struct Entry {
    std::string name, type;
    bool helper = false;
  };
  const Entry& get(std::string_view name) {
    auto it = index_.find(name);
    if (it != index_.end()) return *it->second;
    auto& e = entries_.emplace_back();
    e.name = std::string(name);
    e.type = normalize_op_type(e.name);
    e.helper = helper(e.type);
    index_.emplace(e.name, &e);
    return e;
  }

 private:
  std::deque<Entry> entries_;  // stable addresses
  std::unordered_map<std::string_view, Entry*> index_;
};

struct Found {
  int64_t instances = 0;
  double total_us = 0;
  std::string example;
};

// (rank, pattern, source) -> chains found: per rank, so that a cluster run's rows are its
// ranks' rows (docs/scale-out.md); the activation fact sums the ranks.
using FoundChains = std::map<std::tuple<int64_t, std::string, std::string>, Found>;

void scan(const std::vector<Op>& seq, FoundChains& out, int64_t rank, const std::string& source) {
  std::vector<std::string> types;
  types.reserve(seq.size());
  for (const auto& o : seq) types.push_back(*o.type);
  for (const auto& p : activation_patterns()) {
    for (size_t start : find_chains(types, p)) {
      // A CPU op that starts the chain in place (aten::sigmoid_) overwrites its input, so the
      // Mul cannot read the original x: an LSTM cell's gates, not x * sigmoid(x).
      if (source == "cpu_ops" && !seq[start].name->empty() && seq[start].name->back() == '_')
        continue;
      if ((p.name == "mish" || p.name == "silu") &&
          !mul_reads_input(seq[start], seq[start + p.chain.size() - 1]))
        continue;
      Found& f = out[{rank, p.name, source}];
      ++f.instances;
      for (size_t i = 0; i < p.chain.size(); ++i) f.total_us += seq[start + i].us;
      if (f.example.empty()) {
        for (size_t i = 0; i < p.chain.size(); ++i)
          f.example += (i ? " -> " : "") + *seq[start + i].name;
      }
    }
  }
}

}  // namespace

const std::vector<ActivationPattern>& activation_patterns() {
  static const std::vector<ActivationPattern> p = {
      {"mish", {"softplus", "tanh", "mul"}},
      {"gelu_erf", {"div", "erf", "add", "mul", "mul"}},
      // The same formula as Python evaluates x * 0.5 * (1.0 + erf(x / sqrt(2))) (BERT's).
      {"gelu_erf", {"mul", "div", "erf", "add", "mul"}},
      {"silu", {"sigmoid", "mul"}},
  };
  return p;
}

std::string normalize_op_type(const std::string& type) {
  std::string t;
  for (char c : type) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t.rfind("aten::", 0) == 0) t = t.substr(6);
  // In-place and out variants: mul_ -> mul; versioned Ascend types: SoftplusV2 -> softplus.
  while (!t.empty() && t.back() == '_') t.pop_back();
  size_t digits = t.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(t[digits - 1]))) --digits;
  if (digits < t.size() && digits > 1 && t[digits - 1] == 'v') digits -= 1;  // SoftplusV2
  t.resize(digits);
  if (t == "muls" || t == "realdiv" || t == "divs") t = t == "muls" ? "mul" : "div";
  if (t == "adds") t = "add";
  return t;
}

std::vector<size_t> find_chains(const std::vector<std::string>& types, const ActivationPattern& p) {
  std::vector<size_t> out;
  if (p.chain.empty() || types.size() < p.chain.size()) return out;
  for (size_t i = 0; i + p.chain.size() <= types.size();) {
    size_t j = 0;
    while (j < p.chain.size() && types[i + j] == p.chain[j]) ++j;
    if (j == p.chain.size()) {
      out.push_back(i);
      i += j;
    } else {
      ++i;
    }
  }
  return out;
}

void compute_activation_patterns(store::Database& db, int64_t run_id) {
  compute_activation_patterns(db, run_id, read_launch_pass(db, run_id),
                              std::make_shared<const OpTaskPass>(read_op_task_pass(db, run_id)));
}

void compute_activation_patterns(store::Database& db, int64_t run_id, const LaunchPass& pass,
                                 std::shared_ptr<const OpTaskPass> shared_tasks) {
  db.prepare("DELETE FROM activation_patterns WHERE run_id = ?1").bind(1, run_id).run();
  FoundChains found;
  Names names;
  ShapeTexts shapes;

  // Ascend device ops, per rank and stream in start order: from the op task pass, sorted here
  // (SQL's ORDER BY sorted a million tasks with their texts), ties in row order.
  {
    struct Task {
      int64_t rank, stream, start;
      const Names::Entry* type;
      const Names::Entry* name;
      int64_t dur_ns;
      const std::string* shapes;
    };
    const OpTaskPass& op_tasks = *shared_tasks;
    std::vector<Task> tasks;
    tasks.reserve(op_tasks.tasks.size());
    constexpr int64_t kNullFirst = std::numeric_limits<int64_t>::min();
    static_assert(OpTaskPass::kNoStart == kNullFirst);
    const store::TextIds& texts = op_tasks.texts;
    // Per text id, whether it is a communication core type (kept out) and its Names entry.
    std::vector<int8_t> comm(texts.size(), -1);
    std::vector<const Names::Entry*> entry(texts.size(), nullptr);
    auto named = [&](uint32_t id) -> const Names::Entry& {
      if (entry[id] == nullptr) entry[id] = &names.get(texts.text(id));
      return *entry[id];
    };
    for (const OpTaskPass::Task& t : op_tasks.tasks) {
      // core_type NOT IN ('HCCL', 'COMMUNICATION'), which a NULL core type fails too.
      if (t.core_type == OpTaskPass::kNone) continue;
      int8_t& is_comm = comm[t.core_type];
      if (is_comm < 0) {
        const std::string& core = texts.text(t.core_type);
        is_comm = core == "HCCL" || core == "COMMUNICATION";
      }
      if (is_comm) continue;
      // The type column is normalized; the name (unique per op) only feeds examples.
      const auto& type = named(t.type);
      const auto& name = named(t.name);
      tasks.push_back({t.rank_null ? kNullFirst : t.rank, t.stream, t.start, &type, &name, t.dur_ns,
                       shapes.get(type.type, t.input_shapes == OpTaskPass::kNone
                                                 ? std::string_view()
                                                 : std::string_view(texts.text(t.input_shapes)))});
    }
    entry.clear();
    shared_tasks.reset();  // Names and ShapeTexts own what the tasks point to
    sort_by_stream(
        tasks, [](const Task& t) { return std::pair(t.rank, t.stream); },
        [](const Task& a, const Task& b) { return a.start < b.start; });
    std::vector<Op> seq;
    std::pair<int64_t, int64_t> key{-2, -2};
    // A task without a rank is rank 0's, as the store's rank column has it.
    auto rank_of = [&](int64_t rank) { return rank == kNullFirst ? 0 : rank; };
    for (const Task& t : tasks) {
      std::pair<int64_t, int64_t> k{t.rank, t.stream};
      if (k != key) {
        scan(seq, found, rank_of(key.first), "ops");
        seq.clear();
        key = k;
      }
      seq.push_back({&t.type->type, &t.name->name, t.dur_ns / 1000.0, t.shapes});
    }
    scan(seq, found, rank_of(key.first), "ops");
  }
  // Kineto CPU ops per thread, with the GPU time of their kernels when linked
  // (core/launch_pass.h). Every op's input dims are there; ShapeTexts keeps those of the ops
  // whose shapes the chain check reads.
  {
    std::vector<const Names::Entry*> op_names(pass.op_texts.size());  // by text id, as met
    const std::vector<LaunchPass::CpuOp>& ops = pass.cpu_ops;         // per thread by start
    std::vector<Op> seq;
    std::pair<int64_t, int64_t> key{-2, -2};
    int64_t helper_end = 0;  // ops nested in a helper (aten::to -> _to_copy -> copy_) are its own
    for (const auto& c : ops) {
      std::pair<int64_t, int64_t> k{c.rank, c.tid};
      if (k != key) {
        scan(seq, found, key.first, "cpu_ops");
        seq.clear();
        key = k;
        helper_end = 0;
      }
      const Names::Entry*& entry = op_names[c.name];
      if (entry == nullptr) entry = &names.get(pass.op_texts.text(c.name));
      const auto& op = *entry;
      if (c.start < helper_end) continue;
      if (op.helper) {
        helper_end = c.end;
        continue;
      }
      double us = static_cast<double>(c.ns) / 1000.0;
      // Nested calls (aten::mul inside aten::mul_) repeat the type; keep the outer one.
      if (!seq.empty() && *seq.back().type == op.type && us <= seq.back().us) continue;
      seq.push_back({&op.type, &op.name, us,
                     c.dims == LaunchPass::kNone
                         ? nullptr
                         : shapes.get(op.type, pass.op_texts.text(c.dims))});
    }
    scan(seq, found, key.first, "cpu_ops");
  }
  // Model graphs: Softplus -> Tanh -> Mul edges (no timing).
  {
    auto st = db.prepare(R"sql(
-- The run's data edges are materialized once and probed by (graph, src) through an automatic
-- index; CROSS JOIN fixes the order (Softplus nodes first), since without statistics SQLite
-- chose to rescan nodes and edges for every candidate.
WITH e AS MATERIALIZED (SELECT graph, src, dst FROM graph_edges WHERE run_id = ?1 AND control = 0)
SELECT count(*), min(a.name || ' -> ' || b.name || ' -> ' || c.name)
FROM graph_nodes a
CROSS JOIN e e1 ON e1.graph = a.graph AND e1.src = a.name
CROSS JOIN graph_nodes b ON b.run_id = a.run_id AND b.name = e1.dst AND b.graph = a.graph
  AND b.type = 'Tanh'
CROSS JOIN e e2 ON e2.graph = b.graph AND e2.src = b.name
CROSS JOIN graph_nodes c ON c.run_id = a.run_id AND c.name = e2.dst AND c.graph = a.graph
  AND c.type = 'Mul'
WHERE a.run_id = ?1 AND a.type = 'Softplus')sql");
    st.bind(1, run_id);
    if (st.step() && st.int64(0) > 0) {
      Found& f = found[{0, "mish", "graph"}];  // graphs are the run's, not a rank's
      f.instances = st.int64(0);
      f.example = st.text(1);
    }
  }
  // The share of the run's device time is the fact's (every rank's time is summed there).
  store::RowInserter ins(db, tables::activation_patterns());
  for (const auto& [key, f] : found) {
    const auto& [rank, pattern, source] = key;
    size_t len = 0;
    for (const auto& p : activation_patterns())
      if (p.name == pattern) len = p.chain.size();
    ins.insert(run_id, rank, pattern, source, f.instances, static_cast<int64_t>(len), f.total_us,
               f.example);
  }
}

}  // namespace perfsage::analyzers::roofline
