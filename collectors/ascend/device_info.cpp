// info.json.<N> → store::Hardware (one row per DeviceInfo entry).
#include <regex>
#include <vector>

#include "collectors/ascend/json_util.h"
#include "collectors/ascend/layout.h"
#include "collectors/ascend/device_info.h"
#include "store/json_text.h"

namespace perfsage::collectors::ascend {

namespace {

// msprof's chip ids (`platform_version`); names only where the mapping is well established.
std::string chip_name(std::string_view version) {
  if (version == "0") return "Ascend310";
  if (version == "1") return "Ascend910";
  if (version == "2") return "Ascend310P";
  if (version == "5") return "Ascend910B";
  return {};
}

std::string chip_id(std::string_view version) {
  static const std::vector<std::pair<std::string_view, std::string_view>> ids = {
      {"0", "CHIP_V1_1_0"}, {"1", "CHIP_V2_1_0"},  {"2", "CHIP_V3_1_0"},  {"3", "CHIP_V3_2_0"},
      {"4", "CHIP_V3_3_0"}, {"5", "CHIP_V4_1_0"},  {"7", "CHIP_V1_1_1"},  {"8", "CHIP_V1_1_2"},
      {"9", "CHIP_V5_1_0"}, {"11", "CHIP_V1_1_3"}, {"15", "CHIP_V6_1_0"}, {"16", "CHIP_V6_2_0"}};
  for (const auto& [v, id] : ids) {
    if (v == version) return std::string(id);
  }
  return "platform_version " + std::string(version);
}

}  // namespace

int DeviceInfoCollector::detect(const FileProbe& probe) const {
  static const std::regex name_re(R"(info\.json(\.\d+)?)");
  std::string name = base_name(probe.path);
  if (!std::regex_match(name, name_re)) return 0;  // also rejects the `.done` markers
  if (first_char(probe.head) != '{') return 0;
  return probe.head.find("\"DeviceInfo\"") != std::string::npos ? 100 : 0;
}

void DeviceInfoCollector::collect(const FileProbe& probe, CollectContext& ctx) const {
  JsonInput in = load_json(probe);
  od::parser parser;
  od::document doc;
  auto fail = [&](simdjson::error_code err, const char* what) {
    ctx.fail(json_error_where(in, doc, err), what);
  };
  iterate_or_fail(parser, in, doc, ctx, "expected a JSON object");
  od::object top;
  if (auto err = doc.get_object().get(top)) fail(err, "expected a JSON object");

  std::vector<store::Hardware> devices;
  std::string platform;
  for (auto field : top) {
    od::field f;
    if (auto err = std::move(field).get(f)) fail(err, "malformed object");
    std::string_view key = key_text(f.key());
    if (key == "platform_version") {
      platform = std::string(scalar_text(f.value()));
      continue;
    }
    if (key != "DeviceInfo") {
      if (raw_value(f.value()).empty()) fail(simdjson::TAPE_ERROR, "malformed value");
      continue;
    }
    od::array list;
    if (auto err = f.value().get_array().get(list)) fail(err, "DeviceInfo must be an array");
    for (auto item : list) {
      od::object dev;
      if (auto err = item.get_object().get(dev)) fail(err, "DeviceInfo entries must be objects");
      store::Hardware hw;
      hw.vendor = "Huawei";
      std::string props = "{";
      for (auto df : dev) {
        od::field g;
        if (auto err = std::move(df).get(g)) fail(err, "malformed DeviceInfo entry");
        std::string_view k = key_text(g.key());
        std::string_view raw = raw_value(g.value());
        if (raw.empty()) fail(simdjson::TAPE_ERROR, "malformed DeviceInfo value");
        std::string_view text = unquote(raw);
        if (k == "id")
          hw.device_id = int_of(text);
        else if (k == "ai_core_num")
          hw.ai_core_num = int_of(text);
        else if (k == "aiv_num")
          hw.aiv_num = int_of(text);
        else if (k == "aic_frequency")
          hw.freq_mhz = real_of(text);
        if (props.size() > 1) props += ',';
        props += '"';
        props += k;
        props += "\":";
        props += raw;
      }
      hw.props = props + "}";
      devices.push_back(std::move(hw));
    }
  }
  if (devices.empty()) ctx.fail("byte offset 0", "no DeviceInfo entry");
  Location loc = locate(probe.path);
  for (auto& hw : devices) {
    hw.rank = loc.rank;
    if (!hw.device_id) hw.device_id = loc.device_id;
    if (!platform.empty()) {
      hw.chip = chip_id(platform);
      std::string name = chip_name(platform);
      if (!name.empty()) hw.name = name;
    }
    ctx.out().add(hw);
    ctx.record();
  }
  auto& hints = ctx.hints();
  if (hints.device.empty()) hints.device = "ascend";
  if (hints.chip.empty() && devices.front().name) hints.chip = *devices.front().name;
}

}  // namespace perfsage::collectors::ascend
