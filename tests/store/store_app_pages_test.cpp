// AppStore::list in pages (ListFilter::after_handle, the dashboard's "load more") and
// AppStore::count: every app once, in the order of one whole list, whatever the page size.
#include <gtest/gtest.h>

#include <sortie/store/store.hpp>
#include <string>
#include <vector>

#include "store_test_support.hpp"

namespace sortie::store {
namespace {

using testing::sample_record;
using testing::sample_status;
using testing::ScratchDir;
using Ids = std::vector<std::string>;

class AppPagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = AppStore::open(scratch_.path() + "/state/sortie/sortie.db");
    // Two pairs submitted at the same time: the later insert lists first.
    for (const auto& [id, at] : std::vector<std::pair<std::string, int64_t>>{
             {"a", 100}, {"b", 200}, {"c", 200}, {"d", 300}, {"e", 400}, {"f", 400}}) {
      store_->record_submission(sample_record(id, "local", "s", at));
    }
    store_->record_status("local://s/d", sample_status("d", AppState::kSucceeded, 1));
  }

  Ids ids(const ListFilter& filter) const {
    Ids result;
    for (const AppRecord& record : store_->list(filter)) result.push_back(record.app_id);
    return result;
  }

  // Every page of `size` after the first, each after the last handle of the one before.
  Ids paged(ListFilter filter, int size) const {
    filter.limit = size;
    Ids result;
    for (;;) {
      const auto page = store_->list(filter);
      for (const AppRecord& record : page) result.push_back(record.app_id);
      if (static_cast<int>(page.size()) < size) return result;
      filter.after_handle = page.back().handle;
    }
  }

  ScratchDir scratch_;
  std::unique_ptr<AppStore> store_;
};

TEST_F(AppPagesTest, PagesListEveryAppOnceInTheWholeListsOrder) {
  const Ids whole = ids({});
  ASSERT_EQ(whole, (Ids{"f", "e", "d", "c", "b", "a"}));
  for (int size = 1; size <= 7; ++size) EXPECT_EQ(paged({}, size), whole) << "pages of " << size;
  ListFilter active;
  active.active_only = true;
  EXPECT_EQ(paged(active, 2), (Ids{"f", "e", "c", "b", "a"}));
}

TEST_F(AppPagesTest, AfterAHandleTheStoreDoesNotHoldListsNone) {
  ListFilter filter;
  filter.after_handle = "local://s/gone";
  EXPECT_EQ(ids(filter), Ids{});
}

TEST_F(AppPagesTest, CountIsTheWholeListsLengthWithoutTheLimit) {
  ListFilter filter;
  filter.limit = 2;
  EXPECT_EQ(store_->count(filter), 6);
  filter.active_only = true;
  EXPECT_EQ(store_->count(filter), 5);
  filter.after_handle = "local://s/e";
  EXPECT_EQ(store_->count(filter), 3);
  filter.scheduler = "k8s";
  EXPECT_EQ(store_->count(filter), 0);
}

}  // namespace
}  // namespace sortie::store
