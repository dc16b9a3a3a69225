// Silences third-party libraries that print on the process's stdout and
// stderr (METIS's "***" input errors, COIN-OR banners): while a QuietOutput
// lives, file descriptors 1 and 2 point at /dev/null, so the CLI's --json
// output stays parseable. Affects the whole process: hold one only around a
// single-threaded library call. Nests (an inner one is a no-op).
#ifndef FRUGAL_PLACE_QUIET_OUTPUT_H_
#define FRUGAL_PLACE_QUIET_OUTPUT_H_

namespace frugal::place {

class QuietOutput {
 public:
  QuietOutput();
  ~QuietOutput();
  QuietOutput(const QuietOutput&) = delete;
  QuietOutput& operator=(const QuietOutput&) = delete;

 private:
  int saved_out_ = -1;
  int saved_err_ = -1;
};

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_QUIET_OUTPUT_H_
