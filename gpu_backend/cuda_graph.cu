#include "gpu_backend/cuda_graph.cuh"

#include <exception>

#include "gpu_backend/cuda_check.cuh"

namespace gpb::cuda {
namespace {

class CapturedLaunches final : public LaunchGraph {
 public:
  CapturedLaunches(GraphExec exec, cudaStream_t stream, std::int64_t launches)
      : exec_(std::move(exec)), stream_(stream), launches_(launches) {}
  void replay() override { exec_.launch(stream_); }
  std::int64_t launches() const override { return launches_; }

 private:
  GraphExec exec_;
  cudaStream_t stream_;
  std::int64_t launches_;
};

std::string error_text(cudaError_t status) {
  return std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")";
}

}  // namespace

Graph::~Graph() {
  if (graph_) GPB_CUDA_CHECK_NOTHROW(cudaGraphDestroy(graph_));
}

GraphExec::GraphExec(const Graph& graph) { GPB_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph.get(), 0)); }

GraphExec::~GraphExec() {
  if (exec_) GPB_CUDA_CHECK_NOTHROW(cudaGraphExecDestroy(exec_));
}

void GraphExec::launch(cudaStream_t stream) const { GPB_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

GraphCapture capture_launches(cudaStream_t stream, std::int64_t launches, const std::function<void()>& enqueue_one) {
  GPB_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  std::string failure;
  try {
    for (std::int64_t i = 0; i < launches; ++i) enqueue_one();
  } catch (const std::exception& error) {
    failure = error.what();
  }
  // Ends the capture whatever happened, so that the stream is usable again.
  cudaGraph_t captured = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &captured);
  Graph graph(captured);
  if (!failure.empty() || ended != cudaSuccess) {
    // The failed call's error is not sticky: clear it, so that it does not surface at the
    // next unrelated check.
    (void)cudaGetLastError();
    if (!failure.empty()) return {nullptr, "a call of the op failed under stream capture: " + failure};
    return {nullptr, "stream capture failed: cudaStreamEndCapture returned " + error_text(ended)};
  }
  std::size_t nodes = 0;
  GPB_CUDA_CHECK(cudaGraphGetNodes(graph.get(), nullptr, &nodes));
  if (nodes == 0) return {nullptr, "the capture holds no work: the op enqueued nothing on the case's stream"};
  return {std::make_unique<CapturedLaunches>(GraphExec(graph), stream, launches), {}};
}

}  // namespace gpb::cuda
