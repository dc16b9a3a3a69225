// RemoteLink: the emulated network between the cache tier and REMOTE_DIR.
// With a bandwidth set, every byte moved to or from the remote directory
// passes through one shared pipe per direction (downloads, uploads): a
// transfer reserves the pipe's next free interval and sleeps until it ends,
// so concurrent transfers share the bandwidth as on one link. A latency is
// slept once per remote request (an open that reads or writes data), not
// serialised. Unset (0) figures cost nothing. This is an emulation of an
// object store on a local disk, documented as such in docs/cache.md.
// Thread-safe.
#ifndef FRUGAL_CACHE_FUSE_REMOTE_LINK_H_
#define FRUGAL_CACHE_FUSE_REMOTE_LINK_H_

#include <chrono>
#include <cstdint>
#include <mutex>

namespace frugal::cache::fuse {

class RemoteLink {
 public:
  // mb_per_s: megabytes (1e6 bytes) per second per direction, 0 = unlimited.
  // latency_ms: per remote request, 0 = none. REQUIRES: both >= 0.
  RemoteLink(double mb_per_s, double latency_ms);

  void Request() const;          // one request's latency
  void Download(int64_t bytes);  // blocks for the bytes' share of the pipe
  void Upload(int64_t bytes);

  bool throttled() const { return bytes_per_s_ > 0 || latency_.count() > 0; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Pipe {
    std::mutex mu;
    Clock::time_point next_free{};
  };
  void Transfer(Pipe& pipe, int64_t bytes);

  double bytes_per_s_;
  std::chrono::microseconds latency_;
  Pipe down_, up_;
};

}  // namespace frugal::cache::fuse

#endif  // FRUGAL_CACHE_FUSE_REMOTE_LINK_H_
