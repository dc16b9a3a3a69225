#include "frugal/place/quiet_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

namespace frugal::place {
namespace {

int depth = 0;

}  // namespace

QuietOutput::QuietOutput() {
  if (depth++ > 0) return;
  std::fflush(stdout);
  std::fflush(stderr);
  const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_fd < 0) return;  // nothing to redirect to: output stays visible
  saved_out_ = ::dup(1);
  saved_err_ = ::dup(2);
  if (saved_out_ >= 0) ::dup2(null_fd, 1);
  if (saved_err_ >= 0) ::dup2(null_fd, 2);
  ::close(null_fd);
}

QuietOutput::~QuietOutput() {
  --depth;
  std::fflush(stdout);
  std::fflush(stderr);
  if (saved_out_ >= 0) {
    ::dup2(saved_out_, 1);
    ::close(saved_out_);
  }
  if (saved_err_ >= 0) {
    ::dup2(saved_err_, 2);
    ::close(saved_err_);
  }
}

}  // namespace frugal::place
