// Prints a greeting, its arguments and HELLO_NAME, so a caller can check what reached the
// process: the args and env that sortie baked in or the job passed.
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const char* name = std::getenv("HELLO_NAME");
  std::printf("hello from bazel, HELLO_NAME=%s\n", name != nullptr ? name : "(unset)");
  for (int i = 1; i < argc; ++i) std::printf("arg %d: %s\n", i, argv[i]);
  return 0;
}
