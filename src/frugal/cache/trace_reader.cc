#include "frugal/cache/trace_reader.h"

#include <algorithm>
#include <cctype>

#include "frugal/base/file_io.h"
#include "frugal/cache/readers/zstd_stream.h"

namespace frugal::cache {

Status TraceReader::RecordError(const std::string& what) const {
  return InvalidArgument(path_ + ": record " + std::to_string(record_) + ": " + what);
}

namespace {
constexpr RegistryRow<TraceReaderFactory> kTraceFormats[] = {
    {"frugal", "frugal binary trace (.frt): 48-byte records, inline path table",
     &OpenFrugalBinaryTrace},
    {"csv", "frugal CSV trace: time_us,op,path,offset,length,size,pipeline,stage,worker,new_path",
     &OpenCsvTrace},
    {"oracle", "libCacheSim oracleGeneral (.bin, or zstd-compressed .zst): 24-byte records of object reads",
     &OpenOracleGeneralTrace},
};
}  // namespace

std::span<const RegistryRow<TraceReaderFactory>> TraceFormats() { return kTraceFormats; }

std::string GuessTraceFormat(const std::string& path) {
  const std::string ext = FileExtension(path);
  if (ext == "frt") return "frugal";
  if (ext == "csv") return "csv";
  if (ext == "bin" || ext == "oraclegeneral") return "oracle";
  if (ext == "zst" || ext == "zstd") {
    // libCacheSim's names: NAME.oracleGeneral.zst, NAME.oracleGeneral.bin.zst,
    // NAME.oracleGeneral.sample10.zst.
    std::string name = path.substr(path.find_last_of('/') + 1);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const std::string inner = FileExtension(name.substr(0, name.size() - ext.size() - 1));
    if (inner == "bin" || name.find(".oraclegeneral") != std::string::npos) return "oracle";
  }
  return "";
}

bool IsOracleGeneral(const std::string& path, const std::string& format) {
  return format == "oracle" || (format == "auto" && GuessTraceFormat(path) == "oracle");
}

Result<std::unique_ptr<TraceReader>> OpenTrace(const std::string& path,
                                               const std::string& format) {
  FRUGAL_RETURN_IF_ERROR(CheckInputFile(path, -1));
  std::string name = format;
  if (name == "auto") {
    name = GuessTraceFormat(path);
    if (name.empty()) {
      return InvalidArgument(path +
                             ": unknown trace extension (use --format frugal, csv or oracle; "
                             "oracleGeneral may be zstd-compressed)");
    }
  }
  const auto* row = FindRow(TraceFormats(), name);
  if (row == nullptr) {
    return InvalidArgument("unknown trace format '" + name + "' (expected " +
                           RowNames(TraceFormats()) + ")");
  }
  if (name != "oracle" && HasZstdMagic(path)) {
    return InvalidArgument(path + ": zstd-compressed; only oracleGeneral traces are read compressed "
                                  "(decompress it with `zstd -d`, or use --format oracle)");
  }
  return row->factory(path);
}

}  // namespace frugal::cache
