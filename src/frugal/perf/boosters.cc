#include "frugal/perf/boosters.h"

#include <fmt/format.h>
#include <xgboost/c_api.h>

#include <algorithm>
#include <optional>
#include <cmath>
#include <string_view>

#include "frugal/base/file_io.h"
#include "frugal/base/stats.h"

namespace frugal {
namespace {

using json = nlohmann::json;

Status XgbError(const char* what) {
  return Internal(fmt::format("xgboost: {}: {}", what, XGBGetLastError()));
}

#define FRUGAL_XGB(call, what)              \
  do {                                      \
    if ((call) != 0) return XgbError(what); \
  } while (0)

// Owns a DMatrix handle.
class Matrix {
 public:
  ~Matrix() {
    if (h_) XGDMatrixFree(h_);
  }
  DMatrixHandle* out() { return &h_; }
  DMatrixHandle get() const { return h_; }

 private:
  DMatrixHandle h_ = nullptr;
};

}  // namespace

// Owns a booster handle. Outside the anonymous namespace because OpBoosters::Impl, declared
// in the header, holds it.
class XgbBooster {
 public:
  XgbBooster() = default;
  XgbBooster(const XgbBooster&) = delete;
  XgbBooster& operator=(const XgbBooster&) = delete;
  ~XgbBooster() {
    if (h_) XGBoosterFree(h_);
  }
  BoosterHandle* out() { return &h_; }
  BoosterHandle get() const { return h_; }
  // The feature columns the booster was fitted on, ascending; empty = all.
  std::vector<uint32_t> columns;

