// SPDX-License-Identifier: Apache-2.0
// XML loading with positions for messages.
#include "runner/base/xml_file.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

namespace storqual::runner {
namespace {

std::vector<std::string_view> split_words(std::string_view list) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && list[i] == ' ') ++i;
    std::size_t j = i;
    while (j < list.size() && list[j] != ' ') ++j;
    if (j > i) out.push_back(list.substr(i, j - i));
    i = j;
  }
  return out;
}

// "a", "a or b", "a, b or c"
std::string or_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += (i + 1 == items.size()) ? " or " : ", ";
    out += items[i];
  }
  return out;
}

}  // namespace

XmlFile::XmlFile(const std::filesystem::path& path) : name_(path.string()) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(name_ + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw FileError(name_ + ": cannot read: " + std::strerror(errno));
  original_ = std::move(text).str();
  parse();
}

XmlFile::XmlFile(std::string text, std::string display_name)
    : name_(std::move(display_name)), original_(std::move(text)) {
  parse();
}

void XmlFile::parse() {
  size_ = original_.size();
  buffer_ = std::make_unique<char[]>(size_ + 1);
  std::memcpy(buffer_.get(), original_.data(), size_);
  buffer_[size_] = '\0';
  // UTF-8 is forced so that pugixml never converts into a buffer of its own: positions of names
  // and values must map back to offsets in the original text.
  pugi::xml_parse_result r =
      doc_.load_buffer_inplace(buffer_.get(), size_, pugi::parse_default, pugi::encoding_utf8);
  if (!r) {
    std::size_t off = r.offset < 0 ? 0 : static_cast<std::size_t>(r.offset);
    throw FileError(where_offset(off) + ": malformed XML: " + r.description());
  }
  if (!doc_.document_element())
    throw FileError(where_offset(0) + ": malformed XML: no root element");
}

std::size_t XmlFile::offset_of(const char* p, std::size_t fallback) const noexcept {
  const char* begin = buffer_.get();
  if (p >= begin && p <= begin + size_) return static_cast<std::size_t>(p - begin);
  return fallback;
}

std::string XmlFile::where_offset(std::size_t byte_offset) const {
  if (byte_offset > original_.size()) byte_offset = original_.size();
  std::size_t line = 1, column = 1;
  // A UTF-8 byte order mark is not a character anyone sees in an editor.
  const std::size_t start = original_.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  for (std::size_t i = start; i < byte_offset; ++i) {
    unsigned char c = static_cast<unsigned char>(original_[i]);
    if (c == '\n') {
      ++line;
      column = 1;
    } else if ((c & 0xC0) != 0x80) {  // count characters, not UTF-8 continuation bytes
      ++column;
    }
  }
  return name_ + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string XmlFile::where(pugi::xml_node node) const {
  std::size_t off = offset_of(node.name(), 0);
  if (off > 0 && node.type() == pugi::node_element) --off;  // point at '<'
  if (node.type() != pugi::node_element) {
    off = offset_of(node.value(), 0);
  }
  return where_offset(off);
}

std::string XmlFile::position(pugi::xml_node node) const {
  std::string w = where(node);
  return w.substr(name_.size() + 1);
}

std::string XmlFile::where(pugi::xml_attribute attr) const {
  return where_offset(offset_of(attr.name(), 0));
}

std::string XmlFile::where_value(pugi::xml_attribute attr) const {
  std::size_t name_off = offset_of(attr.name(), 0);
  return where_offset(offset_of(attr.value(), name_off));
}

FileError XmlFile::error(pugi::xml_node node, std::string_view what) const {
  return FileError(where(node) + ": " + std::string(what));
}
FileError XmlFile::error(pugi::xml_attribute attr, std::string_view what) const {
  return FileError(where(attr) + ": " + std::string(what));
}
FileError XmlFile::error_value(pugi::xml_attribute attr, std::string_view what) const {
  return FileError(where_value(attr) + ": " + std::string(what));
}

void expect_only(const XmlFile& file, pugi::xml_node element, std::string_view allowed,
                 std::string_view children) {
  const auto allowed_attrs = split_words(allowed);
  const auto allowed_children = split_words(children);
  for (pugi::xml_attribute a : element.attributes()) {
    bool ok = false;
    for (auto name : allowed_attrs) ok = ok || name == a.name();
    if (ok) continue;
    std::vector<std::string> names(allowed_attrs.begin(), allowed_attrs.end());
    std::string expected =
        names.empty() ? std::string("it takes no attributes") : "expected " + or_list(names);
    throw file.error(a, "unknown attribute '" + std::string(a.name()) + "' on <" + element.name() +
                            "> (" + expected + ")");
  }
  for (pugi::xml_node child : element.children()) {
    if (child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata)
      throw file.error(child, "unexpected text in <" + std::string(element.name()) + ">");
    if (child.type() != pugi::node_element) continue;  // comments, processing instructions
    bool ok = false;
    for (auto name : allowed_children) ok = ok || name == child.name();
    if (ok) continue;
    std::vector<std::string> names;
    for (auto n : allowed_children) names.push_back("<" + std::string(n) + ">");
    std::string expected =
        names.empty() ? std::string("it takes no child elements") : "expected " + or_list(names);
    throw file.error(child, "unknown element <" + std::string(child.name()) + "> in <" +
                                element.name() + "> (" + expected + ")");
  }
}

pugi::xml_attribute required_attribute(const XmlFile& file, pugi::xml_node element,
                                       const char* name) {
  pugi::xml_attribute a = element.attribute(name);
  if (!a)
    throw file.error(element,
                     "<" + std::string(element.name()) + "> needs attribute '" + name + "'");
  return a;
}

FileKind detect_file_kind(const std::filesystem::path& path) {
  XmlFile file(path);
  std::string_view root = file.root().name();
  if (root == "spec-sheet") return FileKind::SpecSheet;
  if (root == "suite") return FileKind::Suite;
  throw file.error(file.root(), "unknown root element <" + std::string(root) +
                                    "> (expected <spec-sheet> or <suite>)");
}

}  // namespace storqual::runner
