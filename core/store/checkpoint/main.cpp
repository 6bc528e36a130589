// sortie-store-checkpoint PATH: checkpoints and empties the WAL of the app store at PATH, so
// that the sortie command which started it does not wait for the fsyncs (store_wal.hpp).
#include "store_wal.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  // Nobody reads our output: the next command's own open reports what is wrong with the store.
  return sortie::core::store_detail::checkpoint_store_file(argv[1]) ? 0 : 1;
}
