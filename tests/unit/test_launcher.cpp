// Launchers: rank, local rank and node from Slurm, Open MPI, MPICH and torchrun variables;
// which GPUs a process takes; {rank}, {host} and {device} in --out paths.
#include <gtest/gtest.h>

#include "fleet/launcher.hpp"
#include "model/types.hpp"

namespace gpb {
namespace {

TEST(Launcher, StartedDirectlyIsRankZeroOfOne) {
  const LaunchInfo launch = detect_launch({});
  EXPECT_FALSE(launch.launched());
  EXPECT_EQ(launch.rank, 0);
  EXPECT_EQ(launch.world_size, 1);
}

TEST(Launcher, ReadsSlurm) {
  const LaunchInfo launch = detect_launch({{"SLURM_PROCID", "13"},
                                           {"SLURM_LOCALID", "5"},
                                           {"SLURM_NTASKS", "16"},
                                           {"SLURM_NODEID", "1"},
                                           {"SLURMD_NODENAME", "node-b"}});
  EXPECT_EQ(launch.launcher, "slurm");
  EXPECT_EQ(launch.rank, 13);
  EXPECT_EQ(launch.local_rank, 5);
  EXPECT_EQ(launch.world_size, 16);
  EXPECT_EQ(launch.node, "1");
  EXPECT_EQ(launch.node_name, "node-b");
  EXPECT_EQ(host_name({{"SLURMD_NODENAME", "node-b"}}, launch), "node-b");
  EXPECT_EQ(host_name({{"GPUBENCH_HOST", "rack4-node2"}}, launch), "rack4-node2");
}

TEST(Launcher, ReadsOpenMpiAndMpich) {
  const LaunchInfo openmpi =
      detect_launch({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "4"}});
  EXPECT_EQ(openmpi.launcher, "openmpi");
  EXPECT_EQ(openmpi.rank, 3);
  EXPECT_EQ(openmpi.local_rank, 1);
  EXPECT_EQ(openmpi.world_size, 4);
  const LaunchInfo mpich = detect_launch({{"PMI_RANK", "2"}, {"MPI_LOCALRANKID", "0"}, {"PMI_SIZE", "3"}});
  EXPECT_EQ(mpich.launcher, "mpich");
  EXPECT_EQ(mpich.rank, 2);
  EXPECT_EQ(mpich.local_rank, 0);
  EXPECT_EQ(mpich.world_size, 3);
}

TEST(Launcher, ReadsTorchrunOnlyWithLocalRank) {
  const LaunchInfo torchrun =
      detect_launch({{"RANK", "9"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "16"}, {"GROUP_RANK", "1"}});
  EXPECT_EQ(torchrun.launcher, "torchrun");
  EXPECT_EQ(torchrun.rank, 9);
  EXPECT_EQ(torchrun.local_rank, 1);
  EXPECT_EQ(torchrun.node, "1");
  EXPECT_FALSE(detect_launch({{"RANK", "9"}}).launched());
}

TEST(Launcher, TheInnerLauncherWins) {
  // mpirun inside a Slurm allocation: the Slurm variables describe the batch step.
  const LaunchInfo launch = detect_launch({{"SLURM_PROCID", "0"},
                                           {"SLURM_LOCALID", "0"},
                                           {"SLURM_NTASKS", "1"},
                                           {"OMPI_COMM_WORLD_RANK", "7"},
                                           {"OMPI_COMM_WORLD_LOCAL_RANK", "3"},
                                           {"OMPI_COMM_WORLD_SIZE", "8"}});
  EXPECT_EQ(launch.launcher, "openmpi");
  EXPECT_EQ(launch.rank, 7);
  EXPECT_EQ(launch.local_rank, 3);
}

TEST(Launcher, BadValuesAreUsageErrorsNamingTheVariable) {
  try {
    detect_launch({{"SLURM_PROCID", "x1"}});
    FAIL() << "expected a UsageError";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("SLURM_PROCID='x1'"), std::string::npos) << error.what();
  }
  EXPECT_THROW(detect_launch({{"SLURM_PROCID", "-1"}}), UsageError);
  EXPECT_THROW(detect_launch({{"SLURM_PROCID", "4"}, {"SLURM_NTASKS", "4"}}), UsageError);
  EXPECT_THROW(detect_launch({{"PMI_RANK", "0"}, {"MPI_LOCALRANKID", "one"}}), UsageError);
  // A world of no ranks is a broken environment, not an unknown size.
  for (const char* size : {"WORLD_SIZE", "SLURM_NTASKS"}) {
    const std::string rank = size == std::string("WORLD_SIZE") ? "RANK" : "SLURM_PROCID";
    Environment environment{{rank, "0"}, {size, "0"}};
    if (rank == "RANK") environment["LOCAL_RANK"] = "0";
    try {
      detect_launch(environment);
      FAIL() << size << "=0 was accepted";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find(std::string(size) + "=0"), std::string::npos) << error.what();
    }
  }
}

