#include "frugal/place/lp_model.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>

#include <CbcModel.hpp>
#include <CbcStrategy.hpp>
#include <ClpSimplex.hpp>
#include <CoinError.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>
#include <fmt/format.h>

#include "frugal/place/quiet_output.h"

namespace frugal::place {
namespace {

double Coin(double v) { return std::isinf(v) ? (v > 0 ? COIN_DBL_MAX : -COIN_DBL_MAX) : v; }

}  // namespace

int LpModel::AddColumn(double lb, double ub, double objective, bool integer) {
  lb_.push_back(lb);
  ub_.push_back(ub);
  obj_.push_back(objective);
  integer_.push_back(integer);
  return static_cast<int>(lb_.size()) - 1;
}

void LpModel::AddRow(const std::vector<std::pair<int, double>>& coefs, double lb,
                     double ub) {
  if (row_start_.empty()) row_start_.push_back(0);
  for (const auto& [col, v] : coefs) {
    row_index_.push_back(col);
    row_value_.push_back(v);
  }
  row_start_.push_back(static_cast<int>(row_index_.size()));
  row_lb_.push_back(lb);
  row_ub_.push_back(ub);
}

namespace {

void Load(OsiClpSolverInterface* si, const std::vector<double>& lb,
          const std::vector<double>& ub, const std::vector<double>& obj,
          const std::vector<int>& starts, const std::vector<int>& index,
          const std::vector<double>& value, const std::vector<double>& rlb,
          const std::vector<double>& rub) {
  const int ncols = static_cast<int>(lb.size()), nrows = static_cast<int>(rlb.size());
  std::vector<int> st = starts.empty() ? std::vector<int>{0} : starts;
  std::vector<int> lengths(nrows);
  for (int r = 0; r < nrows; ++r) lengths[r] = st[r + 1] - st[r];
  CoinPackedMatrix m(false, ncols, nrows, static_cast<CoinBigIndex>(index.size()),
                     value.data(), index.data(), st.data(), lengths.data());
  std::vector<double> clb(ncols), cub(ncols), rl(nrows), ru(nrows);
  for (int i = 0; i < ncols; ++i) clb[i] = Coin(lb[i]), cub[i] = Coin(ub[i]);
  for (int r = 0; r < nrows; ++r) rl[r] = Coin(rlb[r]), ru[r] = Coin(rub[r]);
  si->loadProblem(m, clb.data(), cub.data(), obj.data(), rl.data(), ru.data());
  si->messageHandler()->setLogLevel(0);
  si->getModelPtr()->setLogLevel(0);
}

}  // namespace

Status LpModel::CheckMagnitudes() const {
  auto bad = [](double v, bool infinite_ok) {
    return std::isnan(v) || (std::isinf(v) ? !infinite_ok : std::fabs(v) > kMaxLpMagnitude);
  };
  for (int i = 0; i < num_columns(); ++i) {
    if (bad(lb_[i], true) || bad(ub_[i], true) || bad(obj_[i], false)) {
      return InvalidArgument(fmt::format("LP column {}: bound or cost out of range [{:g}, {:g}] "
                                         "(absurd op times or transfer costs?)",
                                         i, lb_[i], ub_[i]));
    }
  }
  for (size_t k = 0; k < row_value_.size(); ++k) {
    if (bad(row_value_[k], false)) {
      return InvalidArgument(fmt::format("LP coefficient {:g} out of range (absurd op times or "
                                         "transfer costs?)", row_value_[k]));
    }
  }
  for (int r = 0; r < num_rows(); ++r) {
    if (bad(row_lb_[r], true) || bad(row_ub_[r], true)) {
      return InvalidArgument(fmt::format("LP row {}: bound out of range [{:g}, {:g}] (absurd op "
                                         "times or transfer costs?)", r, row_lb_[r], row_ub_[r]));
    }
  }
  return Status::Ok();
}

Result<MipResult> LpModel::SolveLp(double time_limit_s) const {
  FRUGAL_RETURN_IF_ERROR(CheckMagnitudes());
  QuietOutput quiet;
  try {
    OsiClpSolverInterface si;
    Load(&si, lb_, ub_, obj_, row_start_, row_index_, row_value_, row_lb_, row_ub_);
    if (std::isfinite(time_limit_s)) {
      si.getModelPtr()->setMaximumSeconds(std::max(0.01, time_limit_s));
    }
    si.initialSolve();
    MipResult r;
    if (!si.isProvenOptimal()) {
      r.time_limit = si.getModelPtr()->status() == 3;  // stopped on iterations / time
      return r;
    }
    r.has_solution = r.optimal = true;
    r.objective = r.bound = si.getObjValue();
    r.x.assign(si.getColSolution(), si.getColSolution() + num_columns());
    return r;
  } catch (const CoinError& e) {
    return Internal("CLP: " + e.message());
  } catch (const std::exception& e) {
    return Internal(std::string("CLP: ") + e.what());
  }
}

Result<MipResult> LpModel::SolveMip(const MipSolveOptions& options) const {
  FRUGAL_RETURN_IF_ERROR(CheckMagnitudes());
  QuietOutput quiet;
  try {
    OsiClpSolverInterface si;
    Load(&si, lb_, ub_, obj_, row_start_, row_index_, row_value_, row_lb_, row_ub_);
    for (int i = 0; i < num_columns(); ++i) {
      if (integer_[i]) si.setInteger(i);
    }
    CbcModel model(si);
    model.setLogLevel(0);
    model.messageHandler()->setLogLevel(0);
    model.solver()->messageHandler()->setLogLevel(0);
    model.setMaximumSeconds(std::max(0.01, options.time_limit_s));
    model.setNumberThreads(options.threads > 1 ? options.threads : 0);
    model.setUseElapsedTime(true);
    // No preprocessing: CBC drops a MIP start that preprocessing reshapes.
    CbcStrategyDefault strategy(1, 5, 0);
    model.setStrategy(strategy);
    if (options.start) {
      model.setBestSolution(options.start->data(), num_columns(), options.start_objective,
                            true);
    }
    // CBC's limit does not cover the root LP; CLP's own does.
    if (auto* clp = dynamic_cast<OsiClpSolverInterface*>(model.solver())) {
      clp->getModelPtr()->setMaximumSeconds(std::max(0.01, options.time_limit_s));
    }
    model.branchAndBound();
    MipResult r;
    r.time_limit = model.isSecondsLimitReached() || model.maximumSecondsReached();
    r.optimal = model.isProvenOptimal() && !r.time_limit;
    if (model.bestSolution() && model.getObjValue() < 1e40) {
      r.has_solution = true;
      r.objective = model.getObjValue();
      r.x.assign(model.bestSolution(), model.bestSolution() + num_columns());
    }
    r.bound = model.getBestPossibleObjValue();
    if (r.optimal && r.has_solution) r.bound = r.objective;
    return r;
  } catch (const CoinError& e) {
    return Internal("CBC: " + e.message());
  } catch (const std::exception& e) {
    return Internal(std::string("CBC: ") + e.what());
  }
}

}  // namespace frugal::place
