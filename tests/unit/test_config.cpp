#include <gtest/gtest.h>

#include <fstream>

#include "base/build_info.hpp"
#include "config/suite.hpp"

namespace gpb {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_suite(text, "suite.json");
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

// A report or a history export where a suite belongs is named for what it is.
TEST(Suite, OtherGpubenchFilesAreNamed) {
  EXPECT_EQ(error_of(R"({"schema": "gpubench-report", "schema_version": 1, "context": {}, "results": []})"),
            "suite 'suite.json' is a report (gpubench run --out), not a suite: gpubench report suite.json shows it, "
            "gpubench run --baseline suite.json compares a new run against it");
  EXPECT_EQ(error_of(R"({"schema": "gpubench-history", "runs": []})"),
            "suite 'suite.json' is a history export (gpubench history export), not a suite");
}

TEST(Suite, ParsesSettingsThresholdsAndGroups) {
  const Suite suite = parse_suite(R"({
    "name": "t", "description": "d",
    "settings": {"warmup": 5, "min_samples": 20, "max_samples": 500, "max_noise": 0.01, "min_time": 0.5,
                 "max_time": 4, "seed": 7, "l2": "warm", "threads": 2},
    "thresholds": {"*": 0.05, "spmv": 0.08},
    "groups": [
      {"ops": ["sin", "sqrt"], "dtypes": ["f32", "f64"], "sizes": ["1M", 4096, "1K..4K:x2"], "backends": ["eigen"]},
      {"ops": ["matmul"], "shapes": ["100x33x7"], "timing": ["kernel", "e2e"], "tf32": true, "threshold": 0.1},
      {"ops": ["spmv"], "rows": ["1M"], "nnz_per_row": 8, "pattern": "banded", "spmv_kernel": "row_split"},
      {"ops": ["spmv"], "pattern": ["skew", "short", "blockdiag", "wide", "tall", "longtail"]}]})",
                                  "suite.json");
  EXPECT_EQ(suite.name, "t");
  // Each setting in its type: the integer 4 of "max_time" is a number of seconds.
  EXPECT_EQ(suite.settings.at("warmup"), SettingValue(std::int64_t{5}));
  EXPECT_EQ(suite.settings.at("min_samples"), SettingValue(std::int64_t{20}));
  EXPECT_EQ(suite.settings.at("max_noise"), SettingValue(0.01));
  EXPECT_EQ(suite.settings.at("max_time"), SettingValue(4.0));
  EXPECT_EQ(suite.settings.at("seed"), SettingValue(std::int64_t{7}));
  EXPECT_EQ(suite.settings.at("l2"), SettingValue(std::string("warm")));
  EXPECT_DOUBLE_EQ(suite.thresholds.at("spmv"), 0.08);
  ASSERT_EQ(suite.groups.size(), 4u);
  EXPECT_EQ(suite.groups[0].options.sizes, (std::vector<std::int64_t>{1 << 20, 4096, 1024, 2048, 4096}));
  EXPECT_EQ(suite.groups[0].options.backends, std::vector<std::string>{"eigen"});
  EXPECT_EQ(suite.groups[1].options.matmul_shapes[0].k, 7);
  EXPECT_EQ(suite.groups[1].options.timings.size(), 2u);
  EXPECT_TRUE(suite.groups[1].options.tf32);
  EXPECT_DOUBLE_EQ(*suite.groups[1].threshold, 0.1);
  EXPECT_EQ(suite.groups[2].options.spmv_rows, 1 << 20);
  EXPECT_EQ(suite.groups[2].options.patterns, std::vector<SpmvPattern>{SpmvPattern::banded});
  EXPECT_EQ(suite.groups[2].options.spmv_kernel, SpmvKernelChoice::row_split);
  EXPECT_EQ(suite.groups[3].options.patterns,
            (std::vector<SpmvPattern>{SpmvPattern::skew, SpmvPattern::short_rows, SpmvPattern::block_diagonal,
                                      SpmvPattern::wide, SpmvPattern::tall, SpmvPattern::longtail}));
  EXPECT_EQ(suite.groups[0].options.spmv_kernel, SpmvKernelChoice::automatic);
}

TEST(Suite, ErrorsNameTheOriginAndTheProblem) {
  EXPECT_NE(error_of("{nope").find("suite.json"), std::string::npos);
  EXPECT_NE(error_of("[]").find("object"), std::string::npos);
  EXPECT_NE(error_of(R"({"groups": []})").find("groups"), std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{"ops": ["cos"]}]})").find("cos"), std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{"ops": ["sin"], "sizes": ["0"]}]})").find("zero"), std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{"ops": ["sin"], "sizez": [1]}]})").find("sizez"), std::string::npos);
  EXPECT_NE(error_of(R"({"setings": {}, "groups": [{"ops": ["sin"]}]})").find("setings"), std::string::npos);
  EXPECT_NE(error_of(R"({"settings": {"warmup": "x"}, "groups": [{"ops": ["sin"]}]})").find("warmup"), std::string::npos);
  EXPECT_NE(error_of(R"({"thresholds": {"*": -1}, "groups": [{"ops": ["sin"]}]})").find("thresholds"), std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{"dtypes": ["f32"]}]})").find("ops"), std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{"ops": ["spmv"], "spmv_kernel": "fastest"}]})").find("'fastest'"), std::string::npos);
  // A group's class names it in its errors, and must be one string.
  const std::string classed = error_of(R"({"groups": [{"class": "long-k", "ops": ["matmul"], "sizez": [1]}]})");
  EXPECT_NE(classed.find("groups[0] (class 'long-k')"), std::string::npos) << classed;
  EXPECT_NE(classed.find("sizez"), std::string::npos) << classed;
  EXPECT_NE(error_of(R"({"groups": [{"class": ["a", "b"], "ops": ["matmul"]}]})").find("groups[0].class"),
            std::string::npos);
}

