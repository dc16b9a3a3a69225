#include "frugal/cache/trace_reader.h"

#include "frugal/base/file_io.h"

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
    {"oracle", "libCacheSim oracleGeneral (.bin): 24-byte records of object reads",
     &OpenOracleGeneralTrace},
};
}  // namespace

std::span<const RegistryRow<TraceReaderFactory>> TraceFormats() { return kTraceFormats; }

std::string GuessTraceFormat(const std::string& path) {
  const std::string ext = FileExtension(path);
  if (ext == "frt") return "frugal";
  if (ext == "csv") return "csv";
  if (ext == "bin" || ext == "oraclegeneral") return "oracle";
  return "";
}

Result<std::unique_ptr<TraceReader>> OpenTrace(const std::string& path,
                                               const std::string& format) {
  FRUGAL_RETURN_IF_ERROR(CheckInputFile(path, -1));
  std::string name = format;
  if (name == "auto") {
    name = GuessTraceFormat(path);
    if (name.empty()) {
      return InvalidArgument(path +
                             ": unknown trace extension (use --format frugal, csv or oracle)");
    }
  }
  const auto* row = FindRow(TraceFormats(), name);
  if (row == nullptr) {
    return InvalidArgument("unknown trace format '" + name + "' (expected " +
                           RowNames(TraceFormats()) + ")");
  }
  return row->factory(path);
}

}  // namespace frugal::cache
