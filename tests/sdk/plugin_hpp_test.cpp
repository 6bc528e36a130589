// sortie/plugin.hpp: negotiation, optional vtable slots, and the exception wall.
#include <gtest/gtest.h>

#include <sortie/plugin.hpp>
#include <stdexcept>
#include <string>

namespace {

struct MinimalScheduler : sortie::Scheduler {
  explicit MinimalScheduler(std::string_view) {}
  std::string dryrun(std::string_view input) override { return std::string(input); }
  std::string schedule(std::string_view) override { throw std::runtime_error("backend down"); }
  std::string describe(std::string_view id) override {
    throw sortie::Error::not_found("no app " + std::string(id));
  }
  void cancel(std::string_view) override { throw 42; }
};

struct WaitingScheduler : MinimalScheduler {
  using MinimalScheduler::MinimalScheduler;
  std::string wait(std::string_view, std::string_view, int64_t) override { return "{}"; }
  std::string list(std::string_view) override { return "{}"; }
};

std::string collected;
void collect(void*, const char* data, size_t len) { collected.append(data, len); }
const sortie_sink kSink{nullptr, collect};

sortie_str str(std::string_view text) { return {text.data(), text.size()}; }

sortie_scheduler* make(const sortie_scheduler_vtable* table) {
  sortie_scheduler* self = nullptr;
  EXPECT_EQ(table->create(str("{}"), &self, &kSink), SORTIE_OK);
  return self;
}

TEST(PluginHpp, OptionalSlotsAreNullUnlessOverridden) {
  const auto* minimal = sortie::detail::SchedulerTable<MinimalScheduler>::get();
  EXPECT_EQ(minimal->struct_size, sizeof(sortie_scheduler_vtable));
  EXPECT_NE(minimal->dryrun, nullptr);
  EXPECT_EQ(minimal->wait, nullptr);
  EXPECT_EQ(minimal->list, nullptr);
  EXPECT_EQ(minimal->log_open, nullptr);
  EXPECT_EQ(minimal->log_next, nullptr);
  EXPECT_EQ(minimal->log_close, nullptr);
  const auto* waiting = sortie::detail::SchedulerTable<WaitingScheduler>::get();
  EXPECT_NE(waiting->wait, nullptr);
  EXPECT_NE(waiting->list, nullptr);
  EXPECT_EQ(waiting->log_open, nullptr);
}

TEST(PluginHpp, TrampolinesTurnExceptionsIntoStatusCodes) {
  const auto* table = sortie::detail::SchedulerTable<MinimalScheduler>::get();
  sortie_scheduler* self = make(table);
  collected.clear();
  EXPECT_EQ(table->dryrun(self, str("{\"x\":1}"), &kSink, &kSink), SORTIE_OK);
  EXPECT_EQ(collected, "{\"x\":1}");
  collected.clear();
  EXPECT_EQ(table->schedule(self, str("{}"), &kSink, &kSink), SORTIE_INTERNAL);
  EXPECT_EQ(collected, "unexpected exception: backend down");
  collected.clear();
  EXPECT_EQ(table->describe(self, str("a1"), &kSink, &kSink), SORTIE_NOT_FOUND);
  EXPECT_EQ(collected, "no app a1");
  collected.clear();
  EXPECT_EQ(table->cancel(self, str("a1"), &kSink), SORTIE_INTERNAL);
  EXPECT_EQ(collected, "unexpected exception of unknown type");
  table->destroy(self);
}

TEST(PluginHpp, NegotiationPicksAVersionInTheHostsRange) {
  sortie_component component{sizeof(sortie_component), SORTIE_KIND_SCHEDULER, "s", "",
                             sortie::detail::SchedulerTable<MinimalScheduler>::get()};
  const sortie_component* components[] = {&component};
  sortie_host_info host{sizeof(sortie_host_info), SORTIE_ABI_VERSION(1, 0),
                        SORTIE_ABI_VERSION(1, 7), "9.9", nullptr};
  sortie_plugin_info info{};
  info.struct_size = sizeof(info);
  ASSERT_EQ(sortie::detail::negotiate(&host, &info, &kSink, "p", "1.0", components, 1), SORTIE_OK);
  EXPECT_EQ(info.abi_version, SORTIE_ABI_CURRENT);  // a newer host: the plugin's own version
  EXPECT_EQ(info.component_count, 1u);
  EXPECT_EQ(info.components[0], &component);

  host.abi_min = SORTIE_ABI_VERSION(2, 0);
  host.abi_max = SORTIE_ABI_VERSION(2, 3);
  collected.clear();
  info = sortie_plugin_info{};
  info.struct_size = sizeof(info);
  EXPECT_EQ(sortie::detail::negotiate(&host, &info, &kSink, "p", "1.0", components, 1),
            SORTIE_FAILED_PRECONDITION);
  EXPECT_EQ(collected, "plugin speaks sortie ABI major 1, host accepts majors 2 to 2");
}

TEST(PluginHpp, NegotiationWritesOnlyWhatAnOlderHostKnows) {
  sortie_host_info host{sizeof(sortie_host_info), SORTIE_ABI_VERSION(1, 0),
                        SORTIE_ABI_VERSION(1, 0), "0.1", nullptr};
  struct {
    sortie_plugin_info info;
    uint32_t canary;
  } out{};
  out.info.struct_size = offsetof(sortie_plugin_info, version);  // a host that knew less
  out.canary = 0xC0FFEEu;
  const char* sentinel = reinterpret_cast<const char*>(0x1);
  out.info.version = sentinel;
  ASSERT_EQ(sortie::detail::negotiate(&host, &out.info, &kSink, "p", "1.0", nullptr, 0), SORTIE_OK);
  EXPECT_EQ(out.info.struct_size, offsetof(sortie_plugin_info, version));
  EXPECT_STREQ(out.info.name, "p");
  EXPECT_EQ(out.info.version, sentinel);  // beyond struct_size: untouched
  EXPECT_EQ(out.canary, 0xC0FFEEu);
}

}  // namespace