 private:
  BoosterHandle h_ = nullptr;
};

namespace {

// The booster attribute that stores XgbBooster::columns ("0,3,4"), so a
// model file keeps them inside XGBoost's own format; absent = all columns
// (and in every model file written before it).
constexpr const char* kColumnsAttr = "frugal_columns";

// The columns of a row-major matrix with at least one value (not NaN). A
// feature that no row of an op type has (a GEMM tile's waves for softmax)
// is left out of its booster: column sampling then draws only among the
// features the op has, and a feature added for one op type leaves every
// other op type's trees exactly as they were.
std::vector<uint32_t> ColumnsWithValues(const std::vector<float>& x, size_t cols) {
  std::vector<uint32_t> kept;
  const size_t rows = cols ? x.size() / cols : 0;
  for (size_t c = 0; c < cols; ++c) {
    for (size_t r = 0; r < rows; ++r) {
      if (!std::isnan(x[r * cols + c])) {
        kept.push_back(static_cast<uint32_t>(c));
        break;
      }
    }
  }
  return kept;
}

// `x` (rows of `cols` features) reduced to `columns`.
std::vector<float> SelectColumns(const std::vector<float>& x, size_t cols,
                                 const std::vector<uint32_t>& columns) {
  const size_t rows = cols ? x.size() / cols : 0;
  std::vector<float> out;
  out.reserve(rows * columns.size());
  for (size_t r = 0; r < rows; ++r) {
    for (uint32_t c : columns) out.push_back(x[r * cols + c]);
  }
  return out;
}

// A DMatrix of `rows` rows of `cols` features `x`, reduced to `columns`
// unless that is empty (all columns).
Status MakeMatrix(const std::vector<float>& x, size_t rows, size_t cols,
                  const std::vector<uint32_t>& columns, int threads, Matrix* m,
                  const char* what) {
  const std::vector<float> kept = columns.empty() ? std::vector<float>() : SelectColumns(x, cols, columns);
  FRUGAL_XGB(XGDMatrixCreateFromMat_omp(columns.empty() ? x.data() : kept.data(), rows,
                                        columns.empty() ? cols : columns.size(), NAN, m->out(),
                                        threads),
             what);
  return Status::Ok();
}

// Parses kColumnsAttr's value: ascending column indices (at most 6 digits
// each, so the value cannot overflow).
Result<std::vector<uint32_t>> ParseColumns(std::string_view text, const std::string& what) {
  std::vector<uint32_t> columns;
  size_t i = 0;
  while (i <= text.size()) {
    const size_t j = std::min(text.find(',', i), text.size());
    const std::string_view item = text.substr(i, j - i);
    uint64_t v = 0;
    bool ok = !item.empty() && item.size() <= 6;
    for (char ch : item) {
      ok = ok && ch >= '0' && ch <= '9';
      v = v * 10 + static_cast<uint64_t>(ch - '0');
    }
    if (!ok || (!columns.empty() && v <= columns.back()))
      return InvalidArgument(what + ": malformed " + kColumnsAttr + " '" + std::string(text) + "'");
    columns.push_back(static_cast<uint32_t>(v));
    i = j + 1;
  }
  return columns;
}

}  // namespace

// XGBoost trusts a model's tree arrays: a child index that points back up
// the tree makes prediction loop forever. Nodes are numbered in expansion
// order, so every child must be -1 (leaf) or a later node of the same tree.
Status CheckXgbTreeModel(const nlohmann::json& model, const std::string& what) {
  const json* trees = nullptr;
  try {
    trees = &model.at("learner").at("gradient_booster").at("model").at("trees");
  } catch (const json::exception&) {
    return InvalidArgument(what + ": not an XGBoost tree model");
  }
  if (!trees->is_array()) return InvalidArgument(what + ": trees is not a list");
  // XGBoost stores counts as strings in its JSON; a count that disagrees
  // with the arrays makes it read out of bounds.
  auto count = [](const json& v) -> int64_t {
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_string()) {
      try {
        return std::stoll(v.get<std::string>());
      } catch (const std::exception&) {
      }
    }
    return -1;
  };
  int64_t num_feature = -1;
  try {
    num_feature = count(model.at("learner").at("learner_model_param").at("num_feature"));
    const json& gm = model.at("learner").at("gradient_booster").at("model");
    if (count(gm.at("gbtree_model_param").at("num_trees")) !=
            static_cast<int64_t>(trees->size()) ||
        !gm.at("tree_info").is_array() || gm.at("tree_info").size() != trees->size()) {
      return InvalidArgument(what + ": tree count disagrees with the trees");
    }
  } catch (const json::exception&) {
    return InvalidArgument(what + ": model parameters missing");
  }
  if (num_feature <= 0) return InvalidArgument(what + ": bad num_feature");
  for (size_t t = 0; t < trees->size(); ++t) {
    const json& tree = (*trees)[t];
    if (!tree.is_object()) return InvalidArgument(fmt::format("{}: tree {} is not an object", what, t));
    int64_t num_nodes = -1;
    if (tree.contains("tree_param") && tree["tree_param"].contains("num_nodes"))
      num_nodes = count(tree["tree_param"]["num_nodes"]);
    for (const char* field : {"left_children", "right_children", "parents", "split_indices",
                              "split_conditions", "default_left", "base_weights"}) {
      if (!tree.contains(field) || !tree[field].is_array() ||
          static_cast<int64_t>(tree[field].size()) != num_nodes) {
        return InvalidArgument(fmt::format("{}: tree {}: {} does not have num_nodes entries",
                                           what, t, field));
      }
    }
    if (!tree.contains("id") || count(tree["id"]) != static_cast<int64_t>(t))
      return InvalidArgument(fmt::format("{}: tree {} has id other than its index", what, t));
    // frugal trains no categorical splits.
    for (const char* field : {"categories", "categories_nodes", "categories_segments",
                              "categories_sizes", "split_type"}) {
      if (!tree.contains(field)) continue;
      const json& v = tree[field];
      const bool ok = v.is_array() && (std::string_view(field) == "split_type"
                                           ? static_cast<int64_t>(v.size()) == num_nodes
                                           : v.empty());
      if (!ok) return InvalidArgument(fmt::format("{}: tree {}: unexpected {}", what, t, field));
      if (std::string_view(field) == "split_type") {
        for (const json& x : v) {
          if (!x.is_number_integer() || x.get<int64_t>() != 0)
            return InvalidArgument(fmt::format("{}: tree {}: categorical split", what, t));
        }
      }
    }
    for (const json& f : tree["split_indices"]) {
      if (!f.is_number_integer() || f.get<int64_t>() < 0 || f.get<int64_t>() >= num_feature)
        return InvalidArgument(fmt::format("{}: tree {}: split feature out of range", what, t));
    }
    const json* left = tree.contains("left_children") ? &tree["left_children"] : nullptr;
    const json* right = tree.contains("right_children") ? &tree["right_children"] : nullptr;
    if (!left || !right || !left->is_array() || !right->is_array() ||
        left->size() != right->size() || left->empty()) {
      return InvalidArgument(fmt::format("{}: tree {} has malformed children", what, t));
    }
    const auto n = static_cast<int64_t>(left->size());
    for (int64_t i = 0; i < n; ++i) {
      for (const json* side : {left, right}) {
        const json& c = (*side)[static_cast<size_t>(i)];
        if (!c.is_number_integer()) {
          return InvalidArgument(fmt::format("{}: tree {} node {}: child is not an integer",
                                             what, t, i));
        }
        const auto child = c.get<int64_t>();
        if (child != -1 && (child <= i || child >= n)) {
          return InvalidArgument(fmt::format("{}: tree {} node {}: child {} is not a later node",
                                             what, t, i, child));
        }
      }
    }
  }
  return Status::Ok();
}

