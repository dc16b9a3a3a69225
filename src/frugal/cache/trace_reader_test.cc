#include "frugal/cache/trace_reader.h"

#include <cstdio>
#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>
#include <zstd.h>

#include "frugal/cache/readers/oracle_general.h"
#include "frugal/cache/readers/zstd_stream.h"
#include "frugal/cache/request_trace.h"
#include "frugal/cache/simulator.h"
#include "frugal/cache/trace_writer.h"

namespace frugal::cache {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("frugal_cache_" + name)).string();
}

std::vector<TraceEvent> ReadAll(const std::string& path, const std::string& format = "auto") {
  auto r = OpenTrace(path, format);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<TraceEvent> out;
  TraceEvent ev;
  while (true) {
    Result<bool> more = (*r)->Next(&ev);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    out.push_back(ev);
  }
  return out;
}

TEST(CsvTrace, ReadsEveryFieldAndSkipsComments) {
  auto ev = ReadAll("testdata/cache/tiny.csv");
  ASSERT_EQ(ev.size(), 13u);
  EXPECT_EQ(ev[3].kind, EventKind::kWrite);
  EXPECT_EQ(ev[3].path, "/tmp/shuffle/w0.shuffle");
  EXPECT_EQ(ev[3].length, 800);
  EXPECT_EQ(ev[5].offset, 400);
  EXPECT_EQ(ev[5].stage, 1);
  EXPECT_EQ(ev[9].kind, EventKind::kRename);
  EXPECT_EQ(ev[9].new_path, "/out/day-0/part-0.tfrecord");
}

TEST(TraceWriter, BinaryAndCsvRoundTripTheSameEvents) {
  auto events = ReadAll("testdata/cache/tiny.csv");
  for (const char* ext : {"frt", "csv"}) {
    const std::string path = TempPath(std::string("roundtrip.") + ext);
    auto w = CreateTraceWriter(path);
    ASSERT_TRUE(w.ok());
    for (const auto& e : events) ASSERT_TRUE((*w)->Write(e).ok());
    ASSERT_TRUE((*w)->Close().ok());
    auto back = ReadAll(path);
    ASSERT_EQ(back.size(), events.size()) << ext;
    for (size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(back[i].time_us, events[i].time_us);
      EXPECT_EQ(back[i].kind, events[i].kind);
      EXPECT_EQ(back[i].path, events[i].path);
      EXPECT_EQ(back[i].new_path, events[i].new_path);
      EXPECT_EQ(back[i].offset, events[i].offset);
      EXPECT_EQ(back[i].length, events[i].length);
      EXPECT_EQ(back[i].size, events[i].size);
      EXPECT_EQ(back[i].stage, events[i].stage);
      EXPECT_EQ(back[i].worker, events[i].worker);
    }
    std::filesystem::remove(path);
  }
}

TEST(OracleGeneralTrace, ReadsRecords) {
  auto ev = ReadAll("testdata/cache/cloudphysics_head.oracleGeneral.bin");
  ASSERT_EQ(ev.size(), 2000u);
  EXPECT_EQ(ev[0].kind, EventKind::kRead);
  EXPECT_GT(ev[0].size, 0);
  EXPECT_EQ(ev[0].length, ev[0].size);
}

TEST(OracleGeneralTrace, TruncatedFileIsAnErrorNamingTheRecord) {
  auto r = OpenTrace("testdata/cache/bad_truncated.bin");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bad_truncated.bin"), std::string::npos);
  EXPECT_NE(r.status().message().find("not a multiple of the 24-byte record (record 42"),
            std::string::npos)
      << r.status().message();
}

