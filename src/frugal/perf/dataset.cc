#include "frugal/perf/dataset.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "frugal/base/file_io.h"

namespace frugal {
namespace {

struct PerfOpRow {
  PerfOp op;
  const char* name;
};

constexpr PerfOpRow kPerfOps[] = {
    {PerfOp::kConv, "conv"},    {PerfOp::kLinear, "linear"},
    {PerfOp::kBmm, "bmm"},      {PerfOp::kSoftmax, "softmax"},
    {PerfOp::kLayerNorm, "ln"}, {PerfOp::kAdd, "add"},
    {PerfOp::kMul, "mul"},      {PerfOp::kDiv, "div"},
    {PerfOp::kPow, "pow"},      {PerfOp::kRelu, "relu"},
    {PerfOp::kGelu, "gelu"},    {PerfOp::kTanh, "tanh"},
    {PerfOp::kAddScalar, "addu"}, {PerfOp::kMulScalar, "mulu"},
    {PerfOp::kDivScalar, "divu"}, {PerfOp::kPowScalar, "powu"},
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// Splits one CSV record (RFC 4180 quoting, no embedded newlines). False on
// an unterminated quote.
bool SplitCsvLine(std::string_view line, std::vector<std::string>* fields) {
  fields->clear();
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          cur += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields->push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (quoted) return false;
  fields->push_back(std::move(cur));
  return true;
}

bool ParseDouble(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(*out);
}

// Shape columns by op, in the CSV's spelling; alternatives after '|'.
struct ShapeColumn {
  const char* names;
  int64_t OpShape::*field;
  int64_t min_value;
};

const std::vector<ShapeColumn>& ShapeColumns(PerfOp op) {
  static const std::vector<ShapeColumn> conv = {
      {"B", &OpShape::b, 1},
      {"Input_Channel", &OpShape::in_channels, 1},
      {"Output_Channel", &OpShape::out_channels, 1},
      {"Kernel_Szie|Kernel_Size", &OpShape::kernel, 1},
      {"Input_Size", &OpShape::image, 1},
      {"Stride", &OpShape::stride, 1},
      {"Padding", &OpShape::padding, 0},
  };
  static const std::vector<ShapeColumn> gemm = {{"B", &OpShape::b, 1},
                                                {"M", &OpShape::m, 1},
                                                {"N", &OpShape::n, 1},
                                                {"K", &OpShape::k, 1}};
  static const std::vector<ShapeColumn> rows = {{"B", &OpShape::b, 1},
                                                {"H", &OpShape::h, 1}};
  switch (op) {
    case PerfOp::kConv:
      return conv;
    case PerfOp::kLinear:
    case PerfOp::kBmm:
      return gemm;
    default:
      return rows;
  }
}

// Finds a column by any of its '|'-separated names, ignoring case.
int FindColumn(const std::map<std::string, int>& index,
               std::string_view names) {
  size_t start = 0;
  while (start <= names.size()) {
    size_t bar = names.find('|', start);
    if (bar == std::string_view::npos) bar = names.size();
    auto it = index.find(Lower(names.substr(start, bar - start)));
    if (it != index.end()) return it->second;
    start = bar + 1;
  }
  return -1;
}

}  // namespace

const char* PerfOpName(PerfOp op) {
  for (const auto& row : kPerfOps) {
    if (row.op == op) return row.name;
  }
  return "?";
}

// Binary ops and their scalar-operand forms.
constexpr std::pair<PerfOp, PerfOp> kScalarForms[] = {
    {PerfOp::kAdd, PerfOp::kAddScalar},
    {PerfOp::kMul, PerfOp::kMulScalar},
    {PerfOp::kDiv, PerfOp::kDivScalar},
    {PerfOp::kPow, PerfOp::kPowScalar},
};

bool IsScalarOperandPerfOp(PerfOp op) { return BinaryFormOf(op) != op; }

PerfOp ScalarFormOf(PerfOp op) {
  for (const auto& [binary, scalar] : kScalarForms) {
    if (binary == op) return scalar;
  }
  return op;
}

PerfOp BinaryFormOf(PerfOp op) {
  for (const auto& [binary, scalar] : kScalarForms) {
    if (scalar == op) return binary;
  }
  return op;
}

bool ParsePerfOp(std::string_view name, PerfOp* out) {
  std::string l = Lower(Trim(name));
  if (l == "layernorm" || l == "layer_norm") l = "ln";
  for (const auto& row : kPerfOps) {
    if (l == row.name) {
      *out = row.op;
      return true;
    }
  }
  return false;
}

bool IsHeavyPerfOp(PerfOp op) {
  return op == PerfOp::kConv || op == PerfOp::kLinear || op == PerfOp::kBmm;
}

const std::vector<PerfOp>& AllPerfOps() {
  static const std::vector<PerfOp> all = [] {
    std::vector<PerfOp> v;
    for (const auto& row : kPerfOps) v.push_back(row.op);
    return v;
  }();
  return all;
}

int64_t OpShape::ConvOutSize() const {
  if (op != PerfOp::kConv || stride < 1) return 0;
  int64_t span = image + 2 * padding - kernel;
  return span < 0 ? 0 : span / stride + 1;
}

Status OpShape::Validate() const {
  auto need = [&](int64_t v, const char* what, int64_t min) -> Status {
    if (v < min) {
      return InvalidArgument(fmt::format("{}: {} must be >= {}, got {}",
                                         PerfOpName(op), what, min, v));
    }
    return Status::Ok();
  };
  FRUGAL_RETURN_IF_ERROR(need(b, "b", 1));
  switch (op) {
    case PerfOp::kConv:
      FRUGAL_RETURN_IF_ERROR(need(in_channels, "in_channels", 1));
      FRUGAL_RETURN_IF_ERROR(need(out_channels, "out_channels", 1));
      FRUGAL_RETURN_IF_ERROR(need(kernel, "kernel", 1));
      FRUGAL_RETURN_IF_ERROR(need(image, "image", 1));
      FRUGAL_RETURN_IF_ERROR(need(stride, "stride", 1));
      FRUGAL_RETURN_IF_ERROR(need(padding, "padding", 0));
      if (ConvOutSize() < 1) {
        return InvalidArgument(
            fmt::format("conv: kernel {} does not fit image {} with padding {}",
                        kernel, image, padding));
      }
      return Status::Ok();
    case PerfOp::kLinear:
    case PerfOp::kBmm:
      FRUGAL_RETURN_IF_ERROR(need(m, "m", 1));
      FRUGAL_RETURN_IF_ERROR(need(n, "n", 1));
      return need(k, "k", 1);
    default:
      return need(h, "h", 1);
  }
}

std::string OpShape::ToString() const {
  switch (op) {
    case PerfOp::kConv:
      return fmt::format("conv b={} cin={} cout={} k={} img={} s={} p={}", b,
                         in_channels, out_channels, kernel, image, stride,
                         padding);
    case PerfOp::kLinear:
    case PerfOp::kBmm:
      return fmt::format("{} b={} m={} n={} k={}", PerfOpName(op), b, m, n, k);
    default:
      return fmt::format("{} b={} h={}", PerfOpName(op), b, h);
  }
}

std::vector<std::string> Dataset::Devices() const {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& s : samples) {
    if (seen.insert(s.device).second) out.push_back(s.device);
  }
  return out;
}

Result<Dataset> LoadTimingCsv(const std::string& path) {
  FRUGAL_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  Dataset data;
  data.files.push_back(path);
  std::vector<std::string> fields;
  std::map<std::string, int> index;  // lower-case column name -> position
  size_t ncols = 0;
  int col_op = -1, col_lat = -1, col_dev = -1;
  // Column positions of each op's shape, resolved on first use.
  std::map<PerfOp, std::vector<int>> shape_cols;
  int line_no = 0;
  size_t pos = 0;
  auto error = [&](const std::string& what) {
    return InvalidArgument(fmt::format("{}:{}: {}", path, line_no, what));
  };
  bool have_header = false;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string_view line(text.data() + pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (Trim(line).empty()) continue;
    if (!SplitCsvLine(line, &fields)) return error("unterminated quoted field");
    if (!have_header) {
      have_header = true;
      ncols = fields.size();
      for (size_t i = 0; i < fields.size(); ++i) {
        if (!index.emplace(Lower(Trim(fields[i])), static_cast<int>(i)).second) {
          return error(fmt::format("column '{}' appears twice in the header", Trim(fields[i])));
        }
      }
      col_op = FindColumn(index, "OPName|op");
      col_lat = FindColumn(index, "Latency|Latency (ms)|latency_ms");
      col_dev = FindColumn(index, "Device");
      if (col_op < 0) return error("header lacks the 'OPName' column");
      if (col_lat < 0) return error("header lacks the 'Latency (ms)' column");
      if (col_dev < 0) return error("header lacks the 'Device' column");
      continue;
    }
    if (fields.size() != ncols) {
      return error(
          fmt::format("{} fields, header has {}", fields.size(), ncols));
    }
    OpSample s;
    s.line = line_no;
    if (!ParsePerfOp(fields[col_op], &s.shape.op)) {
      return error(fmt::format("unknown OPName '{}'", Trim(fields[col_op])));
    }
    std::string lat = Trim(fields[col_lat]);
    if (!ParseDouble(lat, &s.latency_ms) || s.latency_ms <= 0) {
      return error(fmt::format("latency '{}' is not a positive number", lat));
    }
    // Under a nanosecond no kernel runs; over 1e9 ms (11 days) is no op time.
    if (s.latency_ms < 1e-6 || s.latency_ms > 1e9) {
      return error(fmt::format("latency '{}' ms is outside [1e-6, 1e9]", lat));
    }
    s.device = Trim(fields[col_dev]);
    if (s.device.empty()) return error("empty Device");
    const auto& columns = ShapeColumns(s.shape.op);
    auto it = shape_cols.find(s.shape.op);
    if (it == shape_cols.end()) {
      std::vector<int> cols;
      for (const auto& c : columns) {
        int at = FindColumn(index, c.names);
        if (at < 0) {
          std::string_view names(c.names);
          return error(fmt::format("header lacks the '{}' column that {} needs",
                                   names.substr(0, names.find('|')),
                                   PerfOpName(s.shape.op)));
        }
        cols.push_back(at);
      }
      it = shape_cols.emplace(s.shape.op, std::move(cols)).first;
    }
    for (size_t c = 0; c < columns.size(); ++c) {
      std::string v = Trim(fields[it->second[c]]);
      double d = 0;
      if (!ParseDouble(v, &d) || d != std::floor(d) ||
          d < columns[c].min_value || d > 1e12) {
        std::string_view names(columns[c].names);
        return error(fmt::format("{} '{}' is not an integer >= {}",
                                 names.substr(0, names.find('|')), v,
                                 columns[c].min_value));
      }
      s.shape.*(columns[c].field) = static_cast<int64_t>(d);
    }
    if (s.shape.op == PerfOp::kLinear)
      s.shape.b = std::max<int64_t>(s.shape.b, 1);
    if (Status st = s.shape.Validate(); !st.ok()) return error(st.message());
    data.samples.push_back(std::move(s));
  }
  if (!have_header) {
    line_no = std::max(line_no, 1);
    return error("empty file: no header");
  }
  if (data.samples.empty()) {
    ++line_no;
    return error("no data rows");
  }
  return data;
}

Result<Dataset> LoadTimingData(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec))
    return NotFound(path + ": no such file or directory");
  if (!fs::is_directory(path, ec)) return LoadTimingCsv(path);
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(path, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file() &&
        Lower(it->path().extension().string()) == ".csv") {
      files.push_back(it->path().string());
    }
  }
  if (ec) return InvalidArgument(path + ": " + ec.message());
  if (files.empty()) return InvalidArgument(path + ": no .csv files");
  std::sort(files.begin(), files.end());
  Dataset all;
  for (const auto& f : files) {
    FRUGAL_ASSIGN_OR_RETURN(Dataset d, LoadTimingCsv(f));
    const auto file = static_cast<int32_t>(all.files.size());
    all.files.push_back(f);
    for (OpSample& s : d.samples) {
      s.file = file;
      all.samples.push_back(std::move(s));
    }
  }
  return all;
}

std::string DefaultTimingDataPath() {
  if (const char* p = std::getenv("FRUGAL_PERF_DATA"); p && *p) return p;
  return SharedDataDir() + "/perf";
}

std::string Dataset::Where(const OpSample& s) const {
  const std::string& f = s.file >= 0 && static_cast<size_t>(s.file) < files.size()
                             ? files[static_cast<size_t>(s.file)]
                             : std::string("<data>");
  return fmt::format("{}:{}", f, s.line);
}

std::vector<size_t> ShuffledIndices(size_t n, uint64_t seed) {
  std::vector<size_t> idx(n);
  for (size_t i = 0; i < n; ++i) idx[i] = i;
  SplitMix64 rng(seed);
  for (size_t i = n; i > 1; --i) std::swap(idx[i - 1], idx[rng.Below(i)]);
  return idx;
}

}  // namespace frugal