struct OpBoosters::Impl {
  std::map<PerfOp, std::unique_ptr<XgbBooster>> boosters;
  std::mutex mu;  // XGBoost prediction on one booster is serialised
};

OpBoosters::OpBoosters() : impl_(std::make_unique<Impl>()) {}
OpBoosters::~OpBoosters() = default;
void OpBoosters::Clear() { impl_->boosters.clear(); }
bool OpBoosters::empty() const { return impl_->boosters.empty(); }
bool OpBoosters::Has(PerfOp op) const { return impl_->boosters.count(op) > 0; }

Status OpBoosters::Fit(PerfOp op, const std::vector<float>& x, size_t cols,
                       const std::vector<float>& y,
                       const TrainOptions& options) {
  const int threads = std::max(1, options.threads);
  std::vector<uint32_t> columns = ColumnsWithValues(x, cols);
  if (columns.size() == cols) columns.clear();
  Matrix m;
  FRUGAL_RETURN_IF_ERROR(
      MakeMatrix(x, y.size(), cols, columns, threads, &m, "creating training matrix"));
  FRUGAL_XGB(XGDMatrixSetFloatInfo(m.get(), "label", y.data(), y.size()),
             "setting labels");
  auto b = std::make_unique<XgbBooster>();
  DMatrixHandle mats[] = {m.get()};
  FRUGAL_XGB(XGBoosterCreate(mats, 1, b->out()), "creating booster");
  const std::pair<const char*, std::string> params[] = {
      {"tree_method", "hist"},
      {"objective", "reg:squarederror"},
      {"max_depth", std::to_string(options.max_depth)},
      {"eta", fmt::format("{}", options.eta)},
      {"subsample", "0.8"},
      {"colsample_bytree", "0.8"},
      {"min_child_weight", "2"},
      {"max_bin", "256"},
      {"seed", std::to_string(options.seed)},
      {"nthread", std::to_string(threads)},
      {"verbosity", "0"},
  };
  for (const auto& [k, v] : params) {
    FRUGAL_XGB(XGBoosterSetParam(b->get(), k, v.c_str()), "setting parameters");
  }
  for (int it = 0; it < options.rounds; ++it) {
    FRUGAL_XGB(XGBoosterUpdateOneIter(b->get(), it, m.get()), "training");
  }
  if (!columns.empty()) {
    std::string text;
    for (uint32_t c : columns) text += (text.empty() ? "" : ",") + std::to_string(c);
    FRUGAL_XGB(XGBoosterSetAttr(b->get(), kColumnsAttr, text.c_str()), "storing columns");
  }
  b->columns = std::move(columns);
  impl_->boosters[op] = std::move(b);
  return Status::Ok();
}

