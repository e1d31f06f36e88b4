// Binds a list of values to a statement's parameters 1..N in one call.
#pragma once

#include <utility>

#include "store/database.h"

namespace perfsage::store {

template <typename... Args>
void bind_all(Statement& st, const Args&... args) {
  int i = 0;
  (st.bind(++i, args), ...);
}

template <typename... Args>
void insert(Statement& st, const Args&... args) {
  bind_all(st, args...);
  st.run();
}

}  // namespace perfsage::store
