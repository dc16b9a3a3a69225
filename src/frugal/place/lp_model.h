// A small linear / mixed-integer model builder over COIN-OR: columns and
// sparse rows are added, then the model is solved as an LP with CLP or as a
// MIP with CBC (time limit, threads, MIP start). The only file that touches
// COIN-OR; its exceptions are caught here and its output is silenced
// (quiet_output.h). A model with a non-finite or absurd coefficient or bound
// (|v| > kMaxLpMagnitude) is refused before the solver sees it: CLP aborts
// on an assertion with such numbers. Not thread-safe; one per solve.
#ifndef FRUGAL_PLACE_LP_MODEL_H_
#define FRUGAL_PLACE_LP_MODEL_H_

#include <limits>
#include <utility>
#include <vector>

#include "frugal/base/status.h"

namespace frugal::place {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
// Largest finite magnitude of a coefficient, bound or objective term.
inline constexpr double kMaxLpMagnitude = 1e18;

struct MipResult {
  bool has_solution = false;
  bool optimal = false;      // proven optimal
  bool time_limit = false;   // stopped by the time limit
  double objective = kInf;
  double bound = -kInf;      // best proven bound on the objective
  std::vector<double> x;     // column values when has_solution
};

struct MipSolveOptions {
  double time_limit_s = 10;
  int threads = 1;
  const std::vector<double>* start = nullptr;  // a feasible solution, or null
  double start_objective = 0;
};

class LpModel {
 public:
  // Returns the column index. Minimization.
  int AddColumn(double lb, double ub, double objective, bool integer = false);
  void AddRow(const std::vector<std::pair<int, double>>& coefs, double lb, double ub);
  int num_columns() const { return static_cast<int>(lb_.size()); }
  int num_rows() const { return static_cast<int>(row_lb_.size()); }

  // LP relaxation with CLP (dual simplex), stopped after time_limit_s
  // (then has_solution is false and time_limit true).
  Result<MipResult> SolveLp(double time_limit_s = kInf) const;
  // Branch and bound with CBC and its default cuts and heuristics.
  Result<MipResult> SolveMip(const MipSolveOptions& options) const;

 private:
  // InvalidArgument naming the first NaN or absurd number.
  Status CheckMagnitudes() const;

  std::vector<double> lb_, ub_, obj_;
  std::vector<bool> integer_;
  std::vector<int> row_start_, row_index_;
  std::vector<double> row_value_, row_lb_, row_ub_;
};

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_LP_MODEL_H_
