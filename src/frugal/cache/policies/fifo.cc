// FIFO: evicts the object admitted first; hits change nothing.
#include "frugal/cache/policies/evicting_policy.h"
#include "frugal/cache/policies/policies.h"

namespace frugal::cache {
namespace {

class Fifo : public QueuePolicy {
 public:
  using QueuePolicy::QueuePolicy;
};

}  // namespace

std::unique_ptr<CachePolicy> NewFifo(const PolicyOptions& o) { return std::make_unique<Fifo>(o); }

}  // namespace frugal::cache