TEST(FrugalBinaryTrace, TruncatedFileIsAnError) {
  const std::string path = TempPath("trunc.frt");
  {
    auto w = CreateTraceWriter(path);
    ASSERT_TRUE(w.ok());
    for (const auto& e : ReadAll("testdata/cache/tiny.csv")) ASSERT_TRUE((*w)->Write(e).ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 7);
  auto r = OpenTrace(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("truncated"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(FrugalBinaryTrace, BadMagicIsAnError) {
  auto r = OpenTrace("testdata/cache/cloudphysics_head.oracleGeneral.bin", "frugal");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bad magic"), std::string::npos);
}

TEST(FrugalBinaryTrace, AHeaderOfAnotherVersionOrRecordSizeSaysWhich) {
  const std::string path = TempPath("hdr.frt");
  auto open_with = [&](uint32_t version, uint32_t record_bytes) {
    unsigned char h[48] = {'F', 'R', 'U', 'G', 'A', 'L', 'T', 'R'};
    std::memcpy(h + 8, &version, 4);
    std::memcpy(h + 12, &record_bytes, 4);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(h, 1, sizeof h, f);
    std::fclose(f);
    auto r = OpenTrace(path, "frugal");
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_NE(open_with(1, 0).find("header says 0-byte records; version 1 has 48"), std::string::npos);
  EXPECT_NE(open_with(7, 48).find("unsupported frugal trace version 7"), std::string::npos);
  EXPECT_EQ(open_with(1, 48), "");
  std::filesystem::remove(path);
}

TEST(CsvTrace, BadHeaderNumberAndOpAreErrors) {
  const std::string path = TempPath("bad.csv");
  ASSERT_TRUE(std::fopen(path.c_str(), "w") != nullptr);
  auto write = [&](const std::string& text) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs(text.c_str(), f);
    std::fclose(f);
  };
  const std::string header = "time_us,op,path,offset,length,size,pipeline,stage,worker,new_path\n";
  write("time,op\n1,read\n");
  EXPECT_FALSE(OpenTrace(path).ok());
  write(header + "1,read,/a,0,x10,10,,,,\n");
  Result<RequestTrace> t = LoadRequestTrace(path);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("record 1 (line 2): bad number 'x10'"), std::string::npos)
      << t.status().message();
  write(header + "1,read,/a,0,10,10,,,,\n2,fetch,/a,0,10,10,,,,\n");
  t = LoadRequestTrace(path);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("record 2 (line 3): unknown op 'fetch'"), std::string::npos);
  // Tags the binary format could not hold are errors, not truncated.
  write(header + "0,read,/a,0,0,100,99999999999,0,0,\n");
  t = LoadRequestTrace(path);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("record 1 (line 2): pipeline 99999999999 is outside [-1, 32767]"),
            std::string::npos)
      << t.status().message();
  write(header + "0,read,/a,0,0,100,0,-5,0,\n");
  t = LoadRequestTrace(path);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("stage -5 is outside [-1, 254]"), std::string::npos) << t.status().message();
  std::filesystem::remove(path);
}

TEST(RequestTrace, ByteCountsThatWouldOverflowAreErrors) {
  const std::string path = TempPath("huge.csv");
  auto load = [&](const std::string& rows) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs(("time_us,op,path,offset,length,size,pipeline,stage,worker,new_path\n" + rows).c_str(), f);
    std::fclose(f);
    return LoadRequestTrace(path).status().message();
  };
  EXPECT_NE(load("0,read,/a,0,0,9223372036854775807,,,,\n").find("record 1: size, offset or length over 1 PiB"),
            std::string::npos);
  // 2^50 bytes each: 4096 reads of one file pass 2^62 read in all.
  std::string rows;
  for (int i = 0; i < 4100; ++i) rows += std::to_string(i) + ",read,/a,0,0,1125899906842624,,,,\n";
  EXPECT_NE(load(rows).find("record 4097: the bytes read add up to over 2^62"), std::string::npos) << load(rows);
  rows.clear();
  for (int i = 0; i < 4100; ++i) rows += std::to_string(i) + ",create,/f" + std::to_string(i) + ",0,0,1125899906842624,,,,\n";
  EXPECT_NE(load(rows).find("the files' sizes add up to over 2^62 bytes"), std::string::npos) << load(rows);
  EXPECT_EQ(load("0,read,/a,0,0,1125899906842624,,,,\n"), "");
  std::filesystem::remove(path);
}

TEST(RequestTrace, UnsortedTimesAreAnErrorWithTheRecordNumber) {
  Result<RequestTrace> t = LoadRequestTrace("testdata/cache/bad_unsorted.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("bad_unsorted.csv: record 3: time 10 us is before"),
            std::string::npos)
      << t.status().message();
}

TEST(RequestTrace, NegativeSizeIsAnErrorWithTheRecordNumber) {
  Result<RequestTrace> t = LoadRequestTrace("testdata/cache/bad_negative_size.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("record 2: negative size -5"), std::string::npos)
      << t.status().message();
}

TEST(RequestTrace, ReadsOfUnknownFilesAreSkippedAndCounted) {
  Result<RequestTrace> t = LoadRequestTrace("testdata/cache/unknown_reads.csv");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->skipped.unknown_reads, 2);
  EXPECT_EQ(t->skipped.unknown_deletes, 1);
  EXPECT_EQ(t->skipped.unknown_renames, 1);
  EXPECT_EQ(t->reads, 1);
}

