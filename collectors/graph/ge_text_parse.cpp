#include "collectors/graph/ge_text_parse.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <climits>
#include <thread>

#include "collectors/graph/ge_text_blocks.h"

namespace perfsage::collectors::graph {
namespace {
namespace pb = google::protobuf;

// Deepest nesting handed to protobuf's text parser, which recurses once per level (real GE
// dumps nest about a dozen levels; ~50,000 overflow the stack).
constexpr int kMaxNesting = 500;
// Longest parser message kept: protobuf quotes the offending token, which can be megabytes.
constexpr size_t kMaxMessage = 200;

std::string shortened(const std::string& message) {
  if (message.size() <= kMaxMessage) return message;
  size_t n = kMaxMessage;
  while (n > 0 && (static_cast<unsigned char>(message[n]) & 0xC0) == 0x80) --n;  // whole UTF-8
  return message.substr(0, n) + "... (" + std::to_string(message.size()) + " bytes)";
}

// Keeps the parser's first error and counts its warnings (unknown fields), 1-based positions.
class Errors : public pb::io::ErrorCollector {
 public:
  Errors(TextParse& out, int line_offset) : out_(out), line_offset_(line_offset) {}
  void AddError(int line, pb::io::ColumnNumber column, const std::string& message) override {
    if (out_.where.empty()) {
      out_.where = where(line, column);
      out_.message = shortened(message);
    }
  }
  void AddWarning(int line, pb::io::ColumnNumber column, const std::string& message) override {
    if (out_.unknown_fields++ == 0)
      out_.first_unknown = where(line, column) + ": " + shortened(message);
  }

 private:
  std::string where(int line, int column) const {
    return std::to_string(line + line_offset_ + 1) + ":" + std::to_string(column + 1);
  }
  TextParse& out_;
  int line_offset_;
};

// Byte-balanced runs of consecutive top-level blocks, one per thread.
std::vector<std::pair<TextBlock, TextBlock>> chunk_blocks(const std::vector<TextBlock>& blocks,
                                                          size_t total, unsigned threads) {
  std::vector<std::pair<TextBlock, TextBlock>> chunks;
  size_t target = total / threads + 1;
  for (size_t i = 0; i < blocks.size();) {
    size_t j = i;
    if (chunks.size() + 1 == threads) {
      j = blocks.size() - 1;  // the last thread takes the rest
    } else {
      while (j + 1 < blocks.size() && blocks[j + 1].end - blocks[i].begin <= target) ++j;
    }
    chunks.push_back({blocks[i], blocks[j]});
    i = j + 1;
  }
  return chunks;
}
}  // namespace

TextParse parse_model_text(std::string_view text, int line_offset, ge::proto::ModelDef* model) {
  TextParse r;
  if (text.size() > static_cast<size_t>(INT_MAX)) {
    r.where = std::to_string(line_offset + 1) + ":1";
    r.message = "text larger than 2 GiB, beyond protobuf's text parser";
    return r;
  }
  if (auto deep = first_block_deeper_than(text, kMaxNesting)) {
    r.where = std::to_string(deep->line + line_offset + 1) + ":" + std::to_string(deep->column + 1);
    r.message = "blocks nested deeper than " + std::to_string(kMaxNesting) + " levels";
    return r;
  }
  Errors errors(r, line_offset);
  pb::TextFormat::Parser parser;
  parser.SetRecursionLimit(kMaxNesting);
  parser.RecordErrorsTo(&errors);
  parser.AllowUnknownField(true);
  parser.AllowUnknownExtension(true);
  pb::io::ArrayInputStream in(text.data(), static_cast<int>(text.size()));
  r.ok = parser.Parse(&in, model);
  if (!r.ok && r.where.empty()) {
    r.where = std::to_string(line_offset + 1) + ":1";
    r.message = "parse failed";
  }
  return r;
}

TextParse parse_model_parallel(std::string_view text, unsigned threads, pb::Arena& arena,
                               std::vector<const ge::proto::ModelDef*>& parts) {
  parts.clear();
  auto blocks = split_top_level(text);
  auto chunks = chunk_blocks(blocks, text.size(), std::max(1u, threads));
  std::vector<ge::proto::ModelDef*> models;
  std::vector<TextParse> results(chunks.size());
  for (size_t i = 0; i < chunks.size(); ++i) {
    models.push_back(pb::Arena::CreateMessage<ge::proto::ModelDef>(&arena));
  }
  auto work = [&](size_t i) {
    const auto& [first, last] = chunks[i];
    results[i] =
        parse_model_text(text.substr(first.begin, last.end - first.begin), first.line, models[i]);
  };
  {
    std::vector<std::jthread> pool;
    for (size_t i = 1; i < chunks.size(); ++i) pool.emplace_back(work, i);
    if (!chunks.empty()) work(0);
  }  // joined here
  TextParse all;
  all.ok = true;
  for (const auto& r : results) {
    if (!r.ok) all.ok = false;
    if (r.unknown_fields > 0 && all.unknown_fields == 0) all.first_unknown = r.first_unknown;
    all.unknown_fields += r.unknown_fields;
  }
  if (!all.ok) {
    // The sequential parse decides what the error is (and where).
    auto* whole = pb::Arena::CreateMessage<ge::proto::ModelDef>(&arena);
    auto r = parse_model_text(text, 0, whole);
    if (r.ok) parts.push_back(whole);
    return r;
  }
  parts.assign(models.begin(), models.end());
  return all;
}

}  // namespace perfsage::collectors::graph
