#include "collectors/common/collector.h"

#include "store/count_text.h"

namespace perfsage::collectors {

void CollectContext::skip(std::string_view reason, std::string_view where) {
  if (mode_ == Mode::strict) fail(where, reason);
  ++tally_.skipped;
  auto& skips = tally_.skips;
  auto it = skips.find(reason);
  if (it == skips.end()) it = skips.emplace(std::string(reason), Tally::SkipCount{}).first;
  if (it->second.count++ == 0) it->second.first_where = std::string(where);
}

void CollectContext::fail(std::string_view where, std::string_view what) const {
  throw ParseError(path_ + ":" + std::string(where) + ": " + std::string(what));
}

std::vector<std::string> CollectContext::report_lines() const {
  std::vector<std::string> out = tally_.warnings;
  for (const auto& [reason, c] : tally_.skips) {
    out.push_back("skipped " + store::count_text(c.count, "record") + ": " + reason +
                  " (first at " + c.first_where + ")");
  }
  return out;
}

}  // namespace perfsage::collectors
