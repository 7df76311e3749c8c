// A minimal NVTX injection library for tests: loaded through NVTX_INJECTION64_PATH, it
// records every domain range push and pop, one line each, to the file named by
// GPUBENCH_NVTX_LOG ("push <domain>|<name>", "pop <domain>"). No GPU or profiler needed.
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace {

struct Domain {
  std::string name;
};

std::FILE* log_file() {
  static std::FILE* file = [] {
    const char* path = std::getenv("GPUBENCH_NVTX_LOG");
    return path ? std::fopen(path, "w") : nullptr;
  }();
  return file;
}

std::mutex& log_mutex() {
  static std::mutex mutex;
  return mutex;
}

const char* domain_name(nvtxDomainHandle_t domain) {
  return domain ? reinterpret_cast<Domain*>(domain)->name.c_str() : "(default)";
}

void write_line(const std::string& line) {
  std::lock_guard<std::mutex> lock(log_mutex());
  if (std::FILE* file = log_file()) {
    std::fputs(line.c_str(), file);
    std::fputc('\n', file);
    std::fflush(file);
  }
}

nvtxDomainHandle_t NVTX_API record_domain_create(const char* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(new Domain{name ? name : ""});
}

int NVTX_API record_domain_push(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  const char* message = attributes && attributes->messageType == NVTX_MESSAGE_TYPE_ASCII ? attributes->message.ascii : "?";
  write_line(std::string("push ") + domain_name(domain) + "|" + message);
  return 0;
}

int NVTX_API record_domain_pop(nvtxDomainHandle_t domain) {
  write_line(std::string("pop ") + domain_name(domain));
  return 0;
}

int NVTX_API record_push(const char* message) {
  write_line(std::string("push (default)|") + (message ? message : "?"));
  return 0;
}

int NVTX_API record_pop() {
  write_line("pop (default)");
  return 0;
}

template <class F>
void install(NvtxFunctionTable table, unsigned int size, unsigned int id, F function) {
  if (table && id <= size && table[id]) *table[id] = reinterpret_cast<NvtxFunctionPointer>(function);
}

}  // namespace

extern "C" NVTX_DYNAMIC_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table) {
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (!callbacks || !callbacks->GetModuleFunctionTable) return 0;
  NvtxFunctionTable core = nullptr;
  NvtxFunctionTable core2 = nullptr;
  unsigned int core_size = 0;
  unsigned int core2_size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &core_size)) return 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2_size)) return 0;
  install(core, core_size, NVTX_CBID_CORE_RangePushA, record_push);
  install(core, core_size, NVTX_CBID_CORE_RangePop, record_pop);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainCreateA, record_domain_create);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainRangePushEx, record_domain_push);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainRangePop, record_domain_pop);
  return 1;
}
