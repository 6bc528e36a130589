// libFuzzer harness: the manifest reader (registry/src/manifest.cpp). A bad manifest is a
// problem in the registry, never an exception.
#include <sortie/registry/registry.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const sortie::fuzz::InputFile file(data, size);
  sortie::registry::Registry::from_files({file.path()});
  return 0;
}
