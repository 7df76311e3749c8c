// Move-only owners of a CUDA graph and its executable instance, and the capture of a case's
// launches into one (--timing graph).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "measure/backend.hpp"

namespace gpb::cuda {

class Graph {
 public:
  Graph() = default;
  explicit Graph(cudaGraph_t graph) : graph_(graph) {}
  ~Graph();
  Graph(Graph&& other) noexcept : graph_(std::exchange(other.graph_, nullptr)) {}
  Graph& operator=(Graph&& other) noexcept {
    std::swap(graph_, other.graph_);
    return *this;
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  cudaGraph_t get() const { return graph_; }

 private:
  cudaGraph_t graph_ = nullptr;
};

class GraphExec {
 public:
  GraphExec() = default;
  // Instantiates `graph` (untimed); throws on failure.
  explicit GraphExec(const Graph& graph);
  ~GraphExec();
  GraphExec(GraphExec&& other) noexcept : exec_(std::exchange(other.exec_, nullptr)) {}
  GraphExec& operator=(GraphExec&& other) noexcept {
    std::swap(exec_, other.exec_);
    return *this;
  }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  void launch(cudaStream_t stream) const;

 private:
  cudaGraphExec_t exec_ = nullptr;
};

// Captures what `enqueue_one` puts on `stream`, `launches` times over, into a graph and
// instantiates it. The capture mode is thread-local: a call that is illegal while capturing
// (an allocation, a synchronisation) fails in this thread, and the result then names it instead
// of a graph; so does a capture that ends empty (work enqueued on another stream).
GraphCapture capture_launches(cudaStream_t stream, std::int64_t launches, const std::function<void()>& enqueue_one);

}  // namespace gpb::cuda
