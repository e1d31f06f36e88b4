// The store types the front ends hold without reaching into store/: the connection they open
// and pass to app/ calls, and the error it throws. cli/ and daemon/ include this header, never
// store/ itself (app/layer_check.cmake fails the build otherwise).
#pragma once

#include "store/database.h"

namespace perfsage::app {

using Database = store::Database;
using StoreError = store::StoreError;

}  // namespace perfsage::app
