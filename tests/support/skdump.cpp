// SPDX-License-Identifier: Apache-2.0
// skdump as the independent decoder (skdump.hpp).
#include "tests/support/skdump.hpp"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace storqual::testing {

std::string skdump_blob(const devices::AtaPage& identify, const devices::AtaPage& data,
                        const devices::AtaPage& thresholds, bool status_good) {
  std::string blob;
  auto u32 = [&](std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) blob.push_back(static_cast<char>((v >> s) & 0xFF));
  };
  auto tag = [&](char a, char b, char c, char d, const std::uint8_t* bytes, std::uint32_t size) {
    u32((std::uint32_t(std::uint8_t(a)) << 24) | (std::uint32_t(std::uint8_t(b)) << 16) |
        (std::uint32_t(std::uint8_t(c)) << 8) | std::uint8_t(d));
    u32(size);
    blob.append(reinterpret_cast<const char*>(bytes), size);
  };
  tag('I', 'D', 'F', 'Y', identify.data(), 512);
  const std::array<std::uint8_t, 4> status{0, 0, 0, std::uint8_t(status_good ? 1 : 0)};
  tag('S', 'M', 'S', 'T', status.data(), 4);
  tag('S', 'M', 'D', 'T', data.data(), 512);
  tag('S', 'M', 'T', 'H', thresholds.data(), 512);
  return blob;
}

bool have_skdump() {
  return std::system("command -v skdump > /dev/null 2>&1") == 0;
}

std::string run_skdump_file(const std::filesystem::path& snapshot) {
  std::string out;
  if (std::FILE* p = ::popen(("skdump --load='" + snapshot.string() + "' 2>&1").c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

std::string run_skdump(const std::string& blob) {
  char path[] = "/tmp/storqual-skdump-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) return {};
  const bool whole = ::write(fd, blob.data(), blob.size()) == static_cast<ssize_t>(blob.size());
  ::close(fd);
  std::string out = whole ? run_skdump_file(path) : std::string();
  ::unlink(path);
  return out;
}

std::string skdump_plain(const std::string& text) {
  std::string plain;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b') {
      while (i < text.size() && text[i] != 'm') ++i;
      continue;
    }
    plain.push_back(text[i]);
  }
  return plain;
}

std::map<unsigned, SkdumpRow> skdump_attributes(const std::string& text) {
  std::map<unsigned, SkdumpRow> rows;
  std::istringstream in(skdump_plain(text));
  bool table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("ID#", 0) == 0) {
      table = true;
      continue;
    }
    if (!table || line.empty()) continue;
    std::istringstream f(line);
    unsigned id;
    SkdumpRow r;  // "n/a" where a field is not valid
    if (!(f >> id >> r.name >> r.value >> r.worst >> r.threshold)) continue;
    // Then the pretty value (one or two words: "5 sectors", "10.2h"), the raw hex, type, ...
    std::vector<std::string> rest;
    for (std::string w; f >> w;) rest.push_back(w);
    for (std::size_t i = 0; i < rest.size(); ++i)
      if (rest[i].rfind("0x", 0) == 0 && rest[i].size() == 14 && i + 3 < rest.size()) {
        for (std::size_t k = 0; k < i; ++k) r.pretty += (k ? " " : "") + rest[k];
        r.raw = rest[i];
        r.type = rest[i + 1];
        r.good = rest[i + 3];
      }
    rows[id] = r;
  }
  return rows;
}

std::string skdump_byte(unsigned byte) {
  return byte >= 1 && byte <= 0xFD ? std::to_string(byte) : "n/a";
}

std::string skdump_raw_hex(const devices::AtaAttribute& a) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%02x%02x%02x%02x%02x%02x", a.raw[0], a.raw[1], a.raw[2],
                a.raw[3], a.raw[4], a.raw[5]);
  return buf;
}

std::string skdump_field(const std::string& text, const std::string& key) {
  std::istringstream in(skdump_plain(text));
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ": ", 0) == 0) return line.substr(key.size() + 2);
  return {};
}

}  // namespace storqual::testing