TEST(RequestTrace, RenameKeepsTheObjectAndNextReadsAreLinked) {
  Result<RequestTrace> t = LoadRequestTrace("testdata/cache/tiny.csv");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->objects.size(), 4u);  // two raw shards, the shuffle file, the bundle
  EXPECT_EQ(t->reads, 7);
  EXPECT_EQ(t->objects[3].renamed_path, "/out/day-0/part-0.tfrecord");
  EXPECT_EQ(t->footprint_bytes, 1000 + 1000 + 800 + 500);
  // The first read of part-0.tar links to its re-read at the end.
  EXPECT_EQ(t->requests[0].next_read, static_cast<int64_t>(t->requests.size()) - 1);
}

TEST(TraceFormats, UnknownFormatAndMissingFileAreErrors) {
  EXPECT_EQ(OpenTrace("testdata/cache/tiny.csv", "parquet").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(OpenTrace("testdata/cache/nope.csv").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(OpenTrace("testdata/cache/tiny.txt").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace frugal::cache

namespace frugal::cache {
namespace {

// The oracleGeneral fast path of LoadRequestTrace(path) gives the same trace
// as the streaming reader through the generic loader.
void ExpectSameTrace(const std::string& path) {
  Result<RequestTrace> fast = LoadRequestTrace(path);
  ASSERT_TRUE(fast.ok()) << fast.status().ToString();
  auto reader = OpenTrace(path, "oracle");
  ASSERT_TRUE(reader.ok());
  Result<RequestTrace> slow = LoadRequestTrace(**reader);
  ASSERT_TRUE(slow.ok()) << slow.status().ToString();
  EXPECT_EQ(fast->records, slow->records);
  EXPECT_EQ(fast->reads, slow->reads);
  EXPECT_EQ(fast->read_bytes, slow->read_bytes);
  EXPECT_EQ(fast->footprint_bytes, slow->footprint_bytes);
  ASSERT_EQ(fast->objects.size(), slow->objects.size());
  EXPECT_EQ(fast->groups.size(), slow->groups.size());
  ASSERT_EQ(fast->requests.size(), slow->requests.size());
  for (size_t i = 0; i < fast->requests.size(); ++i) {
    const Request& a = fast->requests[i];
    const Request& b = slow->requests[i];
    ASSERT_TRUE(a.time_us == b.time_us && a.bytes == b.bytes && a.obj_size == b.obj_size &&
                a.next_read == b.next_read && a.obj == b.obj && a.group == b.group && a.kind == b.kind)
        << "request " << i;
  }
  // A pathless trace stores no ObjectInfo; its objects read as defaults.
  const RequestTrace& f = *fast;
  EXPECT_FALSE(f.objects.has_info());
  EXPECT_FALSE(slow->objects.has_info());
  if (!f.objects.empty()) {
    EXPECT_TRUE(f.objects[0].path.empty());
    EXPECT_EQ(f.objects[f.objects.size() - 1].worker, -1);
  }
  // The streamed index gives the same counts and, on replay, the same
  // requests but next_read.
  Result<StreamedTrace> st = StreamedTrace::Open(path);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_TRUE(st->trace().requests.empty());
  EXPECT_EQ(st->requests(), static_cast<int64_t>(f.requests.size()));
  EXPECT_EQ(st->trace().records, f.records);
  EXPECT_EQ(st->trace().reads, f.reads);
  EXPECT_EQ(st->trace().read_bytes, f.read_bytes);
  EXPECT_EQ(st->trace().footprint_bytes, f.footprint_bytes);
  EXPECT_EQ(st->trace().objects.size(), f.objects.size());
  EXPECT_EQ(st->trace().groups.size(), f.groups.size());
  int64_t seen = 0;
  bool same = true;
  Status replay = st->Replay([&](std::span<const Request> block, int64_t first) {
    if (first != seen) same = false;
    for (const Request& b : block) {
      const Request& a = f.requests[static_cast<size_t>(seen++)];
      if (!(a.time_us == b.time_us && a.bytes == b.bytes && a.obj_size == b.obj_size &&
            b.next_read == kNever && a.obj == b.obj && a.group == b.group && a.kind == b.kind)) {
        same = false;
      }
    }
  });
  ASSERT_TRUE(replay.ok()) << replay.ToString();
  EXPECT_TRUE(same);
  EXPECT_EQ(seen, st->requests());
}

TEST(ObjectTable, StoresInfoOnlyOnceAnObjectHasOne) {
  ObjectTable t;
  t.AddPathless();
  t.AddPathless();
  EXPECT_EQ(t.size(), 2u);
  EXPECT_FALSE(t.has_info());
  const ObjectTable& c = t;
  EXPECT_EQ(c[1].stage, -1);
  ObjectInfo info;
  info.path = "/a";
  t.push_back(info);
  EXPECT_TRUE(t.has_info());
  t.AddPathless();
  EXPECT_EQ(t.size(), 4u);
  EXPECT_EQ(c[2].path, "/a");
  EXPECT_TRUE(c[0].path.empty());
  EXPECT_TRUE(c[3].path.empty());
}

TEST(OracleGeneralFastLoad, MatchesTheStreamingReader) {
  ExpectSameTrace("testdata/cache/cloudphysics_head.oracleGeneral.bin");
  const char* cp = FRUGAL_SHARED_DATA "/traces/cloudphysics/cloudPhysicsIO.oracleGeneral.bin";
  if (std::filesystem::exists(cp)) ExpectSameTrace(cp);
}

TEST(OracleGeneralFastLoad, RejectsTimeGoingBackwardsWithTheRecordNumber) {
  const std::string path = TempPath("backwards.bin");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  for (uint32_t t : {5u, 7u, 6u}) {
    unsigned char rec[24] = {};
    std::memcpy(rec, &t, 4);
    const uint64_t id = t;
    std::memcpy(rec + 4, &id, 8);
    const uint32_t size = 10;
    std::memcpy(rec + 12, &size, 4);
    std::fwrite(rec, 1, sizeof(rec), f);
  }
  std::fclose(f);
  Result<RequestTrace> t = LoadRequestTrace(path);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("backwards.bin: record 3: time 6000000 us is before"), std::string::npos)
      << t.status().ToString();
  Result<StreamedTrace> st = StreamedTrace::Open(path);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.status().message(), t.status().message());
  std::filesystem::remove(path);
}

TEST(OracleGeneralFastLoad, TruncatedFileIsAnErrorNamingTheFile) {
  const std::string path = TempPath("short.bin");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  unsigned char rec[24 + 10] = {};
  std::fwrite(rec, 1, sizeof(rec), f);
  std::fclose(f);
  for (const Status& s : {LoadRequestTrace(path).status(), StreamedTrace::Open(path).status()}) {
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("short.bin: truncated oracleGeneral trace: 34 bytes"), std::string::npos)
        << s.ToString();
  }
  std::filesystem::remove(path);
}

// Writes `data` to path (replacing it).
void WriteBytes(const std::string& path, const std::string& data) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(data.data(), 1, data.size(), f);
  std::fclose(f);
}

// Writes `raw` zstd-compressed to path as two concatenated frames split at
// a byte that is not a record boundary (libCacheSim's own .zst traces are
// one frame; zstd -d reads both the same).
void WriteZstd(const std::string& path, const std::string& raw, size_t cut_bytes = 0) {
  std::string out;
  const size_t cut = raw.size() / 2 + 7;
  for (const std::string& part : {raw.substr(0, cut), raw.substr(cut)}) {
    std::string buf(ZSTD_compressBound(part.size()), '\0');
    const size_t n = ZSTD_compress(buf.data(), buf.size(), part.data(), part.size(), 1);
    ASSERT_FALSE(ZSTD_isError(n));
    out.append(buf.data(), n);
  }
  out.resize(out.size() - cut_bytes);
  WriteBytes(path, out);
}

std::string ReadBytes(const std::string& path) {
  std::string s;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return s;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}


TEST(OracleGeneralZstd, ReadsTheSameTraceAsTheUncompressedFile) {
  // The whole cloudphysics trace spans two 65,536-record blocks and the
  // streamed index reads it three times (count, index, replay).
  const char* cp = FRUGAL_SHARED_DATA "/traces/cloudphysics/cloudPhysicsIO.oracleGeneral.bin";
  const std::string src = std::filesystem::exists(cp) ? cp : "testdata/cache/cloudphysics_head.oracleGeneral.bin";
  const std::string path = TempPath("cp.oracleGeneral.zst");
  WriteZstd(path, ReadBytes(src));
  ExpectSameTrace(path);
  Result<RequestTrace> plain = LoadRequestTrace(src);
  Result<RequestTrace> packed = LoadRequestTrace(path);
  ASSERT_TRUE(plain.ok() && packed.ok());
  ASSERT_EQ(plain->requests.size(), packed->requests.size());
  for (size_t i = 0; i < plain->requests.size(); ++i) {
    const Request& a = plain->requests[i];
    const Request& b = packed->requests[i];
    ASSERT_TRUE(a.time_us == b.time_us && a.obj_size == b.obj_size && a.next_read == b.next_read &&
                a.obj == b.obj)
        << "request " << i;
  }
  EXPECT_EQ(plain->footprint_bytes, packed->footprint_bytes);
  std::filesystem::remove(path);
}

TEST(OracleGeneralZstd, BadStreamsAreOneErrorNamingTheFile) {
  const std::string raw = ReadBytes("testdata/cache/cloudphysics_head.oracleGeneral.bin");
  ASSERT_EQ(raw.size(), 48000u);
  const std::string cut = TempPath("cut.oracleGeneral.zst");
  WriteZstd(cut, raw, 5);
  const std::string odd = TempPath("odd.oracleGeneral.zst");
  WriteZstd(odd, raw.substr(0, 1000));
  const std::string bad = TempPath("bad.oracleGeneral.zst");
  std::string garbage = ReadBytes(odd);
  for (size_t i = 8; i < garbage.size(); ++i) garbage[i] = static_cast<char>(garbage[i] ^ 0x5a);
  WriteBytes(bad, garbage);
  const std::pair<std::string, std::string> cases[] = {
      {cut, "cut.oracleGeneral.zst: truncated zstd stream"},
      {odd, "odd.oracleGeneral.zst: truncated oracleGeneral trace: 1000 bytes after zstd decompression"},
      {bad, "bad.oracleGeneral.zst: corrupt zstd stream"},
  };
  for (const auto& [path, want] : cases) {
    for (const Status& s : {LoadRequestTrace(path).status(), StreamedTrace::Open(path).status(),
                            OpenTrace(path, "auto").status()}) {
      ASSERT_FALSE(s.ok()) << path;
      EXPECT_NE(s.message().find(want), std::string::npos) << s.ToString();
    }
  }
  // A compressed file named for another format is refused, not misread.
  const std::string csv = TempPath("z.csv");
  std::filesystem::copy_file(odd, csv, std::filesystem::copy_options::overwrite_existing);
  auto r = OpenTrace(csv, "auto");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("z.csv: zstd-compressed; only oracleGeneral"), std::string::npos)
      << r.status().ToString();
  for (const std::string& p : {cut, odd, bad, csv}) std::filesystem::remove(p);
}

// The index is sized from an estimate of the distinct ids: the same from a
// compressed file (sketched while counting, in pieces that split records)
// and from the plain one (read once), and within a few percent.
TEST(OracleGeneralFile, EstimatesDistinctIdsTheSameCompressedOrNot) {
  const char* cp = FRUGAL_SHARED_DATA "/traces/cloudphysics/cloudPhysicsIO.oracleGeneral.bin";
  const std::string src = std::filesystem::exists(cp) ? cp : "testdata/cache/cloudphysics_head.oracleGeneral.bin";
  const std::string path = TempPath("est.oracleGeneral.zst");
  WriteZstd(path, ReadBytes(src));
  auto plain = OracleGeneralFile::Open(src);
  auto packed = OracleGeneralFile::Open(path);
  ASSERT_TRUE(plain.ok() && packed.ok());
  const Result<double> a = (*plain)->DistinctIds();
  const Result<double> b = (*packed)->DistinctIds();
  ASSERT_TRUE(a.ok() && b.ok()) << a.status().ToString() << b.status().ToString();
  EXPECT_EQ(*a, *b);
  const Result<RequestTrace> t = LoadRequestTrace(src);
  ASSERT_TRUE(t.ok());
  const double objects = static_cast<double>(t->objects.size());
  EXPECT_NEAR(*a, objects, 0.03 * objects);
  // A plain file that shrank after Open is an error naming it.
  const std::string cut = TempPath("shrinks.oracleGeneral.bin");
  WriteBytes(cut, ReadBytes(src).substr(0, 24 * 100));
  auto f = OracleGeneralFile::Open(cut);
  ASSERT_TRUE(f.ok());
  std::filesystem::resize_file(cut, 24 * 40);
  const Result<double> c = (*f)->DistinctIds();
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("shrinks.oracleGeneral.bin: record 41: unexpected end of file"),
            std::string::npos)
      << c.status().ToString();
  std::filesystem::remove(path);
  std::filesystem::remove(cut);
}

