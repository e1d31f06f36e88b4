#include "store/event_block.h"

#include <algorithm>
#include <cstring>

#include "store/database.h"

namespace perfsage::store {
namespace {

constexpr EventColumn kHostColumns[] = {
    {"run_id", ColumnType::kInt},      {"rank", ColumnType::kInt, true},
    {"kind", ColumnType::kText},       {"name", ColumnType::kText},
    {"pid", ColumnType::kInt},         {"tid", ColumnType::kInt},
    {"start_ns", ColumnType::kInt},    {"dur_ns", ColumnType::kInt},
    {"external_id", ColumnType::kInt}, {"correlation", ColumnType::kInt},
    {"input_dims", ColumnType::kText}, {"input_types", ColumnType::kText},
    {"args", ColumnType::kText},
};

constexpr EventColumn kDeviceColumns[] = {
    {"run_id", ColumnType::kInt},          {"rank", ColumnType::kInt, true},
    {"kind", ColumnType::kText},           {"name", ColumnType::kText},
    {"device", ColumnType::kInt},          {"stream", ColumnType::kInt},
    {"start_ns", ColumnType::kInt},        {"dur_ns", ColumnType::kInt},
    {"correlation", ColumnType::kInt},     {"external_id", ColumnType::kInt},
    {"grid", ColumnType::kText},           {"block", ColumnType::kText},
    {"registers", ColumnType::kInt},       {"shared_mem", ColumnType::kInt},
    {"blocks_per_sm", ColumnType::kReal},  {"warps_per_sm", ColumnType::kReal},
    {"occupancy", ColumnType::kReal},      {"bytes", ColumnType::kInt},
    {"bandwidth_gbps", ColumnType::kReal}, {"memcpy_kind", ColumnType::kText},
    {"args", ColumnType::kText},
};

constexpr EventColumn kOpTaskColumns[] = {
    {"run_id", ColumnType::kInt},          {"rank", ColumnType::kInt, true},
    {"device_id", ColumnType::kInt},       {"step", ColumnType::kInt},
    {"model_id", ColumnType::kInt},        {"stream_id", ColumnType::kInt},
    {"task_id", ColumnType::kInt},         {"name", ColumnType::kText},
    {"type", ColumnType::kText},           {"core_type", ColumnType::kText},
    {"op_state", ColumnType::kText},       {"start_ns", ColumnType::kInt},
    {"dur_ns", ColumnType::kInt},          {"wait_ns", ColumnType::kInt},
    {"block_dim", ColumnType::kInt},       {"mix_block_dim", ColumnType::kInt},
    {"input_shapes", ColumnType::kText},   {"input_dtypes", ColumnType::kText},
    {"input_formats", ColumnType::kText},  {"output_shapes", ColumnType::kText},
    {"output_dtypes", ColumnType::kText},  {"output_formats", ColumnType::kText},
    {"aicore_time_us", ColumnType::kReal}, {"aiv_time_us", ColumnType::kReal},
    {"cube_fops", ColumnType::kReal},      {"vector_fops", ColumnType::kReal},
    {"mac_ratio", ColumnType::kReal},      {"vec_ratio", ColumnType::kReal},
    {"scalar_ratio", ColumnType::kReal},   {"mte1_ratio", ColumnType::kReal},
    {"mte2_ratio", ColumnType::kReal},     {"mte3_ratio", ColumnType::kReal},
    {"fixpipe_ratio", ColumnType::kReal},  {"read_bytes", ColumnType::kReal},
    {"write_bytes", ColumnType::kReal},    {"metrics", ColumnType::kText},
};

constexpr uint8_t kFormatVersion = 1;
enum : uint8_t { kAllNull = 0, kNoNulls = 1, kSomeNulls = 2 };
static_assert(kAllNull == EventBlockReader::kAllNullTag &&
              kNoNulls == EventBlockReader::kNoNullsTag);
// Only in blocks sparse_block() assembles: a column the scan did not select. Reading it is an
// error, so a column used without being selected cannot pass for one without values.
constexpr uint8_t kNotRead = 3;

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// Writes the varint at `p`, which has room for 10 bytes; returns the position after it.
inline char* write_varint(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

// Appends a column's values as varints (`encode` maps each to the unsigned value written):
// written through a pointer into room made once, not pushed byte by byte.
template <typename Values, typename Encode>
void append_varints(std::string& out, const Values& values, Encode encode) {
  const size_t at = out.size();
  out.resize(at + values.size() * 10);
  char* p = out.data() + at;
  for (const auto& v : values) p = write_varint(p, encode(v));
  out.resize(static_cast<size_t>(p - out.data()));
}

uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t unzigzag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

[[noreturn]] void corrupt(const char* what) {
  throw StoreError(std::string("corrupt event block: ") + what);
}

// Bounds-checked reading of a block's bytes.
struct Cursor {
  const uint8_t* p;
  const uint8_t* end;
  uint64_t varint() {
    if (p != end && *p < 0x80) return *p++;  // most ids and many deltas fit in a byte
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p == end) corrupt("varint runs past the end");
      uint8_t b = *p++;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
    corrupt("varint longer than 10 bytes");
  }
  const uint8_t* take(uint64_t n) {
    if (n > static_cast<uint64_t>(end - p)) corrupt("field runs past the end");
    const uint8_t* at = p;
    p += n;
    return at;
  }
};

}  // namespace

const EventSchema& host_event_schema() {
  static const EventSchema s{"host_events", kHostColumns, 2, 6, 7};
  return s;
}
const EventSchema& device_event_schema() {
  static const EventSchema s{"device_events", kDeviceColumns, 2, 6, 7};
  return s;
}
const EventSchema& op_task_schema() {
  // start_ns may be NULL (op_statistic-only tables have no start): the span then skips it.
  static const EventSchema s{"op_tasks", kOpTaskColumns, -1, 11, 12};
  return s;
}

std::span<const EventSchema* const> block_schemas() {
  static const EventSchema* const all[] = {&host_event_schema(), &device_event_schema(),
                                           &op_task_schema()};
  return all;
}

EventBlockBuilder::EventBlockBuilder(const EventSchema& schema) : schema_(schema) {
  for (const auto& c : schema.columns) cols_.emplace_back(c.type);
}

EventBlockBuilder::Column& EventBlockBuilder::at(int col, ColumnType t) {
  Column& c = cols_[static_cast<size_t>(col)];
  if (c.type != t || schema_.is_key(col)) {
    throw StoreError(std::string("event block: wrong type for column ") +
                     schema_.columns[static_cast<size_t>(col)].name);
  }
  c.present.push_back(1);
  return c;
}

void EventBlockBuilder::set_int(int col, int64_t v) {
  at(col, ColumnType::kInt).ints.push_back(v);
  bytes_ += 8;
}

void EventBlockBuilder::set_real(int col, double v) {
  at(col, ColumnType::kReal).reals.push_back(v);
  bytes_ += 8;
}

void EventBlockBuilder::set_text(int col, std::string_view v) {
  Column& c = at(col, ColumnType::kText);
  bytes_ += 4;
  // Many columns repeat the previous row's value (types, core types, formats): no hashing then.
  if (c.last_id < c.dict_order.size() && *c.dict_order[c.last_id] == v) {
    c.ids.push_back(c.last_id);
    return;
  }
  auto it = c.dict.find(v);
  if (it == c.dict.end()) {
    it = c.dict.emplace(std::string(v), static_cast<uint32_t>(c.dict.size())).first;
    c.dict_order.push_back(&it->first);
    bytes_ += v.size() + 48;
  }
  c.ids.push_back(it->second);
  c.last_id = it->second;
}

void EventBlockBuilder::set_null(int col) {
  Column& c = cols_[static_cast<size_t>(col)];
  c.present.push_back(0);
  ++c.nulls;
}

SealedBlock EventBlockBuilder::seal() {
  SealedBlock s{rows_, spanned_, min_start_, max_end_, {}};
  s.data = finish();
  return s;
}

std::string EventBlockBuilder::finish() {
  std::string out;
  out.reserve(bytes_ + 64);
  out.push_back(static_cast<char>(kFormatVersion));
  put_varint(out, rows_);
  std::string& body = scratch_;
  for (size_t i = 0; i < cols_.size(); ++i) {
    if (schema_.is_key(static_cast<int>(i))) continue;
    Column& c = cols_[i];
    if (c.present.size() != rows_) {
      throw StoreError(std::string("event block: column ") + schema_.columns[i].name +
                       " was not set on every row");
    }
    uint8_t tag = c.nulls == rows_ ? kAllNull : c.nulls == 0 ? kNoNulls : kSomeNulls;
    body.clear();
    if (tag == kSomeNulls) {
      size_t at = body.size();
      body.resize(at + (rows_ + 7) / 8);
      for (size_t r = 0; r < rows_; ++r)
        if (c.present[r]) body[at + r / 8] = static_cast<char>(body[at + r / 8] | (1 << (r % 8)));
    }
    if (tag != kAllNull) {
      switch (c.type) {
        case ColumnType::kInt: {
          int64_t prev = 0;
          append_varints(body, c.ints, [&prev](int64_t v) {
            const uint64_t delta = zigzag(
                static_cast<int64_t>(static_cast<uint64_t>(v) - static_cast<uint64_t>(prev)));
            prev = v;
            return delta;
          });
          break;
        }
        case ColumnType::kReal:
          body.append(reinterpret_cast<const char*>(c.reals.data()), c.reals.size() * 8);
          break;
        case ColumnType::kText:
          put_varint(body, c.dict_order.size());
          for (const std::string* s : c.dict_order) {
            put_varint(body, s->size());
            body.append(*s);
          }
          append_varints(body, c.ids, [](uint32_t id) { return uint64_t{id}; });
          break;
      }
    }
    out.push_back(static_cast<char>(tag));
    put_varint(out, body.size());
    out.append(body);
    c.clear();  // keeps the capacity for the next block
  }
  rows_ = 0;
  bytes_ = 0;
  spanned_ = false;
  return out;
}

std::string shift_int_column(const EventSchema& schema, std::string_view block, int col,
                             int64_t delta) {
  const auto* begin = reinterpret_cast<const uint8_t*>(block.data());
  Cursor in{begin, begin + block.size()};
  if (block.empty() || *in.take(1) != kFormatVersion) corrupt("unknown format version");
  uint64_t rows = in.varint();
  if (schema.columns[static_cast<size_t>(col)].type != ColumnType::kInt || schema.is_key(col))
    throw StoreError("shift_int_column: not a stored integer column");
  for (int c = 0; c < static_cast<int>(schema.columns.size()); ++c) {
    if (schema.is_key(c)) continue;
    const uint8_t* tag_at = in.p;
    uint8_t tag = *in.take(1);
    uint64_t size = in.varint();
    const uint8_t* body = in.take(size);
    if (c != col) continue;
    if (tag == kAllNull) return std::string(block);
    Cursor values{body, body + size};
    if (tag == kSomeNulls) values.take((rows + 7) / 8);
    const uint8_t* first = values.p;
    int64_t v = unzigzag(values.varint());
    std::string head(reinterpret_cast<const char*>(body), static_cast<size_t>(first - body));
    put_varint(head, zigzag(static_cast<int64_t>(static_cast<uint64_t>(v) +
                                                 static_cast<uint64_t>(delta))));
    head.append(reinterpret_cast<const char*>(values.p),
                static_cast<size_t>(values.end - values.p));
    std::string out(block.substr(0, static_cast<size_t>(tag_at - begin)));
    out.push_back(static_cast<char>(tag));
    put_varint(out, head.size());
    out += head;
    out.append(block.substr(static_cast<size_t>(body + size - begin)));
    return out;
  }
  corrupt("column missing");
}

std::string sparse_block(const EventSchema& schema, size_t size, const std::vector<bool>& wanted,
                         const std::function<void(size_t, size_t, char*)>& read) {
  // A varint at `at`, read through `read` (at most 10 bytes, fewer at the end).
  auto varint_at = [&](size_t at, size_t& len) {
    uint8_t bytes[10];
    size_t n = std::min<size_t>(10, size > at ? size - at : 0);
    read(at, n, reinterpret_cast<char*>(bytes));
    Cursor c{bytes, bytes + n};
    uint64_t v = c.varint();
    len = static_cast<size_t>(c.p - bytes);
    return v;
  };
  if (size == 0) corrupt("unknown format version");
  char version = 0;
  read(0, 1, &version);
  if (static_cast<uint8_t>(version) != kFormatVersion) corrupt("unknown format version");
  size_t len = 0;
  uint64_t rows = varint_at(1, len);
  std::string out;
  out.push_back(version);
  put_varint(out, rows);
  size_t at = 1 + len;
  for (int c = 0; c < static_cast<int>(schema.columns.size()); ++c) {
    if (schema.is_key(c)) continue;
    if (at >= size) corrupt("field runs past the end");
    char tag = 0;
    read(at, 1, &tag);
    uint64_t body = varint_at(at + 1, len);
    size_t begin = at + 1 + len;
    if (body > size - std::min(size, begin)) corrupt("field runs past the end");
    if (wanted[static_cast<size_t>(c)]) {
      out.push_back(tag);
      put_varint(out, body);
      size_t old = out.size();
      out.resize(old + static_cast<size_t>(body));
      read(begin, static_cast<size_t>(body), out.data() + old);
    } else {
      out.push_back(static_cast<char>(kNotRead));
      put_varint(out, 0);
    }
    at = begin + static_cast<size_t>(body);
  }
  return out;
}

EventBlockReader::EventBlockReader(const EventSchema& schema, const uint8_t* data, size_t size,
                                   bool sparse)
    : schema_(schema), cols_(schema.columns.size()) {
  Cursor in{data, data + size};
  if (size == 0 || *in.take(1) != kFormatVersion) corrupt("unknown format version");
  uint64_t rows = in.varint();
  if (rows > (uint64_t{1} << 32)) corrupt("row count out of range");
  rows_ = static_cast<size_t>(rows);
  for (size_t i = 0; i < cols_.size(); ++i) {
    if (schema_.is_key(static_cast<int>(i))) continue;
    Column& c = cols_[i];
    c.tag = *in.take(1);
    if (c.tag > (sparse ? kNotRead : static_cast<uint8_t>(kSomeNulls)))
      corrupt("unknown column tag");
    c.size = in.varint();
    c.begin = in.take(c.size);
  }
}

const EventBlockReader::Column& EventBlockReader::selected(int col) const {
  const Column& c = cols_[static_cast<size_t>(col)];
  if (c.tag == kNotRead) {
    throw StoreError(std::string("column ") + schema_.columns[static_cast<size_t>(col)].name +
                     " of " + schema_.table + " was not selected for this scan");
  }
  return c;
}

bool EventBlockReader::all_null(int col) const {
  return selected(col).tag == kAllNull;
}

bool EventBlockReader::is_null_first(int col, size_t row) {
  selected(col);
  Column& c = cols_[static_cast<size_t>(col)];
  if (c.tag == kAllNull) return true;
  if (c.tag == kNoNulls) return false;
  return !decoded(col).present[row];
}

EventBlockReader::Column& EventBlockReader::decode_first(int col) {
  selected(col);
  Column& c = cols_[static_cast<size_t>(col)];
  if (!c.decoded) {
    decode(col, c);
    c.decoded = true;
  }
  return c;
}

void EventBlockReader::decode(int col, Column& c) {
  ColumnType type = schema_.columns[static_cast<size_t>(col)].type;
  if (c.tag == kAllNull) {
    // Readers check is_null() first; sized vectors keep a stray read in bounds.
    c.ints.assign(type == ColumnType::kInt ? rows_ : 0, 0);
    c.reals.assign(type == ColumnType::kReal ? rows_ : 0, 0.0);
    if (type == ColumnType::kText) {
      c.dict.assign(1, std::string_view());
      c.ids.assign(rows_, 0);
    }
    return;
  }
  Cursor in{c.begin, c.begin + c.size};
  c.present.assign(rows_, 1);
  if (c.tag == kSomeNulls) {
    const uint8_t* bits = in.take((rows_ + 7) / 8);
    for (size_t r = 0; r < rows_; ++r) c.present[r] = (bits[r / 8] >> (r % 8)) & 1;
  }
  switch (type) {
    case ColumnType::kInt: {
      c.ints.assign(rows_, 0);
      int64_t prev = 0;
      const bool all = c.tag != kSomeNulls;
      for (size_t r = 0; r < rows_; ++r) {
        if (!all && !c.present[r]) continue;
        prev = static_cast<int64_t>(static_cast<uint64_t>(prev) +
                                    static_cast<uint64_t>(unzigzag(in.varint())));
        c.ints[r] = prev;
      }
      break;
    }
    case ColumnType::kReal: {
      c.reals.assign(rows_, 0.0);
      for (size_t r = 0; r < rows_; ++r) {
        if (c.present[r]) std::memcpy(&c.reals[r], in.take(8), 8);
      }
      break;
    }
    case ColumnType::kText: {
      uint64_t n = in.varint();
      if (n > c.size) corrupt("dictionary larger than its column");
      c.dict.resize(static_cast<size_t>(n));
      for (auto& s : c.dict) {
        uint64_t len = in.varint();
        s = std::string_view(reinterpret_cast<const char*>(in.take(len)), len);
      }
      c.ids.assign(rows_, 0);
      for (size_t r = 0; r < rows_; ++r) {
        if (!c.present[r]) continue;
        uint64_t id = in.varint();
        if (id >= n) corrupt("text index outside the dictionary");
        c.ids[r] = static_cast<uint32_t>(id);
      }
      if (c.dict.empty()) c.dict.emplace_back();
      break;
    }
  }
  if (in.p != in.end) corrupt("column has trailing bytes");
}

}  // namespace perfsage::store
