#include "frugal/perf/profiler/profiler.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "frugal/perf/profiler/backends.h"

namespace frugal {
namespace {

constexpr RegistryRow<ProfileBackendFactory> kBackends[] = {
    {"cpu", "real fp32 kernels on this machine's CPU (one thread)", &NewCpuBackend},
    {"cuda", "cuBLAS / cuDNN / CUDA kernels on GPU 0 (built with FRUGAL_WITH_CUDA)",
     &NewCudaBackend},
};

// Largest fp32 tensor the shape allocates, bytes.
double LargestTensorBytes(const OpShape& s) {
  const double b = static_cast<double>(s.b);
  switch (s.op) {
    case PerfOp::kConv: {
      const double out = static_cast<double>(s.ConvOutSize());
      const double cols = b * s.in_channels * s.kernel * s.kernel * out * out;
      const double in = b * s.in_channels * s.image * s.image;
      return 4 * std::max({cols, in, b * s.out_channels * out * out});
    }
    case PerfOp::kLinear:
    case PerfOp::kBmm:
      return 4 * b * static_cast<double>(std::max({s.m * s.k, s.k * s.n, s.m * s.n}));
    default:
      return 4 * b * static_cast<double>(s.h);
  }
}

std::string FileSafe(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '_';
  }
  return s;
}

}  // namespace

std::span<const RegistryRow<ProfileBackendFactory>> ProfileBackends() {
  return kBackends;
}

Result<ProfileResult> ProfileShapes(ProfileBackend& backend,
                                    const std::vector<OpShape>& shapes,
                                    const ProfileOptions& options) {
  if (options.warmup < 0) return InvalidArgument("warm-up count must be >= 0");
  if (options.repetitions < 1) return InvalidArgument("repetitions must be >= 1");
  ProfileResult result;
  const std::string device = backend.DeviceName();
  for (size_t i = 0; i < shapes.size(); ++i) {
    const OpShape& s = shapes[i];
    FRUGAL_RETURN_IF_ERROR(s.Validate());
    const double bytes = LargestTensorBytes(s);
    if (bytes > options.max_tensor_bytes) {
      result.skipped.push_back(fmt::format("{}: too large ({:.2f} GiB tensor)", s.ToString(),
                                           bytes / (1024.0 * 1024 * 1024)));
    } else {
      Result<double> ms = backend.MeasureMs(s, options);
      if (!ms.ok()) return ms.status().WithPrefix(s.ToString());
      result.samples.push_back(OpSample{s, device, *ms});
    }
    if (options.progress) options.progress(i + 1, shapes.size());
  }
  return result;
}

std::vector<OpShape> DefaultSweep(PerfOp op) {
  std::vector<OpShape> out;
  OpShape s;
  s.op = op;
  switch (op) {
    case PerfOp::kConv:
      for (int64_t b : {1, 8}) {
        for (int64_t c : {16, 64}) {
          for (int64_t k : {1, 3}) {
            for (int64_t img : {14, 28, 56}) {
              s.b = b;
              s.in_channels = c;
              s.out_channels = 2 * c;
              s.kernel = k;
              s.image = img;
              s.stride = 1;
              s.padding = k / 2;
              out.push_back(s);
            }
          }
        }
      }
      break;
    case PerfOp::kLinear:
    case PerfOp::kBmm:
      for (int64_t b : op == PerfOp::kLinear ? std::vector<int64_t>{1}
                                             : std::vector<int64_t>{4, 16}) {
        for (int64_t m : {64, 256, 512}) {
          for (int64_t n : {64, 256, 1024}) {
            for (int64_t k : {64, 256, 768}) {
              s.b = b;
              s.m = m;
              s.n = n;
              s.k = k;
              out.push_back(s);
            }
          }
        }
      }
      break;
    default:
      for (int64_t b : {1, 64, 512, 4096}) {
        for (int64_t h : {128, 768, 4096}) {
          s.b = b;
          s.h = h;
          out.push_back(s);
        }
      }
      break;
  }
  return out;
}

Result<std::vector<std::string>> WriteTimingCsvs(const std::vector<OpSample>& samples,
                                                 const std::string& dir) {
  // Group by (op, device), keeping input order within a file.
  std::map<std::pair<int, std::string>, std::vector<const OpSample*>> files;
  for (const OpSample& s : samples) {
    files[{static_cast<int>(s.shape.op), s.device}].push_back(&s);
  }
  std::vector<std::string> written;
  for (const auto& [key, rows] : files) {
    const PerfOp op = static_cast<PerfOp>(key.first);
    const std::filesystem::path folder = std::filesystem::path(dir) / PerfOpName(op);
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec) return InvalidArgument(folder.string() + ": " + ec.message());
    const std::string path = (folder / (FileSafe(key.second) + ".csv")).string();
    std::ofstream out(path, std::ios::trunc);
    if (!out) return InvalidArgument(path + ": cannot open for writing");
    out << "OPName,Latency,Device,";
    if (op == PerfOp::kConv) {
      out << "B,Input_Channel,Output_Channel,Kernel_Size,Input_Size,Stride,Padding\n";
    } else if (op == PerfOp::kLinear || op == PerfOp::kBmm) {
      out << "B,M,N,K\n";
    } else {
      out << "B,H\n";
    }
    for (const OpSample* s : rows) {
      const OpShape& x = s->shape;
      out << PerfOpName(op) << ',' << fmt::format("{:.9g}", s->latency_ms) << ",\""
          << s->device << "\",";
      if (op == PerfOp::kConv) {
        out << fmt::format("{},{},{},{},{},{},{}\n", x.b, x.in_channels, x.out_channels,
                           x.kernel, x.image, x.stride, x.padding);
      } else if (op == PerfOp::kLinear || op == PerfOp::kBmm) {
        out << fmt::format("{},{},{},{}\n", x.b, x.m, x.n, x.k);
      } else {
        out << fmt::format("{},{}\n", x.b, x.h);
      }
    }
    out.close();
    if (!out) return InvalidArgument(path + ": write error");
    written.push_back(path);
  }
  return written;
}

}  // namespace frugal
