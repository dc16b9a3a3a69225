#include "frugal/cache/fuse/remote_link.h"

#include <algorithm>
#include <thread>

namespace frugal::cache::fuse {

RemoteLink::RemoteLink(double mb_per_s, double latency_ms)
    : bytes_per_s_(mb_per_s * 1e6),
      latency_(static_cast<int64_t>(latency_ms * 1000.0)) {}

void RemoteLink::Request() const {
  if (latency_.count() > 0) std::this_thread::sleep_for(latency_);
}

void RemoteLink::Download(int64_t bytes) { Transfer(down_, bytes); }
void RemoteLink::Upload(int64_t bytes) { Transfer(up_, bytes); }

void RemoteLink::Transfer(Pipe& pipe, int64_t bytes) {
  if (bytes_per_s_ <= 0 || bytes <= 0) return;
  const auto cost = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(static_cast<double>(bytes) / bytes_per_s_));
  Clock::time_point done;
  {
    std::lock_guard<std::mutex> lock(pipe.mu);
    // An idle pipe does not bank credit: a transfer starts no earlier than now.
    const Clock::time_point start = std::max(Clock::now(), pipe.next_free);
    done = start + cost;
    pipe.next_free = done;
  }
  std::this_thread::sleep_until(done);
}

}  // namespace frugal::cache::fuse
