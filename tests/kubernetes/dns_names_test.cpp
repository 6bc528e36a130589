// Kubernetes naming rules and the names the scheduler derives from user text.
#include "dns_names.hpp"

#include <gtest/gtest.h>

namespace sortie::kubernetes {
namespace {

TEST(KubernetesDnsNamesTest, ValidatesLabelsSubdomainsAndPortNames) {
  EXPECT_TRUE(is_dns1123_label("trainer-0"));
  EXPECT_FALSE(is_dns1123_label("Trainer"));
  EXPECT_FALSE(is_dns1123_label("-a"));
  EXPECT_FALSE(is_dns1123_label(std::string(64, 'a')));
  EXPECT_TRUE(is_dns1123_subdomain("nvidia.com"));
  EXPECT_FALSE(is_dns1123_subdomain("a..b"));
  EXPECT_FALSE(is_dns1035_label("0abc"));
  EXPECT_TRUE(is_label_value("A_b.c-1"));
  EXPECT_FALSE(is_label_value("a b"));
  EXPECT_TRUE(is_port_name("tb"));
  EXPECT_FALSE(is_port_name("1234"));
  EXPECT_FALSE(is_port_name("a--b"));
  EXPECT_FALSE(is_port_name("sixteen-letters-"));
}

TEST(KubernetesDnsNamesTest, DerivedNamesAreValidAndDistinct) {
  EXPECT_EQ(dns_label("My_Trainer Role"), "my-trainer-role");
  EXPECT_EQ(dns1035_label("1st"), "s-1st");
  const std::string long_a = dns_label(std::string(80, 'x') + "a", 30);
  const std::string long_b = dns_label(std::string(80, 'x') + "b", 30);
  EXPECT_EQ(long_a.size(), 30u);
  EXPECT_TRUE(is_dns1123_label(long_a));
  EXPECT_NE(long_a, long_b) << "shortened names keep a hash of the whole text";
  EXPECT_TRUE(is_dns1123_label(dns_label("___")));
  EXPECT_EQ(label_value("team a/b"), "team-a-b");
  EXPECT_TRUE(is_label_value(label_value(std::string(100, 'z'))));
}

}  // namespace
}  // namespace sortie::kubernetes
