#include "package_result.hpp"

namespace sortie::plugins_common {

PackageResultWriter::PackageResultWriter() : writer_(buffer_) {
  writer_.StartObject();
  writer_.Key("schema");
  writer_.String("sortie.package_result/1");
  writer_.Key("packaged");
  writer_.StartArray();
}

void PackageResultWriter::add_runnable(const char* kind, std::optional<std::string_view> image,
                                       std::optional<std::string_view> entrypoint,
                                       std::string_view digest, bool cached) {
  writer_.StartObject();
  writer_.Key("kind");
  writer_.String(kind);
  if (image) {
    writer_.Key("image");
    write_string(writer_, *image);
  }
  writer_.Key("entrypoint");
  if (entrypoint) {
    write_string(writer_, *entrypoint);
  } else {
    writer_.Null();
  }
  writer_.Key("args");
  writer_.StartArray();
  writer_.EndArray();
  writer_.Key("env");
  writer_.StartObject();
  writer_.EndObject();
  writer_.Key("digest");
  write_string(writer_, digest);
  writer_.Key("cached");
  writer_.Bool(cached);
  writer_.EndObject();
}

void PackageResultWriter::add_process(std::string_view entrypoint, std::string_view digest,
                                      bool cached) {
  add_runnable("process", std::nullopt, entrypoint, digest, cached);
}

void PackageResultWriter::add_image(std::string_view image, std::string_view digest, bool cached) {
  add_runnable("image", image, std::nullopt, digest, cached);
}

void PackageResultWriter::add_container_archive(std::string_view image_path) {
  writer_.StartObject();
  writer_.Key("kind");
  writer_.String("executable");
  writer_.Key("executable");
  writer_.StartObject();
  writer_.Key("kind");
  writer_.String("container");
  writer_.Key("image_path");
  write_string(writer_, image_path);
  writer_.EndObject();
  writer_.EndObject();
}

std::string PackageResultWriter::finish() {
  writer_.EndArray();
  writer_.EndObject();
  return std::string(buffer_.GetString(), buffer_.GetSize());
}

}  // namespace sortie::plugins_common
