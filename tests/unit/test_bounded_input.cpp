#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "base/input_file.hpp"
#include "base/json_input.hpp"
#include "model/types.hpp"
#include "usage_error_of.hpp"

namespace gpb {
namespace {

namespace fs = std::filesystem;

using testing::usage_error_of;

class InputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() /
                 ("gpubench-input-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }
  std::string write(const std::string& name, const std::string& text) const {
    const auto path = (directory_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  fs::path directory_;
};

TEST_F(InputFile, ReadsWholeFilesUpToTheBound) {
  const auto path = write("exact.json", std::string(100, 'x'));
  EXPECT_EQ(read_input_file(path, 100, "report"), std::string(100, 'x'));
  EXPECT_EQ(usage_error_of([&] { read_input_file(path, 99, "report"); }),
            "report '" + path + "' is 100 bytes, more than the 99 bytes that gpubench reads (docs/bounds.md)");
}

TEST_F(InputFile, EndlessDevicesStopAtTheBound) {
  EXPECT_EQ(usage_error_of([] { read_input_file("/dev/zero", kMiB, "suite"); }),
            "suite '/dev/zero' holds more than the 1 MiB that gpubench reads (docs/bounds.md)");
  EXPECT_EQ(read_input_file("/dev/null", kMiB, "suite"), "");
}

TEST_F(InputFile, ReadsPipes) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const std::string text(200000, 'p');  // more than a pipe buffer: the reader must loop
  std::thread writer([&] {
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t count = ::write(ends[1], text.data() + done, text.size() - done);
      if (count <= 0) break;
      done += static_cast<std::size_t>(count);
    }
    ::close(ends[1]);
  });
  const std::string read = read_input_file("/dev/fd/" + std::to_string(ends[0]), kMiB, "matrix file");
  writer.join();
  ::close(ends[0]);
  EXPECT_EQ(read, text);
}

TEST_F(InputFile, MissingFilesAndDirectoriesNameThePath) {
  const auto missing = (directory_ / "none.json").string();
  EXPECT_EQ(usage_error_of([&] { read_input_file(missing, kMiB, "report"); }),
            "cannot read report '" + missing + "': No such file or directory");
  EXPECT_EQ(usage_error_of([&] { read_input_file(directory_.string(), kMiB, "suite"); }),
            "cannot read suite '" + directory_.string() + "': Is a directory");
}

TEST(AvailableMemory, IsPositiveAndNoMoreThanPhysical) {
  const auto available = available_memory_bytes();
  const auto physical = static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGE_SIZE));
  EXPECT_GT(available, 0u);
  EXPECT_LE(available, physical);
}

TEST(DescribeBytes, PicksABinaryUnit) {
  EXPECT_EQ(describe_bytes(512), "512 bytes");
  EXPECT_EQ(describe_bytes(16 * kMiB), "16 MiB");
  EXPECT_EQ(describe_bytes(3 * kMiB / 2), "1.5 MiB");
  EXPECT_EQ(describe_bytes(std::uint64_t{40} << 30), "40 GiB");
}

std::string nested_arrays(int levels) { return std::string(static_cast<std::size_t>(levels), '[') + std::string(static_cast<std::size_t>(levels), ']'); }

TEST(JsonInput, NestingUpToTheBoundIsRead) {
  const auto document = parse_json_input(nested_arrays(kMaxJsonDepth), "x.json");
  EXPECT_TRUE(document.is_array());
  const std::string objects = std::string("{\"a\":") + nested_arrays(kMaxJsonDepth - 1) + "}";
  EXPECT_TRUE(parse_json_input(objects, "x.json").is_object());
}

TEST(JsonInput, DeeperNestingIsRefusedWithoutOverflowingTheStack) {
  const std::string expected = "x.json: invalid JSON: nested more than 64 levels deep (the most gpubench reads)";
  EXPECT_EQ(usage_error_of([] { parse_json_input(nested_arrays(kMaxJsonDepth + 1), "x.json"); }), expected);
  // The case: a few hundred thousand levels (600 KB), arrays and objects.
  EXPECT_EQ(usage_error_of([] { parse_json_input(nested_arrays(300000), "x.json"); }), expected);
  std::string objects;
  for (int level = 0; level < 300000; ++level) objects += "{\"a\":";
  objects += "1" + std::string(300000, '}');
  EXPECT_EQ(usage_error_of([&] { parse_json_input(objects, "x.json"); }), expected);
}

TEST(JsonInput, NumbersBeyondADoubleAndSyntaxErrorsAreUsageErrors) {
  EXPECT_EQ(usage_error_of([] { parse_json_input("{\"a\": 1e999}", "suite 's.json'"); }),
            "suite 's.json': invalid JSON: number overflow parsing '1e999'");
  EXPECT_EQ(usage_error_of([] { parse_json_input("{\"a\": ", "r.json"); }).rfind("r.json: invalid JSON: parse error", 0), 0u);
  EXPECT_EQ(usage_error_of([] { parse_json_input(std::string("\0", 1), "r.json"); }).rfind("r.json: invalid JSON: ", 0), 0u);
}

}  // namespace
}  // namespace gpb
