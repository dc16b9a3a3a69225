// How jobs share one GPU: the mechanism (exclusive, time slicing, MPS with
// an SM percentage, MIG partitions) and the MIG profiles of the GPUs that
// have them, from the catalog (data/catalog/gpus.json, NVIDIA's MIG user
// guide): a GPU has 7 compute slices and 8 memory slices; a profile `Ng.Mgb`
// holds N compute slices and a fixed number of memory slices (with their
// share of memory bandwidth). Stateless; thread-safe.
#ifndef FRUGAL_SHARE_MECHANISM_H_
#define FRUGAL_SHARE_MECHANISM_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/hw/catalog.h"

namespace frugal::share {

enum class Mechanism {
  kExclusive,  // one job owns the GPU
  kTimeSlice,  // CUDA time slicing: contexts take turns
  kMps,        // NVIDIA MPS: concurrent kernels, each client capped at an SM share
  kMig,        // MIG: hardware partitions, no interference
};
const char* MechanismName(Mechanism m);  // exclusive, time-slice, mps, mig
std::optional<Mechanism> ParseMechanism(std::string_view name);

using MigProfile = frugal::MigProfile;  // hw/catalog.h

inline constexpr int kMigComputeSlices = 7;
inline constexpr int kMigMemorySlices = 8;

// The MIG profiles of `gpu` as the catalog lists them (A100, H100, H200),
// smallest first; empty when the GPU has no MIG.
std::vector<MigProfile> MigProfilesFor(const GpuSpec& gpu);

// Whether a set of profiles (indices into `profiles`) fits on one GPU: at
// most 7 compute slices and 8 memory slices in all. (NVIDIA's placement
// rules admit a subset of these; the layouts the policies use are valid.)
bool MigLayoutFits(std::span<const MigProfile> profiles, std::span<const int> chosen);

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_MECHANISM_H_
