// Streaming trace readers: one event at a time, memory independent of the
// trace length (the frugal formats keep only the live path table). One
// registry table lists the formats; OpenTrace picks one by name or by the
// file's extension. A reader is used by one thread at a time.
#ifndef FRUGAL_CACHE_TRACE_READER_H_
#define FRUGAL_CACHE_TRACE_READER_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "frugal/base/registry.h"
#include "frugal/base/status.h"
#include "frugal/cache/trace_event.h"

namespace frugal::cache {

class TraceReader {
 public:
  virtual ~TraceReader() = default;
  // Reads the next event into *ev: true, false at the end of the trace, or
  // InvalidArgument naming the file and the record number.
  virtual Result<bool> Next(TraceEvent* ev) = 0;
  // 1-based number of the last record Next returned (data records only).
  int64_t record() const { return record_; }
  const std::string& path() const { return path_; }

 protected:
  explicit TraceReader(std::string path) : path_(std::move(path)) {}
  // "PATH: record N: what".
  Status RecordError(const std::string& what) const;

  std::string path_;
  int64_t record_ = 0;
};

using TraceReaderFactory = Result<std::unique_ptr<TraceReader>> (*)(const std::string& path);

// The table: "frugal" (binary .frt), "csv", "oracle" (libCacheSim oracleGeneral).
std::span<const RegistryRow<TraceReaderFactory>> TraceFormats();

// The format for `path` from its extension: .frt → frugal, .csv → csv,
// .bin / .oraclegeneral → oracle; "" when unknown.
std::string GuessTraceFormat(const std::string& path);

// True when `path` read in `format` ("auto": by its name) is oracleGeneral.
bool IsOracleGeneral(const std::string& path, const std::string& format);

// Opens `path` in `format` ("auto" guesses from the extension). NotFound for
// a missing file, InvalidArgument for an unknown format or a bad header.
Result<std::unique_ptr<TraceReader>> OpenTrace(const std::string& path,
                                               const std::string& format = "auto");

Result<std::unique_ptr<TraceReader>> OpenFrugalBinaryTrace(const std::string& path);
Result<std::unique_ptr<TraceReader>> OpenCsvTrace(const std::string& path);
Result<std::unique_ptr<TraceReader>> OpenOracleGeneralTrace(const std::string& path);

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_TRACE_READER_H_
