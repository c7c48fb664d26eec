// One exception type for the whole tool. The code decides the exit status at the CLI:
// InvalidInput -> 2 (bad usage, unreadable or invalid model/tensor), Unsupported -> 3.
#pragma once
#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace ms {

enum class ErrorCode { InvalidInput = 2, Unsupported = 3, Internal = 4 };

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

template <class... Args>
[[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) {
  throw Error(ErrorCode::InvalidInput, fmt::format(f, std::forward<Args>(args)...));
}

template <class... Args>
[[noreturn]] void fail_unsupported(fmt::format_string<Args...> f, Args&&... args) {
  throw Error(ErrorCode::Unsupported, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace ms

// Validates a condition on model or tensor data; throws ms::Error(InvalidInput) with the message.
#define MS_CHECK(cond, ...)          \
  do {                               \
    if (!(cond)) ::ms::fail(__VA_ARGS__); \
  } while (0)
