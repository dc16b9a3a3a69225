// Status and Result<T>: how a call went. No exception crosses a frugal public
// API; functions that can fail return a Status (no value) or a Result<T>
// (a value or a Status). Messages are one line and name the file or input
// that caused the problem. Both types are plain values; thread-compatible.
#ifndef FRUGAL_BASE_STATUS_H_
#define FRUGAL_BASE_STATUS_H_

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace frugal {

enum class StatusCode {
  kOk,
  kInvalidArgument,  // bad user input: malformed file, negative size, cycle
  kNotFound,         // missing file, unknown GPU / instance / verb
  kUnimplemented,    // valid input that frugal does not support yet
  kFailedPrecondition,
  kOutOfRange,
  kInternal,  // a bug in frugal or a third-party library
};

const char* StatusCodeName(StatusCode code);

class Status {
 public:
  Status() = default;  // ok
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid argument: model.onnx: truncated protobuf".
  std::string ToString() const;

  // Returns a copy whose message is "prefix: message".
  Status WithPrefix(const std::string& prefix) const;

  bool operator==(const Status&) const = default;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) {
  return Status(StatusCode::kInvalidArgument, std::move(m));
}
inline Status NotFound(std::string m) {
  return Status(StatusCode::kNotFound, std::move(m));
}
inline Status Unimplemented(std::string m) {
  return Status(StatusCode::kUnimplemented, std::move(m));
}
inline Status FailedPrecondition(std::string m) {
  return Status(StatusCode::kFailedPrecondition, std::move(m));
}
inline Status OutOfRange(std::string m) {
  return Status(StatusCode::kOutOfRange, std::move(m));
}
inline Status Internal(std::string m) {
  return Status(StatusCode::kInternal, std::move(m));
}

// A value of type T, or the Status that explains why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(v_).ok() && "Result from an ok Status");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  // REQUIRES: !ok() for a meaningful status; returns Ok when a value is held.
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }

  // REQUIRES: ok().
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace frugal

// Propagates a non-ok Status from an expression returning Status.
#define FRUGAL_RETURN_IF_ERROR(expr)            \
  do {                                          \
    ::frugal::Status frugal_status_ = (expr);   \
    if (!frugal_status_.ok()) return frugal_status_; \
  } while (0)

#define FRUGAL_CONCAT_INNER_(a, b) a##b
#define FRUGAL_CONCAT_(a, b) FRUGAL_CONCAT_INNER_(a, b)

// FRUGAL_ASSIGN_OR_RETURN(auto x, MakeX()); returns the Status on error.
#define FRUGAL_ASSIGN_OR_RETURN(lhs, expr) \
  FRUGAL_ASSIGN_OR_RETURN_IMPL_(FRUGAL_CONCAT_(frugal_result_, __LINE__), lhs, expr)
#define FRUGAL_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

#endif  // FRUGAL_BASE_STATUS_H_
