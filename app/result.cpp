#include "app/result.h"

namespace perfsage::app {

const char* to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage:
      return "usage";
    case ErrorKind::input:
      return "input";
    case ErrorKind::store:
      return "store";
    case ErrorKind::store_damaged:
      return "store_damaged";
    case ErrorKind::pack:
      return "pack";
    case ErrorKind::internal:
      return "internal";
  }
  return "internal";
}

}  // namespace perfsage::app
