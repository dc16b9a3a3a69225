// Link models for placement: which links a transfer between two devices
// occupies, and how long it takes. Presets: `nvlink` (a dedicated link per
// directed device pair, all-to-all) and `pcie` (every transfer crosses one
// shared host bridge, so concurrent transfers contend and queue), plus a
// custom JSON topology (format in docs/place.md). A Topology is a value;
// thread-compatible.
#ifndef FRUGAL_PLACE_TOPOLOGY_H_
#define FRUGAL_PLACE_TOPOLOGY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "frugal/base/status.h"

namespace frugal::place {

struct Link {
  std::string name;         // "nvl0->1", "bridge"
  double bw_gbps = 0;       // 10^9 bytes per second. REQUIRES: > 0.
  double latency_us = 0;    // per transfer. REQUIRES: >= 0.
};

struct Topology {
  std::string name;  // "nvlink", "pcie" or the file name
  int num_devices = 0;
  std::vector<Link> links;
  // routes[src * num_devices + dst]: links a src->dst transfer occupies, all
  // at once. Empty for src == dst.
  std::vector<std::vector<int>> routes;
  // When an edge carries a measured transfer time (dnn-partitioning `cost`),
  // a transfer takes that time times this scale; otherwise latency +
  // bytes / bandwidth of the slowest link on the route. Default: 1.
  double measured_scale = 1.0;
  // Every device pair is alike (presets): lets the MIP break symmetry.
  bool symmetric = false;

  const std::vector<int>& Route(int src, int dst) const {
    return routes[static_cast<size_t>(src) * num_devices + dst];
  }
  // Duration of one src->dst transfer without contention, ms.
  // measured_ms < 0 = no measurement. REQUIRES: src != dst, both valid.
  double TransferMs(int64_t bytes, double measured_ms, int src, int dst) const;
};

// The cheapest transfer of a tensor over any device pair, without trying
// every pair per tensor: the lower envelope of latency + bytes / bandwidth
// over the routes (a concave piecewise-linear function of the bytes), built
// once in O(K^2) and queried in O(log routes). A value; thread-safe to read.
class TransferEnvelope {
 public:
  explicit TransferEnvelope(const Topology& t);
  // min over src != dst of t.TransferMs(bytes, measured_ms, src, dst);
  // 0 with one device.
  double MinMs(int64_t bytes, double measured_ms) const;

 private:
  struct Line {
    double latency_ms;
    double ms_per_byte;
    double bw_gbps;
  };
  std::vector<Line> hull_;  // slope decreasing; hull_[i] is best on [x_[i-1], x_[i]]
  std::vector<double> x_;   // breakpoints (bytes), hull_.size() - 1 of them
  double measured_scale_ = 1;
  bool any_pair_ = false;
};

// Largest device count of a placement problem (the presets hold K^2 links).
inline constexpr int kMaxPlaceDevices = 1024;
// Link figures beyond these are absurd input, refused like absurd sizes.
inline constexpr double kMinLinkGbps = 1e-6;       // 1 KB/s
inline constexpr double kMaxLinkLatencyUs = 1e9;   // 1000 s per transfer
inline constexpr double kMaxMeasuredScale = 1e6;

// Per directed pair bandwidth of the presets, GB/s, and latency, us.
inline constexpr double kNvlinkPairGbps = 50.0;   // NVLink3 A100: 600 GB/s / 12 links
inline constexpr double kNvlinkLatencyUs = 5.0;
inline constexpr double kPcieBridgeGbps = 16.0;   // PCIe 4.0 x16, practical
inline constexpr double kPcieLatencyUs = 10.0;

// REQUIRES: num_devices >= 1.
Topology NvlinkTopology(int num_devices, double pair_gbps = kNvlinkPairGbps);
Topology PcieTopology(int num_devices, double bridge_gbps = kPcieBridgeGbps);

// Reads a custom topology (docs/place.md). `num_devices` must match the
// file's "devices" when it has one. InvalidArgument naming the file for
// unknown links, a device pair without a route, a bandwidth below
// kMinLinkGbps, a latency above kMaxLinkLatencyUs or a measured_scale above
// kMaxMeasuredScale.
Result<Topology> LoadTopology(const std::string& path, int num_devices);
Result<Topology> ParseTopology(const std::string& path, const std::string& text,
                               int num_devices);

// "nvlink", "pcie" or a file path. InvalidArgument unless
// 1 <= num_devices <= kMaxPlaceDevices.
Result<Topology> MakeTopology(const std::string& spec, int num_devices);

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_TOPOLOGY_H_