TEST(OracleGeneralZstd, CountingStopsPastTheLimit) {
  std::string raw;
  for (int i = 0; i < 10; ++i) raw += ReadBytes("testdata/cache/cloudphysics_head.oracleGeneral.bin");
  const std::string path = TempPath("ten.oracleGeneral.zst");
  WriteZstd(path, raw);
  const int64_t records = static_cast<int64_t>(raw.size()) / kOracleRecordBytes;
  auto z = ZstdStream::Open(path);
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(*(*z)->CountBytes(), static_cast<int64_t>(raw.size()));
  // With a limit the count stops at the first piece past it.
  const Result<int64_t> part = (*z)->CountBytes(1000);
  ASSERT_TRUE(part.ok());
  EXPECT_GT(*part, 1000);
  EXPECT_LT(*part, static_cast<int64_t>(raw.size()));
  auto capped = OracleGeneralFile::Open(path, 100);
  ASSERT_TRUE(capped.ok()) << capped.status().ToString();
  EXPECT_GT((*capped)->records(), 100);
  EXPECT_LT((*capped)->records(), records);
  EXPECT_FALSE((*capped)->records_exact());
  auto exact = OracleGeneralFile::Open(path, records);
  ASSERT_TRUE(exact.ok()) << exact.status().ToString();
  EXPECT_TRUE((*exact)->records_exact());
  EXPECT_EQ((*exact)->records(), records);
  std::string back;  // and it reads back whole, block by block
  for (int64_t done = 0; done < records;) {
    const int64_t want = std::min(OracleGeneralFile::kBlockRecords, records - done);
    const unsigned char* data = nullptr;
    ASSERT_TRUE((*exact)->View(done, want, &data).ok());
    back.append(reinterpret_cast<const char*>(data), static_cast<size_t>(want * kOracleRecordBytes));
    done += want;
  }
  EXPECT_TRUE(back == raw);
  std::filesystem::remove(path);
}

