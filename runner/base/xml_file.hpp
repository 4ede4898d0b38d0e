// SPDX-License-Identifier: Apache-2.0
// An XML file loaded with pugixml that can say where each of its elements and attributes is, so
// that every mistake in a spec sheet or suite is reported as `file:line:column: what was expected`.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include <pugixml.hpp>

#include "runner/base/errors.hpp"

namespace storqual::runner {

// A mistake in a spec sheet or suite file. what() is "file:line:column: what was expected"
// (or "file: what" when no position applies, e.g. an unreadable file). `storqual` exits 2 on it.
class FileError : public storqual::Error {
 public:
  explicit FileError(const std::string& what) : Error(what, kExitUsage) {}
};

enum class FileKind { SpecSheet, Suite };

// Reads the root element of an XML file: <spec-sheet> or <suite>. Throws FileError for an
// unreadable file, malformed XML (pugixml's description at its position) or any other root element.
[[nodiscard]] FileKind detect_file_kind(const std::filesystem::path& path);

// The parsed document plus the original bytes. Positions are 1-based; columns count UTF-8
// characters. The document is parsed in place in `buffer_`, so node and attribute name pointers
// map back to byte offsets of the original text.
class XmlFile {
 public:
  // Throws FileError when the file cannot be read or is not well-formed XML.
  explicit XmlFile(const std::filesystem::path& path);
  // For tests and in-memory text; `display_name` stands in for the path in messages.
  XmlFile(std::string text, std::string display_name);

  XmlFile(const XmlFile&) = delete;
  XmlFile& operator=(const XmlFile&) = delete;

  [[nodiscard]] const std::string& display_name() const noexcept { return name_; }
  [[nodiscard]] const std::string& bytes() const noexcept { return original_; }  // as read
  [[nodiscard]] pugi::xml_node root() const noexcept { return doc_.document_element(); }

  // "file:line:column" of an element's '<', an attribute's name, or an attribute's value.
  [[nodiscard]] std::string where(pugi::xml_node node) const;
  [[nodiscard]] std::string where(pugi::xml_attribute attr) const;
  [[nodiscard]] std::string where_value(pugi::xml_attribute attr) const;
  [[nodiscard]] std::string where_offset(std::size_t byte_offset) const;
  // "line:column" of an element's '<', for "first at 3:5" in messages about duplicates.
  [[nodiscard]] std::string position(pugi::xml_node node) const;

  // FileError with "where: what".
  [[nodiscard]] FileError error(pugi::xml_node node, std::string_view what) const;
  [[nodiscard]] FileError error(pugi::xml_attribute attr, std::string_view what) const;
  [[nodiscard]] FileError error_value(pugi::xml_attribute attr, std::string_view what) const;

 private:
  void parse();
  [[nodiscard]] std::size_t offset_of(const char* p, std::size_t fallback) const noexcept;

  std::string name_;
  std::string original_;
  std::unique_ptr<char[]> buffer_;  // pugixml parses in place here; must outlive doc_
  std::size_t size_ = 0;
  pugi::xml_document doc_;
};

// Checks that `element` has only attributes in `allowed` (a space-separated list), no text and
// no child elements other than `children` (space-separated; "" = none). Throws FileError at the
// first offender naming what was expected.
void expect_only(const XmlFile& file, pugi::xml_node element, std::string_view allowed,
                 std::string_view children);

// The attribute or throws FileError "<element> needs attribute 'name'" at the element.
[[nodiscard]] pugi::xml_attribute required_attribute(const XmlFile& file, pugi::xml_node element,
                                                     const char* name);

}  // namespace storqual::runner
