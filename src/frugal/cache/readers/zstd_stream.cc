#include "frugal/cache/readers/zstd_stream.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>

namespace frugal::cache {

struct ZstdStream::Impl {
  std::string path;
  int fd = -1;
  ZSTD_DCtx* dctx = nullptr;
  std::vector<unsigned char> in;
  size_t in_pos = 0, in_size = 0;
  int64_t consumed = 0;  // compressed bytes the decoder has taken
  int64_t read_total = 0;  // compressed bytes read from the file
  bool input_done = false;
  bool frame_open = false;  // a frame started and not finished
  std::vector<unsigned char> out;
  size_t out_begin = 0, out_end = 0;  // decompressed bytes not yet handed out

  ~Impl() {
    if (dctx != nullptr) ZSTD_freeDCtx(dctx);
    if (fd >= 0) ::close(fd);
  }

  // Decompresses into out after out_end until some output arrives or out
  // is full. *eof: the input is exhausted and its last frame complete.
  Status Fill(bool* eof) {
    *eof = false;
    ZSTD_outBuffer ob{out.data(), out.size(), out_end};
    while (ob.pos == out_end && ob.pos < ob.size) {
      if (in_pos == in_size && !input_done) {
        ssize_t r;
        do {
          r = ::read(fd, in.data(), in.size());
        } while (r < 0 && errno == EINTR);
        if (r < 0) return InvalidArgument(path + ": read failed (" + std::strerror(errno) + ")");
        in_pos = 0;
        in_size = static_cast<size_t>(r);
        read_total += r;
        input_done = r == 0;
      }
      if (in_pos == in_size && input_done && !frame_open) {
        *eof = true;
        return Status::Ok();
      }
      // With the input exhausted this only flushes what the decoder holds.
      const size_t before = ob.pos;
      ZSTD_inBuffer ib{in.data(), in_size, in_pos};
      const size_t ret = ZSTD_decompressStream(dctx, &ob, &ib);
      consumed += static_cast<int64_t>(ib.pos - in_pos);
      in_pos = ib.pos;
      if (ZSTD_isError(ret)) {
        return InvalidArgument(path + ": corrupt zstd stream between compressed bytes " +
                               std::to_string(consumed) + " and " + std::to_string(read_total) + " (" +
                               ZSTD_getErrorName(ret) + ")");
      }
      frame_open = ret != 0;
      if (frame_open && input_done && in_pos == in_size && ob.pos == before) {
        return InvalidArgument(path + ": truncated zstd stream (its last frame is incomplete at byte " +
                               std::to_string(consumed) + ")");
      }
    }
    out_end = ob.pos;
    return Status::Ok();
  }
};

bool HasZstdMagic(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  unsigned char m[4] = {0, 0, 0, 0};
  const ssize_t r = ::read(fd, m, 4);
  ::close(fd);
  return r == 4 && m[0] == 0x28 && m[1] == 0xB5 && m[2] == 0x2F && m[3] == 0xFD;
}

ZstdStream::ZstdStream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ZstdStream::~ZstdStream() = default;

Result<std::unique_ptr<ZstdStream>> ZstdStream::Open(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (impl->fd < 0) return InvalidArgument(path + ": cannot open (" + std::strerror(errno) + ")");
  impl->dctx = ZSTD_createDCtx();
  if (impl->dctx == nullptr) return Internal(path + ": cannot create a zstd decoder");
  impl->in.resize(ZSTD_DStreamInSize());
  impl->out.resize(ZSTD_DStreamOutSize());
  return std::unique_ptr<ZstdStream>(new ZstdStream(std::move(impl)));
}

Status ZstdStream::Rewind() {
  Impl& s = *impl_;
  if (::lseek(s.fd, 0, SEEK_SET) != 0) {
    return InvalidArgument(s.path + ": cannot seek (" + std::strerror(errno) + ")");
  }
  ZSTD_DCtx_reset(s.dctx, ZSTD_reset_session_only);
  s.in_pos = s.in_size = 0;
  s.consumed = s.read_total = 0;
  s.input_done = s.frame_open = false;
  s.out_begin = s.out_end = 0;
  return Status::Ok();
}

Result<int64_t> ZstdStream::CountBytes(int64_t limit,
                                       const std::function<void(const unsigned char*, size_t)>& each) {
  FRUGAL_RETURN_IF_ERROR(Rewind());
  Impl& s = *impl_;
  int64_t total = 0;
  while (limit < 0 || total <= limit) {
    s.out_end = 0;
    bool eof = false;
    FRUGAL_RETURN_IF_ERROR(s.Fill(&eof));
    if (eof) break;
    if (each) each(s.out.data(), s.out_end);
    total += static_cast<int64_t>(s.out_end);
  }
  FRUGAL_RETURN_IF_ERROR(Rewind());
  return total;
}

Status ZstdStream::Read(size_t n, const unsigned char** data) {
  Impl& s = *impl_;
  if (s.out_begin > 0) {
    std::memmove(s.out.data(), s.out.data() + s.out_begin, s.out_end - s.out_begin);
    s.out_end -= s.out_begin;
    s.out_begin = 0;
  }
  if (s.out.size() < n + ZSTD_DStreamOutSize()) s.out.resize(n + ZSTD_DStreamOutSize());
  while (s.out_end < n) {
    bool eof = false;
    FRUGAL_RETURN_IF_ERROR(s.Fill(&eof));
    if (eof) return OutOfRange(s.path + ": unexpected end of file");
  }
  *data = s.out.data();
  s.out_begin = n;
  return Status::Ok();
}

}  // namespace frugal::cache
