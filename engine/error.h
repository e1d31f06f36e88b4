// The exception type used inside the engine layer; converted to load results and pack
// statuses at the public API boundary.
#pragma once

#include <stdexcept>

namespace perfsage::engine {

class EngineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace perfsage::engine
