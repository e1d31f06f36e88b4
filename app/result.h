// The analysis service's boundary: every call returns a value or a typed error, never throws
// and never exits. Front ends map the kind to their own convention (the CLI's exit codes, the
// daemon's HTTP statuses and job states).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace perfsage::app {

enum class ErrorKind {
  usage,          // the request itself is wrong: bad selection, config, option values
  input,          // an input cannot be read, or nothing in it was recognised
  store,          // the fact store cannot be opened, written or read
  store_damaged,  // the store's file is damaged (quick_check fails): lasts until it is replaced
  pack,           // a pack (set) cannot be loaded, validated, installed or tested
  internal,       // a defect in perfsage
};
const char* to_string(ErrorKind kind);

struct Error {
  ErrorKind kind = ErrorKind::internal;
  std::string message;  // names the file, line, pack or store it concerns
};

// A value or an Error; deliberately small (C++20 has no std::expected).
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}           // NOLINT: implicit on purpose
  Result(Error error) : v_(std::move(error)) {}       // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace perfsage::app
