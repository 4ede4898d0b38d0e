// SPDX-License-Identifier: Apache-2.0
// Ed25519 signatures of archive records (record_signature.hpp).
#include "archive/record_signature.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstdio>

#include "archive/archive.hpp"
#include "model/errors.hpp"

namespace storqual::reporting {
namespace {

std::string hex(const unsigned char* p, std::size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out += kHex[p[i] >> 4];
    out += kHex[p[i] & 15];
  }
  return out;
}

bool unhex(std::string_view text, unsigned char* out, std::size_t n) {
  if (text.size() != 2 * n) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  return true;
}

struct MdCtx {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  ~MdCtx() { EVP_MD_CTX_free(ctx); }
};

}  // namespace

struct Ed25519Key::Handle {
  EVP_PKEY* key = nullptr;
  bool is_private = false;
  ~Handle() { EVP_PKEY_free(key); }
};

std::string record_signature_message(std::string_view record_hash) {
  return "storqual archive record v1 " + std::string(record_hash);
}

Ed25519Key::Ed25519Key(std::unique_ptr<Handle> h) : handle_(std::move(h)) {
  unsigned char raw[32];
  std::size_t n = sizeof raw;
  if (EVP_PKEY_get_raw_public_key(handle_->key, raw, &n) == 1)
    key_id_ = archive_sha256_hex({reinterpret_cast<char*>(raw), n});
}

Ed25519Key::~Ed25519Key() = default;

std::shared_ptr<const Ed25519Key> Ed25519Key::load_private(const std::string& path,
                                                           std::string_view origin) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw UsageError(std::string(origin) + " " + path + ": cannot open");
  auto h = std::make_unique<Handle>();
  h->key = PEM_read_PrivateKey(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  h->is_private = true;
  if (!h->key || EVP_PKEY_id(h->key) != EVP_PKEY_ED25519)
    throw UsageError(std::string(origin) + " " + path +
                     ": not a PEM Ed25519 private key (openssl genpkey -algorithm ed25519)");
  return std::shared_ptr<const Ed25519Key>(new Ed25519Key(std::move(h)));
}

std::shared_ptr<const Ed25519Key> Ed25519Key::load_public(const std::string& path,
                                                          std::string_view origin) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw UsageError(std::string(origin) + " " + path + ": cannot open");
  auto h = std::make_unique<Handle>();
  h->key = PEM_read_PUBKEY(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  if (!h->key || EVP_PKEY_id(h->key) != EVP_PKEY_ED25519)
    throw UsageError(std::string(origin) + " " + path +
                     ": not a PEM Ed25519 public key (openssl pkey -in KEY -pubout)");
  return std::shared_ptr<const Ed25519Key>(new Ed25519Key(std::move(h)));
}

std::string Ed25519Key::sign_hex(std::string_view message) const {
  if (!handle_->is_private) throw ArchiveError("signing needs the private key");
  MdCtx md;
  unsigned char sig[64];
  std::size_t n = sizeof sig;
  if (!md.ctx || EVP_DigestSignInit(md.ctx, nullptr, nullptr, nullptr, handle_->key) != 1 ||
      EVP_DigestSign(md.ctx, sig, &n, reinterpret_cast<const unsigned char*>(message.data()),
                     message.size()) != 1)
    throw ArchiveError("Ed25519 signing failed (OpenSSL)");
  return hex(sig, n);
}

bool Ed25519Key::verify_hex(std::string_view message, std::string_view signature_hex) const {
  unsigned char sig[64];
  if (!unhex(signature_hex, sig, sizeof sig)) return false;
  MdCtx md;
  return md.ctx && EVP_DigestVerifyInit(md.ctx, nullptr, nullptr, nullptr, handle_->key) == 1 &&
         EVP_DigestVerify(md.ctx, sig, sizeof sig,
                          reinterpret_cast<const unsigned char*>(message.data()),
                          message.size()) == 1;
}

}  // namespace storqual::reporting
