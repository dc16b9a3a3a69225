// Test helpers: the bundled catalog, the roofline op-time model and a small
// workload of bundled models.
#ifndef FRUGAL_SHARE_TEST_UTIL_H_
#define FRUGAL_SHARE_TEST_UTIL_H_

#include <memory>

#include <gtest/gtest.h>

#include "frugal/hw/catalog.h"
#include "frugal/perf/op_time_model.h"
#include "frugal/share/workload.h"

namespace frugal::share::testing {

inline const Catalog& TestCatalog() {
  static const Catalog* c = [] {
    auto r = LoadCatalog(DefaultCatalogPath());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return new Catalog(std::move(r).value());
  }();
  return *c;
}

inline const GpuSpec& Gpu(const char* name) { return *TestCatalog().FindGpu(name); }

inline const OpTimeModel& Roofline() {
  static const OpTimeModel* m = [] {
    auto r = OpenOpTimeModel("roofline");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return std::move(r).value().release();
  }();
  return *m;
}

// Two light services and two training jobs over two hours.
inline Workload SmallWorkload() {
  Workload w;
  w.horizon_s = 7200;
  InferenceService a;
  a.name = "resnet";
  a.model = "resnet50";
  a.batch_sizes = {1, 2, 4, 8};
  a.slo_p99_ms = 60;
  a.max_queue_delay_ms = 5;
  a.arrivals.rate_rps = 20;
  a.arrivals.diurnal_amplitude = 0.3;
  a.end_s = 7200;
  InferenceService b = a;
  b.name = "mobilenet";
  b.model = "mobilenet_v2";
  b.slo_p99_ms = 30;
  b.arrivals.rate_rps = 30;
  w.services = {a, b};
  TrainingJob t;
  t.name = "vgg";
  t.model = "vgg16";
  t.batch = 16;
  t.arrival_s = 100;
  t.duration_s = 1800;
  t.gpu_util = 0.5;
  TrainingJob u = t;
  u.name = "mob";
  u.model = "mobilenet_v2";
  u.arrival_s = 600;
  u.duration_s = 3600;
  u.gpu_util = 0.4;
  w.training = {t, u};
  return w;
}

}  // namespace frugal::share::testing

#endif  // FRUGAL_SHARE_TEST_UTIL_H_