Result<std::vector<float>> OpBoosters::Predict(const char* model, PerfOp op,
                                               const std::vector<float>& x,
                                               size_t cols) const {
  auto b = impl_->boosters.find(op);
  if (b == impl_->boosters.end()) {
    return NotFound(
        fmt::format("{} model was not trained on {}", model, PerfOpName(op)));
  }
  const size_t rows = cols ? x.size() / cols : 0;
  const std::vector<uint32_t>& columns = b->second->columns;
  if (!columns.empty() && columns.back() >= cols) {
    return InvalidArgument(fmt::format("{} model's {} booster reads feature {}; this build has {}",
                                       model, PerfOpName(op), columns.back(), cols));
  }
  std::lock_guard<std::mutex> lock(impl_->mu);
  Matrix m;
  FRUGAL_RETURN_IF_ERROR(
      MakeMatrix(x, rows, cols, columns, 1, &m, "creating prediction matrix"));
  bst_ulong len = 0;
  const float* pred = nullptr;
  FRUGAL_XGB(XGBoosterPredict(b->second->get(), m.get(), 0, 0, 0, &len, &pred),
             "predicting");
  if (len != rows) return Internal("xgboost: wrong prediction count");
  return std::vector<float>(pred, pred + len);
}

nlohmann::json OpBoosters::ToJson(bool binary) const {
  nlohmann::json boosters = nlohmann::json::object();
  for (const auto& [op, b] : impl_->boosters) {
    bst_ulong len = 0;
    const char* buf = nullptr;
    const char* config =
        binary ? R"({"format": "ubj"})" : R"({"format": "json"})";
    if (XGBoosterSaveModelToBuffer(b->get(), config, &len, &buf) != 0) continue;
    if (binary) {
      boosters[PerfOpName(op)] = nlohmann::json::binary(
          std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(buf),
                               reinterpret_cast<const uint8_t*>(buf) + len));
    } else {
      boosters[PerfOpName(op)] = nlohmann::json::parse(std::string(buf, len));
    }
  }
  return boosters;
}

Status OpBoosters::FromJson(const char* model, const nlohmann::json& j) {
  Clear();
  if (!j.is_object() || j.empty())
    return InvalidArgument(fmt::format("{}: state has no boosters", model));
  for (const auto& [name, blob] : j.items()) {
    PerfOp op;
    if (!ParsePerfOp(name, &op))
      return InvalidArgument(fmt::format("{}: unknown op '{}'", model, name));
    std::string bytes;
    if (blob.is_binary()) {
      bytes.assign(blob.get_binary().begin(), blob.get_binary().end());
    } else if (blob.is_object()) {
      bytes = blob.dump();
    } else if (blob.is_array()) {  // UBJSON readers may give bytes as numbers
      for (const auto& v : blob) bytes.push_back(static_cast<char>(v.get<int>()));
    } else {
      return InvalidArgument(
          fmt::format("{}: booster '{}' is not a model", model, name));
    }
    const std::string what = fmt::format("{}: booster '{}'", model, name);
    if (blob.is_object()) {
      FRUGAL_RETURN_IF_ERROR(CheckXgbTreeModel(blob, what));
    } else {
      FRUGAL_ASSIGN_OR_RETURN(json parsed, ParseUbjson(bytes, what));
      FRUGAL_RETURN_IF_ERROR(CheckXgbTreeModel(parsed, what));
    }
    auto b = std::make_unique<XgbBooster>();
    FRUGAL_XGB(XGBoosterCreate(nullptr, 0, b->out()), "creating booster");
    FRUGAL_XGB(XGBoosterLoadModelFromBuffer(b->get(), bytes.data(), bytes.size()),
               "loading booster");
    // One thread: predictions come in small batches, where OpenMP's
    // spinning workers cost more than they give on a busy host.
    FRUGAL_XGB(XGBoosterSetParam(b->get(), "nthread", "1"), "setting threads");
    const char* attr = nullptr;
    int found = 0;
    FRUGAL_XGB(XGBoosterGetAttr(b->get(), kColumnsAttr, &attr, &found), "reading columns");
    if (found) {
      FRUGAL_ASSIGN_OR_RETURN(b->columns, ParseColumns(attr ? attr : "", what));
      bst_ulong features = 0;
      FRUGAL_XGB(XGBoosterGetNumFeature(b->get(), &features), "reading feature count");
      if (features != b->columns.size())
        return InvalidArgument(fmt::format("{}: {} names {} columns for {} features", what,
                                           kColumnsAttr, b->columns.size(), features));
    }
    impl_->boosters[op] = std::move(b);
  }
  return Status::Ok();
}

