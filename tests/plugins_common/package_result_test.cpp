#include "package_result.hpp"

#include <gtest/gtest.h>

namespace sortie {
namespace {

TEST(PluginsCommonPackageResult, WritesEachKindInTheOrderAdded) {
  plugins_common::PackageResultWriter result;
  result.add_process("/abs/train.sh", "sha256:aa", false);
  result.add_image("localhost:5000/x:1", "sha256:bb", true);
  result.add_container_archive("/out/image.tar");
  EXPECT_EQ(
      result.finish(),
      R"({"schema":"sortie.package_result/1","packaged":[)"
      R"({"kind":"process","entrypoint":"/abs/train.sh","args":[],"env":{},)"
      R"("digest":"sha256:aa","cached":false},)"
      R"({"kind":"image","image":"localhost:5000/x:1","entrypoint":null,"args":[],"env":{},)"
      R"("digest":"sha256:bb","cached":true},)"
      R"({"kind":"executable","executable":{"kind":"container","image_path":"/out/image.tar"}}]})");
}

TEST(PluginsCommonPackageResult, AnEmptyBatchIsAnEmptyList) {
  plugins_common::PackageResultWriter result;
  EXPECT_EQ(result.finish(), R"({"schema":"sortie.package_result/1","packaged":[]})");
}

}  // namespace
}  // namespace sortie
