// The catalog's JSON form (schema in docs/catalog.md): one document holds
// "references", "gpus" and/or "instances". Parsing checks each entry alone
// (types, positive finite numbers, a source for every figure, no unknown
// fields); Catalog::Build checks across entries. Writing emits every field,
// with null for absent optional figures and one source per figure, so the
// output of CatalogToJson is itself a valid catalog file. Stateless.
#ifndef FRUGAL_HW_CATALOG_JSON_H_
#define FRUGAL_HW_CATALOG_JSON_H_

#include <nlohmann/json.hpp>
#include <string>

#include "frugal/base/status.h"
#include "frugal/hw/catalog.h"

namespace frugal {

// The fields that state a fact, and so must carry a source.
inline constexpr const char* kGpuFigureFields[] = {"architecture",
                                                   "mem_gib",
                                                   "mem_bw_gbps",
                                                   "memory_type",
                                                   "fp32_tflops",
                                                   "fp16_tensor_tflops",
                                                   "bf16_tensor_tflops",
                                                   "tf32_tensor_tflops",
                                                   "sm_count",
                                                   "l2_mib",
                                                   "boost_clock_mhz",
                                                   "nvlink_gbps",
                                                   "pcie_gen",
                                                   "tdp_w",
                                                   "sustained_fp32_gemm_tflops",
                                                   "benchmarked_fp32_gemm_tflops",
                                                   "mig_profiles"};
inline constexpr const char* kInstanceFigureFields[] = {"gpu",
                                                        "gpu_count",
                                                        "vcpus",
                                                        "ram_gib",
                                                        "network_gbit_per_s",
                                                        "interconnect",
                                                        "price_usd_per_hour"};

// Appends the references, GPUs and instances of `doc` to `data`. `path`
// names the document in errors and becomes each entry's origin. A reference
// id already in `data` is an error.
Status AppendCatalogJson(const nlohmann::json& doc, const std::string& path,
                         CatalogData* data);

nlohmann::json GpuToJson(const GpuSpec& g);
nlohmann::json InstanceToJson(const InstanceSpec& i);
nlohmann::json SourceRefToJson(const SourceRef& r);
// {"schema_version", "references", "gpus", "instances"}.
nlohmann::json CatalogToJson(const Catalog& c);

}  // namespace frugal

#endif  // FRUGAL_HW_CATALOG_JSON_H_
