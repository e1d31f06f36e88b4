// Knowledge-base packs: pack.yaml read (engine/kb/reader) and compiled to CLIPS
// (engine/kb/compiler). Packs are untrusted: a bad one must be a message, never a crash.
#include <string>
#include <vector>

#include "app/knowledge.h"
#include "engine/kb/compiler.h"
#include "engine/kb/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<perfsage::engine::LoadMessage> messages;
  auto pack = perfsage::engine::read_pack_text(text, "pack.yaml", messages);
  static const auto catalog = perfsage::app::fact_catalog();  // the fact types packs may use
  if (pack) perfsage::engine::compile_pack(*pack, messages, *catalog);
  return 0;
}