// Every value's refusal is placed in the file (its group and key), and an unknown key names
// the nearest one and the keys the place takes.
TEST(Suite, RefusalsArePlacedAndUnknownKeysSuggest) {
  const auto group_error = [](const std::string& group) { return error_of(R"({"groups": [)" + group + "]}"); };
  EXPECT_EQ(group_error(R"({"ops": ["sin"], "sizes": [0]})"), "suite.json: groups[0].sizes: size '0' is zero; sizes must be positive");
  EXPECT_EQ(group_error(R"({"ops": ["sine"]})").rfind("suite.json: groups[0].ops: unknown op 'sine' (did you mean 'sin'?", 0), 0u);
  EXPECT_EQ(group_error(R"({"ops": ["sin"], "dtypes": ["f23"]})").rfind("suite.json: groups[0].dtypes: unknown dtype 'f23'", 0),
            0u);
  EXPECT_EQ(group_error(R"({"ops": ["matmul"], "shapes": ["4x4"]})").rfind("suite.json: groups[0].shapes: malformed", 0), 0u);
  EXPECT_EQ(group_error(R"({"ops": ["spmv"], "pattern": "rand"})")
                .rfind("suite.json: groups[0].pattern: unknown pattern 'rand' (did you mean 'random'?", 0),
            0u);
  EXPECT_EQ(group_error(R"({"ops": ["sin"], "timing": "e2"})").rfind("suite.json: groups[0].timing: ", 0), 0u);
  EXPECT_EQ(group_error(R"({"ops": ["sin"], "sizes": [1.5]})"),
            "suite.json: groups[0].sizes: expected a string, a whole number or a list of them, got 1.5");
  EXPECT_EQ(group_error(R"({"ops": ["sin"], "size": [4096]})")
                .rfind("suite.json: groups[0]: unknown key 'size' (did you mean 'sizes'? expected one of: ", 0),
            0u);
  EXPECT_EQ(error_of(R"({"grups": [{"ops": ["sin"]}]})").rfind("suite.json: unknown key 'grups' (did you mean 'groups'?", 0),
            0u);
  // A refusal that names its place already is not placed twice.
  EXPECT_EQ(group_error(R"({"ops": ["spmv"], "spmv_kernel": ["auto", "row_split"]})"),
            "suite.json: groups[0].spmv_kernel: expected one value, got 2");
}

TEST(Suite, TelemetrySettings) {
  const Suite suite = parse_suite(
      R"({"settings": {"throttle_threshold": 0.75, "discard_throttled": true, "soak": 30, "no_energy": true},
          "groups": [{"ops": ["sin"]}]})",
      "suite.json");
  EXPECT_DOUBLE_EQ(std::get<double>(suite.settings.at("throttle_threshold")), 0.75);
  EXPECT_TRUE(std::get<bool>(suite.settings.at("discard_throttled")));
  EXPECT_TRUE(std::get<bool>(suite.settings.at("no_energy")));
  EXPECT_DOUBLE_EQ(std::get<double>(suite.settings.at("soak")), 30);  // in the setting's type
  const auto with_settings = [](const std::string& settings) {
    return error_of(R"({"settings": )" + settings + R"(, "groups": [{"ops": ["sin"]}]})");
  };
  EXPECT_NE(with_settings(R"({"throttle_threshold": 1.5})").find("throttle_threshold"), std::string::npos);
  EXPECT_NE(with_settings(R"({"throttle_threshold": 0})").find("throttle_threshold"), std::string::npos);
  EXPECT_NE(with_settings(R"({"discard_throttled": "yes"})").find("discard_throttled"), std::string::npos);
  EXPECT_NE(with_settings(R"({"soak": -1})").find("soak"), std::string::npos);
  EXPECT_NE(with_settings(R"({"no_energy": 1})").find("no_energy"), std::string::npos);
}

TEST(Suite, MissingFile) {
  EXPECT_THROW(load_suite("/nonexistent/suite.json"), UsageError);
}

TEST(Suite, ShippedSuitesParseAndTheEmbeddedDefaultMatchesTheFile) {
  const std::string dir = std::string(GPUBENCH_SOURCE_DIR) + "/configs/";
  for (const char* name : {"default.json", "ci.json", "sweep.json", "performance.json", "gemm-zoo.json"}) {
    EXPECT_NO_THROW(load_suite(dir + name)) << name;
  }
  std::ifstream file(dir + "default.json");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, std::string(build_info::default_suite));
}

}  // namespace
}  // namespace gpb
