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

std::vector<MigProfile> MigProfilesFor(const GpuSpec& gpu) { return gpu.mig_profiles; }

bool MigLayoutFits(std::span<const MigProfile> profiles, std::span<const int> chosen) {
  int g = 0, m = 0;
  for (int i : chosen) {
    g += profiles[i].compute_slices;
    m += profiles[i].memory_slices;
  }
  return g <= kMigComputeSlices && m <= kMigMemorySlices;
}

}  // namespace frugal::share
