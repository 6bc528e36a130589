#include "command_line.hpp"

#include <boost/program_options/parsers.hpp>
#include <boost/program_options/positional_options.hpp>
#include <iostream>
#include <sortie/model/error.hpp>

namespace po = boost::program_options;

namespace sortie::cli {

std::optional<std::vector<std::string>> parse_positional_words(
    const char* usage, const po::options_description& desc, const char* missing, const Args& args,
    po::variables_map& vm, int max_words) {
  std::vector<std::string> words;
  po::options_description hidden;
  hidden.add_options()("positional-word", po::value(&words));
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description positional;
  positional.add("positional-word", max_words);
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    std::cout << usage << "\n\n" << desc;
    return std::nullopt;
  }
  if (words.empty() || words.front().empty()) {
    throw Error::invalid_argument(std::string("missing ") + missing);
  }
  return words;
}

std::optional<std::string> parse_positional_command(const char* usage,
                                                    const po::options_description& desc,
                                                    const char* missing, const Args& args,
                                                    po::variables_map& vm) {
  const auto words = parse_positional_words(usage, desc, missing, args, vm, 1);
  if (!words) return std::nullopt;
  return words->front();
}

}  // namespace sortie::cli
