// exclusive: every job gets a whole GPU of its own (today's default).
#include <fmt/format.h>

#include "frugal/share/sharing_policy.h"

namespace frugal::share {
namespace {

class Exclusive final : public SharingPolicy {
 public:
  const char* name() const override { return "exclusive"; }
  bool co_locates() const override { return false; }
  PlaceResult Place(int job, ClusterState* c, const Planner&) override {
    const int g = c->FreeGpu();
    if (g < 0) return {false, fmt::format("all {} GPUs are in use", c->max_gpus)};
    GpuState s;
    s.slots.push_back({job, 1, -1});
    c->Put(g, std::move(s));
    return {true, ""};
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> NewExclusivePolicy() { return std::make_unique<Exclusive>(); }

}  // namespace frugal::share
