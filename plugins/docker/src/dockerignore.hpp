// .dockerignore semantics, as the docker CLI applies them to a build context: one pattern per
// line, '#' comments, '!' exceptions, the last matching pattern wins, and a pattern that matches
// a directory excludes everything below it. Globs: '*' and '?' stay within one path component,
// '**' spans any number of them, '[...]' classes, '\' escapes.
#ifndef SORTIE_DOCKER_DOCKERIGNORE_HPP
#define SORTIE_DOCKER_DOCKERIGNORE_HPP

#include <string>
#include <string_view>
#include <vector>

namespace sortie::docker {

// True when path (components separated by '/') matches the whole glob pattern.
bool glob_match(std::string_view pattern, std::string_view path);

class DockerIgnore {
 public:
  explicit DockerIgnore(std::string_view text = "");
  // path: relative to the context root, '/'-separated, without a leading "./".
  bool excluded(std::string_view path) const;
  // True when some '!' pattern exists, so an excluded directory may still hold included files.
  bool has_exceptions() const;

 private:
  struct Pattern {
    std::string glob;
    bool exception = false;
    size_t components = 1;
  };
  std::vector<Pattern> patterns_;
};

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_DOCKERIGNORE_HPP