void LatencyFloors::Fit(const std::vector<TrainRow>& rows) {
  by_gpu_.clear();
  default_.clear();
  std::map<std::pair<PerfOp, std::string>, std::vector<double>> lat;
  for (const auto& r : rows) lat[{r.shape.op, r.gpu->name}].push_back(r.latency_ms);
  std::map<PerfOp, std::vector<double>> per_op;
  for (auto& [key, v] : lat) {
    std::sort(v.begin(), v.end());
    const double f = v[static_cast<size_t>(0.02 * static_cast<double>(v.size() - 1))];
    by_gpu_[key.first][key.second] = f;
    per_op[key.first].push_back(f);
  }
  for (const auto& [op, v] : per_op) default_[op] = Median(v);
}

double LatencyFloors::Own(PerfOp op, const std::string& gpu) const {
  auto it = by_gpu_.find(op);
  if (it != by_gpu_.end()) {
    auto g = it->second.find(gpu);
    if (g != it->second.end()) return g->second;
  }
  auto d = default_.find(op);
  return d == default_.end() ? kLaunchOverheadMs : d->second;
}

double LatencyFloors::For(PerfOp op, const std::string& gpu) const {
  const double own = Own(op, gpu);
  std::optional<PerfOp> kin;
  if (IsScalarOperandPerfOp(op)) kin = BinaryFormOf(op);
  if (op == PerfOp::kConv) kin = PerfOp::kLinear;
  if (!kin || !Has(*kin)) return own;
  return std::min(own, Own(*kin, gpu));
}

nlohmann::json LatencyFloors::ToJson() const {
  nlohmann::json floors = nlohmann::json::object();
  for (const auto& [op, by_gpu] : by_gpu_) {
    floors[PerfOpName(op)] = {{"gpus", by_gpu}, {"default", default_.at(op)}};
  }
  return floors;
}

Status LatencyFloors::FromJson(const char* model, const nlohmann::json& j) {
  by_gpu_.clear();
  default_.clear();
  try {
    for (const auto& [name, f] : j.items()) {
      PerfOp op;
      if (!ParsePerfOp(name, &op))
        return InvalidArgument(fmt::format("{}: unknown op '{}'", model, name));
      default_[op] = f.at("default").get<double>();
      by_gpu_[op] = f.at("gpus").get<std::map<std::string, double>>();
    }
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument(fmt::format("{}: malformed floors: {}", model, e.what()));
  }
  return Status::Ok();
}

std::map<PerfOp, std::vector<const TrainRow*>> RowsAboveFloor(
    const std::vector<TrainRow>& rows, const LatencyFloors& floors) {
  constexpr double kAboveFloor = 1.25;
  std::map<PerfOp, std::vector<const TrainRow*>> by_op;
  for (const auto& r : rows) by_op[r.shape.op].push_back(&r);
  for (auto& [op, members] : by_op) {
    std::vector<const TrainRow*> above;
    for (const auto* r : members) {
      if (r->latency_ms > kAboveFloor * floors.For(op, r->gpu->name)) above.push_back(r);
    }
    if (above.size() >= 50) members = std::move(above);
  }
  return by_op;
}

std::map<PerfOp, std::vector<size_t>> IndicesByOp(std::span<const OpShape> shapes) {
  std::map<PerfOp, std::vector<size_t>> by_op;
  for (size_t i = 0; i < shapes.size(); ++i) by_op[shapes[i].op].push_back(i);
  return by_op;
}

}  // namespace frugal
