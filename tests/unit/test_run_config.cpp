// The run configuration: defaults, the suite/command-line merge, validation and the typed
// settings it writes into the report context.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>

#include "base/system.hpp"
#include "config/run_config.hpp"
#include "measure/context.hpp"

namespace gpb {
namespace {

// `gpubench run` with these flags, parsed and resolved.
RunConfig resolve(const std::string& flags) {
  CLI::App app;
  CLI::App* run = app.add_subcommand("run");
  const RunCommandLine command_line(*run);
  app.parse("run " + flags, false);
  return command_line.resolve();
}

std::string error_of(const std::string& flags) {
  try {
    resolve(flags);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "<no UsageError>";
}

std::string write_suite(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(RunConfig, DefaultsComeFromTheSettingsTable) {
  const RunSettings settings = resolve("--op sin").settings;
  EXPECT_EQ(settings.warmup, 3);
  EXPECT_EQ(settings.min_samples, 10);
  EXPECT_EQ(settings.max_samples, 100000);
  EXPECT_DOUBLE_EQ(settings.max_noise, 0.005);
  EXPECT_DOUBLE_EQ(settings.min_time_s, 0.05);
  EXPECT_DOUBLE_EQ(settings.max_time_s, 2.0);
  EXPECT_EQ(settings.seed, 42u);
  EXPECT_EQ(settings.l2, L2Mode::flush);
  EXPECT_EQ(settings.threads, 0);
  EXPECT_EQ(settings.repetitions, 1);
  EXPECT_EQ(settings.device, "");  // GPU 0, or a launcher's local rank's
  EXPECT_FALSE(settings.devices_serial);
  EXPECT_FALSE(settings.profile);
  const RunSettings defaults = default_run_settings();
  EXPECT_EQ(defaults.warmup, settings.warmup);
  EXPECT_EQ(defaults.seed, settings.seed);
}

TEST(RunConfig, AnExplicitFlagWinsOverTheSuiteWhichWinsOverTheDefault) {
  const std::string suite = write_suite("merge.json", R"({"settings": {"warmup": 7, "max_noise": 0.02, "seed": 9, "l2": "warm",
      "threads": 1}, "groups": [{"ops": ["sum"], "sizes": ["1K"], "backends": ["eigen"]}]})");
  const RunConfig config = resolve("--config " + suite + " --warmup 1 --threads 0");
  EXPECT_EQ(config.settings.warmup, 1);
  EXPECT_EQ(config.settings.threads, 0);
  EXPECT_DOUBLE_EQ(config.settings.max_noise, 0.02);
  EXPECT_EQ(config.settings.seed, 9u);
  EXPECT_EQ(config.settings.l2, L2Mode::warm);
  EXPECT_DOUBLE_EQ(config.settings.max_time_s, 2.0);
  EXPECT_EQ(config.suite_path, suite);
  ASSERT_EQ(config.groups.size(), 1u);
  EXPECT_EQ(config.groups[0].options.ops, std::vector<Op>{Op::sum});
}

TEST(RunConfig, PercentFlagsBecomeFractions) {
  const RunConfig config = resolve("--op sin --max-noise 0.5 --threshold 7");
  EXPECT_DOUBLE_EQ(config.settings.max_noise, 0.005);
  ASSERT_TRUE(config.compare.threshold);
  EXPECT_DOUBLE_EQ(*config.compare.threshold, 0.07);
}

TEST(RunConfig, AProfilerSessionIsOnePass) {
  const RunConfig config = resolve("--op sin --profile --repetitions 5");
  EXPECT_TRUE(config.settings.profile);
  EXPECT_EQ(config.settings.repetitions, 1);
}

TEST(RunConfig, TheContextGetsEverySettingInItsType) {
  const std::string suite = write_suite("typed.json", R"({"groups": [{"ops": ["sum"], "backends": ["eigen"]}]})");
  Context context;
  record_settings(resolve("--config " + suite + " --max-time 2 --seed 18446744073709551615"), context);
  EXPECT_EQ(context.settings.at("max_time_s"), SettingValue(2.0));
  EXPECT_EQ(context.settings.at("max_noise"), SettingValue(0.005));
  EXPECT_EQ(context.settings.at("warmup"), SettingValue(std::int64_t{3}));
  EXPECT_EQ(context.settings.at("seed"), SettingValue(std::numeric_limits<std::uint64_t>::max()));
  EXPECT_EQ(context.settings.at("profile"), SettingValue(false));
  EXPECT_EQ(context.settings.at("l2"), SettingValue(std::string("flush")));
  EXPECT_EQ(context.settings.at("suite"), SettingValue(suite));
  EXPECT_TRUE(std::holds_alternative<double>(context.settings.at("min_sample_s")));
  // The threads used are the context's own field; the ordinal is a GPU fact.
  EXPECT_EQ(context.settings.count("threads"), 0u);
  EXPECT_EQ(context.settings.count("device"), 0u);
}

TEST(RunConfig, BadValuesNameTheFlag) {
  EXPECT_EQ(error_of("--op sin --warmup x"), "--warmup: expected an integer, got 'x'");
  EXPECT_EQ(error_of("--op sin --warmup -1"), "--warmup: -1 is out of range (at least 0, at most 1000000)");
  EXPECT_EQ(error_of("--op sin --max-noise 0"), "--max-noise: 0 is out of range (above 0, at most 100)");
  EXPECT_EQ(error_of("--op sin --min-samples 20 --max-samples 10"), "--min-samples (20) must not exceed --max-samples (10)");
  EXPECT_EQ(error_of("--op sin --min-time 3 --max-time 2"), "--min-time (3 s) must not exceed --max-time (2 s)");
  EXPECT_EQ(error_of("--op sin --l2 cold").rfind("--l2: ", 0), 0u);
}

TEST(RunConfig, DeviceTakesAnOrdinalAListOrAll) {
  EXPECT_EQ(resolve("--op sin --device all").settings.device, "all");
  // Ordinals are checked against the GPUs this process sees; where it sees none (a machine
  // without a GPU, or a CPU-only build), a GPU case says so when it runs.
  const int visible = visible_gpu_count();
  if (visible == 0 || visible > 2) {
    const RunSettings listed = resolve("--op sin --device 0,2 --devices-serial").settings;
    EXPECT_EQ(listed.device, "0,2");
    EXPECT_TRUE(listed.devices_serial);
  } else {
    const std::string expected = "--device 2: this process sees " + std::to_string(visible) + " GPU";
    EXPECT_EQ(error_of("--op sin --device 0,2 --devices-serial").rfind(expected, 0), 0u);
  }
  EXPECT_EQ(error_of("--op sin --device 0,0"), "--device: '0,0' names GPU 0 twice");
  EXPECT_EQ(error_of("--op sin --device gpu1").rfind("--device: 'gpu1': expected 'all'", 0), 0u);
}

TEST(RunConfig, SuiteSettingsAreCheckedAgainstTheTable) {
  EXPECT_EQ(check_suite_setting("max_time", std::int64_t{4}, "s.json: settings"), SettingValue(4.0));
  EXPECT_EQ(check_suite_setting("seed", std::int64_t{7}, "s.json: settings"), SettingValue(std::int64_t{7}));
  const auto error_of_setting = [](const std::string& key, const SettingValue& value) -> std::string {
    try {
      check_suite_setting(key, value, "s.json: settings");
    } catch (const UsageError& error) {
      return error.what();
    }
    return "<no UsageError>";
  };
  EXPECT_EQ(error_of_setting("warmup", std::string("x")), "s.json: settings.warmup: expected an integer, got x");
  // A suite's max_noise is a fraction: 5 names 0.05.
  EXPECT_EQ(error_of_setting("max_noise", 5.0),
            "s.json: settings.max_noise: 5 is out of range (above 0, at most 1; a fraction: did you mean 0.05?)");
  EXPECT_EQ(error_of_setting("device", std::int64_t{1})
                .rfind("s.json: settings: unknown key 'device' (expected one of: warmup, ", 0),
            0u);
  EXPECT_EQ(error_of_setting("min_sample", std::int64_t{1})
                .rfind("s.json: settings: unknown key 'min_sample' (did you mean 'min_samples'? ", 0),
            0u);
  EXPECT_EQ(error_of_setting("seed", std::int64_t{-1}),
            "s.json: settings.seed: expected an integer from 0 to 18446744073709551615, got -1");
}

TEST(RunConfig, ThreadsAreBoundedByTheCoresAndBy1024) {
  const int most = std::min(1024, 8 * usable_cores());
  EXPECT_EQ(error_of("--op sin --threads 100000"),
            "--threads: 100000 is out of range (at least 0, at most " + std::to_string(most) + ")");
  EXPECT_EQ(resolve("--op sin --threads " + std::to_string(most)).settings.threads, most);
  const std::string suite = write_suite("threads.json", R"({"settings": {"threads": 4294967297}, "groups": [{"ops": ["sum"]}]})");
  EXPECT_NE(error_of("--config " + suite).find("settings.threads: 4294967297 is out of range"), std::string::npos);
}

TEST(RunConfig, NumbersMustFitTheirType) {
  EXPECT_EQ(error_of("--op sin --seed -1"), "--seed: expected an integer from 0 to 18446744073709551615, got -1");
  EXPECT_EQ(error_of("--op sin --seed 18446744073709551616"),
            "--seed: expected an integer from 0 to 18446744073709551615, got 18446744073709551616");
  EXPECT_EQ(resolve("--op sin --seed 18446744073709551615").settings.seed, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(error_of("--op sin --warmup 1.5"), "--warmup: expected an integer, got '1.5'");
  // A whole number written another way names itself.
  EXPECT_EQ(error_of("--op sin --warmup 1e3"), "--warmup: expected an integer, got '1e3' (did you mean 1000?)");
  EXPECT_EQ(error_of("--op sin --min-samples 20.0"), "--min-samples: expected an integer, got '20.0' (did you mean 20?)");
  EXPECT_EQ(error_of("--op sin --warmup -1e0"), "--warmup: expected an integer, got '-1e0'");
  EXPECT_EQ(error_of("--op sin --max-samples -1"), "--max-samples: -1 is out of range (at least 1, at most 1000000)");
  EXPECT_EQ(error_of("--op sin --max-time nan"), "--max-time: expected a finite number, got nan");
  EXPECT_EQ(error_of("--op sin --max-noise inf"), "--max-noise: expected a finite number, got inf");
  EXPECT_EQ(error_of("--op sin --min-time 1e999"), "--min-time: expected a number, got '1e999'");
  EXPECT_EQ(error_of("--op sin --max-noise 101"), "--max-noise: 101 is out of range (above 0, at most 100)");
  // A fraction given as a percentage names the fraction; in a suite, max_noise is a fraction too.
  EXPECT_EQ(error_of("--op sin --throttle-threshold 90"),
            "--throttle-threshold: 90 is out of range (above 0, at most 1; a fraction: did you mean 0.9?)");
  EXPECT_EQ(error_of("--op sin --throttle-threshold 900"), "--throttle-threshold: 900 is out of range (above 0, at most 1)");
  EXPECT_EQ(error_of("--op sin --threshold nan"),
            "--threshold must be above 0 % and below 100 % (in a suite, a fraction: 0.05 is 5 %), got nan%");
}

TEST(RunConfig, ASuiteIsSelectedFromNotIgnored) {
  const std::string suite = write_suite("select.json", R"({"groups": [
      {"ops": ["sin", "sum"], "dtypes": ["f32", "f64"], "timing": ["kernel", "e2e"]},
      {"ops": ["matmul"], "backends": ["cublas", "openblas"]}]})");
  const RunConfig config = resolve("--config " + suite + " --dtype f64 --timing e2e --op sum --backend openblas");
  ASSERT_EQ(config.groups.size(), 1u);  // matmul has no f64 and no e2e
  EXPECT_EQ(config.groups[0].options.dtypes, std::vector<DType>{DType::f64});
  EXPECT_EQ(config.groups[0].options.timings, std::vector<TimingMode>{TimingMode::e2e});
  EXPECT_EQ(config.groups[0].options.backends, std::vector<std::string>{"openblas"});
  EXPECT_EQ(config.only_ops, std::vector<Op>{Op::sum});
  EXPECT_EQ(resolve("--config " + suite + " --backend openblas").groups[1].options.backends,
            std::vector<std::string>{"openblas"});
  EXPECT_NE(error_of("--config " + suite + " --dtype f16x").find("f16x"), std::string::npos);
  EXPECT_EQ(error_of("--config " + suite + " --rows 1K").rfind("--rows cannot be combined with a suite", 0), 0u);
}

TEST(RunConfig, AFlagThatAppliesToNoOpIsRefused) {
  EXPECT_EQ(error_of("--op sum --matrix m.mtx"), "--matrix applies to spmv, and no --op is spmv");
  EXPECT_EQ(error_of("--op sin --shape 4x4x4"), "--shape applies to matmul, and no --op is matmul");
  EXPECT_EQ(error_of("--op spmv --matrix m.mtx --rows 1K"), "--rows does not apply with --matrix: the file is the matrix");
  EXPECT_EQ(error_of("--op matmul --dtype f64 --tf32"), "--tf32 applies to f32 matmul, and no --dtype is f32");
  EXPECT_EQ(error_of("--op matmul --dtype f16,bf16 --tf32"), "--tf32 applies to f32 matmul, and no --dtype is f32");
  // The custom GEMM has no TF32 path: --tf32 with only it would change nothing.
  EXPECT_EQ(error_of("--op matmul --backend eigen,cuda --tf32"),
            "--tf32 applies to a backend with a TF32 path (cublas), and no --backend is one");
  EXPECT_EQ(error_of("--op sum --allow-machine-mismatch"), "--allow-machine-mismatch applies to --baseline, which is not given");
  // --spmv-kernel forces the cuda backend's SpMV kernel: without spmv, or with only other
  // backends, it would change nothing.
  EXPECT_EQ(error_of("--op matmul --shape 4x4x4 --spmv-kernel merge_path"),
            "--spmv-kernel applies to spmv, and no --op is spmv");
  EXPECT_EQ(error_of("--op spmv --backend cusparse,eigen --spmv-kernel row_split"),
            "--spmv-kernel applies to the cuda backend's spmv, and no --backend is cuda");
  EXPECT_EQ(resolve("--op spmv,sum --spmv-kernel merge_path").groups.size(), 1u);
}

TEST(RunConfig, OutputsAreCheckedWithoutCreatingThem) {
  const std::string good = ::testing::TempDir() + "checked.json";
  std::remove(good.c_str());
  EXPECT_EQ(error_of("--op sum --out " + good + " --out /nonexistent/x.json"),
            "cannot write report '/nonexistent/x.json': no directory '/nonexistent'");
  EXPECT_EQ(error_of("--op sum --out " + good + " --out " + good), "--out " + good + " is named twice");
  EXPECT_FALSE(std::ifstream(good).good());
  const RunConfig config = resolve("--op sum --out " + good + " --format json");
  ASSERT_EQ(config.outputs.size(), 2u);
  EXPECT_EQ(config.outputs[1].format, ReportFormat::json);  // the terminal gets --format
  EXPECT_TRUE(config.outputs[1].path.empty());
}

}  // namespace
}  // namespace gpb
