// Binds a list of values to a statement's parameters 1..N in one call.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "store/database.h"

namespace perfsage::store {

namespace detail {
// Text is bound without a copy: insert() runs the statement before its arguments go away.
inline void bind_one(Statement& st, int i, const std::string& v) {
  st.bind_static(i, v);
}
inline void bind_one(Statement& st, int i, std::string_view v) {
  st.bind_static(i, v);
}
inline void bind_one(Statement& st, int i, const char* v) {
  st.bind_static(i, v);
}
inline void bind_one(Statement& st, int i, const std::optional<std::string>& v) {
  if (v) {
    st.bind_static(i, *v);
  } else {
    st.bind_null(i);
  }
}
template <typename T>
void bind_one(Statement& st, int i, const T& v) {
  st.bind(i, v);
}
}  // namespace detail

template <typename... Args>
void bind_all(Statement& st, const Args&... args) {
  int i = 0;
  (detail::bind_one(st, ++i, args), ...);
}

// Binds and runs a statement that returns no rows; the statement is reset for reuse.
template <typename... Args>
void insert(Statement& st, const Args&... args) {
  bind_all(st, args...);
  st.run();
}

}  // namespace perfsage::store
