// libFuzzer harness: the experiment file reader (core/xm/experiment_file.cpp), YAML and JSON.
#include <sortie/xm/experiment_file.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const sortie::fuzz::InputFile file(data, size);
  sortie::fuzz::parse_refusing_with_errors_only(
      [&] { sortie::xm::read_experiment_file(file.path()); });
  return 0;
}
