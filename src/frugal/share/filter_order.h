// The order in which a Kubernetes scheduler lists the nodes that pass its
// filters, which decides the "first of equal scores" choice (TieBreak::kFirst).
//
// Kubernetes 1.20 filters nodes with 16 goroutines; each takes the next
// chunk of min(floor(sqrt(N)), N / 16 + 1) nodes and appends a feasible node
// to the list when its check finishes, so the list is the node list
// interleaved across the chunks being checked at once, in an order set by
// goroutine timing. FilterOrder replays that: with `running` = 0 the list
// is node-list order (a serial scheduler); with `running` = P, P goroutines
// check chunks side by side (chunk c starts with round c / P), and each
// node's check lasts 1 ± `jitter` time units (uniform, drawn afresh for
// every pod). A node's key is the time its check finishes; the scheduler
// takes the equal-scored node with the smallest key, the lower index on a
// tie (running = 1 is node-list order again).
#ifndef FRUGAL_SHARE_FILTER_ORDER_H_
#define FRUGAL_SHARE_FILTER_ORDER_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/base/rng.h"
#include "frugal/base/status.h"

namespace frugal::share {

inline constexpr int kSchedulerParallelism = 16;  // Kubernetes' default

struct FilterOrder {
  int running = 0;    // goroutines checking at once, 0..16; 0: node-list order
  double jitter = 0;  // [0, 1]

  bool node_list() const { return running == 0; }
  bool redrawn() const { return running > 0 && jitter > 0; }
};

// Kubernetes' chunk size for n nodes (at least 1).
size_t FilterChunkSize(size_t n);

// The finish time of each of n nodes' checks. Draws from `rng` only when
// order.redrawn(). REQUIRES: !order.node_list().
void FilterOrderKeys(const FilterOrder& order, size_t n, SplitMix64* rng,
                     std::vector<double>* keys);

// "list", "parallel:P" or "parallel:P:J"; InvalidArgument naming the
// problem otherwise (P in 1..16, J in [0, 1]).
Result<FilterOrder> ParseFilterOrder(std::string_view text);
std::string FilterOrderName(const FilterOrder& order);

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_FILTER_ORDER_H_
