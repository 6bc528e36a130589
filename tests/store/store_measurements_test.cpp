// The measurement tables of the app store: series read back exactly, a curve thinned past L-24
// keeps its first, last, min and max, progress moves only from what a writer read, and a
// forgotten app takes its measurements with it.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <sortie/model/error.hpp>
#include <sortie/store/store.hpp>
#include <string>
#include <vector>

#include "store_test_support.hpp"

namespace sortie::store {
namespace {

using testing::sample_record;
using testing::ScratchDir;

class MeasurementStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = AppStore::open(scratch_.path() + "/sortie.db");
    store_->record_submission(sample_record("app"));
  }
  void TearDown() override {
    unsetenv("SORTIE_LIMIT_MEASUREMENT_POINTS");
    unsetenv("SORTIE_LIMIT_MEASUREMENT_SERIES");
  }
  static MeasurementProgress read_lines(int64_t lines, bool finished = false) {
    return MeasurementProgress{{{"trainer", 0, "stdout", lines}}, finished};
  }
  const std::string handle_ = "local://default/app";
  ScratchDir scratch_;
  std::unique_ptr<AppStore> store_;
};

TEST_F(MeasurementStoreTest, SeriesReadBackByReplicaAndKeyWithTheirCurves) {
  EXPECT_EQ(store_->measurement_progress(handle_), MeasurementProgress{});
  const std::vector<MeasurementPoint> points = {{"trainer", 0, "loss", 10, 100, 0.9},
                                                {"trainer", 0, "acc", 10, 100, 0.3},
                                                {"trainer", 1, "loss", 10, 101, 0.8},
                                                {"trainer", 0, "loss", 20, 200, 0.5},
                                                {"trainer", 0, "loss", 30, 300, 0.7}};
  ASSERT_TRUE(store_->record_measurements(handle_, {}, read_lines(4), points));

  const auto series = store_->measurements(handle_);
  ASSERT_EQ(series.size(), 3u);  // by role, replica, key
  EXPECT_EQ(series[0].key, "acc");
  EXPECT_EQ(series[1].key, "loss");
  EXPECT_EQ(series[1].replica_id, 0u);
  EXPECT_EQ(series[2].replica_id, 1u);
  const MeasurementSeries& loss = series[1];
  EXPECT_EQ(loss.count, 3);
  EXPECT_EQ(loss.first.value, 0.9);
  EXPECT_EQ(loss.last.step, 30);
  EXPECT_EQ(loss.last.value, 0.7);
  EXPECT_EQ(loss.min.step, 20);
  EXPECT_EQ(loss.min.index, 1);
  EXPECT_EQ(loss.max.value, 0.9);
  ASSERT_EQ(loss.curve.size(), 3u);
  EXPECT_EQ(loss.curve[1].at, 200);
  EXPECT_EQ(store_->measurement_progress(handle_), read_lines(4));

  const auto only_acc = store_->measurements(handle_, "acc", false);
  ASSERT_EQ(only_acc.size(), 1u);
  EXPECT_TRUE(only_acc[0].curve.empty());
  EXPECT_EQ(only_acc[0].last.value, 0.3);
}

TEST_F(MeasurementStoreTest, ProgressMovesOnlyFromWhatTheWriterRead) {
  ASSERT_TRUE(
      store_->record_measurements(handle_, {}, read_lines(1), {{"trainer", 0, "loss", 1, 1, 1.0}}));
  // A second reader that started from nothing read the same line: it records nothing.
  EXPECT_FALSE(
      store_->record_measurements(handle_, {}, read_lines(1), {{"trainer", 0, "loss", 1, 1, 1.0}}));
  EXPECT_TRUE(store_->record_measurements(handle_, read_lines(1), read_lines(2, true),
                                          {{"trainer", 0, "loss", 2, 2, 0.5}}));
  const auto series = store_->measurements(handle_, "loss");
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].count, 2);
  EXPECT_TRUE(store_->measurement_progress(handle_).finished);
}

TEST_F(MeasurementStoreTest, ACurvePastTheLimitIsThinnedKeepingFirstLastMinAndMax) {
  setenv("SORTIE_LIMIT_MEASUREMENT_POINTS", "100", 1);
  std::vector<MeasurementPoint> points;
  for (int step = 0; step < 1000; ++step) {
    const double value = step == 333 ? -5.0 : step == 777 ? 50.0 : 1.0 / (step + 1);
    points.push_back({"trainer", 0, "loss", step, step, value});
  }
  // In two writes, so the second continues a thinned curve.
  const std::vector<MeasurementPoint> head(points.begin(), points.begin() + 400);
  const std::vector<MeasurementPoint> tail(points.begin() + 400, points.end());
  ASSERT_TRUE(store_->record_measurements(handle_, {}, read_lines(400), head));
  ASSERT_TRUE(store_->record_measurements(handle_, read_lines(400), read_lines(1000), tail));

  const MeasurementSeries loss = store_->measurements(handle_, "loss").at(0);
  EXPECT_EQ(loss.count, 1000);
  EXPECT_EQ(loss.min.step, 333);
  EXPECT_EQ(loss.max.step, 777);
  EXPECT_EQ(loss.last.step, 999);
  EXPECT_GE(loss.curve.size(), 50u);
  EXPECT_LE(loss.curve.size(), 101u);  // the stored curve and the last point
  EXPECT_EQ(loss.curve.front().step, 0);
  EXPECT_EQ(loss.curve.back().step, 999);
  // Evenly spaced: every stored point but the last is a multiple of one stride.
  const int64_t stride = loss.curve[1].index;
  for (size_t i = 0; i + 1 < loss.curve.size(); ++i) {
    EXPECT_EQ(loss.curve[i].index, static_cast<int64_t>(i) * stride);
    EXPECT_EQ(loss.curve[i].step, loss.curve[i].index);
  }
}

