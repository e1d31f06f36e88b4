// Parsing protobuf text of a GE ModelDef, whole or as parallel chunks of top-level blocks.
#pragma once

#include <google/protobuf/arena.h>

#include <string>
#include <string_view>
#include <vector>

#include "ge/ge_ir.pb.h"

namespace perfsage::collectors::graph {

struct TextParse {
  bool ok = false;
  std::string where, message;  // first error: "line:column" (1-based) and the parser's words
  int unknown_fields = 0;      // fields not in perfsage's schema, skipped
  std::string first_unknown;   // "line:column: message" of the first one
};

// Parses `text` into `model`, allowing unknown fields and extensions. `line_offset` is the
// 0-based line of the text's first character within its file, for error positions.
TextParse parse_model_text(std::string_view text, int line_offset, ge::proto::ModelDef* model);

// Parses the top-level blocks of `text` in up to `threads` chunks at once (protobuf arenas are
// thread-safe); `parts` receives one ModelDef per chunk, in text order, owned by `arena`. Each
// chunk is valid ModelDef text on its own, so the parts together are the whole model. On any
// error the whole text is parsed again sequentially, so errors read as for a plain parse.
TextParse parse_model_parallel(std::string_view text, unsigned threads,
                               google::protobuf::Arena& arena,
                               std::vector<const ge::proto::ModelDef*>& parts);

}  // namespace perfsage::collectors::graph
