// Readers of measured co-location data, into ColoSamples (interference.h):
//
// - Gavel (OSDI'20, MIT): simulation_throughputs.json,
//   d[gpu]["('Job', scale)"]["('Other', scale)"] = [tput job, tput other],
//   key "null" = the job alone. Only single-GPU (scale 1) pairs on the
//   consolidated GPU keys (k80, p100, v100) are pairs of co-located jobs.
//   Each ordered entry (A, B) is one sample: A's co-located / solo
//   throughput next to B. [0, 0] entries are pairs that did not fit and are
//   skipped and counted; so are entries where both jobs run exactly at
//   their solo throughput (v100 has such entries: not a measurement of
//   sharing), counted in `equal_solo`.
// - Lucid (ASPLOS'23, non-commercial): colocate_info.csv (one row per pair,
//   each job's normalised speed) and single_data.csv (each job alone: speed,
//   GPU utilisation %, memory MiB). Each pair row gives two samples, one per
//   job. Read at run time from ../shared; never copied into the project.
//
// Stateless functions; thread-safe.
#ifndef FRUGAL_SHARE_COLOCATION_DATA_H_
#define FRUGAL_SHARE_COLOCATION_DATA_H_

#include <map>
#include <string>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/share/interference.h"

namespace frugal::share {

struct ColoDataset {
  std::string source;  // the path(s) read
  std::vector<ColoSample> samples;
  // Skipped entries, by gpu (Gavel) or "" (Lucid).
  std::map<std::string, int> infeasible;  // [0, 0]: the pair did not run
  std::map<std::string, int> equal_solo;  // both jobs exactly at solo speed
};

// The consolidated GPU keys Gavel measured, and the catalog GPU each names
// (K80 boards of AWS p2, P100-PCIE of GCP, V100-SXM2-16GB of AWS p3).
inline constexpr const char* kGavelGpus[] = {"k80", "p100", "v100"};
const char* GavelCatalogGpu(const std::string& key);  // nullptr if unknown

// Reads Gavel's JSON. `gpu` selects one of kGavelGpus ("" = all three);
// InvalidArgument for another name. Errors name the file and the entry:
// malformed JSON, a key that is not ('Name', scale), a missing or
// non-positive solo throughput, a pair value that is not two finite
// non-negative numbers.
Result<ColoDataset> ReadGavel(const std::string& path,
                              const std::string& gpu = "");
Result<ColoDataset> ParseGavel(const std::string& text, const std::string& path,
                               const std::string& gpu = "");

// Reads Lucid's two CSVs from `dir` (colocate_info.csv, single_data.csv).
// Errors name the file and line: missing columns, numbers that do not parse
// or are negative / not finite, a co-located job with no solo row.
Result<ColoDataset> ReadLucid(const std::string& dir);
Result<ColoDataset> ParseLucid(const std::string& colocate_csv,
                               const std::string& single_csv,
                               const std::string& colocate_path,
                               const std::string& single_path);

// The default data folders under ../shared/data/share (from the project
// root); $FRUGAL_SHARE_DATA overrides the folder holding gavel/ and lucid/.
std::string DefaultGavelPath();
std::string DefaultLucidDir();

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_COLOCATION_DATA_H_
