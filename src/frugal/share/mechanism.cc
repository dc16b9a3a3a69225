#include "frugal/share/mechanism.h"


namespace frugal::share {
namespace {

struct MechName {
  Mechanism m;
  const char* name;
};
constexpr MechName kNames[] = {{Mechanism::kExclusive, "exclusive"},
                               {Mechanism::kTimeSlice, "time-slice"},
                               {Mechanism::kMps, "mps"},
                               {Mechanism::kMig, "mig"}};

}  // namespace

const char* MechanismName(Mechanism m) {
  for (const auto& n : kNames) {
    if (n.m == m) return n.name;
  }
  return "?";
}

std::optional<Mechanism> ParseMechanism(std::string_view name) {
  for (const auto& n : kNames) {
    if (name == n.name) return n.m;
  }
  return std::nullopt;
}

std::vector<MigProfile> MigProfilesFor(const GpuSpec& gpu) {
  const std::string key = CatalogKey(gpu.name);
  const bool a100 = key.rfind("a100", 0) == 0;
  const bool h100 = key.rfind("h100", 0) == 0;
  const bool h200 = key.rfind("h200", 0) == 0;
  if (!a100 && !h100 && !h200) return {};
  // Memory per memory slice: 40 GB parts 5 GB, 80 GB parts 10 GB, H200 141 GB
  // parts 18 GB (NVIDIA's 1g.18gb); the usable sizes of the guide's table.
  double slice_gib = gpu.mem_gib >= 120 ? 17.625 : (gpu.mem_gib >= 60 ? 10 : 5);
  auto p = [&](int g, int m) {
    const double gib = slice_gib * m;
    const int label = static_cast<int>(gib + 0.5);
    return MigProfile{std::to_string(g) + "g." + std::to_string(label) + "gb", g, m,
                      gib * 0.98};  // the instance keeps a little for itself
  };
  return {p(1, 1), p(2, 2), p(3, 4), p(4, 4), p(7, 8)};
}

bool MigLayoutFits(std::span<const MigProfile> profiles, std::span<const int> chosen) {
  int g = 0, m = 0;
  for (int i : chosen) {
    g += profiles[i].compute_slices;
    m += profiles[i].memory_slices;
  }
  return g <= kMigComputeSlices && m <= kMigMemorySlices;
}

}  // namespace frugal::share
