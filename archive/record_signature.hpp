// SPDX-License-Identifier: Apache-2.0
// Ed25519 signatures of archive records through OpenSSL's libcrypto (docs/archive.md,
// "Signatures"): a host that records with a private key signs each record's chain hash; `archive
// verify --public-key` then proves who appended every record, which the chain alone cannot (anyone
// may append a record and its hashes).
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace storqual::reporting {

// What is signed for a record: a fixed prefix and its record_hash.
[[nodiscard]] std::string record_signature_message(std::string_view record_hash);

class Ed25519Key {
 public:
  // A PEM Ed25519 private key (`openssl genpkey -algorithm ed25519`), or a public one
  // (`openssl pkey -pubout`). Throws UsageError naming `origin` (the option) and the file.
  [[nodiscard]] static std::shared_ptr<const Ed25519Key> load_private(const std::string& path,
                                                                      std::string_view origin);
  [[nodiscard]] static std::shared_ptr<const Ed25519Key> load_public(const std::string& path,
                                                                     std::string_view origin);
  ~Ed25519Key();
  Ed25519Key(const Ed25519Key&) = delete;
  Ed25519Key& operator=(const Ed25519Key&) = delete;

  // Lower-case hex of the 64-byte signature (a private key only).
  [[nodiscard]] std::string sign_hex(std::string_view message) const;
  [[nodiscard]] bool verify_hex(std::string_view message, std::string_view signature_hex) const;
  // The SHA-256 of the raw 32-byte public key: which key signed.
  [[nodiscard]] const std::string& key_id() const noexcept { return key_id_; }

 private:
  struct Handle;
  explicit Ed25519Key(std::unique_ptr<Handle> h);
  std::unique_ptr<Handle> handle_;
  std::string key_id_;
};

}  // namespace storqual::reporting