TEST(DeviceChoice, ParsesAllAndLists) {
  EXPECT_TRUE(parse_device_request("all").all);
  EXPECT_EQ(parse_device_request("3").ordinals, (std::vector<int>{3}));
  EXPECT_EQ(parse_device_request("0,2,3").ordinals, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(parse_device_request("1023").ordinals, (std::vector<int>{1023}));
  for (const char* bad : {"", "-1", "gpu0", "0,0", "1.5", ",", "1024", "99999999999"})
    EXPECT_THROW(parse_device_request(bad), UsageError) << bad;
}

// Other tools' spellings of an ordinal ("gpu1", "cuda:1") are refused with the ordinal to
// write; a word with no ordinal at its end gets no guess.
TEST(DeviceChoice, OtherSpellingsOfAnOrdinalSayWhatToWrite) {
  const auto refusal = [](const std::string& text) -> std::string {
    try {
      parse_device_request(text);
    } catch (const UsageError& error) {
      return error.what();
    }
    return "<accepted>";
  };
  EXPECT_NE(refusal("gpu0").find("; for 'gpu0' write 0"), std::string::npos) << refusal("gpu0");
  EXPECT_NE(refusal("cuda:3").find("; for 'cuda:3' write 3"), std::string::npos);
  EXPECT_NE(refusal("1,GPU02").find("; for 'GPU02' write 2"), std::string::npos);
  for (const char* bare : {"x", "gpu", "-1", "1.5"}) EXPECT_EQ(refusal(bare).find("; for '"), std::string::npos) << bare;
}

TEST(DeviceChoice, ExplicitDevicesWin) {
  LaunchInfo launch;
  launch.launcher = "slurm";
  launch.local_rank = 3;
  EXPECT_EQ(choose_devices(parse_device_request("1,2"), launch, 4).devices, (std::vector<int>{1, 2}));
  EXPECT_EQ(choose_devices(parse_device_request("all"), launch, 4).devices, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_THROW(choose_devices(parse_device_request("4"), launch, 4), UsageError);
  // No visible GPU: the GPU backends say they are unavailable; the choice itself stands.
  EXPECT_EQ(choose_devices(parse_device_request("all"), launch, 0).devices, (std::vector<int>{0}));
  EXPECT_EQ(choose_devices(parse_device_request("5"), launch, 0).devices, (std::vector<int>{5}));
}

TEST(DeviceChoice, LaunchedRanksTakeTheirLocalRanksGpu) {
  LaunchInfo launch;
  launch.launcher = "openmpi";
  launch.local_rank = 2;
  EXPECT_EQ(choose_devices(std::nullopt, launch, 4).devices, (std::vector<int>{2}));
  EXPECT_TRUE(choose_devices(std::nullopt, launch, 4).notes.empty());
  // srun --gpus-per-task=1 binds one GPU to each task: ordinal 0 is that task's GPU.
  EXPECT_EQ(choose_devices(std::nullopt, launch, 1).devices, (std::vector<int>{0}));
  // More ranks than GPUs: they share, and the report says so.
  launch.local_rank = 5;
  const DeviceChoice shared = choose_devices(std::nullopt, launch, 4);
  EXPECT_EQ(shared.devices, (std::vector<int>{1}));
  ASSERT_EQ(shared.notes.size(), 1u);
  EXPECT_NE(shared.notes.front().find("shares GPU 1"), std::string::npos);
  // Unknown GPU count (a build without CUDA): the local rank itself.
  EXPECT_EQ(choose_devices(std::nullopt, launch, 0).devices, (std::vector<int>{5}));
  EXPECT_EQ(choose_devices(std::nullopt, LaunchInfo{}, 4).devices, (std::vector<int>{0}));
}

TEST(OutputPaths, ExpandsPlaceholders) {
  const OutputPlaceholders values{12, "node-b", {0, 1, 3}};
  EXPECT_EQ(expand_output_path("fleet-{host}-{rank}.json", values), "fleet-node-b-12.json");
  EXPECT_EQ(expand_output_path("out/{host}/gpu{device}.csv", values), "out/node-b/gpu0-1-3.csv");
  EXPECT_EQ(expand_output_path("plain.json", values), "plain.json");
  EXPECT_EQ(expand_output_path("{rank}{rank}.md", values), "1212.md");
  EXPECT_THROW(expand_output_path("fleet-{hots}.json", values), UsageError);
  EXPECT_THROW(expand_output_path("fleet-{rank.json", values), UsageError);
}

// {host} comes from the environment (GPUBENCH_HOST, SLURMD_NODENAME): it names one file, never
// a path that leaves the directory given.
TEST(OutputPaths, HostIsASinglePathComponent) {
  for (const char* host : {"../outside/escaped", "a/b", "..", ".", "", "/etc/x", "node/"}) {
    const OutputPlaceholders values{0, host, {0}};
    EXPECT_THROW(expand_output_path("out/{host}.json", values), UsageError) << host;
    EXPECT_EQ(expand_output_path("plain.json", values), "plain.json") << "only an expanded {host} is checked";
  }
  EXPECT_EQ(expand_output_path("{host}.json", OutputPlaceholders{0, "..node..", {0}}), "..node...json");
  EXPECT_EQ(expand_output_path("{host}.json", OutputPlaceholders{0, ".hidden-ok", {0}}), ".hidden-ok.json");
}

TEST(OutputPaths, SeveralRanksNeedRankInTheirPaths) {
  LaunchInfo launch;
  EXPECT_NO_THROW(require_rank_in_outputs({"report.json"}, launch));
  launch.launcher = "slurm";
  launch.world_size = 1;
  EXPECT_NO_THROW(require_rank_in_outputs({"report.json"}, launch));
  launch.world_size = 8;
  EXPECT_THROW(require_rank_in_outputs({"report-{host}.json"}, launch), UsageError);
  EXPECT_NO_THROW(require_rank_in_outputs({"report-{host}-{rank}.json"}, launch));
  launch.world_size = 0;  // unknown: could be several
  EXPECT_THROW(require_rank_in_outputs({"report.json"}, launch), UsageError);
}

}  // namespace
}  // namespace gpb
