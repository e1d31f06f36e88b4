// The configuration file (app/config: kb selection and limits): errors name file:line:column,
// never an uncaught exception.
#include "app/config.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto path = perfsage::fuzz::write_input(
      "perfsage.yaml", std::string_view(reinterpret_cast<const char*>(data), size));
  auto loaded = perfsage::app::read_config_file(path);
  (void)loaded;
  return 0;
}
