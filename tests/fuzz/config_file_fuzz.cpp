// libFuzzer harness: the .sortieconfig reader (core/model/config_file.cpp).
#include <sortie/model/config_file.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const sortie::fuzz::InputFile file(data, size);
  sortie::fuzz::parse_refusing_with_errors_only(
      [&] { sortie::model::ConfigFile::load({file.path()}); });
  return 0;
}
