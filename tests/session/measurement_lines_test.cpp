// The numbers read from one line a job wrote (docs/experiments.md XF-35): key=value and
// key: value pairs of a log line, the numeric members of a JSON line.
#include <gtest/gtest.h>

#include <sortie/session/measurement_lines.hpp>

namespace sortie::session {
namespace {

TEST(MeasurementLinesTest, PairsOfTheCommonFormsAreRead) {
  EXPECT_EQ(log_line_values("step=10 loss=0.53 acc=0.71"),
            (MeasuredValues{{"step", 10}, {"loss", 0.53}, {"acc", 0.71}}));
  EXPECT_EQ(log_line_values("Epoch 3 | train/loss: 1.5e-2, val_acc: +0.9;"),
            (MeasuredValues{{"train/loss", 0.015}, {"val_acc", 0.9}}));
  EXPECT_EQ(log_line_values("[rank0] step=7\tlr=-3"), (MeasuredValues{{"step", 7}, {"lr", -3}}));
}

TEST(MeasurementLinesTest, WhatIsNotANumberOrNotAPairIsLeftOut) {
  EXPECT_EQ(log_line_values("name=abc lr=1e-3x took=10ms loss=nan acc=inf"), MeasuredValues{});
  EXPECT_EQ(log_line_values("ratio:0.5 time: 12:30 x =1"), (MeasuredValues{{"time", 12}}));
  EXPECT_EQ(log_line_values("myloss=2"), (MeasuredValues{{"myloss", 2}}));
  EXPECT_EQ(log_line_values(""), MeasuredValues{});
}

TEST(MeasurementLinesTest, JsonLinesGiveTheirNumericMembers) {
  EXPECT_EQ(json_line_values(R"({"step": 10, "loss": 0.53, "tag": "a", "ok": true})"
                             "\n"),
            (MeasuredValues{{"step", 10}, {"loss", 0.53}}));
  EXPECT_EQ(json_line_values("step=10 loss=0.5"), MeasuredValues{});
  EXPECT_EQ(json_line_values("[1, 2]"), MeasuredValues{});
  EXPECT_EQ(json_line_values(std::string(100000, '[')), MeasuredValues{});  // deep: no crash
}

TEST(MeasurementLinesTest, TorchrunsPrefixNamesTheRankOfALine) {
  const RankedLine rank1 = ranked_line("[1]:step=3 loss=0.5\n");
  EXPECT_EQ(rank1.rank, 1);
  EXPECT_EQ(rank1.text, "step=3 loss=0.5\n");
  EXPECT_EQ(ranked_line("[default12]:epoch=1").rank, 12);  // torchrun's default --role
  EXPECT_EQ(ranked_line("[default12]:epoch=1").text, "epoch=1");
  for (const char* whole : {"step=1 loss=2", "[rank0] step=7", "[]:x=1", "[1] :x=1", "[1]x=1",
                            "[1234567890]:x=1", "", "[", "[7]"}) {
    EXPECT_EQ(ranked_line(whole).rank, -1) << whole;
    EXPECT_EQ(ranked_line(whole).text, whole);
  }
}

}  // namespace
}  // namespace sortie::session