TEST(OracleGeneralZstd, AHeaderThatMisstatesTheSizeIsACorruptStream) {
  const std::string raw = ReadBytes("testdata/cache/cloudphysics_head.oracleGeneral.bin");
  std::string buf(ZSTD_compressBound(raw.size()), '\0');
  const size_t n = ZSTD_compress(buf.data(), buf.size(), raw.data(), raw.size(), 1);
  ASSERT_FALSE(ZSTD_isError(n));
  buf.resize(n);
  // Frame header: magic, descriptor (content-size field size in bits 6-7,
  // single segment bit 5, dictionary id size in bits 0-1), then the window
  // byte unless single segment, the dictionary id, the content size.
  const auto fhd = static_cast<unsigned char>(buf[4]);
  const int fcs_bytes[] = {(fhd >> 5) & 1, 2, 4, 8};
  const int dict_bytes[] = {0, 1, 2, 4};
  const size_t at = 5 + (((fhd >> 5) & 1) ? 0 : 1) + dict_bytes[fhd & 3];
  uint16_t v;  // 2-byte field: size - 256; 48000 fits
  ASSERT_EQ(fcs_bytes[fhd >> 6], 2);
  std::memcpy(&v, buf.data() + at, 2);
  v = static_cast<uint16_t>(v + kOracleRecordBytes);  // one record more than the data
  std::memcpy(buf.data() + at, &v, 2);
  const std::string path = TempPath("liar.oracleGeneral.zst");
  WriteBytes(path, buf);
  for (const Status& s : {LoadRequestTrace(path).status(), StreamedTrace::Open(path).status()}) {
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("liar.oracleGeneral.zst: corrupt zstd stream"), std::string::npos)
        << s.ToString();
  }
  std::filesystem::remove(path);
}

TEST(TraceFormats, GuessesLibCacheSimCompressedNames) {
  EXPECT_EQ(GuessTraceFormat("/d/cluster52.oracleGeneral.zst"), "oracle");
  EXPECT_EQ(GuessTraceFormat("w44.oracleGeneral.bin.zst"), "oracle");
  EXPECT_EQ(GuessTraceFormat("a/b.oracleGeneral.sample10.zst"), "oracle");
  EXPECT_EQ(GuessTraceFormat("trace.bin.zst"), "oracle");
  EXPECT_EQ(GuessTraceFormat("trace.csv.zst"), "");
  EXPECT_EQ(GuessTraceFormat("trace.zst"), "");
}

}  // namespace
}  // namespace frugal::cache