TEST_F(MeasurementStoreTest, SeriesPastTheLimitAreNotRecorded) {
  setenv("SORTIE_LIMIT_MEASUREMENT_SERIES", "2", 1);
  ASSERT_TRUE(store_->record_measurements(handle_, {}, read_lines(1),
                                          {{"trainer", 0, "a", 1, 1, 1.0},
                                           {"trainer", 0, "b", 1, 1, 2.0},
                                           {"trainer", 0, "c", 1, 1, 3.0},
                                           {"trainer", 0, "a", 2, 2, 4.0}}));
  const auto series = store_->measurements(handle_);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].key, "a");
  EXPECT_EQ(series[0].count, 2);
  EXPECT_EQ(series[1].key, "b");
}

// torchrun's ranks share their replica's log: each rank's points are a series of their own, never
// mixed with another rank's or with the replica's lines of no rank.
TEST_F(MeasurementStoreTest, EachRankOfAReplicaIsASeriesOfItsOwn) {
  MeasurementPoint rank0{"trainer", 0, "loss", 1, 1, 0.5, 0};
  MeasurementPoint rank1{"trainer", 0, "loss", 1, 1, 0.9, 1};
  MeasurementPoint no_rank{"trainer", 0, "loss", 1, 1, 7.0};
  ASSERT_TRUE(store_->record_measurements(handle_, {}, read_lines(3), {rank1, rank0, no_rank}));
  const auto series = store_->measurements(handle_, "loss");
  ASSERT_EQ(series.size(), 3u);  // by role, replica, rank (none first), key
  EXPECT_EQ(series[0].rank, kNoRank);
  EXPECT_EQ(series[0].last.value, 7.0);
  EXPECT_EQ(series[1].rank, 0);
  EXPECT_EQ(series[1].last.value, 0.5);
  EXPECT_EQ(series[2].rank, 1);
  EXPECT_EQ(series[2].last.value, 0.9);
  for (const MeasurementSeries& one : series) EXPECT_EQ(one.count, 1);
}

// A store of schema version 6 (series per replica, no rank): its series and their curves become
// series of no rank, and a rank's points after it are a series of their own.
TEST_F(MeasurementStoreTest, SeriesOfSchemaVersionSixKeepTheirPointsAsSeriesOfNoRank) {
  store_.reset();
  {
    // Version 6's tables are version 7's without the rank.
    testing::RawDatabase raw(scratch_.path() + "/sortie.db");
    std::string series =
        raw.scalar("SELECT sql FROM sqlite_schema WHERE name = 'measurement_series'");
    const std::string points =
        raw.scalar("SELECT sql FROM sqlite_schema WHERE name = 'measurement_points'");
    for (const std::string rank : {"  rank INTEGER NOT NULL,\n", " rank,"}) {
      ASSERT_NE(series.find(rank), std::string::npos) << series;
      series.erase(series.find(rank), rank.size());
    }
    raw.execute("DROP TABLE measurement_points; DROP TABLE measurement_series; " + series + "; " +
                points + "; " +
                "INSERT INTO measurement_series VALUES (7, 'local://default/app', 'trainer', 0, "
                "'loss', 2, 1, 2, 1, 10, 0.9, 2, 20, 0.4, 1, 2, 20, 0.4, 0, 1, 10, 0.9); "
                "INSERT INTO measurement_points VALUES (7, 0, 1, 10, 0.9), (7, 1, 2, 20, 0.4); "
                "PRAGMA user_version = 6");
  }
  store_ = AppStore::open(scratch_.path() + "/sortie.db");
  auto series = store_->measurements(handle_, "loss");
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].rank, kNoRank);
  EXPECT_EQ(series[0].count, 2);
  EXPECT_EQ(series[0].min.value, 0.4);
  ASSERT_EQ(series[0].curve.size(), 2u);
  EXPECT_EQ(series[0].curve[0].value, 0.9);
  ASSERT_TRUE(store_->record_measurements(handle_, {}, read_lines(1),
                                          {{"trainer", 0, "loss", 3, 30, 0.1, 0}}));
  series = store_->measurements(handle_, "loss");
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].count, 2);
  EXPECT_EQ(series[1].rank, 0);
  EXPECT_EQ(series[1].count, 1);
  // Forgetting the app still takes the migrated points along.
  store_->forget(handle_);
  EXPECT_EQ(testing::RawDatabase(scratch_.path() + "/sortie.db")
                .scalar("SELECT count(*) FROM measurement_points"),
            "0");
}

TEST_F(MeasurementStoreTest, AnUnknownAppIsRefusedAndAForgottenOneTakesItsMeasurements) {
  EXPECT_THROW(store_->record_measurements("local://default/none", {}, read_lines(1), {}), Error);
  ASSERT_TRUE(
      store_->record_measurements(handle_, {}, read_lines(1), {{"trainer", 0, "loss", 1, 1, 1.0}}));
  store_->forget(handle_);
  EXPECT_TRUE(store_->measurements(handle_).empty());
  EXPECT_EQ(store_->measurement_progress(handle_), MeasurementProgress{});
}

}  // namespace
}  // namespace sortie::store
